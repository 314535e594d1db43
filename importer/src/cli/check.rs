//! `lkpx check DIR`: is a published dataset whole?

use anyhow::Result;
use std::path::Path;
use std::time::Instant;

/// Check `dir`, printing every problem; `Ok(true)` when there is one.
pub fn run(dir: &Path) -> Result<bool> {
    let start = Instant::now();
    let c = importer::store::dataset::check(dir);
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
