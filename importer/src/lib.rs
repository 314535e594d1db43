//! lkpx: reads kernel test robot reports and lkp-tests result roots, and publishes the
//! sharded JSON the explorer loads. The binary (`main.rs`) is thin glue over this library.
//!
//! Flow: `input` finds files and turns each into `doc::Document`s (via `mail` + `report` +
//! `table` for mails); `build` merges documents into a validated `model` dataset; `publish`
//! writes it atomically. `upload` is the same parse for one mail given as bytes (the page's
//! "bring your own mail", compiled to wasm in `worker/`): git archives (`archive`, `inbox`) and
//! `incremental` are native only.

#[cfg(not(target_arch = "wasm32"))]
pub mod archive;
pub mod build;
pub mod changepoints;
pub mod compare;
pub mod dataset;
pub mod delta;
pub mod direction;
pub mod doc;
pub mod docfile;
#[cfg(not(target_arch = "wasm32"))]
pub mod inbox;
#[cfg(not(target_arch = "wasm32"))]
pub mod incremental;
pub mod input;
pub mod known;
pub mod mail;
pub mod pack;
pub mod prefilter;
pub mod publish;
pub mod report;
pub mod reports;
pub mod resultroot;
pub mod rows;
pub mod synth;
pub mod synth_mails;
pub mod table;
pub mod threads;
pub mod timing;
pub mod upload;
