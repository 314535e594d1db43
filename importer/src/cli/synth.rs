//! `lkpx synth`: synthetic published data, result roots, or robot mails (all labelled synthetic).

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Write synthetic data of `size` to `out` (and `roots`: that many result roots to a directory),
/// or `mails` robot mails derived from the reports under `from`.
pub fn run(
    size: &str,
    out: &Path,
    roots: Option<(usize, PathBuf)>,
    seed: u64,
    mails: Option<usize>,
    from: Vec<PathBuf>,
) -> Result<bool> {
    let start = Instant::now();
    if let Some(n) = mails {
        let from = if from.is_empty() { vec![PathBuf::from("fixtures")] } else { from };
        let s = importer::synth::mails::run(n, &from, out, seed)
            .with_context(|| format!("lkpx synth --mails {n} --out {}", out.display()))?;
        eprintln!("lkpx synth: {s}; wrote {} in {:.1}s", out.display(), start.elapsed().as_secs_f64());
        return Ok(false);
    }
    let mut shape = importer::synth::Shape::named(size)
        .with_context(|| format!("unknown --size {size}: use small, medium, large or redraw"))?;
    shape.seed = seed;
    let (w, t) = importer::synth::write_published(shape, out)?;
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
    if let Some((n, dir)) = roots {
        let files = importer::synth::write_result_roots(n, &dir, seed)?;
        eprintln!("lkpx synth: {n} result roots ({files} files) in {}", dir.display());
    }
    Ok(false)
}
