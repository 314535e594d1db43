//! The published dataset on disk: the only writers. `pack` lays a built dataset out as files,
//! `publish` writes them durably and switches the root last, `dataset` reads a published one back
//! (and checks it), `incremental` and `delta` add new inputs to it (`--into`), `known` fingerprints
//! what is already written so an import need not serialise it again; `pages` renders the static
//! pages (every report's, the first screen, the lists); `held` keeps a full import's reports
//! stored until each is needed.

pub mod dataset;
pub mod delta;
pub mod held;
pub mod incremental;
pub mod known;
pub mod pack;
pub mod pages;
pub mod publish;

/// A file to write: path relative to the data directory, and its bytes.
pub type File = (String, Vec<u8>);
