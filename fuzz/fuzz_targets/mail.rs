//! Fuzz target, the mail layer: any bytes through gzip, mbox splitting, RFC 822 headers, MIME,
//! quoted-printable, base64, charsets and RFC 2047 words, and the prefilter's first look.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run mail fuzz/corpus/mail` (see fuzz/README.md).
#![no_main]

use reader::{mail, prefilter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(bytes) = mail::gunzip_if_needed(data.to_vec()) else { return };
    for m in mail::split_mbox(&bytes) {
        let scan = prefilter::scan(m);
        let _ = prefilter::non_utf8_header(m);
        let msg = mail::parse_message(m);
        // the body's line offset stays inside the message
        assert!(msg.body_line_offset <= m.split(|&b| b == b'\n').count(), "{scan:?}");
    }
});
