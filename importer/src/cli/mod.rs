//! The `lkpx` command line: its arguments, one file per subcommand, and the only place that uses
//! `anyhow` (the library's errors are its own types, or lines naming the file).

mod changepoints;
mod check;
mod compare;
mod import;
mod reports;
mod rows;
mod synth;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

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

/// Run the command line and exit: 0 done, 2 when some input failed, 1 on a fatal error.
pub fn main() {
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
        Cmd::Rows { paths } => rows::run(&paths),
        Cmd::Import { out, into, commit_url, git_log, paths } => {
            import::run(&out, into.as_deref(), commit_url, git_log, &paths)
        }
        Cmd::Check { dir } => check::run(&dir),
        Cmd::Synth { size, out, result_roots, roots_out, seed, mails, from } => {
            synth::run(&size, &out, result_roots.zip(roots_out), seed, mails, from)
        }
        Cmd::Compare { base, head, more, gap, variance, regression_only } => {
            let opts = importer::lkp::compare::CompareOptions { more, gap, variance, regression_only };
            compare::run(&base, &head, &opts, &mut std::io::stdout().lock())?;
            Ok(false)
        }
        Cmd::Reports { dir } => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let n = reports::run(&dir, &mut out).map_err(anyhow::Error::msg)?;
            out.flush()?;
            eprintln!("lkpx reports: {n} reports in {}", dir.display());
            Ok(false)
        }
        Cmd::Changepoints { file } => {
            changepoints::run(file.as_deref(), &mut std::io::stdout().lock(), &mut std::io::stderr().lock())
        }
    }
}
