//! LKP Explorer web app: plain, natively tested modules (URL state, facets, metric search,
//! chart geometry, compare rows) plus thin Leptos components that only exist on wasm32.

pub mod catalog;
pub mod chart;
pub mod compare;
pub mod data;
pub mod draw;
pub mod facets;
pub mod search;
pub mod state;
pub mod views;

#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod web;
