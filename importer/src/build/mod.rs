//! Documents → the validated dataset: duplicate reports merged, commit ids unified and ordered,
//! jobs and series keyed, points collected, headlines resolved to their jobs and commits.

use model::{
    paths, ChangeRecord, ChangeSource, Commit, Direction, Headline, Index, Job, MetricInfo, Points, ReportDoc,
    ReportMeta, SectionMeta, TestcaseInfo, Totals, SCHEMA_VERSION,
};
use reader::date::parse_date;
use reader::doc::{Document, JobKey, RowKind};
use reader::links::{commit_link, is_hex, lore_url, report_id, report_key};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// The hasher of the build's own maps (their order never reaches the output).
type FastHash = rustc_hash::FxBuildHasher;

/// How to build.
pub struct Options<'a> {
    /// Commit URL template with `{sha}` (overrides the per-tree default).
    pub commit_url: Option<String>,
    /// `git log --format='%H %ct %s'` lines: exact order and dates.
    pub git_log: Vec<GitLogEntry>,
    /// Direction weight of a metric: 1 higher-is-better, -1 lower-is-better, 0 unknown.
    pub weight: &'a (dyn Fn(&str) -> i8 + Sync),
}

impl Options<'_> {
    /// How the report documents are published: with these links and directions.
    pub fn doc(&self) -> reader::docfile::DocOptions<'_> {
        reader::docfile::DocOptions { commit_url: self.commit_url.as_deref(), weight: self.weight }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct GitLogEntry {
    pub sha: String,
    pub time: i64,
    pub subject: String,
}

/// Parse `git log --format='%H %ct %s'` output; returns entries and bad lines (1-based).
pub fn parse_git_log(text: &str) -> (Vec<GitLogEntry>, Vec<(usize, String)>) {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut it = line.splitn(3, ' ');
        let sha = it.next().unwrap_or("");
        let time = it.next().and_then(|t| t.parse::<i64>().ok());
        match time {
            Some(time) if sha.len() >= 7 && sha.bytes().all(|b| b.is_ascii_hexdigit()) => out.push(GitLogEntry {
                sha: sha.to_ascii_lowercase(),
                time,
                subject: it.next().unwrap_or("").to_string(),
            }),
            _ => bad.push((i + 1, "expected `<sha> <unix time> <subject>`".to_string())),
        }
    }
    (out, bad)
}

/// The built dataset, ready to be named and written (`pack`, `publish`).
pub struct Dataset {
    pub testcases: Vec<TestcaseData>,
    /// One document per report, in time order.
    pub reports: Vec<ReportDoc>,
    /// Reproduce scripts by content hash.
    pub scripts: BTreeMap<String, String>,
}

/// Identity of every row of a document: abbreviated commits, metric and numbers, hashed.
fn row_keys(d: &Document) -> HashSet<u64> {
    use std::hash::Hash;
    let mut out = HashSet::new();
    for s in &d.sections {
        let mut hc = paths::Fnv::new();
        for c in &s.commits {
            (if c.len() > 7 && is_hex(c) { &c[..7] } else { c.as_str() }).hash(&mut hc);
        }
        for r in &s.rows {
            let mut h = hc;
            r.metric.hash(&mut h);
            for v in r.values.iter().chain(&r.stddev_pct) {
                v.map(f64::to_bits).hash(&mut h);
            }
            r.fails.hash(&mut h);
            r.runs.hash(&mut h);
            out.insert(h.finish());
        }
    }
    out
}

fn row_count(d: &Document) -> usize {
    d.sections.iter().map(|s| s.rows.len()).sum()
}

/// Merge documents that are the same report (the same mail in two folders, as .txt and .eml):
/// keep the fullest copy and fill its gaps from the others.
pub fn dedup_documents(mut docs: Vec<Document>) -> (Vec<Document>, usize) {
    docs.sort_by(|a, b| a.source.cmp(&b.source));
    let mut groups: BTreeMap<String, Vec<Document>> = BTreeMap::new();
    for d in docs {
        groups.entry(report_key(&d)).or_default().push(d);
    }
    let mut out = Vec::new();
    let mut dropped = 0;
    // A copy without a Message-ID (a web page, a partial paste) whose every row is in another
    // report is that report read twice.
    // (only looked for when there is such a copy: mails all have Message-IDs)
    let any_unkeyed = groups.keys().any(|k| k.starts_with("content:"));
    let keyed: Vec<(String, HashSet<u64>)> = match any_unkeyed {
        true => groups.iter().map(|(k, g)| (k.clone(), row_keys(&g[0]))).collect(),
        false => Vec::new(),
    };
    let mut owner: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, (_, keys)) in keyed.iter().enumerate() {
        for k in keys {
            owner.entry(*k).or_default().push(i);
        }
    }
    let mut merge_into: BTreeMap<String, String> = BTreeMap::new();
    for (i, (k, keys)) in keyed.iter().enumerate() {
        if !k.starts_with("content:") || keys.is_empty() {
            continue;
        }
        let first = keys.iter().next().expect("non-empty");
        let host = owner[first].iter().copied().find(|&j| {
            j != i
                && keyed[j].1.len() >= keys.len()
                && keys.iter().all(|r| keyed[j].1.contains(r))
                && !merge_into.contains_key(&keyed[j].0)
        });
        if let Some(j) = host {
            merge_into.insert(k.clone(), keyed[j].0.clone());
        }
    }
    for (from, to) in &merge_into {
        let g = groups.remove(from).expect("group");
        groups.get_mut(to).expect("host group").extend(g);
    }
    for (_, mut g) in groups {
        dropped += g.len() - 1;
        // fullest first: most rows, then has a script, then source order
        g.sort_by(|a, b| {
            row_count(b)
                .cmp(&row_count(a))
                .then(b.script.is_some().cmp(&a.script.is_some()))
                .then(a.source.cmp(&b.source))
        });
        let mut best = g.remove(0);
        for o in g {
            // a real reproduce file beats the "To reproduce:" prose of the mail body
            if o.script.is_some() && (best.script.is_none() || o.script_is_file && !best.script_is_file) {
                best.script = o.script;
                best.script_is_file = o.script_is_file;
            }
            // a copy without a Message-ID (a web page) merged with the mail is the mail: its id
            best.message_id = best.message_id.or(o.message_id);
            best.materials_url = best.materials_url.or(o.materials_url);
            best.subject = best.subject.or(o.subject);
            best.date = best.date.or(o.date);
            best.from = best.from.or(o.from);
            for n in o.notes {
                if !best.notes.contains(&n) {
                    best.notes.push(n);
                }
            }
        }
        out.push(best);
    }
    (out, dropped)
}

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
fn order_commits(
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

/// Monitor namespaces: metrics under them are never a testcase's KPI.
const MONITORS: [&str; 40] = [
    "vmstat",
    "proc-vmstat",
    "meminfo",
    "slabinfo",
    "numa-meminfo",
    "numa-vmstat",
    "numa-numastat",
    "iostat",
    "mpstat",
    "turbostat",
    "cpuidle",
    "softirqs",
    "interrupts",
    "sched_debug",
    "perf-stat",
    "perf-profile",
    "perf-sched",
    "perf-c2c",
    "lock_stat",
    "uptime",
    "boot-time",
    "diskstats",
    "pagetypeinfo",
    "buddyinfo",
    "pmeter",
    "energy",
    "time",
    "dmesg",
    "kmsg",
    "stderr",
    "last_state",
    "latency_stats",
    "cpuidle-time",
    "perf-sched-lat",
    "netstat",
    "sockstat",
    "proc-stat",
    "pmeter-power",
    "ftrace",
    "kernel-size",
];

pub(crate) fn is_kpi(metric: &str) -> bool {
    let ns = metric.split('.').next().unwrap_or("");
    metric.contains('.') && !MONITORS.contains(&ns) && !metric.contains(".time.")
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
    let (reports, scripts) = crate::build::to_docs(&docs, opts);
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
    use rayon::prelude::*;
    let mut v: Vec<(usize, String, Vec<Document>)> =
        by_tc.into_iter().enumerate().map(|(i, (tc, docs))| (i, tc, docs)).collect();
    // the biggest first, each taken by the next free thread (rayon's halving would leave a big
    // testcase of the second half for last): the import waits for the biggest, not for the tail
    v.sort_by_key(|(i, _, docs)| (std::cmp::Reverse(docs.iter().map(row_count).sum::<usize>()), *i));
    let mut done: Vec<(usize, R)> = v
        .into_iter()
        .par_bridge()
        .map(|(i, tc, docs)| {
            let t0 = std::time::Instant::now();
            let built = build_testcase(&tc, sort_by_time(docs), opts);
            let t1 = std::time::Instant::now();
            let r = each(built);
            crate::timing::testcase(&tc, t1 - t0, t1.elapsed());
            (i, r)
        })
        .collect();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
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
            for s in &mut part.sections {
                s.rows.retain(|r| usable(r) && r.job.testcase == tc);
            }
            part.sections.retain(|s| !s.rows.is_empty());
            part.headlines.retain(|h| h.testcase == tc || h.testcase.is_empty());
            out.entry(tc).or_default().push(part);
        }
    }
    out
}

/// One testcase's catalog and files, before they are named (`pack`).
pub struct TestcaseData {
    pub name: String,
    /// Positions local to this testcase; file names filled by `pack::testcase_files`.
    pub catalog: Index,
    /// Every series of the testcase, by (job position, metric), in that key's order.
    pub series: Vec<((u32, String), Points)>,
    /// Stated and detected changes.
    pub changes: Vec<ChangeRecord>,
    pub rows: usize,
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

/// Jobs of a testcase's rows and each row table's job position: the jobs in the order the
/// reports (in time order) first measure them, so that a newer report's new job comes last and
/// every older job keeps its position (an incremental import then leaves the files of the jobs
/// it does not touch as they are).
fn jobs_stage(docs: &[Document]) -> (Vec<Job>, JobPos) {
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

/// What the points stage collects.
#[derive(Default)]
pub(crate) struct Collected<'a> {
    pub reports: Vec<ReportMeta>,
    pub series: Vec<((u32, String), Points)>,
    pub fail_metrics: HashSet<&'a str, FastHash>,
    pub perf_metrics: HashSet<&'a str, FastHash>,
    pub rows: usize,
}

/// Reports and their observations: every usable row's value per column becomes a point; the
/// reports are at positions from `first_report` on.
pub(crate) fn points_stage<'a>(
    docs: &'a [Document],
    doc_time: &[Option<i64>],
    pos_of: &dyn Fn(&str) -> u32,
    jobs: &mut [Job],
    job_pos: &JobPos,
    first_report: u32,
) -> Collected<'a> {
    let mut out = Collected::default();
    // each section's commit positions, once
    let cols: Vec<Vec<Vec<u32>>> = docs
        .iter()
        .map(|d| d.sections.iter().map(|s| s.commits.iter().map(|c| pos_of(c)).collect()).collect())
        .collect();
    for (ri, d) in docs.iter().enumerate() {
        let script_hash = d.script.as_ref().map(|s| paths::hash_hex(s.as_bytes()));
        let mut sections = Vec::new();
        for (si, s) in d.sections.iter().enumerate() {
            out.rows += s.rows.len();
            let first_job = s.rows.iter().find(|r| usable(r)).map(|r| job_pos.of(&r.job));
            if si == 0 {
                // the reproduce script of a report belongs to the job of its first table
                for r in s.rows.iter().filter(|r| usable(r)) {
                    if let Some(h) = &script_hash {
                        jobs[job_pos.of(&r.job) as usize].script = Some(h.clone());
                    }
                }
            }
            sections.push(SectionMeta {
                job: first_job,
                commits: cols[ri][si].clone(),
                rows: s.rows.len(),
                machine: s.machine_desc.clone(),
            });
        }
        out.reports.push(report_meta(d, doc_time[ri], script_hash, sections));
    }
    let parts = series_stage(docs, &cols, job_pos, first_report);
    for p in &parts {
        out.fail_metrics.extend(&p.fail_metrics);
        out.perf_metrics.extend(&p.perf_metrics);
    }
    // series in key order (their keys sorted, then each series moved once: a `Points` is a dozen
    // vectors), each series' observations by commit order, then report
    use rayon::prelude::*;
    let mut slots: Vec<Option<((u32, &str), Points)>> = parts.into_iter().flat_map(|p| p.series).map(Some).collect();
    slots.par_iter_mut().flatten().for_each(|(_, p)| sort_points(p));
    let mut order: Vec<((u32, &str), u32)> =
        slots.iter().enumerate().filter_map(|(i, s)| Some((s.as_ref()?.0, i as u32))).collect();
    order.par_sort_unstable();
    out.series = order
        .into_iter()
        .filter_map(|(_, i)| slots[i as usize].take())
        .map(|((j, m), p)| ((j, m.to_string()), p))
        .collect();
    out
}

/// A report's catalog entry.
fn report_meta(d: &Document, time: Option<i64>, script: Option<String>, sections: Vec<SectionMeta>) -> ReportMeta {
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

/// The series of one part of the metric names (`SERIES_PARTS`, by a hash of the name).
#[derive(Default)]
struct SeriesPart<'a> {
    series: Vec<((u32, &'a str), Points)>,
    fail_metrics: HashSet<&'a str, FastHash>,
    perf_metrics: HashSet<&'a str, FastHash>,
}

/// Parts the series are collected in, each on the next free core: a big testcase (the one an
/// incremental import rebuilds) is one task otherwise. The parts are disjoint and sorted
/// together after, so the output does not depend on their number.
const SERIES_PARTS: u64 = 4;

/// Every usable row's observations, appended to its series in report order, in parts.
fn series_stage<'a>(
    docs: &'a [Document],
    cols: &[Vec<Vec<u32>>],
    job_pos: &JobPos,
    first_report: u32,
) -> Vec<SeriesPart<'a>> {
    use rayon::prelude::*;
    let part_of = |m: &str| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = FastHash::default().build_hasher();
        h.write(m.as_bytes());
        h.finish() % SERIES_PARTS
    };
    (0..SERIES_PARTS)
        .into_par_iter()
        .map(|part| {
            let mut out = SeriesPart::default();
            // collected by borrowed name (no key allocation per row); the map holds positions, so
            // that growing it moves no series
            let mut at: HashMap<(u32, &str), u32, FastHash> = HashMap::default();
            for (ri, d) in docs.iter().enumerate() {
                for (si, s) in d.sections.iter().enumerate() {
                    for r in s.rows.iter().filter(|r| usable(r) && part_of(&r.metric) == part) {
                        if r.kind == RowKind::Fail {
                            out.fail_metrics.insert(&r.metric);
                        } else {
                            out.perf_metrics.insert(&r.metric);
                        }
                        let key = (job_pos.of(&r.job), r.metric.as_str());
                        let k = *at.entry(key).or_insert_with(|| {
                            out.series.push((key, Points::default()));
                            out.series.len() as u32 - 1
                        });
                        let report = first_report + ri as u32;
                        push_row_points(&mut out.series[k as usize].1, r, &cols[ri][si], report);
                    }
                }
            }
            out
        })
        .collect()
}

/// One row's observations (one per column) appended to its series. Reports are taken in order,
/// so the series' observations of this report are the ones at its end.
fn push_row_points(p: &mut Points, r: &reader::doc::Row, cols: &[u32], report: u32) {
    for (c, &commit) in cols.iter().enumerate() {
        let (mean, fails) = if r.kind == RowKind::Fail {
            let f = r.fails.get(c).copied().flatten();
            let n = r.runs.get(c).copied().flatten();
            match (f, n) {
                (Some(f), Some(n)) if n > 0 => (Some(100.0 * f as f64 / n as f64), Some(f)),
                _ => (None, None),
            }
        } else {
            (r.values.get(c).copied().flatten(), None)
        };
        let Some(mean) = mean.filter(|m| m.is_finite()) else { continue };
        // the same observation twice in one report (a base column repeated per table)
        let this_report = (0..p.len()).rev().take_while(|&k| p.report[k] == report);
        if this_report.into_iter().any(|k| p.commit[k] == commit && p.mean[k].map(f64::to_bits) == Some(mean.to_bits()))
        {
            continue;
        }
        p.commit.push(commit);
        p.mean.push(Some(mean));
        p.stddev_pct.push(r.stddev_pct.get(c).copied().flatten().filter(|s| *s >= 0.0));
        p.runs.push(r.runs.get(c).copied().flatten());
        p.report.push(report);
        p.change.push(if c == 0 { None } else { r.changes.get(c - 1).copied().flatten().filter(|x| x.is_finite()) });
        p.base.push(if c == 0 { None } else { Some(cols[0]) });
        p.fails.push(fails);
        p.values.push(r.run_values.get(c).cloned().flatten().unwrap_or_default());
    }
}

/// The changes the reports' headlines state, newest report first, resolved to their rows.
/// The reports are at positions from `first_report` on.
pub(crate) fn headlines_stage(
    docs: &[Document],
    pos_of: &dyn Fn(&str) -> u32,
    job_pos: &JobPos,
    opts: &Options,
    first_report: u32,
) -> Vec<Headline> {
    let mut headlines = Vec::new();
    for (ri, d) in docs.iter().enumerate().rev() {
        let ri = first_report as usize + ri;
        for h in &d.headlines {
            // the section that has this metric for this testcase
            let hit = d.sections.iter().find_map(|s| {
                s.rows
                    .iter()
                    .find(|r| {
                        usable(r) && r.metric == h.metric && (h.testcase.is_empty() || r.job.testcase == h.testcase)
                    })
                    .map(|r| (s, r))
            });
            let (job, base, head, change) = match hit {
                Some((s, r)) => (
                    Some(job_pos.of(&r.job)),
                    s.commits.first().map(|c| pos_of(c)),
                    s.commits.get(1).map(|c| pos_of(c)),
                    r.changes.first().copied().flatten().or(h.change),
                ),
                None => (None, None, None, h.change),
            };
            let word = if h.word.is_empty() {
                match Direction::of((opts.weight)(&h.metric), change.unwrap_or(0.0)) {
                    Direction::Undefined => String::new(),
                    dir => dir.as_str().to_string(),
                }
            } else {
                h.word.clone()
            };
            headlines.push(Headline {
                report: ri as u32,
                job,
                testcase: h.testcase.clone(),
                metric: h.metric.clone(),
                change,
                word,
                base,
                head,
            });
        }
    }
    headlines
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
    let col = points_stage(&docs, &doc_time, &pos_of, &mut jobs, &job_pos, 0);
    stages.mark(&format!("{tc}: points"));
    let metrics: Vec<MetricInfo> = {
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
    };
    let headlines = headlines_stage(&docs, &pos_of, &job_pos, opts, 0);
    stages.mark(&format!("{tc}: metrics, headlines"));
    let changes = changes_stage(&col.series, &headlines, &metrics);
    stages.mark(&format!("{tc}: changes"));
    let detected = changes.iter().filter(|c| c.source == ChangeSource::Detected).count();
    let info = testcase_info(tc, &headlines, detected);
    let totals = Totals {
        reports: col.reports.len(),
        jobs: jobs.len(),
        series: col.series.len(),
        points: col.series.iter().map(|(_, p)| p.len()).sum(),
        rows: col.rows,
    };
    let catalog = Index {
        schema: SCHEMA_VERSION,
        generation: String::new(),
        commits,
        reports: col.reports,
        jobs,
        metrics,
        testcases: vec![info],
        headlines,
        totals,
        chunks: vec![],
        changes: vec![],
        change_count: 0,
        change_buckets: vec![],
        rest: None,
        quiet: vec![],
    };
    TestcaseData { name: tc.to_string(), catalog, series: col.series, changes, rows: col.rows }
}

/// A testcase's summary: its headline metrics (most reported first) and its `detected` steps.
pub(crate) fn testcase_info(tc: &str, headlines: &[Headline], detected: usize) -> TestcaseInfo {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for h in headlines.iter().filter(|h| h.testcase == tc || h.testcase.is_empty()) {
        *counts.entry(&h.metric).or_default() += 1;
    }
    let mut hm: Vec<(&str, usize)> = counts.into_iter().collect();
    hm.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    TestcaseInfo {
        name: tc.to_string(),
        headline_metrics: hm.into_iter().map(|(m, _)| m.to_string()).collect(),
        detected,
        ..Default::default()
    }
}

/// Changes: stated by reports, and steps found along series.
pub(crate) fn changes_stage(
    series: &[((u32, String), Points)],
    headlines: &[Headline],
    metrics: &[MetricInfo],
) -> Vec<ChangeRecord> {
    let headline_keys: HashSet<(u32, u32, &str), FastHash> =
        headlines.iter().filter_map(|h| Some((h.report, h.job?, h.metric.as_str()))).collect();
    // series by series on all cores (an incremental add rebuilds one testcase: its only parallelism),
    // gathered in series order, so the output does not depend on the scheduling
    use rayon::prelude::*;
    let per_series: Vec<Vec<ChangeRecord>> = series
        .par_iter()
        .map(|((j, m), p)| {
            let mut out = Vec::new();
            // `metrics` is sorted by name and holds every series' metric (its direction already looked up)
            let weight = metrics.binary_search_by(|x| x.name.as_str().cmp(m)).map_or(0, |i| metrics[i].direction);
            stated_changes(*j, m, p, weight, &headline_keys, &mut out);
            if (0..p.len()).all(|k| !p.is_fail(k)) {
                detected_changes(*j, m, p, weight, &mut out);
            }
            out
        })
        .collect();
    per_series.into_iter().flatten().collect()
}

/// The changes the reports state for one series: each observation with a change, against the
/// same report's base observation.
fn stated_changes(
    job: u32,
    metric: &str,
    p: &Points,
    weight: i8,
    headline_keys: &HashSet<(u32, u32, &str), FastHash>,
    out: &mut Vec<ChangeRecord>,
) {
    // the first observation of each (commit, report): the base of a stated change is in the same report;
    // most series are a mail's 2-3 columns, where a scan beats building a map
    let first = |commit: u32, report: u32| (0..p.len()).find(|&k| p.commit[k] == commit && p.report[k] == report);
    let at: Option<HashMap<(u32, u32), usize, FastHash>> = (p.len() > 32).then(|| {
        let mut at = HashMap::with_capacity_and_hasher(p.len(), FastHash::default());
        for k in (0..p.len()).rev() {
            at.insert((p.commit[k], p.report[k]), k);
        }
        at
    });
    for i in 0..p.len() {
        let (Some(change), Some(base), Some(head_mean)) = (p.change[i], p.base[i], p.mean[i]) else { continue };
        let fail = p.is_fail(i);
        let report = p.report[i];
        let b = match &at {
            Some(at) => at.get(&(base, report)).copied(),
            None => first(base, report),
        };
        let Some(b) = b else { continue };
        let Some(base_mean) = p.mean[b] else { continue };
        let sd = |k: usize| p.stddev(k);
        let p_value = match (p.runs[b], p.runs[i], sd(b), sd(i)) {
            (Some(ra), Some(rb), Some(sa), Some(sb)) => match model::changes::welch(
                model::changes::Sample { mean: base_mean, stddev: sa, runs: ra },
                model::changes::Sample { mean: head_mean, stddev: sb, runs: rb },
            ) {
                model::changes::Significance::PValue(v) => Some(v),
                model::changes::Significance::Unknown => None,
            },
            _ => None,
        };
        let noise = sd(b).into_iter().chain(sd(i)).fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.max(s))));
        out.push(ChangeRecord {
            source: ChangeSource::Stated,
            job,
            metric: metric.to_string(),
            base,
            head: p.commit[i],
            base_mean,
            head_mean,
            change,
            kind: if fail { model::ChangeKind::Reproduction } else { model::stats::change_kind(metric) },
            // more failing runs are worse, whatever the metric's own direction
            direction: Direction::of(if fail { -1 } else { weight }, change),
            p_value,
            noise_ratio: noise
                .filter(|n| *n > 0.0)
                .map(|n| ((head_mean - base_mean).abs() / n * 100.0).round() / 100.0),
            report: Some(report),
            headline: headline_keys.contains(&(report, job, metric)),
        });
    }
}

/// Steps found by change-point detection along one series (one value per commit: the mean of its
/// observations, with the noise of that mean).
pub(crate) fn detected_changes(job: u32, metric: &str, p: &Points, weight: i8, out: &mut Vec<ChangeRecord>) {
    let mut per_commit: Vec<(u32, model::changes::Obs)> = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let c = p.commit[i];
        let mut k = i;
        let (mut sum, mut n, mut var, mut known) = (0.0, 0.0, 0.0, true);
        while k < p.len() && p.commit[k] == c {
            if let Some(m) = p.mean[k] {
                sum += m;
                n += 1.0;
                match p.stddev(k) {
                    Some(s) => {
                        let runs = p.runs[k].unwrap_or(1).max(1) as f64;
                        var += s * s / runs;
                    }
                    None => known = false,
                }
            }
            k += 1;
        }
        if n > 0.0 {
            let sigma = known.then(|| (var / (n * n)).sqrt()).filter(|s| *s > 0.0);
            per_commit.push((c, model::changes::Obs { mean: sum / n, sigma }));
        }
        i = k;
    }
    if per_commit.len() < 4 {
        return;
    }
    let obs: Vec<model::changes::Obs> = per_commit.iter().map(|(_, o)| *o).collect();
    for step in model::changes::change_points(&obs, model::changes::StepOptions::default()) {
        let change = model::stats::change(metric, step.before, step.after);
        out.push(ChangeRecord {
            source: ChangeSource::Detected,
            job,
            metric: metric.to_string(),
            base: per_commit[step.at - 1].0,
            head: per_commit[step.at].0,
            base_mean: printed(step.before),
            head_mean: printed(step.after),
            change: (change * 100.0).round() / 100.0,
            kind: model::stats::change_kind(metric),
            direction: Direction::of(weight, change),
            p_value: None,
            // the step in units of the series' commit-to-commit noise (the detector's estimate)
            noise_ratio: Some(step.noise_ratio()).filter(|r| r.is_finite()).map(|r| (r * 100.0).round() / 100.0),
            report: None,
            headline: false,
        });
    }
}

/// A value at the precision the mails print (2 decimals below 1000, else integer).
pub(crate) fn printed(x: f64) -> f64 {
    if x.abs() >= 1000.0 {
        x.round()
    } else {
        (x * 100.0).round() / 100.0
    }
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

pub(crate) fn sort_points(p: &mut Points) {
    let key = |i: usize| (p.commit[i], p.report[i]);
    if (1..p.len()).all(|i| key(i - 1) <= key(i)) {
        return; // already in order (a stable sort would not move anything)
    }
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by_key(|&i| (p.commit[i], p.report[i]));
    macro_rules! permute {
        ($($f:ident),*) => { $( p.$f = idx.iter().map(|&i| p.$f[i].clone()).collect(); )* };
    }
    permute!(commit, mean, stddev_pct, runs, report, change, base, fails, values);
}

/// Drop columns that carry nothing (no failure counts, no per-run values) to keep shards small.
pub(crate) fn compact(mut p: Points) -> Points {
    if p.fails.iter().all(Option::is_none) {
        p.fails.clear();
    }
    if p.values.iter().all(Vec::is_empty) {
        p.values.clear();
    }
    p
}

/// Every document's report document (on all cores) and the reproduce scripts they name, by hash.
pub fn to_docs(docs: &[Document], opts: &Options) -> (Vec<ReportDoc>, BTreeMap<String, String>) {
    to_docs_reusing(docs, &BTreeMap::new(), opts)
}

/// `to_docs`, taking the report document of `known` (by id) for a document read back from it
/// unchanged (an `--into` whose new reports merged with no old one).
pub fn to_docs_reusing(
    docs: &[Document],
    known: &BTreeMap<String, ReportDoc>,
    opts: &Options,
) -> (Vec<ReportDoc>, BTreeMap<String, String>) {
    use rayon::prelude::*;
    let each: Vec<(ReportDoc, BTreeMap<String, String>)> = docs
        .par_iter()
        .map(|d| {
            let mut scripts = BTreeMap::new();
            let rd = match known.get(&report_id(d)) {
                Some(rd) => {
                    if let (Some(h), Some(s)) = (&rd.script, &d.script) {
                        scripts.insert(h.clone(), s.clone());
                    }
                    rd.clone()
                }
                None => reader::docfile::to_doc(d, &mut scripts, &opts.doc()),
            };
            (rd, scripts)
        })
        .collect();
    let mut scripts = BTreeMap::new();
    let reports = each
        .into_iter()
        .map(|(r, s)| {
            scripts.extend(s);
            r
        })
        .collect();
    (reports, scripts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A web page's copy of a mail (no Message-ID) is that mail read twice: the report keeps the
    /// mail's id whichever copy is taken as the fullest (here the page, first by source order).
    #[test]
    fn a_copy_without_a_message_id_merged_with_its_mail_keeps_the_mails_id() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/corpus/008.txt")).unwrap();
        let page: String = text.lines().filter(|l| !l.starts_with("Message-ID:")).map(|l| format!("{l}\n")).collect();
        let read = |name: &str, t: &str| {
            let mut r = reader::file::FileResult::new(name.into(), t.len());
            reader::file::read_bytes(name, t.as_bytes(), &mut r);
            r.docs
        };
        let (mail, copy) = (read("008.txt", &text), read("0-page.txt", &page));
        assert!(mail[0].message_id.is_some() && copy[0].message_id.is_none());
        for docs in [[mail.clone(), copy.clone()].concat(), [copy.clone(), mail.clone()].concat()] {
            let (out, dropped) = dedup_documents(docs);
            assert_eq!((out.len(), dropped), (1, 1));
            assert_eq!(out[0].source, "0-page.txt", "the fullest copy, first by source");
            assert_eq!(report_id(&out[0]), report_id(&mail[0]));
        }
    }

    #[test]
    fn git_log_lines() {
        let (e, bad) =
            parse_git_log("19957a181608d25c8f4136652d0ea00b3738972d 1525000000 xfs: Correctly invert\nnonsense\n");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].time, 1525000000);
        assert_eq!(bad, vec![(2, "expected `<sha> <unix time> <subject>`".to_string())]);
    }
}
