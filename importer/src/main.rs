//! The `lkpx` command line: thin glue over the `importer` library.

use anyhow::Result;
use clap::{Parser, Subcommand};
use importer::input;
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "lkpx", version, about = "Import kernel test robot reports and lkp-tests result roots into LKP Explorer data")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print every comparison-table row as read, one JSON object per line.
    Rows {
        /// Report files (.txt, .eml, mbox, .gz) or directories (recursed).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Rows { paths } => {
            let (files, errs) = input::collect_files(&paths);
            let mut failed = !errs.is_empty();
            for e in errs {
                eprintln!("error: {e}");
            }
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            for f in files {
                let r = input::read_file(&f);
                for e in &r.errors {
                    eprintln!("error: {e}");
                    failed = true;
                }
                if let Some(why) = &r.skipped {
                    eprintln!("skipped: {}: {why}", r.path);
                }
                for d in &r.docs {
                    for row in importer::rows::row_objects(d) {
                        writeln!(out, "{row}")?;
                    }
                }
            }
            out.flush()?;
            if failed {
                std::process::exit(2);
            }
        }
    }
    Ok(())
}
