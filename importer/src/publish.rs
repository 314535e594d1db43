//! Writing the published data: every file through a temporary file and a rename (never
//! half-written), unchanged files left alone, files of an earlier run that are no longer part
//! of the dataset removed, and the index written last, so a page that opens after the run sees a
//! complete set. A page opened before it holds the old index: every file carries the generation of
//! its build, and the page refuses shards of another generation with a "reload" message.

use crate::build::Dataset;
use model::paths;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a publish did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Written {
    pub files: usize,
    pub bytes: u64,
    pub changed: usize,
    pub removed: usize,
    /// The largest file written other than the index: (bytes, path relative to the output).
    pub largest: (u64, String),
    pub index_bytes: u64,
}

/// Size budgets of the layout: the index is fetched before the first chart and every shard on
/// a click, so either growing past these makes the page slow to open or to answer.
pub const INDEX_BUDGET: u64 = 4 << 20;
pub const SHARD_BUDGET: u64 = 2 << 20;

impl Written {
    /// Warnings for files over their budget.
    pub fn over_budget(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.index_bytes > INDEX_BUDGET {
            out.push(format!("index.json is {} KB (budget {} KB)", self.index_bytes >> 10, INDEX_BUDGET >> 10));
        }
        if self.largest.0 > SHARD_BUDGET {
            out.push(format!(
                "{} is {} KB (shard budget {} KB)",
                self.largest.1,
                self.largest.0 >> 10,
                SHARD_BUDGET >> 10
            ));
        }
        out
    }
}

/// Write `data` under `out`.
pub fn publish(data: &Dataset, out: &Path) -> std::io::Result<Written> {
    std::fs::create_dir_all(out)?;
    let mut w = Written::default();
    let mut keep: BTreeSet<PathBuf> = BTreeSet::new();
    for s in &data.series {
        let rel = paths::series_shard(&s.testcase, &s.metric);
        write_json(out, &rel, s, &mut w, &mut keep)?;
    }
    for j in &data.jobs {
        let rel = paths::job_shard(&j.job);
        write_json(out, &rel, j, &mut w, &mut keep)?;
    }
    for c in &data.changes {
        write_json(out, &paths::changes(&c.testcase), c, &mut w, &mut keep)?;
    }
    for (hash, text) in &data.scripts {
        write_file(out, &paths::script(hash), text.as_bytes(), &mut w, &mut keep)?;
    }
    // remove what an earlier run wrote and this one did not
    for dir in ["s", "j", "c", "r"] {
        w.removed += remove_stale(&out.join(dir), &keep)?;
    }
    write_json(out, paths::INDEX, &data.index, &mut w, &mut keep)?;
    Ok(w)
}

/// `v` as JSON (plus a newline) through `write_file`.
pub fn write_json<T: serde::Serialize>(
    out: &Path,
    rel: &str,
    v: &T,
    w: &mut Written,
    keep: &mut BTreeSet<PathBuf>,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(v).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    write_file(out, rel, &bytes, w, keep)
}

/// Atomic write: temp file in the same directory, fsync, rename. Identical content is not rewritten.
pub fn write_file(
    out: &Path,
    rel: &str,
    bytes: &[u8],
    w: &mut Written,
    keep: &mut BTreeSet<PathBuf>,
) -> std::io::Result<()> {
    let path = out.join(rel);
    keep.insert(path.clone());
    w.files += 1;
    w.bytes += bytes.len() as u64;
    if rel == paths::INDEX {
        w.index_bytes = bytes.len() as u64;
    } else if bytes.len() as u64 > w.largest.0 {
        w.largest = (bytes.len() as u64, rel.to_string());
    }
    if std::fs::read(&path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    let dir = path.parent().expect("published paths have a directory");
    std::fs::create_dir_all(dir)?;
    let tmp =
        dir.join(format!(".{}.tmp-{}", path.file_name().and_then(|n| n.to_str()).unwrap_or("f"), std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, &path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    w.changed += 1;
    Ok(())
}

fn remove_stale(dir: &Path, keep: &BTreeSet<PathBuf>) -> std::io::Result<usize> {
    let mut removed = 0;
    let Ok(rd) = std::fs::read_dir(dir) else { return Ok(0) };
    for e in rd {
        let p = e?.path();
        if p.is_dir() {
            removed += remove_stale(&p, keep)?;
            if std::fs::read_dir(&p)?.next().is_none() {
                std::fs::remove_dir(&p)?;
            }
        } else if !keep.contains(&p) {
            std::fs::remove_file(&p)?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_warn_only_when_exceeded() {
        let mut w =
            Written { index_bytes: INDEX_BUDGET, largest: (SHARD_BUDGET, "s/x/y.json".into()), ..Default::default() };
        assert!(w.over_budget().is_empty());
        w.index_bytes += 1;
        w.largest.0 += 1;
        let warnings = w.over_budget();
        assert_eq!(warnings.len(), 2);
        assert!(warnings[1].starts_with("s/x/y.json is 2048 KB"), "{warnings:?}");
    }
}
