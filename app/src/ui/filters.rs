//! The facet panel: one box of checkboxes per facet, with counts that follow the other facets.

use super::context::{Cat, Nav};
use crate::facets::{self, Facet, FacetValue};
use crate::state::FacetKey;
use leptos::prelude::*;

#[component]
pub fn Filters() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let total = cat.index.jobs.len();
    // with no testcase's catalog loaded (none chosen) the count is the dataset's, from the root
    let everything = format!("{} jobs in {} testcases", cat.root.totals.jobs, cat.root.testcases.len());
    let c1 = cat.clone();
    let unloaded = cat.unloaded();
    let all =
        Memo::new(move |_| nav.state.with(|s| facets::with_unloaded(facets::facets(&c1.index.jobs, s), &unloaded, s)));
    let c2 = cat.clone();
    let matching = Memo::new(move |_| nav.state.with(|s| facets::matching_jobs(&c2.index.jobs, s).len()));
    let fixed_open = RwSignal::new(false);
    view! {
        <div class="facets-head">
            <h2>"Filters"</h2>
            <span class="matching" data-testid="facets-matching">
                {move || if total == 0 { everything.clone() } else { format!("{} of {total} jobs", matching.get()) }}
            </span>
            <button
                class="link"
                on:click=move |_| {
                    nav.replace(|s| {
                        s.facets.clear();
                        s.jobs.clear();
                    })
                }
            >
                "clear"
            </button>
        </div>
        {move || {
            let (main, fixed): (Vec<Facet>, Vec<Facet>) = all.get().into_iter().partition(|f| !f.is_trivial());
            let n = fixed.len();
            view! {
                {main.into_iter().map(|f| facet_box(nav, cat.clone(), f)).collect_view()}
                <details class="fixed" prop:open=move || fixed_open.get() on:toggle=move |ev| {
                    fixed_open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())
                }>
                    <summary>{format!("{n} parameters with a single value")}</summary>
                    {fixed.into_iter().map(|f| facet_box(nav, cat.clone(), f)).collect_view()}
                </details>
            }
        }}
    }
}

fn facet_box(nav: Nav, cat: Cat, f: Facet) -> impl IntoView {
    let name = f.key.name().to_string();
    let values = f.values.into_iter().map(|v| value_box(nav, cat.clone(), f.key.clone(), v)).collect_view();
    view! {
        <fieldset class="facet" data-testid=format!("facet-{name}")>
            <legend>{name.clone()}</legend>
            <div class="values">{values}</div>
        </fieldset>
    }
}

fn value_box(nav: Nav, cat: Cat, key: FacetKey, v: FacetValue) -> impl IntoView {
    let class =
        format!("facet-value{}{}", if v.count == 0 { " zero" } else { "" }, if v.selected { " selected" } else { "" });
    let shown = if v.value.is_empty() { "(unset)".to_string() } else { v.value.clone() };
    let value = v.value.clone();
    let toggle = move |_| {
        nav.replace(|s| {
            s.toggle(&key, &value);
            s.jobs.clear();
            crate::catalog::forget_outside(&cat, s);
            // A compare job the filters no longer match is forgotten with its commits.
            let keep = s.job.as_deref().and_then(|j| cat.job(j)).is_some_and(|j| facets::job_matches(j, s, None));
            if !keep {
                s.job = None;
                s.base = None;
                s.head = None;
            }
        })
    };
    let title = shown.clone();
    view! {
        <label class=class title=title>
            <input type="checkbox" data-value=v.value.clone() prop:checked=v.selected on:change=toggle />
            <span class="v">{shown}</span>
            <span class="count">{v.count}</span>
        </label>
    }
}
