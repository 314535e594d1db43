//! A testcase's jobs and points: each row's observations appended to its (job, metric) series, the
//! report metadata beside them.

use super::options::FastHash;
use model::observe::RowCols;
use model::{paths, Job, Points, ReportMeta, SectionMeta};
use reader::doc::{Document, JobKey, RowKind};
use reader::links::{lore_url, report_id};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Jobs of a testcase's rows and each row table's job position: the jobs in the order the
/// reports (in time order) first measure them, so that a newer report's new job comes last and
/// every older job keeps its position (an incremental import then leaves the files of the jobs
/// it does not touch as they are).
pub(crate) fn jobs_stage(docs: &[Document]) -> (Vec<Job>, JobPos) {
    jobs_after(Vec::new(), docs)
}

/// `jobs_stage` of reports that come after those of `old` jobs: the old jobs keep their
/// positions, new ones follow.
pub(crate) fn jobs_after(mut jobs: Vec<Job>, docs: &[Document]) -> (Vec<Job>, JobPos) {
    let key = |j: &Job| JobKey { testcase: j.testcase.clone(), machine: j.machine.clone(), params: j.params.clone() };
    let mut pos: HashMap<JobKey, u32, FastHash> = jobs.iter().enumerate().map(|(i, j)| (key(j), i as u32)).collect();
    // rows of one table share their job's Arc: each Arc is looked at once
    let mut by_ptr: HashMap<usize, u32, FastHash> = HashMap::default();
    for r in docs.iter().flat_map(|d| &d.sections).flat_map(|s| &s.rows).filter(|r| usable(r)) {
        by_ptr.entry(Arc::as_ptr(&r.job) as usize).or_insert_with(|| {
            let n = pos.len() as u32;
            *pos.entry((*r.job).clone()).or_insert_with(|| {
                let k = &*r.job;
                jobs.push(Job {
                    id: model::job_id(&k.testcase, &k.machine, &k.params),
                    testcase: k.testcase.clone(),
                    machine: k.machine.clone(),
                    params: k.params.clone(),
                    ..Default::default()
                });
                n
            })
        });
    }
    (jobs, JobPos(by_ptr))
}

/// A series as a build holds it: its key (job position, metric) and its points, boxed: a big
/// testcase holds millions of them, and they are moved (gathered, sorted) as their keys and a
/// pointer, not as a dozen vectors' heads.
pub type KeyedPoints = ((u32, String), Box<Points>);

/// What the points stage collects.
#[derive(Default)]
pub(crate) struct Collected {
    pub reports: Vec<ReportMeta>,
    pub series: Vec<KeyedPoints>,
    pub fail_metrics: HashSet<String, FastHash>,
    pub perf_metrics: HashSet<String, FastHash>,
    pub rows: usize,
}

/// Reports and their observations: every usable row's value per column becomes a point; the
/// reports are at positions from `first_report` on.
pub(crate) fn points_stage(
    docs: &[Document],
    doc_time: &[Option<i64>],
    pos_of: &dyn Fn(&str) -> u32,
    jobs: &mut [Job],
    job_pos: &JobPos,
    first_report: u32,
) -> Collected {
    let mut points = Collector::from(first_report);
    points.add(docs, doc_time, pos_of, jobs, job_pos);
    points.finish()
}

/// Reports a batch of `points_stage_consuming`: few enough that a batch's documents are small
/// beside the series, enough that the series parts' threads have work between two joins.
const BATCH: usize = 256;

/// `points_stage` of a testcase's documents (from the first report on), each batch of them let go
/// as soon as its rows are points: a big testcase's documents take as much memory as its series,
/// and are never held whole beside them. (`job_pos` knows a row's job by the address of its `Arc`:
/// the rows looked up are those of documents not yet let go, whose `Arc`s were all there when it
/// was made, and no job's `Arc` is made meanwhile, so a freed address is never looked up.)
pub(crate) fn points_stage_consuming(
    docs: Vec<Document>,
    doc_time: &[Option<i64>],
    pos_of: &dyn Fn(&str) -> u32,
    jobs: &mut [Job],
    job_pos: &JobPos,
) -> Collected {
    consumed_in(docs, BATCH, doc_time, pos_of, jobs, job_pos)
}

/// `points_stage_consuming` in batches of `batch` reports.
fn consumed_in(
    mut docs: Vec<Document>,
    batch: usize,
    doc_time: &[Option<i64>],
    pos_of: &dyn Fn(&str) -> u32,
    jobs: &mut [Job],
    job_pos: &JobPos,
) -> Collected {
    let mut points = Collector::from(0);
    let mut at = 0;
    while !docs.is_empty() {
        let n = batch.min(docs.len());
        let batch: Vec<Document> = docs.drain(..n).collect();
        points.add(&batch, &doc_time[at..at + n], pos_of, jobs, job_pos);
        at += n;
    }
    points.finish()
}

/// The points stage under way: reports taken in order, a batch at a time.
struct Collector {
    out: Collected,
    /// The position of the next report.
    next: u32,
    parts: Vec<SeriesPart>,
}

impl Collector {
    fn from(first_report: u32) -> Collector {
        let parts = (0..SERIES_PARTS).map(|_| SeriesPart::default()).collect();
        Collector { out: Collected::default(), next: first_report, parts }
    }

    /// The next reports: their catalog entries, their scripts' jobs, their rows' points.
    fn add(
        &mut self,
        docs: &[Document],
        doc_time: &[Option<i64>],
        pos_of: &dyn Fn(&str) -> u32,
        jobs: &mut [Job],
        job_pos: &JobPos,
    ) {
        use rayon::prelude::*;
        // each section's commit positions, once
        let cols: Vec<Vec<Vec<u32>>> = docs
            .iter()
            .map(|d| d.sections.iter().map(|s| s.commits.iter().map(|c| pos_of(c)).collect()).collect())
            .collect();
        for ((d, cols), time) in docs.iter().zip(&cols).zip(doc_time) {
            self.out.rows += d.sections.iter().map(|s| s.rows.len()).sum::<usize>();
            self.out.reports.push(report_entry(d, *time, cols, jobs, job_pos));
        }
        let first = self.next;
        self.parts.par_iter_mut().enumerate().for_each(|(k, p)| p.add(k as u64, docs, &cols, job_pos, first));
        self.next += docs.len() as u32;
    }

    /// Every series in key order (their keys sorted, then the series permuted in place: a
    /// `Points` is a dozen vectors, and a big testcase's series are the largest thing an import
    /// holds), each series' observations by commit order, then report.
    fn finish(self) -> Collected {
        use rayon::prelude::*;
        let Collector { mut out, parts, .. } = self;
        let mut series = Vec::with_capacity(parts.iter().map(|p| p.series.len()).sum());
        for p in parts {
            out.fail_metrics.extend(p.fail_metrics);
            out.perf_metrics.extend(p.perf_metrics);
            series.extend(p.series);
        }
        series.par_iter_mut().for_each(|(_, p)| {
            p.sort_by_commit();
            fit(p);
        });
        let mut order: Vec<u32> = (0..series.len() as u32).collect();
        order.par_sort_unstable_by(|&a, &b| series[a as usize].0.cmp(&series[b as usize].0));
        permute(&mut series, &order);
        out.series = series;
        out
    }
}

/// A report's catalog entry; its reproduce script goes to the job of its first table.
fn report_entry(d: &Document, time: Option<i64>, cols: &[Vec<u32>], jobs: &mut [Job], job_pos: &JobPos) -> ReportMeta {
    let script_hash = d.script.as_ref().map(|s| paths::hash_hex(s.as_bytes()));
    let mut sections = Vec::new();
    for (si, s) in d.sections.iter().enumerate() {
        let first_job = s.rows.iter().find(|r| usable(r)).map(|r| job_pos.of(&r.job));
        if let (0, Some(h)) = (si, &script_hash) {
            for r in s.rows.iter().filter(|r| usable(r)) {
                jobs[job_pos.of(&r.job) as usize].script = Some(h.clone());
            }
        }
        sections.push(SectionMeta {
            job: first_job,
            commits: cols[si].clone(),
            rows: s.rows.len(),
            machine: s.machine_desc.clone(),
        });
    }
    report_meta(d, time, script_hash, sections)
}

/// `v` reordered in place so that its `i`-th item is the `order[i]`-th before (each item moved
/// once or twice, no copy of `v`).
fn permute<T>(v: &mut [T], order: &[u32]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        let mut i = start;
        while !done[i] {
            done[i] = true;
            let j = order[i] as usize;
            if j == start {
                break;
            }
            v.swap(i, j);
            i = j;
        }
    }
}

/// A report's catalog entry.
pub(crate) fn report_meta(
    d: &Document,
    time: Option<i64>,
    script: Option<String>,
    sections: Vec<SectionMeta>,
) -> ReportMeta {
    ReportMeta {
        id: report_id(d),
        kind: d.kind,
        source: d.source.clone(),
        message_id: d.message_id.clone(),
        subject: d.subject.clone(),
        from: d.from.clone(),
        date: d.date.clone(),
        time,
        url: lore_url(d),
        materials_url: d.materials_url.clone(),
        script,
        sections,
        notes: d.notes.clone(),
    }
}

/// The series of one part of the metric names (`SERIES_PARTS`, by a hash of the name), collected
/// over batches of reports: keyed by the metric's hash, not by a name borrowed from a document,
/// so that a batch's documents can go once its rows are points.
#[derive(Default)]
struct SeriesPart {
    series: Vec<KeyedPoints>,
    /// (job, the metric's hash) → position in `series` (positions: growing the map moves no
    /// series).
    at: HashMap<(u32, u64), u32, FastHash>,
    /// The rare series whose metric's hash is that of another metric of the same job.
    met: HashMap<(u32, String), u32, FastHash>,
    fail_metrics: HashSet<String, FastHash>,
    perf_metrics: HashSet<String, FastHash>,
}

/// Parts the series are collected in, each on the next free core: a big testcase (the one an
/// incremental import rebuilds) is one task otherwise. The parts are disjoint and sorted
/// together after, so the output does not depend on their number.
pub(crate) const SERIES_PARTS: u64 = 4;

/// A metric name's hash: its part is the hash modulo `SERIES_PARTS`.
fn name_hash(m: &str) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = FastHash::default().build_hasher();
    h.write(m.as_bytes());
    h.finish()
}

impl SeriesPart {
    /// Every usable row of part `part` of these reports (the first at position `first`): its
    /// observations appended to its series, in report order.
    fn add(&mut self, part: u64, docs: &[Document], cols: &[Vec<Vec<u32>>], job_pos: &JobPos, first: u32) {
        for (ri, d) in docs.iter().enumerate() {
            for (si, s) in d.sections.iter().enumerate() {
                for r in s.rows.iter().filter(|r| usable(r)) {
                    let h = name_hash(&r.metric);
                    if h % SERIES_PARTS != part {
                        continue;
                    }
                    let names = if r.kind == RowKind::Fail { &mut self.fail_metrics } else { &mut self.perf_metrics };
                    if !names.contains(r.metric.as_str()) {
                        names.insert(r.metric.clone());
                    }
                    let k = self.slot(job_pos.of(&r.job), &r.metric, h);
                    push_row_points(&mut self.series[k].1, r, &cols[ri][si], first + ri as u32);
                }
            }
        }
    }

    /// The position of the series of `metric` (hash `h`) in job `job`, a new one if none is.
    fn slot(&mut self, job: u32, metric: &str, h: u64) -> usize {
        let fresh = self.series.len() as u32;
        let k = *self.at.entry((job, h)).or_insert(fresh);
        let k = if k == fresh || self.series[k as usize].0 .1 == metric {
            k
        } else {
            *self.met.entry((job, metric.to_string())).or_insert(fresh)
        };
        if k == fresh {
            self.series.push(((job, metric.to_string()), Box::default()));
        }
        k as usize
    }
}

/// One row's observations (one per column) appended to its series (`model::Points::push_row`).
pub(crate) fn push_row_points(p: &mut Points, r: &reader::doc::Row, cols: &[u32], report: u32) {
    let cols_of = RowCols::of(&r.values, &r.stddev_pct, &r.changes, &r.fails, &r.runs, &r.run_values);
    let row = RowCols { fail: r.kind == RowKind::Fail, ..cols_of };
    p.push_row(row, cols, report);
}

/// Position of a row's job, found by the address of its shared `Arc`.
pub(crate) struct JobPos(HashMap<usize, u32, FastHash>);

impl JobPos {
    pub(crate) fn of(&self, job: &Arc<JobKey>) -> u32 {
        self.0[&(Arc::as_ptr(job) as usize)]
    }
}

/// Rows that become series: a known testcase and metric, not a TOTAL over testboxes.
pub(crate) fn usable(r: &reader::doc::Row) -> bool {
    !r.aggregate && !r.metric.is_empty() && !r.job.testcase.is_empty()
}

/// Each column's capacity cut to its length: a series grew by pushes (room for four points where
/// most hold two), and a big testcase holds half a million of them until it is written.
fn fit(p: &mut Points) {
    macro_rules! fit {
        ($($f:ident),*) => { $( p.$f.shrink_to_fit(); )* };
    }
    fit!(commit, mean, stddev_pct, runs, report, change, base, fails, values);
}

/// Drop columns that carry nothing (no failure counts, no per-run values) to keep shards small.
pub(crate) fn compact(mut p: Points) -> Points {
    p.drop_empty_columns();
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A testcase's reports taken a batch at a time (the documents let go after each) give the
    /// points, reports, jobs and metric kinds of them taken whole: every corpus testcase of three
    /// reports or more, one and two reports a batch.
    #[test]
    fn reports_taken_a_batch_at_a_time_give_the_points_of_them_taken_whole() {
        let docs = corpus_docs(&["txt"]);
        let weight = |_: &str| 0i8;
        let opts = crate::build::options::Options { commit_url: None, git_log: vec![], weight: &weight };
        let mut checked = 0;
        for (tc, docs) in crate::build::split_by_testcase(docs) {
            let docs = crate::build::sort_by_time(docs);
            if docs.len() < 3 {
                continue;
            }
            let time: Vec<Option<i64>> =
                docs.iter().map(|d| d.date.as_deref().and_then(model::date::parse_date)).collect();
            let (table, commits) = crate::build::commits::commits_stage(&docs, &time, &opts);
            let pos: HashMap<&str, u32> = commits.iter().enumerate().map(|(i, c)| (c.id.as_str(), i as u32)).collect();
            let pos_of = |id: &str| pos[table.canonical(id)];
            let (jobs, job_pos) = jobs_stage(&docs);
            let mut whole_jobs = jobs.clone();
            let whole = points_stage(&docs, &time, &pos_of, &mut whole_jobs, &job_pos, 0);
            assert!(!whole.series.is_empty(), "{tc}: points");
            for batch in [1, 2] {
                let mut got_jobs = jobs.clone();
                let got = consumed_in(docs.clone(), batch, &time, &pos_of, &mut got_jobs, &job_pos);
                assert_eq!(got.series, whole.series, "{tc}, {batch} a batch: series");
                assert_eq!(got.reports, whole.reports, "{tc}, {batch} a batch: reports");
                assert_eq!(got_jobs, whole_jobs, "{tc}, {batch} a batch: jobs and their scripts");
                assert_eq!(
                    (got.rows, &got.fail_metrics, &got.perf_metrics),
                    (whole.rows, &whole.fail_metrics, &whole.perf_metrics)
                );
            }
            checked += 1;
        }
        assert!(checked >= 3, "testcases of three reports or more: {checked}");
    }

    /// The documents of the corpus files with these extensions.
    fn corpus_docs(ext: &[&str]) -> Vec<Document> {
        let mut docs = Vec::new();
        for dir in ["/../fixtures/corpus", "/../fixtures/corpus/raw"] {
            for e in std::fs::read_dir(format!("{}{dir}", env!("CARGO_MANIFEST_DIR"))).unwrap() {
                let path = e.unwrap().path();
                if path.extension().is_none_or(|x| !ext.iter().any(|e| x == *e)) {
                    continue;
                }
                let name = path.display().to_string();
                let text = std::fs::read(&path).unwrap();
                let mut r = reader::file::FileResult::new(name.clone(), text.len());
                reader::file::read_bytes(&name, &text, &mut r);
                docs.extend(r.docs);
            }
        }
        docs
    }

    /// A job one report alone measured has no file of its own: its compare file is made from the
    /// report's published document (`model::JobShard::of_report`), which must give the series the
    /// import made, per-run values and failure counts included; reports of several testcases too.
    #[test]
    fn a_job_of_one_report_is_made_from_its_document_as_the_import_made_it() {
        // the mails as sent and as text: each report once (as an import keeps it)
        let mut docs = corpus_docs(&["txt", "eml"]);
        let mut seen = HashSet::new();
        docs.retain(|d| seen.insert(report_id(d)));
        let weight = |m: &str| if m.contains("iops") { 1 } else { 0 };
        let opts = crate::build::options::Options { commit_url: None, git_log: vec![], weight: &weight };
        let mut published: HashMap<String, model::ReportDoc> = HashMap::new();
        for d in &docs {
            let rd = reader::docfile::to_doc(d, &mut Default::default(), &opts.doc());
            let rd: model::ReportDoc = serde_json::from_str(&serde_json::to_string(&rd).unwrap()).unwrap();
            published.insert(rd.id.clone(), rd);
        }
        let several = |rd: &model::ReportDoc| rd.jobs.iter().map(|j| &j.testcase).collect::<HashSet<_>>().len() > 1;
        let (mut checked, mut of_several, mut fails) = (0, 0, 0);
        for (tc, docs) in crate::build::split_by_testcase(docs) {
            let docs = crate::build::sort_by_time(docs);
            let time: Vec<Option<i64>> =
                docs.iter().map(|d| d.date.as_deref().and_then(model::date::parse_date)).collect();
            let (table, commits) = crate::build::commits::commits_stage(&docs, &time, &opts);
            let pos: HashMap<&str, u32> = commits.iter().enumerate().map(|(i, c)| (c.id.as_str(), i as u32)).collect();
            let pos_of = |id: &str| pos[table.canonical(id)];
            let (mut jobs, job_pos) = jobs_stage(&docs);
            let mut built = points_stage(&docs, &time, &pos_of, &mut jobs, &job_pos, 0);
            built.series.iter_mut().for_each(|(_, p)| p.drop_empty_columns());
            for run in built.series.chunk_by(|a, b| a.0 .0 == b.0 .0) {
                let Some(r) = crate::store::pack::only_report(run.iter().map(|(_, p)| &**p)) else { continue };
                let meta = &built.reports[r as usize];
                let rd = &published[&meta.id];
                let j = run[0].0 .0;
                let commits: Vec<Vec<u32>> =
                    meta.sections.iter().filter(|s| s.job.is_some()).map(|s| s.commits.clone()).collect();
                let got = model::JobShard::of_report(rd, &jobs[j as usize], j, r, &commits);
                let want: Vec<model::SeriesData> = run
                    .iter()
                    .map(|((j, m), p)| model::SeriesData { job: *j, metric: m.clone(), points: (**p).clone() })
                    .collect();
                assert_eq!(got.series, want, "{tc}: job {j} of report {}", meta.id);
                assert_eq!(got.job, jobs[j as usize].id);
                checked += 1;
                of_several += several(rd) as usize;
                fails += want.iter().any(|s| !s.points.fails.is_empty()) as usize;
            }
        }
        assert!(checked >= 30 && of_several >= 1 && fails >= 1, "{checked} jobs, {of_several}, {fails}");
    }

    /// Two metrics of one job whose hashes meet keep a series each; the same metric in another
    /// job has its own.
    #[test]
    fn metrics_whose_hashes_meet_keep_their_own_series() {
        let mut part = SeriesPart::default();
        let got: Vec<usize> = [(0, "a"), (0, "b"), (0, "a"), (0, "b"), (1, "a"), (0, "c")]
            .iter()
            .map(|&(j, m)| part.slot(j, m, 7))
            .collect();
        assert_eq!(got, [0, 1, 0, 1, 2, 3]);
        let keys: Vec<(u32, &str)> = part.series.iter().map(|((j, m), _)| (*j, m.as_str())).collect();
        assert_eq!(keys, [(0, "a"), (0, "b"), (1, "a"), (0, "c")]);
    }

    /// `permute` puts each item where the order says, whatever the order's cycles.
    #[test]
    fn permute_gathers_in_place() {
        let mut rng = model::rng::XorShift::new(7);
        for n in [0usize, 1, 2, 5, 64, 1000] {
            let mut order: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let v: Vec<String> = (0..n).map(|i| format!("item{i}")).collect();
            let mut w = v.clone();
            permute(&mut w, &order);
            assert_eq!(w, order.iter().map(|&i| v[i as usize].clone()).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
