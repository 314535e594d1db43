//! A testcase's commits: every spelling of an id unified, ordered as history (git log, then
//! reports' dates), linked.

use super::gitlog::GitLogEntry;
use super::options::Options;
use model::Commit;
use reader::doc::Document;
use reader::links::{commit_link, is_hex};
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub(crate) struct CommitTable {
    /// canonical id → info
    commits: BTreeMap<String, Commit>,
    /// any id seen → canonical id
    alias: HashMap<String, String>,
}

impl CommitTable {
    fn build(docs: &[Document], git_log: &[GitLogEntry]) -> Self {
        let mut ids: BTreeSet<String> = BTreeSet::new();
        for d in docs {
            for c in &d.commits {
                ids.insert(c.id.clone());
            }
            for s in &d.sections {
                ids.extend(s.commits.iter().cloned());
            }
        }
        for g in git_log {
            ids.insert(g.sha.clone());
        }
        // longest first, so each abbreviation finds the full id it abbreviates (if unambiguous)
        let mut by_len: Vec<&String> = ids.iter().collect();
        by_len.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        let mut alias = HashMap::new();
        let mut canon: Vec<String> = Vec::new();
        for id in by_len {
            let target = if is_hex(id) && id.len() >= 7 {
                let longer: Vec<&String> =
                    canon.iter().filter(|c| c.len() > id.len() && c.starts_with(id.as_str())).collect();
                if longer.len() == 1 {
                    Some(longer[0].clone())
                } else {
                    None
                }
            } else {
                None
            };
            match target {
                Some(t) => {
                    alias.insert(id.clone(), t);
                }
                None => {
                    alias.insert(id.clone(), id.clone());
                    canon.push(id.clone());
                }
            }
        }
        let mut commits: BTreeMap<String, Commit> = BTreeMap::new();
        for id in &canon {
            let tag = (!is_hex(id)).then(|| id.clone());
            commits.insert(id.clone(), Commit { id: id.clone(), tag, ..Default::default() });
        }
        for d in docs {
            for c in &d.commits {
                let e = commits.get_mut(&alias[&c.id]).expect("canonical");
                if e.subject.is_none() {
                    e.subject = c.subject.clone();
                }
                if e.tree.is_none() && c.tree.is_some() {
                    e.tree = c.tree.clone();
                    e.branch = c.branch.clone();
                }
            }
        }
        for g in git_log {
            let e = commits.get_mut(&alias[&g.sha]).expect("canonical");
            e.time = Some(g.time);
            if e.subject.is_none() && !g.subject.is_empty() {
                e.subject = Some(g.subject.clone());
            }
        }
        CommitTable { commits, alias }
    }

    /// Every canonical id.
    pub(crate) fn ids(&self) -> impl Iterator<Item = &String> {
        self.commits.keys()
    }

    pub(crate) fn canonical<'a>(&'a self, id: &'a str) -> &'a str {
        self.alias.get(id).map(String::as_str).unwrap_or(id)
    }
}

/// History order: git log time where known; else base→head edges of the reports, ties broken by
/// the date of the first report that names the commit, then id.
pub(crate) fn order_commits(
    table: &CommitTable,
    docs: &[Document],
    doc_time: &[Option<i64>],
    git_log: &[GitLogEntry],
) -> Vec<String> {
    let mut hint: BTreeMap<&str, i64> = BTreeMap::new();
    for (d, t) in docs.iter().zip(doc_time) {
        let t = t.unwrap_or(i64::MIN / 2);
        for s in &d.sections {
            for c in &s.commits {
                let e = hint.entry(table.canonical(c)).or_insert(t);
                *e = (*e).min(t);
            }
        }
    }
    let git_pos: HashMap<&str, usize> = {
        let mut g: Vec<&GitLogEntry> = git_log.iter().collect();
        // oldest first; git log prints newest first, so equal times keep reversed log order
        g.reverse();
        g.sort_by_key(|e| e.time);
        g.iter().enumerate().map(|(i, e)| (table.canonical(&e.sha), i)).collect()
    };
    let mut edges: BTreeSet<(&str, &str)> = BTreeSet::new();
    for d in docs {
        for s in &d.sections {
            for w in s.commits.windows(2) {
                let (a, b) = (table.canonical(&w[0]), table.canonical(&w[1]));
                if a != b {
                    edges.insert((a, b));
                }
            }
        }
    }
    type Key = (u8, i64, usize, String);
    let key = |id: &str| -> Key {
        match git_pos.get(id) {
            Some(p) => (0, table.commits[id].time.unwrap_or(0), *p, id.to_string()),
            None => (0, hint.get(id).copied().unwrap_or(i64::MAX / 2), usize::MAX, id.to_string()),
        }
    };
    let mut indeg: BTreeMap<&str, usize> = table.commits.keys().map(|k| (k.as_str(), 0)).collect();
    let mut out_edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in &edges {
        // with git log, its order wins over report edges
        if git_pos.contains_key(a) && git_pos.contains_key(b) {
            continue;
        }
        *indeg.get_mut(b).expect("node") += 1;
        out_edges.entry(a).or_default().push(b);
    }
    let mut order = Vec::new();
    let mut ready: BTreeSet<(Key, &str)> = indeg.iter().filter(|(_, d)| **d == 0).map(|(k, _)| (key(k), *k)).collect();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    while order.len() < indeg.len() {
        let next = match ready.iter().next().cloned() {
            Some(n) => {
                ready.remove(&n);
                n.1
            }
            // a cycle of contradicting reports: take the earliest remaining commit
            None => indeg.keys().filter(|k| !done.contains(*k)).min_by_key(|k| key(k)).copied().expect("remaining"),
        };
        if !done.insert(next) {
            continue;
        }
        order.push(next.to_string());
        for b in out_edges.get(next).cloned().unwrap_or_default() {
            let d = indeg.get_mut(b).expect("node");
            *d = d.saturating_sub(1);
            if *d == 0 && !done.contains(b) {
                ready.insert((key(b), b));
            }
        }
    }
    order
}

/// Commits of a testcase's reports: unified ids, history order, links.
pub(crate) fn commits_stage(docs: &[Document], doc_time: &[Option<i64>], opts: &Options) -> (CommitTable, Vec<Commit>) {
    let table = CommitTable::build(docs, &opts.git_log);
    let order = order_commits(&table, docs, doc_time, &opts.git_log);
    let mut seen: HashMap<&str, i64> = HashMap::new();
    for (d, t) in docs.iter().zip(doc_time) {
        for c in d.sections.iter().flat_map(|s| &s.commits) {
            if let Some(t) = t {
                let e = seen.entry(table.canonical(c)).or_insert(*t);
                *e = (*e).min(*t);
            }
        }
    }
    let commits = order
        .iter()
        .map(|id| {
            let mut c = table.commits[id].clone();
            c.url = commit_link(opts.commit_url.as_deref(), c.tree.as_deref(), &c.id);
            c.seen = seen.get(id.as_str()).copied();
            c
        })
        .collect();
    (table, commits)
}
