//! What the first screen does not need: the views of the tabs other than Reports, the commit
//! panel, the worker's side of a mail read (`read_mail`) and the catalogs' parser and merge
//! (`load_catalogs`: the first screen loads no catalog). With the `split` feature (release
//! builds, `scripts/build-app.sh`) each is a split point: `wasm-split-cli` moves it, and all code
//! only it reaches (the chart and plotters, the changes list, the distribution, the compare
//! table…), into a wasm module of its own, fetched the first time it is needed. The first
//! screen's module is then the reports list and page. Without the feature (debug builds, the
//! wasm unit tests) the same functions are plain calls.
//!
//! A part's module is fetched first (`fetch`), then its view is built at once under the live
//! reactive owner (`make`): a view built inside a future could outlive the explorer it belongs
//! to (a catalog load replaces it). A module that fails to load is a visible error; opening the
//! part again retries.

use super::{commit, finder};
use crate::catalog::Catalog;
use crate::changes::view as changes;
use crate::compare::view as compare;
use crate::dist::view as dist;
use crate::mail::state::Mail;
use crate::state::Tab;
use crate::trend::view as trend;
use crate::web;
use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;
use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// A split-off module that did not load.
pub struct LoadError;

impl From<SplitLoaderError> for LoadError {
    fn from(_: SplitLoaderError) -> Self {
        LoadError
    }
}

/// Declares `fn $name` as a split point of module `$module`, fetched by `$fetch` (with
/// `split`); without the feature, a plain function and a fetch that has nothing to do.
macro_rules! split_fn {
    ($module:ident, $fetch:ident, fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        #[cfg_attr(
            feature = "split",
            leptos::wasm_split::wasm_split($module, wasm_split_path = ::leptos::wasm_split, fallible, preload($fetch))
        )]
        fn $name($($arg: $ty),*) -> Result<$ret, LoadError> {
            Ok($body)
        }
        #[cfg(not(feature = "split"))]
        async fn $fetch() -> Result<(), SplitLoaderError> {
            Ok(())
        }
    };
}

split_fn!(
    trend,
    fetch_trend,
    fn trend_tab() -> AnyView {
        view! {
            <finder::Finder />
            <trend::Trend />
        }
        .into_any()
    }
);
split_fn!(
    compare,
    fetch_compare,
    fn compare_tab() -> AnyView {
        view! { <compare::CompareView /> }.into_any()
    }
);
split_fn!(
    changes,
    fetch_changes,
    fn changes_tab() -> AnyView {
        view! { <changes::ChangesView /> }.into_any()
    }
);
split_fn!(
    dist,
    fetch_dist,
    fn dist_tab() -> AnyView {
        view! { <dist::DistView /> }.into_any()
    }
);
split_fn!(
    commit,
    fetch_commit,
    fn commit_part() -> AnyView {
        view! { <commit::CommitPanel /> }.into_any()
    }
);
split_fn!(
    mail,
    fetch_mail,
    fn read_in_worker(mail: Mail, name: String, bytes: js_sys::Uint8Array, mine: u64) -> () {
        mail.read_in_worker(name, bytes, mine)
    }
);

/// The views split off: the tabs other than Reports, and the commit panel.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Trend,
    Compare,
    Changes,
    Dist,
    Commit,
}

impl Part {
    fn of(tab: Tab) -> Part {
        match tab {
            Tab::Trend => Part::Trend,
            Tab::Compare => Part::Compare,
            Tab::Changes => Part::Changes,
            Tab::Dist => Part::Dist,
            Tab::Reports => unreachable!("the reports view is not split off"),
        }
    }
}

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
    /// The parts whose module is loaded.
    static LOADED: RefCell<Vec<Part>> = const { RefCell::new(Vec::new()) };
}

/// Fetches the module of `part` (once; a failure is not remembered).
async fn fetch(part: Part) -> Result<(), LoadError> {
    match part {
        Part::Trend => fetch_trend().await?,
        Part::Compare => fetch_compare().await?,
        Part::Changes => fetch_changes().await?,
        Part::Dist => fetch_dist().await?,
        Part::Commit => fetch_commit().await?,
    }
    LOADED.with(|l| l.borrow_mut().push(part));
    Ok(())
}

/// The view of `part`, whose module is loaded: its call completes at once.
fn make(part: Part) -> Result<AnyView, LoadError> {
    match part {
        Part::Trend => ready!(trend_tab()),
        Part::Compare => ready!(compare_tab()),
        Part::Changes => ready!(changes_tab()),
        Part::Dist => ready!(dist_tab()),
        Part::Commit => ready!(commit_part()),
    }
}

split_fn!(
    search,
    fetch_search,
    fn search_in_module(index: String, text: String, done: SearchDone) -> () {
        leptos::task::spawn_local(async move {
            let got = crate::reports::found::search_index(&index, &text).await;
            done(got);
        })
    }
);

split_fn!(
    record,
    fetch_record,
    fn record_part(doc: Arc<model::ReportDoc>) -> AnyView {
        view! { <crate::reports::record_view::RowRecord doc=doc load=catalog_with_rest /> }.into_any()
    }
);

/// The catalog of `testcase` with its rest, its metric names left out (`load_catalogs`).
fn catalog_with_rest(testcase: String) -> std::pin::Pin<Box<dyn Future<Output = Result<Arc<Catalog>, String>>>> {
    Box::pin(load_catalogs(vec![testcase], Parts::Rest))
}

/// The record of any row of report `doc` (`reports::record_view`), its code fetched the first
/// time: a notice while it loads, an error when it cannot.
pub fn row_record(doc: Arc<model::ReportDoc>) -> AnyView {
    let module = RwSignal::new(Module::Loading);
    leptos::task::spawn_local(async move {
        let got = if fetch_record().await.is_ok() { Module::Ready } else { Module::Failed };
        let _ = module.try_set(got);
    });
    (move || match module.get() {
        Module::Loading => view! { <p class="status">"loading…"</p> }.into_any(),
        Module::Ready => ready!(record_part(doc.clone())).unwrap_or_else(|_| failed()),
        Module::Failed => failed(),
    })
    .into_any()
}

split_fn!(
    export,
    fetch_export,
    fn table_csv_now(what: String, table: crate::reports::Table) -> () {
        let name = crate::export::file_name(&what, "csv");
        if let Err(e) = web::download(&name, &crate::export::table_csv(&table), "text/csv") {
            leptos::logging::warn!("{name}: {e}");
        }
    }
);

/// A report's table downloaded as CSV (`what`: the file name's stem), the export's code fetched
/// the first time (the first screen does not carry it).
pub fn table_csv(what: String, table: crate::reports::Table) {
    leptos::task::spawn_local(async move {
        let done = match fetch_export().await {
            Ok(()) => ready!(table_csv_now(what, table)),
            Err(e) => Err(e.into()),
        };
        if done.is_err() {
            leptos::logging::warn!("the export's code could not be loaded (is the network down?)");
        }
    });
}

/// What a search's answer is handed to.
pub type SearchDone = Box<dyn FnOnce(Result<crate::reports::found::Found, String>)>;

/// Search `text` in the published index (`index`: its file) with the search's code fetched first
/// (once: the first screen does not carry the query parser, the shards' readers and the ranking);
/// `done` gets the answer, or why there is none.
pub fn search_index(index: String, text: String, done: SearchDone) {
    leptos::task::spawn_local(async move {
        match fetch_search().await {
            Ok(()) => {
                if let Err(LoadError) = ready!(search_in_module(index, text, done)) {
                    leptos::logging::warn!("the search code did not run");
                }
            }
            Err(_) => done(Err("the search's code could not be loaded (is the network down?): type again".into())),
        }
    });
}

/// Read mail `bytes` (read number `mine`) in the worker, the mail reader's code fetched first
/// (once); a failure to fetch it is that read's outcome.
pub fn read_mail(mail: Mail, name: String, bytes: js_sys::Uint8Array, mine: u64) {
    leptos::task::spawn_local(async move {
        let done = match fetch_mail().await {
            Ok(()) => ready!(read_in_worker(mail, name, bytes, mine)),
            Err(e) => Err(e.into()),
        };
        if done.is_err() {
            let why = "the mail reader's code could not be loaded (is the network down?): try again".to_string();
            mail.outcome(mine, Err(why));
        }
    });
}

/// Polls `fut` once: the call of a loaded module's function has nothing to wait for.
#[cfg_attr(not(feature = "split"), allow(dead_code))]
fn at_once<T>(fut: impl Future<Output = Result<T, LoadError>>) -> Result<T, LoadError> {
    match pin!(fut).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => Err(LoadError),
    }
}

/// Where the module of a part is: loading, loaded, or failed.
#[derive(Clone, Copy, PartialEq)]
enum Module {
    Loading,
    Ready,
    Failed,
}

/// Starts fetching the modules a page opened on state `s` needs, beside the data they wait for:
/// its tab's, and the catalogs' when it shows a catalog.
pub fn prefetch(s: &crate::state::ViewState) {
    if !cfg!(feature = "split") {
        return;
    }
    let tab = s.tab;
    if tab != Tab::Reports {
        leptos::task::spawn_local(async move {
            let _ = fetch(Part::of(tab)).await;
        });
    }
    if !crate::catalog::needs_no_catalog(s) {
        leptos::task::spawn_local(async {
            let _ = fetch_catalogs().await;
        });
    }
}

/// The view of tab `tab` (not Reports).
pub fn tab(tab: Tab) -> AnyView {
    view(Part::of(tab))
}

/// The commit panel, while `open` (a commit is chosen; its module is fetched the first time).
pub fn commit_panel(open: Memo<bool>) -> impl IntoView {
    move || open.get().then(|| view(Part::Commit))
}

/// The view of `part`: a notice while its module loads (the first time, with `split`), then the
/// view, or the error.
fn view(part: Part) -> AnyView {
    let loaded = LOADED.with(|l| l.borrow().contains(&part)) || cfg!(not(feature = "split"));
    let module = RwSignal::new(if loaded { Module::Ready } else { Module::Loading });
    if !loaded {
        leptos::task::spawn_local(async move {
            let got = if fetch(part).await.is_ok() { Module::Ready } else { Module::Failed };
            // the explorer may be gone (a catalog load rebuilt it): then nobody waits for this
            let _ = module.try_set(got);
        });
    }
    (move || match module.get() {
        Module::Loading => view! { <p class="status" data-testid="tab-loading">"loading this view…"</p> }.into_any(),
        Module::Ready => make(part).unwrap_or_else(|_| failed()),
        Module::Failed => failed(),
    })
    .into_any()
}

fn failed() -> AnyView {
    view! {
        <div class="error" data-testid="error" role="alert">
            "This view's code could not be loaded (is the network down?). Open it again to retry."
        </div>
    }
    .into_any()
}

/// What the catalogs' module does: parse a catalog file (`path`, its text), or merge parsed
/// catalogs under the root. The first screen loads no catalog: their parser and `merge` wait in
/// a module of their own.
enum CatalogJob {
    Parse(String, String),
    Merge(Arc<model::Root>, Vec<(String, model::Index)>),
}

enum CatalogDone {
    Parsed(model::Index),
    Merged(model::assemble::Assembled),
}

split_fn!(
    catalogs,
    fetch_catalogs,
    fn catalog_job(job: CatalogJob) -> Result<CatalogDone, String> {
        match job {
            CatalogJob::Parse(path, text) => crate::data::parse_json(&path, &text).map(CatalogDone::Parsed),
            CatalogJob::Merge(root, cats) => model::assemble::merge(&root, &cats)
                .map(CatalogDone::Merged)
                .map_err(|e| format!("could not load {}{e}", crate::web::DATA_DIR)),
        }
    }
);

/// `job` done in the catalogs' module (fetched the first time).
async fn in_catalogs_module(job: CatalogJob) -> Result<CatalogDone, String> {
    let failed =
        |_| "the code that reads catalogs could not be loaded (is the network down?): reload the page".to_string();
    fetch_catalogs().await.map_err(|e| failed(LoadError::from(e)))?;
    ready!(catalog_job(job)).map_err(failed)?
}

/// A catalog file, fetched and parsed once.
async fn catalog_file(path: &str) -> Result<Arc<model::Index>, String> {
    if let Some(c) = web::cached::<model::Index>(path) {
        return Ok(c);
    }
    let text = web::fetch_text(path).await?;
    let CatalogDone::Parsed(c) = in_catalogs_module(CatalogJob::Parse(path.to_string(), text)).await? else {
        return Err(format!("could not load {}{path}", web::DATA_DIR));
    };
    let c = Arc::new(c);
    web::store(path, c.clone());
    Ok(c)
}

/// How much of a testcase's catalog a view needs: what the first chart needs, that and its rest
/// (`Index::rest`: every report and chunk; the record of a row), or the whole (its names too:
/// every metric).
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub enum Parts {
    FirstChart,
    Rest,
    Whole,
}

impl Parts {
    /// The whole catalog, or what the first chart needs.
    pub fn whole_if(whole: bool) -> Parts {
        if whole {
            Parts::Whole
        } else {
            Parts::FirstChart
        }
    }
}

/// The root and the catalogs of `testcases` (cached: a catalog is fetched once), merged, each
/// with the `parts` a view needs.
pub async fn load_catalogs(testcases: Vec<String>, parts: Parts) -> Result<Arc<Catalog>, String> {
    let root = web::load_json::<model::Root>(model::paths::INDEX).await?;
    let entries: Vec<&model::TestcaseEntry> = root.testcases.iter().filter(|t| testcases.contains(&t.name)).collect();
    if entries.is_empty() {
        return Ok(Arc::new(Catalog::assembled(root.clone(), model::assemble::unloaded(&root))));
    }
    // the module's fetch starts beside the catalogs' (a second call waits for the same one)
    leptos::task::spawn_local(async {
        let _ = fetch_catalogs().await;
    });
    let mut cats = Vec::new();
    for t in entries {
        let mut c = (*catalog_file(&t.catalog).await?).clone();
        let rest = c.rest.clone().filter(|_| parts >= Parts::Rest);
        let names = c.names.clone().filter(|_| parts == Parts::Whole);
        // the two files are fetched side by side
        let load = |p: Option<String>| async move {
            match p {
                Some(p) => catalog_file(&p).await.map(|c| Some((p, c))),
                None => Ok(None),
            }
        };
        let (rest, names) = futures::future::join(load(rest), load(names)).await;
        if let Some((rel, r)) = rest? {
            let malformed = |e| format!("could not load {}{rel}: malformed file: {e}", web::DATA_DIR);
            c.with_rest((*r).clone()).map_err(malformed)?;
        }
        if let Some((_, n)) = names? {
            c.with_names((*n).clone());
        }
        cats.push((t.catalog.clone(), c));
    }
    match in_catalogs_module(CatalogJob::Merge(root.clone(), cats)).await? {
        CatalogDone::Merged(a) => Ok(Arc::new(Catalog::assembled(root, a))),
        CatalogDone::Parsed(_) => Err("could not load the catalogs".into()),
    }
}
