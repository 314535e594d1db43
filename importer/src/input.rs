//! Input discovery and reading: files and directories (recursed, in sorted order), list archives
//! and result roots under the arguments; each file's bytes are read by `reader::file` (gzip, mbox,
//! mail, plain report). Every file yields documents, a skip reason, or errors naming it.

use reader::file::{read_raw, FileResult};
use std::path::{Path, PathBuf};

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
            roots.extend(crate::lkp::resultroot::find_result_roots(p));
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
    match crate::lkp::resultroot::read_commit_dir(dir, &name) {
        Ok(doc) => res.docs.push(doc),
        Err(e) => res.errors.push(e.to_string()),
    }
    res
}

/// A public-inbox archive (an epoch, or a directory of epochs: read through git).
fn is_archive(p: &Path) -> bool {
    crate::archive::inbox::epochs(p).is_some()
}

/// The files under `p` (itself, when a file), in name order, hidden entries (`.name`) left out and
/// symlinks followed; a list archive is not walked into but taken whole.
fn walk(p: &Path, files: &mut Vec<PathBuf>, archives: &mut Vec<PathBuf>, errors: &mut Vec<String>) {
    let hidden = |depth: usize, path: Option<&Path>| {
        depth > 0 && path.and_then(Path::file_name).and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'))
    };
    let mut it = walkdir::WalkDir::new(p)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !hidden(e.depth(), Some(e.path())));
    while let Some(entry) = it.next() {
        match entry {
            Ok(e) if e.file_type().is_dir() && is_archive(e.path()) => {
                archives.push(e.into_path());
                it.skip_current_dir();
            }
            Ok(e) if e.file_type().is_dir() => {}
            Ok(e) => files.push(e.into_path()),
            // a hidden entry is never looked at, not even a broken link (an editor's `.#name` lock)
            Err(e) if hidden(e.depth(), e.path()) => {}
            Err(e) => errors.push(walk_error(&e, p)),
        }
    }
}

/// A walk's error as the import names it: the path (else the argument it was under), and what
/// failed there.
fn walk_error(e: &walkdir::Error, arg: &Path) -> String {
    let path = e.path().unwrap_or(arg);
    if let Some(ancestor) = e.loop_ancestor() {
        return format!("{}: a symlink back to {}: not followed", path.display(), ancestor.display());
    }
    let why = e.io_error().map_or_else(|| e.to_string(), ToString::to_string);
    if path.is_dir() {
        format!("{}: cannot read directory: {why}", path.display())
    } else {
        format!("{}: {why}", path.display())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_entries_are_never_looked_at_and_a_loop_is_named_once() {
        let d = std::env::temp_dir().join(format!("lkpx-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/a.eml"), "x").unwrap();
        std::fs::write(d.join(".hidden.eml"), "x").unwrap();
        std::os::unix::fs::symlink("/nonexistent/lock", d.join(".#a.eml")).unwrap();
        std::os::unix::fs::symlink("..", d.join("sub/up")).unwrap();
        let (files, errors) = collect_files(std::slice::from_ref(&d));
        assert_eq!(files, vec![d.join("sub/a.eml")]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with(&format!("{}: a symlink back to ", d.join("sub/up").display())), "{errors:?}");
        std::os::unix::fs::symlink("/nonexistent/x", d.join("broken.eml")).unwrap();
        let (_, errors) = collect_files(std::slice::from_ref(&d));
        assert!(errors.iter().any(|e| e.starts_with(&format!("{}: ", d.join("broken.eml").display()))), "{errors:?}");
        let _ = std::fs::remove_dir_all(&d);
    }

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
