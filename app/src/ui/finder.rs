//! The metric finder: a debounced search box over the metric names of the selected
//! testcases, with a keyboard-navigable list (up/down/enter/escape), KPIs first.

use super::{Cat, Nav};
use crate::search::{self, Hit};
use leptos::prelude::*;
use std::time::Duration;

/// At most this many options are rendered; the rest are counted.
const SHOWN: usize = 200;

#[component]
pub fn Finder() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let raw = RwSignal::new(String::new());
    let query = RwSignal::new(String::new());
    let open = RwSignal::new(false);
    let highlight = RwSignal::new(None::<usize>);
    let timer = StoredValue::new_local(None::<TimeoutHandle>);
    let c1 = cat.clone();
    let candidates = Memo::new(move |_| nav.state.with(|s| search::candidates(&c1, s)));
    let hits = Memo::new(move |_| query.with(|q| candidates.with(|c| search::search(c, q))));
    let metric = Memo::new(move |_| nav.state.with(|s| s.metric.clone()));

    let choose = move |name: String| {
        // a pending debounced query would come back 150 ms later and rebuild the list for nothing
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        timer.set_value(None);
        nav.push(|s| s.metric = Some(name));
        raw.set(String::new());
        query.set(String::new());
        open.set(false);
        highlight.set(None);
    };
    let on_input = move |ev| {
        let v = event_target_value(&ev);
        raw.set(v.clone());
        open.set(true);
        highlight.set(None);
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(move || query.set(v), Duration::from_millis(150)).ok();
        timer.set_value(h);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = hits.with(|h| h.len().min(SHOWN));
        match ev.key().as_str() {
            "ArrowDown" | "ArrowUp" => {
                ev.prevent_default();
                open.set(true);
                highlight.update(|h| *h = search::step(*h, n, ev.key() == "ArrowDown"));
            }
            "Enter" => {
                ev.prevent_default();
                // Apply a pending debounced query first, so Enter acts on what is typed.
                if query.get_untracked() != raw.get_untracked() {
                    query.set(raw.get_untracked());
                }
                let pick =
                    hits.with_untracked(|h| h.get(highlight.get_untracked().unwrap_or(0)).map(|h| h.name.clone()));
                if let Some(name) = pick {
                    choose(name);
                }
            }
            "Escape" if open.get_untracked() => {
                ev.prevent_default();
                open.set(false);
                highlight.set(None);
            }
            _ => {}
        }
    };
    // Keep the highlighted option visible while moving with the keys.
    Effect::new(move |_| {
        if highlight.get().is_some() {
            let el = document().query_selector(".options li.active").ok().flatten();
            if let Some(el) = el {
                el.scroll_into_view_with_bool(false);
            }
        }
    });
    let c2 = cat.clone();
    let direction = move || {
        metric.get().map(|m| match c2.direction(&m) {
            1 => "higher is better",
            -1 => "lower is better",
            _ => "direction unknown",
        })
    };
    view! {
        <div class="finder">
            <label class="finder-label" for="metric-search">"Metric"</label>
            <div class="finder-box">
                <input
                    id="metric-search"
                    type="search"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder=move || metric.get().unwrap_or_else(|| "search metrics: substring, or glob with * and ?".into())
                    data-testid="metric-search"
                    role="combobox"
                    aria-controls="metric-options"
                    aria-expanded=move || open.get().to_string()
                    prop:value=move || raw.get()
                    on:input=on_input
                    on:keydown=on_key
                    on:focus=move |_| open.set(true)
                    on:blur=move |_| open.set(false)
                />
                <ul id="metric-options" class="options" role="listbox" aria-label="Metrics" tabindex="-1" class:open=move || open.get()>
                    {move || {
                        hits.with(|h| {
                            let more = h.len().saturating_sub(SHOWN);
                            let items = h.iter().take(SHOWN).enumerate().map(|(i, hit)| option(hit, i, highlight, choose)).collect_view();
                            view! {
                                {items}
                                {(more > 0).then(|| view! { <li class="more">{format!("… {more} more: refine the search")}</li> })}
                                {h.is_empty().then(|| view! { <li class="more">"no metric matches"</li> })}
                            }
                        })
                    }}
                </ul>
            </div>
            <div class="current-metric">
                <strong>{move || metric.get().unwrap_or_else(|| "no metric chosen".into())}</strong>
                <span class="direction">{direction}</span>
            </div>
        </div>
    }
}

fn option(
    hit: &Hit,
    i: usize,
    highlight: RwSignal<Option<usize>>,
    choose: impl Fn(String) + Copy + 'static,
) -> impl IntoView {
    let name = hit.name.clone();
    let badge = match hit.rank {
        0 => Some(view! { <span class="badge headline" title="a report's headline metric">"headline"</span> }),
        1 => Some(view! { <span class="badge kpi" title="testcase KPI">"KPI"</span> }),
        _ => None,
    };
    let n2 = name.clone();
    let n3 = name.clone();
    view! {
        <li
            data-testid="metric-option"
            data-metric=n3
            role="option"
            class:active=move || highlight.get() == Some(i)
            aria-selected=move || (highlight.get() == Some(i)).to_string()
            on:mousedown=move |ev| {
                ev.prevent_default();
                choose(n2.clone());
            }
            on:mouseenter=move |_| highlight.set(Some(i))
        >
            {badge}
            <span class="name">{name}</span>
        </li>
    }
}
