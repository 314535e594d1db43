//! The trend view: fetches the metric's shards, draws the chart on a `<canvas>` sized to its
//! container, shows a tooltip from Rust hit-testing, a legend to show/hide series and the
//! commit range pickers. All decisions are in `views::trend_model` and `chart`.

use crate::shared::Shared;
use crate::ui::context::{commit_option_label, Cat, Nav};
use crate::views::{self, TrendModel};
use crate::web;
use leptos::prelude::*;
use model::stats::{format_change, format_value};
use model::ChangeKind;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use render::chart::{css, Geometry, Size};
use render::draw;
use std::sync::Arc;

/// A trend model ready to draw, or the error that stopped it.
type TrendResult = Result<Shared<TrendModel>, String>;

/// Chart height in CSS pixels.
const HEIGHT: f64 = 380.0;

#[derive(Clone, Copy, PartialEq)]
struct Hover {
    series: usize,
    obs: usize,
    /// CSS pixel position in the chart box.
    x: f64,
    y: f64,
}

/// The trend's key (metric, chunks): two metrics can share a chunk, so the key names the metric too.
type Key = (String, Vec<(String, String)>);
/// The key's shards as loaded: the series and the detected steps, with the key they are for.
type LoadedShards = LocalResource<Result<(Key, Vec<Arc<model::SeriesShard>>, Vec<Arc<model::ChangesShard>>), String>>;

/// The trend's data: its chunks' paths, the loaded shards, the model to draw and the panels'.
#[derive(Clone, Copy)]
struct TrendData {
    paths: Memo<Vec<(String, String)>>,
    loaded: LoadedShards,
    model: Memo<Option<TrendResult>>,
    /// What the panels under the chart show (`true`: the last model, while the next loads).
    panels: Memo<Option<(bool, TrendResult)>>,
}

/// What the drawing leaves for the hit-testing, the tooltip, the step layer and the test hooks.
#[derive(Clone, Copy)]
struct Chart {
    /// The chart box's width in CSS pixels.
    width: RwSignal<f64>,
    geometry: StoredValue<Option<Geometry>>,
    drawn: RwSignal<usize>,
    points: RwSignal<usize>,
    draws: RwSignal<u32>,
    hover: RwSignal<Option<Hover>>,
    /// Test hook: CSS-pixel positions of the drawn points, as `x,y;x,y;...` (first 200).
    point_xy: RwSignal<String>,
}

impl Chart {
    fn new() -> Chart {
        Chart {
            width: RwSignal::new(0.0f64),
            geometry: StoredValue::new(None::<Geometry>),
            drawn: RwSignal::new(0usize),
            points: RwSignal::new(0usize),
            draws: RwSignal::new(0u32),
            hover: RwSignal::new(None::<Hover>),
            point_xy: RwSignal::new(String::new()),
        }
    }
}

#[component]
pub fn Trend() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let dark = expect_context::<crate::ui::theme::Dark>();
    let data = trend_data(nav, &cat);
    let model = data.model;
    let steps = detected_steps(&cat, data);

    let wrapper = NodeRef::<leptos::html::Div>::new();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let chart = Chart::new();
    track_width(wrapper, chart.width);
    let (ccat, loaded) = (cat.clone(), expect_context::<crate::ui::context::Loaded>());
    Effect::new(move |_| {
        let (Some(c), Some(Ok(m))) = (canvas.get(), model.get()) else {
            return;
        };
        let theme = if dark.0.get() { &render::chart::DARK } else { &render::chart::LIGHT };
        let w = chart.width.get().floor();
        if w < 10.0 {
            return;
        }
        draw_chart(c, &m.0, w, theme, chart);
        // the chart is up: the rest of its catalog (reports, every metric) follows
        crate::ui::context::complete_after_paint(&ccat, loaded);
    });

    let on_click = on_point_click(&cat, nav, model, chart.geometry);
    let c4 = cat.clone();
    let tooltip = move || {
        let h = chart.hover.get()?;
        let m = model.get()?.ok()?;
        Some(tooltip_view(&c4, &m.0, h, chart.width.get_untracked()))
    };
    let step_lines = step_lines(steps.clone(), chart);
    let body = panels_body(&cat, nav, data, steps);
    let panels = data.panels;
    let stale = move || panels.with(|p| p.as_ref().is_some_and(|(stale, _)| *stale));
    view! {
        <section class="trend">
            <div
                class="chart"
                data-testid="chart"
                node_ref=wrapper
                data-pending=cat.is_pending().to_string()
                data-drawn=move || chart.drawn.get().to_string()
                data-points=move || chart.points.get().to_string()
                data-draws=move || chart.draws.get().to_string()
                data-xy=move || chart.point_xy.get()
            >
                <canvas
                    node_ref=canvas
                    role="img"
                    aria-label=move || {
                        nav.state.with(|s| format!("trend chart of {}", s.metric.as_deref().unwrap_or("no metric")))
                    }
                    class:pointing=move || chart.hover.get().is_some()
                    style=format!("height:{HEIGHT}px")
                    on:mousemove=move |ev| chart.hover.set(hit_at(model, chart.geometry, &ev))
                    on:mouseleave=move |_| chart.hover.set(None)
                    on:click=on_click
                ></canvas>
                <div class="step-layer" inner_html=step_lines></div>
                {tooltip}
            </div>
            {chart_export(nav, model, chart.width, canvas)}
            <div class="trend-panels" class:stale=stale aria-busy=move || stale().to_string()>{body}</div>
        </section>
    }
}

/// The metric's shards, loaded for the view state, and the model drawn from them.
fn trend_data(nav: Nav, cat: &Cat) -> TrendData {
    let c1 = cat.clone();
    // (metric, chunks): two metrics can share a chunk, so the key names the metric too
    let key =
        Memo::new(move |_| nav.state.with(|s| (s.metric.clone().unwrap_or_default(), views::trend_shards(&c1, s))));
    let paths = Memo::new(move |_| key.with(|k| k.1.clone()));
    let c0 = cat.clone();
    let loaded = LocalResource::new(move || {
        let k = key.get();
        let cat = c0.clone();
        async move {
            let (series, steps) = web::load_series(cat, k.1.clone(), k.0.clone()).await?;
            Ok::<_, String>((k, series, steps))
        }
    });
    let shards = Signal::derive(move || loaded.get().map(|r| r.map(|(p, s, _)| (p, s))));
    let c2 = cat.clone();
    let model = Memo::new(move |_| {
        let loaded = shards.get()?;
        // A resource keeps its previous value while the next one loads: the shards of the
        // previous selection must not be drawn under the new one.
        if let Ok((for_key, _)) = &loaded {
            if key.with(|k| k != for_key) {
                return None;
            }
        }
        Some(loaded.map(|(_, sh)| Shared(Arc::new(nav.state.with(|s| views::trend_model(&c2, s, sh))))))
    });
    // What the panels under the chart show: the current model, or while the next shards load the
    // last one (marked as loading), so the page does not flash "loading" on every change.
    let panels = Memo::new(move |prev: Option<&Option<(bool, TrendResult)>>| match model.get() {
        Some(m) => Some((false, m)),
        None => prev.cloned().flatten().map(|(_, m)| (true, m)),
    });
    TrendData { paths, loaded, model, panels }
}

/// Detected steps of the drawn series come in the same trend chunks as the series: no other
/// file is fetched for them.
fn detected_steps(cat: &Cat, data: TrendData) -> impl Fn() -> Vec<crate::changes::StepMarker> + Clone + 'static {
    let c6 = cat.clone();
    let TrendData { loaded, model, .. } = data;
    move || -> Vec<crate::changes::StepMarker> {
        let (Some(Ok((_, _, src))), Some(Ok(m))) = (loaded.get(), model.get()) else { return Vec::new() };
        crate::changes::step_markers(&m.0, &src, |c| {
            c6.index.commits.get(c as usize).map(|c| c.short().to_string()).unwrap_or_default()
        })
    }
}

/// Keep `width` at the element's width in CSS pixels (changes under a pixel ignored), while the
/// component lives.
fn track_width(wrapper: NodeRef<leptos::html::Div>, width: RwSignal<f64>) {
    let resize = StoredValue::new_local(None::<web::ResizeGuard>);
    Effect::new(move |_| {
        if let Some(el) = wrapper.get() {
            resize.set_value(web::observe_width(&el, move |w| {
                if (w - width.get_untracked()).abs() >= 1.0 {
                    width.set(w);
                }
            }));
        }
    });
}

/// Draw `m` on the canvas, `w` CSS pixels wide, and record what was drawn in `chart`.
fn draw_chart(c: web_sys::HtmlCanvasElement, m: &TrendModel, w: f64, theme: &render::chart::Theme, chart: Chart) {
    let dpr = web::device_pixel_ratio();
    c.set_width((w * dpr).round() as u32);
    c.set_height((HEIGHT * dpr).round() as u32);
    let size = Size { width: (w * dpr).round(), height: (HEIGHT * dpr).round(), scale: dpr };
    let geo = Geometry::layout(&m.data, &m.slot_labels, size);
    if let Some(backend) = CanvasBackend::with_canvas_object(c) {
        let root = backend.into_drawing_area();
        // A drawing error leaves a partial chart; nothing better can be done here.
        let _ = draw::draw(&root, &m.data, &geo, &m.slot_labels, m.selected_slot, theme);
    }
    let xy: Vec<String> = m
        .data
        .series
        .iter()
        .flat_map(|s| s.obs.iter())
        .take(200)
        .map(|o| format!("{:.1},{:.1}", geo.x(o.slot) / dpr, geo.y(o.mean) / dpr))
        .collect();
    chart.point_xy.set(xy.join(";"));
    chart.geometry.set_value(Some(geo));
    chart.hover.set(None);
    chart.drawn.set(m.data.series.len());
    chart.points.set(m.data.points());
    chart.draws.update(|d| *d += 1);
}

/// The drawn point under the mouse, if any.
fn hit_at(
    model: Memo<Option<TrendResult>>,
    geometry: StoredValue<Option<Geometry>>,
    ev: &leptos::ev::MouseEvent,
) -> Option<Hover> {
    let dpr = web::device_pixel_ratio();
    let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
    let m = model.get_untracked()?.ok()?;
    let (series, obs) = geometry.with_value(|g| g.as_ref().and_then(|g| g.hit(&m.0.data, x * dpr, y * dpr)))?;
    Some(Hover { series, obs, x, y })
}

/// A click on a point selects its commit, job and report.
fn on_point_click(
    cat: &Cat,
    nav: Nav,
    model: Memo<Option<TrendResult>>,
    geometry: StoredValue<Option<Geometry>>,
) -> impl Fn(leptos::ev::MouseEvent) + 'static {
    let c3 = cat.clone();
    move |ev: leptos::ev::MouseEvent| {
        let Some(h) = hit_at(model, geometry, &ev) else { return };
        let Some(Ok(m)) = model.get_untracked() else { return };
        let m = &m.0;
        let sd = m.series(h.series);
        let k = m.data.series[h.series].obs[h.obs].point;
        let commit = c3.index.commits[sd.points.commit[k] as usize].id.clone();
        let job = c3.index.jobs[sd.job as usize].id.clone();
        let report =
            c3.index.reports.get(sd.points.report[k] as usize).filter(|r| !r.is_pending()).map(|r| r.id.clone());
        nav.push(|s| {
            s.commit = Some(commit);
            s.job = Some(job);
            s.report = report;
        });
    }
}

/// Detected steps: dashed vertical lines in the series colour at the head commit, over the
/// canvas (HTML, so the drawing code needs no hook), placed with the drawn geometry.
fn step_lines(steps: impl Fn() -> Vec<crate::changes::StepMarker> + 'static, chart: Chart) -> impl Fn() -> String {
    move || -> String {
        chart.draws.track();
        let marks = steps();
        let dpr = web::device_pixel_ratio();
        chart.geometry.with_value(|g| match g {
            Some(g) if !marks.is_empty() => crate::changes::markers_html(
                &marks,
                |slot| g.x(slot) / dpr,
                g.plot.top / dpr,
                (g.plot.bottom - g.plot.top) / dpr,
            )
            .into_string(),
            _ => String::new(),
        })
    }
}

/// The panels under the chart: loading, the error, a hint, or the legend and range pickers.
fn panels_body(
    cat: &Cat,
    nav: Nav,
    data: TrendData,
    steps: impl Fn() -> Vec<crate::changes::StepMarker> + 'static,
) -> impl Fn() -> AnyView {
    let c5 = cat.clone();
    let TrendData { paths, panels, .. } = data;
    move || -> AnyView {
        match panels.get() {
            None => view! { <p class="loading">{move || loading_text(&paths.get())}</p> }.into_any(),
            Some((_, Err(e))) => view! { <div class="error" data-testid="error" role="alert">{e}</div> }.into_any(),
            Some((_, Ok(m))) if m.0.metric.is_empty() => {
                view! { <p class="hint">"Choose a metric above to see its trend."</p> }.into_any()
            }
            Some((_, Ok(m))) if m.0.entries.is_empty() => no_series_hint(&c5, nav, &m.0.metric).into_any(),
            Some((_, Ok(m))) => side_panels(&c5, nav, &m.0, !steps().is_empty()).into_any(),
        }
    }
}

/// The chart's SVG and PNG downloads. SVG: drawn again by the same code into an SVG document, in
/// the page's theme and width; PNG: the canvas as drawn (at the screen's pixel ratio).
fn chart_export(
    nav: Nav,
    model: Memo<Option<TrendResult>>,
    width: RwSignal<f64>,
    canvas: NodeRef<leptos::html::Canvas>,
) -> impl IntoView {
    let dark = expect_context::<crate::ui::theme::Dark>();
    let file = move |ext: &str| {
        let metric = nav.state.with_untracked(|s| s.metric.clone()).unwrap_or_else(|| "trend".into());
        crate::export::file_name(&metric, ext)
    };
    let export_svg = move |_| {
        let Some(Ok(m)) = model.get_untracked() else { return };
        let theme = if dark.0.get_untracked() { &render::chart::DARK } else { &render::chart::LIGHT };
        let m = &m.0;
        let svg = draw::svg(&m.data, &m.slot_labels, m.selected_slot, width.get_untracked().floor(), HEIGHT, theme);
        let _ = web::download(&file("svg"), &svg, "image/svg+xml");
    };
    let export_png = move |_| {
        if let Some(url) = canvas.get_untracked().and_then(|c| c.to_data_url().ok()) {
            let _ = web::download_url(&file("png"), &url);
        }
    };
    view! {
        <div class="chart-export">
            "Export the chart: "
            <button class="export" data-testid="chart-svg" on:click=export_svg>"SVG"</button>
            <button class="export" data-testid="chart-png" on:click=export_png>"PNG"</button>
        </div>
    }
}

/// No matching job measured the metric: say so and offer the scope's headline metrics.
fn no_series_hint(cat: &Cat, nav: Nav, metric: &str) -> impl IntoView {
    let offers = nav.state.with_untracked(|s| crate::search::candidates(cat, s));
    let offers = offers
        .into_iter()
        .filter(|h| h.rank <= 1)
        .take(6)
        .map(|h| {
            let name = h.name.clone();
            view! { <button class="offer" on:click=move |_| nav.push(|s| s.metric = Some(name.clone()))>{h.name}</button> }
        })
        .collect_view();
    view! {
        <div class="hint">
            <p>{format!("No job matching the filters has data for {metric}.")}</p>
            <p>"Widen the filters, or pick one of these: " {offers}</p>
        </div>
    }
}

fn loading_text(paths: &[(String, String)]) -> String {
    match paths.first() {
        Some((_, p)) => format!("loading {}{p}…", web::DATA_DIR),
        None => "loading…".into(),
    }
}

fn tooltip_view(cat: &Cat, m: &TrendModel, h: Hover, width: f64) -> impl IntoView {
    let sd = m.series(h.series);
    let o = &m.data.series[h.series].obs[h.obs];
    let p = &sd.points;
    let k = o.point;
    let commit = &cat.index.commits[p.commit[k] as usize];
    let value = match (o.sd, p.stddev_pct[k]) {
        (Some(abs), Some(pct)) => format!("{} ± {} ({pct:.0}%)", format_value(o.mean), format_value(abs)),
        (Some(_), None) if o.implied => {
            format!("{} ± ≤ 2% (not printed: the robot prints ± only above 2%)", format_value(o.mean))
        }
        _ => format_value(o.mean),
    };
    let runs = match (p.fails.get(k).copied().flatten(), p.runs[k]) {
        (Some(f), Some(r)) => format!("failed in {f} of {r} runs"),
        (_, Some(r)) => format!("{r} runs"),
        _ => "runs unknown".into(),
    };
    // Per-run values, when the source had them (result roots).
    let per_run = p.values.get(k).filter(|v| !v.is_empty()).map(|v| {
        let shown: Vec<String> = v.iter().take(10).map(|x| format_value(*x)).collect();
        let more = if v.len() > 10 { format!(" … ({} in all)", v.len()) } else { String::new() };
        format!("runs: {}{more}", shown.join(", "))
    });
    let report = cat.index.reports.get(p.report[k] as usize).and_then(|r| r.subject.clone()).unwrap_or_default();
    let label = m.entries.iter().find(|e| e.job == sd.job as usize).map(|e| e.label.clone()).unwrap_or_default();
    let change = p.change[k].map(|c| {
        let kind = if p.is_fail(k) { ChangeKind::Reproduction } else { model::stats::change_kind(&sd.metric) };
        let base = p.base[k]
            .and_then(|b| cat.index.commits.get(b as usize))
            .map(|c| c.short().to_string())
            .unwrap_or_default();
        let dir = o.mark.map(|d| d.as_str()).unwrap_or("undefined");
        (format!("reported {} vs {base}", format_change(c, kind)), dir)
    });
    let left = if h.x > width - 320.0 { (h.x - 320.0).max(0.0) } else { h.x + 14.0 };
    view! {
        <div class="tooltip" data-testid="tooltip" style=format!("left:{left}px;top:{}px", h.y + 14.0)>
            <div class="tt-commit">
                <code>{commit.short().to_string()}</code>
                " "
                {commit.subject.clone().unwrap_or_default()}
            </div>
            <div class="tt-value">{value}</div>
            <div class="tt-meta">{format!("{runs} · {label}")}</div>
            {per_run.map(|t| view! { <div class="tt-meta">{t}</div> })}
            {change.map(|(t, dir)| view! { <div class=format!("tt-change dir-{dir}")>{t}{format!(" ({dir})")}</div> })}
            <div class="tt-report">{report}</div>
        </div>
    }
}

/// Legend (show/hide series), range pickers and the marker key.
fn side_panels(cat: &Cat, nav: Nav, m: &TrendModel, has_steps: bool) -> impl IntoView {
    let ids: Vec<String> = m.entries.iter().map(|e| e.job_id.clone()).collect();
    let common = m.common.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("  ");
    let entries = m
        .entries
        .iter()
        .map(|e| {
            let ids = ids.clone();
            let id = e.job_id.clone();
            let swatch = e.color.map(css).unwrap_or_else(|| "transparent".into());
            let title = crate::catalog::Catalog::describe_job(&cat.index.jobs[e.job]);
            view! {
                <li class:hidden=e.color.is_none() title=title>
                    <label>
                        <input
                            type="checkbox"
                            data-job=e.job_id.clone()
                            prop:checked=e.color.is_some()
                            on:change=move |_| nav.replace(|s| views::toggle_job(s, &ids, &id))
                        />
                        <span class="swatch" style=format!("background:{swatch}")></span>
                        <span class="label">{e.label.clone()}</span>
                    </label>
                </li>
            }
        })
        .collect_view();
    // One picker per end of the range; an empty value means "no limit".
    let picker = |which: &'static str, current: Option<String>, open_end: &'static str| {
        let opts = m
            .range_options
            .iter()
            .map(|&c| {
                let id = cat.index.commits[c as usize].id.clone();
                let sel = current.as_deref() == Some(id.as_str());
                view! { <option value=id selected=sel>{commit_option_label(cat, c as usize, 70)}</option> }
            })
            .collect_view();
        let set = move |ev| {
            let v = event_target_value(&ev);
            nav.replace(|s| {
                let v = (!v.is_empty()).then_some(v);
                if which == "from" {
                    s.from = v
                } else {
                    s.to = v
                }
            })
        };
        view! {
            <label>
                {format!(" {which} ")}
                <select data-testid=format!("range-{which}") on:change=set>
                    <option value="" selected=current.is_none()>{open_end}</option>
                    {opts}
                </select>
            </label>
        }
    };
    let (from, to) = nav.state.with_untracked(|s| (s.from.clone(), s.to.clone()));
    let summary = format!(
        "{} of {} series · {} points · {} commits",
        m.data.series.len(),
        m.entries.len(),
        m.data.points(),
        m.data.slots.len()
    );
    view! {
        <div class="below-chart">
            <div class="legend" data-testid="legend">
                <div class="legend-head">
                    <span class="summary">{summary}</span>
                    <span class="common">{common}</span>
                </div>
                <ul>{entries}</ul>
                <div class="marks">
                    <span class="mark regression">"○ reported regression"</span>
                    <span class="mark improvement">"○ reported improvement"</span>
                    <span class="mark undefined">"○ reported change, direction unknown"</span>
                    {has_steps.then(|| view! { <span class="mark step">"┆ detected step"</span> })}
                    <span>"band: mean ± stddev (lighter: ± ≤ 2 %, which mails since 2017-08 do not print) · click a point for its commit"</span>
                </div>
                {dist_link(cat, nav, m)}
            </div>
            <div class="range">{picker("from", from, "oldest")} {picker("to", to, "newest")}</div>
        </div>
    }
}

/// "show latency distribution" for a histogram-bin metric: the selected series' job (else the
/// first drawn), with the selected commit against its report's base when there is one.
fn dist_link(cat: &Cat, nav: Nav, m: &TrendModel) -> Option<impl IntoView> {
    if !crate::dist::is_histogram_metric(&cat.index, &m.metric) {
        return None;
    }
    let drawn: Vec<&views::Entry> = m.entries.iter().filter(|e| e.color.is_some()).collect();
    let (job_pref, commit) = nav.state.with_untracked(|s| (s.job.clone(), s.commit.clone()));
    let entry = drawn.iter().find(|e| job_pref.as_deref() == Some(e.job_id.as_str())).or(drawn.first())?;
    let (job, job_id) = (entry.job, entry.job_id.clone());
    let pair = crate::dist::pair_from_commit(&cat.index, job, commit.as_deref().and_then(|c| cat.commit_pos(c)));
    let id = |c: u32| cat.index.commits[c as usize].id.clone();
    let (base, head) = (pair.map(|p| id(p.0)), pair.map(|p| id(p.1)));
    Some(view! {
        <button class="link" data-testid="show-dist" on:click=move |_| {
            let (job_id, base, head) = (job_id.clone(), base.clone(), head.clone());
            nav.push(|s| {
                s.tab = crate::state::Tab::Dist;
                s.job = Some(job_id);
                s.base = base;
                s.head = head;
            })
        }>"show latency distribution"</button>
    })
}
