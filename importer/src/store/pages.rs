//! The dataset's static pages, written with `render` (the app shows the same markup): every
//! report's page, the first screen and the lists of reports (every report, per testcase). A
//! report's page depends on its document and on the summaries of the reports it shows (of its job,
//! of its headline metric's record, of its head commit: `Peers`), so an incremental import rewrites
//! the pages of the reports it adds and of those that show them.

use crate::store::File;
use model::{paths, ReportDoc, ReportSummary};
use render::html::Html;
use render::page::{self, Around, Counts, LIST_PAGE};
use std::collections::{BTreeMap, BTreeSet};

/// What a report's page shows of other reports, indexed over every summary (`all`, by position
/// in its order): the reports of each job (`ReportSummary::job_key`), of each headline metric's
/// record (`model::record::key`), of each head commit (by its first 7 digits) and of each commit
/// their replies name (`ReportSummary::names`, likewise).
pub struct Peers {
    jobs: BTreeMap<String, Vec<usize>>,
    records: BTreeMap<(String, String), Vec<usize>>,
    commits: BTreeMap<String, Vec<usize>>,
    names: BTreeMap<String, Vec<usize>>,
}

fn short(c: &str) -> Option<String> {
    c.get(..7).map(str::to_ascii_lowercase)
}

fn commit_key(r: &ReportSummary) -> Option<String> {
    r.commit.as_deref().and_then(short)
}

fn record_key(r: &ReportSummary) -> Option<(String, String)> {
    model::record::key(r).map(|(t, m)| (t.to_string(), m.to_string()))
}

impl Peers {
    pub fn of(all: &[ReportSummary]) -> Peers {
        let mut p =
            Peers { jobs: BTreeMap::new(), records: BTreeMap::new(), commits: BTreeMap::new(), names: BTreeMap::new() };
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
            let named: BTreeSet<String> = r.names.iter().filter_map(|c| short(c)).collect();
            for k in named {
                p.names.entry(k).or_default().push(i);
            }
        }
        p
    }

    /// The reports (positions in `all`) of the commits `me`'s replies name.
    fn of_named(&self, all: &[ReportSummary], me: &ReportSummary) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for c in &me.names {
            let at = short(c).and_then(|k| self.commits.get(&k)).map(Vec::as_slice).unwrap_or(&[]);
            let hit = |i: &&usize| all[**i].commit.as_deref().is_some_and(|h| model::record::names_commit(c, h));
            out.extend(at.iter().filter(hit).filter(|i| !out.contains(i)).collect::<Vec<_>>());
        }
        out
    }

    /// The reports (positions in `all`) whose replies name `me`'s head commit.
    fn naming(&self, all: &[ReportSummary], me: &ReportSummary) -> Vec<usize> {
        let Some(head) = me.commit.as_deref() else { return Vec::new() };
        let at = commit_key(me).and_then(|k| self.names.get(&k)).map(Vec::as_slice).unwrap_or(&[]);
        at.iter().copied().filter(|&i| all[i].names.iter().any(|c| model::record::names_commit(c, head))).collect()
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
        let other = |r: &&ReportSummary| r.id != me.id && !model::record::same_commit(r, me);
        let named = self.of_named(all, me).into_iter().map(|i| &all[i]).filter(other).collect();
        let naming = self.naming(all, me).into_iter().map(|i| &all[i]).filter(other).collect();
        Around {
            others: at.into_iter().map(|i| all[i].clone()).collect(),
            commits,
            record: record.into_iter().map(|i| &all[i]).collect(),
            same: same.into_iter().map(|i| &all[i]).filter(|r| model::record::same_commit(r, me)).collect(),
            named,
            naming,
        }
    }

    /// The ids of every report whose page shows one of `of` (sharing its job, its record or its
    /// head commit; a commit one names, a reply naming its commit), and of `of` themselves.
    pub fn sharing(&self, all: &[ReportSummary], of: &[&ReportSummary]) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = of.iter().map(|r| r.id.clone()).collect();
        for r in of {
            let groups = [
                r.job_key().and_then(|k| self.jobs.get(&k)),
                record_key(r).and_then(|k| self.records.get(&k)),
                commit_key(r).and_then(|k| self.commits.get(&k)),
            ];
            out.extend(groups.into_iter().flatten().flatten().map(|&i| all[i].id.clone()));
            let named = self.of_named(all, r).into_iter().chain(self.naming(all, r));
            out.extend(named.map(|i| all[i].id.clone()));
        }
        out
    }
}

/// Stored bytes (`pack::stored`) as a page carries them (`paths::page_doc`): base64.
pub fn page_text(stored: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(stored)
}

/// The page of report `d`, which carries it (`store::carried`; `all`: every summary, newest
/// first; `peers` over it).
pub fn report_file(d: &ReportDoc, all: &[ReportSummary], peers: &Peers) -> File {
    let around = peers.around(all, &ReportSummary::listed(d));
    let carried = page_text(&crate::store::carried(d));
    (d.page(), page::report_page(d, &around, &carried).into_string().into_bytes())
}

/// The pages of `docs`, in parallel.
pub fn report_files(docs: &[&ReportDoc], all: &[ReportSummary], peers: &Peers) -> Vec<File> {
    use rayon::prelude::*;
    docs.par_iter().map(|d| report_file(d, all, peers)).collect()
}

/// The pages of one list (`reports` newest first): full pages of `LIST_PAGE` numbered from the
/// oldest, and the newest (1 to `LIST_PAGE` reports) as the list's `index.html`, with `trend`.
fn list_files(title: &str, list: &str, reports: &[&ReportSummary], trend: Option<&Html>) -> Vec<File> {
    if reports.is_empty() {
        return Vec::new();
    }
    let oldest: Vec<ReportSummary> = reports.iter().rev().map(|r| (*r).clone()).collect();
    let full = (oldest.len() - 1) / LIST_PAGE;
    let newest_first = |k: std::ops::Range<usize>| oldest[k].iter().rev().cloned().collect::<Vec<_>>();
    let mut out = Vec::with_capacity(full + 1);
    for k in 0..full {
        let html = page::list_page(title, list, Some(k), full, &newest_first(k * LIST_PAGE..(k + 1) * LIST_PAGE), None);
        out.push((paths::list_html(list, Some(k)), html.into_string().into_bytes()));
    }
    let html = page::list_page(title, list, None, full, &newest_first(full * LIST_PAGE..oldest.len()), trend);
    out.push((paths::list_html(list, None), html.into_string().into_bytes()));
    out
}

/// Each testcase's trend figure for its page, by the testcase's name (`render::trend::of_testcase`).
pub type Trends<'a> = &'a (dyn Fn(&str) -> Option<Html> + Sync);

/// The first screen (the root's `newest`, the newest report `open` with its job's others) and
/// every list: of all reports and per testcase (`all` newest first), a testcase's with its trend.
pub fn list_pages(
    all: &[ReportSummary],
    newest: usize,
    open: Option<&ReportDoc>,
    peers: &Peers,
    trends: Trends,
) -> Vec<File> {
    let mut per_tc: BTreeMap<&str, Vec<&ReportSummary>> = BTreeMap::new();
    for r in all {
        let mut tcs: Vec<&str> = r.testcases.iter().map(String::as_str).collect();
        tcs.dedup();
        for t in tcs {
            per_tc.entry(t).or_default().push(r);
        }
    }
    let counts = Counts { all: all.len(), testcases: per_tc.iter().map(|(t, v)| (t.to_string(), v.len())).collect() };
    let mut out = list_files("All reports", "all", &all.iter().collect::<Vec<_>>(), None);
    for (tc, reports) in &per_tc {
        out.extend(list_files(tc, &paths::testcase_list(tc), reports, trends(tc).as_ref()));
    }
    let open = open.map(|d| (d, peers.around(all, &ReportSummary::listed(d)), page_text(&crate::store::carried(d))));
    let first =
        page::first_page(&all[..newest.min(all.len())], open.as_ref().map(|(d, a, s)| (*d, a, s.as_str())), &counts);
    out.push((paths::FIRST_PAGE.to_string(), first.into_string().into_bytes()));
    out
}

/// The path of a report's page, by its summary (`report_file` names it by the document).
fn page_path(s: &ReportSummary) -> String {
    paths::report_html(s.message_id.as_deref().unwrap_or(&s.id))
}

/// How an incremental import reads what it keeps: a report's document by its id, the text of a
/// page by its path, the trend of a testcase's page by its name.
pub struct Kept<'a> {
    pub doc: &'a (dyn Fn(&str) -> Result<ReportDoc, String> + Sync),
    pub page: &'a (dyn Fn(&str) -> Option<String> + Sync),
    pub trend: Trends<'a>,
}

/// What an incremental import rewrites of the pages (`all`: every summary after it, newest
/// first): the pages of the reports it changed (`changed`, documents at hand in `docs`) and of
/// the reports that show them or showed them as they were (`before`: the summaries the import
/// replaced or removed; a removed one's page goes: `Peers::sharing`), the first screen and the lists. A page whose report did not change keeps its bytes but what it
/// shows of others (`page::with_around`: no document read, no table rendered); one that cannot
/// be read so is made from its document, read with `kept.doc`. Returns the files and the pages to
/// remove.
pub fn incremental_files(
    all: &[ReportSummary],
    docs: &[ReportDoc],
    changed: &BTreeSet<&str>,
    before: &[ReportSummary],
    kept: &Kept,
) -> (Vec<File>, Vec<String>) {
    use rayon::prelude::*;
    let peers = Peers::of(all);
    let now: Vec<&ReportSummary> = all.iter().filter(|r| changed.contains(r.id.as_str())).collect();
    let mut ids = peers.sharing(all, &now);
    // the pages that showed a report as it was, or one now gone: of its job, record, commits
    let gone_ones: Vec<&ReportSummary> = before.iter().collect();
    let by_id: BTreeMap<&str, &ReportSummary> = all.iter().map(|r| (r.id.as_str(), r)).collect();
    ids.extend(peers.sharing(all, &gone_ones).into_iter().filter(|id| by_id.contains_key(id.as_str())));
    let at_hand: BTreeMap<&str, &ReportDoc> = docs.iter().map(|d| (d.id.as_str(), d)).collect();
    // a document that cannot be read keeps its old page (and says so); the rest goes on
    let doc = |id: &str| -> Option<ReportDoc> {
        let got = at_hand.get(id).map(|d| Ok((*d).clone())).unwrap_or_else(|| (kept.doc)(id));
        got.inspect_err(|e| eprintln!("lkpx: warning: {e}: its report's page is kept as it was")).ok()
    };
    let shows_anew = |me: &ReportSummary| -> Option<File> {
        let path = page_path(me);
        let old = (kept.page)(&path)?;
        page::with_around(&old, me, &peers.around(all, me)).map(|p| (path, p.into_bytes()))
    };
    let page_of = |id: &String| -> Option<File> {
        let me = by_id.get(id.as_str()).filter(|_| !changed.contains(id.as_str()));
        let made = |d: ReportDoc| report_file(&d, all, &peers);
        me.and_then(|me| shows_anew(me)).or_else(|| doc(id).map(made))
    };
    let mut files: Vec<File> = ids.par_iter().filter_map(page_of).collect();
    let newest = all.first().and_then(|s| doc(&s.id));
    files.extend(list_pages(all, model::NEWEST, newest.as_ref(), &peers, kept.trend));
    let kept_pages: BTreeSet<String> = all.iter().map(page_path).collect();
    let gone = before.iter().map(page_path).filter(|p| !kept_pages.contains(p)).collect();
    (files, gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report of head commit `commit` whose replies name `names` (no job, no record).
    fn r(id: &str, commit: &str, names: &[&str], time: i64) -> ReportSummary {
        ReportSummary {
            id: id.into(),
            commit: Some(commit.into()),
            names: names.iter().map(|n| n.to_string()).collect(),
            time: Some(time),
            ..Default::default()
        }
    }

    fn ids(v: &[&ReportSummary]) -> Vec<String> {
        let mut v: Vec<String> = v.iter().map(|r| r.id.clone()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_page_links_the_reports_of_the_commits_its_replies_name_and_they_link_back() {
        let all = vec![
            r("a", "4591c3ef75aa", &["f628c7e5a7c0"], 5),
            r("b", "f628c7e5a7c0bb", &[], 4),
            r("c", "F628C7E5A7", &[], 3),
            r("d", "1111111111", &["4591c3ef75"], 2),
            r("e", "4591c3ef75", &["f628c7e5a7c0"], 1),
            r("f", "f628c7e5a7ff", &[], 0),
        ];
        let peers = Peers::of(&all);
        let a = peers.around(&all, &all[0]);
        assert_eq!(ids(&a.named), ["b", "c"], "its fix names f628c7e5a7c0: f628c7e5a7ff is another commit");
        assert_eq!(ids(&a.naming), ["d"], "d's replies name a's commit; e is a's own commit, listed as that");
        assert_eq!(ids(&a.same), ["e"]);
        let b = peers.around(&all, &all[1]);
        assert_eq!((ids(&b.named), ids(&b.naming)), (vec![], vec!["a".to_string(), "e".to_string()]));
        let f = peers.around(&all, &all[5]);
        assert!(f.named.is_empty() && f.naming.is_empty(), "a commit that shares 7 digits only is not named");
        let shown_with = |i: usize| peers.sharing(&all, &[&all[i]]).into_iter().collect::<Vec<_>>();
        assert_eq!(shown_with(0), ["a", "b", "c", "d", "e"], "a new a: the pages of what it names and of who names it");
        assert_eq!(shown_with(3), ["a", "d", "e"], "a new d: the pages of the reports of the commit it names");
    }
}
