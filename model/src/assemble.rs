//! The app's view of several testcase catalogs at once: `merge` puts the catalogs it has loaded
//! into one `Index` (commits in one history order, reports, jobs and metrics of all of them), and
//! each testcase's `Part` turns positions of that testcase's files into positions of the merged
//! view, refusing any position outside its catalog (a broken file gives a message, not a panic).

use crate::{
    ChangeRecord, ChangesShard, Commit, Index, JobShard, Root, SeriesData, SeriesShard, TestcaseInfo, TrendChunk,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The merged view and, per loaded testcase, how to read its files.
#[derive(Debug, Clone, Default)]
pub struct Assembled {
    pub index: Index,
    pub parts: BTreeMap<String, Part>,
}

/// One loaded testcase catalog: its files and its positions in the merged view.
#[derive(Debug, Clone, Default)]
pub struct Part {
    pub catalog: String,
    pub chunks: Vec<String>,
    pub changes: Vec<String>,
    metric_chunk: HashMap<String, u32>,
    /// Each chunk's key and the count of hash buckets (`Index::chunk_keys`): a metric the loaded
    /// catalog does not list (its names not loaded) found by its name's bucket.
    chunk_keys: Vec<u32>,
    buckets: u32,
    commits: Vec<u32>,
    jobs: Vec<u32>,
    reports: Vec<u32>,
    /// The catalog's rest is not loaded (`Index::rest`): its reports are pending (its metrics are
    /// then only the first charts', as they are while its names are not loaded: `names_pending`).
    pub pending: bool,
    /// The catalog's names are not loaded (`Index::names`): its metrics are only the first charts'.
    pub names_pending: bool,
}

fn at(map: &[u32], i: u32, what: &str) -> Result<u32, String> {
    map.get(i as usize).copied().ok_or_else(|| format!("{what} #{i} is not in the testcase's catalog"))
}

impl Part {
    /// The part of a catalog that is the whole view (positions unchanged).
    pub fn identity(path: &str, c: &Index) -> Part {
        let n = |len: usize| (0..len as u32).collect();
        Part::of(path, c, n(c.commits.len()), n(c.jobs.len()), n(c.report_count()))
    }

    /// The part of catalog `c` (at `path`) whose commits, jobs and reports are at these positions
    /// of the view.
    fn of(path: &str, c: &Index, commits: Vec<u32>, jobs: Vec<u32>, reports: Vec<u32>) -> Part {
        Part {
            catalog: path.to_string(),
            chunks: c.chunks.clone(),
            changes: c.changes.clone(),
            metric_chunk: c.metrics.iter().map(|m| (m.name.clone(), m.chunk)).collect(),
            chunk_keys: c.chunk_keys.clone(),
            buckets: crate::paths::chunk_count(c.totals.points),
            names_pending: c.names.is_some(),
            commits,
            jobs,
            reports,
            pending: c.is_partial(),
        }
    }

    /// The chunk file holding `metric`, if the testcase measured it (a metric of a catalog whose
    /// names are not loaded: the chunk of its bucket, which holds it if the testcase measured it).
    pub fn chunk_of(&self, metric: &str) -> Option<&str> {
        let by_bucket = || {
            let key = crate::paths::chunk_of(metric, self.buckets);
            self.chunk_keys.binary_search(&key).ok().filter(|_| self.names_pending).map(|c| c as u32)
        };
        let c = self.metric_chunk.get(metric).copied().or_else(by_bucket)?;
        self.chunks.get(c as usize).map(String::as_str)
    }

    /// A series in merged positions; every column checked.
    pub fn series(&self, sd: &SeriesData) -> Result<SeriesData, String> {
        if sd.points.is_ragged() {
            return Err(format!("series {} has columns of different lengths", sd.metric));
        }
        let mut out = sd.clone();
        let ctx = |e: String| format!("series {}: {e}", sd.metric);
        out.job = at(&self.jobs, sd.job, "job").map_err(ctx)?;
        for c in out.points.commit.iter_mut().chain(out.points.base.iter_mut().flatten()) {
            *c = at(&self.commits, *c, "commit").map_err(ctx)?;
        }
        for r in &mut out.points.report {
            *r = at(&self.reports, *r, "report").map_err(ctx)?;
        }
        Ok(out)
    }

    /// A change in merged positions.
    pub fn change(&self, c: &ChangeRecord) -> Result<ChangeRecord, String> {
        let mut out = c.clone();
        self.to_view(&mut out)?;
        Ok(out)
    }

    /// Change `c` (the catalog's positions) moved to the view's.
    fn to_view(&self, c: &mut ChangeRecord) -> Result<(), String> {
        let ctx = |e: String| format!("change of {}: {e}", c.metric);
        let job = at(&self.jobs, c.job, "job").map_err(ctx)?;
        let base = at(&self.commits, c.base, "commit").map_err(ctx)?;
        let head = at(&self.commits, c.head, "commit").map_err(ctx)?;
        let report = c.report.map(|r| at(&self.reports, r, "report")).transpose().map_err(ctx)?;
        (c.job, c.base, c.head, c.report) = (job, base, head, report);
        Ok(())
    }

    /// The series of `metric` in a chunk, as the trend draws them.
    pub fn series_shard(&self, chunk: &TrendChunk, metric: &str) -> Result<SeriesShard, String> {
        let series =
            chunk.series.iter().filter(|s| s.metric == metric).map(|s| self.series(s)).collect::<Result<_, _>>()?;
        Ok(SeriesShard { schema: chunk.schema, testcase: chunk.testcase.clone(), metric: metric.to_string(), series })
    }

    /// The steps detected along a chunk's series of `metric`.
    pub fn detected(&self, chunk: &TrendChunk, metric: &str) -> Result<ChangesShard, String> {
        let changes =
            chunk.detected.iter().filter(|c| c.metric == metric).map(|c| self.change(c)).collect::<Result<_, _>>()?;
        Ok(ChangesShard { schema: chunk.schema, testcase: chunk.testcase.clone(), changes })
    }

    pub fn job_shard(&self, shard: &JobShard) -> Result<JobShard, String> {
        let series = shard.series.iter().map(|s| self.series(s)).collect::<Result<_, _>>()?;
        Ok(JobShard { schema: shard.schema, job: shard.job.clone(), series })
    }

    /// The report (its position in the view) whose document holds every observation of `job`,
    /// a job of this catalog that one report alone measured (`Job::report`).
    pub fn report_of(&self, job: &crate::Job) -> Option<u32> {
        job.report.and_then(|r| self.reports.get(r as usize).copied())
    }

    /// The compare file of job `job` (a position in `index`, the view) that one report alone
    /// measured, made from that report's document `rd` (`JobShard::of_report`), in the view's
    /// positions. The report must be loaded (not pending): its sections give the commits.
    pub fn job_of_report(&self, index: &Index, job: u32, rd: &crate::ReportDoc) -> Result<JobShard, String> {
        let j =
            index.jobs.get(job as usize).filter(|_| self.jobs.contains(&job)).ok_or("the job is not this catalog's")?;
        let r = self.report_of(j).ok_or_else(|| format!("job {} names no report of the catalog", j.id))?;
        let meta = index.reports.get(r as usize).filter(|m| !m.is_pending()).ok_or("its report is not loaded")?;
        if meta.id != rd.id {
            return Err(format!("job {} is measured by report {}, not {}", j.id, meta.id, rd.id));
        }
        let own = |s: &&crate::SectionMeta| s.job.is_some_and(|x| self.jobs.contains(&x));
        let commits: Vec<Vec<u32>> = meta.sections.iter().filter(own).map(|s| s.commits.clone()).collect();
        Ok(JobShard::of_report(rd, j, job, r, &commits))
    }

    /// Every change along a chunk's series, in the view's positions: what each series' reports
    /// state (`changes::stated`), then the steps detected along it (the chunk's), series by series:
    /// the import's build order. `rules`: the view's (`changes::Rules::of` its index). The Changes view lists these:
    /// only the first page of a testcase's changes is a file of its own (`Index::changes`).
    pub fn chunk_changes(&self, chunk: &TrendChunk, rules: &crate::changes::Rules) -> Result<ChangesShard, String> {
        let mut changes = Vec::new();
        let mut steps: BTreeMap<(u32, &str), Vec<&ChangeRecord>> = BTreeMap::new();
        for c in &chunk.detected {
            steps.entry((c.job, c.metric.as_str())).or_default().push(c);
        }
        // made in the catalog's positions (no copy of the series), then moved to the view's
        let in_view = |r: u32, j: u32| Some((*self.reports.get(r as usize)?, *self.jobs.get(j as usize)?));
        let said = |r: u32, j: u32, m: &str| in_view(r, j).is_some_and(|(r, j)| rules.headline(r, j, m));
        for s in &chunk.series {
            if s.points.is_ragged() {
                return Err(format!("series {} has columns of different lengths", s.metric));
            }
            let from = changes.len();
            crate::changes::stated::<std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>>(
                s.job,
                &s.metric,
                &s.points,
                rules.weight(&s.metric),
                &said,
                &mut changes,
            );
            for c in &mut changes[from..] {
                self.to_view(c)?;
            }
            for c in steps.remove(&(s.job, s.metric.as_str())).unwrap_or_default() {
                changes.push(self.change(c)?);
            }
        }
        if let Some(((_, m), _)) = steps.first_key_value() {
            return Err(format!("a detected step of {m} is not along a series of the chunk"));
        }
        Ok(ChangesShard { schema: chunk.schema, testcase: chunk.testcase.clone(), changes })
    }

    pub fn changes(&self, shard: &ChangesShard) -> Result<ChangesShard, String> {
        let changes = shard.changes.iter().map(|c| self.change(c)).collect::<Result<_, _>>()?;
        Ok(ChangesShard { schema: shard.schema, testcase: shard.testcase.clone(), changes })
    }
}

/// The merged view of no catalog (what `merge` makes of none, without its code: the page's first
/// module carries this, the catalogs' module `merge`): every testcase by its root summary.
pub fn unloaded(root: &Root) -> Assembled {
    let index = Index { testcases: root.testcases.iter().map(unloaded_info).collect(), ..root_only(root) };
    Assembled { index, parts: BTreeMap::new() }
}

/// A merged index's start: what the root says of the whole (schema, generation, totals).
fn root_only(root: &Root) -> Index {
    Index {
        schema: root.schema,
        generation: root.generation.clone(),
        totals: root.totals.clone(),
        ..Default::default()
    }
}

/// A testcase whose catalog is not loaded: its summary in the root.
fn unloaded_info(t: &crate::TestcaseEntry) -> TestcaseInfo {
    TestcaseInfo {
        name: t.name.clone(),
        headline_metrics: t.headline_metrics.clone(),
        detected: t.detected,
        ..Default::default()
    }
}

/// Merge loaded catalogs (`(path, catalog)`) under `root`. Testcases of the root whose catalog is
/// not among them are listed with their summary only (`TestcaseInfo::loaded` false).
pub fn merge(root: &Root, catalogs: &[(String, Index)]) -> Result<Assembled, String> {
    for (path, c) in catalogs {
        check_catalog(c).map_err(|e| format!("{path}: {e}"))?;
    }
    let order = commit_order(catalogs);
    let commit_pos: HashMap<&str, u32> = order.iter().enumerate().map(|(i, c)| (c.id.as_str(), i as u32)).collect();
    let mut idx = root_only(root);
    idx.commits = order.clone();
    // reports: every catalog's, one entry per id, in time order (undated first), then source
    let mut reports: BTreeMap<(i64, String, String), crate::ReportMeta> = BTreeMap::new();
    for (_, c) in catalogs {
        for r in &c.reports {
            let key = (r.time.unwrap_or(i64::MIN), r.source.clone(), r.id.clone());
            reports.entry(key).or_insert_with(|| crate::ReportMeta { sections: vec![], ..r.clone() });
        }
    }
    idx.reports = reports.into_values().collect();
    let report_pos: HashMap<String, u32> =
        idx.reports.iter().enumerate().map(|(i, r)| (r.id.clone(), i as u32)).collect();
    // a partial catalog's reports are known by position only: pending ones after all others
    let mut pending: HashMap<&str, u32> = HashMap::new();
    for (path, c) in catalogs.iter().filter(|(_, c)| c.is_partial()) {
        pending.insert(path.as_str(), idx.reports.len() as u32);
        idx.reports.extend((0..c.report_count() as u32).map(|r| crate::ReportMeta::pending(c.is_quiet(r))));
    }
    let metric_names: BTreeSet<&str> =
        catalogs.iter().flat_map(|(_, c)| c.metrics.iter().map(|m| m.name.as_str())).collect();
    let metric_pos: HashMap<&str, u32> = metric_names.iter().enumerate().map(|(i, m)| (*m, i as u32)).collect();
    idx.metrics = metric_names
        .iter()
        .map(|m| crate::MetricInfo { name: m.to_string(), fail: true, ..Default::default() })
        .collect();
    let mut parts = BTreeMap::new();
    let mut infos: HashMap<String, TestcaseInfo> = HashMap::new();
    for (path, c) in catalogs {
        let reports = match pending.get(path.as_str()) {
            Some(&first) => (first..first + c.report_count() as u32).collect(),
            None => c.reports.iter().map(|r| report_pos[&r.id]).collect(),
        };
        let part = add_catalog(&mut idx, c, path, &commit_pos, reports, &metric_pos);
        let tc = c.testcases.first().map(|t| t.name.clone()).unwrap_or_default();
        let mut info = c.testcases.first().cloned().unwrap_or_default();
        // a catalog's one testcase has all of its jobs and metrics
        info.jobs = part.jobs.clone();
        info.metrics = c.metrics.iter().map(|m| metric_pos[m.name.as_str()]).collect();
        info.loaded = true;
        infos.insert(tc.clone(), info);
        parts.insert(tc, part);
    }
    idx.testcases = root.testcases.iter().map(|t| infos.remove(&t.name).unwrap_or_else(|| unloaded_info(t))).collect();
    // headlines: newest report first (a stable order within a report)
    crate::order::sort_by_key(&mut idx.headlines, |h| std::cmp::Reverse(h.report));
    Ok(Assembled { index: idx, parts })
}

/// Append one catalog's jobs, sections, metric facts and headlines to the merged view.
fn add_catalog(
    idx: &mut Index,
    c: &Index,
    path: &str,
    commit_pos: &HashMap<&str, u32>,
    reports: Vec<u32>,
    metric_pos: &HashMap<&str, u32>,
) -> Part {
    let commits = c.commits.iter().map(|x| commit_pos[x.id.as_str()]).collect();
    let jobs = (idx.jobs.len() as u32..(idx.jobs.len() + c.jobs.len()) as u32).collect();
    let part = Part::of(path, c, commits, jobs, reports);
    idx.jobs.extend(c.jobs.iter().cloned());
    for (i, r) in c.reports.iter().enumerate() {
        let merged = &mut idx.reports[part.reports[i] as usize];
        for s in &r.sections {
            let mut s = s.clone();
            s.job = s.job.map(|j| part.jobs[j as usize]);
            s.commits = s.commits.iter().map(|&x| part.commits[x as usize]).collect();
            merged.sections.push(s);
        }
    }
    for m in &c.metrics {
        let e = &mut idx.metrics[metric_pos[m.name.as_str()] as usize];
        e.direction = m.direction;
        e.kpi = m.kpi;
        e.fail &= m.fail;
        e.series += m.series;
    }
    for h in &c.headlines {
        let mut h = h.clone();
        h.report = part.reports[h.report as usize];
        h.job = h.job.map(|j| part.jobs[j as usize]);
        h.base = h.base.map(|x| part.commits[x as usize]);
        h.head = h.head.map(|x| part.commits[x as usize]);
        idx.headlines.push(h);
    }
    part
}

/// Every position a catalog holds is inside it.
pub fn check_catalog(c: &Index) -> Result<(), String> {
    let (nc, nj, nr) = (c.commits.len() as u32, c.jobs.len() as u32, c.report_count() as u32);
    let bad = |what: &str| Err(format!("malformed catalog: {what} names a missing job, commit, report or metric"));
    if c.headlines.iter().any(|h| {
        h.report >= nr
            || h.job.is_some_and(|j| j >= nj)
            || h.base.is_some_and(|x| x >= nc)
            || h.head.is_some_and(|x| x >= nc)
    }) {
        return bad("a headline");
    }
    if c.reports
        .iter()
        .any(|r| r.sections.iter().any(|s| s.job.is_some_and(|j| j >= nj) || s.commits.iter().any(|&x| x >= nc)))
    {
        return bad("a report section");
    }
    if c.metrics.iter().any(|m| m.chunk as usize >= c.chunks.len().max(1)) {
        return bad("a metric's chunk");
    }
    Ok(())
}

/// One history order for the commits of several catalogs: each catalog's own order is kept
/// (its consecutive commits are edges), ties broken by commit time, else first-report date, then id.
fn commit_order(catalogs: &[(String, Index)]) -> Vec<Commit> {
    let mut info: BTreeMap<&str, Commit> = BTreeMap::new();
    let mut edges: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (_, c) in catalogs {
        for x in &c.commits {
            let e = info.entry(x.id.as_str()).or_insert_with(|| x.clone());
            fill(e, x);
        }
        for w in c.commits.windows(2) {
            edges.insert((w[0].id.as_str(), w[1].id.as_str()));
        }
    }
    let k = |id: &str| -> i64 { info[id].time.or(info[id].seen).unwrap_or(i64::MAX / 2) };
    let mut indeg: BTreeMap<&str, usize> = info.keys().map(|k| (*k, 0)).collect();
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in &edges {
        *indeg.get_mut(b).expect("node") += 1;
        out.entry(a).or_default().push(b);
    }
    let mut ready: BTreeSet<(i64, &str)> = indeg.iter().filter(|(_, d)| **d == 0).map(|(id, _)| (k(id), *id)).collect();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut order = Vec::with_capacity(info.len());
    while order.len() < info.len() {
        let next = match ready.pop_first() {
            Some((_, id)) => id,
            // contradicting catalogs (a cycle): take the earliest remaining commit
            None => *indeg.keys().filter(|id| !done.contains(*id)).min_by_key(|id| (k(id), **id)).expect("remaining"),
        };
        if !done.insert(next) {
            continue;
        }
        order.push(info[next].clone());
        for b in out.get(next).cloned().unwrap_or_default() {
            let d = indeg.get_mut(b).expect("node");
            *d = d.saturating_sub(1);
            if *d == 0 && !done.contains(b) {
                ready.insert((k(b), b));
            }
        }
    }
    order
}

fn fill(e: &mut Commit, x: &Commit) {
    macro_rules! or {
        ($($f:ident),*) => { $( if e.$f.is_none() { e.$f = x.$f.clone(); } )* };
    }
    or!(subject, tree, branch, tag, time, url);
    e.seen = match (e.seen, x.seen) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Headline, Job, MetricInfo, ReportMeta, SectionMeta, SourceKind, Totals};

    /// A whole catalog: a quiet mail and a result root, two metrics in two chunks (`x.y` in its
    /// hash bucket, the only one; `t.m`, the first chart's, in a chunk of its own after it).
    fn whole() -> Index {
        let section = |c: u32| SectionMeta { job: Some(0), commits: vec![c], ..Default::default() };
        let report = |id: &str, kind, time, c| ReportMeta {
            id: id.into(),
            kind,
            source: id.into(),
            time: Some(time),
            sections: vec![section(c)],
            ..Default::default()
        };
        Index {
            schema: crate::SCHEMA_VERSION,
            commits: vec![
                Commit { id: "a".repeat(40), ..Default::default() },
                Commit { id: "b".repeat(40), ..Default::default() },
            ],
            reports: vec![
                report("r1", SourceKind::Mail, crate::QUIET_STDDEV_SINCE + 1, 1),
                report("r2", SourceKind::ResultRoot, crate::QUIET_STDDEV_SINCE + 2, 0),
            ],
            jobs: vec![Job { id: "j".into(), testcase: "t".into(), ..Default::default() }],
            metrics: vec![
                MetricInfo { name: "t.m".into(), direction: 1, kpi: true, chunk: 1, series: 1, ..Default::default() },
                MetricInfo { name: "x.y".into(), chunk: 0, series: 1, ..Default::default() },
            ],
            testcases: vec![TestcaseInfo { name: "t".into(), ..Default::default() }],
            headlines: vec![Headline {
                report: 0,
                job: Some(0),
                testcase: "t".into(),
                metric: "t.m".into(),
                head: Some(1),
                ..Default::default()
            }],
            totals: Totals { reports: 2, jobs: 1, ..Default::default() },
            chunks: vec!["s/t/a.json".into(), "s/t/b.json".into()],
            chunk_keys: vec![0, 1],
            ..Default::default()
        }
    }

    /// Its first half, as the importer publishes it, its rest and its names.
    fn halves() -> (Index, Index, Index) {
        let w = whole();
        let rest = Index {
            schema: w.schema,
            reports: w.reports.clone(),
            chunks: w.chunks.clone(),
            chunk_keys: w.chunk_keys.clone(),
            metrics: vec![],
            ..Default::default()
        };
        let names = Index { schema: w.schema, metrics: w.metrics.clone(), ..Default::default() };
        let first = Index {
            reports: vec![],
            metrics: vec![MetricInfo { chunk: 0, ..w.metrics[0].clone() }],
            chunks: vec![w.chunks[1].clone()],
            chunk_keys: vec![],
            rest: Some("t/t/0123.json".into()),
            names: Some("t/t/4567.json".into()),
            quiet: vec![0, 1],
            ..w
        };
        (first, rest, names)
    }

    fn root() -> Root {
        Root {
            schema: crate::SCHEMA_VERSION,
            testcases: vec![crate::TestcaseEntry { name: "t".into(), ..Default::default() }],
            ..Default::default()
        }
    }

    #[test]
    fn no_catalog_merges_as_the_roots_summaries() {
        let mut r = root();
        r.testcases[0].headline_metrics = vec!["t.m".into()];
        r.testcases[0].detected = 3;
        r.totals.reports = 5;
        let a = unloaded(&r);
        assert_eq!(a.index, merge(&r, &[]).unwrap().index);
        assert!(a.parts.is_empty());
        assert_eq!((a.index.testcases[0].detected, a.index.totals.reports), (3, 5));
    }

    #[test]
    fn a_catalog_without_its_rest_has_pending_reports_known_by_position() {
        let (first, _, _) = halves();
        let a = merge(&root(), &[("t/t.json".into(), first)]).unwrap();
        let part = &a.parts["t"];
        assert!(part.pending);
        assert_eq!(a.index.reports.len(), 2);
        assert!(a.index.reports.iter().all(ReportMeta::is_pending));
        // the quiet mail keeps its band; the result root has none
        assert!(a.index.reports[0].omits_small_stddev());
        assert!(!a.index.reports[1].omits_small_stddev());
        assert_eq!(a.index.headlines[0].report, 0);
        assert_eq!(part.chunk_of("t.m"), Some("s/t/b.json"));
        assert_eq!(part.chunk_of("x.y"), None, "not in the first half");
        let sd = |report| SeriesData {
            job: 0,
            metric: "t.m".into(),
            points: crate::Points {
                commit: vec![0],
                mean: vec![Some(1.0)],
                stddev_pct: vec![None],
                runs: vec![None],
                report: vec![report],
                change: vec![None],
                base: vec![None],
                ..Default::default()
            },
        };
        assert_eq!(part.series(&sd(1)).unwrap().points.report, [1]);
        assert!(part.series(&sd(2)).unwrap_err().contains("report #2 is not in the testcase's catalog"));
    }

    /// With its rest and without its names (the record of a row): every report, and the chunk of
    /// a metric it does not list found by its name's bucket.
    #[test]
    fn a_catalog_with_its_rest_alone_finds_any_metrics_chunk_by_its_bucket() {
        let (mut first, rest, _) = halves();
        first.with_rest(rest).unwrap();
        assert_eq!((first.metrics.len(), first.metrics[0].chunk), (1, 1), "the first chart's metric, its chunk moved");
        let a = merge(&root(), &[("t/t.json".into(), first)]).unwrap();
        let part = &a.parts["t"];
        assert!(!part.pending && a.index.reports[0].id == "r1");
        assert_eq!(part.chunk_of("t.m"), Some("s/t/b.json"));
        assert_eq!(part.chunk_of("x.y"), Some("s/t/a.json"), "by its bucket");
        // whole, a metric it did not measure has no chunk, though its bucket has one
        let (mut first, rest, names) = halves();
        first.complete(rest, names).unwrap();
        let part = Part::identity("t/t.json", &first);
        assert_eq!((part.chunk_of("x.y"), part.chunk_of("x.z")), (Some("s/t/a.json"), None));
    }

    #[test]
    fn a_catalog_completed_by_its_rest_merges_as_the_whole_one() {
        let (mut first, rest, names) = halves();
        first.complete(rest, names).unwrap();
        assert_eq!(first, whole());
        let a = merge(&root(), &[("t/t.json".into(), first)]).unwrap();
        let b = merge(&root(), &[("t/t.json".into(), whole())]).unwrap();
        assert_eq!(a.index, b.index);
        assert!(!a.parts["t"].pending);
        assert_eq!(a.index.reports[0].id, "r1");
    }

    #[test]
    fn a_rest_of_another_size_or_outside_its_chunks_is_refused() {
        let (mut first, mut rest, mut names) = halves();
        rest.reports.pop();
        assert_eq!(first.clone().complete(rest.clone(), names.clone()).unwrap_err(), "1 reports, the catalog counts 2");
        rest.reports = whole().reports;
        rest.chunk_keys.pop();
        assert_eq!(first.clone().complete(rest.clone(), names.clone()).unwrap_err(), "1 chunk keys for 2 chunks");
        rest.chunk_keys = whole().chunk_keys;
        names.metrics[1].chunk = 7;
        first.complete(rest, names).unwrap();
        let e = merge(&root(), &[("t/t.json".into(), first)]).unwrap_err();
        assert!(e.contains("a metric's chunk"), "{e}");
    }
}
