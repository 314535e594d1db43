//! Duplicate reports merged: the same mail read twice (a web copy, an mbox and the .eml) is one
//! report, its fullest copy kept.

use model::paths;
use reader::doc::Document;
use reader::links::{is_hex, report_key};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Identity of every row of a document: abbreviated commits, metric and numbers, hashed.
pub(crate) fn row_keys(d: &Document) -> HashSet<u64> {
    use std::hash::Hash;
    let mut out = HashSet::new();
    for s in &d.sections {
        let mut hc = paths::Fnv::new();
        for c in &s.commits {
            (if c.len() > 7 && is_hex(c) { &c[..7] } else { c.as_str() }).hash(&mut hc);
        }
        for r in &s.rows {
            let mut h = hc;
            r.metric.hash(&mut h);
            for v in r.values.iter().chain(&r.stddev_pct) {
                v.map(f64::to_bits).hash(&mut h);
            }
            r.fails.hash(&mut h);
            r.runs.hash(&mut h);
            out.insert(h.finish());
        }
    }
    out
}

pub(crate) fn row_count(d: &Document) -> usize {
    d.sections.iter().map(|s| s.rows.len()).sum()
}

/// Merge documents that are the same report (the same mail in two folders, as .txt and .eml):
/// keep the fullest copy and fill its gaps from the others.
pub fn dedup_documents(mut docs: Vec<Document>) -> (Vec<Document>, usize) {
    docs.sort_by(|a, b| a.source.cmp(&b.source));
    let mut groups: BTreeMap<String, Vec<Document>> = BTreeMap::new();
    for d in docs {
        groups.entry(report_key(&d)).or_default().push(d);
    }
    let mut out = Vec::new();
    let mut dropped = 0;
    // A copy without a Message-ID (a web page, a partial paste) whose every row is in another
    // report is that report read twice.
    // (only looked for when there is such a copy: mails all have Message-IDs)
    let any_unkeyed = groups.keys().any(|k| k.starts_with("content:"));
    let keyed: Vec<(String, HashSet<u64>)> = match any_unkeyed {
        true => groups.iter().map(|(k, g)| (k.clone(), row_keys(&g[0]))).collect(),
        false => Vec::new(),
    };
    let mut owner: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, (_, keys)) in keyed.iter().enumerate() {
        for k in keys {
            owner.entry(*k).or_default().push(i);
        }
    }
    let mut merge_into: BTreeMap<String, String> = BTreeMap::new();
    for (i, (k, keys)) in keyed.iter().enumerate() {
        if !k.starts_with("content:") || keys.is_empty() {
            continue;
        }
        let first = keys.iter().next().expect("non-empty");
        let host = owner[first].iter().copied().find(|&j| {
            j != i
                && keyed[j].1.len() >= keys.len()
                && keys.iter().all(|r| keyed[j].1.contains(r))
                && !merge_into.contains_key(&keyed[j].0)
        });
        if let Some(j) = host {
            merge_into.insert(k.clone(), keyed[j].0.clone());
        }
    }
    for (from, to) in &merge_into {
        let g = groups.remove(from).expect("group");
        groups.get_mut(to).expect("host group").extend(g);
    }
    for (_, mut g) in groups {
        dropped += g.len() - 1;
        // fullest first: most rows, then has a script, then source order
        g.sort_by(|a, b| {
            row_count(b)
                .cmp(&row_count(a))
                .then(b.script.is_some().cmp(&a.script.is_some()))
                .then(a.source.cmp(&b.source))
        });
        let mut best = g.remove(0);
        for o in g {
            // a real reproduce file beats the "To reproduce:" prose of the mail body
            if o.script.is_some() && (best.script.is_none() || o.script_is_file && !best.script_is_file) {
                best.script = o.script;
                best.script_is_file = o.script_is_file;
            }
            // a copy without a Message-ID (a web page) merged with the mail is the mail: its id
            best.message_id = best.message_id.or(o.message_id);
            best.materials_url = best.materials_url.or(o.materials_url);
            best.subject = best.subject.or(o.subject);
            best.date = best.date.or(o.date);
            best.from = best.from.or(o.from);
            if best.to.is_empty() {
                best.to = o.to;
            }
            for n in o.notes {
                if !best.notes.contains(&n) {
                    best.notes.push(n);
                }
            }
        }
        // in date order whichever copy was fullest (an import in steps merges them the other way)
        reader::threads::sort_notes(&mut best.notes);
        out.push(best);
    }
    (out, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reader::links::report_id;

    /// A web page's copy of a mail (no Message-ID) is that mail read twice: the report keeps the
    /// mail's id whichever copy is taken as the fullest (here the page, first by source order).
    #[test]
    fn a_copy_without_a_message_id_merged_with_its_mail_keeps_the_mails_id() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/corpus/008.txt")).unwrap();
        let page: String = text.lines().filter(|l| !l.starts_with("Message-ID:")).map(|l| format!("{l}\n")).collect();
        let read = |name: &str, t: &str| {
            let mut r = reader::file::FileResult::new(name.into(), t.len());
            reader::file::read_bytes(name, t.as_bytes(), &mut r);
            r.docs
        };
        let (mail, copy) = (read("008.txt", &text), read("0-page.txt", &page));
        assert!(mail[0].message_id.is_some() && copy[0].message_id.is_none());
        for docs in [[mail.clone(), copy.clone()].concat(), [copy.clone(), mail.clone()].concat()] {
            let (out, dropped) = dedup_documents(docs);
            assert_eq!((out.len(), dropped), (1, 1));
            assert_eq!(out[0].source, "0-page.txt", "the fullest copy, first by source");
            assert_eq!(report_id(&out[0]), report_id(&mail[0]));
        }
    }
}
