//! Compare table of one job between a base and a head commit: one row per metric with both
//! means, stddevs and the change as lkp prints it; filtering by namespace and direction and
//! sorting by |change| or name.

#[cfg(target_arch = "wasm32")]
pub mod view;

use crate::state::SortKey;
use model::stats::{change, change_kind, format_change, format_value};
use model::{ChangeKind, Direction, JobShard, Points, SeriesData};

/// One side of a row: an observation of the metric at a commit.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub mean: f64,
    pub stddev_pct: Option<f64>,
    pub runs: Option<u32>,
    /// Position in `Index::reports`.
    pub report: u32,
}

impl Cell {
    /// `10702 ± 3%` (stddev only when the report printed it).
    pub fn text(&self) -> String {
        match self.stddev_pct {
            Some(p) => format!("{} ± {p:.0}%", format_value(self.mean)),
            None => format_value(self.mean),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub metric: String,
    pub base: Option<Cell>,
    pub head: Option<Cell>,
    /// Change of head against base; `None` when a side is missing.
    pub change: Option<f64>,
    pub kind: ChangeKind,
    pub direction: Direction,
    /// The change is the one the report printed (head and base from the same table).
    pub stated: bool,
}

impl Row {
    /// The change as lkp prints it: `+5.2%`, `-7.2` (absolute), `+33%` (reproduction).
    pub fn change_text(&self) -> String {
        self.change.map_or_else(String::new, |c| format_change(c, self.kind))
    }

    pub fn namespace(&self) -> &str {
        namespace(&self.metric)
    }
}

/// The namespace of a metric: what comes before the first `.` (`perf-stat`, `vmstat`, ...).
pub fn namespace(metric: &str) -> &str {
    metric.split_once('.').map_or(metric, |(ns, _)| ns)
}

/// Commits (positions, ascending) where the job has any value.
pub fn commits(shard: &JobShard) -> Vec<u32> {
    crate::trend::chart::commits_with_data(&shard.series.iter().collect::<Vec<_>>())
}

/// Index of the observation of commit `c`: prefer one from report `report`, then one whose
/// stated base is `base`, then the one from the latest report.
fn pick(p: &Points, c: u32, report: Option<u32>, base: Option<u32>) -> Option<usize> {
    let at: Vec<usize> = (0..p.len()).filter(|&k| p.commit[k] == c && p.mean[k].is_some()).collect();
    at.iter()
        .copied()
        .find(|&k| report == Some(p.report[k]))
        .or_else(|| at.iter().copied().filter(|&k| base.is_some() && p.base[k] == base).max_by_key(|&k| p.report[k]))
        .or_else(|| at.iter().copied().max_by_key(|&k| p.report[k]))
}

fn cell(p: &Points, k: usize) -> Cell {
    Cell { mean: p.mean[k].unwrap_or(f64::NAN), stddev_pct: p.stddev_pct[k], runs: p.runs[k], report: p.report[k] }
}

/// One row of a series: head is chosen first (preferring the observation stated against
/// `base`), then base from the same report when it has one.
pub fn row(s: &SeriesData, base: u32, head: u32, weight: i8) -> Option<Row> {
    let p = &s.points;
    let h = pick(p, head, None, Some(base));
    let b = pick(p, base, h.map(|k| p.report[k]), None);
    if h.is_none() && b.is_none() {
        return None;
    }
    // failure rows (fails:runs) are decided per observation; more failures are worse
    let fail = h.or(b).is_some_and(|k| p.is_fail(k));
    let weight = if fail { -1 } else { weight };
    let kind = if fail { ChangeKind::Reproduction } else { change_kind(&s.metric) };
    let stated_change = h
        .filter(|&k| p.base[k] == Some(base) && b.is_some_and(|bk| p.report[bk] == p.report[k]))
        .and_then(|k| p.change[k]);
    let computed = match (b.and_then(|k| p.mean[k]), h.and_then(|k| p.mean[k])) {
        (Some(bv), Some(hv)) if fail => Some(hv - bv),
        (Some(bv), Some(hv)) => Some(change(&s.metric, bv, hv)),
        _ => None,
    };
    let value = stated_change.or(computed);
    Some(Row {
        metric: s.metric.clone(),
        base: b.map(|k| cell(p, k)),
        head: h.map(|k| cell(p, k)),
        change: value,
        kind,
        direction: value.map_or(Direction::Undefined, |c| Direction::of(weight, c)),
        stated: stated_change.is_some(),
    })
}

/// Every row of a job between `base` and `head`. `weight(metric)` gives the direction weight.
pub fn rows(shard: &JobShard, base: u32, head: u32, weight: impl Fn(&str) -> i8) -> Vec<Row> {
    shard.series.iter().filter_map(|s| row(s, base, head, weight(&s.metric))).collect()
}

/// Namespaces present in `rows`, sorted, with counts.
pub fn namespaces(rows: &[Row]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut names: Vec<&str> = rows.iter().map(|r| r.namespace()).collect();
    model::order::sort(&mut names);
    for n in names {
        match out.last_mut() {
            Some((last, c)) if last == n => *c += 1,
            _ => out.push((n.to_string(), 1)),
        }
    }
    out
}

/// Filter and order rows for display; returns indices into `rows`. Rows without a change sort
/// after every row with one.
pub fn view(rows: &[Row], ns: Option<&str>, dir: Option<Direction>, sort: SortKey) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..rows.len())
        .filter(|&i| ns.is_none_or(|n| rows[i].namespace() == n))
        .filter(|&i| dir.is_none_or(|d| rows[i].direction == d && rows[i].change.is_some()))
        .collect();
    match sort {
        SortKey::Name => model::order::sort_by(&mut idx, |&a, &b| rows[a].metric.cmp(&rows[b].metric)),
        SortKey::Change => model::order::sort_by(&mut idx, |&a, &b| {
            let key = |r: &Row| r.change.filter(|c| !c.is_nan()).map(|c| c.abs());
            match (key(&rows[a]), key(&rows[b])) {
                (Some(x), Some(y)) => y.total_cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
            .then_with(|| rows[a].metric.cmp(&rows[b].metric))
        }),
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trend::chart::tests::series;

    fn shard() -> JobShard {
        let mut write = series(0, &[(0, Some(10702.0), None, None), (1, Some(11259.0), Some(2.0), Some(5.2))]);
        write.metric = "blogbench.write_score".into();
        let mut idle = series(0, &[(0, Some(24.47), None, None), (1, Some(17.29), None, Some(-7.2))]);
        idle.metric = "mpstat.cpu.all.idle%".into();
        let mut cs = series(0, &[(0, Some(100.0), None, None), (1, Some(90.0), None, None)]);
        cs.metric = "vmstat.system.cs".into();
        // Only measured at the head.
        let mut only = series(0, &[(1, Some(3.0), None, None)]);
        only.metric = "vmstat.io.bi".into();
        let mut fail = series(0, &[(0, Some(0.0), None, None), (1, Some(33.33), None, Some(33.0))]);
        fail.metric = "dmesg.WARNING:at_x".into();
        fail.points.fails = vec![Some(0), Some(1)];
        JobShard { schema: 1, job: "j".into(), series: vec![write, idle, cs, only, fail] }
    }

    fn info(m: &str) -> i8 {
        match m {
            "blogbench.write_score" => 1,
            "mpstat.cpu.all.idle%" => 1,
            _ => 0,
        }
    }

    #[test]
    fn rows_show_the_mails_numbers() {
        let rows = rows(&shard(), 0, 1, info);
        assert_eq!(rows.len(), 5);
        let w = &rows[0];
        assert_eq!(w.base.as_ref().unwrap().text(), "10702");
        assert_eq!(w.head.as_ref().unwrap().text(), "11259 ± 2%");
        assert_eq!(w.change_text(), "+5.2%");
        assert!(w.stated);
        assert_eq!(w.direction, Direction::Improvement);
        assert_eq!(rows[1].change_text(), "-7.2");
        assert_eq!(rows[1].direction, Direction::Regression);
        // Not stated by the report: computed.
        assert_eq!(rows[2].change_text(), "-10.0%");
        assert!(!rows[2].stated);
        assert_eq!(rows[2].direction, Direction::Undefined);
        assert_eq!(rows[3].change, None);
        assert_eq!(rows[3].change_text(), "");
        assert_eq!(rows[4].change_text(), "+33%");
        assert_eq!(rows[4].direction, Direction::Regression);
    }

    #[test]
    fn reversed_pair_is_computed() {
        let rows = rows(&shard(), 1, 0, info);
        assert!(!rows[0].stated);
        assert_eq!(rows[0].change_text(), "-4.9%");
        assert_eq!(rows[0].direction, Direction::Regression);
    }

    #[test]
    fn filter_and_sort() {
        let rows = rows(&shard(), 0, 1, info);
        let names = |ix: Vec<usize>| ix.into_iter().map(|i| rows[i].metric.as_str()).collect::<Vec<_>>();
        assert_eq!(
            names(view(&rows, None, None, SortKey::Change)),
            ["dmesg.WARNING:at_x", "vmstat.system.cs", "mpstat.cpu.all.idle%", "blogbench.write_score", "vmstat.io.bi"]
        );
        assert_eq!(names(view(&rows, Some("vmstat"), None, SortKey::Name)), ["vmstat.io.bi", "vmstat.system.cs"]);
        assert_eq!(
            names(view(&rows, None, Some(Direction::Regression), SortKey::Name)),
            ["dmesg.WARNING:at_x", "mpstat.cpu.all.idle%"]
        );
        assert_eq!(names(view(&rows, None, Some(Direction::Undefined), SortKey::Name)), ["vmstat.system.cs"]);
        assert_eq!(
            namespaces(&rows),
            [("blogbench".into(), 1), ("dmesg".into(), 1), ("mpstat".into(), 1), ("vmstat".into(), 2)]
        );
        assert_eq!(namespace("perf-stat.i.ipc"), "perf-stat");
        assert_eq!(namespace("plain"), "plain");
    }

    #[test]
    fn commits_and_observation_choice() {
        assert_eq!(commits(&shard()), [0, 1]);
        // Two reports measured the head: the one stated against the chosen base wins.
        let mut s = series(
            0,
            &[(0, Some(100.0), None, None), (1, Some(110.0), None, Some(10.0)), (1, Some(120.0), None, None)],
        );
        s.points.report = vec![0, 0, 1];
        s.points.base = vec![None, Some(0), Some(2)];
        let r = row(&s, 0, 1, 1).unwrap();
        assert_eq!(r.head.unwrap().mean, 110.0);
        assert!(r.stated);
        // Another base: latest report's head, computed change.
        let r = row(&s, 2, 1, 1);
        assert_eq!(r.unwrap().head.unwrap().mean, 120.0);
    }
}
