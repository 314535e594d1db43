//! Latency histograms: metrics named `<prefix>_<N><unit>%` (`fio.latency_2ms%`, `fio.latency_750us%`,
//! `fio.latency_>=2000ms%`; units ns, us, ms, s) are the bins of one histogram. This module finds
//! such families, orders their bins by value, and builds the base-vs-head distribution of a job
//! with bar heights, per-run values and the notes of the reports behind the numbers.

#[cfg(target_arch = "wasm32")]
pub mod view;

use crate::catalog::Catalog;
use crate::compare;
use crate::html::{link, select, Act, Html};
use crate::put;
use crate::state::ViewState;
use model::stats::format_value;
use model::{Direction, Index, JobShard};
use std::collections::{BTreeMap, BTreeSet};

/// One bin of a histogram family.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    pub metric: String,
    /// As the metric names it: `2ms`, `750us`, `>=2000ms`.
    pub label: String,
    /// Bin value in nanoseconds.
    pub ns: f64,
    /// `>=` bins: everything above the value; ordered after the bin of the same value.
    pub open: bool,
}

/// `750`, `0.5`: digits with at most one `.`. By hand rather than `str::parse::<f64>`, whose
/// tables would add kilobytes to the page for numbers that only order bins.
fn decimal(s: &str) -> Option<f64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    let mut v = 0.0;
    for b in int.bytes() {
        v = v * 10.0 + (b - b'0') as f64;
    }
    let mut scale = 0.1;
    for b in frac.bytes() {
        v += (b - b'0') as f64 * scale;
        scale /= 10.0;
    }
    Some(v)
}

/// The family prefix and bin of a metric, when it names a histogram bin.
pub fn parse_bin(metric: &str) -> Option<(&str, Bin)> {
    let body = metric.strip_suffix('%')?;
    let (prefix, label) = body.rsplit_once('_')?;
    if prefix.is_empty() {
        return None;
    }
    let (open, rest) = match label.strip_prefix(">=") {
        Some(r) => (true, r),
        None => (false, label),
    };
    // Longer units first: `ms` also ends in `s`.
    let (number, scale) = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]
        .iter()
        .find_map(|(u, scale)| rest.strip_suffix(u).map(|n| (n, *scale)))?;
    let n = decimal(number)?;
    Some((prefix, Bin { metric: metric.to_string(), label: label.to_string(), ns: n * scale, open }))
}

/// The family (prefix) of a bin metric.
pub fn family(metric: &str) -> Option<&str> {
    parse_bin(metric).map(|(p, _)| p)
}

/// Order of bins: by value, an open (`>=`) bin after the closed one of the same value.
fn order(a: &Bin, b: &Bin) -> std::cmp::Ordering {
    a.ns.total_cmp(&b.ns).then(a.open.cmp(&b.open)).then_with(|| a.metric.cmp(&b.metric))
}

/// Families with at least two bins among `metrics` (one bin is no distribution).
pub fn families<'a>(metrics: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    let mut count: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for m in metrics {
        if let Some(p) = family(m) {
            count.entry(p).or_default().insert(m);
        }
    }
    count.into_iter().filter(|(_, v)| v.len() >= 2).map(|(k, _)| k.to_string()).collect()
}

/// Whether `metric` is a bin of a family with at least two bins in the index.
pub fn is_histogram_metric(idx: &Index, metric: &str) -> bool {
    family(metric).is_some_and(|p| families(idx.metrics.iter().map(|m| m.name.as_str())).contains(p))
}

/// One side of a bin: the observation the compare table would show.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub mean: f64,
    pub stddev_pct: Option<f64>,
    /// Per-run values where the source had them (result roots); empty otherwise.
    pub values: Vec<f64>,
    /// Position in `Index::reports`.
    pub report: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DistRow {
    pub bin: Bin,
    pub base: Option<Side>,
    pub head: Option<Side>,
    /// Change as lkp prints it for `%` metrics: absolute, in percentage points.
    pub change: Option<f64>,
    pub change_text: String,
    pub direction: Direction,
}

/// A family of one job between base and head, bins in value order.
#[derive(Debug, Clone, PartialEq)]
pub struct Dist {
    pub prefix: String,
    pub rows: Vec<DistRow>,
    /// Largest value (mean or run) of either side: the full bar height.
    pub max: f64,
    /// Reports behind the shown numbers.
    pub reports: BTreeSet<u32>,
}

/// The distribution of family `prefix` of a job between `base` and `head`. `weight(metric)` is
/// the metric's direction weight. Bins measured at neither commit are left out.
pub fn build(shard: &JobShard, prefix: &str, base: u32, head: u32, weight: impl Fn(&str) -> i8) -> Dist {
    let mut rows = Vec::new();
    let mut reports = BTreeSet::new();
    let mut max: f64 = 0.0;
    for s in &shard.series {
        let Some((p, bin)) = parse_bin(&s.metric) else { continue };
        if p != prefix {
            continue;
        }
        let Some(row) = compare::row(s, base, head, weight(&s.metric)) else { continue };
        let side = |c: Option<compare::Cell>, commit: u32| {
            c.map(|c| {
                let pts = &s.points;
                let values = (0..pts.len())
                    .find(|&k| pts.commit[k] == commit && pts.report[k] == c.report)
                    .and_then(|k| pts.values.get(k).cloned())
                    .unwrap_or_default();
                Side { mean: c.mean, stddev_pct: c.stddev_pct, values, report: c.report }
            })
        };
        let (b, h) = (side(row.base.clone(), base), side(row.head.clone(), head));
        for sd in b.iter().chain(h.iter()) {
            reports.insert(sd.report);
            max = sd.values.iter().chain([&sd.mean]).filter(|v| v.is_finite()).fold(max, |m, v| m.max(*v));
        }
        rows.push(DistRow {
            bin,
            base: b,
            head: h,
            change: row.change,
            change_text: row.change_text(),
            direction: row.direction,
        });
    }
    model::order::sort_by(&mut rows, |a, b| order(&a.bin, &b.bin));
    Dist { prefix: prefix.to_string(), rows, max: if max > 0.0 { max } else { 1.0 }, reports }
}

/// Bar height of `v` in percent of the tallest value, within 0..=100.
pub fn height(v: f64, max: f64) -> f64 {
    if !v.is_finite() || max <= 0.0 {
        0.0
    } else {
        (100.0 * v / max).clamp(0.0, 100.0)
    }
}

/// Commits (ascending) at which any bin of the family has a value: what the pair pickers offer.
pub fn commits(shard: &JobShard, prefix: &str) -> Vec<u32> {
    let set: BTreeSet<u32> = shard
        .series
        .iter()
        .filter(|s| family(&s.metric) == Some(prefix))
        .flat_map(|s| s.points.commit.iter().zip(&s.points.mean).filter(|(_, m)| m.is_some()).map(|(c, _)| *c))
        .collect();
    set.into_iter().collect()
}

/// Base and head: the chosen ones, each completed by the job's default pair (the report's).
pub fn pair(cat: &Catalog, job: usize, commits: &[u32], base: Option<u32>, head: Option<u32>) -> Option<(u32, u32)> {
    match (base, head) {
        (Some(b), Some(h)) => Some((b, h)),
        (b, h) => crate::views::default_pair(cat, job, commits).map(|(db, dh)| (b.unwrap_or(db), h.unwrap_or(dh))),
    }
}

/// The pair the trend's "show latency distribution" link opens: the selected commit against the
/// base of the report it was measured in, when that report compared it for `job`.
pub fn pair_from_commit(idx: &Index, job: usize, commit: Option<usize>) -> Option<(u32, u32)> {
    let c = commit? as u32;
    idx.reports.iter().rev().flat_map(|r| r.sections.iter()).find_map(|s| {
        let base = *s.commits.first()?;
        (s.job == Some(job as u32) && s.commits.contains(&c) && base != c).then_some((base, c))
    })
}

/// Notes of the reports behind a distribution, plus those of reports that compared the pair for
/// the job: `(report, note)`, each note once.
pub fn notes(idx: &Index, dist: &Dist, job: usize, pair: (u32, u32)) -> Vec<(usize, String)> {
    let mut reports: BTreeSet<usize> = dist.reports.iter().map(|&r| r as usize).collect();
    for (i, r) in idx.reports.iter().enumerate() {
        if r.sections
            .iter()
            .any(|s| s.job == Some(job as u32) && s.commits.contains(&pair.0) && s.commits.contains(&pair.1))
        {
            reports.insert(i);
        }
    }
    let mut out: Vec<(usize, String)> = Vec::new();
    for r in reports {
        for n in idx.reports.get(r).map(|r| r.notes.as_slice()).unwrap_or_default() {
            if !out.iter().any(|(_, m)| m == n) {
                out.push((r, n.clone()));
            }
        }
    }
    out
}

fn side_text(s: &Option<Side>) -> String {
    match s {
        None => "—".into(),
        Some(s) => match s.stddev_pct {
            Some(p) => format!("{} ± {p:.0}%", format_value(s.mean)),
            None => format_value(s.mean),
        },
    }
}

fn bar(o: &mut Html, side: &Option<Side>, class: &str, max: f64) {
    let Some(s) = side else {
        // Not measured: an empty slot keeps base left and head right.
        put!(o, "<div class=\"bar {} missing\" title=\"{}: not in the report\"></div>", class, class);
        return;
    };
    put!(
        o,
        "<div class=\"bar {}\" style=\"height:{}%\" title=\"{} {}\">",
        class,
        format!("{:.2}", height(s.mean, max)),
        class,
        format_value(s.mean)
    );
    let n = s.values.len().max(1);
    for (i, v) in s.values.iter().enumerate() {
        put!(
            o,
            "<span class=\"run\" style=\"bottom:{}%;left:{}%\" title=\"{} run {}: {}\"></span>",
            format!("{:.2}", height(*v, max)),
            15 + i * 70 / n,
            class,
            i + 1,
            format_value(*v)
        );
    }
    o.lit("</div>");
}

/// The figure: one column per bin (base and head bars, runs as dots), a key, and the numbers as
/// a table with the change as the mails print it.
pub fn figure_html(d: &Dist) -> Html {
    let mut o = Html::new();
    put!(
        o,
        "<div class=\"dist-chart\" data-testid=\"dist-chart\" role=\"img\" tabindex=\"0\" aria-label=\"histogram of {}\">",
        d.prefix
    );
    for r in &d.rows {
        o.lit("<div class=\"dist-bin\"><div class=\"bars\">");
        bar(&mut o, &r.base, "base", d.max);
        bar(&mut o, &r.head, "head", d.max);
        put!(o, "</div><div class=\"bin-label\">{}</div></div>", r.bin.label);
    }
    let runs =
        d.rows.iter().any(|r| [&r.base, &r.head].iter().any(|s| s.as_ref().is_some_and(|s| !s.values.is_empty())));
    put!(
        o,
        "</div><div class=\"dist-key\"><span class=\"key base\"></span> base <span class=\"key head\"></span> head{} \
         · bars scaled to the largest value ({}) · bins the report does not print are missing, not zero</div>\
         <table class=\"compare-table dist-table\"><thead><tr><th class=\"metric\">bin</th><th class=\"num\">base ± %stddev</th>\
         <th class=\"num\">change</th><th class=\"num\">head ± %stddev</th></tr></thead><tbody>",
        if runs { " · dots: single runs" } else { "" },
        format_value(d.max)
    );
    for r in &d.rows {
        let mean = |s: &Option<Side>| s.as_ref().map(|s| format_value(s.mean)).unwrap_or_default();
        put!(
            o,
            "<tr data-testid=\"dist-row\" data-metric=\"{}\" data-base=\"{}\" data-head=\"{}\" class=\"dir-{}\">\
             <td class=\"metric\">{}</td><td class=\"num\">{}</td><td class=\"num change\">{}</td><td class=\"num\">{}</td></tr>",
            r.bin.metric,
            mean(&r.base),
            mean(&r.head),
            r.direction.as_str(),
            r.bin.metric,
            side_text(&r.base),
            r.change_text,
            side_text(&r.head),
        );
    }
    o.lit("</tbody></table>");
    o
}

/// The notes beside the figure, each with the report it is on.
pub fn notes_html(idx: &Index, notes: &[(usize, String)]) -> Html {
    let mut o = Html::new();
    if notes.is_empty() {
        return o;
    }
    o.lit("<aside class=\"dist-notes\" data-testid=\"dist-notes\"><h2>Notes on this report</h2><ul>");
    for (r, n) in notes {
        put!(o, "<li><blockquote class=\"note\">{}</blockquote><span class=\"meta\">on ", n);
        if let Some(rep) = idx.reports.get(*r) {
            let mut from = Html::new();
            from.text(rep.subject.as_deref().unwrap_or(&rep.source));
            link(&mut o, rep.url.as_deref(), "", &from);
        }
        o.lit("</span></li>");
    }
    o.lit("</ul></aside>");
    o
}

/// The job and pair pickers (named for `apply_control`): `jobs` offered, `commits` with data.
pub fn controls_html(cat: &Catalog, jobs: &[usize], job: usize, commits: &[u32], pair: Option<(u32, u32)>) -> Html {
    let idx = &cat.index;
    let mut o = Html::new();
    o.lit("<label class=\"job-pick\">job ");
    let job_opts: Vec<(String, String)> =
        jobs.iter().map(|&j| (idx.jobs[j].id.clone(), Catalog::describe_job(&idx.jobs[j]))).collect();
    select(&mut o, "job", "dist-job", &job_opts, &idx.jobs[job].id);
    let commit_opts: Vec<(String, String)> = commits
        .iter()
        .map(|&c| {
            let commit = &idx.commits[c as usize];
            let mut label = commit.short().to_string();
            if let Some(s) = &commit.subject {
                label.push(' ');
                label.extend(s.chars().take(70));
            }
            (commit.id.clone(), label)
        })
        .collect();
    let id = |c: Option<u32>| c.map(|c| idx.commits[c as usize].id.clone()).unwrap_or_default();
    o.lit("</label><div class=\"pair\"><label>base ");
    select(&mut o, "base", "dist-base", &commit_opts, &id(pair.map(|p| p.0)));
    o.lit("</label><label>head ");
    select(&mut o, "head", "dist-head", &commit_opts, &id(pair.map(|p| p.1)));
    o.lit("</label></div>");
    o
}

/// The whole distribution view: pickers, caption, figure and notes. `shard` is the job's.
pub fn page_html(cat: &Catalog, s: &ViewState, shard: &JobShard, job: usize, prefix: &str) -> Html {
    let idx = &cat.index;
    let (commits, pair) = selection(cat, s, shard, job, prefix);
    let mut jobs = crate::facets::matching_jobs(&idx.jobs, s);
    if !jobs.contains(&job) {
        jobs.insert(0, job);
    }
    let mut o = Html::new();
    put!(
        o,
        "<div class=\"compare-controls\">{}<button class=\"link\" data-act=\"{}\">all metrics of this pair (compare)</button></div>",
        controls_html(cat, &jobs, job, &commits, pair)
    ,
        Act::Compare);
    let dist = pair.map(|p| bins(cat, shard, prefix, p));
    match (dist, pair) {
        (Some(d), Some(p)) if !d.rows.is_empty() => {
            let short = |c: u32| idx.commits[c as usize].short().to_string();
            put!(
                o,
                "<p class=\"compare-summary\" data-testid=\"dist-caption\">{} bins of {} · base {} → head {}</p>\
                 <p class=\"dist-export\">Export: <button class=\"export\" data-act=\"{}\" data-testid=\"dist-csv\">CSV</button> \
                 <button class=\"export\" data-act=\"{}\" data-testid=\"dist-svg\">SVG</button> \
                 <button class=\"export\" data-act=\"{}\" data-testid=\"dist-png\">PNG</button></p>\
                 <div class=\"dist-body\"><div class=\"dist-figure\">{}</div>{}</div>",
                d.rows.len(),
                prefix,
                short(p.0),
                short(p.1),
                Act::Csv,
                Act::Svg,
                Act::Png,
                figure_html(&d),
                notes_html(idx, &notes(idx, &d, job, p))
            );
        }
        _ => {
            put!(
                o,
                "<p class=\"hint\" data-testid=\"dist-hint\">This job has no {} bins at these commits. Pick another job or pair.</p>",
                prefix
            );
        }
    }
    o
}

/// The commits the pickers offer and the pair shown (the state's, completed by the job's default).
fn selection(
    cat: &Catalog,
    s: &ViewState,
    shard: &JobShard,
    job: usize,
    prefix: &str,
) -> (Vec<u32>, Option<(u32, u32)>) {
    let commits = commits(shard, prefix);
    let pos = |c: &Option<String>| c.as_deref().and_then(|c| cat.commit_pos(c)).map(|c| c as u32);
    let pair = pair(cat, job, &commits, pos(&s.base), pos(&s.head));
    (commits, pair)
}

/// The distribution the view shows (for its exports): the pair and its bins, if it has any.
pub fn shown(cat: &Catalog, s: &ViewState, shard: &JobShard, job: usize, prefix: &str) -> Option<((u32, u32), Dist)> {
    let (_, pair) = selection(cat, s, shard, job, prefix);
    let p = pair?;
    let d = bins(cat, shard, prefix, p);
    (!d.rows.is_empty()).then_some((p, d))
}

/// The family's bins at `pair`, in the catalog's metric directions.
fn bins(cat: &Catalog, shard: &JobShard, prefix: &str, pair: (u32, u32)) -> Dist {
    build(shard, prefix, pair.0, pair.1, |m| cat.direction(m))
}

/// Size of `figure_svg`'s drawing for `d`: at least 64 px per bin, at least 720 px wide.
pub fn svg_size(d: &Dist) -> (u32, u32) {
    ((SVG_LEFT as u32 + 64 * d.rows.len().max(1) as u32 + 20).max(720), 350)
}

const SVG_LEFT: f64 = 56.0;
const SVG_TOP: f64 = 56.0;
const SVG_PLOT: f64 = 210.0;

/// The figure as a standalone SVG document (light colours, like a printed page): per bin the base
/// and head bars, their runs as dots, the bin's label; a title naming the family and the pair, a
/// key, and the scale. Everything from the data is escaped by `Html`.
pub fn figure_svg(d: &Dist, title: &str, subtitle: &str) -> Html {
    let (w, h) = svg_size(d);
    let mut o = Html::new();
    put!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" \
         font-family=\"sans-serif\" font-size=\"11\"><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\
         <text x=\"{}\" y=\"20\" font-size=\"13\" font-weight=\"bold\" fill=\"#222222\">{}</text>\
         <text x=\"{}\" y=\"36\" fill=\"#444444\">{}</text>",
        w,
        h,
        w,
        h,
        SVG_LEFT as u32,
        title,
        SVG_LEFT as u32,
        subtitle
    );
    let bottom = SVG_TOP + SVG_PLOT;
    put!(
        o,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999999\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#444444\">{}</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#444444\">0</text>",
        SVG_LEFT as u32 - 4,
        SVG_TOP as u32,
        w - 20,
        SVG_TOP as u32,
        SVG_LEFT as u32 - 8,
        SVG_TOP as u32 + 4,
        format_value(d.max),
        SVG_LEFT as u32 - 8,
        bottom as u32 + 4
    );
    let col = (f64::from(w) - SVG_LEFT - 20.0) / d.rows.len().max(1) as f64;
    for (i, r) in d.rows.iter().enumerate() {
        let x = SVG_LEFT + col * i as f64;
        let bar = (col * 0.36).min(40.0);
        svg_bar(&mut o, &r.base, x + col / 2.0 - bar - 2.0, bar, d.max, "#9fb6cd", "base");
        svg_bar(&mut o, &r.head, x + col / 2.0 + 2.0, bar, d.max, "#f28e2b", "head");
        put!(
            o,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#222222\">{}</text>",
            format!("{:.1}", x + col / 2.0),
            bottom as u32 + 16,
            r.bin.label
        );
    }
    put!(
        o,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#555555\"/>\
         <rect x=\"{}\" y=\"300\" width=\"12\" height=\"12\" fill=\"#9fb6cd\"/><text x=\"{}\" y=\"310\" fill=\"#222222\">base</text>\
         <rect x=\"{}\" y=\"300\" width=\"12\" height=\"12\" fill=\"#f28e2b\"/><text x=\"{}\" y=\"310\" fill=\"#222222\">head</text>\
         <text x=\"{}\" y=\"334\" fill=\"#444444\">bins the report does not print are missing, not zero</text></svg>",
        SVG_LEFT as u32 - 4,
        bottom as u32,
        w - 20,
        bottom as u32,
        SVG_LEFT as u32,
        SVG_LEFT as u32 + 16,
        SVG_LEFT as u32 + 60,
        SVG_LEFT as u32 + 76,
        SVG_LEFT as u32
    );
    o
}

/// One side's bar (`width` px at `x`) with a title, and its runs as dots.
fn svg_bar(o: &mut Html, side: &Option<Side>, x: f64, width: f64, max: f64, fill: &'static str, class: &'static str) {
    let Some(s) = side else { return };
    let px = |v: f64| SVG_PLOT * height(v, max) / 100.0;
    let bottom = SVG_TOP + SVG_PLOT;
    let hgt = px(s.mean);
    put!(
        o,
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} {}</title></rect>",
        class,
        format!("{x:.1}"),
        format!("{:.1}", bottom - hgt),
        format!("{width:.1}"),
        format!("{hgt:.1}"),
        fill,
        class,
        side_text(side)
    );
    for v in &s.values {
        put!(
            o,
            "<circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"#333333\"/>",
            format!("{:.1}", x + width / 2.0),
            format!("{:.1}", bottom - px(*v))
        );
    }
}

/// Apply a picker of `controls_html`: another job starts from its default pair.
pub fn apply_control(s: &mut ViewState, name: &str, value: &str) -> bool {
    let v = Some(value.to_string()).filter(|v| !v.is_empty());
    match name {
        "job" => {
            s.job = v;
            s.base = None;
            s.head = None;
        }
        "base" => s.base = v,
        "head" => s.head = v,
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::tests::sample_index;
    use model::{Points, SectionMeta, SeriesData};
    use render::chart::testing::series;

    #[test]
    fn bins_parse() {
        let bin = |m: &str| parse_bin(m).map(|(p, b)| (p.to_string(), b.label, b.ns, b.open));
        assert_eq!(bin("fio.latency_2ms%"), Some(("fio.latency".into(), "2ms".into(), 2e6, false)));
        assert_eq!(bin("fio.latency_750us%"), Some(("fio.latency".into(), "750us".into(), 750e3, false)));
        assert_eq!(bin("fio.latency_10ns%"), Some(("fio.latency".into(), "10ns".into(), 10.0, false)));
        assert_eq!(bin("fio.latency_2s%"), Some(("fio.latency".into(), "2s".into(), 2e9, false)));
        assert_eq!(bin("fio.latency_0.5ms%"), Some(("fio.latency".into(), "0.5ms".into(), 5e5, false)));
        assert_eq!(bin("fio.latency_>=2000ms%"), Some(("fio.latency".into(), ">=2000ms".into(), 2e9, true)));
        for no in [
            "fio.latency_2ms",
            "mpstat.cpu.all.idle%",
            "fio.latency_ms%",
            "fio.latency_2xs%",
            "_2ms%",
            "fio.latency_2m%",
            "fio.latency_-2ms%",
            "fio.latency_1.2.3ms%",
            "perf-stat.ratio_2s%x",
        ] {
            assert_eq!(parse_bin(no), None, "{no}");
        }
    }

    #[test]
    fn families_need_two_bins() {
        let ms = ["fio.latency_2ms%", "fio.latency_4ms%", "x.lat_1us%", "fio.write_iops", "fio.latency_2ms%"];
        assert_eq!(families(ms), ["fio.latency".to_string()].into());
        let mut idx = sample_index();
        assert!(!is_histogram_metric(&idx, "fio.latency_2ms%"));
        for m in ["fio.latency_2ms%", "fio.latency_4ms%"] {
            idx.metrics.push(model::MetricInfo { name: m.into(), ..Default::default() });
        }
        assert!(is_histogram_metric(&idx, "fio.latency_2ms%"));
        assert!(!is_histogram_metric(&idx, "fio.write_bw_MBps"));
    }

    /// A bin measured at 19 and 20 with the change the report printed (from unrounded means).
    fn bin_series(metric: &str, base: f64, head: f64) -> SeriesData {
        let stated = match metric {
            "fio.latency_2ms%" => 7.1,
            _ => ((head - base) * 10.0).round() / 10.0,
        };
        let mut s = series(0, &[(19, Some(base), Some(3.0), None), (20, Some(head), None, Some(stated))]);
        s.metric = metric.into();
        s.points.base = vec![None, Some(19)];
        s
    }

    /// The seed fio report: the 4ms bin lost what the 2ms bin gained.
    fn seed() -> JobShard {
        JobShard {
            schema: 1,
            job: "j".into(),
            series: vec![
                bin_series("fio.latency_100ms%", 8.19, 8.4),
                bin_series("fio.latency_250ms%", 0.74, 0.68),
                bin_series("fio.latency_2ms%", 46.56, 53.61),
                bin_series("fio.latency_4ms%", 25.2, 17.86),
                bin_series("fio.latency_750us%", 0.46, 0.69),
                bin_series("fio.write_iops", 1000.0, 990.0),
                bin_series("fio.latency_>=2000ms%", 0.0, 0.01),
            ],
        }
    }

    #[test]
    fn seed_distribution_in_bin_order() {
        let d = build(&seed(), "fio.latency", 19, 20, |_| -1);
        let labels: Vec<&str> = d.rows.iter().map(|r| r.bin.label.as_str()).collect();
        assert_eq!(labels, ["750us", "2ms", "4ms", "100ms", "250ms", ">=2000ms"]);
        let two = &d.rows[1];
        assert_eq!((two.base.as_ref().unwrap().mean, two.head.as_ref().unwrap().mean), (46.56, 53.61));
        assert_eq!(two.change_text, "+7.1", "as the report printed it");
        assert_eq!(two.direction, Direction::Regression, "more of a lower-is-better bin");
        assert_eq!(d.rows[2].change_text, "-7.3");
        assert_eq!(d.max, 53.61);
        assert_eq!(height(53.61, d.max), 100.0);
        assert!((height(25.2, d.max) - 47.0).abs() < 0.1);
        assert_eq!(height(f64::NAN, 1.0), 0.0);
        assert_eq!(height(5.0, 0.0), 0.0);
        assert_eq!(d.reports, [0].into());
        assert_eq!(commits(&seed(), "fio.latency"), [19, 20]);
        // A commit outside the pair: only what was measured there.
        assert!(build(&seed(), "fio.latency", 1, 2, |_| 0).rows.is_empty());
    }

    #[test]
    fn per_run_values_are_kept_and_scale_the_bars() {
        let mut shard = seed();
        let p: &mut Points = &mut shard.series[2].points;
        p.values = vec![vec![40.0, 50.0, 49.7], vec![52.0, 60.0, 48.83]];
        let d = build(&shard, "fio.latency", 19, 20, |_| 0);
        assert_eq!(d.rows[1].head.as_ref().unwrap().values, [52.0, 60.0, 48.83]);
        assert_eq!(d.rows[2].head.as_ref().unwrap().values, Vec::<f64>::new());
        assert_eq!(d.max, 60.0, "a run above every mean sets the scale");
    }

    #[test]
    fn figure_and_controls_html() {
        let mut shard = seed();
        shard.series[2].points.values = vec![vec![40.0, 50.0], vec![52.0, 55.0]];
        let d = build(&shard, "fio.latency", 19, 20, |_| -1);
        let h = figure_html(&d).into_string();
        assert_eq!(h.matches("class=\"dist-bin\"").count(), 6);
        for part in [
            "data-metric=\"fio.latency_2ms%\" data-base=\"46.56\" data-head=\"53.61\"",
            "data-metric=\"fio.latency_4ms%\" data-base=\"25.20\" data-head=\"17.86\"",
            "<td class=\"num\">46.56 ± 3%</td><td class=\"num change\">+7.1</td><td class=\"num\">53.61</td>",
            "fio.latency_&gt;=2000ms%",
            "<div class=\"bin-label\">&gt;=2000ms</div>",
            "class=\"bar head\" style=\"height:97.47%\"",
            "class=\"run\" style=\"bottom:100.00%;left:50%\" title=\"head run 2: 55.00\"",
            "dots: single runs",
        ] {
            assert!(h.contains(part), "{part} in {h}");
        }
        let mut idx = sample_index();
        idx.reports[0].notes = vec!["This is <not> a regression.".into()];
        let n = notes_html(&idx, &[(0, idx.reports[0].notes[0].clone())]).into_string();
        assert!(n.contains("<blockquote class=\"note\">This is &lt;not&gt; a regression.</blockquote>"), "{n}");
        assert!(n.contains("href=\"https://lore.kernel.org/all/x@intel.com/\""), "{n}");
        assert_eq!(notes_html(&idx, &[]).as_str(), "");

        let cat = Catalog::new(sample_index());
        let c = controls_html(&cat, &[0, 1], 1, &[0, 1], Some((0, 1))).into_string();
        assert!(c.contains(&format!("<option value=\"{}\" selected>blogbench", cat.index.jobs[1].id)), "{c}");
        assert!(c.contains("name=\"head\""), "{c}");
        let mut s = crate::state::ViewState { base: Some("a".into()), head: Some("b".into()), ..Default::default() };
        assert!(apply_control(&mut s, "head", "c"));
        assert_eq!(s.head.as_deref(), Some("c"));
        assert!(apply_control(&mut s, "job", "j"));
        assert_eq!((s.job.as_deref(), s.base.clone(), s.head.clone()), (Some("j"), None, None));
        assert!(!apply_control(&mut s, "x", ""));
    }

    #[test]
    fn the_figure_as_an_svg_document() {
        let mut shard = seed();
        shard.series[2].points.values = vec![vec![40.0, 50.0], vec![52.0, 55.0]];
        let d = build(&shard, "fio.latency", 19, 20, |_| -1);
        let svg = figure_svg(&d, "fio.latency · base a → head b", "<job>").into_string();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
        assert!(svg.ends_with("</svg>"));
        let (w, h) = svg_size(&d);
        assert!(svg.contains(&format!("width=\"{w}\" height=\"{h}\"")), "{svg}");
        // one bar per measured side (each of the 6 bins has both), the runs of the one bin with runs
        assert_eq!(svg.matches("<rect class=\"base\"").count(), 6);
        assert_eq!(svg.matches("<rect class=\"head\"").count(), 6);
        assert_eq!(svg.matches("<circle ").count(), 4);
        // the largest value (a run, 55) is at the top of the plot, the scale says it; XML escaped
        assert!(svg.contains("cy=\"56.0\" r=\"2.5\""), "{svg}");
        assert!(svg.contains(">55.00</text>"), "{svg}");
        assert!(svg.contains("<title>head 53.61</title>"), "{svg}");
        assert!(svg.contains(">&gt;=2000ms</text>"), "{svg}");
        assert!(svg.contains(">fio.latency · base a → head b</text>"), "{svg}");
        assert!(svg.contains(">&lt;job&gt;</text>"), "{svg}");
        assert!(!svg.contains("<job>"));
    }

    #[test]
    fn the_bins_as_csv() {
        let idx = sample_index();
        let mut shard = seed();
        shard.series[2].points.values = vec![vec![40.0, 50.0], vec![52.0, 55.0]];
        let d = build(&shard, "fio.latency", 19, 20, |_| -1);
        let csv = crate::export::dist_csv(&idx, &d, (0, 1));
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 1 + 6, "{csv}");
        assert!(lines[0].starts_with("bin,metric,base_commit,base_mean,base_stddev_pct,base_runs,head_commit"));
        let (b, h) = (&idx.commits[0].id, &idx.commits[1].id);
        assert_eq!(lines[2], format!("2ms,fio.latency_2ms%,{b},46.56,3,40 50,{h},53.61,,52 55,7.1,regression"));
        assert!(lines[6].starts_with(">=2000ms,fio.latency_>=2000ms%,"), "{}", lines[6]);
    }

    #[test]
    fn whole_page() {
        let cat = Catalog::new(sample_index());
        let mut shard = seed();
        for s in &mut shard.series {
            s.points.commit = vec![0, 1];
            s.points.base = vec![None, Some(0)];
        }
        let s = ViewState::default();
        let h = page_html(&cat, &s, &shard, 0, "fio.latency").into_string();
        assert!(h.contains("6 bins of fio.latency · base 4df0f7f145aa → head 19957a1816bb"), "{h}");
        assert!(h.contains("data-act=\"compare\""));
        let h = page_html(&cat, &s, &shard, 0, "x.lat").into_string();
        assert!(h.contains("This job has no x.lat bins"), "{h}");
    }

    #[test]
    fn pairs_and_notes() {
        let cat = Catalog::new(sample_index());
        assert_eq!(pair(&cat, 0, &[0, 1, 2], None, None), Some((0, 1)));
        assert_eq!(pair(&cat, 0, &[0, 1, 2], Some(2), None), Some((2, 1)));
        assert_eq!(pair(&cat, 0, &[0, 1, 2], Some(1), Some(0)), Some((1, 0)));
        assert_eq!(pair_from_commit(&cat.index, 0, Some(1)), Some((0, 1)));
        assert_eq!(pair_from_commit(&cat.index, 0, Some(0)), None, "the base itself");
        assert_eq!(pair_from_commit(&cat.index, 1, Some(1)), None, "another job");
        assert_eq!(pair_from_commit(&cat.index, 0, None), None);

        let mut idx = sample_index();
        idx.reports[0].notes = vec!["This is not a regression.".into()];
        idx.reports.push(model::ReportMeta {
            id: "r2".into(),
            notes: vec!["This is not a regression.".into(), "other job".into()],
            sections: vec![SectionMeta { job: Some(1), commits: vec![0, 1], rows: 1, machine: None }],
            ..Default::default()
        });
        let d = Dist { prefix: "p".into(), rows: vec![], max: 1.0, reports: BTreeSet::new() };
        assert_eq!(notes(&idx, &d, 0, (0, 1)), [(0, "This is not a regression.".to_string())]);
        assert_eq!(notes(&idx, &d, 0, (1, 2)), []);
        let d = Dist { reports: [1].into(), ..d };
        assert_eq!(notes(&idx, &d, 0, (1, 2)).len(), 2, "the reports of the numbers count too");
    }
}
