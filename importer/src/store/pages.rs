//! The dataset's static pages, written with `render` (the app shows the same markup): every
//! report's page, the first screen and the lists of reports (every report, per testcase). A
//! report's page depends on its document and on the summaries of the reports it shows (of its job,
//! of its headline metric's record, of its head commit: `Peers`), so an incremental import rewrites
//! the pages of the reports it adds and of those that show them.

use crate::store::File;
use model::{paths, ReportDoc, ReportSummary};
use render::page::{self, Around, Counts, LIST_PAGE};
use std::collections::{BTreeMap, BTreeSet};

/// What a report's page shows of other reports, indexed over every summary (`all`, by position
/// in its order): the reports of each job (`ReportSummary::job_key`), of each headline metric's
/// record (`model::record::key`) and of each head commit (by its first 7 digits).
pub struct Peers {
    jobs: BTreeMap<String, Vec<usize>>,
    records: BTreeMap<(String, String), Vec<usize>>,
    commits: BTreeMap<String, Vec<usize>>,
}

fn commit_key(r: &ReportSummary) -> Option<String> {
    r.commit.as_deref().filter(|c| c.len() >= 7).map(|c| c[..7].to_ascii_lowercase())
}

fn record_key(r: &ReportSummary) -> Option<(String, String)> {
    model::record::key(r).map(|(t, m)| (t.to_string(), m.to_string()))
}

impl Peers {
    pub fn of(all: &[ReportSummary]) -> Peers {
        let mut p = Peers { jobs: BTreeMap::new(), records: BTreeMap::new(), commits: BTreeMap::new() };
        for (i, r) in all.iter().enumerate() {
            if let Some(k) = r.job_key() {
                p.jobs.entry(k).or_default().push(i);
            }
            if let Some(k) = record_key(r) {
                p.records.entry(k).or_default().push(i);
            }
            if let Some(k) = commit_key(r) {
                p.commits.entry(k).or_default().push(i);
            }
        }
        p
    }

    /// What `me`'s page shows of the others: its job's (newest first, as `all` is) with the
    /// distinct commits they and `me` measured, its record's, its head commit's.
    pub fn around<'a>(&self, all: &'a [ReportSummary], me: &ReportSummary) -> Around<'a> {
        let not_me = |v: Option<&Vec<usize>>| -> Vec<usize> {
            v.map(|v| v.iter().copied().filter(|&i| all[i].id != me.id).collect()).unwrap_or_default()
        };
        let at = not_me(me.job_key().and_then(|k| self.jobs.get(&k)));
        let commits = render::report::commits_measured(all, &at, me);
        let record = not_me(record_key(me).and_then(|k| self.records.get(&k)));
        let same = not_me(commit_key(me).and_then(|k| self.commits.get(&k)));
        Around {
            others: at.into_iter().map(|i| all[i].clone()).collect(),
            commits,
            record: record.into_iter().map(|i| &all[i]).collect(),
            same: same.into_iter().map(|i| &all[i]).filter(|r| model::record::same_commit(r, me)).collect(),
        }
    }

    /// The ids of every report whose page shows one of `of` (sharing its job, its record or its
    /// head commit), and of `of` themselves.
    pub fn sharing(&self, all: &[ReportSummary], of: &[&ReportSummary]) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = of.iter().map(|r| r.id.clone()).collect();
        for r in of {
            let groups = [
                r.job_key().and_then(|k| self.jobs.get(&k)),
                record_key(r).and_then(|k| self.records.get(&k)),
                commit_key(r).and_then(|k| self.commits.get(&k)),
            ];
            out.extend(groups.into_iter().flatten().flatten().map(|&i| all[i].id.clone()));
        }
        out
    }
}

/// The permalink key of a document: its Message-ID, else its id.
fn key_of(d: &ReportDoc) -> String {
    d.message_id.clone().unwrap_or_else(|| d.id.clone())
}

/// The page of report `d` (`all`: every summary, newest first; `peers` over it).
pub fn report_file(d: &ReportDoc, all: &[ReportSummary], peers: &Peers) -> File {
    let around = peers.around(all, &ReportSummary::listed(d));
    (paths::report_html(&key_of(d)), page::report_page(d, &around).into_string().into_bytes())
}

/// The pages of `docs`, in parallel.
pub fn report_files(docs: &[&ReportDoc], all: &[ReportSummary], peers: &Peers) -> Vec<File> {
    use rayon::prelude::*;
    docs.par_iter().map(|d| report_file(d, all, peers)).collect()
}

/// The pages of one list (`reports` newest first): full pages of `LIST_PAGE` numbered from the
/// oldest, and the newest (1 to `LIST_PAGE` reports) as the list's `index.html`.
fn list_files(title: &str, list: &str, reports: &[&ReportSummary]) -> Vec<File> {
    if reports.is_empty() {
        return Vec::new();
    }
    let oldest: Vec<ReportSummary> = reports.iter().rev().map(|r| (*r).clone()).collect();
    let full = (oldest.len() - 1) / LIST_PAGE;
    let newest_first = |k: std::ops::Range<usize>| oldest[k].iter().rev().cloned().collect::<Vec<_>>();
    let mut out = Vec::with_capacity(full + 1);
    for k in 0..full {
        let html = page::list_page(title, list, Some(k), full, &newest_first(k * LIST_PAGE..(k + 1) * LIST_PAGE));
        out.push((paths::list_html(list, Some(k)), html.into_string().into_bytes()));
    }
    let html = page::list_page(title, list, None, full, &newest_first(full * LIST_PAGE..oldest.len()));
    out.push((paths::list_html(list, None), html.into_string().into_bytes()));
    out
}

/// The first screen (the root's `newest`, the newest report `open` with its job's others) and
/// every list: of all reports and per testcase (`all` newest first).
pub fn list_pages(all: &[ReportSummary], newest: usize, open: Option<&ReportDoc>, peers: &Peers) -> Vec<File> {
    let mut per_tc: BTreeMap<&str, Vec<&ReportSummary>> = BTreeMap::new();
    for r in all {
        let mut tcs: Vec<&str> = r.testcases.iter().map(String::as_str).collect();
        tcs.dedup();
        for t in tcs {
            per_tc.entry(t).or_default().push(r);
        }
    }
    let counts = Counts { all: all.len(), testcases: per_tc.iter().map(|(t, v)| (t.to_string(), v.len())).collect() };
    let mut out = list_files("All reports", "all", &all.iter().collect::<Vec<_>>());
    for (tc, reports) in &per_tc {
        out.extend(list_files(tc, &paths::testcase_list(tc), reports));
    }
    let open = open.map(|d| (d, peers.around(all, &ReportSummary::listed(d))));
    let first = page::first_page(&all[..newest.min(all.len())], open.as_ref().map(|(d, a)| (*d, a)), &counts);
    out.push((paths::FIRST_PAGE.to_string(), first.into_string().into_bytes()));
    out
}

/// What an incremental import rewrites of the pages (`all`: every summary after it, newest
/// first): the pages of the reports it changed (`changed`, documents at hand in `docs`) and of
/// the reports that show them or showed one now gone (`removed`, whose pages go: `Peers::sharing`),
/// the first screen and the lists. Documents not at hand are read with `read`. Returns the files
/// and the pages to remove.
pub fn incremental_files(
    all: &[ReportSummary],
    docs: &[ReportDoc],
    changed: &BTreeSet<&str>,
    removed: &[ReportSummary],
    read: &(dyn Fn(&str) -> Result<ReportDoc, String> + Sync),
) -> (Vec<File>, Vec<String>) {
    use rayon::prelude::*;
    let peers = Peers::of(all);
    let now: Vec<&ReportSummary> = all.iter().filter(|r| changed.contains(r.id.as_str())).collect();
    let mut ids = peers.sharing(all, &now);
    // the pages that showed a report now gone: of its job, its record, its commit
    let gone_ones: Vec<&ReportSummary> = removed.iter().collect();
    let kept_ids: BTreeSet<&str> = all.iter().map(|r| r.id.as_str()).collect();
    ids.extend(peers.sharing(all, &gone_ones).into_iter().filter(|id| kept_ids.contains(id.as_str())));
    let at_hand: BTreeMap<&str, &ReportDoc> = docs.iter().map(|d| (d.id.as_str(), d)).collect();
    // a document that cannot be read keeps its old page (and says so); the rest goes on
    let doc = |id: &str| -> Option<ReportDoc> {
        let got = at_hand.get(id).map(|d| Ok((*d).clone())).unwrap_or_else(|| read(id));
        got.inspect_err(|e| eprintln!("lkpx: warning: {e}: its report's page is kept as it was")).ok()
    };
    let mut files: Vec<File> = ids.par_iter().filter_map(|id| doc(id).map(|d| report_file(&d, all, &peers))).collect();
    let newest = all.first().and_then(|s| doc(&s.id));
    files.extend(list_pages(all, model::NEWEST, newest.as_ref(), &peers));
    let kept: BTreeSet<String> =
        all.iter().map(|s| paths::report_html(&s.message_id.clone().unwrap_or(s.id.clone()))).collect();
    let gone = removed
        .iter()
        .map(|s| paths::report_html(&s.message_id.clone().unwrap_or(s.id.clone())))
        .filter(|p| !kept.contains(p))
        .collect();
    (files, gone)
}
