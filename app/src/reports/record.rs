//! The record of any row of a report, on demand: the row's metric in the other reports of its
//! testcase that stated a change of it, made in the page from what the trend view reads (the
//! testcase's catalog whole and the metric's trend chunk) and drawn by the same renderer as the
//! headline metric's record the importer writes into every page (`render::record`).

use crate::catalog::Catalog;
use model::{ReportDoc, ReportSummary, SeriesShard};
use std::collections::BTreeSet;

/// The mail's word for a change of a metric of direction `weight` (1 higher is better, -1 lower,
/// 0 unknown): `regression`, `improvement`, or none.
fn word(change: f64, weight: i8) -> &'static str {
    if weight == 0 || change == 0.0 {
        ""
    } else if (change > 0.0) == (weight > 0) {
        "improvement"
    } else {
        "regression"
    }
}

/// A row of a report with a stated change: its metric, change, direction (`DocRow::weight`) and
/// job (a position in `ReportDoc::jobs`).
#[derive(Debug, Clone, PartialEq)]
pub struct RowChange {
    pub metric: String,
    pub change: f64,
    pub weight: i8,
    pub job: u32,
}

/// The stated changes of `d`'s rows in tables of its first testcase: each metric once (its first
/// row), largest |change| first (ties by name).
pub fn row_changes(d: &ReportDoc) -> Vec<RowChange> {
    let testcase = ReportSummary::of(d).testcases.into_iter().next();
    let of_testcase = |job: u32| d.jobs.get(job as usize).map(|j| &j.testcase) == testcase.as_ref();
    let mut seen = BTreeSet::new();
    let mut out: Vec<RowChange> = Vec::new();
    for s in &d.sections {
        for r in s.rows.iter().filter(|r| !r.aggregate && !r.fail && !r.metric.is_empty() && of_testcase(r.job)) {
            let change = r.changes.iter().flatten().copied().find(|c| c.is_finite());
            if let Some(change) = change.filter(|_| seen.insert(r.metric.as_str())) {
                out.push(RowChange { metric: r.metric.clone(), change, weight: r.weight, job: r.job });
            }
        }
    }
    out.sort_by(|a, b| b.change.abs().total_cmp(&a.change.abs()).then_with(|| a.metric.cmp(&b.metric)));
    out
}

/// `d` as the record of its row of `metric` sees it: its summary with that metric, the row's
/// stated change and the word of its direction (the row's, else `weight`), the row's job's
/// machine and parameters. `None` when no row of it states a change.
pub fn as_row(d: &ReportDoc, metric: &str, weight: i8) -> Option<ReportSummary> {
    let row = row_changes(d).into_iter().find(|r| r.metric == metric)?;
    let w = if row.weight != 0 { row.weight } else { weight };
    let job = d.jobs.get(row.job as usize);
    Some(ReportSummary {
        metric: Some(metric.to_string()),
        change: Some(row.change),
        word: word(row.change, w).to_string(),
        machine: job.map(|j| j.machine.clone()).unwrap_or_default(),
        params: job.map(|j| j.params.clone()).unwrap_or_default(),
        ..ReportSummary::listed(d)
    })
}

/// Every report of the loaded catalog but `me` (an id) whose series of `metric` (`shards`, in
/// the catalog's merged positions, of `testcase`) has a stated change: each report once, its
/// first change, as a summary of that change (the word from the metric's direction, `weight`).
pub fn others(
    cat: &Catalog,
    shards: &[&SeriesShard],
    testcase: &str,
    metric: &str,
    weight: i8,
    me: &str,
) -> Vec<ReportSummary> {
    let ix = &cat.index;
    let mut seen: BTreeSet<&str> = BTreeSet::from([me]);
    let mut out = Vec::new();
    for sd in shards.iter().flat_map(|s| &s.series).filter(|sd| sd.metric == metric) {
        let (job, p) = (ix.jobs.get(sd.job as usize), &sd.points);
        for k in 0..p.report.len() {
            let (Some(change), Some(r)) = (p.change[k], ix.reports.get(p.report[k] as usize)) else { continue };
            if !seen.insert(&r.id) {
                continue;
            }
            let commit = ix.commits.get(p.commit[k] as usize);
            let tag = r.subject.as_deref().and_then(model::branch_tag).map(str::to_string);
            out.push(ReportSummary {
                id: r.id.clone(),
                date: r.date.clone(),
                time: r.time,
                subject: r.subject.clone(),
                testcases: vec![testcase.to_string()],
                metric: Some(metric.to_string()),
                change: Some(change),
                word: word(change, weight).to_string(),
                commit: commit.map(|c| c.id.clone()),
                base: p.base[k].and_then(|b| ix.commits.get(b as usize)).map(|c| c.id.clone()),
                message_id: r.message_id.clone(),
                branch: tag.or_else(|| commit.and_then(|c| c.branch.clone())),
                machine: job.map(|j| j.machine.clone()).unwrap_or_default(),
                params: job.map(|j| j.params.clone()).unwrap_or_default(),
                reply: r.notes.first().map(|n| model::reply_start(n)),
                names: Vec::new(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{Commit, DocJob, DocRow, DocSection, Index, Job, MetricInfo, Points, ReportMeta, SeriesData};

    fn doc() -> ReportDoc {
        let row = |metric: &str, change: f64, weight: i8, job: u32| DocRow {
            metric: metric.into(),
            values: vec![Some(100.0), Some(100.0 + change)],
            changes: vec![Some(change)],
            weight,
            job,
            ..Default::default()
        };
        ReportDoc {
            id: "me".into(),
            message_id: Some("me@lkp".into()),
            subject: Some("[linux-next:master] [btrfs] 4591c3ef75: fsmark.files_per_sec -6.0% regression".into()),
            date: Some("Mon, 1 Dec 2025 10:00:00 +0800".into()),
            jobs: vec![
                DocJob { testcase: "fsmark".into(), machine: "lkp-1".into(), ..Default::default() },
                DocJob { testcase: "vm-scalability".into(), machine: "lkp-1".into(), ..Default::default() },
                DocJob { testcase: "fsmark".into(), machine: "lkp-2".into(), ..Default::default() },
            ],
            sections: vec![DocSection {
                commits: vec!["1111111111bb".into(), "4591c3ef75aa".into()],
                rows: vec![
                    row("fsmark.files_per_sec", -6.0, 1, 0),
                    row("vmstat.cpu.sy", 40.0, 0, 0),
                    row("perf-stat.ipc", -40.0, 0, 0),
                    row("fsmark.files_per_sec", -9.0, 1, 0),
                    row("vm-scalability.throughput", 70.0, 1, 1),
                    row("fsmark.app_overhead", 3.0, -1, 2),
                ],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_reports_rows_are_offered_largest_change_first_each_metric_once_of_its_first_testcase() {
        let got: Vec<(String, f64)> = row_changes(&doc()).into_iter().map(|r| (r.metric, r.change)).collect();
        let want = [
            ("perf-stat.ipc", -40.0),
            ("vmstat.cpu.sy", 40.0),
            ("fsmark.files_per_sec", -6.0),
            ("fsmark.app_overhead", 3.0),
        ];
        assert_eq!(got, want.map(|(m, c)| (m.to_string(), c)));
        let me = as_row(&doc(), "vmstat.cpu.sy", -1).expect("a row");
        assert_eq!(
            (me.metric.as_deref(), me.change, me.word.as_str()),
            (Some("vmstat.cpu.sy"), Some(40.0), "regression")
        );
        assert_eq!(me.branch.as_deref(), Some("linux-next:master"), "the rest as the lists have it");
        assert_eq!(as_row(&doc(), "perf-stat.ipc", 0).map(|r| r.word), Some(String::new()), "direction unknown");
        assert_eq!(as_row(&doc(), "fsmark.files_per_sec", 0).map(|r| r.word), Some("regression".into()));
        assert!(as_row(&doc(), "vm-scalability.throughput", 1).is_none(), "another testcase's row");
        let other_job = as_row(&doc(), "fsmark.app_overhead", 0).expect("a row of the second fsmark job");
        assert_eq!(
            (other_job.machine.as_str(), other_job.word.as_str()),
            ("lkp-2", "regression"),
            "its own job's machine"
        );
    }

    #[test]
    fn the_other_reports_of_a_row_are_those_whose_series_state_a_change() {
        let report = |id: &str, subject: &str, note: Option<&str>| ReportMeta {
            id: id.into(),
            message_id: Some(format!("{id}@lkp")),
            subject: Some(subject.into()),
            date: Some("2025-01-02".into()),
            time: Some(1_735_776_000),
            notes: note.map(|n| vec![n.to_string()]).unwrap_or_default(),
            ..Default::default()
        };
        let job = |m: &str, fs: &str| Job {
            id: m.into(),
            testcase: "fsmark".into(),
            machine: m.into(),
            params: [("fs".to_string(), fs.to_string())].into(),
            ..Default::default()
        };
        let commit = |id: &str, branch: Option<&str>| Commit {
            id: id.into(),
            branch: branch.map(str::to_string),
            ..Default::default()
        };
        let index = Index {
            commits: vec![commit("aaaa", None), commit("bbbb", Some("linus/master")), commit("cccc", None)],
            reports: vec![
                report("me", "[linux-next:master] me", None),
                report("r1", "[linux-next:master] one", Some("Not a regression: alignment\nmore")),
                report("r2", "two", None),
                report("r3", "three", None),
            ],
            jobs: vec![job("lkp-1", "btrfs"), job("lkp-2", "xfs")],
            metrics: vec![MetricInfo { name: "fsmark.files_per_sec".into(), direction: 1, ..Default::default() }],
            ..Default::default()
        };
        let cat = Catalog::new(index);
        let points = |commit: &[u32], report: &[u32], change: &[Option<f64>]| Points {
            commit: commit.to_vec(),
            mean: vec![Some(1.0); commit.len()],
            stddev_pct: vec![None; commit.len()],
            runs: vec![None; commit.len()],
            report: report.to_vec(),
            change: change.to_vec(),
            base: change.iter().map(|c| c.map(|_| 0)).collect(),
            ..Default::default()
        };
        let series = |job: u32, metric: &str, p: Points| SeriesData { job, metric: metric.into(), points: p };
        let shard = SeriesShard {
            series: vec![
                // base and head of `me`, r1 and r1 again (a second head column), r2's base only
                series(
                    0,
                    "fsmark.files_per_sec",
                    points(&[0, 1, 1, 2, 0], &[0, 0, 1, 1, 2], &[None, Some(-6.0), Some(8.0), Some(3.0), None]),
                ),
                series(1, "fsmark.files_per_sec", points(&[1, 2], &[3, 3], &[None, Some(-2.5)])),
                series(1, "fsmark.app_overhead", points(&[2], &[2], &[Some(50.0)])),
            ],
            ..Default::default()
        };
        let got = others(&cat, &[&shard], "fsmark", "fsmark.files_per_sec", 1, "me");
        let brief = |r: &ReportSummary| format!("{} {:?} {} {} {:?}", r.id, r.change, r.word, r.machine, r.branch);
        assert_eq!(
            got.iter().map(brief).collect::<Vec<_>>(),
            ["r1 Some(8.0) improvement lkp-1 Some(\"linux-next:master\")", "r3 Some(-2.5) regression lkp-2 None",]
        );
        let r1 = &got[0];
        assert_eq!((r1.commit.as_deref(), r1.base.as_deref()), (Some("bbbb"), Some("aaaa")));
        assert_eq!(r1.reply.as_deref(), Some("Not a regression: alignment"));
        assert_eq!(r1.params.get("fs").map(String::as_str), Some("btrfs"));
        assert_eq!(got[1].testcases, ["fsmark"]);
        assert_eq!(got[1].branch, None, "no tag in the subject, no branch of the commit");
    }
}
