//! The Changes view: every stated or detected change of the selected testcases in one table
//! (with none selected, the newest reports' headline changes across all testcases).
//! Listing, ordering and the HTML are `changes`; this component loads the files (the first page
//! of each testcase first, the view redrawn as more arrive), sets the HTML and handles its
//! controls and links with one delegated handler each.

use crate::changes::{self, ChangesModel, PAGE};
use crate::html::Act;
use crate::shared::Shared;
use crate::state::FacetKey;
use crate::ui::context::{Cat, Nav};
use crate::web;
use leptos::prelude::*;

#[component]
pub fn ChangesView() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let c0 = cat.clone();
    // Only the selected testcases' shards are fetched (each once, cached by path).
    let testcases = Memo::new(move |_| {
        nav.state.with(|s| {
            s.selected(&FacetKey::Testcase).filter(|t| c0.testcase(t).is_some()).cloned().collect::<Vec<String>>()
        })
    });
    let (loaded, files) = load_files(cat.clone(), testcases);
    let status = move || files.with(|&(n, of)| changes::loading_text(n, of));
    let c1 = cat.clone();
    let model = Memo::new(move |_| {
        let loaded = loaded.get()?;
        Some(loaded.map(|l| Shared(std::sync::Arc::new(nav.state.with(|s| changes::model(&c1, s, l))))))
    });
    let limit = RwSignal::new(PAGE);
    let c2 = cat.clone();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some((act, value, i)) = web::action_of(&ev) else { return };
        match act {
            Act::More => limit.update(|n| *n += PAGE),
            Act::Report => nav.push(|s| s.open_report(value)),
            Act::Testcase => nav.push(|s| {
                s.facets.insert(FacetKey::Testcase, [value].into());
            }),
            Act::Sort => {
                limit.set(PAGE);
                nav.replace(|s| {
                    changes::apply_control(&mut s.changes, "sort", &value, false);
                });
            }
            Act::Csv if testcases.with_untracked(|t| t.is_empty()) => {
                let list = &c2.root.newest;
                let rows = nav.state.with_untracked(|s| changes::recent_rows(list, s));
                let name = crate::export::file_name("newest-headlines", "csv");
                let _ = web::download(&name, &crate::export::recent_csv(list, &rows), "text/csv");
            }
            Act::Csv => {
                let Some(Ok(m)) = model.get_untracked() else { return };
                let name = crate::export::file_name("changes", "csv");
                let _ = web::download(&name, &crate::export::changes_csv(&c2.index, &m.0), "text/csv");
            }
            _ => {
                let Some(Ok(m)) = model.get_untracked() else { return };
                let Some(r) = i.and_then(|i| m.0.row(i)) else { return };
                match act {
                    Act::Trend => nav.push(|s| changes::open_trend(&c2, s, r)),
                    Act::Dist => nav.push(|s| changes::open_dist(&c2, s, r)),
                    Act::Reproduce => {
                        nav.push(|s| changes::open_reproduce(&c2, s, r));
                        web::scroll_to_testid("commit-panel");
                    }
                    other => web::unknown("action", other.as_str()),
                }
            }
        }
    };
    let on_change = move |ev: leptos::ev::Event| {
        if let Some((name, value, checked)) = web::control_of(&ev) {
            limit.set(PAGE);
            nav.replace(|s| {
                if !changes::apply_control(&mut s.changes, &name, &value, checked) {
                    web::unknown("control", &name);
                }
            });
        }
    };
    let c3 = cat.clone();
    let body = move || -> String {
        if testcases.with(|t| t.is_empty()) {
            return nav.state.with(|s| changes::recent_html(&c3.root.newest, s)).into_string();
        }
        match model.get() {
            None => "<p class=\"loading\">loading the changes…</p>".into(),
            Some(Err(e)) => crate::html::alert(&e).into_string(),
            Some(Ok(m)) => {
                let m: &ChangesModel = &m.0;
                nav.state.with(|s| changes::view_html(&c3.index, m, &s.changes, limit.get())).into_string()
            }
        }
    };
    view! {
        {move || status().map(|t| view! { <p class="loading" data-testid="changes-loading" role="status">{t}</p> })}
        <section class="changes" data-testid="changes" on:click=on_click on:change=on_change inner_html=body></section>
    }
}

/// The changes files loaded for the view, or why they could not be.
type LoadResult = Result<changes::Loaded, String>;

/// The changes files of `testcases` as they arrive (`web::load_changes`): what is loaded, and
/// (files loaded, of how many); a load for testcases no longer selected stops.
fn load_files(cl: Cat, testcases: Memo<Vec<String>>) -> (RwSignal<Option<LoadResult>>, RwSignal<(usize, usize)>) {
    let loaded = RwSignal::new(None::<LoadResult>);
    let files = RwSignal::new((0usize, 0usize));
    let run = StoredValue::new(0u64);
    let catalogs = expect_context::<crate::ui::context::Loaded>();
    Effect::new(move |_| {
        let tcs = testcases.get();
        let me = run.get_value() + 1;
        run.set_value(me);
        loaded.set(None);
        files.set((0, 0));
        let cat = cl.clone();
        // from first halves: the first pages, then (after they are shown) the rests and names,
        // and the explorer rebuilt whole makes every change from the trend chunks
        let first_only = !cat.is_whole();
        leptos::task::spawn_local(async move {
            let after = cat.clone();
            web::load_changes(cat, tcs, first_only, move |got| {
                let current = run.try_get_value() == Some(me);
                match got {
                    _ if !current => {}
                    Ok(changes::Progress::Files(n, of)) => files.set((n, of)),
                    Ok(changes::Progress::Loaded(l)) => {
                        files.set((l.files, l.of));
                        loaded.set(Some(Ok(l)));
                        crate::ui::context::complete_after_paint(&after, catalogs);
                    }
                    Err(e) => {
                        files.set((0, 0));
                        loaded.set(Some(Err(e)));
                    }
                }
                current
            })
            .await;
        });
    });
    (loaded, files)
}
