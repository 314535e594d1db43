//! End-to-end runs of `lkpx` on the real reports in `fixtures/`: every table row captured
//! exactly, duplicates counted once, deterministic atomic output, bad input reported by file and
//! line while the rest is imported.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn lkpx(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(args).current_dir(root()).output().expect("run lkpx");
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn rows(path: &str) -> Vec<Value> {
    let (code, out, err) = lkpx(&["rows", path]);
    assert_eq!(code, 0, "lkpx rows {path}: {err}");
    out.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

fn nums(v: &Value) -> Vec<Option<f64>> {
    v.as_array().unwrap().iter().map(|x| x.as_f64()).collect()
}

#[test]
fn seed_001_writeback_matrix_collapsed_on_one_line() {
    let rs = rows("fixtures/seeds/001_d008da6c9ae65a06.txt");
    let (agg, plain): (Vec<&Value>, Vec<&Value>) = rs.iter().partition(|r| r["aggregate"] == true);
    assert_eq!(plain.len(), 18);
    assert_eq!(agg.len(), 2);
    let fs: BTreeSet<&str> = plain.iter().map(|r| r["params"]["fs"].as_str().unwrap()).collect();
    assert_eq!(fs, BTreeSet::from(["btrfs", "ext3", "ext4", "xfs"]));
    assert!(rs.iter().all(|r| r["metric"] == "write_bw"));
    let first = plain[0];
    assert_eq!(nums(&first["values"]), vec![Some(1.65), Some(1.57)]);
    assert_eq!(nums(&first["changes"]), vec![Some(-5.1)]);
    assert_eq!(first["params"]["test"], "MMAP-RANDWRITE-4K");
    assert_eq!(
        strs(&first["commits"]),
        vec!["3.1.0-rc9-ioless-full-nfs-wq5-next-20111014+", "3.1.0-rc9-ioless-full-per-zone-dirty-next-20111014+"]
    );
    let xfs10 = plain
        .iter()
        .find(|r| r["params"]["fs"] == "xfs" && r["params"]["case"] == "10dd-4k-8p-4096M-1024M:10-X")
        .unwrap();
    assert_eq!(nums(&xfs10["changes"]), vec![Some(22.6)]);
    assert_eq!(nums(&agg[0]["values"]), vec![Some(211.31), Some(211.74)]);
    assert_eq!(nums(&agg[1]["values"]), vec![Some(47.94), Some(48.45)]);
    assert_eq!(agg[1]["params"]["test"], "UKEY-thresh=1G");
}

#[test]
fn seed_000_mail_twice_on_a_page_counts_once() {
    let rs = rows("fixtures/seeds/000_e3a6398e5d66ae79.txt");
    let text = std::fs::read_to_string(root().join("fixtures/seeds/000_e3a6398e5d66ae79.txt")).unwrap();
    assert_eq!(text.matches("TOTAL blogbench.write_score").count(), 2, "the page holds the mail twice");
    assert_eq!(rs.len(), 72);
    let head = &rs[0];
    assert_eq!(head["metric"], "blogbench.write_score");
    assert_eq!((head["testcase"].as_str(), head["tbox_group"].as_str()), (Some("blogbench"), Some("lkp-sb02")));
    assert_eq!((head["params"]["fs"].as_str(), head["params"]["disk"].as_str()), (Some("btrfs"), Some("1HDD")));
    assert_eq!(nums(&head["values"]), vec![Some(1094.0), Some(1180.0)]);
    assert_eq!(nums(&head["stddev_pct"]), vec![Some(1.0), Some(2.0)]);
    assert_eq!(strs(&head["commits"])[1], "4c468fd74859d901c0b78b42bef189295e00d74f");
}

#[test]
fn seed_003_quoted_tables_count_once_and_latency_bins_are_absolute() {
    let rs = rows("fixtures/seeds/003_5eebb2f9237f2d20.txt");
    assert_eq!(rs.len(), 134);
    let lat: Vec<&Value> = rs.iter().filter(|r| r["metric"].as_str().unwrap().starts_with("fio.latency_")).collect();
    assert_eq!(lat.len(), 5);
    let two = lat.iter().find(|r| r["metric"] == "fio.latency_2ms%").unwrap();
    assert_eq!(nums(&two["values"]), vec![Some(46.56), Some(53.61)]);
    assert_eq!(nums(&two["changes"]), vec![Some(7.1)]);
    assert_eq!(strs(&two["change_kind"]), vec!["absolute"]);
    assert_eq!(nums(&two["stddev_pct"]), vec![Some(3.0), None]);
    assert_eq!(two["params"]["fs"], "xfs");
    assert_eq!(two["params"]["rw"], "randwrite");
    assert_eq!(two["tbox_group"], "lkp-hsw-ep6");
    assert_eq!(strs(&two["commits"])[1], "b027d4c97b9675c2ad75dec94be4e46dceb3ec74");
}

#[test]
fn seeds_002_and_004_question_marks_and_tildes() {
    let rs = rows("fixtures/seeds/002_e53dde8fe48f6a79.txt");
    assert_eq!(rs.len(), 39);
    let c6 = rs.iter().find(|r| r["metric"] == "turbostat.CPU%c6").unwrap();
    assert_eq!(nums(&c6["stddev_pct"]), vec![Some(5.0), Some(6.0)]);
    assert_eq!(strs(&c6["change_kind"]), vec!["percent"], "CPU%c6 does not end in %");
    assert_eq!(rs[0]["params"]["fs"], "xfs");
    assert_eq!(rs[0]["params"]["disk"], "1SSD");
    assert_eq!(strs(&rs[0]["commits"]), vec!["4df0f7f145f2ac14", "19957a181608d25c8f4136652d0ea00b3738972d"]);
    let rs = rows("fixtures/seeds/004_32837a35764b825c.txt");
    assert_eq!(rs.len(), 49);
    assert_eq!(rs[0]["tbox_group"], "lkp-st02");
    assert_eq!(rs[0]["testcase"], "dd-write");
    assert_eq!(rs[0]["params"]["fs"], "xfs");
    assert_eq!(rs[0]["params"]["md"], "RAID5");
}

/// A second, deliberately simple reading of a row line: tokens with every `±` spelling folded.
fn simple_tokens(line: &str) -> Vec<String> {
    let mut l = line.trim_start().trim_start_matches('>').to_string();
    for m in ["Â±", "A+-", "ą", "±"] {
        l = l.replace(m, " ± ");
    }
    let toks: Vec<&str> = l.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if (t == "±" || t == "~" || t == "?") && i + 1 < toks.len() && toks[i + 1].ends_with('%') {
            out.push(format!("±{}", toks[i + 1]));
            i += 2;
            continue;
        }
        if let Some(rest) = t.strip_prefix('±').or_else(|| t.strip_prefix('~')).or_else(|| t.strip_prefix('?')) {
            if rest.ends_with('%') && !rest.is_empty() {
                out.push(format!("±{rest}"));
                i += 1;
                continue;
            }
        }
        out.push(t.to_string());
        i += 1;
    }
    out
}

fn tok_num(t: &str) -> f64 {
    let t = t.trim_start_matches('±').trim_end_matches('%');
    match t {
        "+Inf" => f64::INFINITY,
        _ => t.parse().unwrap_or_else(|_| panic!("not a number: {t}")),
    }
}

/// Every row of every corpus mail re-read from its source line: metric, values, stddevs and
/// changes must be exactly what the line says, in column order.
#[test]
fn corpus_rows_match_their_lines_exactly() {
    let rs = rows("fixtures/corpus");
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    let mut texts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in &rs {
        let src = r["source"].as_str().unwrap().to_string();
        *per_file.entry(src.clone()).or_default() += 1;
        if !src.ends_with(".txt") {
            continue; // .eml line numbers are in the decoded body; checked by the .txt twin
        }
        let lines = texts.entry(src.clone()).or_insert_with(|| {
            std::fs::read_to_string(root().join("fixtures/corpus").join(&src))
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        });
        let line = &lines[r["line"].as_u64().unwrap() as usize - 1];
        let toks = simple_tokens(line);
        let metric = r["metric"].as_str().unwrap();
        let name_at = if toks.len() >= 2 && (toks[toks.len() - 2] == "TOTAL" || toks[toks.len() - 2] == "GEO-MEAN") {
            toks.len() - 2
        } else {
            toks.len() - 1
        };
        if r["aggregate"] != true && !toks[name_at].contains('/') {
            assert_eq!(toks.last().unwrap(), metric, "{src}:{}", r["line"]);
        }
        // rebuild the token sequence from the JSON
        let mut expect: Vec<f64> = Vec::new();
        if r["kind"] == "fail" {
            let (f, n) = (nums(&r["fails"]), nums(&r["runs"]));
            for c in 0..f.len() {
                if c > 0 {
                    expect.push(r["changes"][c - 1].as_f64().unwrap());
                }
                expect.push(f[c].unwrap());
                expect.push(n[c].unwrap());
            }
            let mut got = Vec::new();
            for t in &toks[..name_at] {
                if let Some((a, b)) = t.split_once(':') {
                    got.push(if a.is_empty() { 0.0 } else { a.parse().unwrap() });
                    got.push(b.parse().unwrap());
                } else {
                    got.push(tok_num(t));
                }
            }
            assert_eq!(got, expect, "{src}:{}: {line}", r["line"]);
            continue;
        }
        let (v, s, ch) = (nums(&r["values"]), nums(&r["stddev_pct"]), &r["changes"]);
        for c in 0..v.len() {
            if c > 0 {
                expect.push(match &ch[c - 1] {
                    Value::String(s) if s == "+Inf" => f64::INFINITY,
                    x => x.as_f64().unwrap(),
                });
            }
            if let Some(x) = v[c] {
                expect.push(x);
            }
            if let Some(x) = s[c] {
                expect.push(x);
            }
        }
        let got: Vec<f64> = toks[..name_at].iter().map(|t| tok_num(t)).collect();
        assert_eq!(got, expect, "{src}:{}: {line}", r["line"]);
    }
    // The .txt and .eml of each mail give the same rows.
    for (src, n) in &per_file {
        if let Some(stem) = src.strip_suffix(".txt") {
            let num = stem.rsplit('/').next().unwrap();
            if let Some(e) = per_file.get(&format!("raw/{num}.eml")) {
                assert_eq!(e, n, "{num}: .txt and .eml disagree");
            }
        }
    }
    assert_eq!(
        per_file.keys().filter(|k| k.ends_with(".txt") && !k.starts_with("raw/")).count(),
        37,
        "every corpus mail has rows"
    );
}

/// Each corpus mail: the number of table rows equals the number of row-shaped lines in it
/// (lines outside tables listed with the reason).
#[test]
fn corpus_row_counts_match_row_shaped_lines() {
    // prose lines shaped like rows, outside any table: (file, line)
    let outside = [("014", 12), ("014", 13), ("041", 14)];
    let rs = rows("fixtures/corpus");
    let mut got: BTreeMap<String, usize> = BTreeMap::new();
    for r in &rs {
        *got.entry(r["source"].as_str().unwrap().to_string()).or_default() += 1;
    }
    for entry in std::fs::read_dir(root().join("fixtures/corpus")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) != Some("txt") {
            continue;
        }
        let num = p.file_stem().unwrap().to_str().unwrap().to_string();
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            if outside.contains(&(num.as_str(), i + 1)) {
                continue;
            }
            let toks = simple_tokens(line);
            if toks.len() < 3 {
                continue;
            }
            let name_at = if toks[toks.len() - 2] == "TOTAL" { toks.len() - 2 } else { toks.len() - 1 };
            let cells = &toks[..name_at];
            let numeric = |t: &String| {
                let b = t.trim_start_matches('±').trim_end_matches('%');
                b == "+Inf"
                    || b.parse::<f64>().is_ok()
                    || t.split_once(':')
                        .is_some_and(|(a, b)| (a.is_empty() || a.parse::<u32>().is_ok()) && b.parse::<u32>().is_ok())
            };
            let has_change = cells.iter().any(|t| {
                (t.starts_with('+') || t.starts_with('-')) && !t.contains(':')
                    || t.ends_with('%') && !t.starts_with('±')
            });
            if !cells.is_empty() && cells.iter().all(numeric) && has_change {
                n += 1;
            }
        }
        let key = format!("{num}.txt"); // a source is named from the argument it was found under
        assert_eq!(got.get(&key).copied().unwrap_or(0), n, "{key}");
    }
}

#[test]
fn era_spot_checks() {
    // (file, metric, values, stddevs, changes, change kinds)
    type Case<'a> = (&'a str, &'a str, Vec<Option<f64>>, Vec<Option<f64>>, Vec<Option<f64>>, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "001",
            "will-it-scale.page_fault3.90.threads",
            vec![Some(300409.0), Some(1622770.8)],
            vec![None, None],
            vec![Some(440.2)],
            vec!["percent"],
        ),
        (
            "007",
            "aim9.creat-clo.ops_per_sec",
            vec![Some(563556.0), Some(493033.0), Some(531968.0)],
            vec![Some(1.0), Some(5.0), Some(1.0)],
            vec![Some(-12.5), Some(-5.6)],
            vec!["percent", "percent"],
        ),
        (
            "008",
            "aim7.jobs-per-min",
            vec![Some(85540.0), Some(80176.0)],
            vec![None, None],
            vec![Some(-6.3)],
            vec!["percent"],
        ),
        (
            "009",
            "fio.latency_100us%",
            vec![Some(0.04), Some(0.01)],
            vec![Some(103.0), None],
            vec![Some(-0.0)],
            vec!["absolute"],
        ),
        (
            "037",
            "sched_debug.cpu.nr_uninterruptible.min",
            vec![Some(-12.69), Some(-19.78)],
            vec![None, None],
            vec![Some(55.8)],
            vec!["percent"],
        ),
    ];
    for (num, metric, v, s, c, k) in cases {
        let rs = rows(&format!("fixtures/corpus/{num}.txt"));
        let r = rs.iter().find(|r| r["metric"] == metric).unwrap_or_else(|| panic!("{num}: no {metric}"));
        assert_eq!(nums(&r["values"]), v, "{num} {metric}");
        assert_eq!(nums(&r["stddev_pct"]), s, "{num} {metric}");
        assert_eq!(nums(&r["changes"]), c, "{num} {metric}");
        assert_eq!(strs(&r["change_kind"]), k, "{num} {metric}");
    }
    // fail:runs rows
    let rs = rows("fixtures/corpus/008.txt");
    let f = rs.iter().find(|r| r["kind"] == "fail").unwrap();
    assert_eq!(f["metric"], "dmesg.WARNING:at#for_ip_interrupt_entry/0x");
    assert_eq!(nums(&f["fails"]), vec![Some(1.0), Some(0.0)]);
    assert_eq!(nums(&f["runs"]), vec![Some(4.0), Some(4.0)]);
    assert_eq!(nums(&f["changes"]), vec![Some(-25.0)]);
    // 2014 grouped table: testbox rows take the metric of their TOTAL row
    let rs = rows("fixtures/corpus/002.txt");
    let pgfault: Vec<&Value> = rs.iter().filter(|r| r["metric"] == "proc-vmstat.pgfault").collect();
    assert_eq!(pgfault.len(), 3);
    assert_eq!(pgfault[0]["tbox_group"], "lkp-t410");
    assert_eq!(pgfault[0]["testcase"], "netperf");
    assert_eq!(pgfault[1]["params"]["fs"], "ext4");
    assert_eq!(pgfault[1]["params"]["disk"], "11HDD");
    assert_eq!(pgfault[2]["aggregate"], true);
    assert_eq!(nums(&pgfault[2]["values"]), vec![Some(5681411.0), Some(2531670.0)]);
    // 2023+ extra sections after a line of `*`: each has its own machine and parameters
    let rs = rows("fixtures/corpus/037.txt");
    let sections: BTreeSet<(u64, String, String)> = rs
        .iter()
        .map(|r| {
            (
                r["section"].as_u64().unwrap(),
                r["testcase"].as_str().unwrap().to_string(),
                r["tbox_group"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(sections.contains(&(0, "netperf".into(), "lkp-icl-2sp2".into())), "{sections:?}");
    assert!(sections.iter().any(|(s, t, m)| *s > 0 && t == "stress-ng" && m == "lkp-icl-2sp8"), "{sections:?}");
    assert!(sections.iter().any(|(_, t, m)| t == "vm-scalability" && m == "lkp-cpl-4sp2"), "{sections:?}");
}

fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lkpx-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn import_is_deterministic_and_complete() {
    let (a, b) = (tmpdir("det-a"), tmpdir("det-b"));
    for d in [&a, &b] {
        let (code, _, err) = lkpx(&["import", "--out", d.to_str().unwrap(), "fixtures/seeds", "fixtures/corpus"]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("42 reports"), "{err}");
        assert!(err.contains("skipped: fixtures/corpus/raw/008_att/job.yaml: no comparison table found"), "{err}");
    }
    let (ta, tb) = (read_tree(&a), read_tree(&b));
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    assert!(ta == tb, "re-running import must give identical bytes");
    assert!(!ta.keys().any(|k| k.contains(".tmp")), "no temporary files left");
    let data = importer::store::dataset::Published::open(&a).unwrap();
    let index = &data.index;
    assert_eq!(index.schema, model::SCHEMA_VERSION);
    assert_eq!(index.reports.len(), 42);
    // the blogbench-on-xfs report: job, commits, links, script
    let job = index
        .jobs
        .iter()
        .position(|j| j.testcase == "blogbench" && j.params.get("fs").map(String::as_str) == Some("xfs"))
        .unwrap();
    let j = &index.jobs[job];
    assert_eq!(j.machine, "lkp-bdw-de1");
    assert_eq!(j.params.get("disk").map(String::as_str), Some("1SSD"));
    let head = index.commits.iter().find(|c| c.id.starts_with("19957a1816")).unwrap();
    assert_eq!(head.id, "19957a181608d25c8f4136652d0ea00b3738972d");
    assert_eq!(head.subject.as_deref(), Some("xfs: Correctly invert xfs_buftarg LRU isolation logic"));
    assert_eq!(
        head.url.as_deref(),
        Some("https://git.kernel.org/pub/scm/fs/xfs/xfs-linux.git/commit/?id=19957a181608d25c8f4136652d0ea00b3738972d")
    );
    let base = index.commits.iter().position(|c| c.id.starts_with("4df0f7f145")).unwrap();
    let headp = index.commits.iter().position(|c| c.id == head.id).unwrap();
    assert!(base < headp, "base before head");
    let shard = data.series("blogbench", "blogbench.write_score").unwrap();
    let s = shard.series.iter().find(|s| s.job as usize == job).unwrap();
    assert_eq!(s.points.mean, vec![Some(10702.0), Some(11259.0)]);
    assert_eq!(s.points.change, vec![None, Some(5.2)]);
    let h = index.headlines.iter().find(|h| h.metric == "blogbench.write_score" && h.job == Some(job as u32)).unwrap();
    assert_eq!(h.word, "improvement");
    // reproduce scripts: the .eml attachment, stored once by content
    let script = std::fs::read(root().join("fixtures/corpus/raw/008_att/reproduce")).unwrap();
    let r =
        index.reports.iter().find(|r| r.message_id.as_deref() == Some("20190708091350.GP17490@shao2-debian")).unwrap();
    assert_eq!(r.url.as_deref(), Some("https://lore.kernel.org/all/20190708091350.GP17490@shao2-debian/"));
    let stored = &ta[&model::paths::script(r.script.as_ref().unwrap())];
    assert_eq!(String::from_utf8_lossy(stored).trim_end(), String::from_utf8_lossy(&script).trim_end());
    // 2023+ materials link
    let r = index
        .reports
        .iter()
        .find(|r| r.message_id.as_deref() == Some("202402182000.f21279e1-oliver.sang@intel.com"))
        .unwrap();
    assert_eq!(
        r.materials_url.as_deref(),
        Some("https://download.01.org/0day-ci/archive/20240218/202402182000.f21279e1-oliver.sang@intel.com")
    );
    // a job shard holds every metric of its job
    let js = data.job_shard(&j.id).unwrap();
    assert_eq!(js.series.len(), 39);
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn bad_input_is_reported_by_file_and_line_and_the_rest_is_imported() {
    let dir = tmpdir("bad");
    let good = std::fs::read_to_string(root().join("fixtures/corpus/008.txt")).unwrap();
    let bad = good.replacen(
        "    85540            -6.3%      80176        aim7.jobs-per-min",
        "    85540            -6.3%    aim7.jobs-per-min",
        1,
    );
    assert_ne!(good, bad);
    let bad_line = bad.lines().position(|l| l.contains("-6.3%    aim7.jobs-per-min")).unwrap() + 1;
    std::fs::write(dir.join("bad.txt"), &bad).unwrap();
    std::fs::write(dir.join("notes.txt"), "just some text\nwith no table\n").unwrap();
    std::fs::copy(root().join("fixtures/seeds/002_e53dde8fe48f6a79.txt"), dir.join("good.txt")).unwrap();
    let out = dir.join("out");
    let (code, _, err) = lkpx(&["import", "--out", out.to_str().unwrap(), dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("bad.txt:{bad_line}: column 2")), "{err}");
    assert!(err.contains("notes.txt: no comparison table found"), "{err}");
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let index = &data.index;
    assert_eq!(index.reports.len(), 2, "the good file and the rest of the bad one are imported");
    let (code, _, err) = lkpx(&["import", "--out", out.to_str().unwrap(), "/nonexistent/path"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/path"), "{err}");
    assert!(err.contains("2 report(s) in") && err.contains("are not among the inputs"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gzip_and_mbox_inputs() {
    use std::io::Write;
    let dir = tmpdir("gz");
    let a = std::fs::read(root().join("fixtures/corpus/raw/008.eml")).unwrap();
    let b = std::fs::read(root().join("fixtures/corpus/raw/030.eml")).unwrap();
    let mut mbox = Vec::new();
    for m in [&a, &b] {
        mbox.extend_from_slice(b"From lkp@intel.com Mon Jul  8 17:13:50 2019\n");
        mbox.extend_from_slice(m);
        mbox.push(b'\n');
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&mbox).unwrap();
    std::fs::write(dir.join("reports.mbox.gz"), gz.finish().unwrap()).unwrap();
    let rs = rows(dir.join("reports.mbox.gz").to_str().unwrap());
    let single_a = rows("fixtures/corpus/raw/008.eml").len();
    let single_b = rows("fixtures/corpus/raw/030.eml").len();
    assert_eq!(rs.len(), single_a + single_b);
    assert!(rs[0]["source"].as_str().unwrap().ends_with("reports.mbox.gz#1"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_describes_the_commands() {
    let (code, out, _) = lkpx(&["--help"]);
    assert_eq!(code, 0);
    for w in ["import", "rows", "Exit status"] {
        assert!(out.contains(w), "{out}");
    }
    let (code, out, _) = lkpx(&["import", "--help"]);
    assert_eq!(code, 0);
    for w in ["--out", "--commit-url", "--git-log"] {
        assert!(out.contains(w), "{out}");
    }
}

#[test]
fn reply_notes_git_log_order_and_commit_url_template() {
    let dir = tmpdir("gitlog");
    // A git log (newest first) putting the fio pair (seed 003) after the blogbench pair (seed 002).
    let log = "b027d4c97b9675c2ad75dec94be4e46dceb3ec74 1528000300 xfs: don't retry xfs_buf_find on XBF_TRYLOCK failure\n\
               8925a3dc4771004b0000000000000000000000aa 1528000200 xfs: make xfs_buf_incore out of line\n\
               19957a181608d25c8f4136652d0ea00b3738972d 1520000100 xfs: Correctly invert xfs_buftarg LRU isolation logic\n\
               4df0f7f145f2ac140000000000000000000000bb 1520000000 xfs: fix transaction allocation deadlock in IO path\n";
    std::fs::write(dir.join("git.log"), log).unwrap();
    let out = dir.join("out");
    let (code, _, err) = lkpx(&[
        "import",
        "--out",
        out.to_str().unwrap(),
        "--git-log",
        dir.join("git.log").to_str().unwrap(),
        "--commit-url",
        "https://example.org/linux/commit/{sha}",
        "fixtures/seeds/003_5eebb2f9237f2d20.txt",
        "fixtures/seeds/002_e53dde8fe48f6a79.txt",
    ]);
    assert_eq!(code, 0, "{err}");
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let index = &data.index;
    let ids: Vec<&str> = index.commits.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        vec![
            "4df0f7f145f2ac140000000000000000000000bb",
            "19957a181608d25c8f4136652d0ea00b3738972d",
            "8925a3dc4771004b0000000000000000000000aa",
            "b027d4c97b9675c2ad75dec94be4e46dceb3ec74"
        ],
        "abbreviated ids resolved through the log, ordered by its times"
    );
    assert_eq!(index.commits[0].time, Some(1520000000));
    assert_eq!(
        index.commits[3].url.as_deref(),
        Some("https://example.org/linux/commit/b027d4c97b9675c2ad75dec94be4e46dceb3ec74")
    );
    let fio = index.reports.iter().find(|r| r.source.ends_with("003_5eebb2f9237f2d20.txt")).unwrap();
    assert_eq!(fio.notes.len(), 1, "the maintainer's reply, quoted twice, is one note");
    assert!(fio.notes[0].starts_with("This is not a regression."), "{:?}", fio.notes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn result_roots_import_with_per_run_values() {
    let out = tmpdir("rr");
    let (code, _, err) = lkpx(&["import", "--out", out.to_str().unwrap(), "fixtures/lkp-tests/result_root/pmbench"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 result roots"), "{err}");
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let index = &data.index;
    assert_eq!(index.reports[0].kind, model::SourceKind::ResultRoot);
    let job = &index.jobs[0];
    assert_eq!((job.testcase.as_str(), job.machine.as_str()), ("pmbench", "lkp-bdw-ep6"));
    let trend = data.series("pmbench", "mpstat.cpu.all.usr%").unwrap();
    assert!(trend.series[0].points.values.is_empty(), "the trend chunk carries means and bands, not runs");
    let shard = data.job_shard(&job.id).unwrap();
    let p = &shard.series.iter().find(|s| s.metric == "mpstat.cpu.all.usr%").unwrap().points;
    assert_eq!(p.runs, vec![Some(3)]);
    assert_eq!(p.values[0].len(), 3, "per-run values kept in the job's file (Distribution reads it)");
    assert_eq!(trend.series[0].points.mean, p.mean);
    let expected: Vec<f64> = (0..3)
        .map(|i| {
            let s: Value = serde_json::from_slice(
                &std::fs::read(root().join(format!("fixtures/lkp-tests/result_root/expected/stats_{i}.json"))).unwrap(),
            )
            .unwrap();
            s["mpstat.cpu.all.usr%"].as_f64().unwrap()
        })
        .collect();
    for (a, b) in p.values[0].iter().zip(&expected) {
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
    }
    let mean = expected.iter().sum::<f64>() / 3.0;
    // the computed mean is published to 9 significant digits
    assert!((p.mean[0].unwrap() - mean).abs() <= 5e-9 * mean, "{:?} vs {mean}", p.mean[0]);
    assert_eq!(p.mean[0], Some(model::stats::round_sig(mean, 9)));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn compare_command_prints_changed_stats() {
    let dir = tmpdir("cmp");
    std::fs::write(
        dir.join("a.json"),
        r#"{"fio.write_iops": [100, 101, 99, 100], "vmstat.system.cs": [5000, 5010, 4990, 5000]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("b.json"),
        r#"{"fio.write_iops": [80, 81, 79, 80], "vmstat.system.cs": [5001, 5011, 4991, 5001]}"#,
    )
    .unwrap();
    let (code, out, err) =
        lkpx(&["compare", dir.join("a.json").to_str().unwrap(), dir.join("b.json").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert_eq!(lines[0]["stat"], "fio.write_iops");
    assert_eq!(lines[0]["change"], -20.0);
    assert_eq!(lines[0]["change_kind"], "percent");
    assert_eq!(lines[0]["direction"], "regression");
    assert_eq!(lines[0]["changed"], true);
    let (code, _, err) = lkpx(&["compare", "/nonexistent/a.json", dir.join("b.json").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/a.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn changes_shards_list_stated_changes_with_their_headline() {
    let out = tmpdir("changes");
    let (code, _, err) = lkpx(&["import", "--out", out.to_str().unwrap(), "fixtures/seeds", "fixtures/corpus/008.txt"]);
    assert_eq!(code, 0, "{err}");
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let index = &data.index;
    let c = data.changes("fio-basic").unwrap();
    let two = c.changes.iter().find(|r| r.metric == "fio.latency_2ms%").unwrap();
    assert_eq!((two.base_mean, two.head_mean, two.change), (46.56, 53.61, 7.1));
    assert_eq!(two.kind, model::ChangeKind::Absolute);
    assert!(two.headline, "the report's headline names this change");
    assert_eq!(two.p_value, None, "run counts are not in the mail: no p-value is made up");
    assert_eq!(two.noise_ratio, Some(5.05), "7.05 / (46.56 * 3%)");
    assert!(index.reports[two.report.unwrap() as usize].notes[0].starts_with("This is not a regression"));
    let aim7 = data.changes("aim7").unwrap();
    let jpm = aim7.changes.iter().find(|r| r.metric == "aim7.jobs-per-min").unwrap();
    assert_eq!(jpm.direction, model::Direction::Regression);
    assert_eq!(jpm.change, -6.3);
    let fail = aim7.changes.iter().find(|r| r.metric.starts_with("dmesg.WARNING")).unwrap();
    assert_eq!(fail.kind, model::ChangeKind::Reproduction);
    assert_eq!(fail.direction, model::Direction::Improvement, "fewer failures");
    let _ = std::fs::remove_dir_all(&out);
}

/// One metric name can be a fail:runs row in one report and a measured value in another
/// (`perf-profile.*.error_entry`): each observation keeps its own kind.
#[test]
fn failure_rows_are_decided_per_observation() {
    let out = tmpdir("failkind");
    let (code, _, err) =
        lkpx(&["import", "--out", out.to_str().unwrap(), "fixtures/corpus/009.txt", "fixtures/corpus/040.txt"]);
    assert_eq!(code, 0, "{err}");
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let load = |tc: &str| data.changes(tc).unwrap();
    let metric = "perf-profile.children.cycles-pp.error_entry";
    let fio = load("fio-basic");
    let failed = fio.changes.iter().find(|c| c.metric == metric).unwrap();
    assert_eq!(failed.kind, model::ChangeKind::Reproduction, "a fail:runs row in 009");
    assert_eq!(failed.direction, model::Direction::Improvement, "1:5 → 0:4: fewer failing runs");
    let swapin = load("swapin");
    let measured = swapin.changes.iter().find(|c| c.metric == metric).unwrap();
    assert_eq!(measured.kind, model::ChangeKind::Absolute, "a perf-profile value in 040");
    assert_eq!(measured.direction, model::Direction::Undefined);
    assert_eq!((measured.base_mean, measured.head_mean), (0.28, 0.11));
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let index = &data.index;
    assert!(!index.metrics.iter().find(|m| m.name == metric).unwrap().fail, "not only ever a failure statistic");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_commit_url_that_is_not_an_http_link_is_refused_and_nothing_is_written() {
    let dir = tmpdir("badurl");
    let out = dir.join("out");
    for bad in ["javascript:alert('{sha}')", "data:text/html,<b>{sha}</b>", "https://example.org/commit/"] {
        let (code, _, err) = lkpx(&[
            "import",
            "--out",
            out.to_str().unwrap(),
            "--commit-url",
            bad,
            "fixtures/seeds/003_5eebb2f9237f2d20.txt",
        ]);
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(err.contains("--commit-url") && err.contains(bad), "{err}");
        assert!(!out.join(model::paths::INDEX).exists(), "{bad}: a dataset was written");
    }
}
