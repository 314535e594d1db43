//! Writing the published data: every file through a temporary file and a rename (never
//! half-written), unchanged files left alone, files of an earlier run that are no longer part
//! of the dataset removed, and the index written last so it never names a missing shard.

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

fn write_json<T: serde::Serialize>(
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
