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

/// `v` as the bytes of a published JSON file (one line, newline-terminated).
pub fn json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    let mut b = serde_json::to_vec(v).expect("published shapes serialise");
    b.push(b'\n');
    b
}

/// The bytes of a published JSON file as stored (`paths::GZIP_MAGIC`): gzip at level 6, no name
/// and no time in the header, so the same JSON is the same file.
pub fn at_rest(json: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z =
        flate2::GzBuilder::new().mtime(0).write(Vec::with_capacity(json.len() / 4 + 64), flate2::Compression::new(6));
    z.write_all(json).expect("writing to memory");
    z.finish().expect("writing to memory")
}

/// `v` as a published JSON file's stored bytes (`json`, then `at_rest`).
pub fn stored<T: serde::Serialize>(v: &T) -> Vec<u8> {
    at_rest(&json(v))
}

/// Report document `d` stored as its page carries it: without what the page's rows show
/// (`render::carry::carried`).
pub fn carried(d: &model::ReportDoc) -> Vec<u8> {
    stored(&render::carry::carried(d))
}
