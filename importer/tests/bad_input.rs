//! Bad input, nothing lost: a malformed cell or row inside a table is an error naming its
//! `file:line`, and every other row of that table and of the mail is still read; an annotation
//! after the metric name (`<-------- (a)`) belongs to a valid row and is kept as its note.
//! First the real lines that broke this, through the `lkpx` binary; then every table of the real
//! fixtures corrupted cell by cell, through the library.

use model::rng::XorShift;
use reader::doc::Row;
use reader::file::{read_bytes, FileResult};
use reader::table::{tokenize, Tok};
use serde_json::Value;
use std::collections::BTreeMap;
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
    let d = std::env::temp_dir().join(format!("lkpx-bad-input-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// `lkpx rows` output by line, with the source left out (the copy lives elsewhere).
fn rows_by_line(stdout: &str) -> BTreeMap<u64, Vec<Value>> {
    let mut out: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    for l in stdout.lines() {
        let mut v: Value = serde_json::from_str(l).unwrap();
        v.as_object_mut().unwrap().remove("source");
        out.entry(v["line"].as_u64().unwrap()).or_default().push(v);
    }
    out
}

/// 1-based number of the only line of `text` equal to `line`.
fn line_no(text: &str, line: &str) -> usize {
    let at: Vec<usize> = text.lines().enumerate().filter(|(_, l)| *l == line).map(|(i, _)| i + 1).collect();
    assert_eq!(at.len(), 1, "{line:?} occurs {} times", at.len());
    at[0]
}

#[test]
fn a_corrupted_cell_is_an_error_and_the_rest_of_the_mail_is_imported() {
    let good_line = "   7985664 ±  5%     -15.9%    6715392 ± 10%  meminfo.DirectMap2M";
    let bad_line = "   798566x4 ±  5%     -15.9%    6715392 ± 10%  meminfo.DirectMap2M";
    let good = fixture("fixtures/corpus/008.txt");
    let no = line_no(&good, good_line);
    let bad = good.replacen(good_line, bad_line, 1);
    let dir = tmpdir("cell");
    std::fs::write(dir.join("008.txt"), &bad).unwrap();
    let copy = dir.join("008.txt");

    let (code, pristine, err) = lkpx(&["rows", "fixtures/corpus/008.txt"]);
    assert_eq!(code, 0, "{err}");
    let pristine = rows_by_line(&pristine);
    assert!(pristine.keys().any(|&l| l > no as u64 + 300), "the table goes on long after the bad line");

    let out = dir.join("out");
    let (code, _, err) = lkpx(&["import", "--out", out.to_str().unwrap(), copy.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let want = format!("008.txt:{no}: column 1: expected a value, found `798566x4`");
    assert!(err.contains(&want), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "only the bad line is an error: {err}");
    let root: model::Root = serde_json::from_slice(&std::fs::read(out.join("index.json")).unwrap()).unwrap();
    let all: usize = pristine.values().map(Vec::len).sum();
    assert_eq!(root.totals.rows, all - 1, "every row but the bad one is imported");

    let (code, rows, err) = lkpx(&["rows", copy.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let mut expected = pristine.clone();
    expected.remove(&(no as u64));
    assert_eq!(rows_by_line(&rows), expected, "the other rows are read exactly as from the pristine mail");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_trailing_annotation_is_a_note_on_a_valid_row() {
    // The real row (from a 2024 fsmark report) in place of the fsmark row of a real fsmark report.
    let real = "      6.40            +0.0%       6.40        fsmark.files_per_sec     <-------- (a)";
    let good_line = "     13864 ±  4%     +21.3%      16811        fsmark.files_per_sec";
    let good = fixture("fixtures/corpus/017.txt");
    let no = line_no(&good, good_line) as u64;
    let dir = tmpdir("note");
    let copy = dir.join("017.txt");
    std::fs::write(&copy, good.replacen(good_line, real, 1)).unwrap();
    // and as a reply quotes it
    let quoted = dir.join("017-quoted.txt");
    std::fs::write(&quoted, good.replacen(good_line, &format!("> >{real}"), 1)).unwrap();

    let (_, pristine, _) = lkpx(&["rows", "fixtures/corpus/017.txt"]);
    let pristine = rows_by_line(&pristine);
    for path in [&copy, &quoted] {
        let (code, rows, err) = lkpx(&["rows", path.to_str().unwrap()]);
        assert_eq!((code, err.as_str()), (0, ""), "{}", path.display());
        let mut rows = rows_by_line(&rows);
        let row = rows.remove(&no).unwrap().remove(0);
        assert_eq!(row["metric"], "fsmark.files_per_sec");
        assert_eq!(row["values"], serde_json::json!([6.4, 6.4]));
        assert_eq!(row["changes"], serde_json::json!([0.0]));
        assert_eq!(row["note"], "<-------- (a)");
        let mut others = pristine.clone();
        others.remove(&no);
        assert_eq!(rows, others, "the other rows are untouched and carry no note");
    }
    let out = dir.join("out");
    let (code, _, err) = lkpx(&["import", "--out", out.to_str().unwrap(), copy.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // the published report document keeps the note on its row
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let doc = data.report_doc(&data.index.reports[0].id).unwrap();
    let row = doc.sections.iter().flat_map(|s| &s.rows).find(|r| r.line as u64 == no).unwrap();
    assert_eq!((row.metric.as_str(), row.note.as_deref()), ("fsmark.files_per_sec", Some("<-------- (a)")));
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------------------------------------
// Every table of the real fixtures, corrupted cell by cell

/// Rows (by line, with their table's commits) and error messages (by line) of one report text,
/// read as `lkpx` reads a file. Rows are compared as read (`doc::Row`), which is all `lkpx rows`
/// prints of them but the section number: consecutive one-metric tables (2013/2014) join one
/// section when their first rows agree, so a bad first row may renumber the sections after it,
/// losing nothing.
#[derive(Debug, Default)]
struct Read {
    rows: BTreeMap<usize, Vec<(Vec<String>, Row)>>,
    /// The section of each row line.
    sections: BTreeMap<usize, usize>,
    errors: BTreeMap<usize, Vec<String>>,
}

fn read(name: &str, text: &str) -> Read {
    let mut res = FileResult::new(name.into(), text.len());
    read_bytes(name, text.as_bytes(), &mut res);
    let mut out = Read::default();
    for d in res.docs {
        for s in d.sections {
            for r in s.rows {
                out.sections.entry(r.line).or_insert(s.index);
                out.rows.entry(r.line).or_default().push((s.commits.clone(), r));
            }
        }
    }
    for e in &res.errors {
        let rest = e.strip_prefix(name).and_then(|r| r.strip_prefix(':')).unwrap_or_else(|| panic!("{e}"));
        let (line, msg) = rest.split_once(": ").unwrap_or_else(|| panic!("{e}"));
        out.errors.entry(line.parse().unwrap_or_else(|_| panic!("{e}"))).or_default().push(msg.to_string());
    }
    out
}

/// Byte spans (in `body`) of the cells of a table row: `[value] [±stddev]`, a change, or
/// `fails:runs`, in the order of the row grammar, before the metric name.
fn cells(body: &str) -> Vec<(usize, usize, bool)> {
    let toks = tokenize(body);
    let offset = |w: &str| w.as_ptr() as usize - body.as_ptr() as usize;
    // token spans; a stddev token spans the text between its neighbours
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let start = spans.last().map_or(0, |s| s.1);
        let span = match t {
            Tok::Word(w) => (offset(w), offset(w) + w.len()),
            Tok::Stddev(_) => {
                let end = toks[k + 1..]
                    .iter()
                    .find_map(|t| if let Tok::Word(w) = t { Some(offset(w)) } else { None })
                    .unwrap_or(body.len());
                let text = &body[start..end];
                let lead = text.len() - text.trim_start().len();
                (start + lead, start + text.trim_end().len())
            }
        };
        spans.push(span);
    }
    let word = |k: usize| if let Tok::Word(w) = toks[k] { Some(w) } else { None };
    let mut end = toks.iter().position(|t| matches!(t, Tok::Word(w) if w.starts_with("<-"))).unwrap_or(toks.len());
    end -= 1; // the name
    if end > 0 && matches!(word(end - 1), Some("TOTAL" | "GEO-MEAN")) {
        end -= 1;
    }
    let mut out = Vec::new();
    let (mut k, mut expect_value) = (0, true);
    while k < end {
        let first = k;
        if expect_value {
            if word(k).is_some_and(|w| !w.starts_with('+') && !w.ends_with('%')) {
                k += 1;
            }
            let stddev = k < end && matches!(toks[k], Tok::Stddev(_));
            k += usize::from(stddev);
            if k == first {
                break;
            }
            out.push((spans[first].0, spans[k - 1].1, stddev));
        } else {
            k += 1;
            out.push((spans[first].0, spans[first].1, false));
        }
        expect_value = !expect_value;
    }
    out
}

const CORRUPTIONS: [&str; 5] = ["letter inside a number", "deleted token", "doubled ±", "stray %", "empty cell"];

/// `body` with the cell `(s, e)` corrupted by kind `kind`; None when the kind does not apply.
fn corrupt(body: &str, (s, e, stddev): (usize, usize, bool), kind: usize, rng: &mut XorShift) -> Option<String> {
    let cell = &body[s..e];
    let new_cell = match kind {
        0 => {
            let d = cell.find(|c: char| c.is_ascii_digit())?;
            let letter = ["x", "q", "Z", "o", "l"][rng.below(5)];
            format!("{}{letter}{}", &cell[..=d], &cell[d + 1..])
        }
        1 => {
            // a cell of value and stddev loses one of the two, else its only token
            let parts: Vec<&str> = cell.splitn(2, char::is_whitespace).collect();
            match (stddev, parts.as_slice()) {
                (true, [v, sd]) if !v.contains(['±', '~', '?']) && rng.below(2) == 0 => {
                    format!("{}{}", " ".repeat(v.len() + 1), sd)
                }
                (true, [v, sd]) if !v.contains(['±', '~', '?']) => format!("{v}{}", " ".repeat(sd.len() + 1)),
                _ => " ".repeat(cell.len()),
            }
        }
        2 => match ["Â±", "A+-", "±", "ą", "~", "?"].iter().find_map(|m| cell.find(m).map(|p| (p, *m))) {
            Some((p, m)) if stddev => format!("{}{m}{}", &cell[..p], &cell[p..]),
            _ => format!("{cell} ± ±"),
        },
        3 => {
            let first_end = cell.find(char::is_whitespace).unwrap_or(cell.len());
            format!("{}%{}", &cell[..first_end], &cell[first_end..])
        }
        _ => " ".repeat(cell.len()),
    };
    let out = format!("{}{new_cell}{}", &body[..s], &body[e..]);
    (out != body).then_some(out)
}

/// The real report texts (decoded, one line per line) of the fixtures.
fn fixture_texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["fixtures/seeds", "fixtures/corpus"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "txt") {
                let name = p.strip_prefix(root()).unwrap().display().to_string();
                out.push((name, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The tables of a real report as row lines (1-based): the lines holding exactly one row, split
/// where a blank line lies between two rows (a web page collapsed onto one line holds many rows
/// per line, and a line names no row there).
fn tables(lines: &[&str], pristine: &Read) -> Vec<Vec<usize>> {
    let blank = |l: &str| l.trim_start_matches([' ', '\t', '>']).trim().is_empty();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (&line, rows) in &pristine.rows {
        if rows.len() != 1 {
            continue;
        }
        let same =
            out.last().and_then(|t| t.last()).is_some_and(|&prev| !lines[prev..line - 1].iter().any(|l| blank(l)));
        match out.last_mut() {
            Some(t) if same => t.push(line),
            _ => out.push(vec![line]),
        }
    }
    out
}

/// Lines kept after a table: enough for what follows it to be read (and not swallowed).
const TAIL: usize = 30;

/// The part of a report that a corruption of row `m` of `table` is checked on (original line
/// numbers, in order): everything before the table, with the rows of other tables left out; the
/// table's first two and last two rows and the rows around `m`; the lines after it up to `TAIL`.
/// Leaving rows out keeps a valid table (rows are read line by line) and keeps the debug-build
/// test fast; the whole-mail case is the `008.txt` test above.
fn excerpt(n_lines: usize, row_lines: &BTreeMap<usize, ()>, table: &[usize], m: usize) -> Vec<usize> {
    let k = table.iter().position(|&l| l == m).unwrap();
    let keep: Vec<usize> = table
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 2 || *i + 2 >= table.len() || i.abs_diff(k) <= 2)
        .map(|(_, &l)| l)
        .collect();
    let end = (table[table.len() - 1] + TAIL).min(n_lines);
    (1..=end).filter(|l| !row_lines.contains_key(l) || keep.contains(l)).collect()
}

/// Which rows of a table to corrupt: the first and the last (where a table starts and ends) and
/// one more, drawn deterministically.
fn chosen_rows(table: &[usize], rng: &mut XorShift) -> Vec<usize> {
    let mut pick = vec![table[0], table[table.len() - 1], table[rng.below(table.len())]];
    pick.sort_unstable();
    pick.dedup();
    pick
}

/// What became of one corruption of excerpt line `m`; panics when a row was lost in silence.
/// `at` maps excerpt lines to the report's lines (for the messages).
fn check(name: &str, at: &[usize], pristine: &Read, got: &Read, m: usize, what: &str) -> bool {
    let orig = |l: usize| at[l - 1];
    for (&line, rows) in &pristine.rows {
        if line == m || got.rows.get(&line) == Some(rows) {
            continue;
        }
        // a 2014 TOTAL row takes its job from its testbox rows: with one of them an error, the
        // TOTAL row is still read but its common job may differ
        let aggregate_of_m = rows.iter().all(|(_, r)| r.aggregate) && got.errors.contains_key(&m);
        if aggregate_of_m && got.rows.get(&line).map(Vec::len) == Some(rows.len()) {
            continue;
        }
        assert!(
            got.errors.contains_key(&line),
            "{name}:{} ({what}): the rows of line {} changed with no error naming it\nbefore: {rows:?}\nafter: {:?}",
            orig(m),
            orig(line),
            got.rows.get(&line)
        );
    }
    let errored = got.errors.contains_key(&m);
    assert!(errored || got.rows.contains_key(&m), "{name}:{} ({what}): the row is gone and no error names it", orig(m));
    errored
}

/// Counts of a mutation run.
#[derive(Debug, Default)]
struct Tally {
    tables: usize,
    rows: usize,
    /// Of the rows: failure rows, rows of three or more commits, 2014 TOTAL rows.
    fail_rows: usize,
    wide_rows: usize,
    total_rows: usize,
    mutations: usize,
    errors: usize,
    by_kind: [usize; CORRUPTIONS.len()],
}

/// Corrupts every chosen row of every table of one report, cell by cell, kind by kind.
fn corrupt_report(name: &str, text: &str, rng: &mut XorShift, tally: &mut Tally) {
    let full = read(name, text);
    assert!(full.errors.is_empty(), "{name}: the real report reads cleanly: {:?}", full.errors);
    let lines: Vec<&str> = text.split('\n').collect();
    let row_lines: BTreeMap<usize, ()> = full.rows.keys().map(|&l| (l, ())).collect();
    for table in tables(&lines, &full) {
        tally.tables += 1;
        for m in chosen_rows(&table, rng) {
            let at = excerpt(lines.len(), &row_lines, &table, m);
            let mx = at.iter().position(|&l| l == m).unwrap() + 1;
            let part: Vec<&str> = at.iter().map(|&l| lines[l - 1]).collect();
            let pristine = read(name, &part.join("\n"));
            assert!(pristine.errors.is_empty(), "{name}:{m}: the excerpt reads cleanly: {:?}", pristine.errors);
            assert!(pristine.rows.contains_key(&mx), "{name}:{m}: the excerpt keeps the row");
            let raw = lines[m - 1];
            let quote = raw.len() - raw.trim_start_matches([' ', '\t', '>']).len();
            let (prefix, body) = raw.split_at(quote);
            let cs = cells(body);
            assert!(!cs.is_empty(), "{name}:{m}: a row has cells: {raw:?}");
            let (commits, row) = &pristine.rows[&mx][0];
            tally.rows += 1;
            tally.fail_rows += usize::from(row.kind == reader::doc::RowKind::Fail);
            tally.wide_rows += usize::from(commits.len() > 2);
            tally.total_rows += usize::from(row.aggregate);
            for &cell in &cs {
                for (kind, what) in CORRUPTIONS.iter().enumerate() {
                    let Some(new_body) = corrupt(body, cell, kind, rng) else { continue };
                    let new_line = format!("{prefix}{new_body}");
                    let mut mutated = part.clone();
                    mutated[mx - 1] = &new_line;
                    let got = read(name, &mutated.join("\n"));
                    let what = format!("{what}: {new_line:?}");
                    tally.errors += usize::from(check(name, &at, &pristine, &got, mx, &what));
                    tally.mutations += 1;
                    tally.by_kind[kind] += 1;
                }
            }
        }
    }
}

#[test]
fn every_table_corrupted_cell_by_cell_loses_no_row_in_silence() {
    let mut rng = XorShift::new(0x5eed_0bad_ce11);
    let mut tally = Tally::default();
    for (name, text) in fixture_texts() {
        corrupt_report(&name, &text, &mut rng, &mut tally);
    }
    eprintln!("{tally:?}");
    // floors, so that the test cannot quietly shrink to nothing: every table of the fixtures
    // (79 when written), every kind of row, every corruption
    assert!(tally.tables >= 75 && tally.mutations >= 3000, "{tally:?}");
    assert!(tally.fail_rows > 0 && tally.wide_rows > 0 && tally.total_rows > 0, "{tally:?}");
    assert!(tally.by_kind.iter().all(|&k| k >= 600), "every corruption is tried: {tally:?}");
    // most corruptions make a row that lkp could not have printed; the rest (a deleted stddev or
    // value, a `%` on an absolute change, which pre-2017 mails print) still read as that line's row
    assert!(tally.errors * 10 >= tally.mutations * 8, "{tally:?}");
}
