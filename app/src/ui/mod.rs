//! Leptos components: thin views over the plain modules. `App` loads the index and shows
//! `Explorer`, which owns the view state and keeps it in the URL.

mod changes;
mod commit;
mod compare;
mod dist;
mod filters;
mod finder;
mod trend;

pub use trend::Shared;

use crate::catalog::{from_query, Catalog};
use crate::state::{Tab, ViewState};
use crate::web;
use leptos::prelude::*;
use std::sync::Arc;

/// The view state and how to change it. Filter changes replace the history entry; switching
/// views or selecting a commit pushes one, so Back returns to the previous view.
#[derive(Clone, Copy)]
pub struct Nav {
    pub state: RwSignal<ViewState>,
}

impl Nav {
    // The history write is synchronous and slow in Chromium (several ms): it happens after the
    // next frame, coalesced, so the chart updates first.
    pub fn replace(&self, f: impl FnOnce(&mut ViewState)) {
        self.state.update(f);
        web::write_url_soon(self.state.with_untracked(|s| s.to_query()), false);
    }

    pub fn push(&self, f: impl FnOnce(&mut ViewState)) {
        self.state.update(f);
        web::write_url_soon(self.state.with_untracked(|s| s.to_query()), true);
    }
}

/// The loaded catalog, shared by every component.
pub type Cat = Arc<Catalog>;

/// A job shard as a view sees it: `None` while loading, else the shard (or `None` for no job).
pub type JobShardState = Option<Result<Option<Arc<model::JobShard>>, String>>;

/// The compare job of the view state and its shard, shared by Compare and Distribution.
/// A resource keeps its previous value while the next one loads: the previous job's shard
/// reads as "loading", so no view shows another job's rows under this job.
pub fn use_job_shard(nav: Nav, cat: Cat) -> (Memo<Option<usize>>, Signal<JobShardState>) {
    let c1 = cat.clone();
    let job = Memo::new(move |_| nav.state.with(|s| crate::views::compare_job(&c1, s)));
    let c2 = cat.clone();
    let shard = LocalResource::new(move || web::load_job(c2.clone(), job.get()));
    let current = Signal::derive(move || {
        let loaded = shard.get()?;
        if let (Ok(Some(sh)), Some(j)) = (&loaded, job.get()) {
            if cat.index.jobs.get(j).is_none_or(|jj| jj.id != sh.job) {
                return None;
            }
        }
        Some(loaded)
    });
    (job, current)
}

async fn load_catalog() -> Result<Cat, String> {
    let text = web::fetch_text(model::paths::INDEX).await?;
    let index: model::Index = crate::data::parse_json(model::paths::INDEX, &text)?;
    Ok(Arc::new(Catalog::new(index)))
}

#[component]
pub fn App() -> impl IntoView {
    let catalog = LocalResource::new(load_catalog);
    view! {
        <header class="top">
            <h1>"LKP Explorer"</h1>
            <span class="tagline">"Linux kernel test robot performance numbers, per commit"</span>
        </header>
        {move || match catalog.get() {
            None => view! { <p class="status" data-testid="status">"loading data/index.json…"</p> }.into_any(),
            Some(Err(e)) => view! { <div class="error" data-testid="error" role="alert">{e}</div> }.into_any(),
            Some(Ok(cat)) => view! { <Explorer cat=cat /> }.into_any(),
        }}
    }
}

#[component]
fn Explorer(cat: Cat) -> impl IntoView {
    let (initial, notes) = from_query(&cat, &web::current_query());
    let state = RwSignal::new(initial);
    let notices = RwSignal::new(notes);
    web::write_url(&state.get_untracked().to_query(), false);
    let nav = Nav { state };
    provide_context(nav);
    provide_context(cat.clone());

    // Back and forward: the URL is the truth; re-read it. The explorer lives as long as the
    // page, so the listener is never removed (dropping the handle keeps it).
    let popcat = cat.clone();
    let _ = window_event_listener(leptos::ev::popstate, move |_| {
        web::drop_pending_url();
        let (s, n) = from_query(&popcat, &web::current_query());
        state.set(s);
        notices.set(n);
    });

    let tab = Memo::new(move |_| state.with(|s| s.tab));
    // The distribution tab is offered for latency-bin metrics (and while it is open).
    let histograms = crate::dist::families(cat.index.metrics.iter().map(|m| m.name.as_str()));
    let show_dist = move || {
        state.with(|s| {
            s.tab == Tab::Dist
                || s.metric.as_deref().and_then(crate::dist::family).is_some_and(|p| histograms.contains(p))
        })
    };
    let copied = RwSignal::new(String::new());
    let copy_link = move |_| {
        web::flush_url();
        let href = web::current_href();
        leptos::task::spawn_local(async move {
            copied.set(match web::copy_text(&href).await {
                Ok(()) => "link copied".into(),
                Err(_) => format!("copy failed; the link: {href}"),
            });
        });
    };
    let t = &cat.index.totals;
    let status = format!(
        "{} reports · {} jobs · {} series · {} points · {} commits",
        t.reports,
        t.jobs,
        t.series,
        t.points,
        cat.index.commits.len()
    );
    let tab_button = move |which: Tab, label: &'static str, testid: &'static str| {
        view! {
            <button
                class="tab"
                class:active=move || tab.get() == which
                data-testid=testid
                on:click=move |_| nav.push(|s| s.tab = which)
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="bar">
            <span class="status" data-testid="status">{status}</span>
            <button class="copy-link" data-testid="copy-link" on:click=copy_link>"Copy link"</button>
            <span class="copied">{move || copied.get()}</span>
        </div>
        {move || {
            let n = notices.get();
            (!n.is_empty())
                .then(|| {
                    view! {
                        <div class="notice" data-testid="notice" role="status">
                            <button class="dismiss" title="dismiss" on:click=move |_| notices.set(vec![])>"×"</button>
                            <ul>{n.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
                        </div>
                    }
                })
        }}
        <div class="layout">
            <aside class="filters">
                <filters::Filters />
            </aside>
            <main class="content">
                <nav class="tabs">
                    {tab_button(Tab::Trend, "Trend", "view-tab-trend")}
                    {tab_button(Tab::Compare, "Compare", "view-tab-compare")}
                    {tab_button(Tab::Changes, "Changes", "view-tab-changes")}
                    {move || show_dist().then(|| tab_button(Tab::Dist, "Distribution", "view-tab-dist"))}
                </nav>
                {move || match tab.get() {
                    Tab::Trend => view! {
                        <finder::Finder />
                        <trend::Trend />
                    }
                    .into_any(),
                    Tab::Compare => view! { <compare::CompareView /> }.into_any(),
                    Tab::Changes => view! { <changes::ChangesView /> }.into_any(),
                    Tab::Dist => view! { <dist::DistView /> }.into_any(),
                }}
                <commit::CommitPanel />
            </main>
        </div>
    }
}

/// A commit as `short-id subject`, cut to `max` characters, for select boxes.
pub fn commit_option_label(cat: &Catalog, pos: usize, max: usize) -> String {
    let c = &cat.index.commits[pos];
    let mut s = c.short().to_string();
    if let Some(subj) = &c.subject {
        s.push(' ');
        s.push_str(subj);
    }
    if s.chars().count() > max {
        s = s.chars().take(max).collect::<String>() + "…";
    }
    s
}
