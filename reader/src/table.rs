//! Comparison-table rows: tokenizing a line (with every mangled form of `±`) and reading it by
//! the row grammar of lkp's `compare`/`ncompare` (see `docs/lkp-formats.md` §4 and §7).
//!
//! Column widths are never trusted: web archives collapse whitespace, so rows are read as a token
//! sequence `cell (change cell)* name [note]`, where `cell = [value] [±stddev%]` and `note` is an
//! annotation after the name that starts with an arrow (`<-------- (a)`). Lines come from
//! `report::parse`, which reads U+00A0 (a mail client's or a gateway's no-break space) as a space.

use model::ChangeKind;

/// A token of a table line.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok<'a> {
    /// `± 5%` in any spelling, as the number (may be negative: `A+- -1%`).
    Stddev(f64),
    Word(&'a str),
}

/// Markers that stand for `±` in real mails: the sign itself, `~` (2014 ASCII mails), `?` (lost in
/// web archives), `A+-` (archive transliteration), `ą` (Latin-1 0xB1 read as ISO-8859-2), `Â±`
/// (UTF-8 read as Latin-1).
const PM_MARKERS: [&str; 6] = ["Â±", "A+-", "±", "ą", "~", "?"];

/// Split a line into tokens, merging a `±` marker and its percentage into one `Stddev` token.
pub fn tokenize(line: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < line.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if let Some((v, next)) = stddev_at(line, i) {
            out.push(Tok::Stddev(v));
            i = next;
            continue;
        }
        let start = i;
        while i < line.len() && !bytes[i].is_ascii_whitespace() {
            // a ± glued to the end of a value (`1.42±5%`) starts a new token
            if i > start && stddev_at(line, i).is_some() && line[..i].ends_with(|c: char| c.is_ascii_digit()) {
                break;
            }
            i += line[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push(Tok::Word(&line[start..i]));
    }
    out
}

/// A word that can only be (part of) a cell: a `±` marker alone, a number, a change.
pub fn is_cell_fragment(w: &str) -> bool {
    matches!(w, "±" | "Â±" | "A+-" | "ą" | "~" | "?") || parse_value(w).is_some() || parse_change(w, false).is_some()
}

/// A stddev token starting at byte `i`: marker, optional blanks, `-?digits%`.
fn stddev_at(line: &str, i: usize) -> Option<(f64, usize)> {
    // the first bytes of the markers: every byte of a word is tried, and most start none
    if !matches!(line.as_bytes()[i], 0xC3 | b'A' | 0xC2 | 0xC4 | b'~' | b'?') {
        return None;
    }
    let rest = &line[i..];
    let marker = PM_MARKERS.iter().find(|m| rest.starts_with(*m))?;
    let mut j = i + marker.len();
    let b = line.as_bytes();
    while j < line.len() && (b[j] == b' ' || b[j] == b'\t') {
        j += 1;
    }
    let num_start = j;
    if j < line.len() && b[j] == b'-' {
        j += 1;
    }
    let digits = j;
    while j < line.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    if j == digits || j >= line.len() || b[j] != b'%' {
        return None;
    }
    let v: f64 = line[num_start..j].parse().ok()?;
    let end = j + 1;
    // the token must end here
    if end < line.len() && !b[end].is_ascii_whitespace() {
        return None;
    }
    Some((v, end))
}

/// A plain number cell (`123`, `0.07`, `1.345e+09`, `-36.17`), spelled as lkp prints numbers:
/// `%.2f`, an integer, or `%.4g` (whose exponent always has a sign). Rust's own float syntax is
/// wider (`1e5`, `inf`, `nan`), and accepting it would read a corrupted cell (`671e5392`) as a number.
pub fn parse_value(s: &str) -> Option<f64> {
    if !is_lkp_number(s) {
        return None;
    }
    s.parse().ok().filter(|v: &f64| v.is_finite())
}

/// `[+-]digits[.digits][e(+|-)digits]`, with at least one digit before the exponent.
fn is_lkp_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        if !matches!(b.get(i + 1), Some(b'+' | b'-')) {
            return false;
        }
        i += 2;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A token that tries to be a number: it starts like one (a digit, or a sign or point followed
/// somewhere by a digit). `798566x4` and `-x93.66` are numbers with letters in them, not prose.
pub fn is_numberish(s: &str) -> bool {
    match s.as_bytes().first() {
        Some(c) if c.is_ascii_digit() => true,
        Some(b'+' | b'-' | b'.' | b':') => s.bytes().any(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// Arrows that start a note written after a row's metric name (`<-------- (a)`, `<---`, `<==`).
fn is_note_start(w: &str) -> bool {
    ["<-", "<=", "<<", "\u{2190}"].iter().any(|a| w.starts_with(a))
}

/// Where the row proper ends in `toks` (the tokens of `line`), and the note after it: a trailing
/// annotation that begins with an arrow after the metric name, kept as written.
pub fn split_note<'a>(line: &str, toks: &[Tok<'a>]) -> (usize, Option<String>) {
    // at least one cell and a name come before the note
    let at = toks.iter().enumerate().skip(2).find_map(|(k, t)| match t {
        Tok::Word(w) if is_note_start(w) => Some((k, *w)),
        _ => None,
    });
    let Some((k, w)) = at else { return (toks.len(), None) };
    let start = (w.as_ptr() as usize).checked_sub(line.as_ptr() as usize).filter(|&o| o <= line.len());
    let note = match start {
        Some(o) => line[o..].trim(),
        None => w,
    };
    (k, Some(note.to_string()))
}

/// A change token: `+5.2%`, `-100.0%`, `+Inf%`, `+6.6e+103%` (percent) or `+1.4` / `-0.0`
/// (absolute, only where `absolute_allowed`). Reproduction changes (`100%`, `-25%`) have no `+`.
pub fn parse_change(s: &str, absolute_allowed: bool) -> Option<(f64, ChangeKind)> {
    if let Some(body) = s.strip_suffix('%') {
        let v = parse_signed_number(body)?;
        return Some((v, ChangeKind::Percent));
    }
    if absolute_allowed && (s.starts_with('+') || s.starts_with('-')) {
        return parse_value(s).map(|v| (v, ChangeKind::Absolute));
    }
    None
}

fn parse_signed_number(s: &str) -> Option<f64> {
    let unsigned = s.trim_start_matches(['+', '-']);
    if unsigned.eq_ignore_ascii_case("inf") {
        return Some(if s.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if !is_lkp_number(s) {
        return None;
    }
    s.parse().ok()
}

/// `fails:runs` cell (`1:4`, `:6` = no failure).
pub fn parse_fail_runs(s: &str) -> Option<(Option<u32>, u32)> {
    let (f, r) = s.split_once(':')?;
    let runs = r.parse().ok()?;
    let fails = if f.is_empty() { None } else { Some(f.parse().ok()?) };
    Some((fails, runs))
}

/// A perf row as read.
#[derive(Debug, Clone, PartialEq)]
pub struct PerfCells {
    pub values: Vec<Option<f64>>,
    pub stddev_pct: Vec<Option<f64>>,
    pub changes: Vec<Option<f64>>,
    pub change_kind: Vec<ChangeKind>,
}

/// Read `cell (change cell){n-1}` from `toks` exactly. `absolute` says whether this metric's
/// changes are printed without `%`.
pub fn parse_perf_cells(toks: &[Tok], n: usize, absolute: bool) -> Result<PerfCells, String> {
    let mut i = 0;
    let mut cells = PerfCells { values: vec![], stddev_pct: vec![], changes: vec![], change_kind: vec![] };
    for col in 0..n {
        if col > 0 {
            match toks.get(i) {
                Some(Tok::Word(w)) => match parse_change(w, absolute) {
                    Some((c, k)) => {
                        cells.changes.push(Some(c));
                        cells.change_kind.push(k);
                        i += 1;
                    }
                    None => return Err(format!("column {}: expected a change, found `{w}`", col + 1)),
                },
                Some(Tok::Stddev(_)) => return Err(format!("column {}: expected a change, found a stddev", col + 1)),
                None => return Err(format!("row ends before column {}", col + 1)),
            }
        }
        let mut value = None;
        if let Some(Tok::Word(w)) = toks.get(i) {
            // lkp never prints a `+` on a value, so `+x` here is the next change (a blank cell)
            if !w.starts_with('+') {
                if let Some(v) = parse_value(w) {
                    value = Some(v);
                    i += 1;
                }
            }
        }
        let mut sd = None;
        if let Some(Tok::Stddev(s)) = toks.get(i) {
            sd = Some(*s);
            i += 1;
        }
        if value.is_none() && sd.is_none() {
            return Err(match toks.get(i) {
                Some(Tok::Word(w)) => format!("column {}: expected a value, found `{w}`", col + 1),
                _ => format!("column {}: no value", col + 1),
            });
        }
        cells.values.push(value);
        cells.stddev_pct.push(sd);
    }
    if i != toks.len() {
        return Err(format!("{} unexpected token(s) after the last column", toks.len() - i));
    }
    if cells.values.iter().all(Option::is_none) && cells.stddev_pct.iter().all(Option::is_none) {
        return Err("no value in any column".into());
    }
    Ok(cells)
}

/// A failure row as read: `fails:runs (reproduction fails:runs){n-1}`.
#[derive(Debug, Clone, PartialEq)]
pub struct FailCells {
    pub fails: Vec<Option<u32>>,
    pub runs: Vec<Option<u32>>,
    pub changes: Vec<Option<f64>>,
}

pub fn parse_fail_cells(toks: &[Tok], n: usize) -> Result<FailCells, String> {
    let mut cells = FailCells { fails: vec![], runs: vec![], changes: vec![] };
    let mut i = 0;
    for col in 0..n {
        if col > 0 {
            match toks.get(i) {
                Some(Tok::Word(w)) if w.ends_with('%') => match parse_signed_number(&w[..w.len() - 1]) {
                    Some(v) => {
                        cells.changes.push(Some(v));
                        i += 1;
                    }
                    None => return Err(format!("column {}: bad %reproduction `{w}`", col + 1)),
                },
                _ => return Err(format!("column {}: expected a %reproduction", col + 1)),
            }
        }
        match toks.get(i) {
            Some(Tok::Word(w)) => match parse_fail_runs(w) {
                Some((f, r)) => {
                    cells.fails.push(Some(f.unwrap_or(0)));
                    cells.runs.push(Some(r));
                    i += 1;
                }
                None => return Err(format!("column {}: expected fails:runs, found `{w}`", col + 1)),
            },
            _ => return Err(format!("column {}: expected fails:runs", col + 1)),
        }
    }
    if i != toks.len() {
        return Err(format!("{} unexpected token(s) after the last column", toks.len() - i));
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_marker_starts_a_stddev() {
        for m in PM_MARKERS {
            let cell = format!("{m} 5%");
            assert_eq!(stddev_at(&cell, 0), Some((5.0, cell.len())), "{m}");
            assert_eq!(tokenize(&format!("1.42{m}5%")), [Tok::Word("1.42"), Tok::Stddev(5.0)], "{m}");
        }
    }

    fn perf(line: &str, n: usize) -> Result<PerfCells, String> {
        let toks = tokenize(line);
        let name = toks.len() - 1;
        let abs = match &toks[name] {
            Tok::Word(w) => model::stats::is_absolute_metric(w),
            _ => false,
        };
        parse_perf_cells(&toks[..name], n, abs)
    }

    #[test]
    fn rows_of_every_era() {
        // (line, columns, values, stddevs, changes)
        type Case<'a> = (&'a str, usize, Vec<Option<f64>>, Vec<Option<f64>>, Vec<Option<f64>>);
        let cases: Vec<Case> = vec![
            ("    210443           -15.8%     177280        vm-scalability.median", 2, vec![Some(210443.0), Some(177280.0)], vec![None, None], vec![Some(-15.8)]),
            ("      0.07 ±  6%     -64.9%       0.02 ± 16%  vm-scalability.median_stddev", 2, vec![Some(0.07), Some(0.02)], vec![Some(6.0), Some(16.0)], vec![Some(-64.9)]),
            ("     26.26            -5.4       20.89        mpstat.cpu.all.idle%", 2, vec![Some(26.26), Some(20.89)], vec![None, None], vec![Some(-5.4)]),
            ("     16359 ± 24%     -78.0%       3597 ±167%  numa-numastat.node0.other_node", 2, vec![Some(16359.0), Some(3597.0)], vec![Some(24.0), Some(167.0)], vec![Some(-78.0)]),
            ("      0.00       +6.6e+103%      66.25 ±159%  interrupts.88:PCI-MSI.31981619-edge.i40e-eth0-TxRx-50", 2, vec![Some(0.0), Some(66.25)], vec![None, Some(159.0)], vec![Some(6.6e103)]),
            ("    -93.66           +38.8%    -130.00        sched_debug.cpu.nr_uninterruptible.min", 2, vec![Some(-93.66), Some(-130.0)], vec![None, None], vec![Some(38.8)]),
            ("             ~ 1%      -3.6%            ~ 1%  TOTAL turbostat.Cor_W", 2, vec![None, None], vec![Some(1.0), Some(1.0)], vec![Some(-3.6)]),
            ("   1282439 A+-10%    +129.9%    2947754 A+-22%  TOTAL vm-scalability.throughput", 2, vec![Some(1282439.0), Some(2947754.0)], vec![Some(10.0), Some(22.0)], vec![Some(129.9)]),
            ("    563556 A+-  1%     -12.5%     493033 A+-  5%      -5.6%     531968 A+-  1%  aim9.creat-clo.ops_per_sec", 3, vec![Some(563556.0), Some(493033.0), Some(531968.0)], vec![Some(1.0), Some(5.0), Some(1.0)], vec![Some(-12.5), Some(-5.6)]),
            ("      1079 A+-  5%     -10.8%     962.00 A+- 10%    -100.0%       0.00 A+- -1%  slabinfo.blkdev_ioc.active_objs", 3, vec![Some(1079.0), Some(962.0), Some(0.0)], vec![Some(5.0), Some(10.0), Some(-1.0)], vec![Some(-10.8), Some(-100.0)]),
            ("1.42 ? 5% -45.0% 0.78 ? 6% turbostat.CPU%c6", 2, vec![Some(1.42), Some(0.78)], vec![Some(5.0), Some(6.0)], vec![Some(-45.0)]),
            ("        0.00           +Inf%       0.94 ~ 7%  TOTAL perf-profile.cpu-cycles.x", 2, vec![Some(0.0), Some(0.94)], vec![None, Some(7.0)], vec![Some(f64::INFINITY)]),
            ("  4.5 Â± 3%  +1.0%  4.6 ą 2%  x.y", 2, vec![Some(4.5), Some(4.6)], vec![Some(3.0), Some(2.0)], vec![Some(1.0)]),
            ("               300409.00      +440.2%   1622770.80  TOTAL will-it-scale.page_fault3.90.threads", 2, vec![Some(300409.0), Some(1622770.8)], vec![None, None], vec![Some(440.2)]),
        ];
        for (line, n, values, sds, changes) in cases {
            let toks = tokenize(line);
            let name_at = if matches!(toks.get(toks.len() - 2), Some(Tok::Word("TOTAL"))) {
                toks.len() - 2
            } else {
                toks.len() - 1
            };
            let metric = match toks.last() {
                Some(Tok::Word(w)) => *w,
                _ => panic!(),
            };
            let got = parse_perf_cells(&toks[..name_at], n, model::stats::is_absolute_metric(metric))
                .unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(got.values, values, "{line}");
            assert_eq!(got.stddev_pct, sds, "{line}");
            assert_eq!(got.changes, changes, "{line}");
        }
    }

    #[test]
    fn absolute_change_kind() {
        let c = perf("  0.94 ±  2%      -0.0        0.90        turbostat.C1%", 2).unwrap();
        assert_eq!(c.change_kind, vec![ChangeKind::Absolute]);
        let c = perf("  10 +5.0% 11 a.b", 2).unwrap();
        assert_eq!(c.change_kind, vec![ChangeKind::Percent]);
    }

    #[test]
    fn malformed_rows_are_errors() {
        assert!(perf("  10 +5.0% a.b", 2).is_err());
        assert!(perf("  10 11 a.b", 2).is_err());
        assert!(perf("  10 +1.0% 11 +2.0% 12 a.b", 2).is_err());
    }

    #[test]
    fn values_are_spelled_as_lkp_prints_them() {
        // (token, value)
        let cases: [(&str, Option<f64>); 14] = [
            ("123", Some(123.0)),
            ("0.07", Some(0.07)),
            ("-36.17", Some(-36.17)),
            ("1.345e+09", Some(1.345e9)),
            ("5.e3", None),
            ("3.6e-05", Some(3.6e-5)),
            ("798566x4", None),
            ("671e5392", None),
            ("1e999", None),
            ("7985664%", None),
            ("inf", None),
            ("+", None),
            (".", None),
            ("1.2.3", None),
        ];
        for (tok, want) in cases {
            assert_eq!(parse_value(tok), want, "{tok}");
        }
    }

    #[test]
    fn notes_after_the_name() {
        // (line, metric, note)
        let cases = [
            (
                "      6.40            +0.0%       6.40        fsmark.files_per_sec     <-------- (a)",
                "fsmark.files_per_sec",
                Some("<-------- (a)"),
            ),
            ("  10 +5.0% 11 a.b <---", "a.b", Some("<---")),
            ("  10 +5.0% 11 a.b <== the headline", "a.b", Some("<== the headline")),
            ("  10 +5.0% 11 a.b", "a.b", None),
            ("          1:4          -25%            :4     dmesg.WARNING <-- new", "dmesg.WARNING", Some("<-- new")),
        ];
        for (line, metric, note) in cases {
            let toks = tokenize(line);
            let (end, got) = split_note(line, &toks);
            assert_eq!(got.as_deref(), note, "{line}");
            assert_eq!(toks[end - 1], Tok::Word(metric), "{line}");
        }
        let line = "  10 +5.0% 11 a.b <---";
        let toks = tokenize(line);
        let (end, _) = split_note(line, &toks);
        assert!(parse_perf_cells(&toks[..end - 1], 2, false).is_ok());
    }

    #[test]
    fn malformed_cells_name_the_token() {
        assert_eq!(
            perf("   798566x4 ±  5%     -15.9%    6715392 ± 10%  meminfo.DirectMap2M", 2).unwrap_err(),
            "column 1: expected a value, found `798566x4`"
        );
        assert_eq!(perf("  10 +5.0% 1x1 a.b", 2).unwrap_err(), "column 2: expected a value, found `1x1`");
        assert_eq!(perf("  10 ± ± 5% +5.0% 11 a.b", 2).unwrap_err(), "column 2: expected a change, found `±`");
        assert_eq!(perf("  10 +5.0%% 11 a.b", 2).unwrap_err(), "column 2: expected a change, found `+5.0%%`");
    }

    #[test]
    fn fail_rows() {
        let toks = tokenize("          1:4          -25%            :4     dmesg.WARNING:at#for_ip_interrupt_entry/0x");
        let c = parse_fail_cells(&toks[..toks.len() - 1], 2).unwrap();
        assert_eq!(c.fails, vec![Some(1), Some(0)]);
        assert_eq!(c.runs, vec![Some(4), Some(4)]);
        assert_eq!(c.changes, vec![Some(-25.0)]);
        let toks = tokenize("           :6          100%           6:6     kernel-selftests.net.fcnal-test.sh.fail");
        let c = parse_fail_cells(&toks[..toks.len() - 1], 2).unwrap();
        assert_eq!(c.fails, vec![Some(0), Some(6)]);
    }
}
