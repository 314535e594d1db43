//! A metric's record: the other reports that stated a change of a report's headline metric in the
//! same testcase, what they add up to, and the two signs of noise the record can show, each with
//! the numbers it rests on. Read from the reports' summaries (`ReportSummary`), so the static page
//! and the app say the same.

use crate::ReportSummary;

/// Days around a report (less than) within which a change of the other sign on the same machine is
/// a flip.
pub const FLIP_DAYS: i64 = 90;

/// Earlier reports it takes before "inside the spread of the earlier ones" is said.
pub const SPREAD_MIN: usize = 5;

const DAY: i64 = 86_400;

/// The record a report belongs to: its first testcase and its (first) headline metric.
pub fn key(r: &ReportSummary) -> Option<(&str, &str)> {
    Some((r.testcases.first()?.as_str(), r.metric.as_deref()?))
}

/// Whether two reports name the same head commit (ids compared on their common prefix, at
/// least 7 hex digits: mails give 10 to 40).
pub fn same_commit(a: &ReportSummary, b: &ReportSummary) -> bool {
    match (a.commit.as_deref(), b.commit.as_deref()) {
        (Some(x), Some(y)) => names_commit(x, y),
        _ => false,
    }
}

/// The commits notes name as fixed or reverted: a line (trimmed) `Fixes: <id>`, `This reverts
/// commit <id>` or, in a posted fix's note (`reader::threads::fix_reply`), `Reverts commit <id>`,
/// the id of 8 to 40 hex digits; lowercase, each commit once (the first spelling of ids that agree
/// on their common prefix), in the notes' order.
pub fn named_commits(notes: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in notes.iter().flat_map(|n| n.lines()).map(str::trim) {
        let rest = ["Fixes:", "This reverts commit ", "Reverts commit "].iter().find_map(|tag| after_tag(line, tag));
        if let Some(id) = rest.and_then(commit_id).filter(|id| !out.iter().any(|o| names_commit(o, id))) {
            out.push(id);
        }
    }
    out
}

/// What follows `tag` at the start of `line` (the tag's case ignored), as a mail's trailer reads.
pub fn after_tag<'a>(line: &'a str, tag: &str) -> Option<&'a str> {
    let head = line.get(..tag.len())?;
    head.eq_ignore_ascii_case(tag).then(|| &line[tag.len()..])
}

/// The commit id a tag's value starts with: 8 to 40 hex digits, then its end, a space, `(` or `.`.
pub fn commit_id(rest: &str) -> Option<String> {
    let rest = rest.trim_start();
    let n = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
    let after = rest[n..].chars().next();
    ((8..=40).contains(&n) && after.is_none_or(|c| c == ' ' || c == '(' || c == '.'))
        .then(|| rest[..n].to_ascii_lowercase())
}

/// Whether a commit id names `commit` (ids compared on their common prefix, at least 7 digits).
pub fn names_commit(id: &str, commit: &str) -> bool {
    let n = id.len().min(commit.len());
    n >= 7 && id[..n].eq_ignore_ascii_case(&commit[..n])
}

/// Whether a report's stated change is a regression (`Some(true)`), an improvement, or unknown:
/// the mail's word.
pub fn is_regression(r: &ReportSummary) -> Option<bool> {
    match r.word.as_str() {
        "regression" => Some(true),
        "improvement" => Some(false),
        _ => None,
    }
}

/// What a record adds up to, `me` included.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Reports in the record, `me` included.
    pub reports: usize,
    /// Unix seconds of the earliest dated one.
    pub since: Option<i64>,
    pub regressions: usize,
    pub improvements: usize,
    /// Median |change| % of those with a change.
    pub median_abs: Option<f64>,
    /// Reports on `me`'s machine, `me` included.
    pub on_machine: usize,
    /// On `me`'s machine (3 reports or more), each change's sign is the other of the one before it.
    pub alternating: bool,
}

/// The summary of `me` and `others` (its record).
pub fn summary(me: &ReportSummary, others: &[&ReportSummary]) -> Summary {
    let all: Vec<&ReportSummary> = std::iter::once(me).chain(others.iter().copied()).collect();
    let mut abs: Vec<f64> = all.iter().filter_map(|r| r.change).map(f64::abs).collect();
    let mut here: Vec<&ReportSummary> =
        all.iter().copied().filter(|r| !me.machine.is_empty() && r.machine == me.machine).collect();
    here.sort_by_key(|r| r.time.unwrap_or(i64::MIN));
    let signs: Vec<bool> = here.iter().filter_map(|r| r.change).map(|c| c < 0.0).collect();
    Summary {
        reports: all.len(),
        since: all.iter().filter_map(|r| r.time).min(),
        regressions: all.iter().filter(|r| is_regression(r) == Some(true)).count(),
        improvements: all.iter().filter(|r| is_regression(r) == Some(false)).count(),
        median_abs: median(&mut abs),
        on_machine: here.len(),
        alternating: signs.len() >= 3 && signs.windows(2).all(|w| w[0] != w[1]),
    }
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// A sign of noise in a report's record, with what it rests on.
#[derive(Debug, Clone, PartialEq)]
pub enum Hint {
    /// On the same machine, within `FLIP_DAYS` of this report, these reports (ids, nearest first)
    /// stated a change of the other sign.
    Flips { machine: String, reports: Vec<String> },
    /// |this change| is at most the median |change| (`median_abs`) of the `earlier` reports
    /// before it (at least `SPREAD_MIN`).
    InsideSpread { change: f64, earlier: usize, median_abs: f64 },
}

/// The signs of noise the record `others` shows for `me` (none without a stated change).
pub fn hints(me: &ReportSummary, others: &[&ReportSummary]) -> Vec<Hint> {
    let Some(change) = me.change else { return Vec::new() };
    let mut out = Vec::new();
    if let (Some(t), false) = (me.time, me.machine.is_empty()) {
        let mut flips: Vec<(i64, &ReportSummary)> = others
            .iter()
            .filter(|r| r.machine == me.machine)
            .filter_map(|r| Some(((r.time? - t).abs(), *r, r.change?)))
            .filter(|(d, _, c)| *d < FLIP_DAYS * DAY && (*c < 0.0) != (change < 0.0) && *c != 0.0)
            .map(|(d, r, _)| (d, r))
            .collect();
        flips.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.id.cmp(&b.1.id)));
        if !flips.is_empty() && change != 0.0 {
            out.push(Hint::Flips {
                machine: me.machine.clone(),
                reports: flips.iter().map(|f| f.1.id.clone()).collect(),
            });
        }
    }
    if let Some(t) = me.time {
        let mut earlier: Vec<f64> =
            others.iter().filter(|r| r.time.is_some_and(|x| x < t)).filter_map(|r| r.change).map(f64::abs).collect();
        let n = earlier.len();
        if let Some(m) = median(&mut earlier).filter(|m| n >= SPREAD_MIN && change.abs() <= *m) {
            out.push(Hint::InsideSpread { change, earlier: n, median_abs: m });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commits_notes_name_as_fixed_or_reverted() {
        let cases: &[(&str, &[&str])] = &[
            ("2024-12-27 Jens Axboe: Fix posted: [PATCH] io_uring/rw\nFixes: f628c7e5a7c0\nCloses: this report", &["f628c7e5a7c0"]),
            ("Reverts commit 8CF0C459993E0123", &["8cf0c459993e0123"]),
            ("x: thanks\n  Fixes: 4591c3ef75 (\"btrfs: …\")\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.", &["4591c3ef75", "0123456789abcdef0123456789abcdef01234567"]),
            ("fixes: 4591c3ef75\nFixes: 4591c3ef75", &["4591c3ef75"]),
            ("Fixes: 1234567 (seven digits)\nFixes: 4591c3ef75x\nwe saw Fixes: 4591c3ef75 in the log\n> Fixes: deadbeef00", &[]),
            ("no tag here 4591c3ef75", &[]),
        ];
        for (note, want) in cases {
            assert_eq!(named_commits(&[note.to_string()]), want.to_vec(), "{note}");
        }
        let two = ["Fixes: aaaaaaaa11".to_string(), "Fixes: bbbbbbbb22\nFixes: aaaaaaaa11".to_string()];
        assert_eq!(named_commits(&two), ["aaaaaaaa11", "bbbbbbbb22"], "each once, in the notes' order");
        let spelled_twice = ["Fixes: 4591c3ef75\nThis reverts commit 4591C3EF75AA0123.".to_string()];
        assert_eq!(named_commits(&spelled_twice), ["4591c3ef75"], "one commit, however long its id");
        assert!(
            names_commit("4591c3ef75", "4591C3EF75AA")
                && !names_commit("4591c3", "4591c3ef")
                && !names_commit("4591c3ef75", "4591c3ef76")
        );
    }

    /// `(days, change, machine)` as a summary of testcase `t`, metric `m`.
    fn r(id: &str, day: i64, change: f64, machine: &str) -> ReportSummary {
        ReportSummary {
            id: id.into(),
            time: Some(1_600_000_000 + day * DAY),
            testcases: vec!["t".into()],
            metric: Some("t.m".into()),
            change: Some(change),
            word: if change < 0.0 { "regression" } else { "improvement" }.into(),
            machine: machine.into(),
            commit: Some(format!("{id:0<12}")),
            ..Default::default()
        }
    }

    /// Records with known answers: (what, me, others, the hints' kinds and reports).
    #[test]
    fn the_noise_rule_on_records_with_known_answers() {
        let cases: Vec<(&str, ReportSummary, Vec<ReportSummary>, Vec<Hint>)> = vec![
            ("no record, no hint", r("a", 100, -6.0, "m1"), vec![], vec![]),
            (
                "the other sign on this machine 30 days before: a flip",
                r("a", 100, -6.0, "m1"),
                vec![r("b", 70, 8.0, "m1"), r("c", 10, 9.0, "m1"), r("d", 95, 7.0, "m2")],
                vec![Hint::Flips { machine: "m1".into(), reports: vec!["b".into()] }],
            ),
            (
                "the same sign on this machine: no flip",
                r("a", 100, -6.0, "m1"),
                vec![r("b", 70, -8.0, "m1"), r("c", 120, -3.0, "m1")],
                vec![],
            ),
            (
                "a flip after it counts too, nearest first",
                r("a", 100, 6.0, "m1"),
                vec![r("b", 180, -8.0, "m1"), r("c", 120, -3.0, "m1")],
                vec![Hint::Flips { machine: "m1".into(), reports: vec!["c".into(), "b".into()] }],
            ),
            (
                "small against five earlier moves: inside the spread",
                r("a", 400, -5.0, "m9"),
                vec![
                    r("b", 10, -30.0, "m1"),
                    r("c", 20, 40.0, "m2"),
                    r("d", 30, -4.0, "m3"),
                    r("e", 40, 12.0, "m4"),
                    r("f", 50, -60.0, "m5"),
                    r("later", 500, 1.0, "m6"),
                ],
                vec![Hint::InsideSpread { change: -5.0, earlier: 5, median_abs: 30.0 }],
            ),
            (
                "larger than the earlier median: no spread hint",
                r("a", 400, -50.0, "m9"),
                vec![
                    r("b", 10, -3.0, "m1"),
                    r("c", 20, 4.0, "m2"),
                    r("d", 30, -4.0, "m3"),
                    r("e", 40, 2.0, "m4"),
                    r("f", 50, -6.0, "m5"),
                ],
                vec![],
            ),
            (
                "four earlier reports are too few",
                r("a", 400, -1.0, "m9"),
                vec![r("b", 10, -30.0, "m1"), r("c", 20, 40.0, "m2"), r("d", 30, -4.0, "m3"), r("e", 40, 12.0, "m4")],
                vec![],
            ),
        ];
        for (what, me, others, want) in cases {
            let refs: Vec<&ReportSummary> = others.iter().collect();
            assert_eq!(hints(&me, &refs), want, "{what}");
        }
    }

    #[test]
    fn a_summary_counts_directions_the_median_and_alternation_on_the_machine() {
        let me = r("a", 100, -6.0, "m1");
        let others = [r("b", 10, 8.0, "m1"), r("c", 50, -9.0, "m1"), r("d", 60, 30.0, "m2"), r("e", 99, 7.0, "m1")];
        let refs: Vec<&ReportSummary> = others.iter().collect();
        let s = summary(&me, &refs);
        assert_eq!((s.reports, s.regressions, s.improvements, s.on_machine), (5, 2, 3, 4));
        assert_eq!(s.median_abs, Some(8.0));
        assert_eq!(s.since, Some(1_600_000_000 + 10 * DAY));
        assert!(s.alternating, "+8, -9, +7, -6 in time order");
        let s = summary(&me, &refs[..2]);
        assert!(!s.alternating, "+8, -9, -6");
    }

    #[test]
    fn commits_match_on_their_common_prefix() {
        let mut a = r("a", 0, 1.0, "m");
        let mut b = r("b", 0, 1.0, "m");
        a.commit = Some("4591c3ef75".into());
        b.commit = Some("4591c3ef751234567890".into());
        assert!(same_commit(&a, &b));
        b.commit = Some("4591c3e".into());
        assert!(same_commit(&a, &b));
        b.commit = Some("4591c3".into());
        assert!(!same_commit(&a, &b), "6 digits are too few");
        b.commit = Some("4591c3ef76".into());
        assert!(!same_commit(&a, &b));
    }
}
