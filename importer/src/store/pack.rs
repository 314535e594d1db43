//! The built dataset as files: trend series grouped into chunks, every file but the root and the
//! report documents named by a hash of its bytes (so a file never changes under its name, and an
//! import that leaves a testcase alone leaves its files alone), catalogs naming their files, and
//! the root naming the catalogs.

use crate::build::series::KeyedPoints;
use crate::build::{Dataset, TestcaseData};
use crate::store::known::{print, Known};
use model::search::SearchIndex;
use model::wire::SeriesRef;
use model::{
    paths, ChangeRecord, ChangeSource, ChangesShard, Index, JobShardOut, MetricInfo, ReportDoc, ReportPage,
    ReportSummary, Root, SeriesData, TestcaseEntry, Totals, TrendChunkOut, BY_JOB, NEWEST, PAGE, SCHEMA_VERSION,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use crate::store::File;

pub use crate::store::{at_rest, json, stored};

/// At most this many metrics of a testcase get a trend chunk of their own (`own_chunks`).
pub const OWN_CHUNKS: usize = 16;

/// The metrics a testcase's first charts show, each given a chunk of its own so that opening one
/// fetches its series only: its mails' headline metrics (most reported first: the first screen
/// shows the newest one's), then its KPI metrics named after it, then its other KPI metrics (by
/// name); at most `OWN_CHUNKS`. Values are chunk keys after the `n` hash buckets.
pub(crate) fn own_chunks(cat: &model::Index, n: u32) -> BTreeMap<String, u32> {
    let Some(t) = cat.testcases.first() else { return BTreeMap::new() };
    // a catalog's metrics are sorted by name
    let known = |m: &str| cat.metrics.binary_search_by(|x| x.name.as_str().cmp(m)).is_ok();
    let prefix = format!("{}.", t.name);
    let prefix = prefix.as_str();
    let kpi = |own: bool| cat.metrics.iter().filter(move |m| m.kpi && m.name.starts_with(prefix) == own);
    let mut picked: Vec<&str> = Vec::new();
    let candidates = t.headline_metrics.iter().map(String::as_str).filter(|m| known(m));
    for m in candidates.chain(kpi(true).map(|m| m.name.as_str())).chain(kpi(false).map(|m| m.name.as_str())) {
        if picked.len() == OWN_CHUNKS {
            break;
        }
        if !picked.contains(&m) {
            picked.push(m);
        }
    }
    picked.into_iter().enumerate().map(|(i, m)| (m.to_string(), n + i as u32)).collect()
}

/// One testcase packed: its root entry, the files to write, and the value files already in the
/// directory that it names (`Known`).
pub struct Packed {
    pub entry: TestcaseEntry,
    /// Its files, and the value files already there, kept as they are.
    pub stored: Stored,
    /// The trend its page shows (`render::trend::of_testcase`).
    pub trend: Option<render::html::Html>,
}

/// Values as files, in parallel: each named `path` of its fingerprint (`known::print`), and
/// serialised only when that file is not there yet. Returns the paths in the values' order.
pub(crate) fn named<T: serde::Serialize + Sync>(
    values: &[T],
    known: &Known,
    path: &(dyn Fn(&str) -> String + Sync),
    out: &mut Packed,
) -> Vec<String> {
    use rayon::prelude::*;
    let done: Vec<Result<File, (String, u64)>> = values
        .par_iter()
        .map(|v| {
            let rel = path(&print(v));
            match known.size(&rel) {
                Some(len) => Err((rel, len)),
                None => Ok((rel, stored(v))),
            }
        })
        .collect();
    let mut paths = Vec::with_capacity(done.len());
    for f in done {
        match f {
            Ok(file) => {
                paths.push(file.0.clone());
                out.stored.files.push(file);
            }
            Err((rel, len)) => {
                paths.push(rel.clone());
                out.stored.kept.push((rel, len));
            }
        }
    }
    paths
}

/// One testcase's files (chunks, job shards, changes, then its catalog) and its root entry;
/// the files of values `known` has are named, not serialised again.
pub fn testcase_files(t: TestcaseData, known: &Known) -> Packed {
    let TestcaseData { name, catalog: mut cat, mut series, detected, .. } = t;
    let tc = &name;
    let mut stages = crate::timing::Stages::new(std::time::Instant::now());
    let mut out = Packed { entry: TestcaseEntry::default(), stored: Stored::default(), trend: None };
    for (_, p) in &mut series {
        p.drop_empty_columns();
    }
    job_files(tc, &series, &mut cat, known, &mut out);
    stages.mark(&format!("{tc}: pack: job files"));
    out.trend = page_trend(&cat, &series);
    stages.mark(&format!("{tc}: pack: the trend of its page"));
    let n = paths::chunk_count(cat.totals.points);
    let own = own_chunks(&cat, n);
    chunk_files(tc, &series, &detected, &own, &mut cat, known, &mut out);
    stages.mark(&format!("{tc}: pack: chunks"));
    cat.changes = changes_files(tc, &series, &detected, &cat, known, &mut out);
    drop(series);
    stages.mark(&format!("{tc}: pack: changes pages"));
    catalog_files(tc, cat, &own, &mut out);
    stages.mark(&format!("{tc}: pack: catalog"));
    out
}

/// A series of the build as it is written (`model::wire::SeriesRef`), with or without its runs.
fn series_ref(((job, metric), points): &KeyedPoints, values: bool) -> SeriesRef<'_> {
    SeriesRef { job: *job, metric, points, values }
}

/// Every job's file (every series of the job, with the per-run values Distribution draws), named
/// in its job of `cat`. The series (in job, then metric order) are written where they are, not
/// moved into `JobShard`s: a big testcase's are the most an import holds, and moving them held
/// them twice.
fn job_files(tc: &str, series: &[KeyedPoints], cat: &mut Index, known: &Known, out: &mut Packed) {
    let mut runs: Vec<&[KeyedPoints]> = series.chunk_by(|a, b| a.0 .0 == b.0 .0).collect();
    runs.retain(|run| {
        let job = &mut cat.jobs[run[0].0 .0 as usize];
        job.report = only_report(run.iter().map(|(_, p)| &**p));
        job.shard.clear();
        job.report.is_none()
    });
    let shards: Vec<JobShardOut> = runs
        .iter()
        .map(|run| JobShardOut {
            schema: SCHEMA_VERSION,
            job: &cat.jobs[run[0].0 .0 as usize].id,
            series: run.iter().map(|s| series_ref(s, true)).collect(),
        })
        .collect();
    let paths = named(&shards, known, &|h| paths::job_shard(tc, h), out);
    drop(shards);
    for (run, path) in runs.iter().zip(paths) {
        cat.jobs[run[0].0 .0 as usize].shard = path;
    }
}

/// The report whose rows are every observation of a job's series, when there is one: the job's
/// compare file is then made from its document (`model::JobShard::of_report`), not written.
pub fn only_report<'a>(series: impl IntoIterator<Item = &'a model::Points>) -> Option<u32> {
    let mut reports = series.into_iter().flat_map(|p| p.report.iter().copied());
    let first = reports.next()?;
    reports.all(|r| r == first).then_some(first)
}

/// The trend a testcase's page shows: its headline metric's series (`render::trend`).
fn page_trend(cat: &Index, series: &[KeyedPoints]) -> Option<render::html::Html> {
    let metric = render::trend::metric_of(cat)?;
    let shown: Vec<SeriesData> = series
        .iter()
        .filter(|((_, m), _)| m == metric)
        .map(|((job, m), p)| SeriesData { job: *job, metric: m.clone(), points: (**p).clone() })
        .collect();
    render::trend::of_testcase(cat, &shown.iter().collect::<Vec<_>>())
}

/// The trend chunks: the series without their runs (the trend draws means and bands) and the
/// steps detected along them, grouped by their metric's chunk (`own`, else its name's hash
/// bucket): only the non-empty buckets, in bucket order, then the own chunks. Each metric of
/// `cat` is given its chunk's position.
fn chunk_files(
    tc: &str,
    series: &[KeyedPoints],
    changes: &[ChangeRecord],
    own: &BTreeMap<String, u32>,
    cat: &mut Index,
    known: &Known,
    out: &mut Packed,
) {
    let n = paths::chunk_count(cat.totals.points);
    let chunk_key = |m: &str| own.get(m).copied().unwrap_or_else(|| paths::chunk_of(m, n));
    let mut buckets: BTreeMap<u32, TrendChunkOut> = BTreeMap::new();
    let empty = || TrendChunkOut { schema: SCHEMA_VERSION, testcase: tc, series: Vec::new(), detected: Vec::new() };
    for s in series {
        buckets.entry(chunk_key(&s.0 .1)).or_insert_with(empty).series.push(series_ref(s, false));
    }
    for c in changes.iter().filter(|c| c.source == ChangeSource::Detected) {
        if let Some(b) = buckets.get_mut(&chunk_key(&c.metric)) {
            b.detected.push(c);
        }
    }
    let bucket_pos: BTreeMap<u32, u32> = buckets.keys().enumerate().map(|(i, b)| (*b, i as u32)).collect();
    cat.chunk_keys = buckets.keys().copied().collect();
    let chunks: Vec<TrendChunkOut> = buckets.into_values().collect();
    cat.chunks = named(&chunks, known, &|h| paths::trend_chunk(tc, h), out);
    for m in &mut cat.metrics {
        m.chunk = bucket_pos.get(&chunk_key(&m.name)).copied().unwrap_or(0);
    }
}

/// A whole catalog (its files named) as its three parts' files, and the testcase's root entry.
pub(crate) fn catalog_files(tc: &str, cat: Index, own: &BTreeMap<String, u32>, out: &mut Packed) {
    use rayon::prelude::*;
    let (spine, rest, names) = split_catalog(cat, own);
    let (rest_json, names_json) = rayon::join(|| json(&rest), || json(&names));
    let part = |bytes: &[u8]| paths::catalog_rest(tc, &paths::content_hash(bytes));
    let (rest_path, names_path) = (part(&rest_json), part(&names_json));
    let spine = Index { rest: Some(rest_path.clone()), names: Some(names_path.clone()), ..spine };
    let spine_json = json(&spine);
    let path = paths::catalog(tc, &paths::content_hash(&spine_json));
    // the three stored side by side: a big testcase's catalog is an `--into`'s largest file
    let parts = [(rest_path, rest_json), (names_path, names_json), (path.clone(), spine_json)];
    out.stored.files.extend(parts.into_par_iter().map(|(p, json)| (p, at_rest(&json))).collect::<Vec<File>>());
    out.entry = entry(&spine, names.metrics.len(), path);
}

/// A change's place in build order: its series, then its place among the series' changes
/// (`ChangeRules::of`).
type BuildPos = (u32, u32);

/// The first page of a testcase's changes (`first_page`), made from its series (with the steps
/// `detected` along them, in series order) without holding them all: a big testcase has a change
/// or two for most of its millions of series. The Changes view makes the others from the trend
/// chunks (`model::assemble::Part::chunk_changes`). Returns the page's path (none without changes).
fn changes_files(
    tc: &str,
    series: &[KeyedPoints],
    detected: &[ChangeRecord],
    cat: &Index,
    known: &Known,
    out: &mut Packed,
) -> Vec<String> {
    let rules = crate::build::changes::ChangeRules::new(&cat.headlines, &cat.metrics);
    let steps = steps_of(series, detected);
    // a series' changes in build order (`ChangeRules::of`): stated, then detected
    let made = |i: u32, v: &mut Vec<ChangeRecord>| {
        rules.stated(&series[i as usize], v);
        if let Some(r) = steps.get(&i) {
            v.extend_from_slice(&detected[r.clone()]);
        }
    };
    let first: Vec<ChangeRecord> = first_changes(series.len(), &made).into_iter().map(|(_, c)| c).collect();
    if first.is_empty() {
        return Vec::new();
    }
    let page = ChangesShard { schema: SCHEMA_VERSION, testcase: tc.to_string(), changes: first };
    named(&[page], known, &|h| paths::changes(tc, h), out)
}

/// Each series' detected steps (`detected`, in series order) by the series' position.
fn steps_of(series: &[KeyedPoints], detected: &[ChangeRecord]) -> HashMap<u32, std::ops::Range<usize>> {
    let mut steps = HashMap::new();
    let mut d = 0;
    for (i, ((j, m), _)) in series.iter().enumerate() {
        let start = d;
        while d < detected.len() && detected[d].job == *j && detected[d].metric == *m {
            d += 1;
        }
        if d > start {
            steps.insert(i as u32, start..d);
        }
    }
    assert_eq!(d, detected.len(), "the detected steps are in series order");
    steps
}

/// The first page of a testcase's changes (the top `CHANGES_FIRST` in the listing order, ties in
/// build order) with their places.
fn first_changes(series: usize, made: &(dyn Fn(u32, &mut Vec<ChangeRecord>) + Sync)) -> Vec<(BuildPos, ChangeRecord)> {
    use rayon::prelude::*;
    const PART: u32 = 4096;
    let order = |a: &(BuildPos, ChangeRecord), b: &(BuildPos, ChangeRecord)| {
        ChangeRecord::listing_order(&a.1, &b.1).then(a.0.cmp(&b.0))
    };
    let keep = |top: &mut Vec<(BuildPos, ChangeRecord)>| {
        top.sort_by(order);
        top.truncate(model::CHANGES_FIRST);
    };
    let parts: Vec<Vec<(BuildPos, ChangeRecord)>> = (0..(series as u32).div_ceil(PART))
        .into_par_iter()
        .map(|n| {
            let (mut top, mut v) = (Vec::new(), Vec::new());
            // once the part has a full page: the last of it, which a later change (later in build
            // order) must come strictly before to enter
            let mut last: Option<ChangeRecord> = None;
            for i in n * PART..(series as u32).min((n + 1) * PART) {
                made(i, &mut v);
                let enters = |c: &ChangeRecord| last.as_ref().is_none_or(|l| ChangeRecord::listing_order(c, l).is_lt());
                let new = v.drain(..).enumerate().filter(|(_, c)| enters(c));
                top.extend(new.map(|(k, c)| ((i, k as u32), c)));
                if top.len() > 2 * model::CHANGES_FIRST {
                    keep(&mut top);
                    last = top.last().map(|t| t.1.clone());
                }
            }
            keep(&mut top);
            top
        })
        .collect();
    let mut top: Vec<(BuildPos, ChangeRecord)> = parts.into_iter().flatten().collect();
    keep(&mut top);
    top
}

/// A whole catalog as its three published parts: what the first chart needs (commits, jobs,
/// headlines, the metrics of `own` with their chunks, which reports are quiet), its rest (every
/// report and chunk, and the chunks' keys) and its names (every metric). `Index::complete` puts
/// them back together.
pub fn split_catalog(mut cat: Index, own: &BTreeMap<String, u32>) -> (Index, Index, Index) {
    let quiet = quiet_ranges(&cat.reports);
    let rest = Index {
        schema: cat.schema,
        reports: std::mem::take(&mut cat.reports),
        chunks: std::mem::take(&mut cat.chunks),
        chunk_keys: std::mem::take(&mut cat.chunk_keys),
        metrics: Vec::new(),
        ..Default::default()
    };
    let names = Index { schema: cat.schema, metrics: std::mem::take(&mut cat.metrics), ..Default::default() };
    for m in names.metrics.iter().filter(|m| own.contains_key(&m.name)) {
        let path = &rest.chunks[m.chunk as usize];
        let chunk = cat.chunks.iter().position(|c| c == path).unwrap_or_else(|| {
            cat.chunks.push(path.clone());
            cat.chunks.len() - 1
        });
        cat.metrics.push(MetricInfo { chunk: chunk as u32, ..m.clone() });
    }
    (Index { quiet, ..cat }, rest, names)
}

/// The positions of the reports whose unprinted stddevs are small, as half-open ranges, flat
/// (`Index::quiet`).
fn quiet_ranges(reports: &[model::ReportMeta]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for (i, _) in reports.iter().enumerate().filter(|(_, r)| r.omits_small_stddev()) {
        let i = i as u32;
        match out.last_mut() {
            Some(end) if *end == i => *end = i + 1,
            _ => out.extend([i, i + 1]),
        }
    }
    out
}

/// The reproduce scripts (by content hash) as files.
pub fn script_files(scripts: &BTreeMap<String, String>) -> Vec<File> {
    scripts.iter().map(|(h, text)| (paths::script(h), text.clone().into_bytes())).collect()
}

/// What the root says about a testcase, from its named catalog.
fn entry(cat: &Index, metrics: usize, path: String) -> TestcaseEntry {
    let info = cat.testcases.first().cloned().unwrap_or_default();
    let mut facets: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    for j in &cat.jobs {
        *facets.entry("machine".into()).or_default().entry(j.machine.clone()).or_default() += 1;
        for (k, v) in &j.params {
            *facets.entry(k.clone()).or_default().entry(v.clone()).or_default() += 1;
        }
    }
    TestcaseEntry {
        name: info.name,
        catalog: path,
        reports: cat.totals.reports,
        jobs: cat.totals.jobs,
        metrics,
        series: cat.totals.series,
        points: cat.totals.points,
        rows: cat.totals.rows,
        commits: cat.commits.len(),
        detected: info.detected,
        headline_metrics: info.headline_metrics.into_iter().take(5).collect(),
        facets,
    }
}

/// A report document whole as stored (gzip JSON), with the path of the file that carries it: its
/// page (`paths::page_doc`), which `pages::report_file` writes with the document as it carries it
/// (`store::carried`). A full import holds these bytes until the page is written.
pub fn report_doc(rd: &ReportDoc) -> File {
    (rd.page(), stored(rd))
}

/// Every summary of `all` once, newest first (undated last).
pub fn newest_first(mut all: Vec<ReportSummary>) -> Vec<ReportSummary> {
    all.sort_by(|a, b| b.time.unwrap_or(i64::MIN).cmp(&a.time.unwrap_or(i64::MIN)).then(a.id.cmp(&b.id)));
    all.dedup_by(|a, b| a.id == b.id);
    all
}

/// The pages of the reports list over `all` (newest first) as JSON (`Stored::of`), and their paths
/// in order.
pub fn report_pages(all: &[ReportSummary]) -> (Vec<File>, Vec<String>) {
    let files: Vec<File> = all.chunks(PAGE).map(|chunk| page_file(chunk.to_vec())).collect();
    let names = files.iter().map(|f| f.0.clone()).collect();
    (files, names)
}

/// One file of the reports list (a page, or the reports of some jobs) as JSON, named by its bytes.
fn page_file(reports: Vec<ReportSummary>) -> File {
    let bytes = json(&ReportPage { schema: SCHEMA_VERSION, reports });
    (paths::report_page(&paths::content_hash(&bytes)), bytes)
}

/// The reports of `all` (newest first) grouped by job into a power of two of files of about
/// `BY_JOB` reports (`Root::by_job`) as JSON (`Stored::of`), and their paths by bucket ("" for an
/// empty one).
pub fn by_job_files(all: &[ReportSummary]) -> (Vec<File>, Vec<String>) {
    let n = all.len().div_ceil(BY_JOB).next_power_of_two() as u32;
    let mut buckets: Vec<Vec<ReportSummary>> = vec![Vec::new(); n as usize];
    for r in all {
        if let Some(key) = r.job_key() {
            buckets[paths::bucket_of(&key, n) as usize].push(r.clone());
        }
    }
    let mut files = Vec::new();
    let mut names = Vec::new();
    for reports in buckets {
        if reports.is_empty() {
            names.push(String::new());
            continue;
        }
        let file = page_file(reports);
        names.push(file.0.clone());
        files.push(file);
    }
    (files, names)
}

/// What the search index is made of: each term's reports (ids, any order), and the terms an
/// earlier index listed capped (`Posting::capped`: it kept only their newest reports).
#[derive(Debug, Default)]
pub struct Terms {
    pub reports: BTreeMap<String, BTreeSet<String>>,
    pub capped: BTreeSet<String>,
}

impl Terms {
    /// Every term of every report document.
    pub fn of(docs: &[ReportDoc]) -> Terms {
        let mut t = Terms::default();
        for d in docs {
            t.add(d);
        }
        t
    }

    pub fn add(&mut self, d: &ReportDoc) {
        self.insert(&d.id, model::search::terms_of(d));
    }

    /// The terms of each report (its id, `model::search::terms_of` its document), as `of`.
    pub fn of_each(each: Vec<(String, Vec<String>)>) -> Terms {
        let mut t = Terms::default();
        for (id, terms) in each {
            t.insert(&id, terms);
        }
        t
    }

    fn insert(&mut self, id: &str, terms: Vec<String>) {
        for term in terms {
            self.reports.entry(term).or_default().insert(id.to_string());
        }
    }
}

/// The search index over `all` (newest first), in two segments by `SearchIndex::since`: each
/// term's reports newest first (the newest `POSTINGS_MAX`, capped), and the reports' summaries
/// (`search::Segment`); the capped terms listed apart.
pub fn search_files(all: &[ReportSummary], terms: Terms) -> (Vec<File>, SearchIndex) {
    let (files, index) = search_json(all, terms);
    (files.into_iter().map(|(rel, bytes)| (rel, at_rest(&bytes))).collect(), index)
}

/// `search_files` as JSON, not yet stored (`Stored::of`).
fn search_json(all: &[ReportSummary], terms: Terms) -> (Vec<File>, SearchIndex) {
    use model::search::{Posting, POSTINGS_MAX};
    let mut index = SearchIndex {
        schema: SCHEMA_VERSION,
        since: all.iter().filter_map(|r| r.time).max().map(model::search::recent_since),
        ..Default::default()
    };
    let since = index.since.unwrap_or(i64::MAX);
    // newest first; a report without a date is among the older ones
    let (new, old): (Vec<&ReportSummary>, Vec<&ReportSummary>) =
        all.iter().partition(|r| r.time.is_some_and(|t| t >= since));
    let ordinal: HashMap<&str, (bool, u32)> = (new.iter().enumerate().map(|(i, r)| (r.id.as_str(), (true, i as u32))))
        .chain(old.iter().enumerate().map(|(i, r)| (r.id.as_str(), (false, i as u32))))
        .collect();
    let (mut main, mut recent): (Vec<Posting>, Vec<Posting>) = (Vec::new(), Vec::new());
    for (term, ids) in terms.reports {
        let (mut r, mut m): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        for (is_new, o) in ids.iter().filter_map(|id| ordinal.get(id.as_str())) {
            if *is_new { &mut r } else { &mut m }.push(*o);
        }
        let posting = |mut ordinals: Vec<u32>, carried: bool, out: &mut Vec<Posting>| {
            if !ordinals.is_empty() {
                ordinals.sort_unstable();
                let capped = ordinals.len() > POSTINGS_MAX || carried;
                out.push(Posting::new(term.clone(), &ordinals[..ordinals.len().min(POSTINGS_MAX)], capped));
            }
        };
        posting(r, false, &mut recent);
        posting(m, terms.capped.contains(&term), &mut main);
    }
    let mut common: Vec<String> = main.iter().chain(&recent).filter(|p| p.capped).map(|p| p.term.clone()).collect();
    common.sort();
    common.dedup();
    let mut files = Vec::new();
    if !common.is_empty() {
        let bytes = json(&model::search::CommonTerms { schema: SCHEMA_VERSION, terms: common });
        index.common = paths::search_named(&paths::content_hash(&bytes));
        files.push((index.common.clone(), bytes));
    }
    index.main = segment_files(main, &old, &mut files);
    index.recent = segment_files(recent, &new, &mut files);
    files.push((index_path(&index), json(&index)));
    (files, index)
}

/// The path of the file of `index` (`Root::search`), named by its content hash.
pub fn index_path(index: &SearchIndex) -> String {
    paths::search_named(&paths::content_hash(&json(index)))
}

/// A segment of the index over `postings` and `reports` (newest first: the ordinals), its files
/// added to `files`: the postings in a power of two of shards by the term's hash, about
/// `SHARD_POSTINGS` each; the summaries in order, `SUMMARIES` a file; in a folder named by a hash
/// of them all.
fn segment_files(
    postings: Vec<model::search::Posting>,
    reports: &[&ReportSummary],
    files: &mut Vec<File>,
) -> model::search::Segment {
    use model::search::{SearchShard, Segment, SHARD_POSTINGS, SUMMARIES};
    if reports.is_empty() {
        return Segment::default();
    }
    let total: usize = postings.iter().map(|p| p.gaps.len()).sum();
    let n = total.div_ceil(SHARD_POSTINGS).max(1).next_power_of_two() as u32;
    let mut shards: Vec<Vec<model::search::Posting>> = vec![Vec::new(); n as usize];
    for p in postings {
        shards[paths::bucket_of(&p.term, n) as usize].push(p);
    }
    let shards: Vec<Option<Vec<u8>>> = shards
        .into_iter()
        .map(|terms| (!terms.is_empty()).then(|| json(&SearchShard { schema: SCHEMA_VERSION, terms })))
        .collect();
    let pages: Vec<Vec<u8>> = reports
        .chunks(SUMMARIES)
        .map(|c| c.iter().map(|r| model::search::result_summary(r)).collect())
        .map(|reports| json(&ReportPage { schema: SCHEMA_VERSION, reports }))
        .collect();
    let mut all = Vec::new();
    for b in &shards {
        all.extend_from_slice(b.as_deref().unwrap_or(b"-\n"));
    }
    pages.iter().for_each(|b| all.extend_from_slice(b));
    let segment = Segment {
        dir: paths::search_segment(&paths::content_hash(&all)),
        reports: reports.len() as u32,
        shards: n,
        no_shard: (0..n).filter(|&b| shards[b as usize].is_none()).collect(),
    };
    for (b, bytes) in shards.into_iter().enumerate() {
        if let Some(bytes) = bytes {
            files.push((paths::search_file(&segment.dir, 't', b as u32), bytes));
        }
    }
    for (b, bytes) in pages.into_iter().enumerate() {
        files.push((paths::search_file(&segment.dir, 's', b as u32), bytes));
    }
    segment
}

/// Files to write, and the files already in the directory that they name (`Known`), kept as they
/// are: what a publish writes and counts (`Publisher::stored`).
#[derive(Default)]
pub struct Stored {
    pub files: Vec<File>,
    /// Path and size of each file already there.
    pub kept: Vec<(String, u64)>,
}

impl Stored {
    /// JSON files named by a hash of their bytes, as stored (`at_rest`), in parallel: one already
    /// in the directory is kept, not compressed again (the same name is the same bytes).
    pub fn of(json: Vec<File>, known: &Known) -> Stored {
        use rayon::prelude::*;
        let done: Vec<Result<File, (String, u64)>> = json
            .into_par_iter()
            .map(|(rel, bytes)| match known.size(&rel) {
                Some(len) => Err((rel, len)),
                None => Ok((rel.clone(), at_rest(&bytes))),
            })
            .collect();
        let mut out = Stored::default();
        for f in done {
            match f {
                Ok(file) => out.files.push(file),
                Err(kept) => out.kept.push(kept),
            }
        }
        out
    }
}

/// The root over testcase entries and every report's summary (any order), stamped with its
/// generation, and the files it names: the reports list in pages, by job, and the search index
/// over `terms` (those already in the directory, `known`, kept).
pub fn root(
    testcases: Vec<TestcaseEntry>,
    reports: usize,
    all: Vec<ReportSummary>,
    terms: Terms,
    known: &Known,
) -> (Root, Stored) {
    let all = newest_first(all);
    let (mut files, pages) = report_pages(&all);
    let (by_job_files, by_job) = by_job_files(&all);
    files.extend(by_job_files);
    let (search_files, index) = search_json(&all, terms);
    let search = index_path(&index);
    files.extend(search_files);
    let newest = all.into_iter().take(NEWEST).collect();
    let mut root = root_of(testcases, reports, newest);
    root.pages = pages;
    root.by_job = by_job;
    root.search = search;
    root.generation.clear();
    root.generation = paths::content_hash(&json(&root));
    (root, Stored::of(files, known))
}

fn root_of(mut testcases: Vec<TestcaseEntry>, reports: usize, newest: Vec<ReportSummary>) -> Root {
    testcases.sort_by(|a, b| a.name.cmp(&b.name));
    let totals = Totals {
        reports,
        jobs: testcases.iter().map(|t| t.jobs).sum(),
        series: testcases.iter().map(|t| t.series).sum(),
        points: testcases.iter().map(|t| t.points).sum(),
        rows: testcases.iter().map(|t| t.rows).sum(),
    };
    Root {
        schema: SCHEMA_VERSION,
        generation: String::new(),
        testcases,
        totals,
        newest,
        archives: None,
        pages: Vec::new(),
        by_job: Vec::new(),
        search: String::new(),
    }
}

/// Every file of a full build, and its root.
pub fn files(data: Dataset) -> (Vec<File>, Root) {
    use rayon::prelude::*;
    let none = Known::none();
    let per_tc: Vec<Packed> = data.testcases.into_par_iter().map(|t| testcase_files(t, &none)).collect();
    let mut files: Vec<File> = Vec::new();
    let (mut entries, mut trends) = (Vec::new(), BTreeMap::new());
    for p in per_tc {
        if let Some(t) = p.trend {
            trends.insert(p.entry.name.clone(), t);
        }
        entries.push(p.entry);
        files.extend(p.stored.files);
    }
    let all = newest_first(data.reports.iter().map(ReportSummary::listed).collect());
    let peers = crate::store::pages::Peers::of(&all);
    let docs: Vec<&ReportDoc> = data.reports.iter().collect();
    files.extend(crate::store::pages::report_files(&docs, &all, &peers));
    let newest = all.first().and_then(|s| data.reports.iter().find(|d| d.id == s.id));
    let lists = Lists { newest, reports: data.reports.len(), terms: Terms::of(&data.reports), trends };
    let (rest, root) = list_files(entries, lists, &data.scripts, all, &peers, &none);
    files.extend(rest.files);
    (files, root)
}

/// What the lists are made of besides the summaries: the newest report's document (the first
/// screen shows it), how many reports, their terms (the search index) and each testcase's trend
/// (its page shows it), by name.
pub struct Lists<'a> {
    pub newest: Option<&'a ReportDoc>,
    pub reports: usize,
    pub terms: Terms,
    pub trends: BTreeMap<String, render::html::Html>,
}

/// The files of a full build besides the testcases', the report documents and their pages
/// (scripts, the reports list, the first screen and the lists as pages), and the root over the
/// testcases' entries. `all`: every report's summary newest first (`newest_first`), `peers` over it
/// (the report pages were made from the same); those already in the directory (`known`) kept.
pub fn list_files(
    entries: Vec<TestcaseEntry>,
    lists: Lists,
    scripts: &BTreeMap<String, String>,
    all: Vec<ReportSummary>,
    peers: &crate::store::pages::Peers,
    known: &Known,
) -> (Stored, Root) {
    let trends = |tc: &str| lists.trends.get(tc).cloned();
    let pages = crate::store::pages::list_pages(&all, NEWEST, lists.newest, peers, &trends);
    let (root, mut stored) = root(entries, lists.reports, all, lists.terms, known);
    stored.files.extend(script_files(scripts));
    stored.files.extend(pages);
    (stored, root)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list's file already in the directory is kept as it is (counted, not compressed again);
    /// the others are stored as `at_rest` makes them, in the order given.
    #[test]
    fn stored_keeps_what_the_directory_has_and_compresses_the_rest() {
        let dir = std::env::temp_dir().join(format!("lkpx-stored-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("l")).unwrap();
        std::fs::write(dir.join("l/a.json.gz"), b"old bytes").unwrap();
        let json: Vec<File> = ["l/a.json.gz", "l/b.json.gz", "l/c.json.gz"]
            .iter()
            .map(|rel| (rel.to_string(), format!("{{\"{rel}\":1}}\n").into_bytes()))
            .collect();
        let s = Stored::of(json.clone(), &Known::at(&dir));
        assert_eq!(s.kept, [("l/a.json.gz".to_string(), 9)]);
        let want: Vec<File> = json[1..].iter().map(|(r, b)| (r.clone(), at_rest(b))).collect();
        assert_eq!(s.files, want);
        let none = Stored::of(json.clone(), &Known::none());
        assert_eq!((none.files.len(), none.kept.len()), (3, 0), "nothing known: every file made");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The first changes page made from the series without holding every change (a full import)
    /// is the top of them all made whole: 70,000 series of 300 jobs, stated changes of two
    /// columns and of three (ties of the listing order among them), headline ones, failure rows
    /// and series long enough for steps to be found along them.
    #[test]
    fn the_first_changes_page_is_the_top_of_every_change() {
        let jobs: Vec<model::Job> =
            (0..300).map(|j| model::Job { id: format!("{:016x}", j * 7919 + 13), ..Default::default() }).collect();
        let mut series: Vec<KeyedPoints> = Vec::new();
        for i in 0..70_000u32 {
            let mut p = model::Points::default();
            let cols: Vec<u32> = if i % 3 == 0 { vec![0, 1, 2] } else { vec![0, 1] };
            let value = |c: usize| 100.0 + ((i as usize * 31 + c * 7) % 97) as f64;
            let changes: Vec<Option<f64>> =
                (1..cols.len()).map(|c| Some(((i % 41) as f64 - 20.0) * c as f64)).collect();
            let values: Vec<Option<f64>> = (0..cols.len()).map(|c| Some(value(c))).collect();
            let stddev = vec![Some(2.0); cols.len()];
            let runs = vec![Some(3); cols.len()];
            let (fails, fail) = if i % 97 == 0 { (vec![Some(1), Some(3)], true) } else { (vec![], false) };
            let row = model::observe::RowCols {
                fail,
                values: &values,
                stddev_pct: &stddev,
                changes: &changes,
                fails: &fails,
                runs: &runs,
                run_values: &[],
            };
            p.push_row(row, &cols, i % 500);
            if i % 1000 == 7 {
                // a long series with a step along it
                for r in 0..12u32 {
                    let v = [Some(if r < 6 { 100.0 } else { 150.0 })];
                    let row = model::observe::RowCols { values: &v, ..row };
                    p.push_row(row, &[3 + r], 500 + r);
                }
            }
            series.push((((i % 300), format!("m{:05}", i / 300)), Box::new(p)));
        }
        series.sort_by(|a, b| a.0.cmp(&b.0));
        let mut metrics: Vec<MetricInfo> = series
            .iter()
            .map(|((_, m), _)| m.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|name| MetricInfo { name, direction: 1, ..Default::default() })
            .collect();
        metrics[3].direction = -1;
        let headlines =
            vec![model::Headline { report: 8, job: Some(8), metric: "m00000".into(), ..Default::default() }];
        let commits = (0..520).map(|c| model::Commit { id: format!("{c:040x}"), ..Default::default() }).collect();
        let points = series.iter().map(|s| s.1.len()).sum();
        let totals = model::Totals { points, ..Default::default() };
        let mut cat = Index { jobs: jobs.clone(), metrics, headlines, commits, totals, ..Default::default() };
        cat.reports = (0..520).map(|r| model::ReportMeta { id: format!("{r:016x}"), ..Default::default() }).collect();
        let mut out = Packed { entry: TestcaseEntry::default(), stored: Stored::default(), trend: None };
        let detected = crate::build::changes::detected_stage(&series, &cat.headlines, &cat.metrics);
        let paths = changes_files("t", &series, &detected, &cat, &Known::none(), &mut out);
        let mut whole = crate::build::changes::changes_stage(&series, &cat.headlines, &cat.metrics);
        // every change, made again from the trend chunks as the Changes view makes them
        let own = own_chunks(&cat, paths::chunk_count(points));
        chunk_files("t", &series, &detected, &own, &mut cat, &Known::none(), &mut out);
        assert!(cat.chunks.len() > 4, "{} chunks", cat.chunks.len());
        let part = model::assemble::Part::identity("t", &cat);
        let rules = model::changes::Rules::of(&cat);
        let mut from_chunks: Vec<ChangeRecord> = Vec::new();
        for rel in &cat.chunks {
            let chunk: model::TrendChunk = read_at(&out.stored.files, rel);
            from_chunks.extend(part.chunk_changes(&chunk, &rules).unwrap().changes);
        }
        let key = |c: &ChangeRecord| format!("{c:?}");
        let mut a: Vec<String> = from_chunks.iter().map(key).collect();
        let mut b: Vec<String> = whole.iter().map(key).collect();
        a.sort();
        b.sort();
        assert_eq!(a.len(), b.len());
        assert!(a == b, "the trend chunks give every change the build makes");
        assert!(whole.iter().any(|c| c.source == ChangeSource::Detected) && whole.iter().any(|c| c.headline));
        assert!(whole.len() > 10 * model::CHANGES_FIRST, "{} changes", whole.len());
        // a stable sort: ties in build order
        whole.sort_by(ChangeRecord::listing_order);
        whole.truncate(model::CHANGES_FIRST);
        assert_eq!(paths.len(), 1, "one page");
        let got: ChangesShard = read_at(&out.stored.files, &paths[0]);
        assert!(got.changes == whole, "the top of every change");
        assert!(whole.windows(2).any(|w| ChangeRecord::listing_order(&w[0], &w[1]).is_eq()), "ties among them");
    }

    /// `n` reports six hours apart ending on a Wednesday noon, each with the terms `w<i % 97>`,
    /// `x<i % 13>` and `r<i>`.
    fn reports(n: usize) -> (Vec<ReportSummary>, Terms) {
        let end = 1_733_313_600; // Wed 2024-12-04 12:00 UTC
        let mut terms = Terms::default();
        let mut all = Vec::new();
        for i in 0..n {
            let id = format!("{i:016x}");
            for t in [format!("w{}", i % 97), format!("x{}", i % 13), format!("r{i}")] {
                terms.reports.entry(t).or_default().insert(id.clone());
            }
            all.push(ReportSummary { id, time: Some(end - (n - 1 - i) as i64 * 21_600), ..Default::default() });
        }
        (newest_first(all), terms)
    }

    fn read_at<T: serde::de::DeserializeOwned>(files: &[File], rel: &str) -> T {
        let (_, bytes) = files.iter().find(|(r, _)| r == rel).unwrap_or_else(|| panic!("{rel} written"));
        let json = crate::store::dataset::unpacked(rel, bytes.clone()).unwrap();
        serde_json::from_slice(&json).unwrap()
    }

    /// The index names exactly the files it writes; each term's reports are in the shard of its
    /// segment that the index gives, newest first, each report's summary in the file it gives.
    #[test]
    fn the_index_finds_every_term_and_summary_in_the_files_it_names() {
        let (all, terms) = reports(3_000);
        let want: BTreeMap<String, BTreeSet<String>> = terms.reports.clone();
        let (files, index) = search_files(&all, terms);
        let mut named: BTreeSet<String> = index.files().collect();
        named.insert(index_path(&index));
        let written: BTreeSet<String> = files.iter().map(|f| f.0.clone()).collect();
        assert_eq!(named, written);
        assert!(!index.recent.is_empty() && !index.main.is_empty());
        let since = index.since.unwrap();
        let recent = |id: &String| all.iter().find(|r| &r.id == id).unwrap().time.unwrap() >= since;
        for (term, ids) in &want {
            let mut found = Vec::new();
            for (seg, first) in [(&index.recent, 0), (&index.main, index.recent.reports)] {
                let Some(rel) = seg.shard(term) else { continue };
                let shard: model::search::SearchShard = read_at(&files, &rel);
                let p = shard.terms.into_iter().filter(|p| &p.term == term);
                found.extend(p.flat_map(|p| p.ordinals()).map(|o| o + first));
            }
            // each key's summary is the report's
            let found: Vec<&String> = found
                .iter()
                .map(|&k| {
                    let (rel, at) = index.summary_of(k).unwrap();
                    let id = read_at::<ReportPage>(&files, &rel).reports[at].id.clone();
                    ids.get(&id).unwrap_or_else(|| panic!("{term}: {id} not listed"))
                })
                .collect();
            let mut ids: Vec<&String> = ids.iter().collect();
            ids.sort_by_key(|id| std::cmp::Reverse(*id));
            assert_eq!(found, ids, "{term}");
        }
        let keys: usize = (index.recent.reports + index.main.reports) as usize;
        assert_eq!(keys, all.len());
        for (k, r) in all.iter().enumerate() {
            let (rel, at) = index.summary_of(k as u32).unwrap();
            assert_eq!(read_at::<ReportPage>(&files, &rel).reports[at].id, r.id);
            assert_eq!(recent(&r.id), (k as u32) < index.recent.reports);
        }
    }

    /// A newer report in the same week rewrites the recent segment only: the older reports'
    /// folder keeps its name and files, and fewer than 20 files are new.
    #[test]
    fn a_report_of_this_week_leaves_the_older_reports_segment_alone() {
        let (all, terms) = reports(3_001);
        let newest = format!("{:016x}", 3_000);
        let mut old_terms = Terms { reports: terms.reports.clone(), ..Default::default() };
        old_terms.reports.values_mut().for_each(|ids| ids.retain(|id| id != &newest));
        old_terms.reports.retain(|_, ids| !ids.is_empty());
        let (old_files, old) = search_files(&all[1..], old_terms);
        let (files, new) = search_files(&all, terms);
        assert_eq!(old.since, new.since, "the same week");
        assert_eq!(old.main, new.main);
        let before: BTreeSet<&String> = old_files.iter().map(|f| &f.0).collect();
        let added = files.iter().filter(|f| !before.contains(&f.0)).count();
        assert!((1..=20).contains(&added), "{added} files written");
    }
}
