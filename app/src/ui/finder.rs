//! The metric finder: a debounced search box over the metric names of the selected
//! testcases, with a keyboard-navigable list (up/down/enter/escape), KPIs first.

use super::context::{Cat, Nav};
use crate::search::{self, Hit};
use leptos::prelude::*;
use std::time::Duration;

/// At most this many options are rendered; the rest are counted.
const SHOWN: usize = 200;

/// The search box's state: the text typed, the query searched (the text after a pause), whether
/// the list is open and its highlighted option, and the pending pause.
#[derive(Clone, Copy)]
struct Typed {
    raw: RwSignal<String>,
    query: RwSignal<String>,
    open: RwSignal<bool>,
    highlight: RwSignal<Option<usize>>,
    timer: StoredValue<Option<TimeoutHandle>, LocalStorage>,
}

thread_local! {
    /// The text typed when the explorer was rebuilt (a catalog's rest loaded): the new box
    /// goes on with it, focused.
    static CARRIED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

impl Typed {
    fn new() -> Typed {
        let carried = CARRIED.with(|c| c.take());
        if carried.is_some() {
            crate::web::focus_after_frame("#metric-search".into());
        }
        let text = carried.unwrap_or_default();
        Typed {
            raw: RwSignal::new(text.clone()),
            query: RwSignal::new(text),
            open: RwSignal::new(false),
            highlight: RwSignal::new(None::<usize>),
            timer: StoredValue::new_local(None::<TimeoutHandle>),
        }
    }
}

#[component]
pub fn Finder() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let st = Typed::new();
    let Typed { raw, query, open, highlight, .. } = st;
    on_cleanup(move || {
        if open.try_get_untracked() == Some(true) {
            CARRIED.with(|c| *c.borrow_mut() = raw.try_get_untracked());
        }
    });
    let (ccat, loaded) = (cat.clone(), expect_context::<super::context::Loaded>());
    let c1 = cat.clone();
    let candidates = Memo::new(move |_| nav.state.with(|s| search::candidates(&c1, s)));
    let hits = Memo::new(move |_| query.with(|q| candidates.with(|c| search::search(c, q))));
    let metric = Memo::new(move |_| nav.state.with(|s| s.metric.clone()));
    let choose = chooser(nav, st);
    let on_input = on_input(st);
    let on_key = on_key(st, hits, choose);
    keep_highlight_visible(highlight);
    let c2 = cat.clone();
    let direction = move || metric.get().map(|m| direction_label(c2.direction(&m)));
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
                    on:focus=move |_| {
                        open.set(true);
                        super::context::complete_soon(&ccat, loaded);
                    }
                    on:blur=move |_| open.set(false)
                />
                <ul id="metric-options" class="options" role="listbox" aria-label="Metrics" tabindex="-1" class:open=move || open.get()>
                    {move || hits.with(|h| options(h, highlight, choose))}
                </ul>
            </div>
            <div class="current-metric">
                <strong>{move || metric.get().unwrap_or_else(|| "no metric chosen".into())}</strong>
                <span class="direction">{direction}</span>
            </div>
        </div>
    }
}

/// Choosing a metric: it becomes the view's, and the box is emptied and closed.
fn chooser(nav: Nav, st: Typed) -> impl Fn(String) + Copy + 'static {
    move |name: String| {
        // a pending debounced query would come back 150 ms later and rebuild the list for nothing
        if let Some(h) = st.timer.get_value() {
            h.clear();
        }
        st.timer.set_value(None);
        nav.push(|s| s.metric = Some(name));
        st.raw.set(String::new());
        st.query.set(String::new());
        st.open.set(false);
        st.highlight.set(None);
    }
}

/// Typing: the list opens at once, the query follows after a 150 ms pause.
fn on_input(st: Typed) -> impl Fn(leptos::ev::Event) + 'static {
    move |ev| {
        let v = event_target_value(&ev);
        st.raw.set(v.clone());
        st.open.set(true);
        st.highlight.set(None);
        if let Some(h) = st.timer.get_value() {
            h.clear();
        }
        let query = st.query;
        let h = set_timeout_with_handle(move || query.set(v), Duration::from_millis(150)).ok();
        st.timer.set_value(h);
    }
}

/// Up/Down move the highlight, Enter chooses the highlighted (else the first) hit, Esc closes.
fn on_key(
    st: Typed,
    hits: Memo<Vec<Hit>>,
    choose: impl Fn(String) + Copy + 'static,
) -> impl Fn(leptos::ev::KeyboardEvent) + 'static {
    let Typed { raw, query, open, highlight, .. } = st;
    move |ev: leptos::ev::KeyboardEvent| {
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
    }
}

/// Keep the highlighted option visible while moving with the keys.
fn keep_highlight_visible(highlight: RwSignal<Option<usize>>) {
    Effect::new(move |_| {
        if highlight.get().is_some() {
            let el = document().query_selector(".options li.active").ok().flatten();
            if let Some(el) = el {
                el.scroll_into_view_with_bool(false);
            }
        }
    });
}

fn direction_label(direction: i8) -> &'static str {
    match direction {
        1 => "higher is better",
        -1 => "lower is better",
        _ => "direction unknown",
    }
}

/// The list's options: the first `SHOWN` hits, then how many more, or that none matches.
fn options(h: &[Hit], highlight: RwSignal<Option<usize>>, choose: impl Fn(String) + Copy + 'static) -> impl IntoView {
    let more = h.len().saturating_sub(SHOWN);
    let items = h.iter().take(SHOWN).enumerate().map(|(i, hit)| option(hit, i, highlight, choose)).collect_view();
    view! {
        {items}
        {(more > 0).then(|| view! { <li class="more">{format!("… {more} more: refine the search")}</li> })}
        {h.is_empty().then(|| view! { <li class="more">"no metric matches"</li> })}
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
