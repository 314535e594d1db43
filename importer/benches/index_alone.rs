//! The search index alone, over more mails than one import holds in memory today (issue 33's
//! 10^5 check, before the import's memory is bounded):
//! `cargo bench -p importer --bench index_alone -- MAILS OUT [SITE_DATA]`.
//!
//! Reads the mails in batches as an import reads them (`input::read_file`), makes each report's
//! document as an import makes it (`build::docs::to_docs`), keeps only its search terms and its
//! summary, and writes the index exactly as `lkpx import` writes it (`pack::search_files`) under
//! OUT (`q/…`, the `SearchIndex` file among them). With SITE_DATA (a published dataset), OUT also
//! gets a copy of its `index.json` whose `search` names this index: lay OUT over SITE_DATA to search
//! 10^5 reports in the app.
//! Prints the wall time of each stage and the index's files and bytes.

use std::path::{Path, PathBuf};
use std::time::Instant;

use importer::build::{docs::to_docs, options::Options};
use importer::input;
use importer::store::pack::{self, Terms};
use model::ReportSummary;

const BATCH: usize = 2_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let (Some(mails), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: cargo bench -p importer --bench index_alone -- MAILS OUT [SITE_DATA]");
        std::process::exit(2);
    };
    let (terms, all, bytes) = read_terms(Path::new(mails));
    let t = Instant::now();
    let all = pack::newest_first(all);
    let (files, index) = pack::search_files(&all, terms);
    println!("index built in {:.1} s", t.elapsed().as_secs_f64());
    let out = PathBuf::from(out);
    let written = write(&out, &files);
    if let Some(site) = args.get(2) {
        lay_over(Path::new(site), &out, &pack::index_path(&index));
    }
    let shards = index.main.shard_files().chain(index.recent.shard_files()).count();
    let summaries = index.files().count() - shards - usize::from(!index.common.is_empty());
    println!(
        "{} reports from {:.1} MB of mail; index: {} files ({shards} shards, {summaries} summary files), {:.2} MB on disk",
        all.len(),
        bytes as f64 / 1e6,
        files.len(),
        written as f64 / 1e6
    );
}

/// Every report's terms and summary, read in batches of `BATCH` files (only these stay).
fn read_terms(mails: &Path) -> (Terms, Vec<ReportSummary>, usize) {
    use rayon::prelude::*;
    let t = Instant::now();
    let (files, errors) = input::collect_files(&[mails.to_path_buf()]);
    assert!(errors.is_empty(), "{errors:?}");
    let weight = reader::direction::Directions::lkp_weight;
    let opts = Options { commit_url: None, git_log: Vec::new(), weight: &weight };
    let (mut terms, mut all, mut bytes) = (Terms::default(), Vec::new(), 0);
    let mut seen = std::collections::HashSet::new();
    for batch in files.chunks(BATCH) {
        let read: Vec<_> = batch.par_iter().map(|f| input::read_file(f)).collect();
        let docs: Vec<_> = read
            .into_iter()
            .flat_map(|r| {
                bytes += r.bytes;
                r.docs
            })
            .collect();
        let (reports, _) = to_docs(&docs, &opts);
        for r in reports.iter().filter(|r| seen.insert(r.id.clone())) {
            terms.add(r);
            all.push(ReportSummary::listed(r));
        }
    }
    println!("{} mails read, {} reports, in {:.1} s", files.len(), all.len(), t.elapsed().as_secs_f64());
    (terms, all, bytes)
}

/// Write `files` under `out` (made); their bytes.
fn write(out: &Path, files: &[(String, Vec<u8>)]) -> usize {
    let mut n = 0;
    for (rel, bytes) in files {
        let p = out.join(rel);
        std::fs::create_dir_all(p.parent().expect("a file in a folder")).expect("make the folder");
        std::fs::write(&p, bytes).expect("write an index file");
        n += bytes.len();
    }
    n
}

/// `out/index.json`: the root of `site` with this index as its search (its `generation` left as it
/// was: `lkpx check` of the laid-over site says so).
fn lay_over(site: &Path, out: &Path, index: &str) {
    let bytes = std::fs::read(site.join(model::paths::INDEX)).expect("the site's root");
    let mut root: serde_json::Value = serde_json::from_slice(&bytes).expect("a root");
    root["search"] = serde_json::Value::String(index.to_string());
    let json = serde_json::to_vec(&root).expect("a root serialises");
    std::fs::write(out.join(model::paths::INDEX), json).expect("write the root");
}
