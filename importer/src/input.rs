//! Input discovery and reading: files and directories (recursed, in sorted order), gzip, mbox,
//! mails and plain reports. Every file yields documents, a skip reason, or errors naming it.

use crate::doc::Document;
use crate::mail;
use crate::report::{self, LineError};
use crate::threads::{self, Reply, Role};
use std::path::{Path, PathBuf};

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
}

impl FileResult {
    /// Nothing read yet from `path` (`bytes` long).
    pub fn new(path: String, bytes: usize) -> FileResult {
        FileResult { path, bytes, docs: vec![], skipped: None, errors: vec![], replies: vec![], notes: vec![] }
    }
}

/// Every file under `paths` (directories recursed), sorted, deduplicated.
pub fn collect_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let (files, _, errors) = collect_files_and_archives(paths);
    (files, errors)
}

/// Every file under `paths`, and the list archives (public-inbox epochs, not walked into).
fn collect_files_and_archives(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut archives = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        walk(p, &mut files, &mut archives, &mut errors);
    }
    files.sort();
    files.dedup();
    archives.dedup();
    (files, archives, errors)
}

/// The inputs under `paths`: lkp-tests result roots (commit directories) and the other files
/// (reports), each sorted. Files inside a result root belong to it and are not read as reports.
pub struct Inputs {
    pub result_roots: Vec<PathBuf>,
    pub files: Vec<PathBuf>,
    /// public-inbox archives (an epoch, or a directory of epochs), in input order.
    pub archives: Vec<PathBuf>,
    pub errors: Vec<String>,
    /// The arguments the inputs were found under.
    pub args: Vec<PathBuf>,
}

impl Inputs {
    /// What the data calls an input found under the arguments: see `source_name`.
    pub fn source_of(&self, path: &Path) -> String {
        source_name(&self.args, path)
    }
}

/// The name the published data gives an input: its path relative to the argument it was found
/// under (the longest such argument), or its own name when it is an argument itself
/// (`0010.eml`, `linux-btrfs/0010.eml`), never the importing machine's directories.
pub fn source_name(args: &[PathBuf], path: &Path) -> String {
    let rel = args.iter().filter_map(|a| path.strip_prefix(a).ok()).min_by_key(|r| r.components().count());
    let rel = match rel {
        Some(r) if r.components().next().is_some() => r,
        _ => Path::new(path.file_name().unwrap_or(path.as_os_str())),
    };
    let parts: Vec<String> = rel
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

pub fn collect(paths: &[PathBuf]) -> Inputs {
    let mut roots = Vec::new();
    for p in paths {
        if p.is_dir() {
            roots.extend(crate::resultroot::find_result_roots(p));
        }
    }
    roots.sort();
    roots.dedup();
    let (files, archives, errors) = collect_files_and_archives(paths);
    let files = files.into_iter().filter(|f| !roots.iter().any(|r| f.starts_with(r))).collect();
    Inputs { result_roots: roots, files, archives, errors, args: paths.to_vec() }
}

/// Read one result root (a commit directory of lkp-tests results).
pub fn read_result_root(dir: &Path) -> FileResult {
    let name = dir.display().to_string();
    let mut res = FileResult::new(name.clone(), 0);
    match crate::resultroot::read_commit_dir(dir, &name) {
        Ok(doc) => res.docs.push(doc),
        Err(e) => res.errors.push(e.to_string()),
    }
    res
}

/// A public-inbox archive (read through git, natively only).
fn is_archive(p: &Path) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    return crate::inbox::epochs(p).is_some();
    #[cfg(target_arch = "wasm32")]
    {
        let _ = p;
        false
    }
}

fn walk(p: &Path, files: &mut Vec<PathBuf>, archives: &mut Vec<PathBuf>, errors: &mut Vec<String>) {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() && is_archive(p) => archives.push(p.to_path_buf()),
        Ok(m) if m.is_dir() => match std::fs::read_dir(p) {
            Ok(rd) => {
                let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
                entries.sort();
                for e in entries {
                    let hidden = e.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'));
                    if !hidden {
                        walk(&e, files, archives, errors);
                    }
                }
            }
            Err(e) => errors.push(format!("{}: cannot read directory: {e}", p.display())),
        },
        Ok(_) => files.push(p.to_path_buf()),
        Err(e) => errors.push(format!("{}: {e}", p.display())),
    }
}

/// Read one file into documents named `source` (see `source_name`); messages name its path.
pub fn read_file_as(path: &Path, source: &str) -> FileResult {
    let mut res = read_file(path);
    rename_sources(&mut res, source);
    res
}

/// Read one result root into its document named `source`; messages name its path.
pub fn read_result_root_as(dir: &Path, source: &str) -> FileResult {
    let mut res = read_result_root(dir);
    rename_sources(&mut res, source);
    res
}

/// The documents of `res` named after `source` instead of the path (`path#3` → `source#3`).
fn rename_sources(res: &mut FileResult, source: &str) {
    for d in &mut res.docs {
        if let Some(rest) = d.source.strip_prefix(res.path.as_str()) {
            d.source = format!("{source}{rest}");
        }
    }
}

/// Read one file into documents.
pub fn read_file(path: &Path) -> FileResult {
    let name = path.display().to_string();
    let mut res = FileResult::new(name.clone(), 0);
    let raw = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            res.errors.push(format!("{name}: cannot read: {e}"));
            return res;
        }
    };
    read_raw(&name, raw, &mut res);
    res
}

/// Parse the bytes of file `name` as read (gzip or not): what `read_file` does after reading.
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

/// Parse the (decompressed) bytes of `name`: one mail, or an mbox (a thread: see `threads::read_mbox`).
pub fn read_bytes(name: &str, bytes: &[u8], res: &mut FileResult) {
    let messages = mail::split_mbox(bytes);
    if messages.len() > 1 {
        return crate::threads::read_mbox(name, &messages, res);
    }
    let msg = mail::parse_message(messages[0]);
    let parsed = report::parse(name, &msg);
    let scan = crate::prefilter::scan(messages[0]);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_is_named_from_its_argument_never_from_the_machine() {
        let args = [PathBuf::from("/home/u/mail"), PathBuf::from("/home/u/mail/linux-btrfs"), PathBuf::from("x.eml")];
        let name = |p: &str| source_name(&args, Path::new(p));
        assert_eq!(name("/home/u/mail/linux-btrfs/0010.eml"), "0010.eml", "the nearest argument");
        assert_eq!(name("/home/u/mail/linux-pm/new/0010.eml"), "linux-pm/new/0010.eml");
        assert_eq!(name("x.eml"), "x.eml");
        assert_eq!(name("/home/u/mail"), "mail", "an argument itself: its own name");
        assert_eq!(source_name(&[PathBuf::from("./a/")], Path::new("./a/b/c.txt")), "b/c.txt");
    }
}
