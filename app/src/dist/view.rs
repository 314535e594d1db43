//! The distribution view: the bins of one latency histogram family (`fio.latency_*%`) of a job,
//! base against head, with the notes of the reports behind the numbers. The page is
//! `dist::page_html`; this component loads the job's shard and handles the pickers.

use crate::html::Act;
use crate::state::Tab;
use crate::ui::context::{Cat, Nav};
use crate::{dist, web};
use leptos::prelude::*;

#[component]
pub fn DistView() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let (job, shard) = crate::ui::context::use_job_shard(nav, cat.clone());
    let on_change = move |ev: leptos::ev::Event| {
        if let Some((name, value, _)) = web::control_of(&ev) {
            nav.push(|s| {
                if !dist::apply_control(s, &name, &value) {
                    web::unknown("control", &name);
                }
            });
        }
    };
    let c2 = cat.clone();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some((act, _, _)) = web::action_of(&ev) else { return };
        match act {
            Act::Compare => {
                let id = job.get_untracked().map(|j| cat.index.jobs[j].id.clone());
                nav.push(|s| {
                    s.tab = Tab::Compare;
                    s.job = id;
                });
            }
            Act::Csv | Act::Svg | Act::Png => {
                let Some(Ok(Some(sh))) = shard.get_untracked() else { return };
                let Some(j) = job.get_untracked() else { return };
                nav.state.with_untracked(|s| export(&c2, s, &sh, j, act));
            }
            other => web::unknown("action", other.as_str()),
        }
    };
    let c3 = expect_context::<Cat>();
    let body = move || -> String {
        const HINT: &str = "<p class=\"hint\" data-testid=\"dist-hint\">Choose a latency bin metric (such as \
                            fio.latency_2ms%) and a job: its histogram family is shown here.</p>";
        match shard.get() {
            None => "<p class=\"loading\">loading the job's metrics…</p>".into(),
            Some(Err(e)) => crate::html::alert(&e).into_string(),
            Some(Ok(None)) => HINT.into(),
            Some(Ok(Some(sh))) => nav.state.with(|s| match (job.get(), s.metric.as_deref().and_then(dist::family)) {
                (Some(j), Some(prefix)) => dist::page_html(&c3, s, &sh, j, prefix).into_string(),
                _ => HINT.into(),
            }),
        }
    };
    view! { <section class="dist" data-testid="dist" on:change=on_change on:click=on_click inner_html=body></section> }
}

/// The distribution shown, downloaded as CSV, SVG or PNG (`what`).
fn export(cat: &Cat, s: &crate::state::ViewState, shard: &model::JobShard, job: usize, what: Act) {
    let Some(prefix) = s.metric.as_deref().and_then(dist::family) else { return };
    let Some((pair, d)) = dist::shown(cat, s, shard, job, prefix) else { return };
    let idx = &cat.index;
    let short = |c: u32| idx.commits[c as usize].short().to_string();
    let name = format!("{prefix}{}-{}", short(pair.0), short(pair.1));
    let file = crate::export::file_name(&name, what.as_str());
    let label = crate::catalog::Catalog::describe_job(&idx.jobs[job]);
    let title = format!("{prefix} · base {} → head {}", short(pair.0), short(pair.1));
    let _ = match what {
        Act::Csv => web::download(&file, &crate::export::dist_csv(idx, &d, pair), "text/csv"),
        Act::Svg => web::download(&file, dist::figure_svg(&d, &title, &label).as_str(), "image/svg+xml"),
        _ => {
            let (w, h) = dist::svg_size(&d);
            web::download_svg_as_png(&file, dist::figure_svg(&d, &title, &label).as_str(), w, h)
        }
    };
}
