//! How to build: commit links, the git log, metric directions; the build's own hasher.

use super::gitlog::GitLogEntry;

/// The hasher of the build's own maps (their order never reaches the output).
pub(crate) type FastHash = rustc_hash::FxBuildHasher;

/// How to build.
pub struct Options<'a> {
    /// Commit URL template with `{sha}` (overrides the per-tree default).
    pub commit_url: Option<String>,
    /// `git log --format='%H %ct %s'` lines: exact order and dates.
    pub git_log: Vec<GitLogEntry>,
    /// Direction weight of a metric: 1 higher-is-better, -1 lower-is-better, 0 unknown.
    pub weight: &'a (dyn Fn(&str) -> i8 + Sync),
}

impl Options<'_> {
    /// How the report documents are published: with these links and directions.
    pub fn doc(&self) -> reader::docfile::DocOptions<'_> {
        reader::docfile::DocOptions { commit_url: self.commit_url.as_deref(), weight: self.weight }
    }
}
