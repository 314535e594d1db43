//! One file's bytes → what became of it: gzip undone, an mbox split into its messages (a thread:
//! reports and replies), one mail or plain report parsed; every problem names the file and line.

use crate::doc::Document;
use crate::report::{self, LineError};
use crate::threads::{self, role_of, Reply, Role};
use crate::{mail, prefilter};

/// What became of one input file.
#[derive(Debug)]
pub struct FileResult {
    pub path: String,
    pub bytes: usize,
    pub docs: Vec<Document>,
    /// Not a report (and why).
    pub skipped: Option<String>,
    /// Problems, each naming the file and line (`path:line: message`).
    pub errors: Vec<String>,
    /// Human replies to reports: the import attaches them as notes to their reports.
    pub replies: Vec<Reply>,
    /// What is worth saying but is no problem (`path: …`): a quoted copy's lines not read.
    pub notes: Vec<String>,
    /// Patches that name fixes, reverts or reports: notes on the reports they name, once every
    /// report is read (`threads::fix_reply`).
    pub patches: Vec<threads::Patch>,
}

impl FileResult {
    /// Nothing read yet from `path` (`bytes` long).
    pub fn new(path: String, bytes: usize) -> FileResult {
        FileResult {
            path,
            bytes,
            docs: vec![],
            skipped: None,
            errors: vec![],
            replies: vec![],
            notes: vec![],
            patches: vec![],
        }
    }
}

/// Parse the bytes of file `name` as read (gzip or not): what `lkpx import` does with a file.
pub fn read_raw(name: &str, raw: Vec<u8>, res: &mut FileResult) {
    res.bytes = raw.len();
    let bytes = match mail::gunzip_if_needed(raw) {
        Ok(b) => b,
        Err(e) => return res.errors.push(format!("{name}: bad gzip data: {e}")),
    };
    if bytes.iter().take(4096).filter(|&&b| b == 0).count() > 0 {
        res.skipped = Some("binary file".into());
        return;
    }
    read_bytes(name, &bytes, res);
}

/// Parse the (decompressed) bytes of `name`: one mail, or an mbox (a thread: see `read_mbox`).
pub fn read_bytes(name: &str, bytes: &[u8], res: &mut FileResult) {
    let messages = mail::split_mbox(bytes);
    if messages.len() > 1 {
        return read_mbox(name, &messages, res);
    }
    let msg = mail::parse_message(messages[0]);
    let parsed = report::parse(name, &msg);
    let scan = prefilter::scan(messages[0]);
    if threads::role_of(&scan, &parsed) == Role::Reply {
        // a human's answer: its quoted table is a copy, its text a note on the report
        return res.replies.push(threads::reply(name, &scan, &msg, &parsed.doc));
    }
    for LineError { line, message } in &parsed.errors {
        res.errors.push(format!("{name}:{line}: {message}"));
    }
    if parsed.quoted_unread > 0 {
        res.notes.push(quoted_unread_note(name, parsed.quoted_unread));
    }
    let rows: usize = parsed.doc.sections.iter().map(|s| s.rows.len()).sum();
    if rows == 0 {
        if let Some(p) = threads::patch(name, &scan, &msg).filter(|_| parsed.errors.is_empty()) {
            return res.patches.push(p);
        }
        if parsed.errors.is_empty() {
            let why = if parsed.doc.headlines.is_empty() {
                "no comparison table found"
            } else {
                "a headline but no comparison table"
            };
            res.skipped = Some(why.into());
        }
        return;
    }
    res.docs.push(parsed.doc);
}

/// The one note of a mail whose quoted tables have lines that are not rows.
pub fn quoted_unread_note(name: &str, lines: usize) -> String {
    format!("{name}: {lines} line(s) of a quoted table are not rows as lkp prints them (re-wrapped or re-spaced by a mail client): left out, as a quoted copy is never a row's source")
}

/// Attach the replies read from files to their reports: among `docs`, else the one `lookup` brings
/// by Message-ID (for `--into`, from the dataset: it joins `docs`, to be published again with its
/// new note).
/// Returns how many were attached and, for each reply left over, why (`path: …`): one that surely
/// answers a report (it quotes a table, or its subject is a report's) waits for a report found
/// nowhere; any other answers something else.
pub fn attach_replies(
    docs: &mut Vec<Document>,
    replies: Vec<Reply>,
    lookup: &mut dyn FnMut(&str) -> Option<Document>,
) -> (usize, Vec<String>) {
    let (attached, left) = threads::attach(docs, replies, lookup);
    let why = left
        .iter()
        .map(|r| {
            let to = r.refs.first().map_or(String::new(), |m| format!(" to <{m}>"));
            if r.keep {
                format!("{}: a reply{to}, whose report is neither among the inputs nor in the dataset: its note is left out (import it with its report)", r.source)
            } else {
                format!("{}: a reply{to} that quotes no table and answers no report among the inputs", r.source)
            }
        })
        .collect();
    (attached, why)
}

/// The messages of one mbox (a `b4 mbox` thread, lore's `t.mbox.gz`): its reports, and the
/// thread's replies, which the import attaches as notes to their reports (in this file or any other).
pub fn read_mbox(name: &str, messages: &[&[u8]], res: &mut FileResult) {
    for (k, m) in messages.iter().enumerate() {
        let scan = prefilter::scan(m);
        let source = format!("{name}#{}", k + 1);
        if !scan.candidate() && scan.refs.is_empty() {
            if !scan.robot && !scan.names.is_empty() {
                res.patches.extend(threads::patch(&source, &scan, &mail::parse_message(m)));
            }
            continue;
        }
        let msg = mail::parse_message(m);
        let parsed = report::parse(&source, &msg);
        match role_of(&scan, &parsed) {
            Role::Report => {
                for e in &parsed.errors {
                    res.errors.push(format!("{source}:{}: {}", e.line, e.message));
                }
                res.docs.push(parsed.doc);
            }
            Role::Reply => res.replies.push(threads::reply(&source, &scan, &msg, &parsed.doc)),
            Role::Other => res.patches.extend(threads::patch(&source, &scan, &msg)),
        }
    }
    if res.docs.is_empty() && res.replies.is_empty() && res.patches.is_empty() && res.errors.is_empty() {
        res.skipped = Some(format!("mbox of {} messages with no report", messages.len()));
    }
}
