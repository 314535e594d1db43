//! The page's mail: what it holds of a mail given to it (`Mail`, a context), and the read in the
//! worker (`worker`) whose answer is shown if no later mail or close superseded it.

use super::worker as mailreader;
use crate::state::Tab;
use crate::ui::context::Nav;
use leptos::prelude::*;
use model::Upload;
use std::sync::Arc;

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

impl Default for Mail {
    fn default() -> Mail {
        Mail::new()
    }
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

    /// A new read begins: the number an answer must carry to be shown (a later read, or a close,
    /// supersedes it).
    pub fn begin(self) -> u64 {
        self.generation.update_value(|g| *g += 1);
        self.generation.get_value()
    }

    /// Show `state` on the Reports tab.
    pub fn show(self, nav: Nav, state: MailState) {
        self.panel.set(false);
        self.state.set(state);
        if nav.state.with_untracked(|s| s.tab != Tab::Reports) {
            nav.push(|s| s.tab = Tab::Reports);
        }
    }

    /// Read `bytes` in the worker (the mail reader's code, split off in release builds, is loaded)
    /// and show the outcome, if read `mine` is still the newest.
    pub fn read_in_worker(self, name: String, bytes: js_sys::Uint8Array, mine: u64) {
        leptos::task::spawn_local(async move {
            let r = mailreader::read_mail(&name, bytes).await;
            self.outcome(mine, r.map(Arc::new));
        });
    }

    /// Show the outcome of read `mine`, if it is still the newest.
    pub fn outcome(self, mine: u64, r: Result<Arc<Upload>, String>) {
        if self.generation.get_value() != mine {
            return;
        }
        self.pick.set(0);
        self.state.set(match r {
            Ok(up) => MailState::Read(up),
            Err(e) => MailState::Failed(e),
        });
    }
}
