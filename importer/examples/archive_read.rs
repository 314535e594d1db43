//! Where the time of reading a list archive goes, on one epoch: reading every mail's blob with
//! gix (oldest first, as `lkpx import` does), then the prefilter alone over the same bytes held in
//! memory. `scripts/bench-archive.sh` times the whole command; this splits it.
//!
//! `cargo run --release -p importer --example archive_read -- EPOCH.git`

use importer::inbox::{Blob, Epoch};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), String> {
    let path = PathBuf::from(std::env::args().nth(1).ok_or("usage: archive_read EPOCH.git")?);
    let ep = Epoch::open(&path)?;
    let start = Instant::now();
    let plan = ep.plan(None)?;
    let mut mails = Vec::with_capacity(plan.commits.len());
    for &c in &plan.commits {
        if let Blob::Mail(m) = ep.mail(c)? {
            mails.push(m);
        }
    }
    let read = start.elapsed().as_secs_f64();
    let bytes: usize = mails.iter().map(Vec::len).sum();
    let mb = bytes as f64 / 1e6;
    let start = Instant::now();
    let mut candidates = 0usize;
    for m in &mails {
        candidates += usize::from(importer::prefilter::scan(m).candidate());
    }
    let scan = start.elapsed().as_secs_f64();
    println!(
        "{} mails, {mb:.1} MB: blobs read (gix, oldest first) in {read:.2}s = {:.0} MB/s; \
         prefilter alone in {scan:.3}s = {:.0} MB/s ({candidates} candidates to decode)",
        mails.len(),
        mb / read,
        mb / scan
    );
    Ok(())
}
