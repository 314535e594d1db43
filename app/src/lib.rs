//! LKP Explorer web app: plain, natively tested modules (URL state, facets, metric search,
//! chart geometry, compare rows, the changes list, latency distributions, HTML of large tables)
//! plus thin Leptos components that only exist on wasm32.

pub use render::{html, put};

pub mod catalog;
pub mod changes;
pub mod compare;
pub mod data;
pub mod dist;
pub mod export;
pub mod facets;
pub mod mail;
pub mod reports;
pub mod search;
pub mod shared;
pub mod state;
pub mod trend;
pub mod views;

#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod web;
