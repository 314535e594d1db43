//! Draws a laid-out trend chart with plotters onto any backend: a `<canvas>` in the browser,
//! an SVG string in native tests. All positions come from `chart::Geometry`, so what is drawn
//! and what hit-testing finds are the same points.

use crate::chart::{band_pieces, mark_color, runs, ChartData, Geometry, Rgb, Theme};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Band opacity where the report printed the stddev, and where it left a `± ≤ 2 %` unprinted.
const BAND_STATED: f64 = 0.18;
const BAND_IMPLIED: f64 = 0.07;

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

fn p(x: f64, y: f64) -> (i32, i32) {
    (x.round() as i32, y.round() as i32)
}

/// The chart as an SVG document (the trend's "SVG" export), `width` × `height` CSS pixels: the
/// same layout and drawing as the canvas, at scale 1.
pub fn svg(
    data: &ChartData,
    labels: &[String],
    selected: Option<usize>,
    width: f64,
    height: f64,
    theme: &Theme,
) -> String {
    let size = crate::chart::Size { width: width.round(), height: height.round(), scale: 1.0 };
    let geo = Geometry::layout(data, labels, size);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (size.width as u32, size.height as u32)).into_drawing_area();
        // a drawing error leaves a partial chart, as on the canvas
        let _ = draw(&root, data, &geo, labels, selected, theme);
    }
    out
}

/// Draw `data` laid out by `geo`; `labels` are the x labels per slot, `selected` the slot of
/// the selected commit (highlighted column), in the colours of `theme` (light or dark).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    geo: &Geometry,
    labels: &[String],
    selected: Option<usize>,
    theme: &Theme,
) -> DrawResult<DB> {
    root.fill(&rgb(theme.bg))?;
    if data.slots.is_empty() {
        let axis = rgb(theme.axis);
        let font = ("sans-serif", geo.font).into_font();
        let style = TextStyle::from(font).color(&axis).pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new("no data for this selection", p(geo.size.width / 2.0, geo.size.height / 2.0), style))?;
        return Ok(());
    }
    draw_frame(root, data, geo, labels, selected, theme)?;
    // Bands first (under every line), then lines, then points and change marks.
    draw_bands(root, data, geo)?;
    draw_lines(root, data, geo)?;
    draw_points(root, data, geo, theme)?;
    root.present()
}

/// The selected commit's column, the grid with its y labels, the axes and the x labels.
fn draw_frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    geo: &Geometry,
    labels: &[String],
    selected: Option<usize>,
    theme: &Theme,
) -> DrawResult<DB> {
    let s = geo.size.scale;
    let plot = geo.plot;
    let axis = rgb(theme.axis);
    let grid = rgb(theme.grid);
    let font = ("sans-serif", geo.font).into_font();
    // Selected commit: a light column behind everything.
    if let Some(slot) = selected.filter(|&i| i < data.slots.len()) {
        let half = ((plot.right - plot.left) / data.slots.len() as f64 / 2.0).min(18.0 * s);
        let x = geo.x(slot);
        root.draw(&Rectangle::new(
            [p(x - half, plot.top), p(x + half, plot.bottom)],
            rgb(theme.selected).mix(0.6).filled(),
        ))?;
    }
    // Grid and y labels.
    let ylabel = TextStyle::from(font.clone()).color(&axis).pos(Pos::new(HPos::Right, VPos::Center));
    for (v, label) in &geo.y_ticks {
        let y = geo.y(*v);
        root.draw(&PathElement::new(vec![p(plot.left, y), p(plot.right, y)], grid.stroke_width(1)))?;
        root.draw(&Text::new(label.clone(), p(plot.left - 6.0 * s, y), ylabel.clone()))?;
    }
    // Axes.
    let axis_style = axis.stroke_width(s.round().max(1.0) as u32);
    root.draw(&PathElement::new(
        vec![p(plot.left, plot.top), p(plot.left, plot.bottom), p(plot.right, plot.bottom)],
        axis_style,
    ))?;
    let xlabel = TextStyle::from(font).color(&axis).pos(Pos::new(HPos::Center, VPos::Top));
    for &i in &geo.x_labels {
        let x = geo.x(i);
        root.draw(&PathElement::new(vec![p(x, plot.bottom), p(x, plot.bottom + 4.0 * s)], axis_style))?;
        if let Some(l) = labels.get(i) {
            root.draw(&Text::new(l.clone(), p(x, plot.bottom + 7.0 * s), xlabel.clone()))?;
        }
    }
    Ok(())
}

/// Each series' mean ± stddev band (lighter where `± ≤ 2 %` is implied), an error bar for a lone
/// observation.
fn draw_bands<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, data: &ChartData, geo: &Geometry) -> DrawResult<DB> {
    let s = geo.size.scale;
    for series in &data.series {
        let c = rgb(series.color);
        for (a, b) in runs(&series.agg) {
            let slots: Vec<usize> = (a..=b).collect();
            let has_sd = slots.iter().any(|&i| series.agg[i].is_some_and(|g| g.sd.is_some()));
            if !has_sd {
                continue;
            }
            if a == b {
                // A lone observation: an error bar instead of a band (lighter for `± ≤ 2 %`).
                let g = series.agg[a].expect("run slots have data");
                let sd = g.sd.unwrap_or(0.0);
                let x = geo.x(a);
                let w = 5.0 * s;
                let st = c.mix(if g.implied { 0.3 } else { 0.6 }).stroke_width(s.round().max(1.0) as u32);
                root.draw(&PathElement::new(vec![p(x, geo.y(g.mean - sd)), p(x, geo.y(g.mean + sd))], st))?;
                for v in [g.mean - sd, g.mean + sd] {
                    root.draw(&PathElement::new(vec![p(x - w, geo.y(v)), p(x + w, geo.y(v))], st))?;
                }
                continue;
            }
            for (from, to, implied) in band_pieces(&series.agg, a, b) {
                let edge = |i: usize, sign: f64| {
                    let g = series.agg[i].expect("run slots have data");
                    p(geo.x(i), geo.y(g.mean + sign * g.sd.unwrap_or(0.0)))
                };
                let mut poly: Vec<(i32, i32)> = (from..=to).map(|i| edge(i, 1.0)).collect();
                poly.extend((from..=to).rev().map(|i| edge(i, -1.0)));
                root.draw(&Polygon::new(poly, c.mix(if implied { BAND_IMPLIED } else { BAND_STATED }).filled()))?;
            }
        }
    }
    Ok(())
}

/// Each series' line through its means, run by run.
fn draw_lines<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, data: &ChartData, geo: &Geometry) -> DrawResult<DB> {
    let line_w = (2.0 * geo.size.scale).round().max(1.0) as u32;
    for series in &data.series {
        for (a, b) in runs(&series.agg) {
            if a == b {
                continue;
            }
            let pts =
                line_points((a..=b).map(|i| p(geo.x(i), geo.y(series.agg[i].expect("run slots have data").mean))));
            root.draw(&PathElement::new(pts, rgb(series.color).stroke_width(line_w)))?;
        }
    }
    Ok(())
}

/// The points (where they are not too dense, and always a lone one) and the rings of reported changes.
fn draw_points<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    geo: &Geometry,
    theme: &Theme,
) -> DrawResult<DB> {
    let s = geo.size.scale;
    let r = geo.point_radius();
    let ring_r = (r * 2.2).round() as i32;
    let ring_w = (2.0 * s).round().max(1.0) as u32;
    let m = Markers::of(geo, data);
    for series in &data.series {
        let c = rgb(series.color);
        let alone = |slot: usize| {
            let has = |i: Option<usize>| i.is_some_and(|i| series.agg[i].is_some());
            !has(slot.checked_sub(1)) && !has(Some(slot + 1))
        };
        let rings: Vec<usize> = match m.ring_bucket {
            None => (0..series.obs.len()).filter(|&i| series.obs[i].mark.is_some()).collect(),
            Some(w) => bucket_marks(geo, &series.obs, w),
        };
        let mut rings = rings.into_iter().peekable();
        for (i, o) in series.obs.iter().enumerate() {
            let at = p(geo.x(o.slot), geo.y(o.mean));
            if rings.peek() == Some(&i) {
                rings.next();
                if let Some(d) = o.mark {
                    root.draw(&Circle::new(at, ring_r, rgb(mark_color(d)).stroke_width(ring_w)))?;
                }
            }
            if m.dots || alone(o.slot) {
                root.draw(&Circle::new(at, r.round() as i32, c.filled()))?;
                root.draw(&Circle::new(at, r.round() as i32, rgb(theme.point_edge).stroke_width(1)))?;
            }
        }
    }
    Ok(())
}

/// How point markers are drawn for a given density. Canvas pays per shape, and overlapping
/// markers add ink but no information. So when the slots are closer than a dot, or the dots would
/// cover more than a quarter of the plot, the lines alone show the values (hover still finds every
/// point); and change rings are thinned to at most one per column of each series (the largest
/// change there), columns being ring-wide or wider so that the chart holds at most
/// `MAX_RINGS` rings. The cost of a draw is then bounded by the chart's pixels, not by the data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Markers {
    /// Every observation gets a dot (else only observations without neighbours).
    pub dots: bool,
    /// Column width (device px) in which at most one change ring per series is drawn.
    pub ring_bucket: Option<f64>,
}

/// Most change rings one chart draws (a few ms of canvas work).
pub const MAX_RINGS: f64 = 2000.0;

impl Markers {
    pub fn of(geo: &Geometry, data: &ChartData) -> Markers {
        let r = geo.point_radius();
        let width = geo.plot.right - geo.plot.left;
        let area = width * (geo.plot.bottom - geo.plot.top);
        let spacing = width / data.slots.len().max(1) as f64;
        let dot_area = std::f64::consts::PI * r * r * data.points() as f64;
        let dots = spacing >= 2.0 * r + 2.0 * geo.size.scale && dot_area <= area / 4.0;
        let ring = 2.0 * (r * 2.2).round();
        let rings: usize = data.series.iter().map(|s| s.obs.iter().filter(|o| o.mark.is_some()).count()).sum();
        let bucket = ring.max(width * data.series.len() as f64 / MAX_RINGS);
        let thin = spacing < ring || rings as f64 > MAX_RINGS;
        Markers { dots, ring_bucket: thin.then_some(bucket) }
    }
}

/// Observations (indices, ascending) whose change ring is drawn when rings are thinned to one per
/// `width`-px column: in each column the largest stated change (the later one on a tie).
fn bucket_marks(geo: &Geometry, obs: &[crate::chart::Obs], width: f64) -> Vec<usize> {
    let mut best: std::collections::BTreeMap<i64, (f64, usize)> = std::collections::BTreeMap::new();
    for (i, o) in obs.iter().enumerate() {
        if o.mark.is_none() {
            continue;
        }
        let col = ((geo.x(o.slot) - geo.plot.left) / width).floor() as i64;
        let size = o.change.map_or(0.0, f64::abs);
        let e = best.entry(col).or_insert((size, i));
        if size >= e.0 {
            *e = (size, i);
        }
    }
    let mut out: Vec<usize> = best.into_values().map(|(_, i)| i).collect();
    model::order::sort(&mut out);
    out
}

/// A polyline with the points that cannot change its pixels dropped: of consecutive points in one
/// pixel column only the first, the lowest, the highest and the last are kept (in their order).
/// A series with more commits than the chart has pixels is drawn with at most 4 points per column.
pub fn line_points(pts: impl Iterator<Item = (i32, i32)>) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = Vec::new();
    let mut col: Vec<(i32, i32)> = Vec::new();
    let flush = |col: &mut Vec<(i32, i32)>, out: &mut Vec<(i32, i32)>| {
        if col.is_empty() {
            return;
        }
        let (lo, hi) = (0..col.len()).fold((0, 0), |(lo, hi), i| {
            (if col[i].1 < col[lo].1 { i } else { lo }, if col[i].1 > col[hi].1 { i } else { hi })
        });
        let mut keep = vec![0, lo.min(hi), lo.max(hi), col.len() - 1];
        keep.dedup();
        for k in keep {
            if out.last() != Some(&col[k]) {
                out.push(col[k]);
            }
        }
        col.clear();
    };
    for pt in pts {
        if col.first().is_some_and(|c| c.0 != pt.0) {
            flush(&mut col, &mut out);
        }
        col.push(pt);
    }
    flush(&mut col, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::testing::series;
    use crate::chart::{build, Size};
    use model::SeriesData;

    fn svg(data: &ChartData, labels: &[String]) -> String {
        let size = Size { width: 640.0, height: 320.0, scale: 1.0 };
        let geo = Geometry::layout(data, labels, size);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (640, 320)).into_drawing_area();
            draw(&root, data, &geo, labels, Some(1), &crate::chart::LIGHT).unwrap();
        }
        out
    }

    #[test]
    fn the_svg_export_is_a_whole_document_of_the_drawn_chart() {
        let a = series(0, &[(0, Some(10702.0), Some(3.0), None), (1, Some(11259.0), Some(2.0), Some(5.2))]);
        let d = build(&[&a], 1, (None, None), &|_| false);
        let labels = vec!["4df0f7f".to_string(), "19957a1".to_string()];
        let s = super::svg(&d, &labels, None, 640.0, 320.0, &crate::chart::LIGHT);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"), "{s}");
        assert!(s.contains("width=\"640\"") && s.contains("height=\"320\""));
        assert!(s.contains("19957a1"), "the x labels are there");
        assert!(s.matches("<circle").count() >= 2, "both points are drawn");
    }

    #[test]
    fn svg_snapshot_has_band_line_points_marks_and_labels() {
        let a = series(0, &[(0, Some(10702.0), Some(3.0), None), (1, Some(11259.0), Some(2.0), Some(5.2))]);
        let b = series(1, &[(0, Some(10000.0), Some(1.0), None), (1, Some(9000.0), None, Some(-10.0))]);
        let d = build(&[&a, &b], 1, (None, None), &|_| false);
        let labels = vec!["4df0f7f145aa".to_string(), "19957a1816bb".to_string()];
        let out = svg(&d, &labels);
        assert!(out.contains("4df0f7f145aa") && out.contains("19957a1816bb"), "x labels");
        assert!(out.contains("\n11k\n") && out.contains("\n8k\n"), "y tick labels share a unit: {out}");
        assert_eq!(out.matches("<polygon").count(), 2, "one band per series");
        // Both series' colours, a green and a red change mark.
        for c in ["#1F77B4", "#FF7F0E", "#2CA02C", "#D62728"] {
            assert!(out.to_uppercase().contains(c), "{c}");
        }
        // 4 points, each filled + outlined, plus 2 change rings.
        assert_eq!(out.matches("<circle").count(), 4 * 2 + 2);
    }

    #[test]
    fn an_unprinted_stddev_draws_a_lighter_band() {
        let pts: Vec<crate::chart::testing::Pt> =
            vec![(0, Some(100.0), Some(5.0), None), (1, Some(101.0), Some(4.0), None), (2, Some(99.0), None, None)];
        let d = build(&[&series(0, &pts)], 1, (None, None), &|_| true);
        let out = svg(&d, &["a".into(), "b".into(), "c".into()]);
        let polys: Vec<&str> = out.split("<polygon").skip(1).collect();
        assert_eq!(polys.len(), 2, "a stated piece and a ≤ 2 % piece: {out}");
        assert!(polys[0].contains("opacity=\"0.18\""), "{}", polys[0]);
        assert!(polys[1].contains("opacity=\"0.07\""), "{}", polys[1]);
        // The same points from a format that always prints ±: one stated band up to the last point.
        let d = build(&[&series(0, &pts)], 1, (None, None), &|_| false);
        assert_eq!(svg(&d, &["a".into(), "b".into(), "c".into()]).matches("<polygon").count(), 1);
    }

    #[test]
    fn the_dark_theme_paints_its_own_background_axes_and_grid() {
        let a = series(0, &[(0, Some(10.0), Some(3.0), None), (1, Some(11.0), None, None)]);
        let d = build(&[&a], 1, (None, None), &|_| false);
        let labels = ["a".to_string(), "b".to_string()];
        let geo = Geometry::layout(&d, &labels, Size { width: 320.0, height: 160.0, scale: 1.0 });
        let paint = |theme: &crate::chart::Theme| {
            let mut out = String::new();
            {
                let root = SVGBackend::with_string(&mut out, (320, 160)).into_drawing_area();
                draw(&root, &d, &geo, &labels, None, theme).unwrap();
            }
            out.to_uppercase()
        };
        let (light, dark) = (paint(&crate::chart::LIGHT), paint(&crate::chart::DARK));
        for (svg, bg, grid) in [(&light, "#FFFFFF", "#E4E4E4"), (&dark, "#181A1D", "#34383E")] {
            assert!(svg.contains(&format!("FILL=\"{bg}\"")), "background {bg}");
            assert!(svg.contains(&format!("STROKE=\"{grid}\"")), "grid {grid}");
        }
        assert!(!dark.contains("FILL=\"#FFFFFF\""), "nothing white on the dark chart");
        assert!(dark.contains("#1F77B4"), "series colours are the same in both");
    }

    #[test]
    fn empty_chart_says_so() {
        let out = svg(&ChartData::default(), &[]);
        assert!(out.contains("no data for this selection"));
    }

    #[test]
    fn dense_charts_thin_markers_but_keep_lone_points() {
        // 400 commits in 640 px: slots 1.5 px apart, every point a stated change.
        let pts: Vec<crate::chart::testing::Pt> = (0..400)
            .map(|i| (i, Some(100.0 + (i % 7) as f64), Some(3.0), Some(if i == 200 { 40.0 } else { 1.0 })))
            .collect();
        let lone = [(401, Some(50.0), None, None)];
        let d = build(&[&series(0, &pts), &series(1, &lone)], 1, (None, None), &|_| false);
        let labels: Vec<String> = d.slots.iter().map(|c| format!("c{c}")).collect();
        let geo = Geometry::layout(&d, &labels, Size { width: 640.0, height: 320.0, scale: 1.0 });
        let m = Markers::of(&geo, &d);
        assert!(!m.dots && m.ring_bucket.is_some(), "{m:?}");
        let out = svg(&d, &labels);
        let circles = out.matches("<circle").count();
        // No dots for the dense series; the lone point of series 1 keeps its dot (fill + outline).
        let rings = circles - 2;
        let columns = (geo.plot.right - geo.plot.left) / m.ring_bucket.unwrap();
        assert!(rings > 10 && rings as f64 <= columns.ceil() + 1.0, "{rings} rings, {columns} columns");
        // The big change at commit 200 keeps its ring.
        let kept = bucket_marks(&geo, &d.series[0].obs, m.ring_bucket.unwrap());
        assert!(kept.contains(&200));
        // Many series of few commits: slots are far enough apart, but the dots would cover the plot.
        let crowd: Vec<SeriesData> = (0..50).map(|j| series(j, &pts[..60])).collect();
        let crowd = build(&crowd.iter().collect::<Vec<_>>(), 1, (None, None), &|_| false);
        let g = Geometry::layout(&crowd, &labels[..60], Size { width: 640.0, height: 320.0, scale: 1.0 });
        let m = Markers::of(&g, &crowd);
        assert!(!m.dots && m.ring_bucket.unwrap() * MAX_RINGS >= 50.0 * (g.plot.right - g.plot.left), "{m:?}");
        // Sparse charts: every point and every change (the snapshot test above).
        let few = build(&[&series(0, &pts[..20])], 1, (None, None), &|_| false);
        let g = Geometry::layout(&few, &labels[..20], Size { width: 640.0, height: 320.0, scale: 1.0 });
        assert_eq!(Markers::of(&g, &few), Markers { dots: true, ring_bucket: None });
    }

    #[test]
    fn lines_keep_first_min_max_last_per_pixel_column() {
        let pts = [(0, 5), (0, 1), (0, 9), (0, 4), (1, 3), (2, 3), (2, 3), (3, 7)];
        assert_eq!(line_points(pts.into_iter()), [(0, 5), (0, 1), (0, 9), (0, 4), (1, 3), (2, 3), (3, 7)]);
        assert_eq!(line_points([(0, 1), (0, 1)].into_iter()), [(0, 1)]);
        assert_eq!(line_points(std::iter::empty()), []);
    }

    #[test]
    fn lone_points_get_error_bars_not_bands() {
        let a = series(0, &[(0, Some(10.0), Some(10.0), None), (2, Some(12.0), Some(10.0), None)]);
        let b = series(1, &[(1, Some(11.0), None, None)]);
        let d = build(&[&a, &b], 1, (None, None), &|_| false);
        let out = svg(&d, &["a".into(), "b".into(), "c".into()]);
        assert_eq!(out.matches("<polygon").count(), 0);
        // Series a has a gap at slot 1: no line joins its two points.
        assert_eq!(d.series[0].agg[1], None);
    }
}
