//! The browser edge of "bring your own mail": the mail reader Web Worker (`worker/`, the
//! importer's parser in wasm) is started on first use — never before — and asked one mail at a
//! time. The answer is the `model::Upload` the worker sends as JSON.

use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The worker's loader, relative to the page (works under any `--public-url`).
pub const WORKER_URL: &str = "mail-worker_loader.js";

thread_local! {
    /// The started worker and the promise of its "ready".
    static READER: RefCell<Option<(web_sys::Worker, js_sys::Promise)>> = const { RefCell::new(None) };
}

fn js_error(e: &JsValue) -> String {
    if let Some(ev) = e.dyn_ref::<web_sys::ErrorEvent>() {
        let m = ev.message();
        return if m.is_empty() { "the mail reader stopped".into() } else { m };
    }
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    e.as_string().unwrap_or_else(|| "the mail reader stopped".into())
}

/// A promise settled by the worker's next message (resolve) or error (reject).
fn next_message(w: &web_sys::Worker) -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, reject| {
        let on_msg = Closure::once_into_js(move |ev: web_sys::MessageEvent| {
            let _ = resolve.call1(&JsValue::NULL, &ev.data());
        });
        let on_err = Closure::once_into_js(move |ev: JsValue| {
            let _ = reject.call1(&JsValue::NULL, &ev);
        });
        w.set_onmessage(Some(on_msg.unchecked_ref()));
        w.set_onerror(Some(on_err.unchecked_ref()));
    })
}

fn reader() -> Result<(web_sys::Worker, js_sys::Promise), String> {
    if let Some(r) = READER.with(|r| r.borrow().clone()) {
        return Ok(r);
    }
    let w = web_sys::Worker::new(WORKER_URL).map_err(|e| format!("cannot start the mail reader: {}", js_error(&e)))?;
    let ready = next_message(&w);
    READER.with(|r| *r.borrow_mut() = Some((w.clone(), ready.clone())));
    Ok((w, ready))
}

/// Forget the worker (it failed): the next mail starts a new one.
fn drop_reader() {
    if let Some((w, _)) = READER.with(|r| r.borrow_mut().take()) {
        w.terminate();
    }
}

/// Read one mail (`bytes` as given: gzip, mbox, `.eml` or text) in the worker.
pub async fn read_mail(name: &str, bytes: js_sys::Uint8Array) -> Result<model::Upload, String> {
    let (w, ready) = reader()?;
    if let Err(e) = JsFuture::from(ready).await {
        drop_reader();
        return Err(format!("could not load the mail reader ({WORKER_URL}): {}", js_error(&e)));
    }
    let msg = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&msg, &JsValue::from_str(k), v).map(|_| ());
    set("name", &JsValue::from_str(name)).and_then(|_| set("bytes", &bytes)).map_err(|e| js_error(&e))?;
    let answer = next_message(&w);
    w.post_message(&msg).map_err(|e| js_error(&e))?;
    let json = match JsFuture::from(answer).await {
        Ok(v) => v.as_string().ok_or("the mail reader answered something else")?,
        Err(e) => {
            drop_reader();
            return Err(format!("the mail reader failed on {name}: {}", js_error(&e)));
        }
    };
    serde_json::from_str(&json).map_err(|e| format!("the mail reader's answer for {name} is not readable: {e}"))
}

/// The bytes of a dropped or chosen file.
pub async fn file_bytes(f: &web_sys::File) -> Result<js_sys::Uint8Array, String> {
    let buf =
        JsFuture::from(f.array_buffer()).await.map_err(|e| format!("cannot read {}: {}", f.name(), js_error(&e)))?;
    Ok(js_sys::Uint8Array::new(&buf))
}
