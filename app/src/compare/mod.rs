//! Compare table of one job between a base and a head commit: one row per metric with both
//! means, stddevs and the change as lkp prints it; filtering by namespace and direction and
//! sorting by |change| or name.

#[cfg(target_arch = "wasm32")]
pub mod view;

use model::stats::{change, change_kind};
use model::{ChangeKind, Direction, JobShard, Points, SeriesData};
pub use render::rows::{namespace, namespaces, view, Cell, Row};

/// Commits (positions, ascending) where the job has any value.
pub fn commits(shard: &JobShard) -> Vec<u32> {
    render::chart::commits_with_data(&shard.series.iter().collect::<Vec<_>>())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::SortKey;
    use render::chart::testing::series;

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
