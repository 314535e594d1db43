//! The first screen: the search box, the reports list (newest first, facet-filtered, paged) and
//! the open report's page (its document: every table as Compare shows it, fail:runs rows, the
//! perf-profile call tree, the job's other reports, the reproduce script, the replies' notes).

use crate::html::Act;
use crate::mail::state::{Mail, MailState};
use crate::put;
use crate::reports::{self, found};
use crate::state::{FacetKey, Tab};
use crate::ui::context::{Cat, Nav};
use crate::web;
use leptos::prelude::*;
use model::find::{self, Target};
use model::{ReportDoc, ReportSummary, Upload};
use std::sync::Arc;
use std::time::Duration;

/// Rows of the list shown per page step.
const LIST_STEP: usize = 100;
/// Suggestions under the search box.
const SUGGESTIONS: usize = 8;
/// The pause in typing after which suggestions are searched, and the URL's `q=` written.
const SUGGEST_DELAY: Duration = Duration::from_millis(25);
const URL_DELAY: Duration = Duration::from_millis(250);
/// The further pause before the published index is asked (a shard fetch per word).
const INDEX_DELAY: Duration = Duration::from_millis(150);

/// Every report summary known so far (the root's newest, then every page of the list) and the
/// search index over them. Lives above the explorer, so a catalog load does not drop it.
#[derive(Clone)]
pub struct ListData {
    pub list: Arc<Vec<ReportSummary>>,
    pub index: Arc<find::Index>,
    /// Every page is loaded (else only the root's newest).
    pub complete: bool,
}

#[derive(Clone, Copy)]
pub struct Reports {
    pub data: RwSignal<Option<ListData>>,
    loading: RwSignal<bool>,
    pub error: RwSignal<Option<String>>,
}

fn index_of(root: &model::Root, list: &[ReportSummary]) -> find::Index {
    let tcs: Vec<String> = root.testcases.iter().map(|t| t.name.clone()).collect();
    let mut metrics: Vec<(String, String)> = Vec::new();
    for t in &root.testcases {
        metrics.extend(t.headline_metrics.iter().map(|m| (t.name.clone(), m.clone())));
    }
    for r in list {
        if let (Some(t), Some(m)) = (r.testcases.first(), &r.metric) {
            metrics.push((t.clone(), m.clone()));
        }
    }
    find::Index::new(list, &tcs, &metrics)
}

impl Default for Reports {
    fn default() -> Reports {
        Reports::new()
    }
}

impl Reports {
    pub fn new() -> Reports {
        Reports { data: RwSignal::new(None), loading: RwSignal::new(false), error: RwSignal::new(None) }
    }

    /// Start from the root's newest reports.
    pub fn set_root(self, root: &model::Root) {
        let list = root.newest.clone();
        let index = Arc::new(index_of(root, &list));
        // the root holds every report when there are no more than its newest
        let complete = root.pages.is_empty() || root.newest.len() >= root.totals.reports;
        self.data.set(Some(ListData { list: Arc::new(list), index, complete }));
    }

    /// Load every page of the list once (on a search, a filter, or scrolling past the newest).
    pub fn ensure_all(self, root: Arc<model::Root>) {
        if self.loading.get_untracked() || self.data.with_untracked(|d| d.as_ref().is_none_or(|d| d.complete)) {
            return;
        }
        self.loading.set(true);
        leptos::task::spawn_local(async move {
            let mut all = Vec::new();
            for p in &root.pages {
                match web::load_json::<model::ReportPage>(p).await {
                    Ok(page) => all.extend(page.reports.iter().cloned()),
                    Err(e) => {
                        self.error.set(Some(e));
                        self.loading.set(false);
                        return;
                    }
                }
            }
            let index = Arc::new(index_of(&root, &all));
            self.data.set(Some(ListData { list: Arc::new(all), index, complete: true }));
            self.loading.set(false);
        });
    }
}

/// What the search box does with a chosen suggestion.
fn open_target(nav: Nav, list: &[ReportSummary], t: &Target) {
    nav.push(|s| {
        s.q = None;
        match t {
            Target::Report(i) => {
                if let Some(key) = list.get(*i).map(reports::permalink_key) {
                    s.open_report(key);
                } else {
                    s.tab = Tab::Reports;
                    s.open = None;
                    s.row = None;
                }
            }
            Target::Message(m) => {
                s.open_report(m.clone());
            }
            Target::Found { key, .. } => s.open_report(key.clone()),
            Target::Testcase(tc) => {
                s.tab = Tab::Reports;
                s.facets.clear();
                s.facets.insert(FacetKey::Testcase, [tc.clone()].into());
            }
            Target::Metric { testcase, metric } => s.show_trend(testcase.clone(), metric.clone(), None, false),
        }
    });
}

fn target_label(list: &[ReportSummary], t: &Target) -> (String, String) {
    match t {
        Target::Report(i) => {
            let r = &list[*i];
            (r.subject.clone().unwrap_or_else(|| r.id.clone()), r.date.clone().unwrap_or_default())
        }
        Target::Message(m) => (format!("open report <{m}>"), "by Message-ID".into()),
        Target::Found { title, sub, .. } => (title.clone(), sub.clone()),
        Target::Testcase(t) => (t.clone(), "testcase: its reports".into()),
        Target::Metric { testcase, metric } => (metric.clone(), format!("metric of {testcase}: its trend")),
    }
}

/// The search box's two timers. Suggestions wait for a short pause (a burst of keys is searched
/// once; a search of 10^4 reports takes a few ms, so keystroke to suggestions stays under 50 ms);
/// the URL's `q=` for a longer one (a history write costs several ms in Chromium).
#[derive(Clone, Copy)]
struct Pauses {
    suggest: StoredValue<Option<TimeoutHandle>, LocalStorage>,
    url: StoredValue<Option<TimeoutHandle>, LocalStorage>,
}

impl Pauses {
    fn new() -> Pauses {
        Pauses { suggest: StoredValue::new_local(None), url: StoredValue::new_local(None) }
    }

    fn cancel(self) {
        for t in [self.suggest, self.url] {
            if let Some(h) = t.get_value() {
                h.clear();
            }
        }
    }

    /// `v` was typed: search it after a short pause, write it to the URL after a longer one.
    fn typed(self, v: String, query: RwSignal<String>, nav: Nav) {
        self.cancel();
        let v2 = v.clone();
        self.suggest.set_value(set_timeout_with_handle(move || query.set(v2), SUGGEST_DELAY).ok());
        let write_url = move || {
            let q = (!v.trim().is_empty()).then(|| v.clone());
            nav.replace(|s| s.q = q);
        };
        self.url.set_value(set_timeout_with_handle(write_url, URL_DELAY).ok());
    }
}

/// The search box's state: the text typed, the query searched (the text after a pause), whether
/// the suggestions are open and the highlighted one, and the pending pauses.
#[derive(Clone, Copy)]
struct Typed {
    raw: RwSignal<String>,
    query: RwSignal<String>,
    open: RwSignal<bool>,
    highlight: RwSignal<Option<usize>>,
    pauses: Pauses,
}

thread_local! {
    /// The text in the search box while it had the focus when the explorer was rebuilt (a
    /// catalog loaded): the new box goes on with it.
    static CARRIED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The search box: suggestions as you type (after a 25 ms pause), arrows move, Enter opens the best (or
/// highlighted) match, Esc closes; `/` anywhere focuses it.
#[component]
pub fn SearchBox(root: Arc<model::Root>) -> impl IntoView {
    let nav = expect_context::<Nav>();
    let rep = expect_context::<Reports>();
    // the text typed into the box the rebuilt explorer replaced goes on (its URL write with it)
    let carried = CARRIED.with(|c| c.take());
    let raw =
        RwSignal::new(carried.clone().unwrap_or_else(|| nav.state.with_untracked(|s| s.q.clone().unwrap_or_default())));
    let query = RwSignal::new(raw.get_untracked());
    let open = RwSignal::new(false);
    let highlight = RwSignal::new(None::<usize>);
    let pauses = Pauses::new();
    let st = Typed { raw, query, open, highlight, pauses };
    if let Some(text) = carried {
        pauses.typed(text, query, nav);
    }
    let mail = expect_context::<Mail>();
    let found = found_by_index(root.clone(), query);
    let hits = Memo::new(move |_| {
        let q = query.get();
        let local = rep.data.with(|d| d.as_ref().map(|d| d.index.search(&q, SUGGESTIONS)).unwrap_or_default());
        merged(found.with(|f| f.as_ref().filter(|f| f.query == q).map(|f| f.reports.clone())), local, &rep)
    });
    if !raw.get_untracked().is_empty() && root.search.is_empty() {
        rep.ensure_all(root.clone());
    }
    let on_input = on_input(nav, rep, root, st);
    let choose = chooser(nav, rep, mail, st);
    let on_key = on_key(st, hits, choose);
    let slash = focus_on_slash();
    on_cleanup(move || {
        slash.remove();
        pauses.cancel();
        if open.try_get_untracked() == Some(true) {
            CARRIED.with(|c| *c.borrow_mut() = raw.try_get_untracked());
        }
    });
    let items = move || {
        let list = rep.data.with(|d| d.as_ref().map(|d| d.list.clone())).unwrap_or_default();
        suggestions(&list, hits.get(), highlight, choose)
    };
    view! {
        <div class="search" role="search">
            <label class="visually-hidden" for="report-search">"Search reports"</label>
            <input
                id="report-search"
                type="search"
                autocomplete="off"
                spellcheck="false"
                placeholder="Search: commit title, author, address, Message-ID, lore URL, commit id, testcase; s: a: t: c: m: d:  ( / )"
                data-testid="report-search"
                role="combobox"
                aria-controls="report-search-options"
                aria-expanded=move || open.get().to_string()
                prop:value=move || raw.get()
                on:input=on_input
                on:keydown=on_key
                on:focus=move |_| open.set(true)
                on:blur=move |_| open.set(false)
            />
            <ul
                id="report-search-options"
                class="options"
                role="listbox"
                aria-label="Suggestions"
                tabindex="-1"
                class:open=move || open.get() && !raw.get().trim().is_empty()
                data-query=move || found.with(|f| f.as_ref().map(|f| f.query.clone())).filter(|q| *q == query.get())
            >
                {items}
                {move || (hits.with(|h| h.is_empty()) && !query.get().trim().is_empty())
                    .then(|| view! { <li class="more">{move || if rep.loading.get() || found.with(|f| f.as_ref().is_none_or(|f| f.query != query.get())) { "searching…" } else { "nothing matches" }}</li> })}
                <li class="more" class:hidden=move || found.with(|f| f.as_ref().is_none_or(|f| f.hints.is_empty() && f.meaning.is_none())) inner_html=move || found.with(|f| f.as_ref().map(said).unwrap_or_default())></li>
            </ul>
        </div>
    }
}

/// The reports the published index finds for the query (none without an index): searched when
/// the query changes; an answer to an older query is dropped.
fn found_by_index(root: Arc<model::Root>, query: RwSignal<String>) -> RwSignal<Option<found::Found>> {
    let out = RwSignal::new(None::<found::Found>);
    Effect::new(move |_| {
        let q = query.get();
        let index = root.search.clone();
        if index.is_empty() {
            return;
        }
        if q.trim().is_empty() {
            out.set(None);
            return;
        }
        // looked up once typing pauses: each word typed half-way would fetch a shard of its own
        set_timeout(
            move || {
                if query.try_get_untracked().as_deref() != Some(q.as_str()) {
                    return;
                }
                let text = q.clone();
                let done = move |got: Result<found::Found, String>| {
                    let got = got.unwrap_or_else(|e| found::Found {
                        query: q.clone(),
                        hints: vec![format!("search: {e}")],
                        ..Default::default()
                    });
                    // (the box may be gone by now: the explorer rebuilt while the index answered)
                    if query.try_get_untracked().as_deref() == Some(q.as_str()) {
                        let _ = out.try_set(Some(got));
                    }
                };
                crate::ui::split::search_index(index, text, Box::new(done));
            },
            INDEX_DELAY,
        );
    });
    out
}

/// What the bar says about a query: its hints (`search-hint`), then what its prefixes ask
/// (`search-meaning`).
fn said(f: &found::Found) -> String {
    let mut h = crate::html::Html::new();
    for hint in &f.hints {
        put!(h, "<span class=\"hint\" data-testid=\"search-hint\">{}</span> ", hint.as_str());
    }
    if let Some(m) = &f.meaning {
        put!(h, "<span data-testid=\"search-meaning\">{}</span>", m.as_str());
    }
    h.into_string()
}

/// A found report as its suggestion: subject; date and headline.
fn found_target(r: &ReportSummary) -> Target {
    let sub = [r.date.as_deref().map(reports::short_date), Some(reports::headline_text(r))]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
    Target::Found {
        key: reports::permalink_key(r),
        title: r.subject.clone().unwrap_or_else(|| r.id.clone()),
        sub,
        word: r.word.clone(),
    }
}

/// The suggestions: the reports the index found (ranked), then the local ones (testcases,
/// metrics, a Message-ID to open, the newest reports) not among them, `SUGGESTIONS` at most.
fn merged(found: Option<Vec<ReportSummary>>, local: Vec<find::Hit>, rep: &Reports) -> Vec<find::Hit> {
    let found = found.unwrap_or_default();
    let ids: Vec<String> = found.iter().map(|r| r.id.clone()).collect();
    let dup = |h: &find::Hit| match &h.target {
        Target::Report(i) => {
            rep.data.with_untracked(|d| d.as_ref().and_then(|d| d.list.get(*i)).is_some_and(|r| ids.contains(&r.id)))
        }
        _ => false,
    };
    let mut out: Vec<find::Hit> = found.into_iter().map(|r| find::Hit { target: found_target(&r), score: 0 }).collect();
    out.extend(local.into_iter().filter(|h| !dup(h)));
    out.truncate(SUGGESTIONS);
    out
}

/// Typing: the suggestions open (the whole list loads), searched and written to the URL after pauses.
fn on_input(nav: Nav, rep: Reports, root: Arc<model::Root>, st: Typed) -> impl Fn(leptos::ev::Event) + 'static {
    move |ev| {
        let v = event_target_value(&ev);
        st.raw.set(v.clone());
        st.open.set(true);
        st.highlight.set(None);
        if root.search.is_empty() {
            rep.ensure_all(root.clone());
        }
        st.pauses.typed(v, st.query, nav);
    }
}

/// Choosing a suggestion opens its target and empties and closes the box.
fn chooser(nav: Nav, rep: Reports, mail: Mail, st: Typed) -> impl Fn(Target) + Copy + 'static {
    move |t: Target| {
        // a pending suggestion search or URL write of the typed text must not come back after this
        st.pauses.cancel();
        mail.close();
        rep.data.with_untracked(|d| {
            if let Some(d) = d {
                open_target(nav, &d.list, &t);
            }
        });
        st.raw.set(String::new());
        st.query.set(String::new());
        st.open.set(false);
    }
}

/// Up/Down move the highlight, Enter chooses the highlighted (else the best) match, Esc closes.
fn on_key(
    st: Typed,
    hits: Memo<Vec<find::Hit>>,
    choose: impl Fn(Target) + Copy + 'static,
) -> impl Fn(leptos::ev::KeyboardEvent) + 'static {
    let Typed { raw, query, open, highlight, .. } = st;
    move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "ArrowDown" | "ArrowUp" => {
            ev.prevent_default();
            open.set(true);
            let n = hits.with_untracked(|h| h.len());
            highlight.update(|h| *h = crate::search::step(*h, n, ev.key() == "ArrowDown"));
        }
        "Enter" => {
            ev.prevent_default();
            if query.get_untracked() != raw.get_untracked() {
                query.set(raw.get_untracked());
            }
            let pick = hits.with_untracked(|h| h.get(highlight.get_untracked().unwrap_or(0)).map(|h| h.target.clone()));
            if let Some(t) = pick {
                choose(t);
            }
        }
        "Escape" if open.get_untracked() => {
            // closes the suggestions only (not also a panel: see `ui::close_on_escape`)
            ev.prevent_default();
            open.set(false);
        }
        _ => {}
    }
}

/// `/` outside an editable element focuses the search box.
fn focus_on_slash() -> WindowListenerHandle {
    window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "/" && !web::is_editable(ev.target()) {
            if let Some(el) = document().get_element_by_id("report-search") {
                ev.prevent_default();
                let _ = wasm_bindgen::JsCast::unchecked_into::<web_sys::HtmlElement>(el).focus();
            }
        }
    })
}

/// The suggestions: each hit's title and what it opens; a mouse press chooses it.
fn suggestions(
    list: &[ReportSummary],
    hits: Vec<find::Hit>,
    highlight: RwSignal<Option<usize>>,
    choose: impl Fn(Target) + Copy + 'static,
) -> impl IntoView {
    hits.into_iter()
        .enumerate()
        .map(|(i, h)| {
            let (title, sub) = target_label(list, &h.target);
            let class = match &h.target {
                Target::Found { word, .. } => format!("sub {}", reports::word_class(word)),
                _ => "sub".to_string(),
            };
            let t = h.target.clone();
            view! {
                <li
                    data-testid="search-option"
                    role="option"
                    class:active=move || highlight.get() == Some(i)
                    aria-selected=move || (highlight.get() == Some(i)).to_string()
                    on:mousedown=move |ev| {
                        ev.prevent_default();
                        choose(t.clone());
                    }
                    on:mouseenter=move |_| highlight.set(Some(i))
                >
                    <span class="name">{title}</span>
                    <span class=class>{sub}</span>
                </li>
            }
        })
        .collect_view()
}

/// The reports list as filtered: every summary known, the positions the filters keep, whether
/// the list is whole.
type Filtered = Memo<Option<(Arc<Vec<ReportSummary>>, Vec<usize>, bool)>>;

/// The reports tab: the list beside (or, narrow, above) the open report.
#[component]
pub fn ReportsView() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let mail = expect_context::<Mail>();
    let cat = expect_context::<Cat>();
    let rep = expect_context::<Reports>();
    let filtered = filtered_list(nav, rep, cat.root.clone());
    let shown = RwSignal::new(LIST_STEP);
    // the open report: the URL's, else the first of the list
    let open_key = Memo::new(move |_| {
        nav.state.with(|s| s.open.clone()).or_else(|| {
            filtered.with(|f| f.as_ref().and_then(|(l, ix, _)| ix.first().map(|&i| reports::permalink_key(&l[i]))))
        })
    });
    let on_click = on_list_click(nav, mail, rep, cat.root.clone(), shown);
    let on_key = on_list_key(nav, filtered, shown, open_key);
    let list_view = list_view(rep, filtered, shown, open_key);
    view! {
        <div class="reports-layout">
            <section class="reports-list" aria-label="Reports">
                {move || rep.error.get().map(|e| view! { <div class="error" data-testid="error" role="alert">{e}</div> })}
                <div on:click=on_click on:keydown=on_key inner_html=list_view></div>
            </section>
            <section class="report-pane" aria-label="Report">
                {report_pane(mail, open_key)}
            </section>
        </div>
    }
}

/// The list the filters keep (a filter loads the whole list first).
fn filtered_list(nav: Nav, rep: Reports, root: Arc<model::Root>) -> Filtered {
    Memo::new(move |_| {
        let has_facets = nav.state.with(|s| !s.facets.is_empty());
        if has_facets {
            rep.ensure_all(root.clone());
        }
        rep.data.with(|d| {
            let d = d.as_ref()?;
            Some((d.list.clone(), nav.state.with(|s| reports::filter(&d.list, s)), d.complete))
        })
    })
}

/// The list's buttons: open a report, show more rows.
fn on_list_click(
    nav: Nav,
    mail: Mail,
    rep: Reports,
    root: Arc<model::Root>,
    shown: RwSignal<usize>,
) -> impl Fn(leptos::ev::MouseEvent) + 'static {
    move |ev: leptos::ev::MouseEvent| {
        let Some((act, value, _)) = web::action_of(&ev) else { return };
        match act {
            // a report's link: the page's own with a modifier (a new tab), else opened in place
            Act::Open if !web::plain_click(&ev) => {}
            Act::Open => {
                ev.prevent_default();
                // also when it is the open report: a mail shown instead of it gives way
                mail.close();
                nav.push(|s| {
                    s.open_report(value);
                })
            }
            Act::More => {
                rep.ensure_all(root.clone());
                shown.update(|n| *n += LIST_STEP);
            }
            other => web::unknown("action", other.as_str()),
        }
    }
}

/// Up/Down move the open report through the shown rows (the history entry is replaced, as a
/// filter change is), keeping the focus on the list; Enter on a row opens it (a link).
fn on_list_key(
    nav: Nav,
    filtered: Filtered,
    shown: RwSignal<usize>,
    open_key: Memo<Option<String>>,
) -> impl Fn(leptos::ev::KeyboardEvent) + 'static {
    move |ev: leptos::ev::KeyboardEvent| {
        let down = match ev.key().as_str() {
            "ArrowDown" => true,
            "ArrowUp" => false,
            _ => return,
        };
        let next = filtered.with_untracked(|f| {
            let (list, ix, _) = f.as_ref()?;
            let n = shown.get_untracked().min(ix.len());
            reports::step_key(list, &ix[..n], open_key.get_untracked().as_deref(), down)
        });
        let Some(next) = next else { return };
        ev.prevent_default();
        let sel = format!(".report-list a[data-value=\"{}\"]", next.replace('\\', "\\\\").replace('"', "\\\""));
        nav.replace(|s| {
            s.open_report(next);
        });
        web::focus_after_frame(sel);
    }
}

/// The list's HTML: its count, the first `shown` rows, "Show more", or that none matches.
fn list_view(
    rep: Reports,
    filtered: Filtered,
    shown: RwSignal<usize>,
    open_key: Memo<Option<String>>,
) -> impl Fn() -> String + 'static {
    move || {
        let Some((list, ix, complete)) = filtered.get() else { return String::new() };
        let total = rep.data.with(|d| d.as_ref().map_or(0, |d| d.list.len()));
        let n = shown.get().min(ix.len());
        let count = if complete {
            format!("{} of {total} reports", ix.len())
        } else {
            format!("the {} newest reports", ix.len())
        };
        let mut html = crate::html::Html::new();
        crate::put!(
            html,
            "<p class=\"list-count\" data-testid=\"reports-count\">{}</p><ol class=\"report-list\" data-testid=\"report-list\">",
            count
        );
        html.html(&reports::list_html(&list, &ix[..n], open_key.get().as_deref())).lit("</ol>");
        if n < ix.len() || !complete {
            put!(html, "<button data-testid=\"reports-more\" data-act=\"{}\">Show more</button>", Act::More);
        }
        if ix.is_empty() && complete {
            html.lit("<p class=\"hint\">No report matches the filters.</p>");
        }
        html.into_string()
    }
}

/// The report pane: the open report, or the mail being read in the browser (or why it failed).
fn report_pane(mail: Mail, open_key: Memo<Option<String>>) -> impl Fn() -> AnyView + 'static {
    move || match mail.state.get() {
        MailState::Idle => match open_key.get() {
            Some(k) => view! { <ReportPage key=k /> }.into_any(),
            None => {
                web::reveal_soon();
                ().into_any()
            }
        },
        MailState::Reading(n) => view! {
            <p class="loading" data-testid="mail-reading">{format!("reading {n} in this browser…")}</p>
        }
        .into_any(),
        MailState::Failed(e) => view! {
            <div class="error" data-testid="error" role="alert">
                {e} " " <button on:click=move |_| mail.close()>"Close"</button>
            </div>
        }
        .into_any(),
        MailState::Read(up) => view! { <MailReport up=up /> }.into_any(),
    }
}

/// The document of report `key`: at hand, else from its page `page` (`None`: not known yet).
async fn load_doc(key: String, page: Option<String>) -> Result<Arc<ReportDoc>, String> {
    if let Some(d) = web::report_doc_here(&key).await {
        return Ok(d);
    }
    // the whole reports list is on its way, and the document is asked for anew with it
    let Some(page) = page else { return std::future::pending().await };
    web::report_doc(&page).await.map_err(|e| format!("no report {key}: {e}"))
}

/// One report's page, from its document.
#[component]
fn ReportPage(key: String) -> impl IntoView {
    let rep = expect_context::<Reports>();
    let cat = expect_context::<Cat>();
    let by_id = key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit());
    if by_id {
        // an address by report id: its page is named by its Message-ID, which the reports list says
        rep.ensure_all(cat.root.clone());
    }
    let doc = LocalResource::new(move || {
        let page = match by_id {
            false => Some(key.clone()),
            true => rep.data.with(|d| {
                let d = d.as_ref()?;
                let listed = d.list.iter().find(|r| r.id == key).map(reports::permalink_key);
                listed.or_else(|| d.complete.then(|| key.clone()))
            }),
        };
        load_doc(key.clone(), page)
    });
    move || match doc.get() {
        None => view! { <p class="loading">"loading the report…"</p> }.into_any(),
        got => {
            // the report (or why not) is drawn: the static page it came from gives way
            web::reveal_soon();
            match got {
                Some(Ok(d)) => report_page(d, None).into_any(),
                _ => view! { <div class="error" data-testid="error" role="alert">{got.and_then(|g| g.err())}</div> }
                    .into_any(),
            }
        }
    }
}

/// A mail read in the browser: the box saying so (and the hosted copy, if any), then its report.
#[component]
fn MailReport(up: Arc<Upload>) -> impl IntoView {
    let mail = expect_context::<Mail>();
    let nav = expect_context::<Nav>();
    let rep = expect_context::<Reports>();
    let cat = expect_context::<Cat>();
    // the whole list, to tell whether the hosted data has this report
    rep.ensure_all(cat.root.clone());
    let pick = mail.pick;
    let u1 = up.clone();
    let banner = move || {
        let id = u1.docs.get(pick.get()).map(|d| d.id.clone());
        let key = rep.data.with(|d| {
            let d = d.as_ref()?;
            d.list.iter().find(|r| Some(&r.id) == id.as_ref()).map(reports::permalink_key)
        });
        crate::mail::result_html(&u1, pick.get(), key.as_deref()).into_string()
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some((act, value, _)) = web::action_of(&ev) else { return };
        match act {
            Act::MailClose => mail.close(),
            Act::MailPick => pick.set(value.parse().unwrap_or(0)),
            Act::Open => {
                mail.close();
                nav.push(|s| s.open_report(value));
            }
            other => web::unknown("action", other.as_str()),
        }
    };
    view! {
        <div on:click=on_click inner_html=banner></div>
        {move || up.docs.get(pick.get()).map(|d| report_page(Arc::new(d.clone()), Some(up.clone())))}
    }
}

/// A report's page; `mail` when it was read in the browser (its scripts are there).
fn report_page(d: Arc<ReportDoc>, mail: Option<Arc<Upload>>) -> impl IntoView {
    let cat = expect_context::<Cat>();
    let nav = expect_context::<Nav>();
    let c2 = cat.clone();
    let tables = Arc::new(reports::tables(&d, &move |m| c2.direction(m)));
    let c3 = cat.clone();
    // the catalog's link (it may know the full id from a git log), else the document's own
    let top = reports::head_top(&d).into_string();
    let facts = reports::head_facts(&d, &move |id| c3.commit_pos(id).and_then(|i| c3.index.commits[i].url.clone()))
        .into_string();
    let all = RwSignal::new(false);
    let (t2, id) = (tables.clone(), d.id.clone());
    let body = move || {
        let f = nav.state.with(|s| reports::TableFilter { ns: s.ns.clone(), dir: s.dir, sort: s.sort, all: all.get() });
        reports::tables_html(&tables, &f, reports::Form::App).into_string()
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some((act, value, _)) = web::action_of(&ev) else { return };
        match act {
            Act::Sort => nav.replace(|s| s.sort = value.parse().unwrap_or_default()),
            Act::All => all.set(true),
            Act::Csv => {
                let Some(i) = value.parse::<usize>().ok().filter(|&i| i < t2.len()) else { return };
                crate::ui::split::table_csv(format!("{id}-table-{}", i + 1), t2[i].clone());
            }
            other => web::unknown("action", other.as_str()),
        }
    };
    let on_change = move |ev: leptos::ev::Event| {
        let Some((name, value, _)) = web::control_of(&ev) else { return };
        match name.as_str() {
            "ns" => nav.replace(|s| s.ns = (!value.is_empty()).then_some(value)),
            "dir" => nav.replace(|s| s.dir = value.parse().ok()),
            other => web::unknown("control", other),
        }
    };
    let script = d.script.clone();
    let file_name = format!("reproduce-{}.sh", d.jobs.first().map_or("lkp", |j| j.testcase.as_str()));
    let inline = script.as_ref().and_then(|h| mail.as_ref()?.scripts.get(h).cloned());
    let script = match inline {
        Some(text) => Some(crate::ui::commit::script_box(text, file_name).into_any()),
        None => script.map(|h| view! { <Script hash=h file_name=file_name /> }.into_any()),
    };
    view! {
        <article class="report" class:from-mail=mail.is_some() data-testid="report-page" data-report-id=d.id.clone()>
            <div inner_html=top></div>
            {mail.is_none().then(|| view! { <Around doc=d.clone() /> })}
            <div inner_html=facts></div>
            <JobHistory doc=d.clone() />
            <div on:click=on_click on:change=on_change inner_html=body></div>
            <h3>"Reproduce"</h3>
            {script}
        </article>
    }
}

/// The report's headline metric in other reports, and its commit's: the part of its static page
/// the importer made over every report (`render::record`), from the page being taken over, else
/// fetched from the report's page (nothing while it loads; why not, when it cannot). Below it, on
/// demand, the record of any of its rows (`split::row_record`).
#[component]
fn Around(doc: Arc<ReportDoc>) -> impl IntoView {
    let nav = expect_context::<Nav>();
    // a report's link opens it in place (with a modifier: the page's own, in a new tab)
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(href) = web::link_of(&ev) else { return };
        let Some(key) = render::record::report_of_link(&href) else { return };
        if web::plain_click(&ev) {
            ev.prevent_default();
            let key = key.to_string();
            nav.push(|s| s.open_report(key));
        }
    };
    // opened by its button, or by the address naming a row (`row=`): then it stays open
    let open = RwSignal::new(nav.state.with_untracked(|s| s.row.is_some()));
    let shown = Memo::new(move |_| open.get() || nav.state.with(|s| s.row.is_some()));
    let d = doc.clone();
    let rows = move || shown.get().then(|| crate::ui::split::row_record(d.clone()));
    let more = view! {
        <button class="row-record-open" data-testid="row-record-open" hidden=shown on:click=move |_| open.set(true)>
            "The record of another of its rows…"
        </button>
        {rows}
    };
    let part = match web::static_around(&doc.id) {
        Some(html) => view! { <div class="around" inner_html=html></div> }.into_any(),
        None => fetched_around(&doc).into_any(),
    };
    view! { <div on:click=on_click>{part}{more}</div> }
}

/// The part of the report's page that shows other reports, fetched (nothing while it loads).
fn fetched_around(doc: &ReportDoc) -> impl IntoView {
    let key = doc.message_id.clone().unwrap_or_else(|| doc.id.clone());
    let got = LocalResource::new(move || {
        let k = key.clone();
        async move { web::fetched_around(&k).await }
    });
    move || match got.get() {
        None => None,
        Some(Ok(h)) => Some(view! { <div class="around" inner_html=h.to_string()></div> }.into_any()),
        Some(Err(e)) => Some(
            view! { <p class="hint" data-testid="record-error">{format!("The metric's record: {e}")}</p> }.into_any(),
        ),
    }
}

#[component]
fn Script(hash: String, file_name: String) -> impl IntoView {
    let text = LocalResource::new(move || {
        let h = hash.clone();
        async move { web::load_text(&model::paths::script(&h)).await }
    });
    move || match text.get() {
        None => view! { <p class="loading">"loading the reproduce script…"</p> }.into_any(),
        Some(Err(e)) => view! { <div class="error" data-testid="error">{e}</div> }.into_any(),
        Some(Ok(t)) => crate::ui::commit::script_box(t.to_string(), file_name.clone()).into_any(),
    }
}

/// Where a job history reads the job's other reports, decided once per report page.
enum HistorySource {
    /// The job's position in the loaded catalog.
    Catalog(usize),
    /// Its file of the reports list by job (`Root::by_job`), fetched on its own.
    ByJob(LocalResource<Result<Arc<model::ReportPage>, String>>),
    /// The reports list: whole in the root, or loaded page by page (older datasets).
    List,
}

impl HistorySource {
    fn of(cat: &Cat, rep: Reports, job: &str) -> HistorySource {
        if let Some(j) = cat.job_pos(job) {
            return HistorySource::Catalog(j);
        }
        let whole = rep.data.with_untracked(|d| d.as_ref().is_some_and(|d| d.complete));
        match cat.root.by_job_file(job).filter(|_| !whole) {
            Some(f) => {
                let f = f.to_string();
                HistorySource::ByJob(LocalResource::new(move || {
                    let f = f.clone();
                    async move { web::load_json::<model::ReportPage>(&f).await }
                }))
            }
            None => {
                rep.ensure_all(cat.root.clone());
                HistorySource::List
            }
        }
    }
}

/// Other reports of this report's job, and its trend when they measured ≥ 3 commits.
#[component]
fn JobHistory(doc: Arc<ReportDoc>) -> impl IntoView {
    let rep = expect_context::<Reports>();
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let mail = expect_context::<Mail>();
    let target = StoredValue::new(None::<(String, String, String)>);
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some((act, value, _)) = web::action_of(&ev) else { return };
        if act == Act::Open && !web::plain_click(&ev) {
            return;
        }
        ev.prevent_default();
        match act {
            Act::Open => {
                mail.close();
                nav.push(|s| s.open_report(value))
            }
            Act::Trend => {
                if let Some((tc, m, job)) = target.get_value() {
                    // the reports list has no catalog to match the job against the filters
                    nav.push(|s| s.show_trend(tc, m, Some(job), false));
                }
            }
            other => web::unknown("action", other.as_str()),
        }
    };
    let me = ReportSummary::of(&doc);
    let tc = me.testcases.first().cloned().unwrap_or_default();
    let job = model::job_id(&tc, &me.machine, &me.params);
    let source = HistorySource::of(&cat, rep, &job);
    if let Some(m) = me.metric.clone() {
        target.set_value(Some((tc, m, job)));
    }
    let html = move || {
        let (list, others, commits, complete) = match &source {
            // the job's catalog when loaded (every report of it)
            HistorySource::Catalog(j) => {
                let (list, commits) = crate::reports::job_reports(&cat.index, *j, &doc.id);
                let n = list.len();
                (Arc::new(list), (0..n).collect(), commits, true)
            }
            // the one file of the reports list by job that holds this job
            HistorySource::ByJob(file) => match file.get() {
                None => (Arc::new(Vec::new()), Vec::new(), 0, false),
                Some(Err(e)) => {
                    let mut h = crate::html::Html::new();
                    crate::put!(h, "<p class=\"error\">{}</p>", e);
                    return h.into_string();
                }
                Some(Ok(page)) => {
                    let list = Arc::new(page.reports.clone());
                    let others = reports::same_job(&list, &me);
                    let commits = reports::commits_measured(&list, &others, &me);
                    (list, others, commits, true)
                }
            },
            // the reports list known so far (a dataset without the list by job)
            HistorySource::List => {
                let Some(data) = rep.data.get() else { return String::new() };
                let others = reports::same_job(&data.list, &me);
                let commits = reports::commits_measured(&data.list, &others, &me);
                (data.list.clone(), others, commits, data.complete)
            }
        };
        reports::history_html(&list, &others, commits, &me, complete).into_string()
    };
    view! { <section class="job-history" data-testid="job-history" on:click=on_click inner_html=html></section> }
}
