//! Changes: the ones the reports state, and the steps found along each series.

use super::options::FastHash;
use super::series::KeyedPoints;
use model::{ChangeRecord, ChangeSource, Direction, Headline, MetricInfo, Points};
use std::collections::HashSet;

/// What a series' changes are made with: the reports' headlines (a stated change one names is a
/// headline change) and each metric's direction.
pub(crate) struct ChangeRules<'a> {
    headline_keys: HashSet<(u32, u32, &'a str), FastHash>,
    /// Sorted by name, holding every series' metric (its direction already looked up).
    metrics: &'a [MetricInfo],
}

impl<'a> ChangeRules<'a> {
    pub(crate) fn new(headlines: &'a [Headline], metrics: &'a [MetricInfo]) -> ChangeRules<'a> {
        let headline_keys = headlines.iter().filter_map(|h| Some((h.report, h.job?, h.metric.as_str()))).collect();
        ChangeRules { headline_keys, metrics }
    }

    fn weight(&self, m: &str) -> i8 {
        self.metrics.binary_search_by(|x| x.name.as_str().cmp(m)).map_or(0, |i| self.metrics[i].direction)
    }

    /// One series' changes in build order (the order every listing breaks its ties by): those its
    /// reports state, then the steps found along it.
    pub(crate) fn of(&self, s: &KeyedPoints, out: &mut Vec<ChangeRecord>) {
        self.stated(s, out);
        self.detected(s, out);
    }

    /// The changes one series' reports state (`of`'s first ones).
    pub(crate) fn stated(&self, ((j, m), p): &KeyedPoints, out: &mut Vec<ChangeRecord>) {
        let headline = |report: u32, job: u32, metric: &str| self.headline_keys.contains(&(report, job, metric));
        model::changes::stated::<FastHash>(*j, m, p, self.weight(m), &headline, out);
    }

    /// One series' detected steps (`of`'s last ones).
    fn detected(&self, ((j, m), p): &KeyedPoints, out: &mut Vec<ChangeRecord>) {
        if (0..p.len()).all(|k| !p.is_fail(k)) {
            detected_changes(*j, m, p, self.weight(m), out);
        }
    }
}

/// Changes: stated by reports, and steps found along series.
pub(crate) fn changes_stage(
    series: &[KeyedPoints],
    headlines: &[Headline],
    metrics: &[MetricInfo],
) -> Vec<ChangeRecord> {
    let rules = ChangeRules::new(headlines, metrics);
    along(series, &|s, out| rules.of(s, out))
}

/// The steps detected along the series (what the trend chunks carry), in series order. The
/// stated changes are made when their pages are (`store::pack`), a bucket at a time: a big
/// testcase has a change or two for most of its millions of series.
pub(crate) fn detected_stage(
    series: &[KeyedPoints],
    headlines: &[Headline],
    metrics: &[MetricInfo],
) -> Vec<ChangeRecord> {
    let rules = ChangeRules::new(headlines, metrics);
    along(series, &|s, out| rules.detected(s, out))
}

/// What `made` makes of each series, series by series on all cores (an incremental add rebuilds
/// one testcase: its only parallelism), gathered in series order, so the output does not depend
/// on the scheduling.
fn along(series: &[KeyedPoints], made: &(dyn Fn(&KeyedPoints, &mut Vec<ChangeRecord>) + Sync)) -> Vec<ChangeRecord> {
    use rayon::prelude::*;
    series
        .par_iter()
        .flat_map_iter(|s| {
            let mut out = Vec::new();
            made(s, &mut out);
            out
        })
        .collect()
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
