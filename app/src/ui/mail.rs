//! Bring your own mail: drop a mail file anywhere on the page, choose one, or paste its text
//! (Ctrl+V on the page, or into the panel): the worker (`mailreader`) reads it with the
//! importer's parser and the Reports tab shows it as a report page — compared with the hosted
//! data of its job — until another report is opened or it is closed. Nothing is uploaded.

use super::Nav;
use crate::mailreader;
use crate::state::Tab;
use leptos::prelude::*;
use model::Upload;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// What the page holds of a mail given to it.
#[derive(Clone, Debug, PartialEq)]
pub enum MailState {
    Idle,
    Reading(String),
    Read(Arc<Upload>),
    Failed(String),
}

#[derive(Clone, Copy)]
pub struct Mail {
    pub state: RwSignal<MailState>,
    /// The shown report of a mail that holds several.
    pub pick: RwSignal<usize>,
    /// The "Read a mail" panel is open.
    pub panel: RwSignal<bool>,
    /// Bumped by every mail given and every close: a read's answer is shown only if none came after.
    generation: StoredValue<u64>,
}

impl Mail {
    pub fn new() -> Mail {
        Mail {
            state: RwSignal::new(MailState::Idle),
            pick: RwSignal::new(0),
            panel: RwSignal::new(false),
            generation: StoredValue::new(0),
        }
    }

    /// Drop the shown mail; a mail still being read is dropped too (its answer is ignored).
    pub fn close(self) {
        self.generation.update_value(|g| *g += 1);
        if self.state.with_untracked(|s| *s != MailState::Idle) {
            self.state.set(MailState::Idle);
        }
    }

    /// Show `state` on the Reports tab.
    fn show(self, nav: Nav, state: MailState) {
        self.panel.set(false);
        self.state.set(state);
        if nav.state.with_untracked(|s| s.tab != Tab::Reports) {
            nav.push(|s| s.tab = Tab::Reports);
        }
    }

    /// Read `bytes` (named `name`) in the worker and show the outcome; a mail given meanwhile, or a
    /// close, supersedes it.
    fn read(self, nav: Nav, name: String, bytes: js_sys::Uint8Array) {
        self.generation.update_value(|g| *g += 1);
        let mine = self.generation.get_value();
        self.show(nav, MailState::Reading(name.clone()));
        super::split::read_mail(self, name, bytes, mine);
    }

    /// Read `bytes` in the worker (the mail reader's code, split off in release builds, is loaded)
    /// and show the outcome, if read `mine` is still the newest.
    pub(super) fn read_in_worker(self, name: String, bytes: js_sys::Uint8Array, mine: u64) {
        leptos::task::spawn_local(async move {
            let r = mailreader::read_mail(&name, bytes).await;
            self.outcome(mine, r.map(Arc::new));
        });
    }

    /// Show the outcome of read `mine`, if it is still the newest.
    pub(super) fn outcome(self, mine: u64, r: Result<Arc<Upload>, String>) {
        if self.generation.get_value() != mine {
            return;
        }
        self.pick.set(0);
        self.state.set(match r {
            Ok(up) => MailState::Read(up),
            Err(e) => MailState::Failed(e),
        });
    }

    fn read_text(self, nav: Nav, text: &str) {
        if !text.trim().is_empty() {
            self.read(nav, Upload::PASTED.to_string(), js_sys::Uint8Array::from(text.as_bytes()));
        }
    }

    fn read_file(self, nav: Nav, f: web_sys::File) {
        leptos::task::spawn_local(async move {
            match mailreader::file_bytes(&f).await {
                Ok(b) => self.read(nav, f.name(), b),
                Err(e) => self.show(nav, MailState::Failed(e)),
            }
        });
    }
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
            Some(f) => mail.read_file(nav, f),
            None => mail.read_text(nav, &dt.get_data("text/plain").unwrap_or_default()),
        }
    });
    let paste = window_event_listener(leptos::ev::paste, move |ev| {
        if crate::web::is_editable(ev.target()) {
            return;
        }
        let text = ev.clipboard_data().and_then(|d| d.get_data("text/plain").ok()).unwrap_or_default();
        if text.lines().nth(2).is_some() {
            ev.prevent_default();
            mail.read_text(nav, &text);
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
            mail.read_file(nav, f);
        }
    };
    let on_read = move |_| {
        if let Some(t) = text.get_untracked() {
            mail.read_text(nav, &t.value());
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
