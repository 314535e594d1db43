//! Documents → the validated dataset: duplicate reports merged, commit ids unified and ordered,
//! jobs and series keyed, points collected, headlines resolved to their jobs and commits.

use self::changes::detected_stage;
use self::commits::commits_stage;
use self::dedup::{dedup_documents, row_count};
use self::headlines::{headlines_stage, is_kpi, testcase_info};
use self::options::{FastHash, Options};
use self::series::{jobs_stage, points_stage_consuming, usable};
use model::date::parse_date;
use model::{ChangeRecord, Index, MetricInfo, ReportDoc, Totals, SCHEMA_VERSION};
use reader::doc::Document;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub mod changes;
pub mod commits;
pub mod dedup;
pub mod docs;
pub mod gitlog;
pub mod headlines;
pub mod options;
pub mod series;

/// The built dataset, ready to be named and written (`pack`, `publish`).
pub struct Dataset {
    pub testcases: Vec<TestcaseData>,
    /// One document per report, in time order.
    pub reports: Vec<ReportDoc>,
    /// Reproduce scripts by content hash.
    pub scripts: BTreeMap<String, String>,
}

/// Build the dataset from documents (any order; sorted here for determinism): duplicates merged,
/// one report document each, then every testcase built on its own (in parallel) from the reports
/// that measured it. A testcase's files depend only on its reports, which is what lets an
/// incremental import rebuild just the testcases it touches.
pub fn build(docs: Vec<Document>, opts: &Options) -> (Dataset, usize) {
    let (testcases, reports, scripts, duplicates) = build_each(docs, opts, &|t| t);
    (Dataset { testcases, reports, scripts }, duplicates)
}

/// `build`, handing each testcase to `each` on the thread that built it as soon as it is built
/// (an import writes its files while the others build, and holds no testcase longer). Returns
/// what `each` returned (testcase order), the report documents, the scripts, duplicates merged.
pub fn build_each<R: Send>(
    docs: Vec<Document>,
    opts: &Options,
    each: &(dyn Fn(TestcaseData) -> R + Sync),
) -> (Vec<R>, Vec<ReportDoc>, BTreeMap<String, String>, usize) {
    let mut stages = crate::timing::Stages::new(std::time::Instant::now());
    let (docs, duplicates) = dedup_documents(docs);
    let docs = sort_by_time(docs);
    stages.mark("build: duplicates merged, sorted");
    let (reports, scripts) = crate::build::docs::to_docs(&docs, opts);
    stages.mark("build: report documents");
    let by_tc = split_by_testcase(docs);
    stages.mark("build: split by testcase");
    let done = build_testcases_each(by_tc, opts, each);
    stages.mark("build: testcases (built, packed and written)");
    (done, reports, scripts, duplicates)
}

/// Build each testcase from its documents, in parallel, handing each to `each` on the thread
/// that built it.
pub fn build_testcases_each<R: Send>(
    by_tc: BTreeMap<String, Vec<Document>>,
    opts: &Options,
    each: &(dyn Fn(TestcaseData) -> R + Sync),
) -> Vec<R> {
    let sizes = by_tc.iter().map(|(tc, docs)| (tc.clone(), docs.iter().map(row_count).sum())).collect();
    let by_tc = std::sync::Mutex::new(by_tc);
    let load = |tc: &str| by_tc.lock().expect("not poisoned").remove(tc).unwrap_or_default();
    build_testcases_loading(sizes, &load, opts, each)
}

/// `build_testcases_each` over testcases (with their rows) whose documents `load` gives when the
/// testcase's turn comes. A free thread takes the biggest testcase waiting that fits the memory
/// budget (`Budget`), so the import waits for the biggest, not for a tail of small ones, and
/// holds about the largest testcase's memory, not the sum of the largest few.
pub fn build_testcases_loading<R: Send>(
    sizes: Vec<(String, usize)>,
    load: &(dyn Fn(&str) -> Vec<Document> + Sync),
    opts: &Options,
    each: &(dyn Fn(TestcaseData) -> R + Sync),
) -> Vec<R> {
    let budget = Budget::over(&sizes);
    let done = std::sync::Mutex::new(Vec::new());
    // threads of their own: a waiting one must not hold a core of the pool the builds use
    std::thread::scope(|scope| {
        for _ in 0..rayon::current_num_threads().max(1) {
            scope.spawn(|| {
                while let Some(lease) = budget.take() {
                    let (i, tc) = (lease.index, lease.name.clone());
                    let t0 = std::time::Instant::now();
                    let built = build_testcase(&tc, sort_by_time(load(&tc)), opts);
                    let t1 = std::time::Instant::now();
                    let r = each(built);
                    crate::timing::testcase(&tc, t1 - t0, t1.elapsed());
                    done.lock().expect("not poisoned").push((i, r));
                }
            });
        }
    });
    let mut done = done.into_inner().expect("not poisoned");
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The testcases waiting to be built and the rows of those being built. The rows being built at
/// once stay within `rows`, the largest testcase's: the largest is built alone, the others side
/// by side within its rows (a testcase's build holds about 1 kB a row: its series and changes),
/// so the import's memory is the largest testcase's.
struct Budget {
    rows: usize,
    /// The testcases waiting (position, name, rows; the biggest first), the rows being built.
    state: std::sync::Mutex<(Vec<Waiting>, usize)>,
    freed: std::sync::Condvar,
}

type Waiting = (usize, String, usize);

/// A testcase taken from the `Budget`: its rows are given back when it is dropped (built, or
/// unwinding from a panic, so no thread waits for ever).
struct Lease<'a> {
    budget: &'a Budget,
    index: usize,
    name: String,
    rows: usize,
}

impl Budget {
    fn over(sizes: &[(String, usize)]) -> Budget {
        let mut waiting: Vec<Waiting> = sizes.iter().enumerate().map(|(i, (tc, n))| (i, tc.clone(), *n)).collect();
        waiting.sort_by_key(|(i, _, n)| (std::cmp::Reverse(*n), *i));
        let largest = waiting.first().map_or(0, |t| t.2);
        Budget { rows: largest, state: std::sync::Mutex::new((waiting, 0)), freed: Default::default() }
    }

    /// The biggest waiting testcase that fits beside those being built (any, when none is),
    /// waiting until one does; `None` when none is left.
    fn take(&self) -> Option<Lease<'_>> {
        let mut s = self.state.lock().expect("not poisoned");
        loop {
            let (waiting, busy) = &mut *s;
            if waiting.is_empty() {
                return None;
            }
            if let Some(k) = waiting.iter().position(|t| *busy == 0 || *busy + t.2 <= self.rows) {
                let (index, name, rows) = waiting.remove(k);
                *busy += rows;
                return Some(Lease { budget: self, index, name, rows });
            }
            s = self.freed.wait(s).expect("not poisoned");
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Ok(mut s) = self.budget.state.lock() {
            s.1 -= self.rows;
        }
        self.budget.freed.notify_all();
    }
}

/// Reports in time order (undated first: they must not pass for the latest), then source.
pub fn sort_by_time(mut docs: Vec<Document>) -> Vec<Document> {
    docs.sort_by_cached_key(|d| (d.date.as_deref().and_then(parse_date).unwrap_or(i64::MIN), d.source.clone()));
    docs
}

/// The testcases a document's rows measure.
pub fn testcases_of(d: &Document) -> BTreeSet<String> {
    d.sections.iter().flat_map(|s| s.rows.iter().filter(|r| usable(r)).map(|r| r.job.testcase.clone())).collect()
}

/// Each testcase's documents: a report of several testcases is split, each part keeping the
/// tables (rows) and headlines of its testcase.
pub fn split_by_testcase(docs: Vec<Document>) -> BTreeMap<String, Vec<Document>> {
    let mut out: BTreeMap<String, Vec<Document>> = BTreeMap::new();
    for d in docs {
        let tcs = testcases_of(&d);
        if tcs.len() == 1 {
            let tc = tcs.into_iter().next().expect("one");
            out.entry(tc).or_default().push(d);
            continue;
        }
        for tc in tcs {
            let mut part = d.clone();
            keep_testcase(&mut part, &tc);
            out.entry(tc).or_default().push(part);
        }
    }
    out
}

/// A report of several testcases cut to its part of `tc`: that testcase's tables (rows) and
/// headlines.
pub fn keep_testcase(part: &mut Document, tc: &str) {
    for s in &mut part.sections {
        s.rows.retain(|r| usable(r) && r.job.testcase == tc);
    }
    part.sections.retain(|s| !s.rows.is_empty());
    part.headlines.retain(|h| h.testcase == tc || h.testcase.is_empty());
}

/// One testcase's catalog and files, before they are named (`pack`).
pub struct TestcaseData {
    pub name: String,
    /// Positions local to this testcase; file names filled by `pack::testcase_files`.
    pub catalog: Index,
    /// Every series of the testcase, by (job position, metric), in that key's order.
    pub series: Vec<series::KeyedPoints>,
    /// The steps detected along the series (the stated changes are made with their pages,
    /// `store::pack`).
    pub detected: Vec<ChangeRecord>,
    pub rows: usize,
}

/// A testcase's metrics (sorted), its summary, and its stated and detected changes.
fn build_testcase(tc: &str, docs: Vec<Document>, opts: &Options) -> TestcaseData {
    let mut stages = crate::timing::Stages::new(std::time::Instant::now());
    let doc_time: Vec<Option<i64>> = docs.iter().map(|d| d.date.as_deref().and_then(parse_date)).collect();
    let (table, commits) = commits_stage(&docs, &doc_time, opts);
    stages.mark(&format!("{tc}: commits"));
    let commit_pos: HashMap<&str, u32, FastHash> =
        commits.iter().enumerate().map(|(i, c)| (c.id.as_str(), i as u32)).collect();
    let pos_of = |id: &str| commit_pos[table.canonical(id)];
    let (mut jobs, job_pos) = jobs_stage(&docs);
    stages.mark(&format!("{tc}: jobs"));
    let headlines = headlines_stage(&docs, &pos_of, &job_pos, opts, 0);
    // the documents are let go as their rows become points: the changes and the files are made
    // from the series (a big testcase's documents are as large as its series)
    let col = points_stage_consuming(docs, &doc_time, &pos_of, &mut jobs, &job_pos);
    let metrics = metrics_of(&col, opts);
    let series::Collected { reports, series, rows, .. } = col;
    stages.mark(&format!("{tc}: headlines, points, metrics"));
    let detected = detected_stage(&series, &headlines, &metrics);
    stages.mark(&format!("{tc}: detected steps"));
    let info = testcase_info(tc, &headlines, detected.len());
    let totals = Totals {
        reports: reports.len(),
        jobs: jobs.len(),
        series: series.len(),
        points: series.iter().map(|(_, p)| p.len()).sum(),
        rows,
    };
    let catalog = Index {
        schema: SCHEMA_VERSION,
        generation: String::new(),
        commits,
        reports,
        jobs,
        metrics,
        testcases: vec![info],
        headlines,
        totals,
        chunks: vec![],
        changes: vec![],
        rest: None,
        names: None,
        chunk_keys: vec![],
        quiet: vec![],
    };
    TestcaseData { name: tc.to_string(), catalog, series, detected, rows }
}

/// The testcase's metrics (sorted by name): direction, KPI, failure-only, number of series.
fn metrics_of(col: &series::Collected, opts: &Options) -> Vec<MetricInfo> {
    let mut n: HashMap<&str, u32, FastHash> = HashMap::default();
    for ((_, m), _) in &col.series {
        *n.entry(m).or_default() += 1;
    }
    let mut n: Vec<(&str, u32)> = n.into_iter().collect();
    n.sort_unstable();
    n.into_iter()
        .map(|(m, series)| MetricInfo {
            name: m.to_string(),
            direction: (opts.weight)(m),
            kpi: is_kpi(m),
            fail: col.fail_metrics.contains(m) && !col.perf_metrics.contains(m),
            series,
            chunk: 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Testcases of the sizes of 10^4 synthetic mails' largest (rows): each is built once, the
    /// results come back in the testcases' order, and the rows being built at once never pass
    /// the largest's: the largest is built alone, the others side by side.
    #[test]
    fn testcases_are_built_each_once_and_side_by_side_only_within_the_budget() {
        let rows = [712_819, 579_945, 301_093, 216_753, 205_850, 161_963, 156_807, 86_013, 56_320, 2_550];
        let sizes: Vec<(String, usize)> = rows.iter().enumerate().map(|(i, n)| (format!("tc{i:02}"), *n)).collect();
        let of = |tc: &str| sizes.iter().find(|(t, _)| t == tc).expect("a testcase").1;
        // rows being built, the most at once, the testcases started, the most built at once
        let busy = std::sync::Mutex::new((0usize, 0usize, Vec::new(), Vec::<String>::new(), 0usize));
        let load = |tc: &str| {
            let mut b = busy.lock().unwrap();
            b.0 += of(tc);
            b.1 = b.1.max(b.0);
            b.2.push(tc.to_string());
            b.3.push(tc.to_string());
            b.4 = b.4.max(b.3.len());
            drop(b);
            // long enough that the other thread starts while the largest is built, even on a busy machine
            std::thread::sleep(std::time::Duration::from_millis(of(tc) as u64 / 4_000));
            Vec::new()
        };
        let weight = |_: &str| 0i8;
        let opts = Options { commit_url: None, git_log: vec![], weight: &weight };
        // two threads, as on the machines the budget was measured on
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let done = pool.install(|| {
            build_testcases_loading(sizes.clone(), &load, &opts, &|t| {
                let mut b = busy.lock().unwrap();
                b.0 -= of(&t.name);
                b.3.retain(|n| *n != t.name);
                t.name
            })
        });
        assert_eq!(done, sizes.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(), "each once, in order");
        let (now, most, mut started, _, together) = busy.into_inner().unwrap();
        assert_eq!(now, 0);
        assert_eq!(most, 712_819, "never more rows at once than the largest's, which is built alone");
        assert!(together >= 2, "the others are built side by side");
        started.sort();
        assert_eq!(started.len(), sizes.len());
    }
}
