//! `lkpx rows`: one JSON object per table row as read, for scripting and for checking the
//! importer against the mails.

use model::ChangeKind;
use reader::doc::{Document, Row, RowKind};
use serde_json::{json, Map, Value};

/// JSON Lines of every row of `doc`.
pub fn row_objects(doc: &Document) -> Vec<Value> {
    let mut out = Vec::new();
    for s in &doc.sections {
        for r in &s.rows {
            out.push(row_object(doc, s.index, &s.commits, r));
        }
    }
    out
}

fn num(v: Option<f64>) -> Value {
    match v {
        Some(x) if x.is_finite() => json!(x),
        Some(x) if x > 0.0 => json!("+Inf"),
        Some(_) => json!("-Inf"),
        None => Value::Null,
    }
}

fn row_object(doc: &Document, section: usize, commits: &[String], r: &Row) -> Value {
    let mut o = Map::new();
    o.insert("source".into(), json!(doc.source));
    o.insert("line".into(), json!(r.line));
    o.insert("section".into(), json!(section));
    o.insert("kind".into(), json!(if r.kind == RowKind::Fail { "fail" } else { "perf" }));
    o.insert("testcase".into(), json!(r.job.testcase));
    o.insert("tbox_group".into(), json!(r.job.machine));
    o.insert("params".into(), json!(r.job.params));
    o.insert("metric".into(), json!(r.metric));
    o.insert("commits".into(), json!(commits));
    if r.kind == RowKind::Fail {
        o.insert("fails".into(), json!(r.fails));
        o.insert("runs".into(), json!(r.runs));
    } else {
        o.insert("values".into(), Value::Array(r.values.iter().map(|v| num(*v)).collect()));
        o.insert("stddev_pct".into(), Value::Array(r.stddev_pct.iter().map(|v| num(*v)).collect()));
        if r.runs.iter().any(Option::is_some) {
            o.insert("runs".into(), json!(r.runs));
        }
    }
    o.insert("changes".into(), Value::Array(r.changes.iter().map(|v| num(*v)).collect()));
    o.insert(
        "change_kind".into(),
        json!(r
            .change_kind
            .iter()
            .map(|k| match k {
                ChangeKind::Percent => "percent",
                ChangeKind::Absolute => "absolute",
                ChangeKind::Reproduction => "reproduction",
            })
            .collect::<Vec<_>>()),
    );
    if r.aggregate {
        o.insert("aggregate".into(), json!(true));
    }
    if let Some(note) = &r.note {
        o.insert("note".into(), json!(note));
    }
    Value::Object(o)
}
