//! Every document's report document, on all cores (`reader::docfile` makes each).

use super::options::Options;
use model::ReportDoc;
use reader::doc::Document;
use reader::links::report_id;
use std::collections::BTreeMap;

/// Every document's report document (on all cores) and the reproduce scripts they name, by hash.
pub fn to_docs(docs: &[Document], opts: &Options) -> (Vec<ReportDoc>, BTreeMap<String, String>) {
    to_docs_reusing(docs, &BTreeMap::new(), opts)
}

/// `to_docs`, taking the report document of `known` (by id) for a document read back from it
/// unchanged (an `--into` whose new reports merged with no old one).
pub fn to_docs_reusing(
    docs: &[Document],
    known: &BTreeMap<String, ReportDoc>,
    opts: &Options,
) -> (Vec<ReportDoc>, BTreeMap<String, String>) {
    use rayon::prelude::*;
    let each: Vec<(ReportDoc, BTreeMap<String, String>)> = docs
        .par_iter()
        .map(|d| {
            let mut scripts = BTreeMap::new();
            let rd = match known.get(&report_id(d)) {
                Some(rd) => {
                    if let (Some(h), Some(s)) = (&rd.script, &d.script) {
                        scripts.insert(h.clone(), s.clone());
                    }
                    rd.clone()
                }
                None => reader::docfile::to_doc(d, &mut scripts, &opts.doc()),
            };
            (rd, scripts)
        })
        .collect();
    let mut scripts = BTreeMap::new();
    let reports = each
        .into_iter()
        .map(|(r, s)| {
            scripts.extend(s);
            r
        })
        .collect();
    (reports, scripts)
}
