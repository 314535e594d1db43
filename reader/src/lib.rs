//! The reader: the bytes of a kernel test robot mail, an mbox thread, a gzip file, a web page's
//! copy or a human reply → validated documents (`doc::Document`) and their published report
//! documents. No file system, threads, git or command line: the importer (`lkpx`) reads files
//! with it, and the page's mail worker (`worker/`, wasm) reads a dropped mail with the same code.
//!
//! Flow: `file` takes one file's bytes (gzip via `mail`, an mbox split into messages); `prefilter`
//! looks first; `mail` decodes a message; `report` (with `table`) reads its context and tables;
//! `threads` tells a report from a reply; `docfile` turns a document into its `model::ReportDoc`
//! (metric directions from `direction`, links from `links`). `upload` is all of it for one mail.

pub mod direction;
pub mod doc;
pub mod docfile;
pub mod file;
pub mod links;
pub mod mail;
pub mod prefilter;
pub mod report;
pub mod table;
pub mod threads;
pub mod upload;
