//! `lkpx import --into DIR`: add inputs to a published dataset. Only the testcases the new
//! reports measure are rebuilt, from the report documents already in DIR plus the new reports;
//! every other testcase keeps its files. Because a testcase's files depend only on its own
//! reports, the result is byte-identical to a full import of all inputs.

use crate::build::dedup::dedup_documents;
use crate::build::docs::to_docs_reusing;
use crate::build::options::Options;
use crate::build::{build_testcases_each, split_by_testcase, testcases_of};
use crate::store::dataset::read;
use crate::store::pack;
use crate::store::publish::{Built, Publisher, Sweep, Written};
use model::{paths, ReportDoc, Root};
use reader::doc::Document;
use reader::docfile::from_doc;
use render::html::Html;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What an incremental import did.
pub struct Added {
    pub written: Written,
    pub root: Root,
    pub duplicates: usize,
}

/// The reports already in the dataset that the new ones touch: every report of every testcase
/// they measure (and of those an old report of the same id measures); with `close`, also of every
/// testcase those reports measure, and so on.
#[derive(Default)]
struct Loaded {
    docs: Vec<Document>,
    /// The report documents as they are on disk, by id: an old report the import leaves as it was is not
    /// written again.
    old_docs: BTreeMap<String, ReportDoc>,
    ids: BTreeSet<String>,
    testcases: BTreeSet<String>,
    /// Files named by the old catalogs of those testcases (candidates for removal).
    old_files: Vec<String>,
}

/// The page of a document read (`ReportDoc::page`), which carries its document once published.
fn page_of(d: &Document) -> String {
    paths::report_html(d.message_id.as_deref().unwrap_or(&reader::links::report_id(d)))
}

fn load_touched(dir: &Path, root: &Root, new: &[Document], close: bool) -> Result<Loaded, String> {
    let entries: BTreeMap<&str, &model::TestcaseEntry> = root.testcases.iter().map(|t| (t.name.as_str(), t)).collect();
    let script = |h: &str| std::fs::read_to_string(dir.join(paths::script(h))).ok();
    let mut l = Loaded::default();
    let mut queue: Vec<String> = new.iter().flat_map(testcases_of).collect();
    // the same report imported before (by id) may name other testcases
    for d in new {
        let rel = page_of(d);
        if dir.join(&rel).is_file() {
            let rd: ReportDoc = read(dir, &rel)?;
            queue.extend(add_doc(&mut l, rd, &script).map_err(|e| format!("{rel}: {e}"))?);
        }
    }
    while let Some(tc) = queue.pop() {
        if !l.testcases.insert(tc.clone()) {
            continue;
        }
        let Some(e) = entries.get(tc.as_str()) else { continue };
        let more = load_testcase(dir, e, &mut l, &script)?;
        if close {
            queue.extend(more);
        }
    }
    Ok(l)
}

/// Take the report documents of the testcase of `e` that `l` has not taken yet, and the names of
/// the files its catalog names; returns the testcases those reports measure.
fn load_testcase(
    dir: &Path,
    e: &model::TestcaseEntry,
    l: &mut Loaded,
    script: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<BTreeSet<String>, String> {
    let (cat, rest) = crate::store::dataset::read_catalog_and_rest(dir, &e.catalog)?;
    l.old_files.push(e.catalog.clone());
    l.old_files.extend(rest);
    l.old_files.extend(cat.chunks.iter().cloned());
    l.old_files.extend(cat.jobs.iter().map(|j| j.shard.clone()).filter(|s| !s.is_empty()));
    l.old_files.extend(cat.changes.iter().cloned());
    // the documents are read, parsed and made documents again on all cores, then taken in
    // catalog order
    use rayon::prelude::*;
    let todo: Vec<&model::ReportMeta> = cat.reports.iter().filter(|r| !l.ids.contains(&r.id)).collect();
    let read_docs: Vec<Result<(ReportDoc, Document), String>> = todo
        .par_iter()
        .map(|r| {
            let rd: ReportDoc = read(dir, &r.page())?;
            let d = from_doc(&rd, script).map_err(|e| format!("{}: {e}", r.page()))?;
            Ok((rd, d))
        })
        .collect();
    let mut more = BTreeSet::new();
    for (r, got) in todo.iter().zip(read_docs) {
        if l.ids.contains(&r.id) {
            continue;
        }
        let (rd, d) = got?;
        more.extend(add_parsed(l, rd, d));
    }
    Ok(more)
}

/// Take one old report document; returns the testcases it measures.
fn add_doc(l: &mut Loaded, rd: ReportDoc, script: &dyn Fn(&str) -> Option<String>) -> Result<BTreeSet<String>, String> {
    let d = from_doc(&rd, script)?;
    Ok(add_parsed(l, rd, d))
}

/// Take one old report document and the document it reads back as; returns the testcases it
/// measures (none when it was taken already).
fn add_parsed(l: &mut Loaded, rd: ReportDoc, d: Document) -> BTreeSet<String> {
    if !l.ids.insert(rd.id.clone()) {
        return BTreeSet::new();
    }
    let tcs = testcases_of(&d);
    l.docs.push(d);
    l.old_docs.insert(rd.id.clone(), rd);
    tcs
}

/// The old reports `new` touches, and all of them merged: the reports of the testcases the new ones
/// measure, or, when a new report merges with an old one (which may measure other testcases too),
/// closed over the testcases every report measures. Returns the documents and the merges among them.
fn load_and_merge(dir: &Path, root: &Root, new: Vec<Document>) -> Result<(Loaded, Vec<Document>, usize), String> {
    let mut loaded = load_touched(dir, root, &new, false)?;
    let mut all = std::mem::take(&mut loaded.docs);
    let fallback = new.clone();
    all.extend(new);
    let (docs, dups) = dedup_documents(all);
    if dups == 0 {
        return Ok((loaded, docs, 0));
    }
    let mut loaded = load_touched(dir, root, &fallback, true)?;
    let mut all = std::mem::take(&mut loaded.docs);
    all.extend(fallback);
    let (docs, dups) = dedup_documents(all);
    Ok((loaded, docs, dups))
}

/// Add `new` documents to the dataset in `dir`.
pub fn add(dir: &Path, new: Vec<Document>, opts: &Options) -> Result<Added, String> {
    add_with_state(dir, new, opts, None)
}

/// The testcases an import rebuilt or added to, and their reports.
struct Touched {
    /// Root entries of the testcases touched, and the trends of their pages.
    entries: Vec<Built>,
    testcases: BTreeSet<String>,
    /// Every report of the touched ones (old and new), and the ids of those unchanged on disk.
    reports: Vec<ReportDoc>,
    unchanged: BTreeSet<String>,
    scripts: BTreeMap<String, String>,
    /// The scripts the old versions of `reports` named (a merge may give a report another script).
    old_scripts: BTreeSet<String>,
    /// The old reports the import made again or merged into others (each is among `reports`, or
    /// merged away: a copy without a Message-ID merged into a mail under the mail's id).
    old_ids: BTreeSet<String>,
    /// Files the touched testcases' old catalogs named.
    old_files: Vec<String>,
    duplicates: usize,
}

/// Add the new reports to the testcases they measure from those testcases' published state
/// (`delta`) where that applies, and rebuild the others (and build new ones) from their report
/// documents: each new report new to the dataset (by id), with a Message-ID. `None` when no
/// testcase can be added to (a report imported before, or one that may merge with an old one).
fn from_published(
    dir: &Path,
    root: &Root,
    new: &[Document],
    opts: &Options,
    publisher: &Publisher,
) -> Result<Option<Touched>, String> {
    if new.iter().any(|d| d.message_id.is_none() || dir.join(page_of(d)).exists()) {
        crate::timing::note("into: not from the published state: a report without a Message-ID, or imported before");
        return Ok(None);
    }
    let docs = crate::build::sort_by_time(new.to_vec());
    let entries: BTreeMap<&str, &model::TestcaseEntry> = root.testcases.iter().map(|t| (t.name.as_str(), t)).collect();
    let by_tc = split_by_testcase(docs.clone());
    let testcases: BTreeSet<String> = by_tc.keys().cloned().collect();
    let mut added = Vec::new();
    // testcases rebuilt from their documents: new ones, and those the fast path does not apply to
    let mut rebuild: BTreeSet<String> = BTreeSet::new();
    // each testcase on the next free core, the biggest first
    use rayon::prelude::*;
    let mut todo: Vec<(String, Vec<Document>)> = by_tc.into_iter().collect();
    todo.sort_by_key(|(tc, _)| std::cmp::Reverse(entries.get(tc.as_str()).map_or(0, |e| e.points)));
    let tried: Vec<(String, Option<Result<crate::store::delta::Added, crate::store::delta::Skip>>)> = todo
        .into_par_iter()
        .map(|(tc, d)| {
            let got = entries
                .get(tc.as_str())
                .map(|e| crate::store::delta::add_testcase(dir, &tc, &e.catalog, d, opts, publisher.known()));
            (tc, got)
        })
        .collect();
    for (tc, got) in tried {
        let Some(got) = got else {
            rebuild.insert(tc);
            continue;
        };
        match got {
            Ok(a) => {
                crate::timing::note(&format!("into: {tc} added to from its published state"));
                added.push(a);
            }
            Err(crate::store::delta::Skip::Not(why)) => {
                crate::timing::note(&format!("into: {tc} not from the published state: {why}"));
                rebuild.insert(tc);
            }
            Err(crate::store::delta::Skip::Damaged(why)) => {
                eprintln!("lkpx: warning: {why}: {tc} rebuilt from its report documents");
                rebuild.insert(tc);
            }
            Err(crate::store::delta::Skip::Merge(why)) => {
                crate::timing::note(&format!("into: not from the published state: {tc}: {why}"));
                return Ok(None);
            }
            Err(crate::store::delta::Skip::Error(e)) => return Err(e),
        }
    }
    let writing = |e: std::io::Error| format!("writing {}: {e}", dir.display());
    let mut old_files = Vec::new();
    let mut written = Vec::new();
    for a in added {
        old_files.extend(a.old_files);
        written.push(publisher.testcase(a.packed).map_err(writing)?);
    }
    let rebuilt = rebuild_only(dir, &entries, &rebuild, &docs, opts, publisher)?;
    old_files.extend(rebuilt.1);
    written.extend(rebuilt.0);
    let (reports, scripts) = crate::build::docs::to_docs(&docs, opts);
    if rebuild.iter().all(|tc| !entries.contains_key(tc.as_str())) {
        crate::timing::note("into: added from the published state");
    }
    Ok(Some(Touched {
        entries: written,
        testcases,
        reports,
        unchanged: BTreeSet::new(),
        scripts,
        old_scripts: BTreeSet::new(),
        old_ids: BTreeSet::new(),
        old_files,
        duplicates: 0,
    }))
}

/// The scripts of `old` no report names any more: neither one of `reports` (the reports the import
/// made again) nor one of `others` (every other report of the dataset), whose report documents are
/// read only when a script may be gone. Scripts are shared by content (2015–2020 texts all say
/// `bin/lkp run job.yaml`), and a merge with the mail that carries the job's own `reproduce` gives
/// the report that script instead.
fn scripts_gone(
    dir: &Path,
    reports: &[ReportDoc],
    old: &BTreeSet<String>,
    others: &[model::ReportSummary],
) -> BTreeSet<String> {
    let named: BTreeSet<&str> = reports.iter().filter_map(|r| r.script.as_deref()).collect();
    let mut gone: BTreeSet<String> = old.iter().filter(|h| !named.contains(h.as_str())).cloned().collect();
    if gone.is_empty() {
        return gone;
    }
    use rayon::prelude::*;
    let still: Result<Vec<Option<String>>, String> =
        others.par_iter().map(|s| read::<ReportDoc>(dir, &s.page()).map(|d| d.script)).collect();
    match still {
        Ok(still) => {
            for h in still.iter().flatten() {
                gone.remove(h);
            }
            gone
        }
        // a damaged document of another report may name one: keep them all (`lkpx check` names it)
        Err(e) => {
            eprintln!("lkpx: warning: {e}: the reproduce scripts a merge left unnamed are kept");
            BTreeSet::new()
        }
    }
}

/// Build the testcases `tcs` from their old report documents and the `new` ones (no report merges
/// with another: `from_published` made sure); returns their root entries and the files their old
/// catalogs named.
fn rebuild_only(
    dir: &Path,
    entries: &BTreeMap<&str, &model::TestcaseEntry>,
    tcs: &BTreeSet<String>,
    new: &[Document],
    opts: &Options,
    publisher: &Publisher,
) -> Result<(Vec<Built>, Vec<String>), String> {
    let script = |h: &str| std::fs::read_to_string(dir.join(paths::script(h))).ok();
    let mut l = Loaded::default();
    for tc in tcs {
        if let Some(e) = entries.get(tc.as_str()) {
            load_testcase(dir, e, &mut l, &script)?;
        }
    }
    let mut docs = std::mem::take(&mut l.docs);
    docs.extend(new.iter().cloned());
    let mut by_tc = split_by_testcase(crate::build::sort_by_time(docs));
    by_tc.retain(|tc, _| tcs.contains(tc));
    Ok((build_and_publish(dir, by_tc, opts, publisher)?, l.old_files))
}

/// Build each testcase from its documents, pack it and hand its files to `publisher`; returns
/// their root entries and trends.
fn build_and_publish(
    dir: &Path,
    by_tc: BTreeMap<String, Vec<Document>>,
    opts: &Options,
    publisher: &Publisher,
) -> Result<Vec<Built>, String> {
    let built = build_testcases_each(by_tc, opts, &|t| publisher.testcase(pack::testcase_files(t, publisher.known())));
    built.into_iter().collect::<std::io::Result<Vec<_>>>().map_err(|e| format!("writing {}: {e}", dir.display()))
}

/// Rebuild the testcases the new reports measure from their report documents (old and new).
fn rebuilt(
    dir: &Path,
    root: &Root,
    new: Vec<Document>,
    opts: &Options,
    publisher: &Publisher,
) -> Result<Touched, String> {
    let (mut loaded, docs, dups_old) = load_and_merge(dir, root, new)?;
    let old_docs = std::mem::take(&mut loaded.old_docs);
    let docs = crate::build::sort_by_time(docs);
    // nothing merged: every old document is read back as it was, and so is its report document
    let unmerged = if dups_old == 0 { &old_docs } else { &BTreeMap::new() };
    let (reports, scripts) = to_docs_reusing(&docs, unmerged, opts);
    // a report document equal to the one on disk has the same bytes there already
    let unchanged = reports.iter().filter(|r| old_docs.get(&r.id) == Some(*r)).map(|r| r.id.clone()).collect();
    // an old report that also measures a testcase the new ones do not leaves that testcase as it was
    let mut by_tc = split_by_testcase(docs);
    by_tc.retain(|tc, _| loaded.testcases.contains(tc));
    Ok(Touched {
        entries: build_and_publish(dir, by_tc, opts, publisher)?,
        testcases: loaded.testcases,
        reports,
        unchanged,
        scripts,
        old_scripts: old_docs.values().filter_map(|d| d.script.clone()).collect(),
        old_ids: loaded.ids,
        old_files: loaded.old_files,
        duplicates: dups_old,
    })
}

/// The search terms of the dataset's reports but those `dropped` (rewritten or gone): its index
/// turned around (`index`, read by `OldLists::read`), or, for a dataset from before the index, the
/// terms of every document of `all`; and the old index's files (its own and those it names), to
/// remove once the new one is written.
fn old_terms(
    dir: &Path,
    index: Option<(pack::Terms, Vec<String>)>,
    all: &[model::ReportSummary],
    dropped: &dyn Fn(&str) -> bool,
) -> Result<(pack::Terms, Vec<String>), String> {
    let Some((mut terms, files)) = index else {
        let mut terms = pack::Terms::default();
        for r in all.iter().filter(|r| !dropped(&r.id)) {
            terms.add(&read::<ReportDoc>(dir, &r.page())?);
        }
        return Ok((terms, Vec::new()));
    };
    terms.reports.values_mut().for_each(|ids| ids.retain(|id| !dropped(id)));
    Ok((terms, files))
}

/// What `--into` reads of the old lists, beside the testcases' build (it needs nothing of it).
struct OldLists {
    /// Every old summary (the list's pages; a dataset without pages has only `newest`).
    summaries: Vec<model::ReportSummary>,
    /// The old search index turned around: every term's reports, and its files; `None` for a
    /// dataset from before the index.
    index: Option<(pack::Terms, Vec<String>)>,
}

impl OldLists {
    fn read(dir: &Path, root: &Root) -> Result<OldLists, String> {
        let mut summaries: Vec<model::ReportSummary> = root.newest.clone();
        for p in &root.pages {
            summaries.extend(read::<model::ReportPage>(dir, p)?.reports);
        }
        let index = if root.search.is_empty() { None } else { Some(old_index(dir, root)?) };
        Ok(OldLists { summaries, index })
    }
}

/// Every term of the published search index with its reports, and the index's files.
fn old_index(dir: &Path, root: &Root) -> Result<(pack::Terms, Vec<String>), String> {
    let mut terms = pack::Terms::default();
    let index: model::search::SearchIndex = read(dir, &root.search)?;
    let mut files: Vec<String> = index.files().collect();
    files.push(root.search.clone());
    // only files under q/ are the index's to remove
    if let Some(bad) = files.iter().find(|f| !f.starts_with("q/") || f.split('/').any(|p| p == ".." || p.is_empty())) {
        return Err(format!("{}: names {bad:?}, not a file of the search index", root.search));
    }
    for (segment, recent) in [(&index.main, false), (&index.recent, true)] {
        // the segment's reports by ordinal: its summaries in order
        let mut ids: Vec<String> = Vec::with_capacity(segment.reports as usize);
        for rel in segment.summary_files() {
            ids.extend(read::<model::ReportPage>(dir, &rel)?.reports.into_iter().map(|r| r.id));
        }
        for rel in segment.shard_files() {
            for p in read::<model::search::SearchShard>(dir, &rel)?.terms {
                // (a recent list is whole unless the week had more reports of a term than a list holds)
                if p.capped && !recent {
                    terms.capped.insert(p.term.clone());
                }
                let listed = p
                    .ordinals()
                    .into_iter()
                    .map(|o| ids.get(o as usize).cloned().ok_or_else(|| format!("{rel}: {}: no report {o}", p.term)));
                let listed = listed.collect::<Result<Vec<String>, String>>()?;
                terms.reports.entry(p.term).or_default().extend(listed);
            }
        }
    }
    Ok((terms, files))
}

/// The trend of the page of testcase `tc`, which the import did not rebuild: as its page shows it,
/// else (no page, or none there) made from its published catalog.
fn kept_trend(dir: &Path, root: &Root, tc: &str, page: &dyn Fn(&str) -> Option<String>) -> Option<Html> {
    let shown = page(&paths::list_html(&paths::testcase_list(tc), None)).and_then(|p| render::trend::of_page(&p));
    shown.or_else(|| {
        let e = root.testcases.iter().find(|e| e.name == tc)?;
        crate::store::dataset::published_trend(dir, e)
            .inspect_err(|e| eprintln!("lkpx: warning: {e}: the page of {tc} shows no trend"))
            .ok()
            .flatten()
    })
}

/// Add `new` documents and, when given, replace the archives' state (else the dataset keeps its own).
pub fn add_with_state(
    dir: &Path,
    new: Vec<Document>,
    opts: &Options,
    state: Option<&model::ArchiveState>,
) -> Result<Added, String> {
    let root: Root = read(dir, paths::INDEX).map_err(|e| {
        format!("--into {}: {e} (create the dataset first with `lkpx import --out DIR`)", dir.display())
    })?;
    let mut stages = crate::timing::Stages::new(std::time::Instant::now());
    let (new, dups_new) = dedup_documents(new);
    let writing = |e: std::io::Error| format!("writing {}: {e}", dir.display());
    let publisher = Publisher::new(dir).map_err(writing)?;
    let (t, lists) = std::thread::scope(|s| {
        // the old lists do not depend on the testcases: read beside their build
        let lists = s.spawn(|| OldLists::read(dir, &root));
        let t = match from_published(dir, &root, &new, opts, &publisher) {
            Ok(Some(t)) => Ok(t),
            Ok(None) => rebuilt(dir, &root, new, opts, &publisher),
            Err(e) => Err(e),
        };
        (t, lists.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    });
    let (mut t, lists) = (t?, lists?);
    stages.mark("into: the testcases built, packed and written (the old lists read beside)");
    let ids: BTreeSet<&str> = t.reports.iter().map(|r| r.id.as_str()).collect();
    let mut entries: Vec<model::TestcaseEntry> =
        root.testcases.iter().filter(|e| !t.testcases.contains(&e.name)).cloned().collect();
    let (built, trends) = Built::apart(std::mem::take(&mut t.entries));
    entries.extend(built);
    let mut files: Vec<pack::File> = Vec::new();
    files.extend(pack::script_files(&t.scripts));
    let (mut summaries, before): (Vec<model::ReportSummary>, Vec<model::ReportSummary>) =
        lists.summaries.into_iter().partition(|s| !ids.contains(s.id.as_str()) && !t.old_ids.contains(&s.id));
    let gone = scripts_gone(dir, &t.reports, &t.old_scripts, &summaries);
    summaries.extend(t.reports.iter().map(model::ReportSummary::listed));
    let total = root.totals.reports + ids.len() - t.old_ids.len();
    let all = pack::newest_first(summaries);
    let changed: BTreeSet<&str> =
        t.reports.iter().filter(|r| !t.unchanged.contains(&r.id)).map(|r| r.id.as_str()).collect();
    let pages: BTreeMap<&str, String> = all.iter().map(|s| (s.id.as_str(), s.page())).collect();
    let read_doc = |id: &str| read::<ReportDoc>(dir, pages.get(id).ok_or_else(|| format!("no report {id}"))?);
    let read_page = |path: &str| std::fs::read_to_string(dir.join(path)).ok();
    let trend = |tc: &str| match t.testcases.contains(tc) {
        true => trends.get(tc).cloned(),
        false => kept_trend(dir, &root, tc, &read_page),
    };
    let kept = crate::store::pages::Kept { doc: &read_doc, page: &read_page, trend: &trend };
    let (page_files, pages_gone) = crate::store::pages::incremental_files(&all, &t.reports, &changed, &before, &kept);
    files.extend(page_files);
    stages.mark("into: the reports' pages");
    let (mut terms, old_index) = old_terms(dir, lists.index, &all, &|id| ids.contains(id) || t.old_ids.contains(id))?;
    t.reports.iter().for_each(|d| terms.add(d));
    stages.mark("into: the search index's terms");
    let (mut new_root, list_files) = pack::root(entries, total, all, terms, publisher.known());
    publisher.stored(list_files).map_err(writing)?;
    stages.mark("into: the reports list and the search index");
    let mut old_files = t.old_files;
    old_files.extend(root.pages.iter().chain(root.by_job.iter().filter(|f| !f.is_empty())).cloned());
    old_files.extend(old_index);
    old_files.extend(gone.iter().map(|h| paths::script(h)));
    old_files.extend(pages_gone);
    match (state, &root.archives) {
        (Some(s), old) => {
            let (r, file) = crate::archive::with_state(new_root, s);
            new_root = r;
            old_files.extend(old.iter().filter(|o| **o != file.0).cloned());
            files.push(file);
        }
        (None, Some(old)) => {
            new_root = crate::archive::with_state_path(new_root, old);
            files.push((old.clone(), std::fs::read(dir.join(old)).map_err(|e| format!("{old}: {e}"))?));
        }
        (None, None) => {}
    }
    publisher.write(&files).map_err(writing)?;
    let written = publisher.finish(&new_root, Sweep::Only(&old_files)).map_err(writing)?;
    stages.mark("into: write them, sync, switch the root");
    Ok(Added { written, root: new_root, duplicates: dups_new + t.duplicates })
}
