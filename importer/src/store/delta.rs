//! `--into`'s fast path: new reports added to a testcase from its published state (catalog, the
//! job files, trend chunks and changes pages the new rows fall in), not rebuilt from every report
//! document. It applies when the new reports come after every report of the testcases they
//! measure and change nothing already published but what their own rows add: the old commits keep
//! their order and ids, the old jobs and reports their positions, the trend chunk count, the own
//! chunks and the changes buckets stay. Then every file it writes is the file a full build writes
//! (what `incremental`'s test of byte-identity checks); otherwise it says so and the caller
//! rebuilds the testcases from their documents.

use crate::build;
use crate::build::options::Options;
use crate::store::dataset::{read, read_catalog_and_rest};
use crate::store::known::Known;
use crate::store::pack::{self, Packed};
use model::{
    paths, ChangeRecord, ChangeSource, ChangesShard, Index, JobShard, MetricInfo, Points, SeriesData, TrendChunk,
};
use reader::doc::{CommitInfo, Document, Section};
use render::html::Html;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

/// One testcase added to: its files, and every file its old catalog named (for the sweep).
pub struct Added {
    pub packed: Packed,
    pub old_files: Vec<String>,
}

/// Why the fast path does not apply (said with `LKPX_TIMINGS`), or an error reading the dataset.
pub enum Skip {
    /// Not to this testcase: rebuild it from its report documents (the others can still be added to).
    Not(String),
    /// Not to any: a new report may merge with an old one, which would change what the other
    /// testcases are given too.
    Merge(String),
    /// An old file it needs is missing, unreadable or inconsistent: the testcase is rebuilt from
    /// its report documents (which rewrites that file), and the import says so.
    Damaged(String),
    Error(String),
}

impl From<String> for Skip {
    fn from(e: String) -> Skip {
        Skip::Error(e)
    }
}

fn not<T>(why: &str) -> Result<T, Skip> {
    Err(Skip::Not(why.to_string()))
}

fn damaged<T>(why: String) -> Result<T, Skip> {
    Err(Skip::Damaged(why))
}

/// An old file the fast path needs (job file, trend chunk, changes page).
fn read_old<T: serde::de::DeserializeOwned>(dir: &Path, rel: &str) -> Result<T, Skip> {
    read(dir, rel).map_err(Skip::Damaged)
}

/// Add `docs` (this testcase's parts of the new reports, in time order) to the published
/// testcase whose catalog is `catalog`.
pub fn add_testcase(
    dir: &Path,
    tc: &str,
    catalog: &str,
    docs: Vec<Document>,
    opts: &Options,
    known: &Known,
) -> Result<Added, Skip> {
    let mut stages = crate::timing::Stages::new(std::time::Instant::now());
    let (old, rest) = read_catalog_and_rest(dir, catalog)?;
    consistent(&old, tc, catalog)?;
    stages.mark(&format!("{tc}: delta: the catalog read and checked"));
    let mut old_files: Vec<String> = vec![catalog.to_string()];
    old_files.extend(rest);
    old_files.extend(old.chunks.iter().cloned());
    old_files.extend(old.jobs.iter().map(|j| j.shard.clone()).filter(|s| !s.is_empty()));
    old_files.extend(old.changes.iter().cloned());
    preconditions(&old, &docs, opts)?;
    let mut next = next_of(&old, docs, opts)?;
    stages.mark(&format!("{tc}: delta: commits, jobs, reports, new points"));
    let packed = pack_testcase(dir, tc, &old, &mut next, known)?;
    Ok(Added { packed, old_files })
}

/// The positions and lists of the old catalog the fast path relies on.
fn consistent(old: &Index, tc: &str, catalog: &str) -> Result<(), Skip> {
    let bad = |why: &str| damaged(format!("{catalog}: {why}"));
    if old.testcases.len() != 1 || old.testcases[0].name != tc {
        return bad("not the catalog of one testcase");
    }
    if let Err(e) = model::assemble::check_catalog(old) {
        return bad(&e);
    }
    if old.metrics.iter().any(|m| m.chunk as usize >= old.chunks.len()) {
        return bad("a metric's chunk is missing");
    }
    if old.metrics.windows(2).any(|w| w[0].name >= w[1].name) {
        return bad("metrics not sorted by name");
    }
    if old.changes.len() > 1 {
        return bad("more than one changes page");
    }
    Ok(())
}

/// What must hold of the old catalog and the new documents before anything is built.
fn preconditions(old: &Index, docs: &[Document], opts: &Options) -> Result<(), Skip> {
    // checked first: every other reason leaves the other testcases to the fast path
    if old.reports.iter().any(|r| r.message_id.is_none()) || docs.iter().any(|d| d.message_id.is_none()) {
        return Err(Skip::Merge("a report without a Message-ID may merge with another".into()));
    }
    if !opts.git_log.is_empty() || old.commits.iter().any(|c| c.time.is_some()) {
        return not("a git log orders the commits");
    }
    let key = |t: Option<i64>, s: &str| (t.unwrap_or(i64::MIN), s.to_string());
    let last = old.reports.iter().map(|r| key(r.time, &r.source)).max();
    let first = docs.iter().map(|d| key(d.date.as_deref().and_then(model::date::parse_date), &d.source)).min();
    if last.is_some() && first.is_some() && first <= last {
        return not("a new report is not newer than every old one");
    }
    if old.metrics.iter().any(|m| (opts.weight)(&m.name) != m.direction || build::headlines::is_kpi(&m.name) != m.kpi) {
        return not("metric directions or KPI flags differ from the old build's");
    }
    Ok(())
}

/// The testcase after the new reports: its catalog (files not named yet), the series the new rows
/// add to (whole: old points and new), the changes of those series.
struct Next {
    cat: Index,
    /// Series with new points, by key, with all their points.
    series: Vec<build::series::KeyedPoints>,
    /// Their changes, in build order.
    changes: Vec<ChangeRecord>,
    /// Jobs of the dataset before (positions below are old jobs).
    old_jobs: usize,
}

/// Old commits as documents of ids only (the catalog's canonical ids, each old section's commits,
/// each old report's time), then the new documents: what `build::commits::commits_stage` orders.
fn skeleton(old: &Index) -> (Vec<Document>, Vec<Option<i64>>) {
    let infos = old
        .commits
        .iter()
        .map(|c| CommitInfo {
            id: c.id.clone(),
            subject: c.subject.clone(),
            tree: c.tree.clone(),
            branch: c.branch.clone(),
        })
        .collect();
    let mut docs = vec![Document { commits: infos, ..Default::default() }];
    let mut times = vec![None];
    for r in &old.reports {
        let sections = r
            .sections
            .iter()
            .map(|s| Section {
                commits: s.commits.iter().map(|&p| old.commits[p as usize].id.clone()).collect(),
                ..Default::default()
            })
            .collect();
        docs.push(Document { sections, ..Default::default() });
        times.push(r.time);
    }
    (docs, times)
}

/// The new documents' ids change no old commit: the old ids stay canonical and first, in their
/// order; no new canonical id shares the first 7 hex digits of an old one (it could take an old
/// abbreviation the old build resolved).
fn commits_kept(old: &Index, table: &build::commits::CommitTable, commits: &[model::Commit]) -> bool {
    let n = old.commits.len();
    if commits.len() < n || old.commits.iter().zip(commits).any(|(a, b)| a.id != b.id || table.canonical(&a.id) != a.id)
    {
        return false;
    }
    let hex7 = |id: &str| (id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id[..7].to_string());
    let old_prefixes: HashSet<String> = old.commits.iter().filter_map(|c| hex7(&c.id)).collect();
    let old_ids: HashSet<&str> = old.commits.iter().map(|c| c.id.as_str()).collect();
    table
        .ids()
        .filter(|id| !old_ids.contains(id.as_str()))
        .all(|id| hex7(id).is_none_or(|p| !old_prefixes.contains(&p)))
}

fn next_of(old: &Index, docs: Vec<Document>, opts: &Options) -> Result<Next, Skip> {
    let (mut all, mut times) = skeleton(old);
    let first_new = all.len();
    times.extend(docs.iter().map(|d| d.date.as_deref().and_then(model::date::parse_date)));
    all.extend(docs);
    let (table, commits) = build::commits::commits_stage(&all, &times, opts);
    if !commits_kept(old, &table, &commits) {
        return not("the new reports change the old commits' ids or order");
    }
    let commit_pos: HashMap<&str, u32> = commits.iter().enumerate().map(|(i, c)| (c.id.as_str(), i as u32)).collect();
    let pos_of = |id: &str| commit_pos[table.canonical(id)];
    let new = &all[first_new..];
    let new_times = &times[first_new..];
    let (mut jobs, job_pos) = build::series::jobs_after(old.jobs.clone(), new);
    let first_report = old.reports.len() as u32;
    let col = build::series::points_stage(new, new_times, &pos_of, &mut jobs, &job_pos, first_report);
    let mut headlines = build::headlines::headlines_stage(new, &pos_of, &job_pos, opts, first_report);
    headlines.extend(old.headlines.iter().cloned());
    let rows = col.rows;
    let mut reports = old.reports.clone();
    reports.extend(col.reports);
    let (fail, perf) = (&col.fail_metrics, &col.perf_metrics);
    let added_points: usize = col.series.iter().map(|(_, p)| p.len()).sum();
    Ok(Next {
        cat: Index {
            schema: model::SCHEMA_VERSION,
            commits,
            reports,
            jobs,
            headlines,
            totals: model::Totals {
                reports: old.totals.reports + new.len(),
                rows: old.totals.rows + rows,
                points: old.totals.points + added_points,
                ..old.totals.clone()
            },
            metrics: metrics_with(old, &col.series, fail, perf, opts),
            ..Default::default()
        },
        series: col.series,
        changes: vec![],
        old_jobs: old.jobs.len(),
    })
}

/// The old metrics, with the new rows' metrics added and their series counted; a metric only
/// ever failing stays so unless a new row measures it.
fn metrics_with(
    old: &Index,
    new: &[build::series::KeyedPoints],
    fail: &HashSet<String, rustc_hash::FxBuildHasher>,
    perf: &HashSet<String, rustc_hash::FxBuildHasher>,
    opts: &Options,
) -> Vec<MetricInfo> {
    let mut by_name: BTreeMap<String, MetricInfo> = old.metrics.iter().map(|m| (m.name.clone(), m.clone())).collect();
    for ((_, m), _) in new {
        let info = by_name.entry(m.clone()).or_insert_with(|| MetricInfo {
            name: m.clone(),
            direction: (opts.weight)(m),
            kpi: build::headlines::is_kpi(m),
            fail: fail.contains(m.as_str()),
            series: 0,
            chunk: 0,
        });
        info.fail = info.fail && !perf.contains(m.as_str());
    }
    by_name.into_values().collect()
}

/// Pack the testcase after the new reports: its old series the new rows add to read from their
/// job files, then its job files, trend chunks and changes pages, each from the old file and the
/// new series (the others kept), then its catalog.
fn pack_testcase(dir: &Path, tc: &str, old: &Index, next: &mut Next, known: &Known) -> Result<Packed, Skip> {
    let n = paths::chunk_count(next.cat.totals.points);
    if n != paths::chunk_count(old.totals.points) {
        return not("the trend chunks' count changes");
    }
    let mut stages = crate::timing::Stages::new(std::time::Instant::now());
    let shards = with_old_points(dir, next)?;
    next.changes = build::changes::changes_stage(&next.series, &next.cat.headlines, &next.cat.metrics);
    stages.mark(&format!("{tc}: delta: old points read, changes found"));
    let mut out = Packed { entry: Default::default(), stored: Default::default(), trend: None };
    changes_file(dir, tc, old, next, known, &mut out)?;
    stages.mark(&format!("{tc}: delta: the first changes page"));
    // its detected steps counted once the trend chunks say which the new series replace
    next.cat.testcases = vec![build::headlines::testcase_info(tc, &next.cat.headlines, 0)];
    let own = pack::own_chunks(&next.cat, n);
    if own != pack::own_chunks(old, n) {
        return not("the metrics with a chunk of their own change");
    }
    job_files(tc, next, shards, known, &mut out);
    let (made, removed_detected) = chunk_files(dir, tc, old, next, n, &own, known, &mut out)?;
    stages.mark(&format!("{tc}: delta: job files and trend chunks"));
    let added_detected = next.changes.iter().filter(|c| c.source == ChangeSource::Detected).count();
    let Some(detected) = (old.testcases[0].detected + added_detected).checked_sub(removed_detected) else {
        return damaged(format!("{tc}: the catalog counts fewer detected steps than its trend chunks hold"));
    };
    next.cat.testcases[0].detected = detected;
    out.trend = trend_after(dir, &next.cat, &made)?;
    stages.mark(&format!("{tc}: delta: the trend of its page"));
    keep_the_rest(dir, &next.cat, &mut out)?;
    let cat = std::mem::take(&mut next.cat);
    pack::catalog_files(tc, cat, &own, &mut out);
    stages.mark(&format!("{tc}: delta: the rest kept, the catalog"));
    Ok(out)
}

/// Each series the new rows add to, whole: the old points (from the old job files, read here and
/// returned) then the new, in `build`'s order; new series counted in the metrics and totals.
fn with_old_points(dir: &Path, next: &mut Next) -> Result<BTreeMap<u32, JobShard>, Skip> {
    use rayon::prelude::*;
    let jobs: BTreeSet<u32> =
        next.series.iter().map(|((j, _), _)| *j).filter(|&j| (j as usize) < next.old_jobs).collect();
    let read_shards: Vec<Result<(u32, JobShard), Skip>> = jobs
        .into_par_iter()
        .map(|j| {
            let (shard, rel) = old_job_file(dir, &next.cat, j)?;
            // (sorted by metric: the old points are looked up by name)
            let sorted = shard.series.windows(2).all(|w| w[0].metric < w[1].metric);
            if !sorted || shard.series.iter().any(|s| s.job != j || s.points.is_ragged()) {
                return damaged(format!("{rel}: not the job file of job {j} as the importer writes it"));
            }
            Ok((j, shard))
        })
        .collect();
    let shards: BTreeMap<u32, JobShard> = read_shards.into_iter().collect::<Result<_, _>>()?;
    let mut new_series = 0;
    for ((j, m), p) in &mut next.series {
        let found = shards.get(j).and_then(|s| {
            let i = s.series.binary_search_by(|x| x.metric.as_str().cmp(m)).ok()?;
            Some(&s.series[i].points)
        });
        match found {
            Some(old) => {
                let new = std::mem::take(&mut **p);
                **p = widen(old.clone());
                append(p, widen(new));
                p.sort_by_commit();
            }
            None => {
                new_series += 1;
                let i = next.cat.metrics.binary_search_by(|x| x.name.as_str().cmp(m)).expect("every metric listed");
                next.cat.metrics[i].series += 1;
            }
        }
    }
    next.cat.totals.series += new_series;
    next.cat.totals.jobs = next.cat.jobs.len();
    Ok(shards)
}

/// Old job `j`'s compare file and where it comes from: its file, or the document of the one
/// report that measured it (`Job::report`, `JobShard::of_report`).
fn old_job_file(dir: &Path, cat: &Index, j: u32) -> Result<(JobShard, String), Skip> {
    let job = &cat.jobs[j as usize];
    let Some(r) = job.report else { return Ok((read_old(dir, &job.shard)?, job.shard.clone())) };
    let Some(meta) = cat.reports.get(r as usize) else {
        return damaged(format!("job {}: its report #{r} is not in the catalog", job.id));
    };
    let rel = meta.page();
    let rd: model::ReportDoc = read_old(dir, &rel)?;
    let commits: Vec<Vec<u32>> = meta.sections.iter().filter(|s| s.job.is_some()).map(|s| s.commits.clone()).collect();
    Ok((JobShard::of_report(&rd, job, j, r, &commits), rel))
}

/// A published (compacted, `build::series::compact`) series with every column at full length again.
fn widen(mut p: Points) -> Points {
    let n = p.commit.len();
    if p.fails.is_empty() {
        p.fails = vec![None; n];
    }
    if p.values.is_empty() {
        p.values = vec![Vec::new(); n];
    }
    p
}

/// `q` (full columns, `widen`) after `p`'s points.
fn append(p: &mut Points, q: Points) {
    p.commit.extend(q.commit);
    p.mean.extend(q.mean);
    p.stddev_pct.extend(q.stddev_pct);
    p.runs.extend(q.runs);
    p.report.extend(q.report);
    p.change.extend(q.change);
    p.base.extend(q.base);
    p.fails.extend(q.fails);
    p.values.extend(q.values);
}

/// The job files of the jobs with new points: the old file's series with the new ones in place.
fn job_files(tc: &str, next: &mut Next, mut shards: BTreeMap<u32, JobShard>, known: &Known, out: &mut Packed) {
    let mut by_job: BTreeMap<u32, Vec<SeriesData>> = BTreeMap::new();
    for ((j, m), p) in &next.series {
        by_job.entry(*j).or_default().push(SeriesData {
            job: *j,
            metric: m.clone(),
            points: build::series::compact((**p).clone()),
        });
    }
    let mut files: Vec<JobShard> = by_job
        .into_iter()
        .map(|(j, new)| {
            let mut series = shards.remove(&j).map(|s| s.series).unwrap_or_default();
            let names: HashSet<String> = new.iter().map(|s| s.metric.clone()).collect();
            series.retain(|s| !names.contains(&s.metric));
            series.extend(new);
            series.sort_by(|a, b| a.metric.cmp(&b.metric));
            JobShard { schema: model::SCHEMA_VERSION, job: next.cat.jobs[j as usize].id.clone(), series }
        })
        .collect();
    files.retain(|f| {
        let job = &mut next.cat.jobs[f.series[0].job as usize];
        job.report = pack::only_report(f.series.iter().map(|s| &s.points));
        job.shard.clear();
        job.report.is_none()
    });
    let paths = pack::named(&files, known, &|h| paths::job_shard(tc, h), out);
    for (f, path) in files.iter().zip(paths) {
        let j = f.series[0].job;
        next.cat.jobs[j as usize].shard = path;
    }
}

/// The trend of the testcase's page (`render::trend::of_testcase`): its metric's chunk as
/// `chunk_files` made it (`made`, by path), or as it was.
fn trend_after(dir: &Path, cat: &Index, made: &BTreeMap<String, TrendChunk>) -> Result<Option<Html>, Skip> {
    let Some(rel) = crate::store::dataset::trend_chunk(cat) else { return Ok(None) };
    let old: TrendChunk;
    let chunk = match made.get(rel) {
        Some(c) => c,
        None => {
            old = read_old(dir, rel)?;
            &old
        }
    };
    Ok(render::trend::of_testcase(cat, &chunk.series.iter().collect::<Vec<_>>()))
}

/// The trend chunks the new series fall in: the old chunk with the new series (and their
/// detected steps) in place of the old, or a new chunk; every metric's chunk position. Returns
/// the chunks made, by path.
#[allow(clippy::too_many_arguments)]
fn chunk_files(
    dir: &Path,
    tc: &str,
    old: &Index,
    next: &mut Next,
    n: u32,
    own: &BTreeMap<String, u32>,
    known: &Known,
    out: &mut Packed,
) -> Result<(BTreeMap<String, TrendChunk>, usize), Skip> {
    use rayon::prelude::*;
    let key = |m: &str| own.get(m).copied().unwrap_or_else(|| paths::chunk_of(m, n));
    let mut path_of: BTreeMap<u32, String> =
        old.metrics.iter().map(|m| (key(&m.name), old.chunks[m.chunk as usize].clone())).collect();
    let touched: HashSet<(u32, &str)> = next.series.iter().map(|((j, m), _)| (*j, m.as_str())).collect();
    let mut by_key: BTreeMap<u32, (Vec<SeriesData>, Vec<ChangeRecord>)> = BTreeMap::new();
    for ((j, m), p) in &next.series {
        let mut points = build::series::compact((**p).clone());
        points.values = Vec::new();
        by_key.entry(key(m)).or_default().0.push(SeriesData { job: *j, metric: m.clone(), points });
    }
    for c in next.changes.iter().filter(|c| c.source == ChangeSource::Detected) {
        by_key.get_mut(&key(&c.metric)).expect("a new series' chunk").1.push(c.clone());
    }
    let made: Vec<Result<(u32, TrendChunk, usize), Skip>> = by_key
        .into_par_iter()
        .map(|(k, (series, detected))| {
            let mut chunk = match path_of.get(&k) {
                Some(p) => {
                    let chunk: TrendChunk = read_old(dir, p)?;
                    let old_job = |j: u32| (j as usize) < next.old_jobs;
                    if chunk.series.iter().any(|s| !old_job(s.job) || s.points.is_ragged())
                        || chunk.detected.iter().any(|c| !old_job(c.job))
                    {
                        return damaged(format!("{p}: not a trend chunk of this catalog"));
                    }
                    chunk
                }
                None => TrendChunk { schema: model::SCHEMA_VERSION, testcase: tc.to_string(), ..Default::default() },
            };
            chunk.series.retain(|s| !touched.contains(&(s.job, s.metric.as_str())));
            chunk.series.extend(series);
            chunk.series.sort_by(|a, b| (a.job, &a.metric).cmp(&(b.job, &b.metric)));
            let before = chunk.detected.len();
            chunk.detected.retain(|c| !touched.contains(&(c.job, c.metric.as_str())));
            let removed = before - chunk.detected.len();
            chunk.detected.extend(detected);
            chunk.detected.sort_by(|a, b| (a.job, &a.metric).cmp(&(b.job, &b.metric)));
            Ok((k, chunk, removed))
        })
        .collect();
    let made = made.into_iter().collect::<Result<Vec<_>, _>>()?;
    let removed = made.iter().map(|m| m.2).sum();
    let (keys, chunks): (Vec<u32>, Vec<TrendChunk>) = made.into_iter().map(|(k, c, _)| (k, c)).unzip();
    let named = pack::named(&chunks, known, &|h| paths::trend_chunk(tc, h), out);
    path_of.extend(keys.into_iter().zip(named.iter().cloned()));
    let pos: BTreeMap<u32, u32> = path_of.keys().enumerate().map(|(i, k)| (*k, i as u32)).collect();
    next.cat.chunk_keys = path_of.keys().copied().collect();
    next.cat.chunks = path_of.into_values().collect();
    for m in &mut next.cat.metrics {
        m.chunk = pos[&key(&m.name)];
    }
    Ok((named.into_iter().zip(chunks).collect(), removed))
}

/// The old files the new catalog still names, kept as they are.
/// (each must be there and not empty: a full build would write it)
fn keep_the_rest(dir: &Path, cat: &Index, out: &mut Packed) -> Result<(), Skip> {
    let made: HashSet<String> =
        out.stored.files.iter().map(|f| f.0.clone()).chain(out.stored.kept.iter().map(|k| k.0.clone())).collect();
    let named = cat.chunks.iter().chain(cat.jobs.iter().map(|j| &j.shard)).chain(&cat.changes);
    // (a job one report measured names no file: `Job::report`)
    let rest: BTreeSet<&String> = named.filter(|p| !p.is_empty() && !made.contains(*p)).collect();
    for rel in rest {
        match std::fs::metadata(dir.join(rel)) {
            Ok(m) if m.is_file() && m.len() > 0 => out.stored.kept.push((rel.clone(), m.len())),
            _ => return damaged(format!("{rel}: missing or empty")),
        }
    }
    Ok(())
}

/// Where a change record was, for ties of the listing order within one series (old records are
/// in build order within the first page; a series is all old or all new).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Src {
    First(u32),
    New(u32),
}

struct Ranked {
    c: ChangeRecord,
    from: Src,
}

/// The order of `pack::first_page`: the listing order, ties in build order (series order, then
/// the series' own).
fn rank(a: &Ranked, b: &Ranked) -> Ordering {
    ChangeRecord::listing_order(&a.c, &b.c)
        .then_with(|| (a.c.job, a.c.metric.as_str()).cmp(&(b.c.job, b.c.metric.as_str())))
        .then(a.from.cmp(&b.from))
}

/// The first changes page after the new series' changes replace their old ones: the old page
/// read, its records of those series taken out and the new series' changes put in, then its top
/// kept (`first_page_of`). The Changes view makes the others from the trend chunks.
fn changes_file(
    dir: &Path,
    tc: &str,
    old: &Index,
    next: &mut Next,
    known: &Known,
    out: &mut Packed,
) -> Result<(), Skip> {
    let touched: HashSet<(u32, &str)> = next.series.iter().map(|((j, m), _)| (*j, m.as_str())).collect();
    let first: Vec<ChangeRecord> = match old.changes.as_slice() {
        [] => vec![],
        [p] => {
            let page: ChangesShard = read_old(dir, p)?;
            if page.changes.iter().any(|c| c.job as usize >= next.old_jobs) {
                return damaged(format!("{p}: a change of a job the catalog does not have"));
            }
            page.changes
        }
        _ => return damaged(format!("{tc}: the catalog names {} changes pages, not one", old.changes.len())),
    };
    // a first page that is not full held every change: the pool is then all of them
    let whole = first.len() < model::CHANGES_FIRST;
    let cutoff = first.last().cloned();
    let mut pool: Vec<Ranked> = first
        .into_iter()
        .enumerate()
        .filter(|(_, c)| !touched.contains(&(c.job, c.metric.as_str())))
        .map(|(i, c)| Ranked { c, from: Src::First(i as u32) })
        .collect();
    pool.extend(next.changes.iter().cloned().enumerate().map(|(i, c)| Ranked { c, from: Src::New(i as u32) }));
    let top = first_page_of(pool, cutoff.as_ref().filter(|_| !whole))?;
    next.cat.changes = match top.is_empty() {
        true => Vec::new(),
        false => {
            let page = ChangesShard {
                schema: model::SCHEMA_VERSION,
                testcase: tc.to_string(),
                changes: top.into_iter().map(|r| r.c).collect(),
            };
            pack::named(&[page], known, &|h| paths::changes(tc, h), out)
        }
    };
    Ok(())
}

/// The pool of candidates sorted, its first `CHANGES_FIRST` kept. `cutoff`: the old first page's
/// last, when that page did not hold every change: every record not in the pool sorts after it,
/// so the pool's top is the whole top when its last is an old first-page record or sorts
/// strictly before `cutoff`.
fn first_page_of(mut pool: Vec<Ranked>, cutoff: Option<&ChangeRecord>) -> Result<Vec<Ranked>, Skip> {
    use rayon::prelude::*;
    let first_max = model::CHANGES_FIRST;
    pool.par_sort_by(rank);
    if let Some(cutoff) = cutoff {
        let Some(x) = pool.get(first_max - 1) else { return not("the first changes page would take records not read") };
        if !matches!(x.from, Src::First(_)) && ChangeRecord::listing_order(&x.c, cutoff) != Ordering::Less {
            return not("the first changes page would take records not read");
        }
    }
    pool.truncate(first_max);
    Ok(pool)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TC: &str = "t";

    fn jobs() -> Vec<model::Job> {
        (0..300).map(|j| model::Job { id: format!("{:016x}", j * 7919 + 13), ..Default::default() }).collect()
    }

    /// A series' records in build order: `n` changes of sizes from `size`.
    fn series(job: u32, m: u32, n: usize, size: &dyn Fn(usize) -> f64) -> Vec<ChangeRecord> {
        (0..n)
            .map(|i| ChangeRecord {
                job,
                metric: format!("m{m}"),
                change: size(i),
                head: (i % 40) as u32,
                source: if i % 3 == 0 { ChangeSource::Detected } else { ChangeSource::Stated },
                ..Default::default()
            })
            .collect()
    }

    /// Every series' records, 300 jobs × 16 metrics × 30, in build order; `replace` gives a
    /// series' records instead.
    fn all(replace: &dyn Fn(u32, u32) -> Option<Vec<ChangeRecord>>) -> Vec<ChangeRecord> {
        let mut out = Vec::new();
        for j in 0..300 {
            for m in 0..16 {
                let seed = (j * 16 + m) as usize;
                let own = || series(j, m, 30, &|i| (((seed * 31 + i) * 7_907) % 10_007) as f64 / 10.0);
                out.extend(replace(j, m).unwrap_or_else(own));
            }
        }
        out
    }

    /// The first page of `records` (in build order) as a full build makes it.
    fn first_page(records: Vec<ChangeRecord>) -> ChangesShard {
        let mut changes = records;
        // a stable sort: ties keep the build order
        changes.sort_by(ChangeRecord::listing_order);
        changes.truncate(model::CHANGES_FIRST);
        ChangesShard { schema: model::SCHEMA_VERSION, testcase: TC.into(), changes }
    }

    /// The old first page written under `dir`, and the old catalog naming it.
    fn published(dir: &Path, records: Vec<ChangeRecord>) -> Index {
        std::fs::create_dir_all(dir.join("c")).unwrap();
        let rel = paths::changes(TC, "old");
        std::fs::write(dir.join(&rel), pack::stored(&first_page(records))).unwrap();
        Index { jobs: jobs(), changes: vec![rel], ..Default::default() }
    }

    /// The first page's bytes after replacing the series of `new` (keys and their records in
    /// build order), or why not.
    fn add(dir: &Path, old: &Index, new: &[((u32, u32), Vec<ChangeRecord>)]) -> Result<Vec<u8>, String> {
        let mut next = Next {
            cat: Index { jobs: old.jobs.clone(), ..Default::default() },
            series: new.iter().map(|((j, m), _)| ((*j, format!("m{m}")), Box::default())).collect(),
            changes: new.iter().flat_map(|(_, r)| r.clone()).collect(),
            old_jobs: old.jobs.len(),
        };
        let mut out = Packed { entry: Default::default(), stored: Default::default(), trend: None };
        match changes_file(dir, TC, old, &mut next, &Known::none(), &mut out) {
            Ok(_) => {}
            Err(Skip::Not(why) | Skip::Merge(why) | Skip::Damaged(why)) => return Err(why),
            Err(Skip::Error(e)) => panic!("{e}"),
        }
        assert_eq!(next.cat.changes.len(), 1, "one page");
        assert_eq!(out.stored.files.len(), 1, "the page made");
        assert_eq!(out.stored.files[0].0, next.cat.changes[0]);
        Ok(out.stored.files[0].1.clone())
    }

    fn tmp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("lkpx-delta-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// New records that enter the first page push others out; a replaced series' old records
    /// leave it: the page is the first page of all records, as a full build makes it.
    #[test]
    fn changes_entering_the_first_page_make_it_as_a_full_build_does() {
        let dir = tmp("enter");
        let old = published(&dir, all(&|_, _| None));
        let big = series(5, 3, 3, &|i| 5_000.0 + i as f64);
        let small = series(17, 0, 12, &|i| 0.5 + i as f64 / 100.0);
        let new = vec![((5, 3), big.clone()), ((17, 0), small.clone())];
        let got = add(&dir, &old, &new).unwrap();
        let want = first_page(all(&|j, m| match (j, m) {
            (5, 3) => Some(big.clone()),
            (17, 0) => Some(small.clone()),
            _ => None,
        }));
        assert!(got == pack::stored(&want), "the first page of all records");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// When the first page would need records it does not hold (old top changes replaced by
    /// small ones), the fast path says so instead of guessing.
    #[test]
    fn a_first_page_that_needs_unread_records_is_not_made_from_the_published_state() {
        let dir = tmp("leave");
        let top = series(5, 3, 40, &|i| 5_000.0 + i as f64);
        let old = published(&dir, all(&|j, m| ((j, m) == (5, 3)).then(|| top.clone())));
        let small = series(5, 3, 40, &|i| 0.1 + i as f64 / 1000.0);
        let why = add(&dir, &old, &[((5, 3), small)]).unwrap_err();
        assert!(why.contains("first changes page"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A first page that is not full held every change: its top is made again whatever leaves it.
    #[test]
    fn a_first_page_of_every_change_is_made_again_whole() {
        let dir = tmp("whole");
        let few =
            |j: u32, m: u32| (j < 10 && m < 3).then(|| series(j, m, 20, &|i| (j * 100 + m * 10) as f64 + i as f64));
        let only = |j, m| few(j, m).or(Some(vec![]));
        let old = published(&dir, all(&only));
        let small = series(9, 2, 20, &|i| 0.1 + i as f64 / 1000.0);
        let got = add(&dir, &old, &[((9, 2), small.clone())]).unwrap();
        let want = first_page(all(&|j, m| if (j, m) == (9, 2) { Some(small.clone()) } else { only(j, m) }));
        assert!(want.changes.len() < model::CHANGES_FIRST);
        assert!(got == pack::stored(&want), "the first page of all records");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
