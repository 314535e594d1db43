//! Draws a laid-out trend chart with plotters onto any backend: a `<canvas>` in the browser,
//! an SVG string in native tests. All positions come from `chart::Geometry`, so what is drawn
//! and what hit-testing finds are the same points.

use crate::chart::{mark_color, runs, ChartData, Geometry, Rgb};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

fn p(x: f64, y: f64) -> (i32, i32) {
    (x.round() as i32, y.round() as i32)
}

/// Draw `data` laid out by `geo`; `labels` are the x labels per slot, `selected` the slot of
/// the selected commit (highlighted column).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    geo: &Geometry,
    labels: &[String],
    selected: Option<usize>,
) -> DrawResult<DB> {
    let s = geo.size.scale;
    let plot = geo.plot;
    let axis = RGBColor(90, 90, 90);
    let grid = RGBColor(228, 228, 228);
    let font = ("sans-serif", geo.font).into_font();
    root.fill(&WHITE)?;
    if data.slots.is_empty() {
        let style = TextStyle::from(font.clone()).color(&axis).pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new("no data for this selection", p(geo.size.width / 2.0, geo.size.height / 2.0), style))?;
        return Ok(());
    }
    // Selected commit: a light column behind everything.
    if let Some(slot) = selected.filter(|&i| i < data.slots.len()) {
        let half = ((plot.right - plot.left) / data.slots.len() as f64 / 2.0).min(18.0 * s);
        let x = geo.x(slot);
        root.draw(&Rectangle::new(
            [p(x - half, plot.top), p(x + half, plot.bottom)],
            RGBColor(255, 236, 160).mix(0.6).filled(),
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
    // Bands first (under every line), then lines, then points and change marks.
    for series in &data.series {
        let c = rgb(series.color);
        for (a, b) in runs(&series.agg) {
            let slots: Vec<usize> = (a..=b).collect();
            let has_sd = slots.iter().any(|&i| series.agg[i].is_some_and(|g| g.sd.is_some()));
            if !has_sd {
                continue;
            }
            if a == b {
                // A lone observation: an error bar instead of a band.
                let g = series.agg[a].expect("run slots have data");
                let sd = g.sd.unwrap_or(0.0);
                let x = geo.x(a);
                let w = 5.0 * s;
                let st = c.mix(0.6).stroke_width(s.round().max(1.0) as u32);
                root.draw(&PathElement::new(vec![p(x, geo.y(g.mean - sd)), p(x, geo.y(g.mean + sd))], st))?;
                for v in [g.mean - sd, g.mean + sd] {
                    root.draw(&PathElement::new(vec![p(x - w, geo.y(v)), p(x + w, geo.y(v))], st))?;
                }
                continue;
            }
            let mut poly: Vec<(i32, i32)> = slots
                .iter()
                .map(|&i| {
                    let g = series.agg[i].expect("run slots have data");
                    p(geo.x(i), geo.y(g.mean + g.sd.unwrap_or(0.0)))
                })
                .collect();
            poly.extend(slots.iter().rev().map(|&i| {
                let g = series.agg[i].expect("run slots have data");
                p(geo.x(i), geo.y(g.mean - g.sd.unwrap_or(0.0)))
            }));
            root.draw(&Polygon::new(poly, c.mix(0.18).filled()))?;
        }
    }
    let line_w = (2.0 * s).round().max(1.0) as u32;
    for series in &data.series {
        for (a, b) in runs(&series.agg) {
            if a == b {
                continue;
            }
            let pts: Vec<(i32, i32)> =
                (a..=b).map(|i| p(geo.x(i), geo.y(series.agg[i].expect("run slots have data").mean))).collect();
            root.draw(&PathElement::new(pts, rgb(series.color).stroke_width(line_w)))?;
        }
    }
    let r = geo.point_radius();
    for series in &data.series {
        let c = rgb(series.color);
        for o in &series.obs {
            let at = p(geo.x(o.slot), geo.y(o.mean));
            if let Some(d) = o.mark {
                let ring = rgb(mark_color(d)).stroke_width((2.0 * s).round().max(1.0) as u32);
                root.draw(&Circle::new(at, (r * 2.2).round() as i32, ring))?;
            }
            root.draw(&Circle::new(at, r.round() as i32, c.filled()))?;
            root.draw(&Circle::new(at, r.round() as i32, WHITE.stroke_width(1)))?;
        }
    }
    root.present()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::tests::series;
    use crate::chart::{build, Size};

    fn svg(data: &ChartData, labels: &[String]) -> String {
        let size = Size { width: 640.0, height: 320.0, scale: 1.0 };
        let geo = Geometry::layout(data, labels, size);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (640, 320)).into_drawing_area();
            draw(&root, data, &geo, labels, Some(1)).unwrap();
        }
        out
    }

    #[test]
    fn svg_snapshot_has_band_line_points_marks_and_labels() {
        let a = series(0, &[(0, Some(10702.0), Some(3.0), None), (1, Some(11259.0), Some(2.0), Some(5.2))]);
        let b = series(1, &[(0, Some(10000.0), Some(1.0), None), (1, Some(9000.0), None, Some(-10.0))]);
        let d = build(&[&a, &b], 1, (None, None));
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
    fn empty_chart_says_so() {
        let out = svg(&ChartData::default(), &[]);
        assert!(out.contains("no data for this selection"));
    }

    #[test]
    fn lone_points_get_error_bars_not_bands() {
        let a = series(0, &[(0, Some(10.0), Some(10.0), None), (2, Some(12.0), Some(10.0), None)]);
        let b = series(1, &[(1, Some(11.0), None, None)]);
        let d = build(&[&a, &b], 1, (None, None));
        let out = svg(&d, &["a".into(), "b".into(), "c".into()]);
        assert_eq!(out.matches("<polygon").count(), 0);
        // Series a has a gap at slot 1: no line joins its two points.
        assert_eq!(d.series[0].agg[1], None);
    }
}
