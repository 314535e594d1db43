//! `lkpx reports DIR`: the reports a published dataset holds, one JSON object per line, oldest
//! first: what scripts (and people) check after an import.

use model::{paths, ReportDoc, Root};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Every report document of the dataset in `dir` (each once), oldest first, then by id.
pub fn documents(dir: &Path) -> Result<Vec<ReportDoc>, String> {
    let root: Root = importer::store::dataset::read(dir, paths::INDEX)?;
    let mut docs: BTreeMap<String, ReportDoc> = BTreeMap::new();
    for t in &root.testcases {
        let cat = importer::store::dataset::read_catalog(dir, &t.catalog)?;
        for r in cat.reports {
            if !docs.contains_key(&r.id) {
                docs.insert(r.id.clone(), importer::store::dataset::read(dir, &r.page())?);
            }
        }
    }
    let mut out: Vec<ReportDoc> = docs.into_values().collect();
    out.sort_by_cached_key(|d| (d.date.as_deref().and_then(model::date::parse_date).unwrap_or(i64::MIN), d.id.clone()));
    Ok(out)
}

/// One report as its JSON line: `id`, `message_id`, `date`, `subject`, `from`, `source`, the head
/// commit's `tree` and `branch`, the first headline's `metric`, `change` and `word`, `notes` (count).
pub fn object(d: &ReportDoc) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), json!(d.id));
    o.insert("message_id".into(), json!(d.message_id));
    o.insert("date".into(), json!(d.date));
    o.insert("subject".into(), json!(d.subject));
    o.insert("from".into(), json!(d.from));
    o.insert("source".into(), json!(d.source));
    let head = d.sections.first().and_then(|s| s.commits.last());
    let commit = d
        .commits
        .iter()
        .find(|c| Some(&c.id) == head && c.tree.is_some())
        .or_else(|| d.commits.iter().find(|c| c.tree.is_some()));
    o.insert("tree".into(), json!(commit.and_then(|c| c.tree.clone())));
    o.insert("branch".into(), json!(commit.and_then(|c| c.branch.clone())));
    let h = d.headlines.first();
    o.insert("metric".into(), json!(h.map(|h| h.metric.clone())));
    o.insert("change".into(), json!(h.and_then(|h| h.change)));
    o.insert("word".into(), json!(h.map(|h| h.word.clone())));
    o.insert("notes".into(), json!(d.notes.len()));
    Value::Object(o)
}

/// Print the reports of `dir` as JSON Lines.
pub fn run(dir: &Path, out: &mut dyn Write) -> Result<usize, String> {
    let docs = documents(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for d in &docs {
        writeln!(out, "{}", object(d)).map_err(|e| e.to_string())?;
    }
    Ok(docs.len())
}
