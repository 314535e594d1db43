//! Dark mode: follows `prefers-color-scheme` until the user picks light or dark with the toggle,
//! a choice kept in local storage. CSS reads `<html data-theme>`; the chart reads `Dark`.

use leptos::prelude::*;
use wasm_bindgen::{closure::Closure, JsCast};

/// Also read by the static pages' head script (render/src/page.rs), so a chosen theme holds there.
const KEY: &str = "lkpx-theme";
const QUERY: &str = "(prefers-color-scheme: dark)";

/// Whether the page is dark now (the chart redraws when it changes).
#[derive(Clone, Copy)]
pub struct Dark(pub RwSignal<bool>);

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The stored choice: `Some("light")`, `Some("dark")`, or `None` (follow the system).
fn stored() -> Option<String> {
    storage()?.get_item(KEY).ok().flatten().filter(|v| v == "light" || v == "dark")
}

fn system_dark() -> bool {
    window().match_media(QUERY).ok().flatten().is_some_and(|m| m.matches())
}

fn is_dark(choice: Option<&str>) -> bool {
    match choice {
        Some(c) => c == "dark",
        None => system_dark(),
    }
}

/// Keep the choice and show it on `<html>`.
fn apply(choice: Option<&str>) {
    if let Some(s) = storage() {
        let _ = match choice {
            Some(c) => s.set_item(KEY, c),
            None => s.remove_item(KEY),
        };
    }
    if let Some(el) = document().document_element() {
        let _ = match choice {
            Some(c) => el.set_attribute("data-theme", c),
            None => el.remove_attribute("data-theme"),
        };
    }
}

/// Set up the theme from the stored choice and follow system changes while none is stored.
pub fn provide() {
    let choice = stored();
    apply(choice.as_deref());
    let dark = RwSignal::new(is_dark(choice.as_deref()));
    if let Ok(Some(mql)) = window().match_media(QUERY) {
        let follow = Closure::<dyn Fn()>::new(move || {
            if stored().is_none() {
                dark.set(system_dark());
            }
        });
        let _ = mql.add_event_listener_with_callback("change", follow.as_ref().unchecked_ref());
        // The page lives as long as the listener: it is never removed.
        follow.forget();
    }
    provide_context(Dark(dark));
}

/// The toggle: auto → dark → light → auto.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let dark = expect_context::<Dark>();
    let choice = RwSignal::new(stored());
    let next = move |_| {
        let n = match choice.get_untracked().as_deref() {
            None => Some("dark"),
            Some("dark") => Some("light"),
            _ => None,
        };
        apply(n);
        choice.set(n.map(str::to_string));
        dark.0.set(is_dark(n));
    };
    let label = move || format!("theme: {}", choice.get().unwrap_or_else(|| "auto".into()));
    view! {
        <button class="theme-toggle" data-testid="theme-toggle" title="light, dark, or follow the system" on:click=next>
            {label}
        </button>
    }
}
