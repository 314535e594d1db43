//! Browser tests (wasm32, headless Chromium via wasm-bindgen-test-runner): the trend chart drawn by
//! `draw` through plotters-canvas on a real `<canvas>`, at 1x and 2x device pixels.
#![cfg(target_arch = "wasm32")]

use model::{Points, SeriesData};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use render::chart::{build, Geometry, Size};
use render::draw::draw;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

fn series(job: u32, means: &[(u32, f64, Option<f64>, Option<f64>)]) -> SeriesData {
    SeriesData {
        job,
        metric: "blogbench.write_score".into(),
        points: Points {
            commit: means.iter().map(|m| m.0).collect(),
            mean: means.iter().map(|m| Some(m.1)).collect(),
            stddev_pct: means.iter().map(|m| m.2).collect(),
            runs: means.iter().map(|_| Some(3)).collect(),
            report: means.iter().map(|_| 0).collect(),
            change: means.iter().map(|m| m.3).collect(),
            base: means.iter().map(|m| m.3.map(|_| 0)).collect(),
            fails: vec![],
            values: vec![],
        },
    }
}

/// Draw two series on a fresh canvas of `w`x`h` CSS pixels at device ratio `scale`; return the
/// canvas and the number of non-white pixels.
fn render(w: f64, h: f64, scale: f64) -> (HtmlCanvasElement, usize, Geometry, render::chart::ChartData) {
    let doc = web_sys::window().unwrap().document().unwrap();
    let canvas: HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    canvas.set_width((w * scale) as u32);
    canvas.set_height((h * scale) as u32);
    let a = series(0, &[(0, 10702.0, Some(3.0), None), (1, 11259.0, Some(2.0), Some(5.2))]);
    let b = series(1, &[(0, 9000.0, None, None), (2, 9100.0, Some(5.0), Some(1.1))]);
    let data = build(&[&a, &b], 1, (None, None), &|_| false);
    let labels: Vec<String> = ["4df0f7f145f2", "19957a181608", "0954d74f8f37"].iter().map(|s| s.to_string()).collect();
    let geo = Geometry::layout(&data, &labels, Size { width: w * scale, height: h * scale, scale });
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).expect("a 2d canvas");
    draw(&backend.into_drawing_area(), &data, &geo, &labels, Some(1), &render::chart::LIGHT).expect("drawn");
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let img = ctx.get_image_data(0.0, 0.0, w * scale, h * scale).unwrap().data();
    let ink = img.chunks(4).filter(|p| p[3] != 0 && !(p[0] == 255 && p[1] == 255 && p[2] == 255)).count();
    (canvas, ink, geo, data)
}

/// The colour of the pixel at device position (x, y).
fn pixel(canvas: &HtmlCanvasElement, x: f64, y: f64) -> [u8; 4] {
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx.get_image_data(x.round(), y.round(), 1.0, 1.0).unwrap().data();
    [d[0], d[1], d[2], d[3]]
}

#[wasm_bindgen_test]
fn chart_is_drawn_where_hit_testing_looks() {
    let (canvas, ink, geo, data) = render(640.0, 320.0, 1.0);
    assert!(ink > 5000, "ink {ink}");
    // Each observation's centre is painted in its series' colour: drawing and hit-testing agree.
    for (si, s) in data.series.iter().enumerate() {
        for (oi, o) in s.obs.iter().enumerate() {
            let (x, y) = (geo.x(o.slot), geo.y(o.mean));
            let [r, g, b, _] = pixel(&canvas, x, y);
            assert_eq!((r, g, b), s.color, "series {si} point {oi} at {x},{y}");
            assert_eq!(geo.hit(&data, x + 2.0, y + 2.0), Some((si, oi)));
        }
    }
}

#[wasm_bindgen_test]
fn hidpi_doubles_the_pixels() {
    let (_, ink1, _, _) = render(500.0, 260.0, 1.0);
    let (canvas, ink2, geo, data) = render(500.0, 260.0, 2.0);
    assert!(ink2 > 3 * ink1, "2x draws about 4x the pixels: {ink1} vs {ink2}");
    let o = &data.series[0].obs[0];
    let [r, g, b, _] = pixel(&canvas, geo.x(o.slot), geo.y(o.mean));
    assert_eq!((r, g, b), data.series[0].color);
}
