//! `lkpx synth --mails`: robot mails derived from the real fixtures import with no error, every
//! row reads back with the numbers the generator wrote, the output depends only on the seed, and
//! the number of distinct metric names grows with the number of mails.

use importer::synth::mails::{self, Corpus, SynthMail};
use reader::doc::RowKind;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The templates `lkpx synth --mails` reads by default, loaded once for all tests.
fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| Corpus::load(&[root().join("fixtures")]).expect("the fixtures load"))
}

fn lkpx(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(args).current_dir(root()).output().expect("run lkpx");
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// A fresh scratch directory under cargo's per-target temp dir.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("synth-mails-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn cli_mails_are_the_library_mails_and_import_with_no_error() {
    let dir = scratch("cli");
    let mails = dir.join("mails");
    let (code, _, err) = lkpx(&["synth", "--mails", "8", "--seed", "5", "--out", mails.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("8 synthetic mails from") && err.contains("distinct metric names"), "{err}");
    let mut sizes = Vec::new();
    for k in 0..8 {
        let m = corpus().mail(5, k, 8);
        let written = std::fs::read_to_string(mails.join(&m.name)).unwrap();
        assert!(written == m.text, "{} differs from the library's mail {k}", m.name);
        assert!(written.contains("\nX-LKPX-Synthetic: yes\n"), "{}", m.name);
        let body = written.split_once("\n\n").unwrap().1;
        assert!(body.starts_with("[synthetic] Written by `lkpx synth --mails` from the real report <"), "{}", m.name);
        sizes.push((m.tables.iter().map(|t| t.rows.len()).sum::<usize>(), m.name));
    }
    // the three smallest: an import writes (and syncs) a file per series
    sizes.sort();
    let some = dir.join("some");
    std::fs::create_dir_all(&some).unwrap();
    for (_, name) in &sizes[..3] {
        std::fs::copy(mails.join(name), some.join(name)).unwrap();
    }
    let data = dir.join("data");
    let (code, _, err) = lkpx(&["import", "--out", data.to_str().unwrap(), some.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let rows: usize = sizes[..3].iter().map(|s| s.0).sum();
    assert!(err.contains(" 3 files") && err.contains(" 3 reports (0 duplicates merged), 0 skipped, 0 errors"), "{err}");
    assert!(err.contains(&format!("; {rows} rows,")), "{rows} rows written: {err}");
    assert!(!err.contains("error:"), "{err}");
}

/// Mails that together have failure rows, several tables and several sections.
fn varied_mails(seed: u64, n: usize) -> Vec<SynthMail> {
    let (mut fail, mut tables, mut sections) = (false, false, false);
    let mut out = Vec::new();
    for k in 0..n {
        let m = corpus().mail(seed, k, n);
        let has_fail = m.tables.iter().any(|t| t.rows.iter().any(|r| r.kind == RowKind::Fail));
        let new = (has_fail && !fail)
            || (m.tables.len() > 1 && !tables)
            || (m.tables.iter().any(|t| t.new_section) && !sections);
        if new || out.len() < 6 {
            fail |= has_fail;
            tables |= m.tables.len() > 1;
            sections |= m.tables.iter().any(|t| t.new_section);
            out.push(m);
        }
    }
    assert!(fail && tables && sections, "the first {n} mails lack a failure row, a second table or a second section");
    out
}

fn nums(v: &Value) -> Vec<Option<f64>> {
    v.as_array().unwrap().iter().map(Value::as_f64).collect()
}

#[test]
fn every_row_reads_back_as_written() {
    let dir = scratch("rows");
    let mails = varied_mails(11, 60);
    for m in &mails {
        std::fs::write(dir.join(&m.name), &m.text).unwrap();
    }
    let (code, out, err) = lkpx(&["rows", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut read: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for l in out.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        let file = v["source"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
        read.entry(file).or_default().push(v);
    }
    for m in &mails {
        let got = &read[&m.name];
        let want: Vec<_> = m.tables.iter().flat_map(|t| t.rows.iter().map(move |r| (t, r))).collect();
        assert_eq!(got.len(), want.len(), "{}: rows read", m.name);
        for (g, (t, r)) in got.iter().zip(want) {
            let at = format!("{} line {}: {}", m.name, g["line"], r.line);
            assert_eq!(g["metric"], r.metric.as_str(), "{at}");
            assert_eq!(g["testcase"], t.testcase.as_str(), "{at}");
            assert_eq!(g["tbox_group"], t.machine.as_str(), "{at}");
            assert_eq!(g["params"], serde_json::json!(t.params), "{at}");
            let commits: Vec<&str> = g["commits"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
            assert_eq!(commits.len(), t.commits.len(), "{at}");
            assert_eq!(commits[1], t.commits[1], "{at}: the reported commit, in full");
            assert!(
                t.commits[0].starts_with(commits[0]) && commits[0].len() == 16,
                "{at}: the base, as the table names it"
            );
            assert_eq!(nums(&g["changes"]), r.changes.iter().map(|&c| Some(c)).collect::<Vec<_>>(), "{at}");
            if r.kind == RowKind::Fail {
                assert_eq!(g["kind"], "fail", "{at}");
                assert_eq!(g["fails"], serde_json::json!(r.fails), "{at}");
                assert_eq!(g["runs"], serde_json::json!(r.runs), "{at}");
            } else {
                assert_eq!(g["kind"], "perf", "{at}");
                assert_eq!(nums(&g["values"]), r.values.iter().map(|&v| Some(v)).collect::<Vec<_>>(), "{at}");
                assert_eq!(nums(&g["stddev_pct"]), r.stddev_pct, "{at}");
                assert!(r.stddev_pct.iter().flatten().all(|&p| p >= 2.0), "{at}: stddev shown only above 2%");
            }
        }
    }
}

#[test]
fn same_seed_same_bytes() {
    let c = corpus();
    for k in [0, 7, 19] {
        assert_eq!(c.mail(3, k, 20).text, c.mail(3, k, 20).text);
        assert_ne!(c.mail(3, k, 20).text, c.mail(4, k, 20).text);
    }
    let (a, b) = (scratch("det-a"), scratch("det-b"));
    mails::write_mails(c, 6, 9, &a).unwrap();
    mails::write_mails(c, 6, 9, &b).unwrap();
    for k in 0..6 {
        let name = mails::file_name(k, 6);
        assert_eq!(std::fs::read(a.join(&name)).unwrap(), std::fs::read(b.join(&name)).unwrap(), "{name}");
    }
    // a smaller set in the same directory leaves no mail of the larger one behind
    std::fs::write(a.join("notes.txt"), "kept").unwrap();
    let s = mails::write_mails(c, 4, 9, &a).unwrap();
    assert_eq!(s.removed, 2);
    let mut left: Vec<String> =
        std::fs::read_dir(&a).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(left, ["00001.eml", "00002.eml", "00003.eml", "00004.eml", "notes.txt"]);
}

#[test]
fn distinct_metric_names_grow_with_the_mails() {
    let c = corpus();
    let mut names = HashSet::new();
    let mut at = Vec::new();
    for k in 0..50 {
        for r in c.mail(1, k, 50).tables.iter().flat_map(|t| &t.rows) {
            names.insert(r.metric.clone());
        }
        if k + 1 == 10 || k + 1 == 50 {
            at.push(names.len());
        }
    }
    let (d10, d50) = (at[0], at[1]);
    assert!(d10 > 1_500, "10 mails: {d10} distinct metric names");
    // real reports add about 100 new names each (42 reports: 5.5k names, 179 reports: 19k)
    assert!(d50 > d10 + 40 * 100, "10 mails: {d10}, 50 mails: {d50} distinct metric names");
}
