//! Trend chart as pure data and geometry: which commits get an x slot, per-series points and
//! bands, y scale and ticks, colours, legend labels and hit-testing. `draw` turns this into
//! pixels; nothing here touches a browser, so all of it is tested natively.

use model::{Direction, Job, SeriesData};
use std::collections::BTreeSet;

/// An sRGB colour.
pub type Rgb = (u8, u8, u8);

/// Tableau 10: distinct, colour-blind-friendly enough, and stable across runs.
pub const PALETTE: [Rgb; 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (214, 39, 40),
];

pub const RED: Rgb = (214, 39, 40);
pub const GREEN: Rgb = (44, 160, 44);
pub const GREY: Rgb = (140, 140, 140);

/// Colour of the `i`-th shown series.
pub fn color(i: usize) -> Rgb {
    PALETTE[i % PALETTE.len()]
}

/// CSS form of a colour.
pub fn css(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The chart's own colours (the series' and marks' colours are the same in both).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    pub bg: Rgb,
    pub axis: Rgb,
    pub grid: Rgb,
    /// The selected commit's column.
    pub selected: Rgb,
    /// The thin ring around a point.
    pub point_edge: Rgb,
}

pub const LIGHT: Theme = Theme {
    bg: (255, 255, 255),
    axis: (90, 90, 90),
    grid: (228, 228, 228),
    selected: (255, 236, 160),
    point_edge: (255, 255, 255),
};
pub const DARK: Theme = Theme {
    bg: (24, 26, 29),
    axis: (170, 174, 180),
    grid: (52, 56, 62),
    selected: (110, 92, 30),
    point_edge: (24, 26, 29),
};

/// Colour of a reported change's marker.
pub fn mark_color(d: Direction) -> Rgb {
    match d {
        Direction::Regression => RED,
        Direction::Improvement => GREEN,
        Direction::Undefined => GREY,
    }
}

/// One observation placed on the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Obs {
    /// x slot.
    pub slot: usize,
    /// Position in the series' `Points`.
    pub point: usize,
    pub mean: f64,
    /// Absolute stddev when the report printed one, or the "≤ 2 %" bound of a mail that omits
    /// small ones (`implied`).
    pub sd: Option<f64>,
    /// `sd` is the bound of an unprinted `±`, not a printed stddev.
    pub implied: bool,
    /// A change the report stated at this point, with what it means for the metric.
    pub mark: Option<Direction>,
    /// The stated change itself (percent, or absolute for absolute metrics), when `mark` is set.
    pub change: Option<f64>,
}

/// What the line and band go through at one slot: several observations of one commit (from
/// different reports) are averaged, with the widest stddev.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agg {
    pub mean: f64,
    pub sd: Option<f64>,
    /// The widest `sd` here is an unprinted `± ≤ 2 %`.
    pub implied: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Position of the job in `Index::jobs`.
    pub job: u32,
    pub color: Rgb,
    pub obs: Vec<Obs>,
    /// Its slots with data (`series[i].agg[slot]`: `None` is a gap).
    pub agg: Aggs,
}

/// A series' aggregates at the slots where it has data, in slot order: as many as its observations
/// at most, not one per slot of the chart (a testcase's trend of thousands of series over
/// thousands of commits would otherwise hold their product).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Aggs(Vec<(usize, Option<Agg>)>);

impl Aggs {
    /// The aggregate at `slot`, `None` for a gap.
    pub fn get(&self, slot: usize) -> Option<Agg> {
        self[slot]
    }

    /// The slots with data and their aggregates, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, Agg)> + '_ {
        self.0.iter().filter_map(|(i, a)| a.map(|a| (*i, a)))
    }
}

impl std::ops::Index<usize> for Aggs {
    type Output = Option<Agg>;

    fn index(&self, slot: usize) -> &Option<Agg> {
        const GAP: Option<Agg> = None;
        match self.0.binary_search_by_key(&slot, |(i, _)| *i) {
            Ok(k) => &self.0[k].1,
            Err(_) => &GAP,
        }
    }
}

impl From<Vec<Option<Agg>>> for Aggs {
    /// One entry per slot, `None` a gap.
    fn from(dense: Vec<Option<Agg>>) -> Aggs {
        Aggs(dense.into_iter().enumerate().filter(|(_, a)| a.is_some()).collect())
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartData {
    /// Commit positions (history order) that have data in at least one shown series.
    pub slots: Vec<u32>,
    pub series: Vec<Series>,
}

impl ChartData {
    pub fn points(&self) -> usize {
        self.series.iter().map(|s| s.obs.len()).sum()
    }
}

/// Commits (positions, ascending) where any of the series has a value.
pub fn commits_with_data(shown: &[&SeriesData]) -> Vec<u32> {
    let set: BTreeSet<u32> = shown
        .iter()
        .flat_map(|s| s.points.commit.iter().zip(&s.points.mean).filter(|(_, m)| m.is_some()).map(|(c, _)| *c))
        .collect();
    set.into_iter().collect()
}

/// Per slot while building: the sum and count of means, and the widest stddev (and whether it
/// is an implied one).
#[derive(Clone, Copy, Default)]
struct SlotSum {
    sum: f64,
    n: usize,
    sd: Option<(f64, bool)>,
}

impl SlotSum {
    fn add(&mut self, o: &Obs) {
        self.sum += o.mean;
        self.n += 1;
        if let Some(sd) = o.sd {
            if self.sd.is_none_or(|(w, _)| sd > w) {
                self.sd = Some((sd, o.implied));
            }
        }
    }

    fn agg(self) -> Option<Agg> {
        (self.n > 0).then(|| Agg {
            mean: self.sum / self.n as f64,
            sd: self.sd.map(|x| x.0),
            implied: self.sd.is_some_and(|x| x.1),
        })
    }
}

/// The stddev of observation `k`: the printed one, else, when its report `omits_small_stddev`
/// (and it is a measured value, not a failure row), the `± ≤ 2 %` bound, flagged as implied.
fn stddev_of(p: &model::Points, k: usize, quiet: &dyn Fn(u32) -> bool) -> (Option<f64>, bool) {
    if let Some(sd) = p.stddev(k) {
        return (Some(sd), false);
    }
    // (no stddev with a mean: the mail printed no `±`)
    match p.mean[k] {
        Some(m) if !p.is_fail(k) && quiet(p.report[k]) => (Some((m * model::QUIET_STDDEV_PCT / 100.0).abs()), true),
        _ => (None, false),
    }
}

/// Build the chart of `shown` series (in legend order) for a metric of direction `weight`,
/// keeping commits in `range` (inclusive positions). `quiet(report)`: that report prints no `±`
/// for stddevs ≤ 2 % (`ReportMeta::omits_small_stddev`).
pub fn build(
    shown: &[&SeriesData],
    weight: i8,
    range: (Option<u32>, Option<u32>),
    quiet: &dyn Fn(u32) -> bool,
) -> ChartData {
    let in_range = |c: u32| range.0.is_none_or(|f| c >= f) && range.1.is_none_or(|t| c <= t);
    let slots: Vec<u32> = commits_with_data(shown).into_iter().filter(|&c| in_range(c)).collect();
    let series = shown
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = &s.points;
            let obs: Vec<Obs> = (0..p.len())
                .filter_map(|k| {
                    let mean = p.mean[k]?;
                    let slot = slots.binary_search(&p.commit[k]).ok()?;
                    let change = p.change.get(k).copied().flatten();
                    let mark = change.map(|c| Direction::of(weight, c));
                    let (sd, implied) = stddev_of(p, k, quiet);
                    Some(Obs { slot, point: k, mean, sd, implied, mark, change })
                })
                .collect();
            // One pass over the observations (in their order, as the sums always were): per slot the
            // sum and count of means and the widest stddev; only the slots it has data at.
            let mut at: Vec<usize> = obs.iter().map(|o| o.slot).collect();
            at.sort_unstable();
            at.dedup();
            let mut acc: Vec<SlotSum> = vec![SlotSum::default(); at.len()];
            for o in &obs {
                acc[at.binary_search(&o.slot).expect("its own slot")].add(o);
            }
            let agg = Aggs(at.into_iter().zip(acc.into_iter().map(SlotSum::agg)).collect());
            Series { job: s.job, color: color(i), obs, agg }
        })
        .collect();
    ChartData { slots, series }
}

/// The band pieces of run `(a, b)` (a < b): `(first, last, implied)`, each piece a stretch of
/// segments between neighbouring slots; a segment touching an implied `± ≤ 2 %` slot is implied
/// (drawn lighter). Neighbouring pieces share their boundary slot, so the band stays whole.
pub fn band_pieces(agg: &Aggs, a: usize, b: usize) -> Vec<(usize, usize, bool)> {
    let implied = |i: usize| agg[i].is_some_and(|g| g.implied);
    let mut out: Vec<(usize, usize, bool)> = Vec::new();
    for i in a + 1..=b {
        let kind = implied(i - 1) || implied(i);
        match out.last_mut() {
            Some(last) if last.2 == kind => last.1 = i,
            _ => out.push((i - 1, i, kind)),
        }
    }
    out
}

/// Runs of consecutive slots where a series has data: `(first, last)` inclusive.
pub fn runs(agg: &Aggs) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, _) in agg.iter() {
        match out.last_mut() {
            Some(run) if run.1 + 1 == i => run.1 = i,
            _ => out.push((i, i)),
        }
    }
    out
}

/// Legend text: what the shown series have in common, and per series only what differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Legend {
    pub common: Vec<(String, String)>,
    pub labels: Vec<String>,
}

/// Name each job by parameters that differ between `jobs`: the fewest that still tell every
/// two series apart (chosen greedily, storage parameters first on ties), so that a legend of
/// jobs differing in ten parameters does not print all ten.
pub fn legend<'a>(jobs: &[&'a Job]) -> Legend {
    let mut keys: Vec<String> = vec!["testcase".into(), "machine".into()];
    let mut params: Vec<&String> =
        jobs.iter().flat_map(|j| j.params.keys()).collect::<BTreeSet<_>>().into_iter().collect();
    model::order::sort_by_key(&mut params, |k| model::param_rank(k));
    keys.extend(params.into_iter().cloned());
    let value = |j: &'a Job, k: &str| -> &'a str {
        match k {
            "testcase" => &j.testcase,
            "machine" => &j.machine,
            _ => j.params.get(k).map_or("", |v| v.as_str()),
        }
    };
    let (mut common, mut differing) = (Vec::new(), Vec::new());
    // Per differing key, each job's value as a small number (equal values, equal numbers), so the
    // set cover below compares integers instead of looking strings up again for every pair.
    let mut ids: Vec<Vec<u32>> = Vec::new();
    for k in keys {
        let values: BTreeSet<&str> = jobs.iter().map(|j| value(j, &k)).collect();
        if values.len() > 1 {
            let values: Vec<&str> = values.into_iter().collect();
            ids.push(jobs.iter().map(|j| values.binary_search(&value(j, &k)).unwrap_or(0) as u32).collect());
            differing.push(k);
        } else if let Some(v) = values.into_iter().next().filter(|v| !v.is_empty()) {
            common.push((k, v.to_string()));
        }
    }
    // Greedy set cover of the pairs of series by the keys that separate them.
    let n = jobs.len();
    let mut open: Vec<(usize, usize)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect();
    let mut chosen: Vec<usize> = Vec::new();
    while !open.is_empty() {
        let separates = |k: usize, &(a, b): &(usize, usize)| ids[k][a] != ids[k][b];
        let best = (0..differing.len())
            .filter(|k| !chosen.contains(k))
            .map(|k| (open.iter().filter(|p| separates(k, p)).count(), k))
            .max_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        match best {
            Some((gain, k)) if gain > 0 => {
                open.retain(|p| !separates(k, p));
                chosen.push(k);
            }
            _ => break,
        }
    }
    model::order::sort(&mut chosen);
    let labels = jobs
        .iter()
        .map(|j| {
            if chosen.is_empty() {
                return j.testcase.clone();
            }
            chosen
                .iter()
                .map(|&k| {
                    let k = &differing[k];
                    let v = value(j, k);
                    match k.as_str() {
                        "testcase" | "machine" if !v.is_empty() => v.to_string(),
                        _ if v.is_empty() => format!("{k}=(unset)"),
                        _ => format!("{k}={v}"),
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    Legend { common, labels }
}

/// Canvas size in device pixels and the device pixel ratio (fonts and margins scale with it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    pub width: f64,
    pub height: f64,
    pub scale: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

/// Everything needed to turn data into pixels, and pixels back into data (hit-testing).
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    pub size: Size,
    pub plot: Rect,
    pub slot_x: Vec<f64>,
    pub y_min: f64,
    pub y_max: f64,
    /// Tick values and their labels.
    pub y_ticks: Vec<(f64, String)>,
    /// Slots whose commit id is written under the axis (the others would overlap).
    pub x_labels: Vec<usize>,
    /// Font size in device pixels.
    pub font: f64,
}

/// Approximate width of `n` characters of the tick font (canvas measuring is not available
/// natively, and an estimate is enough to keep labels apart).
fn text_width(n: usize, font: f64) -> f64 {
    n as f64 * font * 0.6
}

impl Geometry {
    /// Lay the chart out in `size`. `labels` are the x labels (short commit ids) per slot.
    pub fn layout(data: &ChartData, labels: &[String], size: Size) -> Geometry {
        let s = size.scale.max(0.5);
        let font = 11.0 * s;
        let (lo, hi) = y_extent(data);
        let target = ((size.height / s - 60.0) / 45.0).clamp(2.0, 8.0) as usize;
        let (y_min, y_max, step) = nice_ticks(lo, hi, target);
        let mut y_ticks = Vec::new();
        let n = ((y_max - y_min) / step).round() as i64;
        let top = y_min.abs().max(y_max.abs());
        for i in 0..=n {
            let v = y_min + i as f64 * step;
            y_ticks.push((v, format_tick(v, step, top)));
        }
        let label_chars = y_ticks.iter().map(|(_, l)| l.chars().count()).max().unwrap_or(1);
        let plot = Rect {
            left: (text_width(label_chars, font) + 14.0 * s).round(),
            top: (12.0 * s).round(),
            right: (size.width - 16.0 * s).round(),
            bottom: (size.height - 30.0 * s).round(),
        };
        let n = data.slots.len();
        let w = (plot.right - plot.left).max(1.0);
        let slot_x: Vec<f64> = (0..n).map(|i| plot.left + (i as f64 + 0.5) * w / n as f64).collect();
        let spacing = if n > 0 { w / n as f64 } else { w };
        let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let every = ((text_width(widest, font) + 10.0 * s) / spacing).ceil().max(1.0) as usize;
        let x_labels = (0..n).step_by(every).collect();
        Geometry { size, plot, slot_x, y_min, y_max, y_ticks, x_labels, font }
    }

    /// Pixel y of value `v`.
    pub fn y(&self, v: f64) -> f64 {
        let span = self.y_max - self.y_min;
        self.plot.bottom - (v - self.y_min) / span * (self.plot.bottom - self.plot.top)
    }

    pub fn x(&self, slot: usize) -> f64 {
        self.slot_x[slot]
    }

    /// Radius of a point marker.
    pub fn point_radius(&self) -> f64 {
        3.5 * self.size.scale
    }

    /// The observation nearest to pixel `(px, py)` within reach: `(series, obs)` indices.
    /// Later series are drawn on top, so on a tie they win.
    pub fn hit(&self, data: &ChartData, px: f64, py: f64) -> Option<(usize, usize)> {
        let reach = 10.0 * self.size.scale;
        let mut best: Option<(f64, usize, usize)> = None;
        for (si, s) in data.series.iter().enumerate() {
            for (oi, o) in s.obs.iter().enumerate() {
                let d = (self.x(o.slot) - px).hypot(self.y(o.mean) - py);
                if d <= reach && best.is_none_or(|(bd, _, _)| d <= bd) {
                    best = Some((d, si, oi));
                }
            }
        }
        best.map(|(_, s, o)| (s, o))
    }

    /// The slot whose column contains pixel x (for hovering between points).
    pub fn slot_at(&self, px: f64) -> Option<usize> {
        let n = self.slot_x.len();
        if n == 0 || px < self.plot.left || px > self.plot.right {
            return None;
        }
        let w = (self.plot.right - self.plot.left) / n as f64;
        Some((((px - self.plot.left) / w) as usize).min(n - 1))
    }
}

/// Smallest and largest of mean ± stddev over all observations, padded; never empty.
pub fn y_extent(data: &ChartData) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for o in data.series.iter().flat_map(|s| &s.obs) {
        let sd = o.sd.unwrap_or(0.0);
        if o.mean.is_finite() {
            lo = lo.min(o.mean - sd);
            hi = hi.max(o.mean + sd);
        }
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let span = hi - lo;
    let pad = if span > 0.0 {
        span * 0.08
    } else if hi != 0.0 {
        hi.abs() * 0.05
    } else {
        1.0
    };
    (lo - pad, hi + pad)
}

/// "Nice" axis bounds and step (1, 2, 2.5 or 5 × 10^k) covering `[lo, hi]` with about
/// `target` intervals.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> (f64, f64, f64) {
    let span = (hi - lo).abs().max(f64::MIN_POSITIVE * 1e10);
    let raw = span / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let lo2 = (lo / step).floor() * step;
    let hi2 = (hi / step).ceil() * step;
    (lo2, if hi2 > lo2 { hi2 } else { lo2 + step }, step)
}

/// Tick label: SI suffix chosen by the largest value on the axis (`top`), so every label of
/// one axis has the same unit; as many decimals as the step needs.
pub fn format_tick(v: f64, step: f64, top: f64) -> String {
    let a = top.abs().max(step.abs());
    let (div, suffix) = if a >= 1e12 {
        (1e12, "T")
    } else if a >= 1e9 {
        (1e9, "G")
    } else if a >= 1e6 {
        (1e6, "M")
    } else if a >= 1e4 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let step = step / div;
    // Fewest decimals that write the step exactly (0.25 -> 2, 2.5 -> 1, 200 -> 0).
    let decimals = (0..9)
        .find(|&d| {
            let x = step * 10f64.powi(d);
            (x - x.round()).abs() < 1e-6 * x.max(1.0)
        })
        .unwrap_or(9) as usize;
    let v = v / div;
    if v.abs() < step * 1e-9 {
        return "0".into();
    }
    format!("{v:.*}{suffix}", decimals)
}

/// Series for tests (here and in the app's views): built from `(commit, mean, stddev %, change)`.
#[doc(hidden)]
pub mod testing {
    use model::{Points, SeriesData};

    /// A test observation: commit, mean, stddev percent, stated change.
    pub type Pt = (u32, Option<f64>, Option<f64>, Option<f64>);

    pub fn series(job: u32, pts: &[Pt]) -> SeriesData {
        SeriesData {
            job,
            metric: "blogbench.write_score".into(),
            points: Points {
                commit: pts.iter().map(|p| p.0).collect(),
                mean: pts.iter().map(|p| p.1).collect(),
                stddev_pct: pts.iter().map(|p| p.2).collect(),
                runs: pts.iter().map(|_| Some(3)).collect(),
                report: pts.iter().map(|_| 0).collect(),
                change: pts.iter().map(|p| p.3).collect(),
                base: pts.iter().map(|p| p.3.map(|_| 0)).collect(),
                fails: vec![],
                values: vec![],
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn an_unprinted_stddev_of_a_recent_mail_is_at_most_two_percent() {
        // Report 0 omits ± ≤ 2 % (a 2017-08+ mail), report 1 does not (older, or a result root).
        let mut a =
            series(0, &[(0, Some(200.0), None, None), (1, Some(300.0), Some(5.0), None), (2, Some(100.0), None, None)]);
        a.points.report = vec![0, 0, 1];
        let mut f = series(1, &[(0, Some(50.0), None, None)]);
        f.points.fails = vec![Some(1)];
        let d = build(&[&a, &f], 1, (None, None), &|r| r == 0);
        let o = &d.series[0].obs;
        assert_eq!((o[0].sd, o[0].implied), (Some(4.0), true), "2 % of 200, drawn as the ≤ 2 % band");
        assert_eq!((o[1].sd, o[1].implied), (Some(15.0), false), "a printed ± is the stated band");
        assert_eq!((o[2].sd, o[2].implied), (None, false), "an older format says nothing");
        assert_eq!(d.series[1].obs[0].sd, None, "a failure row has no band");
        assert_eq!(d.series[0].agg[0], Some(Agg { mean: 200.0, sd: Some(4.0), implied: true }));
        // Nothing changes when no report omits small stddevs.
        let old = build(&[&a], 1, (None, None), &|_| false);
        assert_eq!(old.series[0].obs[0].sd, None);
        // Band pieces: the segments touching an implied slot are light, the rest solid.
        let g = |implied| Some(Agg { mean: 1.0, sd: Some(0.1), implied });
        let agg = Aggs::from(vec![g(false), g(false), g(true), g(false), g(false), g(false)]);
        assert_eq!(band_pieces(&agg, 0, 5), [(0, 1, false), (1, 3, true), (3, 5, false)]);
        assert_eq!(band_pieces(&agg, 3, 5), [(3, 5, false)]);
    }

    #[test]
    fn slots_are_commits_with_data_in_history_order() {
        let a =
            series(0, &[(5, Some(10.0), Some(10.0), None), (2, Some(12.0), None, Some(20.0)), (9, None, None, None)]);
        let b = series(1, &[(2, Some(1.0), None, None), (7, Some(2.0), None, Some(-50.0))]);
        let d = build(&[&a, &b], 1, (None, None), &|_| false);
        assert_eq!(d.slots, [2, 5, 7]);
        assert_eq!(d.points(), 4);
        assert_eq!(
            (0..3).map(|i| d.series[0].agg[i].map(|a| a.mean)).collect::<Vec<_>>(),
            [Some(12.0), Some(10.0), None]
        );
        assert_eq!(d.series[0].agg[1].unwrap().sd, Some(1.0));
        assert_eq!(d.series[1].agg[1], None, "gap where the series has no data");
        assert_eq!(d.series[0].obs[1].mark, Some(Direction::Improvement));
        assert_eq!(d.series[1].obs[1].mark, Some(Direction::Regression));
        assert_eq!(d.series[0].obs[0].mark, None);
        assert_ne!(d.series[0].color, d.series[1].color);
        // Range keeps only commits inside, inclusive.
        let r = build(&[&a, &b], 1, (Some(3), Some(7)), &|_| false);
        assert_eq!(r.slots, [5, 7]);
        assert_eq!(r.points(), 2);
        // Unknown direction: marked, but grey.
        assert_eq!(build(&[&a], 0, (None, None), &|_| false).series[0].obs[1].mark, Some(Direction::Undefined));
    }

    #[test]
    fn several_observations_of_one_commit_are_averaged() {
        let a = series(0, &[(1, Some(10.0), Some(10.0), None), (1, Some(20.0), Some(5.0), None)]);
        let d = build(&[&a], 1, (None, None), &|_| false);
        assert_eq!(d.slots, [1]);
        assert_eq!(d.series[0].agg[0], Some(Agg { mean: 15.0, sd: Some(1.0), implied: false }));
        assert_eq!(d.series[0].obs.len(), 2);
    }

    /// A testcase's trend of many series over many commits (a thousand jobs, each at two commits
    /// of its own): each series holds its own slots only, as many as its observations, not one
    /// per slot of the chart (at 3×10^4 mails the product was 0.8 GB of an import's peak).
    #[test]
    fn a_series_holds_its_own_slots_only() {
        let all: Vec<SeriesData> = (0..1_000u32)
            .map(|j| series(j, &[(2 * j, Some(1.0 + j as f64), None, None), (2 * j + 1, Some(2.0), None, None)]))
            .collect();
        let d = build(&all.iter().collect::<Vec<_>>(), 1, (None, None), &|_| false);
        assert_eq!(d.slots.len(), 2_000);
        assert!(d.series.iter().all(|s| s.agg.iter().count() == 2));
        let s = &d.series[7];
        assert_eq!(s.agg.iter().map(|(i, a)| (i, a.mean)).collect::<Vec<_>>(), [(14, 8.0), (15, 2.0)]);
        assert_eq!((s.agg[13], s.agg[16]), (None, None), "gaps either side");
        assert_eq!(runs(&s.agg), [(14, 15)]);
    }

    #[test]
    fn runs_split_at_gaps() {
        let a = |m: f64| Some(Agg { mean: m, sd: None, implied: false });
        let runs_of = |dense: Vec<Option<Agg>>| runs(&Aggs::from(dense));
        assert_eq!(runs_of(vec![a(1.0), a(2.0), None, a(3.0), None, None, a(4.0), a(5.0)]), [(0, 1), (3, 3), (6, 7)]);
        assert_eq!(runs_of(vec![]), []);
        assert_eq!(runs_of(vec![None]), []);
        assert_eq!(runs_of(vec![None, a(1.0)]), [(1, 1)]);
    }

    #[test]
    fn legend_names_only_what_differs() {
        let job = |tc: &str, fs: &str, disk: Option<&str>| {
            let mut params = model::Params::new();
            params.insert("fs".into(), fs.into());
            if let Some(d) = disk {
                params.insert("disk".into(), d.into());
            }
            Job {
                id: String::new(),
                testcase: tc.into(),
                machine: "m1".into(),
                params,
                script: None,
                shard: String::new(),
                report: None,
            }
        };
        let (a, b, c) = (
            job("blogbench", "xfs", Some("1SSD")),
            job("blogbench", "ext4", Some("1SSD")),
            job("blogbench", "xfs", None),
        );
        let l = legend(&[&a, &b]);
        assert_eq!(l.labels, ["fs=xfs", "fs=ext4"]);
        assert_eq!(
            l.common,
            [("testcase".into(), "blogbench".into()), ("machine".into(), "m1".into()), ("disk".into(), "1SSD".into())]
        );
        let l = legend(&[&a, &c]);
        assert_eq!(l.labels, ["disk=1SSD", "disk=(unset)"]);
        let l = legend(&[&a]);
        assert_eq!(l.labels, ["blogbench"]);
        let d = job("fio-basic", "xfs", Some("1SSD"));
        assert_eq!(legend(&[&a, &d]).labels, ["blogbench", "fio-basic"]);
        // Jobs differing in several parameters are named by the fewest that tell them apart.
        let mut e = job("blogbench", "ext4", None);
        e.params.insert("compiler".into(), "gcc-12".into());
        let mut f = job("blogbench", "xfs", None);
        f.params.insert("compiler".into(), "gcc-14".into());
        let mut g = job("blogbench", "xfs", None);
        g.params.insert("compiler".into(), "gcc-12".into());
        assert_eq!(
            legend(&[&e, &f, &g]).labels,
            ["fs=ext4 compiler=gcc-12", "fs=xfs compiler=gcc-14", "fs=xfs compiler=gcc-12"]
        );
        assert_eq!(legend(&[&e, &f]).labels, ["fs=ext4", "fs=xfs"], "one parameter suffices: storage first");
    }

    #[test]
    fn ticks_are_nice() {
        assert_eq!(nice_ticks(0.0, 10.0, 5), (0.0, 10.0, 2.0));
        assert_eq!(nice_ticks(10702.0, 11259.0, 5), (10600.0, 11400.0, 200.0));
        let (lo, hi, step) = nice_ticks(0.93, 0.97, 4);
        assert!((step - 0.01).abs() < 1e-12 && lo <= 0.93 && hi >= 0.97);
        assert_eq!(format_tick(10800.0, 200.0, 11400.0), "10.8k");
        assert_eq!(format_tick(8000.0, 1000.0, 12000.0), "8k");
        assert_eq!(format_tick(1_345_000_000.0, 100_000_000.0, 1.4e9), "1.3G");
        assert_eq!(format_tick(0.95, 0.01, 1.0), "0.95");
        assert_eq!(format_tick(0.75, 0.25, 1.0), "0.75");
        assert_eq!(format_tick(2.5, 2.5, 10.0), "2.5");
        assert_eq!(format_tick(200.0, 50.0, 300.0), "200");
        assert_eq!(format_tick(-1e-17, 0.1, 1.0), "0");
        assert_eq!(format_tick(0.0, 2000.0, 12000.0), "0");
    }

    #[test]
    fn geometry_maps_and_hits() {
        let a = series(0, &[(0, Some(10702.0), None, None), (1, Some(11259.0), Some(2.0), Some(5.2))]);
        let d = build(&[&a], 1, (None, None), &|_| false);
        let labels = vec!["4df0f7f145aa".to_string(), "19957a1816bb".to_string()];
        let g = Geometry::layout(&d, &labels, Size { width: 800.0, height: 360.0, scale: 1.0 });
        assert!(g.plot.left > 30.0 && g.plot.right < 800.0 && g.plot.bottom < 360.0);
        assert!(g.x(0) < g.x(1));
        assert!(g.y(11259.0) < g.y(10702.0), "higher values are higher up");
        assert!(g.y_min <= 10702.0 - 1.0 && g.y_max >= 11259.0 * 1.02);
        assert_eq!(g.x_labels, [0, 1]);
        let (x, y) = (g.x(1), g.y(11259.0));
        assert_eq!(g.hit(&d, x + 3.0, y - 3.0), Some((0, 1)));
        assert_eq!(g.hit(&d, x + 30.0, y), None);
        assert_eq!(g.slot_at(g.x(0)), Some(0));
        assert_eq!(g.slot_at(0.0), None);
        // Crowded axis: labels thin out, first slot always labelled.
        let many: Vec<Pt> = (0..60).map(|i| (i, Some(i as f64), None, None)).collect();
        let d = build(&[&series(0, &many)], 1, (None, None), &|_| false);
        let labels: Vec<String> = (0..60).map(|i| format!("{i:012}")).collect();
        let g = Geometry::layout(&d, &labels, Size { width: 600.0, height: 300.0, scale: 1.0 });
        assert_eq!(g.x_labels[0], 0);
        assert!(g.x_labels.len() < 10 && g.x_labels.len() > 3, "{:?}", g.x_labels);
        // HiDPI: everything scales.
        let g2 = Geometry::layout(&d, &labels, Size { width: 1200.0, height: 600.0, scale: 2.0 });
        assert_eq!(g2.x_labels, g.x_labels);
        assert!((g2.x(5) - 2.0 * g.x(5)).abs() < 2.0);
    }

    #[test]
    fn flat_and_empty_data_still_have_a_scale() {
        let a = series(0, &[(0, Some(5.0), None, None)]);
        let d = build(&[&a], 1, (None, None), &|_| false);
        let g = Geometry::layout(&d, &["x".into()], Size { width: 300.0, height: 200.0, scale: 1.0 });
        assert!(g.y_min < 5.0 && g.y_max > 5.0);
        let g = Geometry::layout(&ChartData::default(), &[], Size { width: 300.0, height: 200.0, scale: 1.0 });
        assert!(g.y_max > g.y_min);
        assert_eq!(y_extent(&ChartData::default()), (0.0, 1.0));
    }
}
