//! The Trend tab: a metric's series across commits, one line per job, with the noise drawn as
//! bands. `chart` is the plain geometry (points, bands, ticks, hover), `draw` paints it with
//! plotters on a canvas or an SVG, `view` is the component (wasm only).

pub mod chart;
pub mod draw;
#[cfg(target_arch = "wasm32")]
pub mod view;
