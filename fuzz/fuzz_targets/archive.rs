//! Fuzz target, an archive commit's blob: what `lkpx import` does with the `m` of a public-inbox
//! commit — the prefilter on the raw bytes, then for a candidate the mail, the report and its
//! role in a thread (report, reply, other), and a reply's note.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run archive fuzz/corpus/archive` (see fuzz/README.md).
#![no_main]

use reader::{mail, prefilter, report, threads};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let scan = prefilter::scan(data);
    let _ = prefilter::non_utf8_header(data);
    if !scan.candidate() && scan.refs.is_empty() {
        return;
    }
    let msg = mail::parse_message(data);
    let parsed = report::parse("fuzz@0", &msg);
    if threads::role_of(&scan, &parsed) == threads::Role::Reply {
        let r = threads::reply("fuzz@0", &scan, &msg, &parsed.doc);
        // date (at most ~25 bytes, whatever the year), a name of at most 120 bytes + `…`, `: `, and
        // at most 2,000 bytes of text + `…`
        assert!(r.note.len() <= 2200, "a note is bounded: {}", r.note.len());
    }
});
