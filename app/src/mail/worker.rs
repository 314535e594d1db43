//! The browser edge of "bring your own mail": the mail reader Web Worker (`worker/`, the
//! `reader` crate in wasm) is started on first use — never before. Each mail is a request
//! `{id, name, bytes}`; the worker answers `{id, answer}` (the `model::Upload` as JSON), in order,
//! and one long-lived handler hands each answer to its request. A worker that fails, or that does
//! not start or answer in time, is dropped (every request waiting on it fails with the reason) and
//! the next mail starts a new one.

use crate::web::js_error;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The worker's loader, relative to the page (works under any `--public-url`).
pub const WORKER_URL: &str = "mail-worker_loader.js";
/// How long the worker may take to load (fetch and compile 1 MB of wasm) and to read one mail.
const START_MS: i32 = 30_000;
const READ_MS: i32 = 60_000;

/// A promise's resolve and reject functions.
type Settle = (js_sys::Function, js_sys::Function);

struct Reader {
    worker: web_sys::Worker,
    ready: js_sys::Promise,
    /// Requests waiting for their answer, by id.
    pending: Rc<RefCell<HashMap<u32, Settle>>>,
    next: u32,
}

thread_local! {
    static READER: RefCell<Option<Reader>> = const { RefCell::new(None) };
}

fn field(v: &JsValue, k: &str) -> JsValue {
    js_sys::Reflect::get(v, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

/// Start the worker: `ready` settles on its "ready" (or its first error); answers go to `pending`.
fn start() -> Result<Reader, String> {
    let worker =
        web_sys::Worker::new(WORKER_URL).map_err(|e| format!("cannot start the mail reader: {}", js_error(e)))?;
    let pending: Rc<RefCell<HashMap<u32, Settle>>> = Rc::default();
    let ready_settle: Rc<RefCell<Option<Settle>>> = Rc::default();
    let rs = ready_settle.clone();
    let ready = js_sys::Promise::new(&mut |res, rej| *rs.borrow_mut() = Some((res, rej)));
    let (p1, r1) = (pending.clone(), ready_settle.clone());
    let on_msg = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        let data = ev.data();
        if data.as_string().as_deref() == Some("ready") {
            if let Some((res, _)) = r1.borrow_mut().take() {
                let _ = res.call0(&JsValue::NULL);
            }
            return;
        }
        let id = field(&data, "id").as_f64().map(|x| x as u32);
        if let Some((res, _)) = id.and_then(|id| p1.borrow_mut().remove(&id)) {
            let _ = res.call1(&JsValue::NULL, &field(&data, "answer"));
        }
    });
    let (p2, r2) = (pending.clone(), ready_settle);
    let on_err = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        if let Some(e) = ev.dyn_ref::<web_sys::Event>() {
            e.prevent_default();
        }
        let why = js_error(ev);
        if let Some((_, rej)) = r2.borrow_mut().take() {
            let _ = rej.call1(&JsValue::NULL, &JsValue::from_str(&why));
        }
        reject_all(&p2, &why);
        drop_reader(&why);
    });
    worker.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_err.as_ref().unchecked_ref()));
    // They live as long as the worker (one pair per started worker).
    on_msg.forget();
    on_err.forget();
    Ok(Reader { worker, ready, pending, next: 0 })
}

fn reject_all(pending: &RefCell<HashMap<u32, Settle>>, why: &str) {
    let waiting: Vec<Settle> = pending.borrow_mut().drain().map(|(_, s)| s).collect();
    for (_, rej) in waiting {
        let _ = rej.call1(&JsValue::NULL, &JsValue::from_str(why));
    }
}

/// Forget the worker (it failed or hangs), failing what still waits on it: the next mail starts a
/// new one.
fn drop_reader(why: &str) {
    if let Some(r) = READER.with(|r| r.borrow_mut().take()) {
        reject_all(&r.pending, why);
        r.worker.terminate();
    }
}

/// `p`, or a rejection with `why` after `ms`.
fn within(p: &js_sys::Promise, ms: i32, why: String) -> js_sys::Promise {
    let timeout = js_sys::Promise::new(&mut |_, rej| {
        let why = why.clone();
        let cb = Closure::once_into_js(move || {
            let _ = rej.call1(&JsValue::NULL, &JsValue::from_str(&why));
        });
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), ms);
        }
    });
    js_sys::Promise::race(&js_sys::Array::of2(p, &timeout))
}

/// One request: the worker (started if need be), its "ready", and the message with the promise of
/// its answer (registered under the request's id).
fn request(
    name: &str,
    bytes: &js_sys::Uint8Array,
) -> Result<(web_sys::Worker, js_sys::Promise, JsValue, js_sys::Promise), String> {
    READER.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = Some(start()?);
        }
        let r = cell.as_mut().expect("started");
        let id = r.next;
        r.next += 1;
        let pending = r.pending.clone();
        let answer = js_sys::Promise::new(&mut |res, rej| {
            pending.borrow_mut().insert(id, (res, rej));
        });
        let msg = js_sys::Object::new();
        for (k, v) in [("id", JsValue::from(id)), ("name", JsValue::from_str(name)), ("bytes", bytes.into())] {
            js_sys::Reflect::set(&msg, &JsValue::from_str(k), &v).map_err(js_error)?;
        }
        Ok((r.worker.clone(), r.ready.clone(), msg.into(), answer))
    })
}

/// Read one mail (`bytes` as given: gzip, mbox, `.eml` or text) in the worker.
pub async fn read_mail(name: &str, bytes: js_sys::Uint8Array) -> Result<model::Upload, String> {
    let (worker, ready, msg, answer) = request(name, &bytes)?;
    // posted once the worker said "ready": a message sent before its handler exists is lost
    let started = within(&ready, START_MS, format!("did not start within {} s", START_MS / 1000));
    if let Err(e) = JsFuture::from(started).await {
        let why = format!("could not load the mail reader ({WORKER_URL}): {}", js_error(e));
        drop_reader(&why);
        return Err(why);
    }
    worker.post_message(&msg).map_err(js_error)?;
    let answered = within(&answer, READ_MS, format!("no answer within {} s", READ_MS / 1000));
    let json = match JsFuture::from(answered).await {
        Ok(v) => v.as_string().ok_or("the mail reader answered something else")?,
        Err(e) => {
            let why = format!("the mail reader failed on {name}: {}", js_error(e));
            drop_reader(&why);
            return Err(why);
        }
    };
    serde_json::from_str(&json).map_err(|e| format!("the mail reader's answer for {name} is not readable: {e}"))
}

/// The bytes of a dropped or chosen file.
pub async fn file_bytes(f: &web_sys::File) -> Result<js_sys::Uint8Array, String> {
    let buf =
        JsFuture::from(f.array_buffer()).await.map_err(|e| format!("cannot read {}: {}", f.name(), js_error(e)))?;
    Ok(js_sys::Uint8Array::new(&buf))
}
