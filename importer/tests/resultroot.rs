//! Reading lkp-tests result roots: lkp-tests' own result-root fixture (per-run stats reduced from
//! monitor samples, checked against lkp's `stats_N.json` / `matrix_N.json`), commit directories
//! with a `matrix.json`, and job parameters checked against the axes of real robot mails.

use importer::lkp::resultroot;
use reader::doc;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use doc::RowKind;
use model::SourceKind;
use resultroot::{create_run_stats, find_result_roots, read_commit_dir, read_job, sanitize_json, ResultRootError};

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/lkp-tests/result_root")
}

fn commit_dir() -> PathBuf {
    fixture_root().join("pmbench/1-75%-100%-30s/lkp-bdw-ep6/debian/defconfig/gcc-8/4.19.0-4-amd64")
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn expected_stats(i: usize) -> BTreeMap<String, f64> {
    read_json(&fixture_root().join(format!("expected/stats_{i}.json")))
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap()))
        .collect()
}

fn close(a: f64, e: f64) -> bool {
    (a - e).abs() <= 1e-9 * e.abs()
}

#[test]
fn finds_the_fixture_commit_dir() {
    assert_eq!(find_result_roots(&fixture_root()), vec![commit_dir()]);
    // given the commit dir itself, it is found too
    assert_eq!(find_result_roots(&commit_dir()), vec![commit_dir()]);
}

#[test]
fn run_stats_match_lkp() {
    for i in 0..3 {
        let run = create_run_stats(&commit_dir().join(i.to_string())).unwrap();
        let expected = expected_stats(i);
        assert_eq!(run.stats.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>(), "run {i}");
        for (k, e) in &expected {
            assert!(close(run.stats[k], *e), "run {i} {k}: {} != {e}", run.stats[k]);
        }
        // the per-run matrix is every monitor's samples, unchanged
        let matrix = read_json(&fixture_root().join(format!("expected/matrix_{i}.json")));
        let matrix: BTreeMap<String, Vec<f64>> = matrix
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                let v = v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
                (k.clone(), v)
            })
            .collect();
        assert_eq!(run.matrix, matrix, "run {i}");
    }
}

#[test]
fn commit_dir_becomes_one_document() {
    let doc = read_commit_dir(&commit_dir(), "fixtures/pmbench").unwrap();
    assert_eq!(doc.kind, SourceKind::ResultRoot);
    assert_eq!(doc.source, "fixtures/pmbench");
    assert_eq!(doc.commits.len(), 1);
    assert_eq!(doc.commits[0].id, "4.19.0-4-amd64");
    assert_eq!(doc.script, None);
    assert_eq!(doc.sections.len(), 1);
    let section = &doc.sections[0];
    assert_eq!(section.commits, ["4.19.0-4-amd64"]);

    let per_run: Vec<BTreeMap<String, f64>> = (0..3).map(expected_stats).collect();
    let stats: Vec<&String> = per_run[0].keys().collect();
    assert_eq!(section.rows.iter().map(|r| &r.metric).collect::<Vec<_>>(), stats, "one row per stat, by name");
    for row in &section.rows {
        let runs: Vec<f64> = per_run.iter().map(|s| s[&row.metric]).collect();
        let got = row.run_values[0].as_ref().unwrap();
        assert_eq!(got.len(), 3);
        for (a, e) in got.iter().zip(&runs) {
            assert!(close(*a, *e), "{}: {a} != {e}", row.metric);
        }
        // lkp's avg.json / stddev.json: mean and population stddev of the row
        let mean = runs.iter().sum::<f64>() / 3.0;
        let sd = (runs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        // published as 9 significant digits (mean) and 3 (stddev %)
        assert_eq!(row.values[0], Some(model::stats::round_sig(mean, 9)), "{}", row.metric);
        let pct = 100.0 * sd / mean;
        assert_eq!(row.stddev_pct[0], Some(model::stats::round_sig(pct, 3)), "{}", row.metric);
        assert!((row.stddev_pct[0].unwrap() - pct).abs() <= 0.005 * pct, "{}", row.metric);
        assert_eq!(row.runs, [Some(3)]);
        assert_eq!(row.kind, RowKind::Perf);

        assert_eq!(row.job.testcase, "pmbench");
        assert_eq!(row.job.machine, "lkp-bdw-ep6");
        let params: Vec<(&str, &str)> = row.job.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            params,
            [
                ("cold", "1"),
                ("compiler", "gcc-8"),
                ("kconfig", "defconfig"),
                ("mapsize", "75%"),
                ("nr_threads", "100%"),
                ("rootfs", "debian"),
                ("runtime", "30s"),
                ("stats_part", "from_10_to_20"),
            ]
        );
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lkpx-rr-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const FIO_JOB: &str = r#"---

#! jobs/fio-basic-2pmem.yaml
suite: fio-basic
testcase: fio-basic
category: benchmark
runtime: 200s
nr_task: 50%
time_based: tb
fio-setup-basic:
  rw: randwrite
  bs: 4k
  ioengine: sync
  test_size: 200G
fio:
boot_params:
  bp1_memmap: 104G!8G
disk: 2pmem
fs:
  fs: ext4
mount_option: dax
perf-profile:
  delay: 15
vmstat:
job_origin: fio-basic-2pmem.yaml
queue_cmdline_keys:
- branch
- commit
queue: bisect
testbox: lkp-csl-2sp6
tbox_group: lkp-csl-2sp6
model: Cascade Lake
nr_node: 2
nr_cpu: 96
memory: 256G
nr_ssd_partitions: 1
ssd_partitions: "/dev/nvme0n1p1"
brand: Intel(R) Xeon(R) Gold 6252 CPU @ 2.10GHz
need_kconfig:
- XFS_FS
cpufreq_governor: performance
ucode: 0x5003006
commit: 0123456789abcdef0123456789abcdef01234567
kconfig: x86_64-rhel-8.3
compiler: gcc-9
rootfs: debian-10.4-x86_64-20200603.cgz
branch: linus/master
kernel: "/pkg/linux/x86_64-rhel-8.3/gcc-9/0123/vmlinuz"
result_root: "/result/fio-basic/x/0"
bootloader_append:
- root=/dev/ram0
LKP_SERVER: internal-lkp-server
modules_initrd: "/pkg/modules.cgz"
job_state: finished
start_time: '1683412584'
"#;

#[test]
fn commit_dir_with_matrix_json() {
    let root = temp_dir("matrix");
    let dir =
        root.join("fio-basic/4k-x/lkp-csl-2sp6/debian/x86_64-rhel-8.3/gcc-9/0123456789abcdef0123456789abcdef01234567");
    for run in ["0", "1", "2"] {
        std::fs::create_dir_all(dir.join(run)).unwrap();
        std::fs::write(dir.join(run).join("job.yaml"), FIO_JOB).unwrap();
    }
    std::fs::write(dir.join("1/reproduce.sh"), "fio --rw=randwrite\n").unwrap();
    std::fs::write(dir.join("2/reproduce.sh"), "not this one\n").unwrap();
    // Run 1 was incomplete; `kernel.version` holds strings; NaN/Infinity are bare, as lkp writes.
    let matrix = r#"{
  "fio.write_iops": [100, 200, 300],
  "fio.write_clat_mean_us": [NaN, 5, -Infinity],
  "dmesg.WARNING:at_foo": [1, 0, 0],
  "kernel.version": ["5.0", "5.0", "5.0"],
  "last_state.is_incomplete_run": [0, 1, 0],
  "short": [7],
  "stats_source": ["/r/0/stats.json", "/r/1/stats.json", "/r/2/stats.json"]
}"#;
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(dir.join("matrix.json.gz")).unwrap(),
        flate2::Compression::default(),
    );
    gz.write_all(matrix.as_bytes()).unwrap();
    gz.finish().unwrap();
    // The compiler dir also has a matrix (spanning commits): it is not a commit dir.
    std::fs::write(dir.parent().unwrap().join("matrix.json"), "{}").unwrap();

    assert_eq!(find_result_roots(&root), vec![dir.clone()]);
    let doc = read_commit_dir(&dir, "r").unwrap();
    assert_eq!(doc.commits[0].id, "0123456789abcdef0123456789abcdef01234567");
    assert_eq!(doc.commits[0].branch.as_deref(), Some("linus/master"));
    assert_eq!(doc.script.as_deref(), Some("fio --rw=randwrite\n"));
    let section = &doc.sections[0];
    assert_eq!(
        section.machine_desc.as_deref(),
        Some("96 threads Intel(R) Xeon(R) Gold 6252 CPU @ 2.10GHz (Cascade Lake) with 256G memory")
    );
    let rows: BTreeMap<&str, &doc::Row> = section.rows.iter().map(|r| (r.metric.as_str(), r)).collect();
    assert_eq!(
        rows.keys().copied().collect::<Vec<_>>(),
        ["dmesg.WARNING:at_foo", "fio.write_clat_mean_us", "fio.write_iops", "short"]
    );
    let iops = rows["fio.write_iops"];
    assert_eq!(iops.run_values, [Some(vec![100.0, 300.0])]);
    assert_eq!(iops.values, [Some(200.0)]);
    assert_eq!(iops.stddev_pct, [Some(50.0)]);
    assert_eq!(iops.runs, [Some(2)]);
    let clat = rows["fio.write_clat_mean_us"].run_values[0].clone().unwrap();
    assert!(clat[0].is_nan() && clat[1] == f64::NEG_INFINITY);
    assert_eq!(rows["short"].run_values, [Some(vec![7.0, 0.0])]);
    let warn = rows["dmesg.WARNING:at_foo"];
    assert_eq!(warn.kind, RowKind::Fail);
    assert_eq!(warn.fails, [Some(1)]);

    let job = &iops.job;
    assert_eq!(job.testcase, "fio-basic");
    assert_eq!(job.machine, "lkp-csl-2sp6");
    let params: Vec<(&str, &str)> = job.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        params,
        [
            ("bs", "4k"),
            ("compiler", "gcc-9"),
            ("cpufreq_governor", "performance"),
            ("disk", "2pmem"),
            ("fs", "ext4"),
            ("ioengine", "sync"),
            ("kconfig", "x86_64-rhel-8.3"),
            ("mount_option", "dax"),
            ("nr_task", "50%"),
            ("rootfs", "debian-10.4-x86_64-20200603.cgz"),
            ("runtime", "200s"),
            ("rw", "randwrite"),
            ("test_size", "200G"),
            ("time_based", "tb"),
        ]
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn commit_dir_from_run_stats() {
    let root = temp_dir("runs");
    let dir = root.join("c");
    for (run, stats) in [
        ("0", r#"{"a.x": 1, "a.y": 2, "sched_debug.cpu.nr_running.3": 1}"#),
        ("1", r#"{"a.x": 3, "zero.z": 0}"#),
        // run 10 comes after run 2, not after run 1
        ("10", r#"{"a.x": 10, "last_state.is_incomplete_run": 1}"#),
        ("2", r#"{"a.x": 5, "a.y": 4, "a.s": "text"}"#),
    ] {
        std::fs::create_dir_all(dir.join(run)).unwrap();
        std::fs::write(dir.join(run).join("stats.json"), stats).unwrap();
    }
    let m = resultroot::commit_matrix(&dir).unwrap();
    assert_eq!(m.columns, 4);
    assert_eq!(m.stats["a.x"], [1.0, 3.0, 5.0, 10.0]);
    assert_eq!(m.stats["a.y"], [2.0, 0.0, 4.0, 0.0]);
    // per-CPU sched_debug and all-zero rows are removed, as lkp's unite does
    assert!(!m.stats.contains_key("sched_debug.cpu.nr_running.3"));
    assert!(!m.stats.contains_key("zero.z"));
    assert!(!m.stats.contains_key("a.s"));

    // No job.yaml and a short path: the testcase is unknown.
    let err = read_commit_dir(&dir, "c").unwrap_err();
    assert!(matches!(err, ResultRootError::NotResultRoot { .. }), "{err}");

    // Laid out under the default scheme, the path gives the job.
    let dir2 = root.join("ebizzy/10s-1x-200%/shao2-debian/debian/defconfig/gcc-6/5.7.0-2-amd64");
    std::fs::create_dir_all(dir2.parent().unwrap()).unwrap();
    std::fs::rename(&dir, &dir2).unwrap();
    let doc = read_commit_dir(&dir2, "c").unwrap();
    assert_eq!(doc.commits[0].id, "5.7.0-2-amd64");
    let row = &doc.sections[0].rows[0];
    assert_eq!(row.metric, "a.x");
    // the incomplete run 10 is dropped
    assert_eq!(row.run_values, [Some(vec![1.0, 3.0, 5.0])]);
    assert_eq!(row.job.testcase, "ebizzy");
    assert_eq!(row.job.machine, "shao2-debian");
    assert_eq!(
        row.job.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
        ["compiler=gcc-6", "kconfig=defconfig", "rootfs=debian"]
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn errors_name_the_file_and_position() {
    let root = temp_dir("errors");
    let dir = root.join("c");
    std::fs::create_dir_all(dir.join("0")).unwrap();
    std::fs::write(dir.join("0/stats.json"), "{\n  \"a\": 1,\n  \"b\": oops\n}").unwrap();
    let err = read_commit_dir(&dir, "c").unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ResultRootError::Json { line: 3, .. }), "{msg}");
    assert!(msg.contains("0/stats.json:3:"), "{msg}");

    std::fs::write(dir.join("0/stats.json"), "{\"a\": 1}").unwrap();
    std::fs::write(dir.join("0/job.yaml"), "testcase: x\nfoo: [1, 2\n").unwrap();
    let err = read_commit_dir(&dir, "c").unwrap_err();
    assert!(matches!(err, ResultRootError::Yaml { .. }), "{err}");
    assert!(err.to_string().contains("job.yaml:"), "{err}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn avg_json_alone_still_gives_means() {
    let root = temp_dir("avg");
    let dir = root.join("will-it-scale/16-thread-x/lkp-x/debian/defconfig/gcc-9/abc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("avg.json"), r#"{"will-it-scale.per_thread_ops": 200}"#).unwrap();
    std::fs::write(dir.join("stddev.json"), r#"{"will-it-scale.per_thread_ops": 10}"#).unwrap();
    let doc = read_commit_dir(&dir, "x").unwrap();
    let row = &doc.sections[0].rows[0];
    assert_eq!(row.values, [Some(200.0)]);
    assert_eq!(row.stddev_pct, [Some(5.0)]);
    assert_eq!(row.runs, [None]);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn nan_outside_strings_only() {
    let s = r#"{"NaN": [NaN, -Infinity, Infinity], "s": "a NaN \" Infinity", "x": 1.5}"#;
    let clean = sanitize_json(s);
    assert_eq!(clean.len(), s.len(), "same length keeps error columns right");
    let v: serde_json::Value = serde_json::from_str(&clean).unwrap();
    assert_eq!(v["s"], "a NaN \" Infinity");
    let arr: Vec<f64> = v["NaN"].as_array().unwrap().iter().map(|x| resultroot::json_number(x).unwrap()).collect();
    assert!(arr[0].is_nan());
    assert_eq!(arr[1], f64::NEG_INFINITY);
    assert_eq!(arr[2], f64::INFINITY);
}

/// The parameters read from the job.yaml attached to real robot mails are the keys of the mail's
/// axes header (`compiler/cpufreq_governor/…/testcase/ucode:`), minus tbox_group and testcase, with
/// the same values. Mails until about 2021 also have `ucode`, which lkp has since dropped, as we do.
#[test]
fn job_params_match_mail_axes() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/corpus");
    let mut checked = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(corpus.join("raw"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("job.yaml").is_file())
        .collect();
    entries.sort();
    let mut problems = Vec::new();
    for att in entries {
        let n = att.file_name().unwrap().to_string_lossy().replace("_att", "");
        let Ok(text) = std::fs::read_to_string(corpus.join(format!("{n}.txt"))) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let Some(i) = lines
            .iter()
            .position(|l| l.ends_with(':') && l.contains('/') && !l.contains(' ') && l.contains("testcase"))
        else {
            continue;
        };
        let keys: Vec<&str> = lines[i].trim_end_matches(':').split('/').collect();
        let values: Vec<&str> = lines[i + 1].trim().split('/').collect();
        if keys.len() != values.len() {
            continue;
        }
        let axes: BTreeMap<&str, &str> = keys.into_iter().zip(values).collect();
        let job = read_job(&att.join("job.yaml")).unwrap();
        let params = job.params();
        for (k, v) in &axes {
            if matches!(*k, "tbox_group" | "testcase" | "ucode") {
                continue;
            }
            match params.get(*k) {
                Some(p) if p == v => {}
                other => problems.push(format!("{n}: {k}: mail {v:?}, job.yaml {other:?}")),
            }
        }
        for k in params.keys() {
            if !axes.contains_key(k.as_str()) {
                problems.push(format!("{n}: {k} not in the mail's axes"));
            }
        }
        assert_eq!(job.str("testcase").as_deref(), axes.get("testcase").copied());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} corpus jobs checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
