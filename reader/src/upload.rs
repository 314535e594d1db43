//! One mail given as bytes — dropped, chosen or pasted onto the page — read exactly as
//! `lkpx import` reads a file (gzip, mbox thread, single mail, plain report), and turned into
//! the report documents `lkpx` would publish. The page runs this in a Web Worker (`worker/`,
//! compiled to wasm); nothing here touches the file system.

use crate::direction::Directions;
use crate::docfile::{to_doc, DocOptions};
use crate::file::{read_raw, FileResult};
use model::Upload;
use std::collections::BTreeMap;

/// What `lkpx import` would take from the bytes of file `name`: its reports (rows with lkp's
/// metric directions, commits with lkpx's default links) and their scripts, or why it is not a
/// report, and every problem naming `name:line`.
pub fn read_upload(name: &str, raw: Vec<u8>) -> Upload {
    let mut res = FileResult::new(name.to_string(), 0);
    read_raw(name, raw, &mut res);
    // a thread's replies become notes on its reports; a reply alone is not a report
    let replies = std::mem::take(&mut res.replies);
    let (_, left) = crate::threads::attach(&mut res.docs, replies, &mut |_| None);
    if res.docs.is_empty() && res.skipped.is_none() {
        res.skipped = left.first().map(|r| {
            let to = r.refs.first().map_or(String::new(), |m| format!(" to <{m}>"));
            format!("a reply{to}, not a report: a quoted table is a copy, and the report is the robot's own mail")
        });
    }
    let weight = Directions::lkp_weight;
    let opts = DocOptions { commit_url: None, weight: &weight };
    let mut scripts = BTreeMap::new();
    let docs: Vec<_> = res.docs.iter().map(|d| to_doc(d, &mut scripts, &opts)).collect();
    Upload { name: name.to_string(), bytes: res.bytes, docs, scripts, skipped: res.skipped, errors: res.errors }
}
