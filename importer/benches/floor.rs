//! What a one-core import cannot go below with this layout, whatever the build does:
//! `cargo bench -p importer --bench floor -- MAILS DATASET SCRATCH`, where DATASET is
//! `lkpx import --out DATASET MAILS` and SCRATCH a directory to write into (made, then removed).
//!
//! On one core it times, each alone: parsing the mails (`reader::file::read_bytes`, as an import reads
//! them, files already in memory), naming the value files (`known::print` of every job file,
//! trend chunk and changes page), serialising the dataset's value files and report documents
//! (`serde_json::to_vec` of the values the import made, parsed back from DATASET) and writing
//! those bytes as files. Their sum is a floor for the wall time of `lkpx import --out`, and the
//! mails' bytes over it a ceiling for its throughput.

use std::path::{Path, PathBuf};
use std::time::Instant;

use importer::input;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file of `dir` that parses as a `T` (a catalog's rest shares `t/` with nothing here).
fn values<T: DeserializeOwned>(dir: &Path) -> Vec<T> {
    files_under(dir).iter().filter_map(|p| serde_json::from_slice(&std::fs::read(p).ok()?).ok()).collect()
}

fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

/// `vs` serialised onto `out`: the time it took and the MB it made.
fn serialise<T: Serialize>(vs: &[T], out: &mut Vec<Vec<u8>>) -> (f64, f64) {
    let from = out.len();
    let (_, t) = timed(|| out.extend(vs.iter().map(|v| serde_json::to_vec(v).expect("published shapes serialise"))));
    (t, out[from..].iter().map(Vec::len).sum::<usize>() as f64 / 1e6)
}

fn print_all<T: Serialize>(vs: &[T]) -> usize {
    vs.iter().map(|v| importer::store::known::print(v).len()).sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [mails, dataset, scratch] = &args[..] else {
        eprintln!("usage: cargo bench -p importer --bench floor -- MAILS DATASET SCRATCH");
        std::process::exit(2);
    };
    let (mails, dataset, scratch) = (Path::new(mails), Path::new(dataset), Path::new(scratch));
    let (files, _) = input::collect_files(&[mails.to_path_buf()]);
    let blobs: Vec<(String, Vec<u8>)> =
        files.iter().map(|f| (f.display().to_string(), std::fs::read(f).expect("readable mail"))).collect();
    let mb = blobs.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6;
    let (docs, parse) = timed(|| {
        let mut n = 0;
        for (name, bytes) in &blobs {
            let mut res = reader::file::FileResult::new(name.clone(), bytes.len());
            reader::file::read_bytes(name, bytes, &mut res);
            n += res.docs.len();
        }
        n
    });
    let jobs: Vec<model::JobShard> = values(&dataset.join("j"));
    let chunks: Vec<model::TrendChunk> = values(&dataset.join("s"));
    let pages: Vec<model::ChangesShard> = values(&dataset.join("c"));
    let reports: Vec<model::ReportDoc> = values(&dataset.join("d"));
    let (_, print) = timed(|| print_all(&jobs) + print_all(&chunks) + print_all(&pages));
    // each kind alone too: which copies of the rows cost what
    let mut bytes = Vec::new();
    let kinds = [
        ("job files", serialise(&jobs, &mut bytes)),
        ("trend chunks", serialise(&chunks, &mut bytes)),
        ("changes pages", serialise(&pages, &mut bytes)),
        ("report documents", serialise(&reports, &mut bytes)),
    ];
    let ser: f64 = kinds.iter().map(|(_, (t, _))| t).sum();
    let out_mb = bytes.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    let dir = scratch.join("floor-write");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let (_, write) = timed(|| {
        for (i, b) in bytes.iter().enumerate() {
            std::fs::write(dir.join(format!("{i}.json")), b).expect("scratch file written");
        }
    });
    std::fs::remove_dir_all(&dir).expect("scratch directory removed");
    let floor = parse + print + ser + write;
    println!("mails: {} files, {mb:.1} MB, {docs} reports", blobs.len());
    println!(
        "dataset: {} job files, {} trend chunks, {} changes pages, {} report documents: {out_mb:.1} MB of JSON",
        jobs.len(),
        chunks.len(),
        pages.len(),
        reports.len()
    );
    println!("| step, alone | time | mails' MB/s |");
    println!("|---|---:|---:|");
    for (step, s) in [
        ("parse the mails (in memory)", parse),
        ("name the value files (fingerprints)", print),
        ("serialise the value files and report documents", ser),
        ("write those bytes as files", write),
        ("floor: the sum", floor),
    ] {
        println!("| {step} | {:.3} s | {:.1} |", s, mb / s);
    }
    for (kind, (t, kmb)) in kinds {
        println!("serialise the {kind}: {kmb:.1} MB in {t:.3} s");
    }
}
