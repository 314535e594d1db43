//! public-inbox v2 archives read with gix (never the `git` binary): an epoch is a git repository
//! whose first-parent history adds one mail per commit as the blob `m`; a list's archive is a
//! directory of epochs (`0.git`, `1.git`, …). Only commits newer than a remembered position are
//! read; a position that is no longer in the history means the history was rewritten.

use gix::ObjectId;
use model::ArchivePosition;
use std::path::{Path, PathBuf};

/// A git directory: bare (`HEAD` and `objects/`) or a work tree's `.git`.
fn git_dir(p: &Path) -> Option<PathBuf> {
    if p.join("HEAD").is_file() && p.join("objects").is_dir() {
        return Some(p.to_path_buf());
    }
    let dot = p.join(".git");
    (dot.join("HEAD").is_file() && dot.join("objects").is_dir()).then_some(dot)
}

/// The epochs of an archive at `p`, oldest first: `p` itself when it is a repository, else its
/// `N.git` children (or those of `p/git`, the layout of a public-inbox v2 inbox). `None`: not an archive.
pub fn epochs(p: &Path) -> Option<Vec<PathBuf>> {
    if git_dir(p).is_some() {
        return Some(vec![p.to_path_buf()]);
    }
    for dir in [p.to_path_buf(), p.join("git")] {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut found: Vec<(u64, PathBuf)> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter_map(|e| {
                let n = e.file_name()?.to_str()?.strip_suffix(".git")?.parse::<u64>().ok()?;
                git_dir(&e).map(|_| (n, e))
            })
            .collect();
        if !found.is_empty() {
            found.sort();
            return Some(found.into_iter().map(|(_, e)| e).collect());
        }
    }
    None
}

/// What the data calls an epoch (its reports' `source` is `NAME@commit`, its position in the
/// dataset's archive state is keyed by it): its path from its list's directory, `<list>/git/N.git`
/// for lore's layout (so two lists' `0.git` stay apart), else its own directory's name — never the
/// importing machine's directories, and the same whichever way the path was spelled.
pub fn epoch_name(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let own = name(&path).unwrap_or_else(|| "archive".into());
    match path.parent() {
        Some(git) if git.file_name().is_some_and(|n| n == "git") => match git.parent().and_then(name) {
            Some(list) => format!("{list}/git/{own}"),
            None => own,
        },
        _ => own,
    }
}

/// Bytes of decoded delta bases kept per epoch.
const PACK_CACHE: usize = 64 << 20;

/// One epoch, opened.
pub struct Epoch {
    /// The path as given (the archive's key in the dataset's state).
    pub name: String,
    repo: gix::Repository,
}

/// Which commits of an epoch to read.
pub struct Plan {
    /// The root commit, when the walk reached it (or the remembered one when it stopped there).
    pub first: Option<String>,
    /// Commits to read, oldest first.
    pub commits: Vec<ObjectId>,
    /// Why everything is read again although a position was remembered.
    pub reread: Option<String>,
    /// The walk could not go on past this commit (`commit: reason`): older commits are unknown.
    pub broken: Option<String>,
}

/// A mail of one commit, or why there is none.
pub enum Blob {
    Mail(Vec<u8>),
    /// The commit has no `m` (public-inbox records a removal as `d`).
    NoMail,
}

impl Epoch {
    pub fn open(path: &Path) -> Result<Epoch, String> {
        let dir = git_dir(path).ok_or_else(|| format!("{}: not a git repository", path.display()))?;
        let mut repo = gix::open_opts(&dir, gix::open::Options::isolated())
            .map_err(|e| format!("{}: cannot open the repository: {e}", path.display()))?;
        repo.object_cache_size(Some(4 << 20));
        // A delta-base cache: without one (gix sets it only with its `max-performance` feature)
        // every blob inflates its whole delta chain again, ~10x slower than `git cat-file`.
        repo.objects.set_pack_cache(|| Box::new(gix::odb::pack::cache::lru::StaticLinkedList::<64>::new(PACK_CACHE)));
        Ok(Epoch { name: epoch_name(path), repo })
    }

    /// Decoded delta bases are cached (else each blob re-inflates its whole delta chain).
    pub fn caches_delta_bases(&self) -> bool {
        self.repo.objects.has_pack_cache()
    }

    /// The commits after `since` along the first-parent history of `HEAD`, oldest first.
    pub fn plan(&self, since: Option<&ArchivePosition>) -> Result<Plan, String> {
        let tip = self.repo.head_id().map_err(|e| format!("{}: no HEAD commit: {e}", self.name))?.detach();
        let last = since.and_then(|s| ObjectId::from_hex(s.last.as_bytes()).ok());
        let mut commits = Vec::new();
        let mut at = Some(tip);
        let mut broken = None;
        let mut met = false;
        while let Some(id) = at {
            if Some(id) == last {
                met = true;
                break;
            }
            match self.repo.find_commit(id) {
                Ok(c) => {
                    commits.push(id);
                    at = c.parent_ids().next().map(|p| p.detach());
                }
                Err(e) => {
                    broken = Some(format!("commit {id}: cannot read: {e}"));
                    break;
                }
            }
        }
        commits.reverse();
        let first = if met {
            since.map(|s| s.first.clone())
        } else if broken.is_none() {
            commits.first().map(|c| c.to_string())
        } else {
            None
        };
        let reread = match since {
            Some(s) if !met && broken.is_none() => Some(if first.as_deref() != Some(s.first.as_str()) {
                format!(
                    "its first commit is now {} (was {}): another history",
                    first.as_deref().unwrap_or("none"),
                    s.first
                )
            } else {
                format!("the commit read last ({}) is no longer in its history: rewritten", s.last)
            }),
            _ => None,
        };
        Ok(Plan { first, commits, reread, broken })
    }

    /// The blob `m` of `commit`.
    pub fn mail(&self, commit: ObjectId) -> Result<Blob, String> {
        let c = self.repo.find_commit(commit).map_err(|e| format!("cannot read the commit: {e}"))?;
        let tree_id = c.tree_id().map_err(|e| format!("bad commit: {e}"))?;
        let tree = self.repo.find_tree(tree_id).map_err(|e| format!("cannot read its tree {tree_id}: {e}"))?;
        let Some(entry) = tree.find_entry("m") else { return Ok(Blob::NoMail) };
        let id = entry.object_id();
        let blob = self.repo.find_blob(id).map_err(|e| format!("cannot read its mail (blob {id}): {e}"))?;
        Ok(Blob::Mail(blob.detach().data))
    }
}
