//! Human replies that quote a report's table, in the shapes mail clients give them
//! (`fixtures/replies/`, written by `scripts/make-reply-fixtures.py` from the real report
//! `fixtures/corpus/041.txt`): quoted at depth 1–3, with U+00A0 for spaces, with tabs, re-wrapped,
//! quoted-printable. A quoted copy is never a row's source and never an error; the reply's own text
//! becomes a note on its report. U+00A0 is a space in every table reader, robot mails included.

use reader::file::{read_bytes, FileResult};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn lkpx(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(args).current_dir(root()).output().expect("run lkpx");
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lkpx-replies-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A published JSON file's value (stored gzip-compressed but for the root).
fn json(path: &Path) -> Value {
    let bytes = importer::store::dataset::unpacked(&path.display().to_string(), std::fs::read(path).unwrap()).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

const REPLIES: [&str; 3] = [
    "fixtures/replies/quoted-nbsp-depth3.eml",
    "fixtures/replies/quoted-tabs-wrapped-depth2.eml",
    "fixtures/replies/quoted-qp-depth1.eml",
];

fn read(name: &str, bytes: &[u8]) -> FileResult {
    let mut res = FileResult::new(name.into(), bytes.len());
    read_bytes(name, bytes, &mut res);
    res
}

/// The report documents of a dataset (each carried by its page).
fn docs(dir: &Path) -> Vec<Value> {
    let pages = std::fs::read_dir(dir.join("m")).unwrap().map(|e| e.unwrap().path().join("index.html"));
    let mut out: Vec<Value> = pages.map(|p| json(&p)).collect();
    out.sort_by_key(|d| d["message_id"].as_str().unwrap_or("").to_string());
    out
}

#[test]
fn quoted_replies_import_with_their_report_without_errors_or_a_point_twice() {
    let alone = tmpdir("alone");
    let (code, _, err) = lkpx(&["import", "--out", alone.to_str().unwrap(), "fixtures/corpus/raw/041.eml"]);
    assert_eq!(code, 0, "{err}");
    let with = tmpdir("with");
    let mut args = vec!["import", "--out", with.to_str().unwrap(), "fixtures/corpus/raw/041.eml"];
    args.extend(REPLIES);
    args.push("fixtures/replies/orphan-reply.eml");
    let (code, _, err) = lkpx(&args);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("error:"), "no error line: {err}");
    assert!(err.contains("4 replies in the files: 3 attached as notes to their reports, 1 not"), "{err}");
    assert!(
        err.contains("note: fixtures/replies/orphan-reply.eml: a reply to <202412271132.a09c3500-lkp@intel.com>, whose report is neither"),
        "the reply whose report is missing is named once: {err}"
    );
    // the same totals (points, series, rows) as the report alone: no quoted copy added a point
    let (a, w) = (json(&alone.join("index.json")), json(&with.join("index.json")));
    assert_eq!(a["totals"], w["totals"]);
    assert!(a["totals"]["points"].as_u64().unwrap() > 300);
    // one report, with the three replies' own words as its notes, dated, quotes and attributions dropped
    let d = docs(&with);
    assert_eq!(d.len(), 1);
    let notes: Vec<&str> = d[0]["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(notes[0].starts_with("2024-10-09 Jane Developer: This is expected"), "{notes:?}");
    assert!(notes[1].starts_with("2024-10-10 Tom Tester: The fsmark runs vary"), "{notes:?}");
    assert!(notes[2].contains("Sam Reviewer: Hi,\n\nA fix is queued"), "{notes:?}");
    assert!(notes.iter().all(|n| !n.contains('>') && !n.contains("fsmark.app_overhead")), "{notes:?}");
    for dir in [alone, with] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn each_reply_shape_reads_as_a_reply_whose_quoted_rows_find_the_report() {
    let report = read("041.eml", &std::fs::read(root().join("fixtures/corpus/raw/041.eml")).unwrap());
    let own = reader::threads::row_keys(&report.docs[0]);
    assert_eq!(own.len(), 189);
    for path in REPLIES {
        let res = read(path, &std::fs::read(root().join(path)).unwrap());
        assert!(res.errors.is_empty() && res.docs.is_empty() && res.skipped.is_none(), "{path}: {res:?}");
        assert_eq!(res.replies.len(), 1, "{path}");
        let quoted = &res.replies[0].rows;
        let found = quoted.iter().filter(|k| own.binary_search(k).is_ok()).count();
        // every quoted row is read back as the report's (the re-wrapped copy loses the rows whose
        // name went onto the next line, but most stay whole)
        assert_eq!(found, quoted.len(), "{path}: every quoted row is one of the report's");
        let min = if path.contains("wrapped") { 100 } else { 189 };
        assert!(found >= min, "{path}: {found} of the report's 189 rows read from the quote");
    }
}

#[test]
fn the_re_wrapped_quote_is_noted_never_an_error() {
    let path = "fixtures/replies/quoted-tabs-wrapped-depth2.eml";
    let msg = reader::mail::parse_message(&std::fs::read(root().join(path)).unwrap());
    let parsed = reader::report::parse(path, &msg);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(parsed.own_rows, 0);
    assert!(parsed.quoted_rows >= 100, "{}", parsed.quoted_rows);
}

#[test]
fn no_break_spaces_in_a_robot_table_read_as_spaces() {
    let text = std::fs::read_to_string(root().join("fixtures/corpus/041.txt")).unwrap();
    let plain = read("041.txt", text.as_bytes());
    // a gateway that turns every other space (or every space) into U+00A0, or spaces into tabs
    let every_other: String = {
        let mut n = 0;
        text.chars()
            .map(|c| {
                n += usize::from(c == ' ');
                if c == ' ' && n % 2 == 0 {
                    '\u{a0}'
                } else {
                    c
                }
            })
            .collect()
    };
    let every = text.replace(' ', "\u{a0}");
    let tabs = text.replace("  ", "\t");
    for (what, t) in [("every other", every_other), ("every", every), ("tabs", tabs)] {
        let got = read("041.txt", t.as_bytes());
        assert!(got.errors.is_empty(), "{what}: {:?}", got.errors);
        assert_eq!(got.docs.len(), 1, "{what}");
        let rows = |r: &FileResult| {
            r.docs[0]
                .sections
                .iter()
                .flat_map(|s| s.rows.iter().map(|r| format!("{:?}", (&r.metric, &r.values, &r.stddev_pct, &r.changes))))
                .collect::<Vec<_>>()
        };
        assert_eq!(rows(&got), rows(&plain), "{what}");
        assert_eq!(rows(&plain).len(), 189);
    }
}

/// A tiny deterministic generator for the mutations.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Corruptions of one token of a quoted row (what a mail client, or a person editing a quote, may do).
fn corrupt_token(tok: &str, kind: u64) -> String {
    match kind % 5 {
        0 => tok.replacen(|c: char| c.is_ascii_digit(), "o", 1),
        1 => String::new(),
        2 => format!("{tok}{tok}"),
        3 => tok.replace('%', ""),
        _ => format!("{tok}\u{a0}x"),
    }
}

#[test]
fn a_quoted_copy_mutated_cell_by_cell_is_never_an_error_and_never_a_row() {
    let mut rng = XorShift(0x0a0_0a0_0a0);
    let mut mutations = 0;
    for path in REPLIES[..2].iter().copied() {
        let text = std::fs::read_to_string(root().join(path)).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(body) = line.strip_prefix(">>> ").or_else(|| line.strip_prefix("> > ")) else { continue };
            let toks: Vec<&str> = body.split([' ', '\t', '\u{a0}']).filter(|t| !t.is_empty()).collect();
            if toks.len() < 3 || toks[0].parse::<f64>().is_err() {
                continue;
            }
            // every cell (not the name), one random corruption each
            for k in 0..toks.len() - 1 {
                let mut t = toks.clone();
                let bad = corrupt_token(toks[k], rng.next());
                t[k] = &bad;
                let prefix = &line[..line.len() - body.len()];
                let mut mutated = lines.clone();
                let new_line = format!("{prefix}{}", t.join("\u{a0} "));
                mutated[i] = &new_line;
                let res = read(path, mutated.join("\n").as_bytes());
                assert!(res.errors.is_empty(), "{path}:{}: {new_line:?}: {:?}", i + 1, res.errors);
                assert!(res.docs.is_empty() && res.replies.len() == 1, "{path}:{}: still one reply", i + 1);
                mutations += 1;
            }
        }
    }
    assert!(mutations >= 400, "{mutations}");
}

#[test]
fn a_robot_report_quoting_itself_reads_its_rows_once_and_notes_a_broken_copy() {
    // a web page holding the report and a reply quoting it: the copy adds nothing, and a
    // mangled line in the copy is no error (the original row is read)
    let text = std::fs::read_to_string(root().join("fixtures/corpus/041.txt")).unwrap();
    let body = text.split_once("\n\n").unwrap().1;
    let mut quoted: Vec<String> = body.lines().map(|l| format!(">> {}", l.replace("  ", "\u{a0} "))).collect();
    // the table's row (the mail also quotes it in its prose, above the table)
    let k = quoted.iter().rposition(|l| l.contains("fsmark.files_per_sec") && l.contains("18.55")).unwrap();
    quoted[k] = quoted[k].replace("18.55", "18.5o5");
    let page =
        format!("{text}\nOn Mon, 7 Oct 2024, kernel test robot wrote:\n{}\n\nNoise, I think.\n", quoted.join("\n"));
    let plain = read("041.txt", text.as_bytes());
    let got = read("page.txt", page.as_bytes());
    assert!(got.errors.is_empty(), "{:?}", got.errors);
    assert_eq!(got.notes.len(), 1, "{:?}", got.notes);
    assert!(got.notes[0].starts_with("page.txt: 1 line(s) of a quoted table"), "{:?}", got.notes);
    let n = |r: &FileResult| r.docs[0].sections.iter().map(|s| s.rows.len()).sum::<usize>();
    assert_eq!(n(&got), n(&plain));
}
