//! The page's mail reader, run as a Web Worker (`mail-worker_loader.js`, built by trunk from
//! `index.html`) and loaded only when a mail is dropped, chosen or pasted. It receives
//! `{id, name, bytes}` messages, reads each with the `reader` crate, as `lkpx import` does
//! (`reader::upload::read_upload`) and answers `{id, answer}`, the `model::Upload` as JSON. It
//! first posts `"ready"`: messages sent before its handler exists would be lost.

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::{closure::Closure, JsCast, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        let field = |k: &str| js_sys::Reflect::get(&data, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
        let name = field("name").as_string().unwrap_or_else(|| model::Upload::PASTED.to_string());
        let bytes = js_sys::Uint8Array::new(&field("bytes")).to_vec();
        let out = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&out, &JsValue::from_str("id"), &field("id"));
        let _ = js_sys::Reflect::set(&out, &JsValue::from_str("answer"), &JsValue::from_str(&answer(&name, bytes)));
        // the page is gone when this fails: nobody to tell
        let _ = reply.post_message(&out);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str("ready"));
}

/// The worker's answer to one mail: the `model::Upload` as JSON.
fn answer(name: &str, bytes: Vec<u8>) -> String {
    let up = reader::upload::read_upload(name, bytes);
    serde_json::to_string(&up).expect("an Upload always serialises")
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    // Natively, a filter for trying the reader: `mail-worker NAME < mail` prints the answer.
    use std::io::Read;
    let name = std::env::args().nth(1).unwrap_or_else(|| model::Upload::PASTED.to_string());
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).expect("read stdin");
    println!("{}", answer(&name, bytes));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_answer_is_an_upload_the_app_can_read() {
        let mail = include_bytes!("../../fixtures/corpus/028.txt");
        let up: model::Upload = serde_json::from_str(&super::answer("028.eml", mail.to_vec())).unwrap();
        assert_eq!(up.name, "028.eml");
        assert_eq!(up.docs.len(), 1);
        assert!(up.docs[0].subject.as_deref().unwrap().contains("fio.write_iops -11.9% regression"));
    }
}
