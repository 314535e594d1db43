//! The Trend tab: a metric's series across commits, one line per job, with the noise drawn as
//! bands. The chart's geometry and drawing are `render::chart` and `render::draw` (the static
//! testcase pages draw the same chart as an SVG); `view` is the component (wasm only).

#[cfg(target_arch = "wasm32")]
pub mod view;
