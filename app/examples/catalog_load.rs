//! Where the page's time goes when it opens a testcase, natively: each catalog half parsed as the
//! page parses it (`data::parse_json`), its rest and names merged in, the catalogs merged under the root
//! (`model::assemble::merge`) and made the page's lookups (`Catalog::assembled`). A published
//! dataset of realistic size: `lkpx synth --mails 10000` imported with `lkpx import`.
//!
//! `cargo run --release -p app --example catalog_load -- DATA_DIR [TESTCASE...]` (default: the
//! three testcases of most reports)

use app::catalog::Catalog;
use app::data::parse_json;
use std::path::Path;
use std::time::Instant;

fn read(dir: &Path, rel: &str) -> Result<String, String> {
    std::fs::read_to_string(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: catalog_load DATA_DIR [TESTCASE...]")?;
    let dir = Path::new(&dir);
    let root: model::Root = parse_json(model::paths::INDEX, &read(dir, model::paths::INDEX)?)?;
    let mut names: Vec<String> = args.collect();
    if names.is_empty() {
        let mut by_size: Vec<&model::TestcaseEntry> = root.testcases.iter().collect();
        by_size.sort_by_key(|t| std::cmp::Reverse(t.reports));
        names = by_size.iter().take(3).map(|t| t.name.clone()).collect();
    }
    let root = std::sync::Arc::new(root);
    for name in names {
        let t = root.testcases.iter().find(|t| t.name == name).ok_or(format!("no testcase {name}"))?;
        let (first_text, start) = (read(dir, &t.catalog)?, Instant::now());
        let mut cat: model::Index = parse_json(&t.catalog, &first_text)?;
        let first = start.elapsed();
        let rest_path = cat.rest.clone().ok_or(format!("{}: no rest", t.catalog))?;
        let names_path = cat.names.clone().ok_or(format!("{}: no metric names", t.catalog))?;
        let (rest_text, names_text) = (read(dir, &rest_path)?, read(dir, &names_path)?);
        let start = Instant::now();
        cat.complete(parse_json(&rest_path, &rest_text)?, parse_json(&names_path, &names_text)?)?;
        let rest = start.elapsed();
        let start = Instant::now();
        let merged = model::assemble::merge(&root, &[(t.catalog.clone(), cat)])?;
        let merge = start.elapsed();
        let start = Instant::now();
        let c = Catalog::assembled(root.clone(), merged);
        let lookups = start.elapsed();
        println!(
            "{name}: {} reports, {} metrics; parse first half {first:.1?} ({} B), rest and names {rest:.1?} ({} + {} B); merge {merge:.1?}; lookups {lookups:.1?}",
            c.index.reports.len(),
            c.index.metrics.len(),
            first_text.len(),
            rest_text.len(),
            names_text.len(),
        );
    }
    Ok(())
}
