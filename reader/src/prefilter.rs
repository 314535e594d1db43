//! The cheap first look at a raw mail, before any MIME decoding: its threading headers, whether
//! the robot sent it and whether its bytes can hold a comparison table. Patches and reviews, the
//! bulk of a list archive, stop here.

/// What the raw bytes of one mail say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scan {
    /// Message-ID without `<>`.
    pub message_id: Option<String>,
    /// In-Reply-To first, then References nearest first; without `<>`, each once.
    pub refs: Vec<String>,
    /// From the kernel test robot.
    pub robot: bool,
    /// A comparison-table header (`%stddev`, `fail:runs`) is in the bytes, or a base64 part may hide one.
    pub table: bool,
    /// The subject starts with `Re:`.
    pub re: bool,
    /// The subject answers a robot report (`Re: … <commit>: <metric> <x>% regression|improvement`).
    pub report_subject: bool,
    /// What the mail's own lines (not quoted ones) say it fixes or reverts: a patch's `Fixes:`
    /// tags, `This reverts commit …`, and the reports its `Closes:` / `Link:` lore URLs name.
    pub names: Vec<Named>,
    /// The mail's date (unix seconds), read only when it names something (`names`).
    pub time: Option<i64>,
}

/// A commit or a report a patch names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// `Fixes: <id>`: the commit id (8 to 40 hex digits), lower case.
    Fixes(String),
    /// `This reverts commit <id>`.
    Reverts(String),
    /// `Closes:` / `Link:` with a lore URL: the Message-ID it names.
    Closes(String),
}

impl Scan {
    /// Worth decoding: a robot mail that may hold a table, or a mail that may quote one.
    pub fn candidate(&self) -> bool {
        self.table
    }
}

/// Look at `bytes` (one raw mail).
pub fn scan(bytes: &[u8]) -> Scan {
    let end = header_end(bytes);
    let (head, body) = bytes.split_at(end);
    let mut s = Scan::default();
    let mut in_reply_to = Vec::new();
    let mut references = Vec::new();
    let mut date = None;
    for (name, value) in headers(head) {
        match name.to_ascii_lowercase().as_slice() {
            b"date" => date = Some(value),
            b"from" => s.robot = is_robot(&value),
            b"message-id" => s.message_id = ids(&value).into_iter().next(),
            b"in-reply-to" => in_reply_to = ids(&value),
            b"references" => references = ids(&value),
            b"subject" => {
                s.re = value.get(..3).is_some_and(|p| p.eq_ignore_ascii_case(b"re:"));
                s.report_subject = is_report_subject(&value);
            }
            _ => {}
        }
    }
    references.reverse();
    for id in in_reply_to.into_iter().chain(references) {
        if !s.refs.contains(&id) {
            s.refs.push(id);
        }
    }
    s.table = has_table(body) || base64(bytes);
    s.names = named(body);
    if !s.names.is_empty() {
        s.time = date.and_then(|d| model::date::parse_date(&String::from_utf8_lossy(&d)));
    }
    s
}

/// The fixes, reverts and closed reports the lines of `body` that start with their tag name.
pub fn named(body: &[u8]) -> Vec<Named> {
    use memchr::memmem;
    use model::record::{after_tag, commit_id};
    let tags: [&[u8]; 4] = [b"Fixes:", b"reverts commit", b"Closes:", b"Link:"];
    let mut out: Vec<Named> = Vec::new();
    if !tags.iter().any(|t| memmem::find(body, t).is_some()) {
        return out;
    }
    for line in body.split(|&c| c == b'\n') {
        let Ok(line) = std::str::from_utf8(line) else { continue };
        let line = line.trim_end();
        let named = if let Some(rest) = after_tag(line, "Fixes:") {
            commit_id(rest).map(Named::Fixes)
        } else if let Some(rest) = after_tag(line, "This reverts commit ") {
            commit_id(rest).map(Named::Reverts)
        } else if let Some(rest) = after_tag(line, "Closes:").or_else(|| after_tag(line, "Link:")) {
            model::find::message_id_of_url(rest.trim()).map(Named::Closes)
        } else {
            None
        };
        if let Some(n) = named.filter(|n| !out.contains(n)) {
            out.push(n);
        }
    }
    out
}

/// The first header field whose value is not UTF-8 (raw 8-bit bytes instead of RFC 2047 words).
pub fn non_utf8_header(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..header_end(bytes)];
    if std::str::from_utf8(head).is_ok() {
        return None;
    }
    headers(head)
        .into_iter()
        .find(|(_, v)| std::str::from_utf8(v).is_err())
        .map(|(n, _)| String::from_utf8_lossy(&n).into_owned())
}

/// Where the header ends (the blank line), or the end of the mail.
fn header_end(b: &[u8]) -> usize {
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\n', &b[i..]) {
        let next = i + k + 1;
        match b.get(next) {
            Some(b'\n') => return next + 1,
            Some(b'\r') if b.get(next + 1) == Some(&b'\n') => return next + 2,
            _ => i = next,
        }
    }
    b.len()
}

/// Header fields, unfolded (continuation lines joined with a space).
fn headers(head: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for line in head.split(|&c| c == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.first().is_some_and(|c| *c == b' ' || *c == b'\t') {
            if let Some((_, v)) = out.last_mut() {
                v.push(b' ');
                v.extend_from_slice(line.trim_ascii());
            }
        } else if let Some(colon) = memchr::memchr(b':', line) {
            out.push((line[..colon].trim_ascii().to_vec(), line[colon + 1..].trim_ascii().to_vec()));
        }
    }
    out
}

/// The `<…>` ids of a Message-ID, In-Reply-To or References value.
fn ids(v: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = v;
    while let Some(a) = memchr::memchr(b'<', rest) {
        let Some(b) = memchr::memchr(b'>', &rest[a..]) else { break };
        let id = String::from_utf8_lossy(&rest[a + 1..a + b]).trim().to_string();
        if !id.is_empty() && !out.contains(&id) {
            out.push(id);
        }
        rest = &rest[a + b..];
    }
    out
}

/// The robot signs as "kernel test robot" (lkp@intel.com and, in 2020, its operators' addresses).
fn is_robot(from: &[u8]) -> bool {
    contains_ci(from, b"kernel test robot") || contains_ci(from, b"lkp@intel.com")
}

fn is_report_subject(subject: &[u8]) -> bool {
    let s = String::from_utf8_lossy(subject).to_ascii_lowercase();
    s.starts_with("re:") && (s.contains("% regression") || s.contains("% improvement"))
}

/// A table header, in plain, 8-bit or quoted-printable text; base64 and other encodings hide it,
/// so a base64 part makes the mail a candidate too.
fn has_table(body: &[u8]) -> bool {
    use memchr::memmem;
    memmem::find(body, b"%stddev").is_some()
        || memmem::find(body, b"fail:runs").is_some()
        || memmem::find(body, b"%change").is_some()
}

/// A base64 part (`Content-Transfer-Encoding: base64` as mailers spell it).
fn base64(bytes: &[u8]) -> bool {
    use memchr::memmem;
    [&b"Encoding: base64"[..], b"encoding: base64", b"ENCODING: BASE64", b"Encoding: Base64", b"encoding:base64"]
        .iter()
        .any(|n| memmem::find(bytes, n).is_some())
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threading_headers_and_robot() {
        let m = b"From: kernel test robot <oliver.sang@intel.com>\nSubject: Re: [linus:master] [x] 0123456789: a.b 5.1%\n regression\nMessage-ID: <1@x>\nIn-Reply-To: <2@x>\nReferences: <3@x>\n <2@x>\n\nbody\n         %stddev     %change         %stddev\n";
        let s = scan(m);
        assert_eq!(s.message_id.as_deref(), Some("1@x"));
        assert_eq!(s.refs, vec!["2@x".to_string(), "3@x".to_string()]);
        assert!(s.robot && s.table && s.report_subject);
    }

    #[test]
    fn a_patch_is_not_a_candidate() {
        let m = b"From: A Developer <a@b.org>\r\nSubject: [PATCH] x: y\r\nMessage-ID: <p@b>\r\n\r\n%stddev in the header only counts after the blank line\r\n";
        let s = scan(m);
        assert!(!s.robot);
        assert!(s.table, "the body names %stddev");
        let m = b"From: A Developer <a@b.org>\nSubject: [PATCH] x: y\n\ndiff --git a/x b/x\n";
        assert!(!scan(m).candidate());
        assert!(!scan(m).report_subject);
    }

    #[test]
    fn a_patch_names_what_it_fixes_reverts_and_closes() {
        let m = b"From: Jens Axboe <axboe@kernel.dk>\nSubject: [PATCH] io_uring/rw: x\n\nText.\n\n\
Fixes: 8cf0c459993e (\"io_uring/rw: Allocate async data through helper\")\n\
fixes: 8CF0C459993E (\"again\")\n\
This reverts commit 0123456789abcdef0123456789abcdef01234567.\n\
Reported-by: kernel test robot <lkp@intel.com>\n\
Closes: https://lore.kernel.org/oe-lkp/202412271132.a09c3500-lkp@intel.com\n\
Link: https://example.org/not-lore\n\
> Fixes: aaaaaaaaaaaa (\"quoted, not this mail's\")\n\
Fixes: 1234567 (\"too short an id\")\n\
Fixes: 12345678z (\"not an id\")\n";
        assert_eq!(
            scan(m).names,
            vec![
                Named::Fixes("8cf0c459993e".into()),
                Named::Reverts("0123456789abcdef0123456789abcdef01234567".into()),
                Named::Closes("202412271132.a09c3500-lkp@intel.com".into()),
            ]
        );
        assert!(scan(b"From: a <a@b>\nSubject: x\n\nno tags here\n").names.is_empty());
    }

    #[test]
    fn an_8bit_header_is_named() {
        assert_eq!(non_utf8_header(b"From: a <a@b>\nSubject: caf\xe9\n\nbody \xb1\n").as_deref(), Some("Subject"));
        assert_eq!(non_utf8_header(b"Subject: caf\xc3\xa9\n\nbody \xb1\n"), None);
    }

    #[test]
    fn base64_parts_may_hide_a_table() {
        let m = b"From: x <x@y>\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\nJXN0ZGRldg==\n";
        assert!(scan(m).candidate());
    }
}
