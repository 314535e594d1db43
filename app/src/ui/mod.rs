//! Leptos components: thin views over the plain modules. `App` loads the index and shows
//! `Explorer`, which owns the view state and keeps it in the URL.

pub mod commit;
pub mod context;
pub mod filters;
pub mod finder;
pub mod split;
pub mod theme;

use crate::catalog::from_query;
use crate::mail::view as mail;
use crate::reports::view as reports;
use crate::state::{Tab, ViewState};
use crate::web;
use context::{Cat, Loaded, Nav};
use leptos::prelude::*;

/// The testcases whose catalogs the page loads first (`catalog::first_testcases`): those the URL
/// selects; none for the reports view (the first screen: the root, the open report's document) or
/// the newest headlines (Changes of no testcase); the newest report's for the trend of nothing;
/// with another query that selects none (a job, a commit…), every testcase.
/// The reports list starts from the root's newest (`rep` is passed in: an async task has no
/// reactive owner to take a context from).
async fn first_testcases(rep: reports::Reports) -> Result<Vec<String>, String> {
    let root = web::load_json::<model::Root>(model::paths::INDEX).await?;
    let (s, _) = ViewState::parse(&web::current_query());
    rep.set_root(&root);
    Ok(crate::catalog::first_testcases(&root, &s))
}

/// The narrow screens' filter drawer is open.
#[derive(Clone, Copy)]
struct Drawer(RwSignal<bool>);

#[component]
pub fn App() -> impl IntoView {
    let loaded = Loaded(RwSignal::new(None));
    provide_context(loaded);
    let rep = reports::Reports::new();
    provide_context(rep);
    provide_context(crate::mail::state::Mail::new());
    provide_context(Drawer(RwSignal::new(false)));
    theme::provide();
    split::prefetch(&ViewState::parse(&web::current_query()).0);
    leptos::task::spawn_local(async move {
        let whole = !crate::catalog::first_halves_enough(&ViewState::parse(&web::current_query()).0);
        let cat = match first_testcases(rep).await {
            Ok(tcs) => split::load_catalogs(tcs, split::Parts::whole_if(whole)).await,
            Err(e) => Err(e),
        };
        loaded.0.set(Some(cat));
    });
    view! {
        <header class="top" role="banner">
            <h1>"LKP Explorer"</h1>
            <span class="tagline">"Linux kernel test robot performance reports: find one, read it whole, see the job's history"</span>
            <theme::ThemeToggle />
        </header>
        {move || match loaded.0.get() {
            None => view! { <main><p class="status" data-testid="status">"loading data/index.json…"</p></main> }.into_any(),
            Some(Err(e)) => {
                web::reveal_soon();
                view! { <main><div class="error" data-testid="error" role="alert">{e}</div></main> }.into_any()
            }
            Some(Ok(cat)) => view! { <Explorer cat=cat /> }.into_any(),
        }}
    }
}

/// Load the catalogs state `s` needs that are not loaded, then show them (the explorer is
/// rebuilt from the URL, which already says `s`). Returns whether anything is to be loaded.
fn load_missing(cat: &Cat, loaded: Loaded, s: &ViewState) -> bool {
    let missing = cat.missing_for(s);
    if missing.is_empty() && !cat.needs_rest(s) {
        return false;
    }
    let whole = cat.load_whole(s);
    let mut all: Vec<String> = cat.parts.keys().cloned().collect();
    all.extend(missing);
    leptos::task::spawn_local(async move {
        let next = split::load_catalogs(all, split::Parts::whole_if(whole)).await;
        loaded.0.set(Some(next));
    });
    true
}

#[component]
fn Explorer(cat: Cat) -> impl IntoView {
    // a URL write still pending from the explorer this one replaces must land first
    web::flush_url();
    let (initial, notes) = from_query(&cat, &web::current_query());
    let state = RwSignal::new(initial);
    let notices = RwSignal::new(notes);
    web::write_url(&state.get_untracked().to_query(), false);
    let nav = Nav { state };
    provide_context(nav);
    // a mail read, the open drawer outlive an explorer rebuilt by a catalog load (a filter chosen)
    let mail = expect_context::<crate::mail::state::Mail>();
    mail::listen(mail, nav);
    let drawer = expect_context::<Drawer>().0;
    close_on_escape(nav, mail, drawer);
    provide_context(cat.clone());
    let loaded = expect_context::<Loaded>();
    follow_history(&cat, loaded, state, notices);
    load_selected_testcases(&cat, loaded, state);

    let tab = Memo::new(move |_| state.with(|s| s.tab));
    // a static page shows a report: another view has nothing of it to wait for
    if state.with_untracked(|s| s.tab != Tab::Reports) {
        web::reveal_soon();
    }
    // The distribution tab is offered for latency-bin metrics (and while it is open).
    let histograms = crate::dist::families(cat.index.metrics.iter().map(|m| m.name.as_str()));
    let show_dist = move || {
        state.with(|s| {
            s.tab == Tab::Dist
                || s.metric.as_deref().and_then(crate::dist::family).is_some_and(|p| histograms.contains(p))
        })
    };
    let tcat = cat.clone();
    let button =
        move |which: Tab, label: &'static str, testid: &'static str| tab_button(&tcat, nav, tab, which, label, testid);
    view! {
        <Bar cat=cat.clone() drawer=drawer />
        <div class="layout">
            <aside class="filters" id="filters" class:open=move || drawer.get() aria-label="Filters">
                <button class="drawer-close" data-testid="filters-close" on:click=move |_| drawer.set(false)>"Close filters"</button>
                <filters::Filters />
            </aside>
            <main class="content">
                {move || notice_box(notices)}
                <nav class="tabs" aria-label="Views">
                    {button(Tab::Reports, "Reports", "view-tab-reports")}
                    {button(Tab::Trend, "Trend", "view-tab-trend")}
                    {button(Tab::Compare, "Compare", "view-tab-compare")}
                    {button(Tab::Changes, "Changes", "view-tab-changes")}
                    {move || show_dist().then(|| button(Tab::Dist, "Distribution", "view-tab-dist"))}
                </nav>
                {move || tab_view(tab.get())}
                {split::commit_panel(Memo::new(move |_| nav.state.with(|s| s.commit.is_some())))}
            </main>
        </div>
    }
}

/// Back and forward: the URL is the truth; re-read it (loading catalogs it needs first). The
/// explorer is rebuilt when catalogs load: its listener goes with it.
fn follow_history(cat: &Cat, loaded: Loaded, state: RwSignal<ViewState>, notices: RwSignal<Vec<String>>) {
    let popcat = cat.clone();
    let handle = window_event_listener(leptos::ev::popstate, move |_| {
        web::drop_pending_url();
        let query = web::current_query();
        if load_missing(&popcat, loaded, &ViewState::parse(&query).0) {
            return;
        }
        let (s, n) = from_query(&popcat, &query);
        state.set(s);
        notices.set(n);
    });
    on_cleanup(move || handle.remove());
}

/// Selecting a testcase whose catalog is not loaded (or clearing the selection) loads it.
fn load_selected_testcases(cat: &Cat, loaded: Loaded, state: RwSignal<ViewState>) {
    let selection =
        Memo::new(move |_| state.with(|s| s.selected(&crate::state::FacetKey::Testcase).cloned().collect::<Vec<_>>()));
    let lcat = cat.clone();
    // the view needs what the loaded halves of catalogs lack (a commit chosen, another view)
    let c2 = cat.clone();
    let needs_rest = Memo::new(move |_| state.with(|s| c2.needs_rest(s)));
    Effect::new(move |_| {
        // read, not just tracked: a memo nobody reads is never recomputed, and the effect never reruns
        let _selected = selection.get();
        if state.with_untracked(|s| lcat.missing_for(s)).is_empty() && !needs_rest.get() {
            return;
        }
        web::flush_url();
        state.with_untracked(|s| load_missing(&lcat, loaded, s));
    });
}

/// The notices about the URL (what it asked that could not be shown), dismissable.
fn notice_box(notices: RwSignal<Vec<String>>) -> Option<impl IntoView> {
    let n = notices.get();
    (!n.is_empty()).then(|| {
        view! {
            <div class="notice" data-testid="notice" role="status">
                <button class="dismiss" title="dismiss" on:click=move |_| notices.set(vec![])>"×"</button>
                <ul>{n.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
            </div>
        }
    })
}

/// The button of view `which` (active while it is the `tab` shown).
fn tab_button(
    cat: &Cat,
    nav: Nav,
    tab: Memo<Tab>,
    which: Tab,
    label: &'static str,
    testid: &'static str,
) -> impl IntoView {
    let cat = cat.clone();
    view! {
        <button
            class="tab"
            class:active=move || tab.get() == which
            data-testid=testid
            on:click=move |_| nav.push(|s| {
                // the trend (from any view choosing no metric or filter) and the compare of nothing
                // are the newest headline's
                if (which == Tab::Trend && s.metric.is_none() && s.facets.is_empty())
                    || (which == Tab::Compare && s.chooses_nothing())
                {
                    *s = crate::catalog::defaults(&cat);
                }
                s.tab = which;
            })
        >
            {label}
        </button>
    }
}

/// The view of tab `tab`: Reports, the first screen, directly; the others through [`split`]
/// (each in a module of its own in release builds).
fn tab_view(tab: Tab) -> AnyView {
    match tab {
        Tab::Reports => view! { <reports::ReportsView /> }.into_any(),
        other => split::tab(other),
    }
}

/// The bar under the header: the filter drawer's button (narrow screens), the search box, the
/// dataset's size, Copy link, and the mail panel.
#[component]
fn Bar(cat: Cat, drawer: RwSignal<bool>) -> impl IntoView {
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
        "{} reports · {} testcases · {} jobs · {} series · {} points",
        t.reports,
        cat.root.testcases.len(),
        t.jobs,
        t.series,
        t.points,
    );
    view! {
        <section class="bar" aria-label="Search and tools">
            <FiltersToggle drawer=drawer />
            <reports::SearchBox root=cat.root.clone() />
            <span class="status" data-testid="status">{status}</span>
            <button class="copy-link" data-testid="copy-link" on:click=copy_link>"Copy link"</button>
            <span class="copied">{move || copied.get()}</span>
            <mail::MailPanel />
        </section>
    }
}

/// The narrow screens' "Filters (N)" button: opens the drawer (focus on its Close button).
#[component]
fn FiltersToggle(drawer: RwSignal<bool>) -> impl IntoView {
    let nav = expect_context::<Nav>();
    let label = move || match nav.state.with(|s| s.facets.values().map(|v| v.len()).sum::<usize>()) {
        0 => "Filters".to_string(),
        n => format!("Filters ({n})"),
    };
    let toggle = move |_| {
        drawer.update(|d| *d = !*d);
        if drawer.get_untracked() {
            web::focus_after_frame("[data-testid=filters-close]".into());
        }
    };
    view! {
        <button
            class="filters-toggle"
            data-testid="filters-toggle"
            aria-controls="filters"
            aria-expanded=move || drawer.get().to_string()
            on:click=toggle
        >
            {label}
        </button>
    }
}

/// Esc closes the topmost open panel — the mail panel, the filter drawer, then the commit panel —
/// and gives the focus back to what opened it. A key handler that used Esc itself (closing a
/// list of suggestions) prevents its default, and this one leaves it alone.
fn close_on_escape(nav: Nav, mail: crate::mail::state::Mail, drawer: RwSignal<bool>) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() != "Escape" || ev.default_prevented() {
            return;
        }
        if mail.panel.get_untracked() {
            mail.panel.set(false);
            web::focus_after_frame("[data-testid=mail-open]".into());
        } else if drawer.get_untracked() {
            drawer.set(false);
            web::focus_after_frame("[data-testid=filters-toggle]".into());
        } else if nav.state.with_untracked(|s| s.commit.is_some()) {
            nav.push(|s| {
                s.commit = None;
                s.report = None;
            });
        }
    });
    on_cleanup(move || handle.remove());
}
