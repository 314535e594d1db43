//! What each view shows for a view state, as pure functions: which trend shards to fetch and
//! which series to draw, the compare job and its default base/head, and which report and
//! reproduce script the commit panel shows.

use crate::catalog::Catalog;
use crate::facets::matching_jobs;
use crate::state::{FacetKey, ViewState};
use model::{SeriesData, SeriesShard};
use render::chart::{build, color, commits_with_data, legend, ChartData, Rgb};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Trend chunks the state needs: `(testcase, chunk path)` for every loaded testcase in scope that
/// measured the metric. In scope: the selected testcases, else the testcases of the matching jobs.
pub fn trend_shards(cat: &Catalog, s: &ViewState) -> Vec<(String, String)> {
    let Some(metric) = &s.metric else {
        return vec![];
    };
    let selected: BTreeSet<&String> = s.selected(&FacetKey::Testcase).collect();
    let testcases: BTreeSet<&str> = if selected.is_empty() {
        matching_jobs(&cat.index.jobs, s).into_iter().map(|j| cat.index.jobs[j].testcase.as_str()).collect()
    } else {
        selected.into_iter().map(|t| t.as_str()).collect()
    };
    testcases
        .into_iter()
        .filter(|t| cat.testcase_has_metric(t, metric))
        .filter_map(|t| Some((t.to_string(), cat.parts.get(t)?.chunk_of(metric)?.to_string())))
        .collect()
}

/// Whether an available series is drawn: every one when no job is picked, else the picked.
pub fn is_shown(cat: &Catalog, s: &ViewState, sd: &SeriesData) -> bool {
    s.jobs.is_empty() || cat.index.jobs.get(sd.job as usize).is_some_and(|j| s.jobs.contains(&j.id))
}

/// One legend entry: an available series, drawn or not.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Position in `Index::jobs`.
    pub job: usize,
    pub job_id: String,
    pub label: String,
    /// Colour when drawn.
    pub color: Option<Rgb>,
}

/// Everything the trend view draws and lists for one state and the loaded shards.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendModel {
    pub metric: String,
    /// Direction weight of the metric.
    pub weight: i8,
    pub shards: Vec<Arc<SeriesShard>>,
    /// Drawn series as (shard, series) positions, in `data.series` order.
    pub shown: Vec<(usize, usize)>,
    pub entries: Vec<Entry>,
    /// What every listed series has in common (legend caption).
    pub common: Vec<(String, String)>,
    pub data: ChartData,
    /// Short commit id of each slot.
    pub slot_labels: Vec<String>,
    /// Commits the range pickers offer (every commit with data in a drawn series).
    pub range_options: Vec<u32>,
    /// Slot of the selected commit, when drawn.
    pub selected_slot: Option<usize>,
}

impl TrendModel {
    /// The series data behind `data.series[i]`.
    pub fn series(&self, i: usize) -> &SeriesData {
        let (a, b) = self.shown[i];
        &self.shards[a].series[b]
    }
}

/// Build the trend of `s` from its loaded shards. When the picked jobs have no data for this
/// metric, every available series is drawn rather than none.
pub fn trend_model(cat: &Catalog, s: &ViewState, shards: Vec<Arc<SeriesShard>>) -> TrendModel {
    let metric = s.metric.clone().unwrap_or_default();
    let weight = cat.direction(&metric);
    let matching: BTreeSet<usize> = matching_jobs(&cat.index.jobs, s).into_iter().collect();
    let mut avail: Vec<(usize, usize)> = Vec::new();
    // one series per job: the first shard that has it
    let mut seen_jobs: BTreeSet<u32> = BTreeSet::new();
    for (a, sh) in shards.iter().enumerate() {
        for (b, sd) in sh.series.iter().enumerate() {
            let has_data = sd.points.mean.iter().any(|m| m.is_some());
            if has_data && matching.contains(&(sd.job as usize)) && seen_jobs.insert(sd.job) {
                avail.push((a, b));
            }
        }
    }
    model::order::sort_by_key(&mut avail, |&(a, b)| shards[a].series[b].job);
    let sd = |&(a, b): &(usize, usize)| &shards[a].series[b];
    let mut flags: Vec<bool> = avail.iter().map(|p| is_shown(cat, s, sd(p))).collect();
    if !flags.iter().any(|f| *f) {
        flags.iter_mut().for_each(|f| *f = true);
    }
    let shown: Vec<(usize, usize)> = avail.iter().zip(&flags).filter(|(_, f)| **f).map(|(p, _)| *p).collect();
    let shown_data: Vec<&SeriesData> = shown.iter().map(sd).collect();
    let range_options = commits_with_data(&shown_data);
    let pos = |id: &Option<String>| id.as_deref().and_then(|c| cat.commit_pos(c)).map(|c| c as u32);
    let quiet = |r: u32| cat.index.reports.get(r as usize).is_some_and(|r| r.omits_small_stddev());
    let data = build(&shown_data, weight, (pos(&s.from), pos(&s.to)), &quiet);
    let jobs: Vec<&model::Job> = avail.iter().map(|p| &cat.index.jobs[sd(p).job as usize]).collect();
    let legend = legend(&jobs);
    let mut next_color = 0;
    let entries = avail
        .iter()
        .zip(&flags)
        .zip(legend.labels)
        .map(|((p, &on), label)| {
            let job = sd(p).job as usize;
            let color = on.then(|| {
                next_color += 1;
                color(next_color - 1)
            });
            Entry { job, job_id: cat.index.jobs[job].id.clone(), label, color }
        })
        .collect();
    let slot_labels = data.slots.iter().map(|&c| cat.index.commits[c as usize].short().to_string()).collect();
    let selected_slot = pos(&s.commit).and_then(|c| data.slots.iter().position(|&x| x == c));
    TrendModel {
        metric,
        weight,
        shards,
        shown,
        entries,
        common: legend.common,
        data,
        slot_labels,
        range_options,
        selected_slot,
    }
}

/// Show or hide one series (legend checkbox). Picking every available series again is the
/// same as picking none, so the state goes back to "all" and stays canonical.
pub fn toggle_job(s: &mut ViewState, available_ids: &[String], id: &str) {
    if s.jobs.is_empty() {
        s.jobs = available_ids.iter().filter(|j| *j != id).cloned().collect();
        if s.jobs.is_empty() {
            // Hiding the only series: keep it (an empty chart helps no one).
            return;
        }
    } else if !s.jobs.remove(id) {
        s.jobs.insert(id.to_string());
    }
    let all: BTreeSet<&String> = available_ids.iter().collect();
    if !s.jobs.is_empty() && all.iter().all(|j| s.jobs.contains(*j)) && s.jobs.len() == all.len() {
        s.jobs.clear();
    }
}

/// The compare job: the state's, else the first drawn or matching job.
pub fn compare_job(cat: &Catalog, s: &ViewState) -> Option<usize> {
    if let Some(j) = s.job.as_deref().and_then(|j| cat.job_pos(j)) {
        return Some(j);
    }
    let matching = matching_jobs(&cat.index.jobs, s);
    matching.iter().copied().find(|&j| s.jobs.contains(&cat.index.jobs[j].id)).or(matching.first().copied())
}

/// Default base and head of a job's compare table, among the commits it has data for: the
/// newest headline's pair for this job, else the newest report section's first and last
/// column, else the oldest and newest commit.
pub fn default_pair(cat: &Catalog, job: usize, commits: &[u32]) -> Option<(u32, u32)> {
    let has = |c: u32| commits.contains(&c);
    let idx = &cat.index;
    let from_headline =
        idx.headlines.iter().filter(|h| h.job == Some(job as u32)).find_map(|h| match (h.base, h.head) {
            (Some(b), Some(hd)) if has(b) && has(hd) && b != hd => Some((b, hd)),
            _ => None,
        });
    let from_section = || {
        idx.reports.iter().rev().flat_map(|r| r.sections.iter()).filter(|s| s.job == Some(job as u32)).find_map(|s| {
            match (s.commits.first(), s.commits.last()) {
                (Some(&b), Some(&h)) if has(b) && has(h) && b != h => Some((b, h)),
                _ => None,
            }
        })
    };
    let ends = || match (commits.first(), commits.last()) {
        (Some(&b), Some(&h)) if b != h => Some((b, h)),
        _ => None,
    };
    from_headline.or_else(from_section).or_else(ends)
}

/// The compare pair: the state's base and head (commit positions) where it names them, the
/// missing side(s) from `default` (`default_pair`) — a head chosen alone keeps the default base.
pub fn complete_pair(
    chosen: (Option<u32>, Option<u32>),
    default: impl FnOnce() -> Option<(u32, u32)>,
) -> Option<(u32, u32)> {
    match chosen {
        (Some(b), Some(h)) => Some((b, h)),
        (b, h) => default().map(|(db, dh)| (b.unwrap_or(db), h.unwrap_or(dh))),
    }
}

/// A loaded job file belongs to the job the view shows (by the job's id): a resource keeps the
/// previous job's file while the next one loads, and its rows must not be shown under this job.
pub fn shard_is_for(cat: &Catalog, job: Option<usize>, shard_job: &str) -> bool {
    job.and_then(|j| cat.index.jobs.get(j)).is_some_and(|j| j.id == shard_job)
}

/// The report the commit panel centres on: the state's, else the newest report that measured
/// the commit for the job, else any that measured it.
pub fn panel_report(cat: &Catalog, s: &ViewState, commit: usize, job: Option<usize>) -> Option<usize> {
    if let Some(r) = s.report.as_deref().and_then(|r| cat.report_pos(r)) {
        return Some(r);
    }
    let for_job = cat.reports_of_commit(commit, job);
    for_job.last().copied().or_else(|| cat.reports_of_commit(commit, None).last().copied())
}

/// The reproduce script (content hash) the panel shows: the report's, else the job's.
pub fn panel_script(cat: &Catalog, report: Option<usize>, job: Option<usize>) -> Option<String> {
    report
        .and_then(|r| cat.index.reports[r].script.clone())
        .or_else(|| job.and_then(|j| cat.index.jobs[j].script.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::tests::sample_index;

    #[test]
    fn a_pair_is_completed_from_the_default_side_by_side() {
        let d = || Some((1, 9));
        assert_eq!(complete_pair((Some(3), Some(4)), || panic!("not needed")), Some((3, 4)));
        assert_eq!(complete_pair((None, Some(4)), d), Some((1, 4)), "a head chosen alone keeps the default base");
        assert_eq!(complete_pair((Some(3), None), d), Some((3, 9)));
        assert_eq!(complete_pair((None, None), d), Some((1, 9)));
        assert_eq!(complete_pair((Some(3), None), || None), None, "no default: no pair");
    }

    #[test]
    fn a_previous_jobs_file_is_not_shown_under_this_job() {
        let cat = Catalog::new(sample_index());
        let (a, b) = (cat.index.jobs[0].id.clone(), cat.index.jobs[1].id.clone());
        assert!(shard_is_for(&cat, Some(0), &a));
        assert!(!shard_is_for(&cat, Some(0), &b), "the file of job 1 while job 0 loads");
        assert!(!shard_is_for(&cat, None, &a), "no job: no file");
        assert!(!shard_is_for(&cat, Some(99), &a), "a job outside the catalog");
    }
    use render::chart::testing::series;

    /// A blogbench.write_score shard holding `series`.
    fn write_score(series: Vec<SeriesData>) -> Arc<SeriesShard> {
        Arc::new(SeriesShard {
            schema: 1,
            testcase: "blogbench".into(),
            metric: "blogbench.write_score".into(),
            series,
        })
    }

    #[test]
    fn shards_of_a_state() {
        let cat = Catalog::new(sample_index());
        let mut s = ViewState::default();
        assert!(trend_shards(&cat, &s).is_empty());
        s.metric = Some("mpstat.cpu.all.idle%".into());
        let got: Vec<String> = trend_shards(&cat, &s).into_iter().map(|(t, _)| t).collect();
        assert_eq!(got, ["blogbench", "fio-basic"]);
        s.toggle(&FacetKey::Param("disk".into()), "1HDD");
        let got = trend_shards(&cat, &s);
        assert_eq!(got, [("fio-basic".to_string(), "s/x/0.json".to_string())]);
        s.metric = Some("blogbench.write_score".into());
        assert!(trend_shards(&cat, &s).is_empty());
    }

    #[test]
    fn legend_toggles_keep_the_state_canonical() {
        let cat = Catalog::new(sample_index());
        let shard = write_score(vec![
            series(1, &[(0, Some(1.0), None, None)]),
            series(0, &[(0, Some(1.0), None, None)]),
            series(2, &[(0, None, None, None)]),
        ]);
        let mut s = ViewState { metric: Some("blogbench.write_score".into()), ..Default::default() };
        let m = trend_model(&cat, &s, vec![shard.clone()]);
        assert_eq!(m.entries.iter().map(|e| e.job).collect::<Vec<_>>(), [0, 1], "job order, no empty series");
        assert!(m.entries.iter().all(|e| e.color.is_some()));
        let ids: Vec<String> = m.entries.iter().map(|e| e.job_id.clone()).collect();
        toggle_job(&mut s, &ids, &ids[0]);
        assert_eq!(s.jobs, [ids[1].clone()].into());
        let m = trend_model(&cat, &s, vec![shard.clone()]);
        assert_eq!((m.entries[0].color, m.data.series.len()), (None, 1));
        assert_eq!(m.entries[1].color, Some(color(0)), "drawn series take the first colours");
        toggle_job(&mut s, &ids, &ids[0]);
        assert!(s.jobs.is_empty(), "all picked again is no pick");
        s.toggle(&FacetKey::Param("fs".into()), "ext4");
        assert_eq!(trend_model(&cat, &s, vec![shard]).entries.len(), 1);
        // The only series cannot be hidden.
        let mut one = ViewState::default();
        toggle_job(&mut one, &ids[..1], &ids[0]);
        assert!(one.jobs.is_empty());
    }

    #[test]
    fn trend_model_of_the_default_screen() {
        let cat = Catalog::new(sample_index());
        let shard = write_score(vec![
            series(0, &[(0, Some(10702.0), None, None), (1, Some(11259.0), Some(2.0), Some(5.2))]),
            series(1, &[(0, Some(9000.0), None, None), (2, Some(9100.0), None, None)]),
        ]);
        let s = crate::catalog::defaults(&cat);
        let m = trend_model(&cat, &s, vec![shard.clone()]);
        assert_eq!(m.entries.len(), 2);
        assert_eq!(m.entries.iter().map(|e| e.label.as_str()).collect::<Vec<_>>(), ["fs=xfs", "fs=ext4"]);
        assert!(m.entries[0].color.is_some() && m.entries[1].color.is_none());
        assert_eq!(m.data.series.len(), 1);
        assert_eq!(m.series(0).job, 0);
        assert_eq!(m.slot_labels, ["4df0f7f145aa", "19957a1816bb"]);
        assert_eq!(m.selected_slot, Some(1));
        assert_eq!(m.weight, 1);
        // Everything shown; range cuts the oldest commit.
        let mut all = s.clone();
        all.jobs.clear();
        all.from = Some(cat.index.commits[1].id.clone());
        let m = trend_model(&cat, &all, vec![shard.clone()]);
        assert_eq!(m.data.series.len(), 2);
        assert_eq!(m.range_options, [0, 1, 2]);
        assert_eq!(m.data.slots, [1, 2]);
        assert_eq!(
            m.common,
            [
                ("testcase".to_string(), "blogbench".to_string()),
                ("machine".into(), "lkp-icl-2sp9".into()),
                ("disk".into(), "1SSD".into())
            ]
        );
        // Picked jobs without data for the metric: draw what there is.
        let mut other = s.clone();
        other.jobs = [cat.index.jobs[2].id.clone()].into();
        other.facets.clear();
        assert_eq!(trend_model(&cat, &other, vec![shard]).data.series.len(), 2);
    }

    #[test]
    fn compare_defaults() {
        let cat = Catalog::new(sample_index());
        let mut s = ViewState::default();
        assert_eq!(compare_job(&cat, &s), Some(0));
        s.jobs.insert(cat.index.jobs[1].id.clone());
        assert_eq!(compare_job(&cat, &s), Some(1));
        s.job = Some(cat.index.jobs[2].id.clone());
        assert_eq!(compare_job(&cat, &s), Some(2));
        assert_eq!(default_pair(&cat, 0, &[0, 1, 2]), Some((0, 1)), "headline pair");
        assert_eq!(default_pair(&cat, 0, &[1, 2]), Some((1, 2)), "ends when the pair is missing");
        assert_eq!(default_pair(&cat, 1, &[2]), None);
    }

    #[test]
    fn panel_report_and_script() {
        let cat = Catalog::new(sample_index());
        let s = ViewState::default();
        assert_eq!(panel_report(&cat, &s, 1, Some(0)), Some(0));
        assert_eq!(panel_report(&cat, &s, 1, Some(1)), Some(0), "any report of the commit");
        assert_eq!(panel_report(&cat, &s, 2, None), None);
        assert_eq!(panel_script(&cat, Some(0), Some(0)).as_deref(), Some("00ff"), "falls back to the job's");
        assert_eq!(panel_script(&cat, None, Some(1)), None);
    }
}
