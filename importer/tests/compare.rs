//! The "is this stat changed" rule against lkp-tests' own cases (`fixtures/lkp-tests/stats_changed_stats`),
//! plus the rules those cases do not reach, and `lkpx compare` end to end.

use importer::lkp::compare;
use reader::direction;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use compare::{changed_stats, lkp_records, CompareOptions, Matrix};
use model::{ChangeKind, Direction};
use serde_norway::Value as Yaml;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/lkp-tests/stats_changed_stats")
}

fn matrix(v: &Yaml) -> Matrix {
    v.as_mapping()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let vals = v.as_sequence().map(|s| s.iter().filter_map(Yaml::as_f64).collect()).unwrap_or_default();
                    (k.as_str().unwrap().to_string(), vals)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn options(v: Option<&Yaml>) -> CompareOptions {
    let get = |k: &str| v.and_then(|o| o.get(k));
    CompareOptions {
        more: get("more").and_then(Yaml::as_bool).unwrap_or(false),
        gap: get("gap").and_then(Yaml::as_f64),
        variance: get("variance").and_then(Yaml::as_f64),
        regression_only: get("regression-only").and_then(Yaml::as_bool).unwrap_or(false),
    }
}

fn close(actual: f64, expected: f64) -> bool {
    actual == expected || (actual - expected).abs() <= 1e-9 * expected.abs().max(1e-300)
}

/// Compares one expected lkp field with ours; `None` when it matches.
fn field_mismatch(name: &str, expected: &Yaml, actual: &serde_json::Value) -> Option<String> {
    let ok = match expected {
        Yaml::Number(n) => {
            let e = n.as_f64().unwrap();
            let a = actual.as_f64();
            // lkp's spec compares mean_a / mean_b exactly.
            match name {
                "mean_a" | "mean_b" => a == Some(e),
                _ => a.is_some_and(|a| close(a, e)),
            }
        }
        Yaml::Bool(b) => actual.as_bool() == Some(*b),
        Yaml::String(s) => actual.as_str() == Some(s.as_str()),
        Yaml::Sequence(seq) => actual.as_array().is_some_and(|arr| {
            arr.len() == seq.len()
                && arr.iter().zip(seq).all(|(a, e)| a.as_f64().zip(e.as_f64()).is_some_and(|(a, e)| close(a, e)))
        }),
        _ => false,
    };
    (!ok).then(|| format!("{name}: expected {expected:?}, got {actual}"))
}

/// lkp merges its options into each record; they are inputs, not results.
const OPTION_KEYS: &[&str] = &["gap", "more", "variance", "regression-only", "gap_distance"];

#[test]
fn every_lkp_stats_changed_case_agrees() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "fixtures missing: {files:?}");

    let mut failures = Vec::new();
    let mut fields_checked = 0;
    for file in &files {
        let case: Yaml = serde_norway::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        // lkp's `__get_changed_stats(matrix_a, matrix_b)`: a is the head, b the base.
        let head = matrix(&case["matrix_a"]);
        let base = matrix(&case["matrix_b"]);
        let opts = options(case.get("options"));
        let records = lkp_records(&base, &head, &opts);
        let by_stat: HashMap<&str, serde_json::Value> =
            records.iter().map(|r| (r.stat.as_str(), serde_json::to_value(r).unwrap())).collect();

        let expected = case.get("expected").and_then(Yaml::as_mapping);
        let mut problems = Vec::new();
        let expected_len = expected.map_or(0, |m| m.len());
        if expected_len != records.len() {
            problems.push(format!(
                "expected {expected_len} changed stats, got {:?}",
                records.iter().map(|r| &r.stat).collect::<Vec<_>>()
            ));
        }
        for (stat, fields) in expected.into_iter().flatten() {
            let stat = stat.as_str().unwrap();
            let Some(actual) = by_stat.get(stat) else {
                problems.push(format!("{stat}: not reported"));
                continue;
            };
            for (name, value) in fields.as_mapping().unwrap() {
                let name = name.as_str().unwrap();
                if OPTION_KEYS.contains(&name) {
                    continue;
                }
                fields_checked += 1;
                match actual.get(name) {
                    None => problems.push(format!("{stat}: no field {name}")),
                    Some(a) => problems.extend(field_mismatch(name, value, a)),
                }
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", file.display(), problems.join("; ")));
        }
    }
    // three cases report a stat, each with 19 fields besides the options
    assert!(fields_checked >= 3 * 19, "only {fields_checked} fields checked");
    assert!(failures.is_empty(), "{} of {} cases disagree:\n{}", failures.len(), files.len(), failures.join("\n"));
}

fn m(pairs: &[(&str, &[f64])]) -> Matrix {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_vec())).collect()
}

fn more() -> CompareOptions {
    CompareOptions { more: true, ..CompareOptions::default() }
}

#[test]
fn identical_stats_are_not_changed() {
    let a = m(&[("cpu.usage", &[10.0, 10.0, 10.0])]);
    assert!(changed_stats(&a, &a, &more()).is_empty());
}

#[test]
fn regular_stats_need_three_runs_on_one_side() {
    let base = m(&[("cpu.usage", &[10.0, 10.0])]);
    let head = m(&[("cpu.usage", &[20.0, 20.0])]);
    assert!(changed_stats(&base, &head, &more()).is_empty());
    let head = m(&[("cpu.usage", &[20.0, 20.0, 20.0])]);
    assert_eq!(changed_stats(&base, &head, &more()).len(), 1);
}

#[test]
fn fail_and_pass_stats_need_their_pair_in_the_base() {
    // `.fail` counts only when the base has the `.pass` of the same test…
    let base = m(&[("ltp.foo.fail", &[0.0])]);
    let head = m(&[("ltp.foo.fail", &[1.0])]);
    assert!(changed_stats(&base, &head, &more()).is_empty());
    let base = m(&[("ltp.foo.fail", &[0.0]), ("ltp.foo.pass", &[1.0])]);
    let head = m(&[("ltp.foo.fail", &[1.0]), ("ltp.foo.pass", &[0.0])]);
    let got = changed_stats(&base, &head, &more());
    let names: Vec<&str> = got.iter().map(|c| c.stat.as_str()).collect();
    assert_eq!(names, ["ltp.foo.fail", "ltp.foo.pass"]);
    assert_eq!(got[0].change_kind, ChangeKind::Reproduction);
    assert_eq!(got[0].change, 100.0);
    assert_eq!(got[0].direction, Direction::Regression);
    assert_eq!(got[1].direction, Direction::Regression);
    // …while kernel log stats always count.
    let base = m(&[("dmesg.WARNING:at_foo", &[0.0])]);
    let head = m(&[("dmesg.WARNING:at_foo", &[1.0])]);
    assert_eq!(changed_stats(&base, &head, &more()).len(), 1);
}

#[test]
fn regression_only_ignores_fixes() {
    let base = m(&[("dmesg.WARNING:at_foo", &[1.0, 1.0])]);
    let head = m(&[("dmesg.WARNING:at_foo", &[0.0, 0.0])]);
    assert_eq!(changed_stats(&base, &head, &more()).len(), 1);
    let opts = CompareOptions { regression_only: true, ..more() };
    assert!(changed_stats(&base, &head, &opts).is_empty());
    // a new failure is still reported
    assert_eq!(changed_stats(&head, &base, &opts).len(), 1);
}

#[test]
fn non_bisectable_stats_need_more_unless_allow_listed() {
    // `dmesg.boot_failures` is on the deny-list and on no allow-list.
    let base = m(&[("dmesg.boot_failures", &[0.0])]);
    let head = m(&[("dmesg.boot_failures", &[1.0])]);
    assert!(changed_stats(&base, &head, &CompareOptions::default()).is_empty());
    assert_eq!(changed_stats(&base, &head, &more()).len(), 1);
    // `vmstat.*` is denied but on the report allow-list.
    let base = m(&[("vmstat.system.cs", &[1000.0, 1000.0, 1000.0])]);
    let head = m(&[("vmstat.system.cs", &[2000.0, 2000.0, 2000.0])]);
    assert_eq!(changed_stats(&base, &head, &CompareOptions::default()).len(), 1);
}

#[test]
fn small_changes_are_noise_unless_perf_metric() {
    // 3% apart, cleanly separated: reported for a perf metric (perf-stat.*), not for others.
    let base = m(&[("perf-stat.i.ipc", &[50.0, 50.0, 50.0]), ("foo.bar", &[50.0, 50.0, 50.0])]);
    let head = m(&[("perf-stat.i.ipc", &[51.5, 51.5, 51.5]), ("foo.bar", &[51.5, 51.5, 51.5])]);
    let got = changed_stats(&base, &head, &more());
    let names: Vec<&str> = got.iter().map(|c| c.stat.as_str()).collect();
    assert_eq!(names, ["perf-stat.i.ipc"]);
    // 1% is never enough
    let head = m(&[("perf-stat.i.ipc", &[50.4, 50.4, 50.4])]);
    let base = m(&[("perf-stat.i.ipc", &[50.0, 50.0, 50.0])]);
    assert!(changed_stats(&base, &head, &more()).is_empty());
    // vmstat.cpu.us: 10 in perf-metrics-threshold.yaml: a 1.5 point move is below 10 / 2
    let base = m(&[("vmstat.cpu.us", &[50.0, 50.0, 50.0])]);
    let head = m(&[("vmstat.cpu.us", &[51.5, 51.5, 51.5])]);
    assert!(changed_stats(&base, &head, &more()).is_empty());
}

#[test]
fn overlapping_ranges_are_not_changed() {
    let base = m(&[("fio.write_iops", &[100.0, 120.0, 140.0])]);
    let head = m(&[("fio.write_iops", &[110.0, 150.0, 170.0])]);
    assert!(changed_stats(&base, &head, &more()).is_empty());
}

#[test]
fn outliers_are_trimmed_with_32_runs() {
    // 32 runs: one outlier per end is dropped, so a single wild run does not hide a change.
    let mut base_v = vec![100.0; 32];
    base_v[0] = 1000.0;
    let head_v = vec![120.0; 32];
    let base = m(&[("fio.write_iops", &base_v)]);
    let head = m(&[("fio.write_iops", &head_v)]);
    assert_eq!(changed_stats(&base, &head, &more()).len(), 1);
}

#[test]
fn incomplete_runs_are_left_out_of_perf_stats() {
    let base = m(&[
        ("fio.write_iops", &[100.0, 100.0, 100.0, 100.0]),
        ("last_state.is_incomplete_run", &[0.0, 0.0, 0.0, 0.0]),
    ]);
    // run 3 of the head was incomplete and has a 0 throughput
    let head =
        m(&[("fio.write_iops", &[120.0, 120.0, 120.0, 0.0]), ("last_state.is_incomplete_run", &[0.0, 0.0, 0.0, 1.0])]);
    let got = changed_stats(&base, &head, &more());
    let iops = got.iter().find(|c| c.stat == "fio.write_iops").unwrap();
    assert_eq!(iops.head_mean, 120.0);
    assert!((iops.change - 20.0).abs() < 1e-12);
    assert_eq!(iops.direction, Direction::Improvement);
    assert_eq!(iops.change_kind, ChangeKind::Percent);
    // the incomplete run itself is a changed failure stat (first pass, all runs)
    assert!(got.iter().any(|c| c.stat == "last_state.is_incomplete_run"));
}

#[test]
fn variance_needs_ten_runs() {
    let base = m(&[("fio.write_iops", &[100.0; 9])]);
    let head = m(&[("fio.write_iops", &[200.0; 9])]);
    let opts = CompareOptions { variance: Some(1.0), ..more() };
    assert!(changed_stats(&base, &head, &opts).is_empty());
}

#[test]
fn changed_stat_for_a_regression() {
    let case: Yaml =
        serde_norway::from_str(&std::fs::read_to_string(fixtures().join("fxmark_big_regression.yaml")).unwrap())
            .unwrap();
    let head = matrix(&case["matrix_a"]);
    let base = matrix(&case["matrix_b"]);
    let got = changed_stats(&base, &head, &more());
    assert_eq!(got.len(), 1);
    let c = &got[0];
    assert_eq!(c.stat, "fxmark.ssd_ext4_no_jnl_MRPL_4_bufferedio.works/sec");
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert_eq!(c.base_mean, mean(&base[&c.stat]));
    assert_eq!(c.head_mean, mean(&head[&c.stat]));
    assert!((c.change - (-6.3682)).abs() < 1e-3, "{}", c.change);
    assert_eq!(c.direction, Direction::Regression);
    assert!(c.changed);
    // the JSON shape, field order included
    let json = serde_json::to_string(c).unwrap();
    assert!(json.starts_with("{\"stat\":\"fxmark."), "{json}");
    let order: Vec<usize> = [
        "\"stat\"",
        "\"base_mean\"",
        "\"head_mean\"",
        "\"change\"",
        "\"change_kind\":\"percent\"",
        "\"direction\":\"regression\"",
        "\"changed\":true",
    ]
    .iter()
    .map(|k| json.find(k).unwrap_or_else(|| panic!("{k} in {json}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{json}");
}

#[test]
fn absolute_change_for_percent_metrics() {
    let base = m(&[("mpstat.cpu.all.sys%", &[10.0, 10.0, 10.0])]);
    let head = m(&[("mpstat.cpu.all.sys%", &[20.0, 20.0, 20.0])]);
    let got = changed_stats(&base, &head, &more());
    assert_eq!(got[0].change_kind, ChangeKind::Absolute);
    assert_eq!(got[0].change, 10.0);
    assert_eq!(got[0].direction, Direction::Undefined);
}

#[test]
fn pattern_lists_compile_every_line() {
    use direction::{Anchor, PatternList};
    for (text, anchor) in [
        (include_str!("../../reader/data/stat-denylist"), Anchor::Anywhere),
        (include_str!("../../reader/data/stat-allowlist"), Anchor::Anywhere),
        (include_str!("../../reader/data/report-allowlist"), Anchor::Anywhere),
        (include_str!("../../reader/data/failure"), Anchor::Start),
        (include_str!("../../reader/data/pass"), Anchor::Start),
        (include_str!("../../reader/data/perf-metrics-prefixes"), Anchor::Start),
        (include_str!("../../reader/data/perf-metrics-patterns"), Anchor::Anywhere),
        (include_str!("../../reader/data/event-counter-prefixes"), Anchor::Start),
        (include_str!("../../reader/data/event-counter-patterns"), Anchor::Anywhere),
        (include_str!("../../reader/data/independent-counter-prefixes"), Anchor::Start),
        (include_str!("../../reader/data/ignore-part-prefixes"), Anchor::Start),
        (include_str!("../../reader/data/add-max-latency"), Anchor::Full),
    ] {
        let lines = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).count();
        assert_eq!(PatternList::new(text, anchor).len(), lines, "{}", text.lines().next().unwrap());
    }
    let deny = PatternList::new(include_str!("../../reader/data/stat-denylist"), Anchor::Anywhere);
    assert!(deny.contains("dmesg.boot_failures"));
    assert!(deny.contains("foo{#:#}bar"));
    assert!(deny.contains("kmsg.T1234]"));
    assert!(!deny.contains("fio.write_iops"));
}
