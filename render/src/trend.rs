//! A testcase's trend on its static page: the chart the app draws on its canvas (`chart`,
//! `draw`), written as inline SVG with the page, so the first chart shows with the HTML. Its own
//! colours are the light theme's; the page's style maps them to the reader's theme
//! (`.trend-svg [fill="#FFFFFF"]` …), so one SVG serves both. Its legend and a link to the same
//! trend in the explorer follow it.

use crate::chart::{build, css, legend, LIGHT};
use crate::html::Html;
use crate::put;
use model::{Index, SeriesData};

/// The drawn chart's size in CSS pixels (the app's canvas is as high; the page scales the SVG to
/// its width).
pub const WIDTH: f64 = 960.0;
pub const HEIGHT: f64 = 380.0;

/// Series the page's legend names (in job order); the app's legend names them all.
pub const LEGEND: usize = 24;

/// Where a testcase's page holds its trend (`of_page`), marked with the version of its drawing:
/// a page drawn otherwise (by an older `lkpx`) is not read back but drawn again.
const OPEN: &str = "<!--trend 1-->";
const CLOSE: &str = "<!--/trend-->";

/// The trend a testcase's page (`page::list_page`) shows, read back from the page: what an
/// incremental import keeps of a testcase it did not rebuild (`None` for a page of another
/// drawing's version).
pub fn of_page(page: &str) -> Option<Html> {
    let r = crate::page::between(page, OPEN, CLOSE)?;
    Some(Html::made(format!("{OPEN}{}{CLOSE}", &page[r])))
}

/// The metric a testcase's page draws (`cat`: its catalog): its most reported headline metric,
/// else its first KPI, else none.
pub fn metric_of(cat: &Index) -> Option<&str> {
    let t = cat.testcases.first()?;
    t.headline_metrics
        .first()
        .map(String::as_str)
        .or_else(|| cat.metrics.iter().find(|m| m.kpi).map(|m| m.name.as_str()))
}

/// The figure of a testcase's page (`cat`: its catalog; `series`: any of its series, those of
/// `metric_of` among them): `figure` of that metric.
pub fn of_testcase(cat: &Index, series: &[&SeriesData]) -> Option<Html> {
    figure(cat, metric_of(cat)?, series)
}

/// The trend of `metric` over `series` (each job's series of it, any order; positions in `cat`)
/// as the page's figure: the chart of every series with data, as the app's trend of that testcase
/// and metric shows it, its legend and the link to that trend. `None` when no series has data.
pub fn figure(cat: &Index, metric: &str, series: &[&SeriesData]) -> Option<Html> {
    // (a series whose columns differ in length is a damaged file's, which `lkpx check` names)
    let drawable =
        |s: &SeriesData| s.metric == metric && !s.points.is_ragged() && s.points.mean.iter().any(|m| m.is_some());
    let mut shown: Vec<&SeriesData> = series.iter().copied().filter(|s| drawable(s)).collect();
    shown.sort_by_key(|s| s.job);
    shown.dedup_by_key(|s| s.job);
    let tc = cat.testcases.first()?;
    if shown.is_empty() {
        return None;
    }
    let weight = cat.metrics.iter().find(|m| m.name == metric).map_or(0, |m| m.direction);
    let quiet = |r: u32| cat.reports.get(r as usize).is_some_and(|r| r.omits_small_stddev());
    let data = build(&shown, weight, (None, None), &quiet);
    let labels: Vec<String> =
        data.slots.iter().map(|&c| cat.commits.get(c as usize).map_or("", |c| c.short()).to_string()).collect();
    // (an opacity of 1 is the default: said 5,000 times in a large chart)
    let svg = crate::draw::svg(&data, &labels, None, WIDTH, HEIGHT, &LIGHT).replace(" opacity=\"1\"", "");
    let jobs: Vec<&model::Job> = shown.iter().map(|s| cat.jobs.get(s.job as usize)).collect::<Option<_>>()?;
    let names = legend(&jobs);
    let mut out = Html::with_capacity(svg.len() + 256 * shown.len());
    out.lit(OPEN);
    put!(
        out,
        "<figure class=\"trend-svg\" data-testid=\"static-trend\" data-metric=\"{}\" data-series=\"{}\" data-points=\"{}\">\
         <figcaption><b>{}</b>: {} commits, {} series · <a href=\"?testcase={}&amp;metric={}\">explore this trend</a></figcaption>\
         <div role=\"img\" aria-label=\"trend chart of {}\">",
        metric,
        shown.len(),
        data.points(),
        metric,
        data.slots.len(),
        shown.len(),
        model::paths::query_value(&tc.name),
        model::paths::query_value(metric),
        metric
    );
    out.html(&Html::made(svg));
    out.lit("</div><ul class=\"legend\">");
    for ((s, label), job) in data.series.iter().zip(&names.labels).zip(&jobs).take(LEGEND) {
        put!(out, "<li title=\"{}\"><i style=\"background:{}\"></i>{}</li>", job.id, css(s.color), label);
    }
    if let Some(more) = shown.len().checked_sub(LEGEND).filter(|&n| n > 0) {
        put!(out, "<li>and {} more series (explore this trend)</li>", more);
    }
    out.lit("</ul>");
    if !names.common.is_empty() {
        out.lit("<p class=\"hint\">All: ");
        for (i, (k, v)) in names.common.iter().enumerate() {
            put!(out, "{}{}={}", if i == 0 { "" } else { " " }, k, v);
        }
        out.lit("</p>");
    }
    out.lit("</figure>").lit(CLOSE);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::testing::series;
    use model::{Commit, Job, MetricInfo, TestcaseInfo};

    fn catalog(headlines: &[&str]) -> Index {
        let job =
            |m: &str| Job { id: format!("j-{m}"), testcase: "fsmark".into(), machine: m.into(), ..Default::default() };
        let metric = |name: &str, kpi: bool| MetricInfo { name: name.into(), direction: 1, kpi, ..Default::default() };
        Index {
            commits: ["4df0f7f145aa99", "19957a1816bb00"]
                .iter()
                .map(|c| Commit { id: c.to_string(), ..Default::default() })
                .collect(),
            jobs: vec![job("lkp-a"), job("lkp-b")],
            metrics: vec![metric("fsmark.app_overhead", false), metric("fsmark.files_per_sec", true)],
            testcases: vec![TestcaseInfo {
                name: "fsmark".into(),
                headline_metrics: headlines.iter().map(|h| h.to_string()).collect(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn named(mut s: SeriesData, metric: &str) -> SeriesData {
        s.metric = metric.into();
        s
    }

    /// The page draws the metric the app's trend of the testcase shows first: its most reported
    /// headline metric, else its first KPI; every series of it with a value, none without.
    #[test]
    fn a_testcase_page_draws_its_headline_metric_else_its_first_kpi() {
        assert_eq!(metric_of(&catalog(&["fsmark.app_overhead"])), Some("fsmark.app_overhead"));
        assert_eq!(metric_of(&catalog(&[])), Some("fsmark.files_per_sec"));
        let cat = catalog(&[]);
        let a = named(
            series(1, &[(0, Some(10702.0), Some(3.0), None), (1, Some(9000.0), None, Some(-15.9))]),
            "fsmark.files_per_sec",
        );
        let b = named(series(0, &[(1, Some(5.0), None, None)]), "fsmark.files_per_sec");
        let empty = named(series(0, &[(0, None, None, None)]), "fsmark.app_overhead");
        let other = named(series(0, &[(0, Some(1.0), None, None)]), "fsmark.app_overhead");
        let fig = of_testcase(&cat, &[&a, &empty, &b, &other]).expect("a figure").into_string();
        assert!(fig.contains("data-metric=\"fsmark.files_per_sec\" data-series=\"2\" data-points=\"3\""), "{fig}");
        assert!(fig.contains("href=\"?testcase=fsmark&amp;metric=fsmark.files_per_sec\""), "the same trend in the app");
        assert!(fig.contains("4df0f7f145aa") && fig.contains("19957a1816bb"), "the commits' short ids label the slots");
        // series in job order, coloured as the app colours them
        let (first, second) = (fig.find("title=\"j-lkp-a\"").unwrap(), fig.find("title=\"j-lkp-b\"").unwrap());
        assert!(first < second && fig.contains("#1f77b4") && fig.contains("#ff7f0e"), "{fig}");
        assert_eq!(of_testcase(&catalog(&["fsmark.app_overhead"]), &[&empty]), None, "no value, no chart");
    }

    /// A testcase of many jobs: every series drawn, the legend names the first `LEGEND` and counts
    /// the others.
    #[test]
    fn the_legend_names_the_first_series_and_counts_the_others() {
        let mut cat = catalog(&[]);
        cat.jobs = (0..30)
            .map(|i| Job {
                id: format!("j{i}"),
                testcase: "fsmark".into(),
                machine: format!("m{i}"),
                ..Default::default()
            })
            .collect();
        let all: Vec<SeriesData> = (0..30)
            .map(|j| named(series(j, &[(0, Some(1.0 + j as f64), None, None)]), "fsmark.files_per_sec"))
            .collect();
        let fig = of_testcase(&cat, &all.iter().collect::<Vec<_>>()).unwrap().into_string();
        assert!(fig.contains("data-series=\"30\" data-points=\"30\""), "{fig}");
        assert_eq!(fig.matches("<li title=").count(), LEGEND);
        assert!(fig.contains("<li>and 6 more series (explore this trend)</li>"), "{fig}");
    }

    /// A page written with a figure gives it back as it was (what `--into` keeps of a testcase it
    /// did not rebuild).
    #[test]
    fn a_testcase_pages_trend_reads_back_as_it_was_written() {
        let a = named(
            series(0, &[(0, Some(1.0), Some(2.0), None), (1, Some(2.0), Some(2.0), Some(100.0))]),
            "fsmark.files_per_sec",
        );
        let fig = of_testcase(&catalog(&[]), &[&a]).unwrap();
        let page = crate::page::list_page("fsmark", "tc/fsmark", None, 0, &[], Some(&fig)).into_string();
        assert_eq!(of_page(&page), Some(fig));
        let bare = crate::page::list_page("fsmark", "tc/fsmark", None, 0, &[], None).into_string();
        assert_eq!(of_page(&bare), None);
        let older = page.replace(OPEN, "<!--trend-->");
        assert_eq!(of_page(&older), None, "a figure of another drawing's version is drawn again");
    }

    /// A damaged chunk's series (columns of different lengths) is left out, not drawn.
    #[test]
    fn a_series_of_uneven_columns_is_left_out() {
        let good = named(series(0, &[(0, Some(1.0), None, None)]), "fsmark.files_per_sec");
        let mut bad =
            named(series(1, &[(0, Some(2.0), None, None), (1, Some(3.0), None, None)]), "fsmark.files_per_sec");
        bad.points.report.pop();
        let fig = of_testcase(&catalog(&[]), &[&good, &bad]).unwrap().into_string();
        assert!(fig.contains("data-series=\"1\" data-points=\"1\""), "{fig}");
        assert_eq!(of_testcase(&catalog(&[]), &[&bad]), None);
    }

    /// The chart's own colours (the light theme's) are those the page's style maps to the
    /// reader's theme: the SVG reads in dark mode too.
    #[test]
    fn every_colour_of_the_charts_own_is_mapped_to_the_pages_theme() {
        let css = include_str!("../../style/page.css");
        let mapped = |attr: &str, c: crate::chart::Rgb| {
            let hex = crate::chart::css(c).trim_start_matches('#').to_uppercase();
            css.contains(&format!(".trend-svg [{attr}=\"#{hex}\"]"))
        };
        assert!(mapped("fill", LIGHT.bg) && mapped("stroke", LIGHT.point_edge), "the background and the points' edge");
        assert!(mapped("fill", LIGHT.axis) && mapped("stroke", LIGHT.axis), "the axes and their labels");
        assert!(mapped("stroke", LIGHT.grid), "the grid");
    }
}
