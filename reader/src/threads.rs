//! Replies in a thread: a human reply to a robot report adds no rows; its own text becomes a
//! note on the report it answers (found by In-Reply-To / References, or by the table it quotes).
//! A reply whose report is not there yet waits for it (the waiting notes persist in the dataset).

use crate::doc::Document;
use crate::mail::Message;
use crate::prefilter::{Named, Scan};
use model::WaitingNote;
use std::collections::HashMap;

/// The longest note kept from one reply (its start: what the maintainer said first).
const NOTE_MAX: usize = 2000;

/// A human reply to (maybe) a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Where it was read (`file`, `file#3` in an mbox, `epoch@commit`), for messages.
    pub source: String,
    /// Message-IDs it names, nearest first (In-Reply-To, then References from the last).
    pub refs: Vec<String>,
    /// `YYYY-MM-DD Name: own text`.
    pub note: String,
    /// It answers a report for sure (it quotes a table, or its subject is a report's): if the
    /// report is not found, the note waits for it.
    pub keep: bool,
    /// Keys of the table rows it quotes (see `row_keys`), to find its report without headers.
    pub rows: Vec<u64>,
}

/// What a decoded mail is in a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A table from the robot (also its `Re: [PATCH …]` answers), or in a mail that answers nothing.
    Report,
    /// A human answer: its text is a note, its (quoted or new) tables add no rows.
    Reply,
    Other,
}

/// The role of a mail from its first look and the rows its text gave: `own` rows from its own
/// (unquoted) tables, `quoted` ones from tables behind `>`. A human's own table answering a patch
/// (2013: the results Fengguang Wu and Huang Ying sent by hand) is a report; one answering a
/// robot report (its operator's follow-up), like any quoted copy, is a reply's.
pub fn role(scan: &Scan, own: bool, quoted: bool) -> Role {
    let answers = scan.re || !scan.refs.is_empty();
    let has_rows = own || quoted;
    if has_rows && (scan.robot || !answers) || own && !scan.report_subject {
        Role::Report
    } else if !scan.robot && (has_rows || answers) {
        Role::Reply
    } else {
        Role::Other
    }
}

/// The role of a parsed mail (see `role`); a table line it could not read counts as its own row,
/// so that a broken row never turns a report into a reply (and its error into silence).
pub fn role_of(scan: &Scan, parsed: &crate::report::Parsed) -> Role {
    role(scan, parsed.own_rows > 0 || !parsed.errors.is_empty(), parsed.quoted_rows > 0)
}

/// A reply as `attach` takes it.
pub fn reply(source: &str, scan: &Scan, msg: &Message, doc: &Document) -> Reply {
    let has_rows = doc.sections.iter().any(|s| !s.rows.is_empty());
    Reply {
        source: source.to_string(),
        refs: scan.refs.clone(),
        note: note_of(msg),
        keep: has_rows || scan.report_subject,
        rows: row_keys(doc),
    }
}

/// A patch read from a file: what it names, and its mail's headers (no body), for `fix_reply`
/// once every report is read.
#[derive(Debug, Clone)]
pub struct Patch {
    pub source: String,
    pub names: Vec<Named>,
    pub msg: Message,
}

/// The patch a mail is: a human's (not the robot's) that names a fix, a revert or a report.
pub fn patch(source: &str, scan: &Scan, msg: &Message) -> Option<Patch> {
    (!scan.robot && !scan.names.is_empty()).then(|| Patch {
        source: source.to_string(),
        names: scan.names.clone(),
        msg: Message { body: String::new(), attachments: Vec::new(), ..msg.clone() },
    })
}

/// A patch posted on the list that names reports (`targets`, Message-IDs): by a `Closes:` link,
/// or by fixing or reverting their head commit (`named`: what of it matched). Its note says so in
/// its first line (`2024-12-17 Jens Axboe: Fix posted: [PATCH] …`), then the tags and the patch's
/// lore URL. It waits for no report (`keep` false): a report it names is one already read.
pub fn fix_reply(source: &str, msg: &Message, named: &[Named], targets: Vec<String>) -> Reply {
    let word = if named.iter().any(|n| matches!(n, Named::Reverts(_))) { "Revert" } else { "Fix" };
    let mut subject = msg.subject.as_deref().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    cut_to(&mut subject, NAME_MAX * 2);
    let (date, name) = dated_sender(msg);
    let mut note = format!("{date}{name}: {word} posted: {subject}");
    for n in named {
        note.push('\n');
        note.push_str(&match n {
            Named::Fixes(c) => format!("Fixes: {c}"),
            Named::Reverts(c) => format!("Reverts commit {c}"),
            Named::Closes(_) => "Closes: this report".to_string(),
        });
    }
    if let Some(mid) = &msg.message_id {
        note.push_str(&format!("\nhttps://lore.kernel.org/all/{}/", crate::links::mid_escape(mid)));
    }
    Reply { source: source.to_string(), refs: targets, note, keep: false, rows: vec![] }
}

/// Reports a patch may name, by Message-ID and by head commit (its first 8 hex digits), with
/// their dates.
#[derive(Debug, Default)]
pub struct NamedReports {
    mids: HashMap<String, Option<i64>>,
    commits: HashMap<String, Vec<(String, String, Option<i64>)>>,
}

impl NamedReports {
    /// A report, by its Message-ID, head commit and date (unix seconds): `report_key`.
    pub fn add(&mut self, (mid, head, time): ReportKey) {
        if let Some(h) = head.map(|h| h.to_ascii_lowercase()).filter(|h| h.len() >= 8) {
            self.commits.entry(h[..8].to_string()).or_default().push((h, mid.clone(), time));
        }
        self.mids.insert(mid, time);
    }

    /// The reports `named` names, of those dated before the patch (`time`; either undated, any):
    /// the ones its `Closes:` names and the ones whose head commit it fixes or reverts (ids
    /// compared on their common prefix, at least 8 hex digits). A patch posted before a report
    /// is not what came of it, and an import in steps would not have had them together. Returns
    /// their Message-IDs, each once, and what of `named` matched, in its order.
    pub fn find(&self, named: &[Named], time: Option<i64>) -> (Vec<String>, Vec<Named>) {
        let before = |t: &Option<i64>| match (t, time) {
            (Some(r), Some(p)) => *r < p,
            _ => true,
        };
        let (mut mids, mut hit) = (Vec::new(), Vec::new());
        for n in named {
            let found: Vec<&String> = match n {
                Named::Closes(m) => {
                    self.mids.get_key_value(m).filter(|(_, t)| before(t)).map(|(m, _)| m).into_iter().collect()
                }
                Named::Fixes(c) | Named::Reverts(c) => {
                    let same = |h: &String| {
                        let k = h.len().min(c.len());
                        h[..k] == c[..k]
                    };
                    let near = c.get(..8).and_then(|p| self.commits.get(p)).map(Vec::as_slice).unwrap_or(&[]);
                    near.iter().filter(|(h, _, t)| same(h) && before(t)).map(|(_, m, _)| m).collect()
                }
            };
            if !found.is_empty() {
                hit.push(n.clone());
            }
            for m in found {
                if !mids.contains(m) {
                    mids.push(m.clone());
                }
            }
        }
        (mids, hit)
    }
}

/// A report as a patch may name it: Message-ID, head commit, date (unix seconds).
pub type ReportKey = (String, Option<String>, Option<i64>);

/// A report's Message-ID, head commit (its first table's, else the mail's `commit:`) and date,
/// as `NamedReports` takes them.
pub fn report_key(d: &Document) -> Option<ReportKey> {
    let head =
        d.sections.first().and_then(|s| s.commits.get(1).or(s.commits.first())).or(d.commits.first().map(|c| &c.id));
    Some((d.message_id.clone()?, head.cloned(), d.date.as_deref().and_then(model::date::parse_date)))
}

/// A patch's date (unix seconds).
pub fn patch_time(msg: &Message) -> Option<i64> {
    msg.date.as_deref().and_then(model::date::parse_date)
}

/// `YYYY-MM-DD ` of a mail's date (empty when it has none) and its sender's name.
fn dated_sender(msg: &Message) -> (String, String) {
    let date = msg.date.as_deref().and_then(model::date::parse_date).map(|t| {
        let (y, m, d) = model::date::civil_from_days(t.div_euclid(86_400));
        format!("{y:04}-{m:02}-{d:02} ")
    });
    (date.unwrap_or_default(), msg.from.as_deref().map(sender_name).unwrap_or_default())
}

/// The note of a reply: its date and sender, then its own (unquoted) text.
pub fn note_of(msg: &Message) -> String {
    let (date, name) = dated_sender(msg);
    format!("{date}{name}: {}", own_text(&msg.body))
}

/// The longest sender name kept in a note (a From header folded over many lines is no name).
const NAME_MAX: usize = 120;

/// The display name of a From value (`"A B" <a@b>` → `A B`), else its address; at most
/// `NAME_MAX` bytes.
fn sender_name(from: &str) -> String {
    let name = from.split('<').next().unwrap_or("").trim().trim_matches('"').trim();
    let name = if name.is_empty() { from.trim().trim_matches(|c| c == '<' || c == '>') } else { name };
    let mut name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    cut_to(&mut name, NAME_MAX);
    name
}

/// `s` cut to at most `max` bytes (at a character's boundary) and marked `…` when it was longer.
fn cut_to(s: &mut String, max: usize) {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
}

/// What the sender wrote: quoted lines, attributions ("On … wrote:") and the signature dropped,
/// blank runs collapsed, at most `NOTE_MAX` bytes.
pub fn own_text(body: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for line in body.lines() {
        let t = line.trim_end();
        if t == "--" || t == "-- " || line == "-- " {
            break;
        }
        let q = t.trim_start();
        if q.starts_with('>') || q.ends_with("wrote:") || q.ends_with("wrote :") {
            continue;
        }
        if q.is_empty() && out.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        out.push(if q.is_empty() { "" } else { t });
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    let mut s = out.join("\n");
    cut_to(&mut s, NOTE_MAX);
    s
}

/// Row identities for matching a quoted table to its report: metric and numbers (not commits,
/// which quotes abbreviate differently).
pub fn row_keys(d: &Document) -> Vec<u64> {
    use std::hash::Hash;
    let mut out = Vec::new();
    for s in &d.sections {
        for r in &s.rows {
            let mut h = model::paths::Fnv::new();
            r.metric.hash(&mut h);
            for v in r.values.iter().chain(&r.stddev_pct) {
                v.map(f64::to_bits).hash(&mut h);
            }
            out.push(h.finish());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The notes of the `replies` that surely answer a report (`Reply::keep`), left waiting for it,
/// sorted, each once.
pub fn waiting_notes(replies: Vec<Reply>) -> Vec<WaitingNote> {
    let mut waiting: Vec<WaitingNote> =
        replies.into_iter().filter(|r| r.keep).map(|r| WaitingNote { refs: r.refs, note: r.note }).collect();
    waiting.sort();
    waiting.dedup();
    waiting
}

/// Attach `replies` to `reports` (by Message-ID, else by the quoted rows); `lookup` brings a
/// report of the dataset by Message-ID (it is added to `reports`, to be published with its new
/// notes). Returns how many were attached and the replies not attached, in their order (those
/// with `Reply::keep` surely answer a report not found: their notes wait for it).
pub fn attach(
    reports: &mut Vec<Document>,
    replies: Vec<Reply>,
    lookup: &mut dyn FnMut(&str) -> Option<Document>,
) -> (usize, Vec<Reply>) {
    let mut by_mid: HashMap<String, usize> = HashMap::new();
    let mut by_row: HashMap<u64, usize> = HashMap::new();
    for (i, d) in reports.iter().enumerate() {
        index(&mut by_mid, &mut by_row, d, i);
    }
    let mut waiting = Vec::new();
    let mut attached = 0;
    for r in replies {
        let mut target = r.refs.iter().find_map(|m| by_mid.get(m).copied());
        if target.is_none() {
            target = r.refs.iter().find_map(|m| lookup(m)).map(|d| {
                reports.push(d);
                let i = reports.len() - 1;
                index(&mut by_mid, &mut by_row, &reports[i], i);
                i
            });
        }
        if target.is_none() && !r.rows.is_empty() {
            target = quoted_report(&by_row, &r.rows);
        }
        match target {
            Some(i) => {
                let notes = &mut reports[i].notes;
                if !notes.contains(&r.note) {
                    notes.push(r.note);
                    sort_notes(notes);
                }
                attached += 1;
            }
            None => waiting.push(r),
        }
    }
    (attached, waiting)
}

fn index(by_mid: &mut HashMap<String, usize>, by_row: &mut HashMap<u64, usize>, d: &Document, i: usize) {
    if let Some(m) = &d.message_id {
        by_mid.entry(m.clone()).or_insert(i);
    }
    for k in row_keys(d) {
        by_row.entry(k).or_insert(i);
    }
}

/// The report holding at least half of the quoted rows (and at least one).
fn quoted_report(by_row: &HashMap<u64, usize>, rows: &[u64]) -> Option<usize> {
    let mut votes: HashMap<usize, usize> = HashMap::new();
    for k in rows {
        if let Some(&i) = by_row.get(k) {
            *votes.entry(i).or_default() += 1;
        }
    }
    let (i, n) = votes.into_iter().max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)))?;
    (n * 2 >= rows.len()).then_some(i)
}

/// The report's own notes first (as found), then the replies' dated notes in date order: the
/// order does not depend on which import brought which reply.
pub fn sort_notes(notes: &mut [String]) {
    notes.sort_by(|a, b| match (dated(a), dated(b)) {
        (true, true) => a.cmp(b),
        (x, y) => x.cmp(&y),
    });
}

fn dated(n: &str) -> bool {
    let b = n.as_bytes();
    b.len() > 11 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-' && b[10] == b' '
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_names_the_reports_of_the_commit_it_fixes_or_reverts_or_the_report_it_closes() {
        let mut k = NamedReports::default();
        let day = |d: i64| Some(1_734_000_000 + d * 86_400);
        k.add(("r1@x".into(), Some("8cf0c459993ee2911f4f01fba21b1987b102c887".into()), day(10)));
        k.add(("r2@x".into(), Some("8CF0C45999".into()), day(20)));
        k.add(("r3@x".into(), Some("8cf0c4599f".into()), day(5)));
        k.add(("r4@x".into(), None, day(1)));
        let fixes = |c: &str| Named::Fixes(c.into());
        // (named, the patch's day) → reports named, and how many of `named` matched
        type Case<'a> = (Vec<Named>, Option<i64>, Vec<&'a str>, usize);
        let cases: Vec<Case> = vec![
            (vec![fixes("8cf0c459993e")], day(30), vec!["r1@x", "r2@x"], 1),
            (vec![Named::Reverts("8cf0c45999".into())], day(30), vec!["r1@x", "r2@x"], 1),
            (vec![fixes("8cf0c459993e")], day(15), vec!["r1@x"], 1),
            (vec![fixes("8cf0c459993e")], day(9), vec![], 0),
            (vec![fixes("8cf0c459993e")], None, vec!["r1@x", "r2@x"], 1),
            (vec![fixes("8cf0c4599f00")], day(30), vec!["r3@x"], 1),
            (vec![fixes("deadbeefdead"), Named::Closes("r4@x".into())], day(30), vec!["r4@x"], 1),
            (vec![Named::Closes("r4@x".into()), Named::Closes("nope@x".into())], day(0), vec![], 0),
        ];
        for (named, t, want, hits) in cases {
            let (got, hit) = k.find(&named, t);
            assert_eq!(
                (got.iter().map(String::as_str).collect::<Vec<_>>(), hit.len()),
                (want, hits),
                "{named:?} {t:?}"
            );
        }
    }

    #[test]
    fn own_text_drops_quotes_attribution_and_signature() {
        let body = "On Mon, 1 Jan 2024, kernel test robot wrote:\n> Hello,\n>\n>      123   +5.0%   129  fio.x\n\nThis is not a regression.\n\n\nIt is noise.\n\n-- \nJane\n";
        assert_eq!(own_text(body), "This is not a regression.\n\nIt is noise.");
    }

    /// Found by the `archive` fuzz target: a From header folded over the lines after it (table
    /// rows start with blanks) made a 10 KB sender name, and the note had no bound.
    #[test]
    fn a_note_is_bounded_whatever_its_from_header() {
        let rows = "  2704 ± 97%    +131.9%       6269 ± 26%  numa-meminfo.node0.PageTables\n".repeat(200);
        let mail = format!(
            "From: kernel test\n{rows}Subject: Re: x\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n{}",
            "words ".repeat(2000)
        );
        let msg = crate::mail::parse_message(mail.as_bytes());
        assert!(
            msg.from.as_deref().is_some_and(|f| f.len() > 10_000),
            "the header is folded: {:?}",
            msg.from.map(|f| f.len())
        );
        let note = note_of(&msg);
        assert!(note.len() <= 11 + NAME_MAX + 3 + 2 + NOTE_MAX + 3, "{}", note.len());
        assert!(note.starts_with("2024-01-01 kernel test 2704 ± 97% +131.9%"), "{}", &note[..60]);
        assert_eq!(sender_name("\"Jane  Doe\" <jane@example.org>"), "Jane Doe");
    }

    #[test]
    fn notes_sort_own_first_then_by_date() {
        let mut n = vec!["2025-01-02 B: later".to_string(), "own".to_string(), "2024-12-31 A: first".to_string()];
        sort_notes(&mut n);
        assert_eq!(n, ["own", "2024-12-31 A: first", "2025-01-02 B: later"]);
    }

    #[test]
    fn a_reply_finds_its_report_by_id_or_waits() {
        let report = Document { message_id: Some("r@x".into()), ..Default::default() };
        let mut reports = vec![report];
        let reply = |refs: &[&str], keep| Reply {
            source: "test".into(),
            refs: refs.iter().map(|s| s.to_string()).collect(),
            note: format!("2024-01-01 A: {refs:?}"),
            keep,
            rows: vec![],
        };
        let replies = vec![reply(&["z@x", "r@x"], false), reply(&["gone@x"], true), reply(&["other@x"], false)];
        let (n, left) = attach(&mut reports, replies, &mut |_| None);
        assert_eq!(n, 1);
        assert_eq!(reports[0].notes, [r#"2024-01-01 A: ["z@x", "r@x"]"#]);
        assert_eq!(left.iter().map(|r| r.refs[0].as_str()).collect::<Vec<_>>(), ["gone@x", "other@x"]);
        let waiting = waiting_notes(left);
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting[0].refs, ["gone@x"]);
    }
}
