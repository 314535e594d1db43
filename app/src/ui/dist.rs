//! The distribution view: the bins of one latency histogram family (`fio.latency_*%`) of a job,
//! base against head, with the notes of the reports behind the numbers. The page is
//! `dist::page_html`; this component loads the job's shard and handles the pickers.

use super::{Cat, Nav};
use crate::state::Tab;
use crate::{dist, web};
use leptos::prelude::*;

#[component]
pub fn DistView() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let (job, shard) = super::use_job_shard(nav, cat.clone());
    let on_change = move |ev: leptos::ev::Event| {
        if let Some((name, value, _)) = web::control_of(&ev) {
            nav.push(|s| {
                if !dist::apply_control(s, &name, &value) {
                    web::unknown("control", &name);
                }
            });
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let Some(("compare", _, _)) = web::action_of(&ev).as_ref().map(|(a, v, i)| (a.as_str(), v, i)) {
            let j = job.get_untracked();
            let id = j.map(|j| cat.index.jobs[j].id.clone());
            nav.push(|s| {
                s.tab = Tab::Compare;
                s.job = id;
            });
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
