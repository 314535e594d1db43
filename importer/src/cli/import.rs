//! `lkpx import`: read the inputs (files, result roots, list archives), build and publish the
//! dataset, or add to a published one (`--into`).

use anyhow::{Context, Result};
use importer::store::held::{self, Held};
use importer::store::publish;
use importer::{build, input};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

pub fn run(
    out: &std::path::Path,
    into: Option<&std::path::Path>,
    commit_url: Option<String>,
    git_log: Option<PathBuf>,
    paths: &[PathBuf],
) -> Result<bool> {
    let start = Instant::now();
    let mut failed = false;
    let mut log = Vec::new();
    if let Some(p) = &git_log {
        let text = std::fs::read_to_string(p).with_context(|| format!("reading --git-log {}", p.display()))?;
        let (entries, bad) = build::gitlog::parse_git_log(&text);
        for (line, msg) in bad {
            eprintln!("error: {}:{line}: {msg}", p.display());
            failed = true;
        }
        log = entries;
    }
    if let Some(t) = &commit_url {
        reader::links::check_commit_url(t).map_err(|e| anyhow::anyhow!("--commit-url {t:?}: {e}"))?;
    }
    let weight = reader::direction::Directions::lkp_weight;
    let opts = build::options::Options { commit_url, git_log: log, weight: &weight };
    let mut read = read_inputs(paths, &opts);
    let mut stages = importer::timing::Stages::new(start);
    stages.mark("read + parse");
    failed |= read.errors > 0;
    let state = match read_archives(&read.archives, into)? {
        None => None,
        Some(a) => {
            failed |= a.failed;
            if into.is_some()
                && a.docs.is_empty()
                && read.held.is_empty()
                && read.replies.is_empty()
                && read.patches.is_empty()
                && a.unchanged
            {
                eprintln!("lkpx: nothing new in the archives; {} left as it is", into.unwrap_or(out).display());
                return Ok(failed);
            }
            read.held.extend(hold(&a.docs, &opts));
            Some(a.state)
        }
    };
    take_file_patches(&mut read, into);
    attach_file_replies(&mut read, into, &opts);
    let n_docs = read.held.len();
    let (written, root, dups, out) = match into {
        Some(dir) => {
            let docs = read.held.iter().map(Held::document).collect();
            let r = importer::store::incremental::add_with_state(dir, docs, &opts, state.as_ref())
                .map_err(anyhow::Error::msg)?;
            (r.written, r.root, r.duplicates, dir)
        }
        None => {
            let (w, root, dups) = import_full(read.held, &opts, state.as_ref(), out, &mut stages)
                .with_context(|| format!("writing {}", out.display()))?;
            (w, root, dups, out)
        }
    };
    for w in written.over_budget() {
        eprintln!("lkpx: warning: {w}: the page will be slow to open or to answer");
    }
    if into.is_some() && written.changed == 0 && written.removed == 0 {
        eprintln!(
            "lkpx: nothing new: {} already holds everything in the {} files read; it is left as it is (no file written) ({:.2}s)",
            out.display(),
            read.files + read.roots,
            start.elapsed().as_secs_f64()
        );
        return Ok(failed);
    }
    let t = &root.totals;
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "lkpx: {} result roots, {} files ({:.1} MB) read: {} reports ({} duplicates merged), {} skipped, {} errors; {} rows, {} jobs, {} series, {} points, {} testcases; wrote {} files ({:.1} MB, {} changed, {} kept, {} removed; index {} KB, largest file {} KB) to {} in {:.2}s ({:.1} MB/s)",
        read.roots,
        read.files,
        read.bytes as f64 / 1e6,
        n_docs - dups,
        dups,
        read.skipped,
        read.errors,
        t.rows,
        t.jobs,
        t.series,
        t.points,
        root.testcases.len(),
        written.files,
        written.bytes as f64 / 1e6,
        written.changed,
        written.reused,
        written.removed,
        written.index_bytes >> 10,
        written.largest.0 >> 10,
        out.display(),
        secs,
        read.bytes as f64 / 1e6 / secs.max(1e-9)
    );
    Ok(failed)
}

/// A full import of the reports held (`store::held`): duplicates merged, each report's page
/// written (it carries the report's document), each testcase built from its reports read back
/// and written as soon as it is built, then the reports list and the search index, then the
/// switch to the new root.
fn import_full(
    mut held: Vec<Held>,
    opts: &build::options::Options,
    state: Option<&model::ArchiveState>,
    out: &std::path::Path,
    stages: &mut importer::timing::Stages,
) -> std::io::Result<(publish::Written, model::Root, usize)> {
    use importer::store::{pack, pages};
    use rayon::prelude::*;
    use std::sync::Mutex;
    let publisher = publish::Publisher::new(out)?;
    let dups = held::dedup(&mut held, opts);
    // the rows' keys found the reports replies quote, and merged copies: done with
    held.iter_mut().for_each(|h| h.row_keys = Vec::new());
    held.sort_by_cached_key(|h| (h.time.unwrap_or(i64::MIN), h.source.clone()));
    let all = pack::newest_first(held.iter().map(|h| h.summary.clone()).collect());
    let peers = pages::Peers::of(&all);
    // each report's page, which carries its document: written, and the held bytes let go
    held.par_iter_mut().try_for_each(|h| {
        let page = pages::report_file(&h.report(), &all, &peers);
        publisher.write(&[page]).map(|()| h.written(out))
    })?;
    warn_dropped_reports(out, &held);
    stages.mark("duplicates merged, every report's page written");
    let terms = Mutex::new(Vec::new());
    let seen = |rd: &model::ReportDoc| {
        terms.lock().expect("not poisoned").push((rd.id.clone(), model::search::terms_of(rd)));
    };
    let entries =
        held::build_testcases(&held, opts, &seen, &|t| publisher.testcase(pack::testcase_files(t, publisher.known())));
    let (entries, trends) = publish::Built::apart(entries.into_iter().collect::<std::io::Result<Vec<_>>>()?);
    stages.mark("testcases built and written");
    let newest = all.first().and_then(|s| held.iter().find(|h| h.summary.id == s.id)).map(Held::report);
    let terms = pack::Terms::of_each(terms.into_inner().expect("not poisoned"));
    let lists = pack::Lists { newest: newest.as_ref(), reports: held.len(), terms, trends };
    let (mut files, mut root) = pack::list_files(entries, lists, &held::scripts(&held), all, &peers, publisher.known());
    drop(held);
    if let Some(s) = state {
        let (r, f) = importer::archive::with_state(root, s);
        root = r;
        files.files.push(f);
    }
    publisher.stored(files)?;
    stages.mark("the reports list and the search index written");
    let w = publisher.finish(&root, publish::Sweep::All)?;
    stages.mark("sync, switch the root, remove stale files");
    Ok((w, root, dups))
}

/// What reading the inputs gave.
struct Read {
    /// The reports read, held stored (`store::held`).
    held: Vec<Held>,
    /// Human replies found in the files, to attach as notes once every report is read.
    replies: Vec<reader::threads::Reply>,
    /// Patches found in the files (`Fixes:`, reverts, `Closes:`), likewise.
    patches: Vec<reader::threads::Patch>,
    bytes: usize,
    skipped: usize,
    errors: usize,
    roots: usize,
    files: usize,
    archives: Vec<PathBuf>,
}

/// Every document held (on all cores).
fn hold(docs: &[reader::doc::Document], opts: &build::options::Options) -> Vec<Held> {
    use rayon::prelude::*;
    docs.par_iter().map(|d| Held::of(d, opts)).collect()
}

/// Read every input (in parallel; each file's reports held as soon as it is read), printing
/// errors and skips in input order.
fn read_inputs(paths: &[PathBuf], opts: &build::options::Options) -> Read {
    use rayon::prelude::*;
    let inputs = input::collect(paths);
    for e in &inputs.errors {
        eprintln!("error: {e}");
    }
    let units: Vec<(bool, &PathBuf)> =
        inputs.result_roots.iter().map(|d| (true, d)).chain(inputs.files.iter().map(|f| (false, f))).collect();
    let progress = std::io::stderr().is_terminal().then(|| {
        let pb = indicatif::ProgressBar::new(units.len() as u64);
        pb.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len}").expect("valid template"));
        pb
    });
    let results: Vec<(reader::file::FileResult, Vec<Held>)> = units
        .par_iter()
        .map(|(is_root, f)| {
            let source = inputs.source_of(f);
            let mut r = if *is_root { input::read_result_root_as(f, &source) } else { input::read_file_as(f, &source) };
            let held = hold(&std::mem::take(&mut r.docs), opts);
            if let Some(pb) = &progress {
                pb.inc(1);
            }
            (r, held)
        })
        .collect();
    if let Some(pb) = progress {
        pb.finish_and_clear();
    }
    let mut read = Read {
        held: Vec::new(),
        replies: Vec::new(),
        patches: Vec::new(),
        bytes: 0,
        skipped: 0,
        errors: inputs.errors.len(),
        roots: inputs.result_roots.len(),
        files: inputs.files.len(),
        archives: inputs.archives.clone(),
    };
    for (r, held) in results {
        read.bytes += r.bytes;
        for e in &r.errors {
            eprintln!("error: {e}");
        }
        read.errors += r.errors.len();
        for n in &r.notes {
            eprintln!("note: {n}");
        }
        if let Some(why) = &r.skipped {
            read.skipped += 1;
            eprintln!("skipped: {}: {why}", r.path);
        }
        read.held.extend(held);
        read.replies.extend(r.replies);
        read.patches.extend(r.patches);
    }
    read
}

/// The files' patches that name a report (read now, or published in `into`) become replies to it
/// (`reader::threads::fix_reply`), attached with the others; say what became of the rest.
fn take_file_patches(read: &mut Read, into: Option<&std::path::Path>) {
    if read.patches.is_empty() {
        return;
    }
    let (known, err) = importer::archive::named_reports(into, read.held.iter().filter_map(|h| h.named.clone()));
    if let Some(e) = err {
        eprintln!("error: {e}");
    }
    let (n, mut taken) = (read.patches.len(), 0);
    for p in std::mem::take(&mut read.patches) {
        let (targets, named) = known.find(&p.names, reader::threads::patch_time(&p.msg));
        if targets.is_empty() {
            let why = if known.find(&p.names, None).0.is_empty() {
                "names no report among the inputs or the dataset"
            } else {
                "is dated before the reports it names: not what came of them"
            };
            eprintln!("note: {}: a patch that {why}", p.source);
            continue;
        }
        taken += 1;
        read.replies.push(reader::threads::fix_reply(&p.source, &p.msg, &named, targets));
    }
    eprintln!("lkpx: {n} patches in the files: {taken} name a report (their notes join its replies)");
}

/// Attach the files' replies to their reports (read now, or published in `into`), saying how
/// many and what became of the others. Only the reports a reply names or quotes are read back.
fn attach_file_replies(read: &mut Read, into: Option<&std::path::Path>, opts: &build::options::Options) {
    if read.replies.is_empty() {
        return;
    }
    let replies = std::mem::take(&mut read.replies);
    let n = replies.len();
    let mids: std::collections::HashSet<String> = replies.iter().flat_map(|r| r.refs.iter().cloned()).collect();
    let rows: std::collections::HashSet<u64> = replies.iter().flat_map(|r| r.rows.iter().copied()).collect();
    let named = |h: &Held| {
        h.message_id.as_ref().is_some_and(|m| mids.contains(m)) || h.row_keys.iter().any(|k| rows.contains(k))
    };
    let mut lookup = |mid: &str| into.and_then(|d| importer::archive::published_report(d, mid));
    let (attached, left) =
        held::revise(&mut read.held, named, opts, |docs| reader::file::attach_replies(docs, replies, &mut lookup));
    for why in &left {
        eprintln!("note: {why}");
    }
    eprintln!("lkpx: {n} replies in the files: {attached} attached as notes to their reports, {} not", n - attached);
}

/// What the archives gave.
struct FromArchives {
    docs: Vec<reader::doc::Document>,
    state: model::ArchiveState,
    /// The state is the one the dataset holds (nothing new was read).
    unchanged: bool,
    failed: bool,
}

/// Read the list archives among the inputs from the positions `--into`'s dataset remembers
/// (all of them for `--out`), printing errors, notices and what was read.
fn read_archives(archives: &[PathBuf], into: Option<&std::path::Path>) -> Result<Option<FromArchives>> {
    if archives.is_empty() {
        return Ok(None);
    }
    let start = Instant::now();
    let old = match into {
        Some(dir) => importer::archive::load_state(dir).map_err(anyhow::Error::msg)?,
        None => model::ArchiveState { schema: model::SCHEMA_VERSION, ..Default::default() },
    };
    let imp = importer::archive::read(archives, &old, into);
    for e in &imp.errors {
        eprintln!("error: {e}");
    }
    for n in &imp.notices {
        eprintln!("lkpx: note: {n}");
    }
    let c = &imp.counts;
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "lkpx: {} archive epoch(s): {} messages ({:.1} MB) read: {} skipped by the prefilter, {} decoded: {} reports, {} replies and {} patches that name a report attached as notes, {} waiting for their report, {} other; {:.2}s ({:.0} messages/s)",
        c.epochs,
        c.read,
        c.bytes as f64 / 1e6,
        c.skipped,
        c.decoded,
        c.reports,
        c.notes - c.fixes.min(c.notes),
        c.fixes,
        c.waiting,
        c.other,
        secs,
        c.read as f64 / secs.max(1e-9)
    );
    Ok(Some(FromArchives {
        unchanged: imp.state == old && c.read == 0,
        failed: !imp.errors.is_empty(),
        docs: imp.docs,
        state: imp.state,
    }))
}

/// An import rebuilds DIR from its inputs: say which reports of the previous data are not among
/// them, so nothing disappears unnoticed.
fn warn_dropped_reports(out: &std::path::Path, new: &[Held]) {
    let Ok(old) = importer::store::dataset::Published::open(out) else { return };
    let ids: std::collections::HashSet<&str> = new.iter().map(|h| h.summary.id.as_str()).collect();
    let gone: Vec<&str> =
        old.index.reports.iter().filter(|r| !ids.contains(r.id.as_str())).map(|r| r.source.as_str()).collect();
    if !gone.is_empty() {
        eprintln!(
            "lkpx: note: {} report(s) in {} are not among the inputs and are dropped (import rebuilds from its inputs; pass them again, or use --into to add): {}{}",
            gone.len(),
            out.display(),
            gone.iter().take(5).copied().collect::<Vec<_>>().join(", "),
            if gone.len() > 5 { ", ..." } else { "" }
        );
    }
}
