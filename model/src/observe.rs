//! A report's rows as observations: the one producer of `Points` from a table row (an import's
//! series, and the app's compare file of a job that one report alone measured,
//! `JobShard::of_report`).

use crate::{DocJob, DocRow, Job, JobShard, Points, ReportDoc, SeriesData, SCHEMA_VERSION};
use std::collections::BTreeMap;

/// One table row's columns as its report states them: a read document's row (the import) or a
/// published document's (`DocRow`).
#[derive(Debug, Clone, Copy)]
pub struct RowCols<'a> {
    /// A failure row (`fails:runs` per column).
    pub fail: bool,
    pub values: &'a [Option<f64>],
    pub stddev_pct: &'a [Option<f64>],
    /// Per later column, against the first.
    pub changes: &'a [Option<f64>],
    pub fails: &'a [Option<u32>],
    pub runs: &'a [Option<u32>],
    pub run_values: &'a [Option<Vec<f64>>],
}

impl<'a> RowCols<'a> {
    /// The columns of a published document's row.
    pub fn of_doc(r: &'a DocRow) -> RowCols<'a> {
        RowCols { fail: r.fail, ..RowCols::of(&r.values, &r.stddev_pct, &r.changes, &r.fails, &r.runs, &r.run_values) }
    }

    /// A row's columns (not a failure row).
    pub fn of(
        values: &'a [Option<f64>],
        stddev_pct: &'a [Option<f64>],
        changes: &'a [Option<f64>],
        fails: &'a [Option<u32>],
        runs: &'a [Option<u32>],
        run_values: &'a [Option<Vec<f64>>],
    ) -> RowCols<'a> {
        RowCols { fail: false, values, stddev_pct, changes, fails, runs, run_values }
    }
}

impl Points {
    /// One row's observations (one per column, the columns' commits at `cols`) appended, of report
    /// `report`. Reports are taken in order, so the series' observations of this report are the
    /// ones at its end: the same observation twice in one report (a base column repeated per
    /// table) is kept once.
    pub fn push_row(&mut self, r: RowCols, cols: &[u32], report: u32) {
        if self.commit.capacity() == 0 {
            // a new series: room for this row's points only (most series get no more, and millions
            // of them wait together for a big testcase's last report; a push would leave room for four)
            macro_rules! exact {
                ($($f:ident),*) => { $( self.$f.reserve_exact(cols.len()); )* };
            }
            exact!(commit, mean, stddev_pct, runs, report, change, base);
        }
        for (c, &commit) in cols.iter().enumerate() {
            let (mean, fails) = if r.fail {
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
            let this_report = (0..self.len()).rev().take_while(|&k| self.report[k] == report);
            let mut this_report = this_report.into_iter();
            if this_report.any(|k| self.commit[k] == commit && self.mean[k].map(f64::to_bits) == Some(mean.to_bits())) {
                continue;
            }
            self.commit.push(commit);
            self.mean.push(Some(mean));
            self.stddev_pct.push(r.stddev_pct.get(c).copied().flatten().filter(|s| *s >= 0.0));
            self.runs.push(r.runs.get(c).copied().flatten());
            self.report.push(report);
            self.change.push(if c == 0 {
                None
            } else {
                r.changes.get(c - 1).copied().flatten().filter(|x| x.is_finite())
            });
            self.base.push(if c == 0 { None } else { Some(cols[0]) });
            let at = self.commit.len() - 1;
            push_sparse(&mut self.fails, at, fails);
            push_sparse(&mut self.values, at, r.run_values.get(c).cloned().flatten().unwrap_or_default());
        }
    }

    /// Observations by commit, then report (a stable order: a report's own order kept).
    pub fn sort_by_commit(&mut self) {
        let key = |i: usize| (self.commit[i], self.report[i]);
        if (1..self.len()).all(|i| key(i - 1) <= key(i)) {
            return; // already in order (a stable sort would not move anything)
        }
        let mut idx: Vec<usize> = (0..self.len()).collect();
        idx.sort_by_key(|&i| (self.commit[i], self.report[i]));
        macro_rules! permute {
            ($($f:ident),*) => { $( self.$f = idx.iter().map(|&i| self.$f[i].clone()).collect(); )* };
        }
        permute!(commit, mean, stddev_pct, runs, report, change, base);
        if !self.fails.is_empty() {
            permute!(fails);
        }
        if !self.values.is_empty() {
            permute!(values);
        }
    }

    /// Columns that carry nothing (no failure counts, no per-run values) left out.
    pub fn drop_empty_columns(&mut self) {
        if self.fails.iter().all(Option::is_none) {
            self.fails.clear();
        }
        if self.values.iter().all(Vec::is_empty) {
            self.values.clear();
        }
    }
}

/// A column most series never fill (failure counts, per-run values) kept empty until a point has
/// one, then at full length (`Points::is_ragged` allows both): half a million series of a big
/// testcase hold no room for nothing.
fn push_sparse<T: Clone + Default + PartialEq>(col: &mut Vec<T>, at: usize, v: T) {
    if col.is_empty() && v == T::default() {
        return;
    }
    col.resize(at, T::default());
    col.push(v);
}

impl JobShard {
    /// The compare file of a job whose every observation is one report's (`Job::report`): made
    /// from that report's document as an import makes a job's file from its reports. `job` is the
    /// job's position and `report` the report's; `commits` are the commit positions of each
    /// section of the document that measures the job's testcase (`SectionMeta::commits` of the
    /// sections with a `job`), all in one catalog (a testcase's or a merged view).
    pub fn of_report(rd: &ReportDoc, of: &Job, job: u32, report: u32, commits: &[Vec<u32>]) -> JobShard {
        let testcase_of = |r: &DocRow| rd.jobs.get(r.job as usize).map(|j| j.testcase.as_str());
        let usable =
            |r: &&DocRow| !r.aggregate && !r.metric.is_empty() && testcase_of(r).is_some_and(|t| !t.is_empty());
        let measures =
            |s: &&crate::DocSection| s.rows.iter().filter(usable).any(|r| testcase_of(r) == Some(&of.testcase));
        let is_job = |j: &DocJob| j.testcase == of.testcase && j.machine == of.machine && j.params == of.params;
        let mut series: BTreeMap<&str, Points> = BTreeMap::new();
        for (s, cols) in rd.sections.iter().filter(measures).zip(commits) {
            for r in s.rows.iter().filter(usable).filter(|r| rd.jobs.get(r.job as usize).is_some_and(is_job)) {
                series.entry(&r.metric).or_default().push_row(RowCols::of_doc(r), cols, report);
            }
        }
        let series = series
            .into_iter()
            .map(|(metric, mut points)| {
                points.sort_by_commit();
                points.drop_empty_columns();
                SeriesData { job, metric: metric.to_string(), points }
            })
            .collect();
        JobShard { schema: SCHEMA_VERSION, job: of.id.clone(), series }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure count or per-run values arriving after points without them fills the column
    /// for the earlier points (`None`, no values); a series with none keeps the column empty.
    #[test]
    fn a_sparse_column_is_empty_or_whole() {
        let mut fails: Vec<Option<u32>> = Vec::new();
        for at in 0..3 {
            push_sparse(&mut fails, at, None);
        }
        assert!(fails.is_empty());
        push_sparse(&mut fails, 3, Some(2));
        push_sparse(&mut fails, 4, None);
        assert_eq!(fails, vec![None, None, None, Some(2), None]);
        let mut values: Vec<Vec<f64>> = Vec::new();
        push_sparse(&mut values, 0, Vec::new());
        push_sparse(&mut values, 1, vec![1.5, 2.5]);
        assert_eq!(values, vec![vec![], vec![1.5, 2.5]]);
    }
}
