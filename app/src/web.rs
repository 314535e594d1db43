//! The browser edge: fetching published files (relative to the page, cached by path), the
//! URL and history, clipboard, file download and element size. Nothing here knows a view.

use crate::data::{parse_json, Versioned};
use serde::de::DeserializeOwned;
use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

pub use crate::data::DATA_DIR;

thread_local! {
    /// Parsed files by path. wasm is single-threaded: a thread-local is the whole app's cache.
    static CACHE: RefCell<HashMap<String, Arc<dyn Any + Send + Sync>>> = RefCell::new(HashMap::new());
}

/// A JS error, a worker's `ErrorEvent` or a thrown value, as a message.
pub fn js_error(e: JsValue) -> String {
    if let Some(ev) = e.dyn_ref::<web_sys::ErrorEvent>() {
        let m = ev.message();
        return if m.is_empty() { "the worker stopped".into() } else { m };
    }
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

/// Fetch a file below `data/` as text. Errors name the file: `could not load data/x.json: ...`.
pub async fn fetch_text(path: &str) -> Result<String, String> {
    fetched_text(path, fetch_start(path)).await
}

/// Start fetching a file below `data/` (the browser downloads it while the page does other work);
/// `fetched_text` waits for it.
pub fn fetch_start(path: &str) -> Option<js_sys::Promise> {
    Some(web_sys::window()?.fetch_with_str(&format!("{DATA_DIR}{path}")))
}

/// The text of the file whose fetch `fetch_start` started.
pub async fn fetched_text(path: &str, started: Option<js_sys::Promise>) -> Result<String, String> {
    fetched_text_at(&format!("{DATA_DIR}{path}"), started).await
}

/// The text of the fetch `started`, of `url` (what errors name).
async fn fetched_text_at(url: &str, started: Option<js_sys::Promise>) -> Result<String, String> {
    let fail = |why: String| format!("could not load {url}: {why}");
    let resp = ok_response(started, &fail).await?;
    let buf =
        JsFuture::from(resp.array_buffer().map_err(|e| fail(js_error(e)))?).await.map_err(|e| fail(js_error(e)))?;
    let bytes = js_sys::Uint8Array::new(&buf);
    // stored compressed (`model::paths::GZIP_MAGIC`), unless the host sent it with its own
    // `Content-Encoding` and the browser inflated it already
    let magic = model::paths::GZIP_MAGIC;
    if bytes.length() >= 2 && bytes.get_index(0) == magic[0] && bytes.get_index(1) == magic[1] {
        return inflated_text(&buf).await.map_err(|e| fail(format!("broken gzip: {}", js_error(e))));
    }
    String::from_utf8(bytes.to_vec()).map_err(|_| fail("body is not UTF-8 text".into()))
}

/// The response of the fetch `started`, when it succeeded (errors said through `fail`).
async fn ok_response(
    started: Option<js_sys::Promise>,
    fail: &dyn Fn(String) -> String,
) -> Result<web_sys::Response, String> {
    let started = started.ok_or_else(|| fail("no window".into()))?;
    let resp = JsFuture::from(started).await.map_err(|e| fail(js_error(e)))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| fail("not a response".into()))?;
    if !resp.ok() {
        return Err(fail(format!("HTTP {} {}", resp.status(), resp.status_text())));
    }
    Ok(resp)
}

#[wasm_bindgen]
extern "C" {
    /// The browser's own gzip decoder (no decoder in the wasm shell).
    #[wasm_bindgen(js_name = DecompressionStream)]
    type Inflate;
    #[wasm_bindgen(constructor, js_class = "DecompressionStream", catch)]
    fn new(format: &str) -> Result<Inflate, JsValue>;
}

/// The text of gzip bytes `buf` (an `ArrayBuffer`), inflated by the browser's `DecompressionStream`.
async fn inflated_text(buf: &JsValue) -> Result<String, JsValue> {
    let blob = web_sys::Blob::new_with_buffer_source_sequence(&js_sys::Array::of1(buf))?;
    let pair: web_sys::ReadableWritablePair = Inflate::new("gzip")?.unchecked_into();
    let stream = blob.stream().pipe_through(&pair);
    let text = JsFuture::from(web_sys::Response::new_with_opt_readable_stream(Some(&stream))?.text()?).await?;
    text.as_string().ok_or_else(|| JsValue::from_str("inflated body is not text"))
}

/// Fetch and parse a JSON file once; later calls get the cached value.
pub async fn load_json<T>(path: &str) -> Result<Arc<T>, String>
where
    T: DeserializeOwned + Versioned + Send + Sync + 'static,
{
    load_json_started(path, None).await
}

/// `load_json` of a file whose fetch `fetch_start` may have begun (`None`: begun here, unless the
/// file is cached).
pub async fn load_json_started<T>(path: &str, started: Option<js_sys::Promise>) -> Result<Arc<T>, String>
where
    T: DeserializeOwned + Versioned + Send + Sync + 'static,
{
    if let Some(v) = cached::<T>(path) {
        return Ok(v);
    }
    let text = fetched_text(path, started.or_else(|| fetch_start(path))).await?;
    let value: Arc<T> = Arc::new(parse_json(path, &text)?);
    store(path, value.clone());
    Ok(value)
}

/// Fetch a text file (a reproduce script) once.
pub async fn load_text(path: &str) -> Result<Arc<String>, String> {
    if let Some(v) = cached::<String>(path) {
        return Ok(v);
    }
    let text = Arc::new(fetch_text(path).await?);
    store(path, text.clone());
    Ok(text)
}

/// The `href` (as written) of the link an event happened in.
pub fn link_of(ev: &web_sys::Event) -> Option<String> {
    let el: web_sys::Element = ev.target()?.dyn_into().ok()?;
    el.closest("a[href]").ok()??.get_attribute("href")
}

/// What report `id`'s static page shows of other reports (`render::page::around_of`), when the page
/// being taken over is that report's: the app shows it at once, so the swap moves nothing.
pub fn static_around(id: &str) -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let sel = format!("#static article[data-report-id=\"{}\"] > .around", id.replace(['"', '\\'], ""));
    Some(doc.query_selector(&sel).ok()??.inner_html())
}

/// What a report's static page shows of other reports, from the page fetched (`report_page`).
pub async fn fetched_around(key: &str) -> Result<Arc<String>, String> {
    let (url, text) = report_page(key).await?;
    let part = render::page::around_of(&text).ok_or_else(|| format!("could not load {url}: no record in the page"))?;
    Ok(Arc::new(part.to_string()))
}

/// The text of a report's static page (`key`: its Message-ID or id; relative to the document's
/// base, the site's root), fetched once, and its address.
async fn report_page(key: &str) -> Result<(String, Arc<String>), String> {
    let url = model::paths::report_url(key);
    if let Some(v) = cached::<String>(&url) {
        return Ok((url, v));
    }
    let fail = |why: String| format!("could not load {url}: {why}");
    let resp = ok_response(web_sys::window().map(|w| w.fetch_with_str(&url)), &fail).await?;
    let text = JsFuture::from(resp.text().map_err(|e| fail(js_error(e)))?).await.map_err(|e| fail(js_error(e)))?;
    let text = Arc::new(text.as_string().ok_or_else(|| fail("body is not text".into()))?);
    store(&url, text.clone());
    Ok((url, text))
}

/// The document of report `key` (its Message-ID or id), which its page carries
/// (`model::paths::page_doc`): the page being taken over (the first screen's newest report, or
/// the report's own page), else its page fetched. Parsed once.
pub async fn report_doc(key: &str) -> Result<Arc<model::ReportDoc>, String> {
    if let Some(d) = report_doc_here(key).await {
        return Ok(d);
    }
    let (url, text) = report_page(key).await?;
    let b64 = model::paths::page_doc(&text)
        .ok_or_else(|| format!("could not load {url}: the page carries no report document"))?;
    let doc = Arc::new(carried_doc(&url, b64, &render::carry::page_rows(&text)).await?);
    store(&format!("{url}#doc"), doc.clone());
    Ok(doc)
}

/// The document of report `key` when it is at hand: read before, or carried by the page being
/// taken over (`report_doc` without a fetch).
pub async fn report_doc_here(key: &str) -> Option<Arc<model::ReportDoc>> {
    read_carried_once().await;
    cached::<model::ReportDoc>(&format!("{}#doc", model::paths::report_url(key)))
}

thread_local! {
    /// Whether the document the page being taken over carries was read (`read_carried_once`).
    static CARRIED_READ: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The text of the rows of the page being taken over (`pre.rows` in `#static`), kept before
    /// the page gives way to the app (`keep_page_rows`): its document's rows are read there.
    static PAGE_ROWS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Keep the text of the static page's rows (`PAGE_ROWS`): called before the page is removed.
fn keep_page_rows(doc: &web_sys::Document) {
    let Ok(list) = doc.query_selector_all("#static pre.rows") else { return };
    let rows = (0..list.length()).filter_map(|i| list.item(i)?.text_content()).collect();
    PAGE_ROWS.with(|r| *r.borrow_mut() = rows);
}

/// The document the page being taken over carries (if any), read once and kept under its own
/// report's page, whichever report is asked for first.
async fn read_carried_once() {
    if CARRIED_READ.with(|r| r.replace(true)) {
        return;
    }
    let carried = web_sys::window().and_then(|w| w.document()?.get_element_by_id("report-doc")?.text_content());
    let Some(text) = carried else { return };
    let rows = PAGE_ROWS.with(|r| r.take());
    let Ok(d) = carried_doc("the page", &text, &rows).await else { return };
    let its = model::paths::report_url(d.message_id.as_deref().unwrap_or(&d.id));
    store(&format!("{its}#doc"), Arc::new(d));
}

/// A report document as a page carries it (base64 of its stored bytes: fetched as a `data:` URL,
/// so the browser decodes it, then inflated as any stored file), from `url`, its rows filled from
/// the text of the page's rows (`render::carry::filled`).
async fn carried_doc(url: &str, b64: &str, rows: &[String]) -> Result<model::ReportDoc, String> {
    let data = format!("data:application/gzip;base64,{b64}");
    let text = fetched_text_at(url, web_sys::window().map(|w| w.fetch_with_str(&data))).await?;
    let d = crate::data::parse_json_at(url, &text)?;
    render::carry::filled(d, rows).map_err(|e| format!("could not load {url}: {e}"))
}

/// A value made of file `path` before (`store`).
pub fn cached<T: Send + Sync + 'static>(path: &str) -> Option<Arc<T>> {
    CACHE.with(|c| c.borrow().get(path).cloned()).and_then(|v| v.downcast::<T>().ok())
}

/// Keep the value made of file `path` (a file is fetched and parsed once).
pub fn store<T: Send + Sync + 'static>(path: &str, v: Arc<T>) {
    CACHE.with(|c| c.borrow_mut().insert(path.to_string(), v));
}

/// Number of files parsed so far (for the status line).
pub fn cached_files() -> usize {
    CACHE.with(|c| c.borrow().len())
}

/// The query string of the current URL, without `?`.
pub fn current_query() -> String {
    let Some(loc) = web_sys::window().map(|w| w.location()) else { return String::new() };
    let search = loc.search().unwrap_or_default();
    crate::state::page_query(&loc.pathname().unwrap_or_default(), search.trim_start_matches('?'))
}

/// Write `query` into the URL: a new history entry (`push`) or in place.
pub fn write_url(query: &str, push: bool) {
    let Some(w) = web_sys::window() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let url = crate::state::page_url(&path, query);
    let now = format!("{path}{}", w.location().search().unwrap_or_default());
    if now == url {
        return;
    }
    if let Ok(h) = w.history() {
        let _ = if push {
            h.push_state_with_url(&JsValue::NULL, "", Some(&url))
        } else {
            h.replace_state_with_url(&JsValue::NULL, "", Some(&url))
        };
    }
}

thread_local! {
    /// A URL write waiting for the next frame: the query and whether it adds a history entry.
    static PENDING_URL: std::cell::RefCell<Option<(String, bool)>> = const { std::cell::RefCell::new(None) };
}

/// `write_url` after the next frame. Writes in between are coalesced: the last query wins, and
/// the entry is pushed if any of them asked for a push.
pub fn write_url_soon(query: String, push: bool) {
    let schedule = PENDING_URL.with(|p| {
        let mut p = p.borrow_mut();
        let first = p.is_none();
        let push = push || p.as_ref().is_some_and(|(_, was)| *was);
        *p = Some((query, push));
        first
    });
    if schedule {
        leptos::prelude::request_animation_frame(|| {
            leptos::prelude::set_timeout(flush_url, std::time::Duration::ZERO);
        });
    }
}

/// Write a pending URL now (before reading the page's URL, e.g. for "copy link").
pub fn flush_url() {
    if let Some((q, push)) = PENDING_URL.with(|p| p.borrow_mut().take()) {
        write_url(&q, push);
    }
}

/// Forget a pending URL write (Back/Forward made another URL the truth).
pub fn drop_pending_url() {
    PENDING_URL.with(|p| p.borrow_mut().take());
}

/// The full URL of the page (the permalink).
pub fn current_href() -> String {
    web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default()
}

/// Copy text to the clipboard; `Err` when the browser refuses (no permission, no focus).
pub async fn copy_text(text: &str) -> Result<(), String> {
    let w = web_sys::window().ok_or("no window")?;
    let promise = w.navigator().clipboard().write_text(text);
    JsFuture::from(promise).await.map(|_| ()).map_err(js_error)
}

/// Offer `text` as a file download named `name`.
pub fn download(name: &str, text: &str, mime: &str) -> Result<(), String> {
    let url = blob_url(text, mime)?;
    download_url(name, &url)?;
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// A `blob:` URL of `text` as a file of type `mime` (revoke it when done).
fn blob_url(text: &str, mime: &str) -> Result<String, String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(js_error)?;
    web_sys::Url::create_object_url_with_blob(&blob).map_err(js_error)
}

/// Offer the file at `url` (a `blob:` or `data:` URL made by the page) as a download named `name`.
pub fn download_url(name: &str, url: &str) -> Result<(), String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = doc.create_element("a").map_err(js_error)?.unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
    Ok(())
}

/// Offer the SVG document `svg` (`width` × `height` CSS pixels) as a PNG download named `name`,
/// drawn at twice that size: the SVG is loaded as an image from a `blob:` URL, drawn on a canvas
/// (a same-origin image keeps the canvas readable) and read back as `image/png`.
pub fn download_svg_as_png(name: &str, svg: &str, width: u32, height: u32) -> Result<(), String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let url = blob_url(svg, "image/svg+xml")?;
    let img = web_sys::HtmlImageElement::new().map_err(js_error)?;
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").map_err(js_error)?.unchecked_into();
    canvas.set_width(2 * width);
    canvas.set_height(2 * height);
    let (name, src, image) = (name.to_string(), url.clone(), img.clone());
    let onload = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&src);
        let ctx =
            canvas.get_context("2d").ok().flatten().map(|c| c.unchecked_into::<web_sys::CanvasRenderingContext2d>());
        let Some(ctx) = ctx else { return };
        let (w, h) = (f64::from(canvas.width()), f64::from(canvas.height()));
        if ctx.draw_image_with_html_image_element_and_dw_and_dh(&image, 0.0, 0.0, w, h).is_ok() {
            if let Ok(png) = canvas.to_data_url_with_type("image/png") {
                let _ = download_url(&name, &png);
            }
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&url);
    Ok(())
}

/// The device pixel ratio (1 when unknown).
pub fn device_pixel_ratio() -> f64 {
    web_sys::window().map(|w| w.device_pixel_ratio()).filter(|r| *r > 0.0).unwrap_or(1.0)
}

/// Calls `on_width` with the content width of `el` now and whenever it changes. Dropping the
/// returned guard stops observing.
pub struct ResizeGuard {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for ResizeGuard {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

pub fn observe_width(el: &web_sys::Element, mut on_width: impl FnMut(f64) + 'static) -> Option<ResizeGuard> {
    on_width(el.get_bounding_client_rect().width());
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        if let Ok(entry) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() {
            on_width(entry.content_rect().width());
        }
    });
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(el);
    Some(ResizeGuard { observer, _callback: callback })
}

/// Changes files requested ahead of the one being parsed (latency hidden behind parsing).
const CHANGES_AHEAD: usize = 3;

/// The changes of `testcases` for the Changes view, reported as they arrive (`progress`; it
/// returns false to stop): each testcase's changes page (the top of its changes) first, then,
/// unless `first_only`, every change made from its trend chunks (`Part::chunk_changes`; the
/// catalogs whole: each metric's direction), requested `CHANGES_AHEAD` ahead and not kept (a
/// big testcase's chunks are its whole series), which replace the pages once all are in.
pub async fn load_changes(
    cat: Arc<crate::catalog::Catalog>,
    testcases: Vec<String>,
    first_only: bool,
    mut progress: impl FnMut(Result<crate::changes::Progress, String>) -> bool,
) {
    use crate::changes::{Loaded, Progress};
    let parts: Vec<&model::assemble::Part> =
        testcases.iter().filter_map(|t| cat.parts.get(t)).filter(|p| !p.changes.is_empty()).collect();
    let chunks: Vec<(&model::assemble::Part, &String)> =
        parts.iter().flat_map(|p| p.chunks.iter().map(move |c| (*p, c))).collect();
    let of = parts.len() + chunks.len();
    let mut firsts = Vec::with_capacity(parts.len());
    for part in &parts {
        let path = &part.changes[0];
        let got = load_json::<model::ChangesShard>(path).await.and_then(|sh| {
            part.changes(&sh).map_err(|e| format!("could not load {DATA_DIR}{path}: malformed file: {e}"))
        });
        match got {
            Ok(sh) => firsts.push(Arc::new(sh)),
            Err(e) => {
                progress(Err(e));
                return;
            }
        }
    }
    let firsts = Loaded { files: parts.len(), shards: Arc::new(firsts), of };
    if !progress(Ok(Progress::Loaded(firsts))) || first_only {
        return;
    }
    let rules = model::changes::Rules::of(&cat.index);
    let mut ahead: std::collections::VecDeque<Option<js_sys::Promise>> = std::collections::VecDeque::new();
    let mut made = Vec::with_capacity(chunks.len());
    let mut reported = js_sys::Date::now();
    for (k, &(part, path)) in chunks.iter().enumerate() {
        while ahead.len() <= CHANGES_AHEAD && k + ahead.len() < chunks.len() {
            let next = chunks[k + ahead.len()].1;
            ahead.push_back(if cached::<model::TrendChunk>(next).is_some() { None } else { fetch_start(next) });
        }
        let started = ahead.pop_front().flatten();
        let got = match cached::<model::TrendChunk>(path) {
            Some(c) => Ok(c),
            None => fetched_text(path, started).await.and_then(|t| parse_json(path, &t)).map(Arc::new),
        };
        let bad = |e: String| format!("could not load {DATA_DIR}{path}: malformed file: {e}");
        match got.and_then(|c: Arc<model::TrendChunk>| part.chunk_changes(&c, &rules).map_err(bad)) {
            Ok(sh) => made.push(Arc::new(sh)),
            Err(e) => {
                progress(Err(e));
                return;
            }
        }
        // the live count at most four times a second: each report lays the view out again
        let now = js_sys::Date::now();
        if k + 1 < chunks.len() && now - reported >= 250.0 {
            reported = now;
            if !progress(Ok(Progress::Files(parts.len() + k + 1, of))) {
                return;
            }
        }
    }
    progress(Ok(Progress::Loaded(Loaded { files: of, shards: Arc::new(made), of })));
}

/// One metric's series from the trend chunks `paths` (`(testcase, chunk)`), in merged positions,
/// and the steps detected along them.
pub async fn load_series(
    cat: Arc<crate::catalog::Catalog>,
    paths: Vec<(String, String)>,
    metric: String,
) -> Result<(Vec<Arc<model::SeriesShard>>, Vec<Arc<model::ChangesShard>>), String> {
    let mut series = Vec::new();
    let mut steps = Vec::new();
    for (t, path) in &paths {
        let part = cat.parts.get(t).ok_or_else(|| format!("testcase {t} is not loaded"))?;
        let chunk = load_json::<model::TrendChunk>(path).await?;
        let bad = |e: String| format!("could not load {DATA_DIR}{path}: malformed file: {e}");
        series.push(Arc::new(part.series_shard(&chunk, &metric).map_err(bad)?));
        steps.push(Arc::new(part.detected(&chunk, &metric).map_err(bad)?));
    }
    Ok((series, steps))
}

/// The static page (`#static`, `render::page`) gives way to the app: removed, and the app's
/// root (`#app`, hidden while the app loads behind the page) shown. Called once the app has drawn
/// what the page showed (the open report) or anything else it shows instead (an error, a tab).
pub fn reveal() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    if let Some(s) = doc.get_element_by_id("static") {
        s.remove();
    }
    if let Some(a) = doc.get_element_by_id("app") {
        let _ = a.remove_attribute("hidden");
    }
}

/// Where the app mounts on a static page: a new `#app` after the page, hidden while the page has
/// no query (the app shows what the page shows: `reveal` swaps them), else shown at once with the
/// page removed. `None` without a static page (the app mounts on `<body>`).
pub fn takeover_host() -> Option<web_sys::HtmlElement> {
    let doc = web_sys::window()?.document()?;
    let page = doc.get_element_by_id("static")?;
    keep_page_rows(&doc);
    let host: web_sys::HtmlElement = doc.create_element("div").ok()?.dyn_into().ok()?;
    host.set_id("app");
    if current_search().is_empty() {
        host.set_hidden(true);
    } else {
        page.remove();
    }
    doc.body()?.append_child(&host).ok()?;
    Some(host)
}

fn current_search() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// `reveal` after the next frame: the DOM the app just built is laid out first.
pub fn reveal_soon() {
    leptos::prelude::request_animation_frame(reveal);
}

/// A click with the main button and no modifier: a link's click the app may take over (a
/// modified one opens the link's page in a new tab or window, as the browser does).
pub fn plain_click(ev: &web_sys::MouseEvent) -> bool {
    ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.alt_key())
}

/// For a click inside HTML written by `html`: the nearest `[data-act]` element's `data-act`,
/// `data-value` and `data-i` (row position). An action no `Act` spells is `unknown`.
pub fn action_of(ev: &web_sys::Event) -> Option<(crate::html::Act, String, Option<usize>)> {
    let target: web_sys::Element = ev.target()?.dyn_into().ok()?;
    let el = target.closest("[data-act]").ok()??;
    let name = el.get_attribute("data-act")?;
    let Ok(act) = name.parse() else {
        unknown("action", &name);
        return None;
    };
    let value = el.get_attribute("data-value").unwrap_or_default();
    let i = el.get_attribute("data-i").and_then(|i| i.parse().ok());
    Some((act, value, i))
}

/// For a change event of a named control (`<select name>`, `<input name>`): its name, value and
/// checked state.
pub fn control_of(ev: &web_sys::Event) -> Option<(String, String, bool)> {
    let target = ev.target()?;
    let el: &web_sys::Element = target.dyn_ref()?;
    let name = el.get_attribute("name")?;
    let get = |k: &str| js_sys::Reflect::get(&target, &JsValue::from_str(k)).ok();
    let value = get("value").and_then(|v| v.as_string()).unwrap_or_default();
    let checked = get("checked").and_then(|v| v.as_bool()).unwrap_or(false);
    Some((name, value, checked))
}

/// An event's target takes typed text (a text field, a select, an editable element): page-wide key
/// and paste shortcuts leave it alone.
pub fn is_editable(t: Option<web_sys::EventTarget>) -> bool {
    let Some(el) = t.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) else { return false };
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || el.is_content_editable()
}

/// A `data-act` or control name no handler knows: the HTML a view writes and its handler
/// disagree. A panic in debug builds (`trunk serve`, the wasm tests); ignored in release.
pub fn unknown(kind: &str, name: &str) {
    if cfg!(debug_assertions) {
        panic!("unknown {kind} `{name}`: the view and its handler disagree");
    }
}

/// Once the next frame has rendered (a re-rendered view has its new elements), do `act` to the
/// element `selector` names, if any.
fn after_frame(selector: String, act: fn(web_sys::HtmlElement)) {
    let Some(w) = web_sys::window() else { return };
    let cb = Closure::once_into_js(move || {
        let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(&selector).ok().flatten());
        if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            act(el);
        }
    });
    let _ = w.request_animation_frame(cb.unchecked_ref());
}

/// A selector of the focused element, when it has an id (to give the focus back to its
/// successor once a view is rebuilt).
pub fn focused_selector() -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let id = doc.active_element()?.id();
    (!id.is_empty()).then(|| format!("[id=\"{}\"]", id.replace('\\', "\\\\").replace('"', "\\\"")))
}

/// Focus the element `selector` names, and bring it into view, after the next frame; for three
/// more frames, focus it again if a later re-render replaced it (a list written with `inner_html`
/// loses the focused node when it is written again).
pub fn focus_after_frame(selector: String) {
    let me = FOCUS_REQUEST.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    focus_in_frames(selector, 4, false, me);
}

thread_local! {
    /// The latest focus request: an older one's retries stop (a key held down moves on).
    static FOCUS_REQUEST: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn focus_in_frames(selector: String, frames: u32, focused_once: bool, me: u64) {
    let Some(w) = web_sys::window() else { return };
    let cb = Closure::once_into_js(move || {
        if FOCUS_REQUEST.with(|n| n.get()) != me {
            return;
        }
        let doc = web_sys::window().and_then(|w| w.document());
        let el = doc.as_ref().and_then(|d| d.query_selector(&selector).ok().flatten());
        let el = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        let active = doc.and_then(|d| d.active_element());
        let has_focus =
            el.as_ref().is_some_and(|e| active.as_ref().is_some_and(|a| a == e.unchecked_ref::<web_sys::Element>()));
        if let Some(el) = el.filter(|_| !has_focus) {
            let _ = el.focus();
            if !focused_once {
                el.scroll_into_view_with_bool(false);
            }
        }
        if frames > 1 {
            focus_in_frames(selector, frames - 1, true, me);
        }
    });
    let _ = w.request_animation_frame(cb.unchecked_ref());
}

/// Scroll the element with `data-testid=testid` into view once the next frame has rendered.
pub fn scroll_to_testid(testid: &'static str) {
    after_frame(format!("[data-testid={testid}]"), |el| el.scroll_into_view());
}

/// The compare shard of a job (by position), in merged positions, or `None` without a job.
pub async fn load_job(
    cat: std::sync::Arc<crate::catalog::Catalog>,
    job: Option<usize>,
) -> Result<Option<Arc<model::JobShard>>, String> {
    let Some((at, j)) = job.and_then(|j| Some((j, cat.index.jobs.get(j)?))) else { return Ok(None) };
    let part = cat.parts.get(&j.testcase).ok_or_else(|| format!("testcase {} is not loaded", j.testcase))?;
    if let Some(r) = part.report_of(j) {
        // one report alone measured the job: its compare file is made from that report's document
        let Some(meta) = cat.index.reports.get(r as usize).filter(|m| !m.is_pending()) else {
            // the catalog's rest (every report) is on its way, and the view is made anew with it
            return std::future::pending().await;
        };
        let key = meta.message_id.as_deref().unwrap_or(&meta.id);
        let rd = report_doc(key).await?;
        let shard = part.job_of_report(&cat.index, at as u32, &rd);
        let url = model::paths::report_url(key);
        return shard.map(|s| Some(Arc::new(s))).map_err(|e| format!("could not load {url}: {e}"));
    }
    let sh = load_json::<model::JobShard>(&j.shard).await?;
    let mapped =
        part.job_shard(&sh).map_err(|e| format!("could not load {DATA_DIR}{}: malformed file: {e}", j.shard))?;
    Ok(Some(Arc::new(mapped)))
}
