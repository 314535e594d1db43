//! The views behind the tabs other than Reports. With the `split` feature (release builds,
//! `scripts/build-app.sh`) each of them is a split point: `wasm-split-cli` moves it, and all code
//! only it reaches (the chart and plotters, the changes list, the distribution, the compare
//! table), into a wasm module of its own, fetched the first time that tab opens. The first
//! screen's module is then the reports list and page. Without the feature (debug builds, the
//! wasm unit tests) the same functions are plain calls.
//!
//! A tab's module is fetched first (`fetch`), then its view is built at once in the live
//! reactive owner (`make`): a view built in a future could outlive the explorer it belongs to
//! (a catalog load rebuilds it). A module that fails to load is a visible error, and choosing the
//! tab again retries.

use super::{changes, compare, dist, finder, trend};
use crate::state::Tab;
use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;
use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// A tab module that did not load.
pub struct LoadError;

impl From<SplitLoaderError> for LoadError {
    fn from(_: SplitLoaderError) -> Self {
        LoadError
    }
}

/// Declares tab view `$name` (split into module `$module` with `split`, its fetch `$fetch`).
macro_rules! split_view {
    ($module:ident, $name:ident, $fetch:ident, $body:expr) => {
        #[cfg_attr(
            feature = "split",
            leptos::wasm_split::wasm_split($module, wasm_split_path = ::leptos::wasm_split, fallible, preload($fetch))
        )]
        fn $name() -> Result<AnyView, LoadError> {
            Ok($body)
        }
        #[cfg(not(feature = "split"))]
        async fn $fetch() -> Result<(), SplitLoaderError> {
            Ok(())
        }
    };
}

split_view!(
    trend,
    trend_tab,
    fetch_trend,
    view! {
        <finder::Finder />
        <trend::Trend />
    }
    .into_any()
);
split_view!(compare, compare_tab, fetch_compare, view! { <compare::CompareView /> }.into_any());
split_view!(changes, changes_tab, fetch_changes, view! { <changes::ChangesView /> }.into_any());
split_view!(dist, dist_tab, fetch_dist, view! { <dist::DistView /> }.into_any());

/// The result of a split view's call, whose module is loaded (with `split`: a future ready at
/// once); the call itself without.
#[cfg(feature = "split")]
macro_rules! ready {
    ($call:expr) => {
        at_once($call)
    };
}
#[cfg(not(feature = "split"))]
macro_rules! ready {
    ($call:expr) => {
        $call
    };
}

thread_local! {
    /// The tabs whose module is loaded.
    static LOADED: RefCell<Vec<Tab>> = const { RefCell::new(Vec::new()) };
}

/// Fetches the module of `tab` (once; a failure is not remembered).
async fn fetch(tab: Tab) -> Result<(), LoadError> {
    match tab {
        Tab::Trend => fetch_trend().await?,
        Tab::Compare => fetch_compare().await?,
        Tab::Changes => fetch_changes().await?,
        Tab::Dist => fetch_dist().await?,
        Tab::Reports => {}
    }
    LOADED.with(|l| l.borrow_mut().push(tab));
    Ok(())
}

/// The view of `tab`, whose module is loaded: its call completes at once.
fn make(tab: Tab) -> Result<AnyView, LoadError> {
    match tab {
        Tab::Trend => ready!(trend_tab()),
        Tab::Compare => ready!(compare_tab()),
        Tab::Changes => ready!(changes_tab()),
        Tab::Dist => ready!(dist_tab()),
        Tab::Reports => unreachable!("the reports view is not split off"),
    }
}

/// Polls `fut` once: the call of a loaded module's function has nothing to wait for.
#[cfg_attr(not(feature = "split"), allow(dead_code))]
fn at_once<T>(fut: impl Future<Output = Result<T, LoadError>>) -> Result<T, LoadError> {
    match pin!(fut).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => Err(LoadError),
    }
}

/// Where the module of a tab is: loading, loaded, or failed.
#[derive(Clone, Copy, PartialEq)]
enum Module {
    Loading,
    Ready,
    Failed,
}

/// The view of tab `tab`: a notice while its module loads (the first time, with `split`), then
/// the view, or the error.
pub fn view(tab: Tab) -> AnyView {
    let loaded = LOADED.with(|l| l.borrow().contains(&tab)) || cfg!(not(feature = "split"));
    let module = RwSignal::new(if loaded { Module::Ready } else { Module::Loading });
    if !loaded {
        leptos::task::spawn_local(async move {
            let got = if fetch(tab).await.is_ok() { Module::Ready } else { Module::Failed };
            // the explorer may be gone (a catalog load rebuilt it): then nobody waits for this
            let _ = module.try_set(got);
        });
    }
    (move || match module.get() {
        Module::Loading => view! { <p class="status" data-testid="tab-loading">"loading this view…"</p> }.into_any(),
        Module::Ready => make(tab).unwrap_or_else(|_| failed()),
        Module::Failed => failed(),
    })
    .into_any()
}

fn failed() -> AnyView {
    view! {
        <div class="error" data-testid="error" role="alert">
            "This view's code could not be loaded (is the network down?). Choose the tab again to retry."
        </div>
    }
    .into_any()
}
