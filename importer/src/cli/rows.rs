//! `lkpx rows PATH...`: every row of the inputs as one JSON object per line.

use anyhow::Result;
use importer::input;
use std::io::Write;
use std::path::PathBuf;

/// Print the rows of every input under `paths`; `Ok(true)` when some input failed.
pub fn run(paths: &[PathBuf]) -> Result<bool> {
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
