//! One mail given as bytes — dropped, chosen or pasted onto the page — read exactly as
//! `lkpx import` reads a file (gzip, mbox thread, single mail, plain report), and turned into
//! the report documents `lkpx` would publish. The page runs this in a Web Worker (`worker/`,
//! compiled to wasm); nothing here touches the file system.

use crate::build::default_commit_url;
use crate::docfile::to_doc;
use crate::input::{read_raw, FileResult};
use model::Upload;
use std::collections::BTreeMap;

/// Name used for text pasted onto the page (it has no file name).
pub const PASTED: &str = "pasted text";

/// What `lkpx import` would take from the bytes of file `name`: its reports, their scripts and
/// commit links, or why it is not a report, and every problem naming `name:line`.
pub fn read_upload(name: &str, raw: Vec<u8>) -> Upload {
    let mut res = FileResult { path: name.to_string(), bytes: 0, docs: vec![], skipped: None, errors: vec![] };
    read_raw(name, raw, &mut res);
    let mut scripts = BTreeMap::new();
    let docs: Vec<_> = res.docs.iter().map(|d| to_doc(d, &mut scripts)).collect();
    let commit_urls = docs
        .iter()
        .flat_map(|d| &d.commits)
        .filter_map(|c| Some((c.id.clone(), default_commit_url(c.tree.as_deref(), &c.id)?)))
        .collect();
    Upload {
        name: name.to_string(),
        bytes: res.bytes,
        docs,
        scripts,
        commit_urls,
        skipped: res.skipped,
        errors: res.errors,
    }
}
