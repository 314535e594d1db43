//! Fuzz target, the report layer: any text as a decoded mail body through the report parser
//! (context, tables, quoted copies, scripts, notes) and the row tokenizer.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run report fuzz/corpus/report` (see fuzz/README.md).
#![no_main]

use reader::{mail::Message, report, table, threads};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let body = String::from_utf8_lossy(data).into_owned();
    let lines = body.lines().count();
    let msg = Message { body, ..Default::default() };
    let parsed = report::parse("fuzz", &msg);
    // every error names a line of the text
    for e in &parsed.errors {
        assert!(e.line >= 1 && e.line <= lines.max(1), "{e:?} of {lines} lines");
    }
    for s in &parsed.doc.sections {
        for r in &s.rows {
            assert!(r.line >= 1 && r.line <= lines, "row line {} of {lines}", r.line);
        }
    }
    let _ = threads::row_keys(&parsed.doc);
    for line in msg.body.lines().take(64) {
        let _ = table::tokenize(line);
    }
});
