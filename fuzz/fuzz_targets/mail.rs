//! Fuzz target: any bytes through the whole mail path (gzip, mbox, MIME, report, tables).
//! Run: `cargo +nightly fuzz run mail fixtures/corpus/raw` (or `RUSTC_BOOTSTRAP=1 cargo fuzz run mail`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut res = importer::input::FileResult {
        path: "fuzz".into(),
        bytes: data.len(),
        docs: vec![],
        skipped: None,
        errors: vec![],
    };
    importer::input::read_bytes("fuzz", data, &mut res);
    for d in &res.docs {
        let _ = importer::rows::row_objects(d);
    }
    let weight = |m: &str| importer::direction::Directions::lkp().weight(m);
    let opts = importer::build::Options { commit_url: None, git_log: vec![], weight: &weight };
    let _ = importer::build::build(res.docs, &opts);
});
