//! Fuzz target, the whole path: any bytes read as a file, the reports it gives built into a
//! dataset (slow: a build per input; the parse layers have targets of their own).
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run dataset fuzz/corpus/mail` (see fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut res = reader::file::FileResult::new("fuzz".into(), data.len());
    reader::file::read_bytes("fuzz", data, &mut res);
    if res.docs.is_empty() {
        return;
    }
    for d in &res.docs {
        let _ = importer::rows::row_objects(d);
    }
    let weight = reader::direction::Directions::lkp_weight;
    let opts = importer::build::options::Options { commit_url: None, git_log: vec![], weight: &weight };
    let _ = importer::build::build(res.docs, &opts);
});
