//! Import throughput on the real reports: `cargo bench -p importer --bench throughput`.
//! Prints MB/s of mail text for parsing alone and for parsing + building the dataset, on one core.

use importer::{build, input};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let (files, _) = input::collect_files(&[root.join("fixtures/seeds"), root.join("fixtures/corpus")]);
    let blobs: Vec<(String, Vec<u8>)> =
        files.iter().map(|f| (f.display().to_string(), std::fs::read(f).expect("readable fixture"))).collect();
    let mb = blobs.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6;
    let rounds = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(20);
    let parse_all = || {
        let mut docs = Vec::new();
        for (name, bytes) in &blobs {
            let mut res = reader::file::FileResult::new(name.clone(), bytes.len());
            reader::file::read_bytes(name, bytes, &mut res);
            docs.extend(res.docs);
        }
        docs
    };
    // warm up
    let rows: usize = parse_all().iter().flat_map(|d| &d.sections).map(|s| s.rows.len()).sum();
    let t = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(parse_all());
    }
    let parse = t.elapsed().as_secs_f64() / rounds as f64;
    let weight = |m: &str| reader::direction::Directions::lkp().weight(m);
    let t = Instant::now();
    for _ in 0..rounds {
        let opts = build::options::Options { commit_url: None, git_log: vec![], weight: &weight };
        std::hint::black_box(build::build(parse_all(), &opts));
    }
    let full = t.elapsed().as_secs_f64() / rounds as f64;
    println!("input: {} files, {mb:.2} MB, {rows} rows; {rounds} rounds", blobs.len());
    println!("| stage | time per round | throughput |");
    println!("|---|---|---|");
    println!("| parse (MIME + tables) | {:.1} ms | {:.1} MB/s |", parse * 1e3, mb / parse);
    println!("| parse + build dataset | {:.1} ms | {:.1} MB/s |", full * 1e3, mb / full);
}
