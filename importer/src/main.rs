//! The `lkpx` command line: thin glue over the `importer` library.

/// mimalloc: the import allocates and frees millions of small strings and vectors; glibc's malloc took a
/// third of the build stage.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

mod cli;
use importer::store::publish;
use importer::{build, input};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "lkpx",
    version,
    about = "Import kernel test robot reports and lkp-tests result roots into LKP Explorer data",
    after_help = "Exit status: 0 on success, 2 when any input failed (the rest is still imported), 1 on a fatal error."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Import reports and result roots and write the explorer's data directory.
    Import {
        /// Output directory (the site's `data/`), rebuilt from the inputs.
        #[arg(long, default_value = "data", conflicts_with = "into")]
        out: PathBuf,
        /// Add the inputs to this existing dataset instead (only the testcases they touch are rebuilt;
        /// the result is the same as a full import of everything). Pass the same --git-log and --commit-url.
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// Commit URL template, `{sha}` replaced by the commit id (default: per tree, e.g. git.kernel.org cgit).
        #[arg(long, value_name = "TEMPLATE")]
        commit_url: Option<String>,
        /// Output of `git log --format='%H %ct %s'`: orders and dates commits exactly.
        #[arg(long, value_name = "FILE")]
        git_log: Option<PathBuf>,
        /// Report files (.txt, .eml, mbox, .gz), lkp-tests result roots, or directories holding them (recursed).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Which stats changed between two lkp commit matrices (lkp-tests' rule), as JSON Lines.
    Compare {
        /// Base: a commit-level matrix.json(.gz) or a commit result directory.
        base: PathBuf,
        /// Head: likewise.
        head: PathBuf,
        /// Also consider stats lkp reports only with --more (non-bisectable ones).
        #[arg(long)]
        more: bool,
        /// Gap factor of the range-separation test.
        #[arg(long)]
        gap: Option<f64>,
        /// Variance factor of the range-separation test.
        #[arg(long)]
        variance: Option<f64>,
        /// Only report regressions (for failure stats).
        #[arg(long)]
        regression_only: bool,
    },
    /// Write LKP-shaped synthetic data (clearly marked synthetic) for benchmarks and scale tests.
    Synth {
        /// small (10^4 points), medium (10^6), large (10^7 points, 10^5 series), redraw (20 series × 1,000 commits).
        #[arg(long, default_value = "small")]
        size: String,
        /// Output directory for the published data.
        #[arg(long)]
        out: PathBuf,
        /// Also write this many lkp-tests result roots (commit directories) under DIR.
        #[arg(long, value_name = "N")]
        result_roots: Option<usize>,
        /// Where to write the result roots.
        #[arg(long, value_name = "DIR", requires = "result_roots")]
        roots_out: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Instead: write N robot mails (`.eml`, marked synthetic) derived from the real reports of --from.
        #[arg(long, value_name = "N", conflicts_with_all = ["size", "result_roots"])]
        mails: Option<usize>,
        /// Real reports the mails are derived from (files or directories; default `fixtures`).
        #[arg(long, value_name = "DIR", requires = "mails")]
        from: Vec<PathBuf>,
    },
    /// Verify a published dataset: every file the root names exists, parses, and is of this build.
    Check {
        /// The data directory.
        dir: PathBuf,
    },
    /// Print every comparison-table row as read, one JSON object per line.
    Rows {
        /// Report files (.txt, .eml, mbox, .gz) or directories (recursed).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print the reports a published dataset holds, one JSON object per line, oldest first.
    Reports {
        /// The data directory.
        dir: PathBuf,
    },
    /// Detect steps along one series (lines `mean[,stddev_pct[,runs]]`) as the importer does; one JSON object per step.
    Changepoints {
        /// The series, one commit per line; `-` or nothing: standard input.
        file: Option<PathBuf>,
    },
}

fn main() {
    no_huge_pages();
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(failed) => i32::from(failed) * 2,
        Err(e) => {
            eprintln!("lkpx: error: {e:#}");
            1
        }
    };
    std::process::exit(code);
}

/// Transparent huge pages off for this process: the allocator's arenas would otherwise have
/// every fault zero 2 MB (a fifth of an `--into`'s time went there; with 4 KB pages it takes 1.1 s
/// less, measured in docs/benchmarks.md).
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process; no pointer is passed.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Run a command; `Ok(true)` when some input failed.
fn run(cli: Cli) -> Result<bool> {
    match cli.cmd {
        Cmd::Rows { paths } => rows(&paths),
        Cmd::Import { out, into, commit_url, git_log, paths } => {
            import(&out, into.as_deref(), commit_url, git_log, &paths)
        }
        Cmd::Check { dir } => {
            let start = Instant::now();
            let c = importer::store::dataset::check(&dir);
            for p in &c.problems {
                eprintln!("error: {}: {p}", dir.display());
            }
            if !c.strays.is_empty() {
                eprintln!(
                    "lkpx check: note: {} file(s) in {} that nothing names (left by an import killed before its switch, or by an older lkpx; the next full import removes them): {}{}",
                    c.strays.len(),
                    dir.display(),
                    c.strays.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
                    if c.strays.len() > 5 { ", …" } else { "" }
                );
            }
            eprintln!(
                "lkpx check: {} files checked in {}: {} in {:.2}s",
                c.files,
                dir.display(),
                if c.problems.is_empty() {
                    "the dataset is whole".to_string()
                } else {
                    format!("{} problem(s)", c.problems.len())
                },
                start.elapsed().as_secs_f64()
            );
            Ok(!c.problems.is_empty())
        }
        Cmd::Synth { size, out, result_roots, roots_out, seed, mails, from } => {
            let start = Instant::now();
            if let Some(n) = mails {
                let from = if from.is_empty() { vec![PathBuf::from("fixtures")] } else { from };
                let s = importer::synth::mails::run(n, &from, &out, seed)
                    .with_context(|| format!("lkpx synth --mails {n} --out {}", out.display()))?;
                eprintln!("lkpx synth: {s}; wrote {} in {:.1}s", out.display(), start.elapsed().as_secs_f64());
                return Ok(false);
            }
            let mut shape = importer::synth::Shape::named(&size)
                .with_context(|| format!("unknown --size {size}: use small, medium, large or redraw"))?;
            shape.seed = seed;
            let (w, t) = importer::synth::write_published(shape, &out)?;
            eprintln!(
                "lkpx synth {size}: {} jobs, {} series, {} points; wrote {} files ({:.1} MB) to {} in {:.1}s",
                t.jobs,
                t.series,
                t.points,
                w.files,
                w.bytes as f64 / 1e6,
                out.display(),
                start.elapsed().as_secs_f64()
            );
            if let (Some(n), Some(dir)) = (result_roots, roots_out) {
                let files = importer::synth::write_result_roots(n, &dir, seed)?;
                eprintln!("lkpx synth: {n} result roots ({files} files) in {}", dir.display());
            }
            Ok(false)
        }
        Cmd::Compare { base, head, more, gap, variance, regression_only } => {
            let opts = importer::lkp::compare::CompareOptions { more, gap, variance, regression_only };
            importer::lkp::compare::run_compare(&base, &head, &opts, &mut std::io::stdout().lock())?;
            Ok(false)
        }
        Cmd::Reports { dir } => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let n = cli::reports::run(&dir, &mut out).map_err(anyhow::Error::msg)?;
            out.flush()?;
            eprintln!("lkpx reports: {n} reports in {}", dir.display());
            Ok(false)
        }
        Cmd::Changepoints { file } => {
            cli::changepoints::run(file.as_deref(), &mut std::io::stdout().lock(), &mut std::io::stderr().lock())
        }
    }
}

fn rows(paths: &[PathBuf]) -> Result<bool> {
    let inputs = input::collect(paths);
    let mut failed = !inputs.errors.is_empty();
    for e in &inputs.errors {
        eprintln!("error: {e}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let results = inputs
        .result_roots
        .iter()
        .map(|d| input::read_result_root_as(d, &inputs.source_of(d)))
        .chain(inputs.files.iter().map(|f| input::read_file_as(f, &inputs.source_of(f))));
    for r in results {
        for e in &r.errors {
            eprintln!("error: {e}");
            failed = true;
        }
        for n in &r.notes {
            eprintln!("note: {n}");
        }
        if let Some(why) = &r.skipped {
            eprintln!("skipped: {}: {why}", r.path);
        }
        for reply in &r.replies {
            eprintln!("skipped: {}: a reply: its text is a note on its report, its quoted rows a copy", reply.source);
        }
        for d in &r.docs {
            for row in importer::rows::row_objects(d) {
                writeln!(out, "{row}")?;
            }
        }
    }
    out.flush()?;
    Ok(failed)
}

/// What reading the inputs gave.
struct Read {
    docs: Vec<reader::doc::Document>,
    /// Human replies found in the files, to attach as notes once every report is read.
    replies: Vec<reader::threads::Reply>,
    bytes: usize,
    skipped: usize,
    errors: usize,
    roots: usize,
    files: usize,
    archives: Vec<PathBuf>,
}

/// Read every input (in parallel), printing errors and skips in input order.
fn read_inputs(paths: &[PathBuf]) -> Read {
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
    let results: Vec<reader::file::FileResult> = units
        .par_iter()
        .map(|(is_root, f)| {
            let source = inputs.source_of(f);
            let r = if *is_root { input::read_result_root_as(f, &source) } else { input::read_file_as(f, &source) };
            if let Some(pb) = &progress {
                pb.inc(1);
            }
            r
        })
        .collect();
    if let Some(pb) = progress {
        pb.finish_and_clear();
    }
    let mut read = Read {
        docs: Vec::new(),
        replies: Vec::new(),
        bytes: 0,
        skipped: 0,
        errors: inputs.errors.len(),
        roots: inputs.result_roots.len(),
        files: inputs.files.len(),
        archives: inputs.archives.clone(),
    };
    for r in results {
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
        read.docs.extend(r.docs);
        read.replies.extend(r.replies);
    }
    read
}

/// Attach the files' replies to their reports (read now, or published in `into`), saying how
/// many and what became of the others.
fn attach_file_replies(read: &mut Read, into: Option<&std::path::Path>) {
    if read.replies.is_empty() {
        return;
    }
    let replies = std::mem::take(&mut read.replies);
    let n = replies.len();
    let mut lookup = |mid: &str| into.and_then(|d| importer::archive::published_report(d, mid));
    let (attached, left) = reader::file::attach_replies(&mut read.docs, replies, &mut lookup);
    for why in &left {
        eprintln!("note: {why}");
    }
    eprintln!("lkpx: {n} replies in the files: {attached} attached as notes to their reports, {} not", n - attached);
}

fn import(
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
        let (entries, bad) = build::parse_git_log(&text);
        for (line, msg) in bad {
            eprintln!("error: {}:{line}: {msg}", p.display());
            failed = true;
        }
        log = entries;
    }
    if let Some(t) = &commit_url {
        reader::links::check_commit_url(t).map_err(|e| anyhow::anyhow!("--commit-url {t:?}: {e}"))?;
    }
    let mut read = read_inputs(paths);
    let mut stages = importer::timing::Stages::new(start);
    stages.mark("read + parse");
    failed |= read.errors > 0;
    let state = match read_archives(&read.archives, into)? {
        None => None,
        Some(a) => {
            failed |= a.failed;
            if into.is_some() && a.docs.is_empty() && read.docs.is_empty() && read.replies.is_empty() && a.unchanged {
                eprintln!("lkpx: nothing new in the archives; {} left as it is", into.unwrap_or(out).display());
                return Ok(failed);
            }
            read.docs.extend(a.docs);
            Some(a.state)
        }
    };
    attach_file_replies(&mut read, into);
    let n_docs = read.docs.len();
    let weight = reader::direction::Directions::lkp_weight;
    let opts = build::Options { commit_url, git_log: log, weight: &weight };
    let (written, root, dups, out) = match into {
        Some(dir) => {
            let r = importer::store::incremental::add_with_state(dir, read.docs, &opts, state.as_ref())
                .map_err(anyhow::Error::msg)?;
            (r.written, r.root, r.duplicates, dir)
        }
        None => {
            let (w, root, dups) = import_full(read.docs, &opts, state.as_ref(), out, &mut stages)
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

/// A full import: each testcase's files written as soon as it is built, then the report
/// documents and the reports list, then the switch to the new root.
fn import_full(
    docs: Vec<reader::doc::Document>,
    opts: &build::Options,
    state: Option<&model::ArchiveState>,
    out: &std::path::Path,
    stages: &mut importer::timing::Stages,
) -> std::io::Result<(publish::Written, model::Root, usize)> {
    let publisher = publish::Publisher::new(out)?;
    let (entries, reports, scripts, dups) = build::build_each(docs, opts, &|t| {
        publisher.testcase(importer::store::pack::testcase_files(t, publisher.known()))
    });
    let entries = entries.into_iter().collect::<std::io::Result<Vec<_>>>()?;
    stages.mark("build, in all (the four build stages above)");
    warn_dropped_reports(out, &reports);
    {
        use rayon::prelude::*;
        reports.par_iter().try_for_each(|r| publisher.write(&[importer::store::pack::report_file(r)]))?;
    }
    let (mut files, mut root) = importer::store::pack::list_files(entries, &reports, &scripts);
    drop(reports);
    if let Some(s) = state {
        let (r, f) = importer::archive::with_state(root, s);
        root = r;
        files.push(f);
    }
    publisher.write(&files)?;
    drop(files);
    stages.mark("pack and write the report documents and the reports list");
    let w = publisher.finish(&root, publish::Sweep::All)?;
    stages.mark("sync, switch the root, remove stale files");
    Ok((w, root, dups))
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
        "lkpx: {} archive epoch(s): {} messages ({:.1} MB) read: {} skipped by the prefilter, {} decoded: {} reports, {} replies attached as notes, {} waiting for their report, {} other; {:.2}s ({:.0} messages/s)",
        c.epochs,
        c.read,
        c.bytes as f64 / 1e6,
        c.skipped,
        c.decoded,
        c.reports,
        c.notes,
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
fn warn_dropped_reports(out: &std::path::Path, new: &[model::ReportDoc]) {
    let Ok(old) = importer::store::dataset::Published::open(out) else { return };
    let ids: std::collections::HashSet<&str> = new.iter().map(|r| r.id.as_str()).collect();
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
