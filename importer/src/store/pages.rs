//! The dataset's static pages, written with `render` (the app shows the same markup): every
//! report's page, the first screen and the lists of reports (every report, per testcase). A
//! report's page depends on its document and on the summaries of its job's reports only, so an
//! incremental import rewrites the pages of the reports it adds and of their jobs' others.

use crate::store::File;
use model::{paths, ReportDoc, ReportSummary};
use render::page::{self, Counts, LIST_PAGE};
use std::collections::{BTreeMap, BTreeSet};

/// The reports of every job (`ReportSummary::job_key`), as positions in `all`, in its order.
pub struct Jobs(BTreeMap<String, Vec<usize>>);

impl Jobs {
    pub fn of(all: &[ReportSummary]) -> Jobs {
        let mut by: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, r) in all.iter().enumerate() {
            if let Some(k) = r.job_key() {
                by.entry(k).or_default().push(i);
            }
        }
        Jobs(by)
    }

    /// The other reports of `me`'s job (newest first, as `all` is), and the distinct commits
    /// they and `me` measured.
    fn others(&self, all: &[ReportSummary], me: &ReportSummary) -> (Vec<ReportSummary>, usize) {
        let at: Vec<usize> = me
            .job_key()
            .and_then(|k| self.0.get(&k))
            .map(|v| v.iter().copied().filter(|&i| all[i].id != me.id).collect())
            .unwrap_or_default();
        let commits = render::report::commits_measured(all, &at, me);
        (at.into_iter().map(|i| all[i].clone()).collect(), commits)
    }

    /// The ids of every report that shares a job with one of `ids`, those included.
    pub fn peers(&self, all: &[ReportSummary], ids: &BTreeSet<&str>) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = ids.iter().map(|s| s.to_string()).collect();
        for r in all.iter().filter(|r| ids.contains(r.id.as_str())) {
            if let Some(v) = r.job_key().and_then(|k| self.0.get(&k)) {
                out.extend(v.iter().map(|&i| all[i].id.clone()));
            }
        }
        out
    }
}

/// The permalink key of a document: its Message-ID, else its id.
fn key_of(d: &ReportDoc) -> String {
    d.message_id.clone().unwrap_or_else(|| d.id.clone())
}

/// The page of report `d` (`all`: every summary, newest first; `jobs` over it).
pub fn report_file(d: &ReportDoc, all: &[ReportSummary], jobs: &Jobs) -> File {
    let me = ReportSummary::listed(d);
    let (others, commits) = jobs.others(all, &me);
    (paths::report_html(&key_of(d)), page::report_page(d, &others, commits).into_string().into_bytes())
}

/// The pages of `docs`, in parallel.
pub fn report_files(docs: &[&ReportDoc], all: &[ReportSummary], jobs: &Jobs) -> Vec<File> {
    use rayon::prelude::*;
    docs.par_iter().map(|d| report_file(d, all, jobs)).collect()
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
pub fn list_pages(all: &[ReportSummary], newest: usize, open: Option<&ReportDoc>, jobs: &Jobs) -> Vec<File> {
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
    let open = open.map(|d| {
        let (others, commits) = jobs.others(all, &ReportSummary::listed(d));
        (d, others, commits)
    });
    let first =
        page::first_page(&all[..newest.min(all.len())], open.as_ref().map(|(d, o, c)| (*d, o.as_slice(), *c)), &counts);
    out.push((paths::FIRST_PAGE.to_string(), first.into_string().into_bytes()));
    out
}

/// What an incremental import rewrites of the pages (`all`: every summary after it, newest
/// first): the pages of the reports it changed (`changed`, documents at hand in `docs`) and of
/// their jobs' other reports, of the jobs that lost a report (`removed`, whose pages go), the
/// first screen and the lists. Documents not at hand are read with `read`. Returns the files
/// and the pages to remove.
pub fn incremental_files(
    all: &[ReportSummary],
    docs: &[ReportDoc],
    changed: &BTreeSet<&str>,
    removed: &[ReportSummary],
    read: &(dyn Fn(&str) -> Result<ReportDoc, String> + Sync),
) -> (Vec<File>, Vec<String>) {
    use rayon::prelude::*;
    let jobs = Jobs::of(all);
    let mut ids = jobs.peers(all, changed);
    let lost: BTreeSet<String> = removed.iter().filter_map(ReportSummary::job_key).collect();
    ids.extend(all.iter().filter(|r| r.job_key().is_some_and(|k| lost.contains(&k))).map(|r| r.id.clone()));
    let at_hand: BTreeMap<&str, &ReportDoc> = docs.iter().map(|d| (d.id.as_str(), d)).collect();
    // a document that cannot be read keeps its old page (and says so); the rest goes on
    let doc = |id: &str| -> Option<ReportDoc> {
        let got = at_hand.get(id).map(|d| Ok((*d).clone())).unwrap_or_else(|| read(id));
        got.inspect_err(|e| eprintln!("lkpx: warning: {e}: its report's page is kept as it was")).ok()
    };
    let mut files: Vec<File> = ids.par_iter().filter_map(|id| doc(id).map(|d| report_file(&d, all, &jobs))).collect();
    let newest = all.first().and_then(|s| doc(&s.id));
    files.extend(list_pages(all, model::NEWEST, newest.as_ref(), &jobs));
    let kept: BTreeSet<String> =
        all.iter().map(|s| paths::report_html(&s.message_id.clone().unwrap_or(s.id.clone()))).collect();
    let gone = removed
        .iter()
        .map(|s| paths::report_html(&s.message_id.clone().unwrap_or(s.id.clone())))
        .filter(|p| !kept.contains(p))
        .collect();
    (files, gone)
}
