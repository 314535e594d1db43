//! Fuzz target, the page's query string: any text as `?…` is parsed without failing, and the
//! state it gives has one query form that parses back to the same state (exact round trip).
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run query fuzz/corpus/query` (see fuzz/README.md).
#![no_main]

use app::state::ViewState;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(q) = std::str::from_utf8(data) else { return };
    let (state, _) = ViewState::parse(q);
    let query = state.to_query();
    let (again, notices) = ViewState::parse(&query);
    assert_eq!(again, state, "{q:?} -> {query:?}");
    assert!(notices.is_empty(), "{query:?}: {notices:?}");
    assert_eq!(again.to_query(), query);
});
