//! Bring your own mail: drop a mail file anywhere on the page, choose one, or paste its text
//! (Ctrl+V on the page, or into the panel): the worker (`mail::worker`) reads it with the
//! reader crate and the Reports tab shows it as a report page — compared with the hosted
//! data of its job — until another report is opened or it is closed. Nothing is uploaded.

use super::state::{Mail, MailState};
use super::worker as mailreader;
use crate::ui::context::Nav;
use leptos::prelude::*;
use model::Upload;
use wasm_bindgen::JsCast;

/// Read `bytes` (named `name`) in the worker and show the outcome; a mail given meanwhile, or a
/// close, supersedes it.
fn read(mail: Mail, nav: Nav, name: String, bytes: js_sys::Uint8Array) {
    let mine = mail.begin();
    mail.show(nav, MailState::Reading(name.clone()));
    crate::ui::split::read_mail(mail, name, bytes, mine);
}

fn read_text(mail: Mail, nav: Nav, text: &str) {
    if !text.trim().is_empty() {
        read(mail, nav, Upload::PASTED.to_string(), js_sys::Uint8Array::from(text.as_bytes()));
    }
}

fn read_file(mail: Mail, nav: Nav, f: web_sys::File) {
    leptos::task::spawn_local(async move {
        match mailreader::file_bytes(&f).await {
            Ok(b) => read(mail, nav, f.name(), b),
            Err(e) => mail.show(nav, MailState::Failed(e)),
        }
    });
}

/// The page-wide listeners: a file dropped anywhere, text pasted outside a text field. Also
/// closes the mail when another report is opened.
pub fn listen(mail: Mail, nav: Nav) {
    let dropping = RwSignal::new(false);
    let over = window_event_listener(leptos::ev::dragover, move |ev| {
        ev.prevent_default();
        if !dropping.get_untracked() {
            dropping.set(true);
        }
    });
    let leave = window_event_listener(leptos::ev::dragleave, move |ev| {
        if ev.related_target().is_none() {
            dropping.set(false);
        }
    });
    let dropped = window_event_listener(leptos::ev::drop, move |ev| {
        ev.prevent_default();
        dropping.set(false);
        let Some(dt) = ev.data_transfer() else { return };
        match dt.files().and_then(|f| f.get(0)) {
            Some(f) => read_file(mail, nav, f),
            None => read_text(mail, nav, &dt.get_data("text/plain").unwrap_or_default()),
        }
    });
    let paste = window_event_listener(leptos::ev::paste, move |ev| {
        if crate::web::is_editable(ev.target()) {
            return;
        }
        let text = ev.clipboard_data().and_then(|d| d.get_data("text/plain").ok()).unwrap_or_default();
        if text.lines().nth(2).is_some() {
            ev.prevent_default();
            read_text(mail, nav, &text);
        }
    });
    Effect::new(move |_| {
        let on = dropping.get();
        if let Some(b) = document().body() {
            let _ = b.class_list().toggle_with_force("dropping", on);
        }
    });
    let open = Memo::new(move |_| nav.state.with(|s| s.open.clone()));
    Effect::new(move |prev: Option<()>| {
        // read, not just tracked: a memo nobody reads is never recomputed, and the effect never reruns
        let _open = open.get();
        if prev.is_some() {
            mail.close();
        }
    });
    on_cleanup(move || {
        over.remove();
        leave.remove();
        dropped.remove();
        paste.remove();
    });
}

/// The bar's button and its panel: choose a file or paste the text (Esc closes it: `ui::close_on_escape`).
#[component]
pub fn MailPanel() -> impl IntoView {
    let mail = expect_context::<Mail>();
    let nav = expect_context::<Nav>();
    let text = NodeRef::<leptos::html::Textarea>::new();
    let on_file = move |ev: leptos::ev::Event| {
        let input: Option<web_sys::HtmlInputElement> = ev.target().and_then(|t| t.dyn_into().ok());
        if let Some(f) = input.as_ref().and_then(|i| i.files()).and_then(|f| f.get(0)) {
            read_file(mail, nav, f);
        }
    };
    let on_read = move |_| {
        if let Some(t) = text.get_untracked() {
            read_text(mail, nav, &t.value());
        }
    };
    view! {
        <div class="mail-wrap">
        <button
            class="mail-open"
            data-testid="mail-open"
            aria-expanded=move || mail.panel.get().to_string()
            aria-controls="mail-panel"
            on:click=move |_| {
                mail.panel.update(|p| *p = !*p);
                if mail.panel.get_untracked() {
                    crate::web::focus_after_frame("[data-testid=mail-text]".into());
                }
            }
        >
            "Read your mail…"
        </button>
        <Show when=move || mail.panel.get()>
            <div id="mail-panel" class="mail-panel" role="dialog" aria-label="Read your own mail" data-testid="mail-panel">
                <p>
                    "Drop a robot mail (" <code>".eml"</code> ", mbox, " <code>".gz"</code>
                    ", or text copied from lore) anywhere on the page, choose the file, or paste it below. \
                     It is read in this browser by lkpx's own parser: nothing is uploaded."
                </p>
                <label>"Mail file " <input type="file" data-testid="mail-file" on:change=on_file /></label>
                <textarea
                    node_ref=text
                    data-testid="mail-text"
                    aria-label="Mail text"
                    rows="6"
                    placeholder="paste the whole mail here"
                ></textarea>
                <button data-testid="mail-read" on:click=on_read>"Read"</button>
                <button on:click=move |_| mail.panel.set(false)>"Cancel"</button>
            </div>
        </Show>
        </div>
    }
}
