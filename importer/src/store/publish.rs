//! Writing the published data durably without an fsync per file. Every file but the root is
//! either named by a hash of its bytes (written once, never changed under its name) or a report
//! document replaced by rename; new files go in beside the old ones, one `syncfs` makes them
//! durable, and only then is `index.json` (the root, which names everything else) replaced by an
//! atomic rename. A run killed at any point leaves the previous root and every file it names in
//! place; files no root names any more are removed after the switch.

use crate::store::known::Known;
use crate::store::pack::File;
use model::{paths, Root};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a publish did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Written {
    pub files: usize,
    pub bytes: u64,
    pub changed: usize,
    /// Value files already there, kept: found under their fingerprint's name (`known`), not
    /// serialised again, or (`--into` from the published state) unchanged and not read.
    pub reused: usize,
    pub removed: usize,
    /// The largest file written other than the root: (bytes, path relative to the output).
    pub largest: (u64, String),
    pub index_bytes: u64,
}

/// Size budgets of the layout: the root is fetched before the first screen and a catalog or a
/// chunk on a click, so either growing past these makes the page slow to open or to answer.
pub const INDEX_BUDGET: u64 = 512 << 10;
pub const SHARD_BUDGET: u64 = 4 << 20;

impl Written {
    /// One more file of `len` bytes (`changed`: written, not found there).
    fn count(&mut self, rel: &str, len: u64, changed: bool) {
        self.files += 1;
        self.bytes += len;
        self.changed += usize::from(changed);
        // (the same largest file whatever order the threads write in)
        if (len, std::cmp::Reverse(rel)) > (self.largest.0, std::cmp::Reverse(self.largest.1.as_str())) {
            self.largest = (len, rel.to_string());
        }
    }

    /// Warnings for files over their budget.
    pub fn over_budget(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.index_bytes > INDEX_BUDGET {
            out.push(format!("index.json is {} KB (budget {} KB)", self.index_bytes >> 10, INDEX_BUDGET >> 10));
        }
        if self.largest.0 > SHARD_BUDGET {
            out.push(format!(
                "{} is {} KB (file budget {} KB)",
                self.largest.1,
                self.largest.0 >> 10,
                SHARD_BUDGET >> 10
            ));
        }
        out
    }
}

/// Which files a publish may remove after the switch.
pub enum Sweep<'a> {
    /// Everything under the published directories that this publish did not write (a full build).
    All,
    /// Only these (files of the testcases an incremental import rebuilt, no longer named).
    Only(&'a [String]),
}

/// Write `files` and then `root` under `out`.
pub fn publish(files: &[File], root: &Root, out: &Path, sweep: Sweep) -> std::io::Result<Written> {
    let p = Publisher::new(out)?;
    p.write(files)?;
    p.finish(root, sweep)
}

/// A publish in steps: files written as they are made (from any thread), then `finish` makes
/// them durable and switches the root. Until then the app and `lkpx check` see the old dataset.
pub struct Publisher {
    out: PathBuf,
    /// The value files already in `out` (`known`).
    known: Known,
    done: Mutex<Done>,
}

/// What the files written so far add up to.
#[derive(Default)]
struct Done {
    written: Written,
    keep: BTreeSet<PathBuf>,
}

/// A testcase written: its root entry and the trend its page shows (`pages::list_pages`).
pub struct Built {
    pub entry: model::TestcaseEntry,
    pub trend: Option<render::html::Html>,
}

impl Built {
    /// The root entries of `built`, and their pages' trends by testcase name.
    pub fn apart(built: Vec<Built>) -> (Vec<model::TestcaseEntry>, BTreeMap<String, render::html::Html>) {
        let mut trends = BTreeMap::new();
        let entries = built
            .into_iter()
            .map(|b| {
                if let Some(t) = b.trend {
                    trends.insert(b.entry.name.clone(), t);
                }
                b.entry
            })
            .collect();
        (entries, trends)
    }
}

impl Publisher {
    pub fn new(out: &Path) -> std::io::Result<Publisher> {
        std::fs::create_dir_all(out)?;
        Ok(Publisher { out: out.to_path_buf(), known: Known::at(out), done: Mutex::default() })
    }

    fn done(&self) -> std::sync::MutexGuard<'_, Done> {
        self.done.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A packed testcase: its new files written, the ones already there counted and kept. Returns
    /// its root entry and the trend its page shows (`Built`).
    pub fn testcase(&self, mut p: crate::store::pack::Packed) -> std::io::Result<Built> {
        let trend = p.trend.take();
        self.stored(std::mem::take(&mut p.stored))?;
        Ok(Built { entry: p.entry, trend })
    }

    /// Files written (`write`), and those already there counted and kept.
    pub fn stored(&self, s: crate::store::pack::Stored) -> std::io::Result<()> {
        self.write(&s.files)?;
        let mut d = self.done();
        for (rel, len) in s.kept {
            d.written.count(&rel, len, false);
            d.written.reused += 1;
            let path = self.out.join(&rel);
            d.keep.insert(path);
        }
        Ok(())
    }

    /// The value files already in the directory (`Known`), for `pack::testcase_files`.
    pub fn known(&self) -> &Known {
        &self.known
    }

    /// Write `files` beside the old ones (a file already there with these bytes is left alone), in
    /// parallel: a daily import rewrites hundreds of pages and chunks.
    pub fn write(&self, files: &[File]) -> std::io::Result<()> {
        use rayon::prelude::*;
        files.par_chunks(32).try_for_each(|part| self.write_part(part))
    }

    fn write_part(&self, files: &[File]) -> std::io::Result<()> {
        let mut dirs = BTreeSet::new();
        for (rel, bytes) in files {
            let path = self.out.join(rel);
            let changed = write_new(&path, bytes, is_hash_named(rel), &mut dirs)?;
            let mut d = self.done();
            d.written.count(rel, bytes.len() as u64, changed);
            d.keep.insert(path);
        }
        Ok(())
    }

    /// One `syncfs`, the root replaced atomically, then what `sweep` allows removed.
    pub fn finish(self, root: &Root, sweep: Sweep) -> std::io::Result<Written> {
        let out = self.out;
        let Done { mut written, mut keep } = self.done.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        sync_dir(&out)?;
        let bytes = crate::store::pack::json(root);
        written.index_bytes = bytes.len() as u64;
        written.files += 1;
        written.bytes += bytes.len() as u64;
        // the same root is left alone (its mtime too: caches and rsync see no change)
        if std::fs::read(out.join(paths::INDEX)).ok().as_deref() != Some(&bytes[..]) {
            replace_root(&out, &bytes)?;
            written.changed += 1;
        }
        keep.insert(out.join(paths::INDEX));
        keep.insert(out.join(paths::FIRST_PAGE));
        written.removed = match sweep {
            Sweep::All => {
                paths::DIRS.iter().map(|d| remove_stale(&out.join(d), &keep)).sum::<std::io::Result<usize>>()?
            }
            Sweep::Only(rels) => {
                let mut n = 0;
                for rel in rels.iter().filter(|r| !keep.contains(&out.join(r))) {
                    if std::fs::remove_file(out.join(rel)).is_ok() {
                        n += 1;
                        remove_emptied(&out, rel);
                    }
                }
                n
            }
        };
        Ok(written)
    }
}

/// Files named by their content hash: the same name means the same bytes. Report documents and
/// the static pages have stable names.
fn is_hash_named(rel: &str) -> bool {
    !(rel.starts_with("d/") || rel.starts_with("m/") || rel.starts_with("p/") || rel == paths::FIRST_PAGE)
}

/// Write `bytes` at `path` through a temporary file and a rename, unless the file is already
/// there (hash-named) or already holds these bytes. No fsync: `sync_dir` makes the lot durable.
fn write_new(path: &Path, bytes: &[u8], hash_named: bool, dirs: &mut BTreeSet<PathBuf>) -> std::io::Result<bool> {
    let same = if hash_named {
        std::fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64)
    } else {
        std::fs::read(path).is_ok_and(|old| old == bytes)
    };
    if same {
        return Ok(false);
    }
    let dir = path.parent().expect("published paths have a directory");
    if dirs.insert(dir.to_path_buf()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = tmp_name(path);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(true)
}

fn tmp_name(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("f");
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Flush everything written to the filesystem holding `dir` (one `syncfs`, not one fsync per file).
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let f = std::fs::File::open(dir)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs takes any open file descriptor and only flushes; `f` outlives the call.
        if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    f.sync_all()?;
    Ok(())
}

/// The switch: the root through a synced temporary file, renamed over the old one, directory synced.
fn replace_root(out: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = out.join(paths::INDEX);
    let tmp = tmp_name(&path);
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, &path)?;
    std::fs::File::open(out)?.sync_all()
}

/// Remove the folders of `rel` under `out` that its removal left empty (a full import has none).
fn remove_emptied(out: &Path, rel: &str) {
    let mut dir = Path::new(rel).parent();
    // remove_dir fails on a folder that still holds something: there the climb stops
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if std::fs::remove_dir(out.join(d)).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Remove the files under `dir` that `keep` does not name, and the directories left empty; how many
/// files went.
fn remove_stale(dir: &Path, keep: &BTreeSet<PathBuf>) -> std::io::Result<usize> {
    if std::fs::read_dir(dir).is_err() {
        return Ok(0);
    }
    let mut removed = 0;
    // a directory after its contents: emptied, it goes too
    // symlinks followed, as published directories may be links to another disk
    for e in walkdir::WalkDir::new(dir).min_depth(1).contents_first(true).follow_links(true) {
        let e = e?;
        let p = e.path();
        if e.file_type().is_dir() {
            if std::fs::read_dir(p)?.next().is_none() {
                std::fs::remove_dir(p)?;
            }
        } else if !keep.contains(p) {
            std::fs::remove_file(p)?;
            removed += 1;
        }
    }
    // emptied, the folder itself goes (`d/`, no longer written since schema 13), unless it is a link
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) && std::fs::read_dir(dir)?.next().is_none() {
        std::fs::remove_dir(dir)?;
    }
    Ok(removed)
}

/// `v` as JSON (plus a newline) written atomically at `out/rel` (synthetic data, tests).
pub fn write_json<T: serde::Serialize>(out: &Path, rel: &str, v: &T) -> std::io::Result<()> {
    write_new(&out.join(rel), &crate::store::pack::json(v), false, &mut BTreeSet::new()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_sweep_follows_a_linked_directory_and_keeps_what_is_named() {
        let d = std::env::temp_dir().join(format!("lkpx-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        for sub in ["out/s", "elsewhere/t", "out/j/empty"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        std::os::unix::fs::symlink(d.join("elsewhere/t"), d.join("out/t")).unwrap();
        for f in ["out/s/keep.json", "out/s/old.json", "elsewhere/t/keep.json", "elsewhere/t/old.json"] {
            std::fs::write(d.join(f), "{}").unwrap();
        }
        let keep: BTreeSet<PathBuf> = [d.join("out/s/keep.json"), d.join("out/t/keep.json")].into();
        assert_eq!(remove_stale(&d.join("out"), &keep).unwrap(), 2);
        assert!(d.join("elsewhere/t/keep.json").is_file(), "a kept file behind a link stays");
        assert!(!d.join("elsewhere/t/old.json").exists() && !d.join("out/s/old.json").exists());
        assert!(d.join("out/t").is_dir() && !d.join("out/j").exists(), "the link stays, an emptied directory goes");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn budgets_warn_only_when_exceeded() {
        let mut w =
            Written { index_bytes: INDEX_BUDGET, largest: (SHARD_BUDGET, "s/x/y.json".into()), ..Default::default() };
        assert!(w.over_budget().is_empty());
        w.index_bytes += 1;
        w.largest.0 += 1;
        let warnings = w.over_budget();
        assert_eq!(warnings.len(), 2);
        assert!(warnings[1].starts_with("s/x/y.json is 4096 KB"), "{warnings:?}");
    }

    #[test]
    fn stale_files_are_removed_and_kept_ones_stay() {
        let dir = std::env::temp_dir().join(format!("lkpx-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files: Vec<File> = vec![("s/a/1.json".into(), b"one\n".to_vec()), ("d/x.json".into(), b"x\n".to_vec())];
        let root = Root { schema: model::SCHEMA_VERSION, ..Default::default() };
        std::fs::create_dir_all(dir.join("s/old")).unwrap();
        std::fs::write(dir.join("s/old/2.json"), "old").unwrap();
        std::fs::write(dir.join("s/a/.1.json.tmp-1"), "half").ok();
        let w = publish(&files, &root, &dir, Sweep::All).unwrap();
        assert_eq!(w.removed, 1);
        assert!(!dir.join("s/old").exists(), "an emptied directory goes too");
        assert_eq!(std::fs::read(dir.join("s/a/1.json")).unwrap(), b"one\n");
        assert!(dir.join("index.json").exists());
        // a second publish of the same files changes nothing
        let w = publish(&files, &root, &dir, Sweep::All).unwrap();
        assert_eq!((w.changed, w.removed), (0, 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Files written from several threads in any order add up to what one publish of them says,
    /// the largest of equal sizes included, and nothing is visible before the switch.
    #[test]
    fn files_written_from_threads_publish_as_one() {
        let base = std::env::temp_dir().join(format!("lkpx-threads-{}", std::process::id()));
        let files: Vec<File> = (0..64)
            .map(|i| (format!("s/t{}/{i:02}.json", i % 3), vec![b'x'; if i % 5 == 0 { 70 } else { i }]))
            .collect();
        let root = Root { schema: model::SCHEMA_VERSION, ..Default::default() };
        let serial = publish(&files, &root, &base.join("serial"), Sweep::All).unwrap();
        let out = base.join("threads");
        let p = Publisher::new(&out).unwrap();
        std::thread::scope(|s| {
            for part in files.rchunks(5) {
                let p = &p;
                s.spawn(move || p.write(part).unwrap());
            }
        });
        assert!(!out.join("index.json").exists(), "no root before finish");
        let threads = p.finish(&root, Sweep::All).unwrap();
        assert_eq!(threads, serial);
        assert_eq!(threads.largest, (70, "s/t0/00.json".into()));
        for (rel, bytes) in &files {
            assert_eq!(&std::fs::read(out.join(rel)).unwrap(), bytes, "{rel}");
        }
        std::fs::remove_dir_all(&base).unwrap();
    }
}
