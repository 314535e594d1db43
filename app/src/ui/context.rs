//! What every view of the explorer shares, provided as context by `ui::App`: the view state and
//! how to change it (`Nav`), the loaded catalog (`Cat`, `Loaded`) and its completion, the compare
//! job's shard, and a commit's label for select boxes.

use crate::catalog::Catalog;
use crate::state::ViewState;
use crate::web;
use leptos::prelude::*;
use std::sync::Arc;

/// The view state and how to change it. Filter changes replace the history entry; switching
/// views or selecting a commit pushes one, so Back returns to the previous view.
#[derive(Clone, Copy)]
pub struct Nav {
    pub state: RwSignal<ViewState>,
}

impl Nav {
    // The history write is synchronous and slow in Chromium (several ms): it happens after the
    // next frame, coalesced, so the chart updates first.
    pub fn replace(&self, f: impl FnOnce(&mut ViewState)) {
        self.state.update(f);
        web::write_url_soon(self.state.with_untracked(|s| s.to_query()), false);
    }

    pub fn push(&self, f: impl FnOnce(&mut ViewState)) {
        self.state.update(f);
        web::write_url_soon(self.state.with_untracked(|s| s.to_query()), true);
    }
}

/// The loaded catalog, shared by every component.
pub type Cat = Arc<Catalog>;

/// A job shard as a view sees it: `None` while loading, else the shard (or `None` for no job).
pub type JobShardState = Option<Result<Option<Arc<model::JobShard>>, String>>;

/// The compare job of the view state and its shard, shared by Compare and Distribution.
/// A resource keeps its previous value while the next one loads: the previous job's shard
/// reads as "loading", so no view shows another job's rows under this job.
pub fn use_job_shard(nav: Nav, cat: Cat) -> (Memo<Option<usize>>, Signal<JobShardState>) {
    let c1 = cat.clone();
    let job = Memo::new(move |_| nav.state.with(|s| crate::views::compare_job(&c1, s)));
    let c2 = cat.clone();
    let shard = LocalResource::new(move || web::load_job(c2.clone(), job.get()));
    let current = Signal::derive(move || {
        let loaded = shard.get()?;
        if let Ok(Some(sh)) = &loaded {
            if !crate::views::shard_is_for(&cat, job.get(), &sh.job) {
                return None;
            }
        }
        Some(loaded)
    });
    (job, current)
}

/// The merged catalog the explorer shows; replaced (and the explorer rebuilt from the URL)
/// when the view needs testcases that are not loaded yet.
#[derive(Clone, Copy)]
pub struct Loaded(pub RwSignal<Option<Result<Cat, String>>>);

thread_local! {
    /// A load of the shown catalogs' rests is under way (`complete_soon`).
    static COMPLETING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// After the frame that shows the first chart: `complete_soon` (its fetches do not compete with
/// that frame's painting).
pub fn complete_after_paint(cat: &Cat, loaded: Loaded) {
    if cat.is_whole() {
        return;
    }
    let cat = cat.clone();
    request_animation_frame(move || set_timeout(move || complete_soon(&cat, loaded), std::time::Duration::ZERO));
}

/// Once the first chart is shown (or the metric finder is used): load the rests of the shown
/// catalogs (every report and metric), and show them whole.
pub fn complete_soon(cat: &Cat, loaded: Loaded) {
    if cat.is_whole() || COMPLETING.with(|c| c.replace(true)) {
        return;
    }
    let all: Vec<String> = cat.parts.keys().cloned().collect();
    leptos::task::spawn_local(async move {
        let next = super::split::load_catalogs(all, super::split::Parts::Whole).await;
        COMPLETING.with(|c| c.set(false));
        // nobody asked for this rebuild: whatever had the focus (the search box, a filter) keeps it
        let focused = web::focused_selector();
        loaded.0.set(Some(next));
        if let Some(sel) = focused {
            web::focus_after_frame(sel);
        }
    });
}

/// A commit as `short-id subject`, cut to `max` characters, for select boxes.
pub fn commit_option_label(cat: &Catalog, pos: usize, max: usize) -> String {
    let c = &cat.index.commits[pos];
    let mut s = c.short().to_string();
    if let Some(subj) = &c.subject {
        s.push(' ');
        s.push_str(subj);
    }
    if s.chars().count() > max {
        s = s.chars().take(max).collect::<String>() + "…";
    }
    s
}
