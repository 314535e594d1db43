//! Raw input → text: gzip, mbox splitting, RFC 822 headers, MIME multipart, quoted-printable and
//! base64 bodies, charsets. The result is the decoded body text plus the text attachments.

use std::io::Read;

/// One decoded message (or a plain text document with no headers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Message {
    pub subject: Option<String>,
    pub from: Option<String>,
    pub date: Option<String>,
    pub message_id: Option<String>,
    /// Its recipients (To, then Cc), each `Name <address>` or an address, as the headers give them.
    pub to: Vec<String>,
    /// The first text/plain part (or the whole document when it is not MIME).
    pub body: String,
    /// Text attachments by file name (`job.yaml`, `job-script`, `reproduce`, ...).
    pub attachments: Vec<(String, String)>,
    /// Line of the input file where `body` starts, minus one (so body line `n` is file line
    /// `n + body_line_offset`). Exact for unencoded bodies; the part's start for encoded ones.
    pub body_line_offset: usize,
}

/// Undo gzip when the bytes start with the gzip magic.
pub fn gunzip_if_needed(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out)?;
        Ok(out)
    } else {
        Ok(bytes)
    }
}

/// Split an mbox into its messages (lines starting with `From ` open a message). Anything else
/// is one message.
pub fn split_mbox(bytes: &[u8]) -> Vec<&[u8]> {
    if !bytes.starts_with(b"From ") {
        return vec![bytes];
    }
    let mut starts = vec![0];
    let mut i = 0;
    while let Some(p) = find(&bytes[i..], b"\nFrom ") {
        let at = i + p + 1;
        // An mbox separator line looks like `From addr date`; a body line starting with
        // `From ` is escaped as `>From ` by mbox writers, so any `\nFrom ` is a separator.
        starts.push(at);
        i = at;
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let e = starts.get(k + 1).copied().unwrap_or(bytes.len());
            // drop the `From ` line itself
            let body = &bytes[s..e];
            match body.iter().position(|&b| b == b'\n') {
                Some(nl) => &body[nl + 1..],
                None => &body[body.len()..],
            }
        })
        .collect()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// Parse one message. Documents without a header block (web pages, plain reports) come back as
/// a body with no headers.
pub fn parse_message(bytes: &[u8]) -> Message {
    let (headers, body) = split_headers(bytes);
    if headers.is_empty() {
        return Message { body: decode_charset(bytes, None), ..Default::default() };
    }
    let mut msg = Message {
        subject: header(&headers, "subject").map(|s| decode_words(&s)),
        from: header(&headers, "from").map(|s| decode_words(&s)),
        date: header(&headers, "date"),
        message_id: header(&headers, "message-id").map(|s| clean_message_id(&s)),
        to: ["to", "cc"].iter().flat_map(|h| header(&headers, h)).flat_map(|v| recipients(&decode_words(&v))).collect(),
        ..Default::default()
    };
    let mut texts = Vec::new();
    walk_part(&headers, body, &mut texts, 0);
    for part in texts {
        match part.filename {
            Some(name) => msg.attachments.push((name, part.text)),
            None if msg.body.is_empty() => {
                msg.body = part.text;
                let offset = (part.start as usize).saturating_sub(bytes.as_ptr() as usize).min(bytes.len());
                msg.body_line_offset = bytes[..offset].iter().filter(|&&b| b == b'\n').count();
            }
            None => {}
        }
    }
    msg
}

/// The recipients of a To or Cc value: split at the commas outside quotes and `<>`, each trimmed,
/// white space collapsed; at most `RECIPIENTS_MAX` (a list's whole roster is no one's search).
pub fn recipients(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut quoted, mut angle, mut start) = (false, false, 0);
    let mut push = |s: &str| {
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        if !s.is_empty() && out.len() < RECIPIENTS_MAX {
            out.push(s);
        }
    };
    for (i, c) in v.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '<' if !quoted => angle = true,
            '>' if !quoted => angle = false,
            ',' if !quoted && !angle => {
                push(&v[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&v[start..]);
    out
}

/// The most recipients kept of one mail.
pub const RECIPIENTS_MAX: usize = 40;

/// `<id@host>` → `id@host`.
fn clean_message_id(s: &str) -> String {
    s.trim().trim_start_matches('<').trim_end_matches('>').trim().to_string()
}

struct TextPart {
    filename: Option<String>,
    text: String,
    /// Address of the part's raw body, to find its line in the input.
    start: *const u8,
}

type Headers = Vec<(String, String)>;

/// Headers end at the first empty line. A block counts as headers only when its first line is
/// a `Name: value` line with a plausible header name and a known header occurs in it.
fn split_headers(bytes: &[u8]) -> (Headers, &[u8]) {
    let mut headers: Headers = Vec::new();
    let mut pos = 0;
    let mut known = false;
    while pos < bytes.len() {
        let end = bytes[pos..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| pos + p);
        let raw = &bytes[pos..end];
        let line = String::from_utf8_lossy(raw);
        let line = line.trim_end_matches('\r');
        let next = (end + 1).min(bytes.len());
        if line.is_empty() {
            if known && !headers.is_empty() {
                return (headers, &bytes[next..]);
            }
            return (Vec::new(), bytes);
        }
        if (line.starts_with(' ') || line.starts_with('\t')) && !headers.is_empty() {
            let last = headers.last_mut().expect("non-empty");
            last.1.push(' ');
            last.1.push_str(line.trim());
        } else if let Some((name, value)) = line.split_once(':') {
            let valid = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !valid {
                return (Vec::new(), bytes);
            }
            let lname = name.to_ascii_lowercase();
            if matches!(
                lname.as_str(),
                "from"
                    | "subject"
                    | "date"
                    | "message-id"
                    | "content-type"
                    | "to"
                    | "mime-version"
                    | "received"
                    | "return-path"
            ) {
                known = true;
            }
            headers.push((lname, value.trim().to_string()));
        } else {
            return (Vec::new(), bytes);
        }
        pos = next;
    }
    (Vec::new(), bytes)
}

fn header(headers: &Headers, name: &str) -> Option<String> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
}

/// Parameter of a structured header value (`charset`, `boundary`, `name`, `filename`).
fn header_param(value: &str, param: &str) -> Option<String> {
    for piece in value.split(';').skip(1) {
        let (k, v) = piece.split_once('=')?;
        if k.trim().eq_ignore_ascii_case(param) {
            return Some(v.trim().trim_matches('"').to_string());
        }
    }
    None
}

fn walk_part(headers: &Headers, body: &[u8], out: &mut Vec<TextPart>, depth: usize) {
    let ctype = header(headers, "content-type").unwrap_or_else(|| "text/plain".into());
    let mime = ctype.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if mime.starts_with("multipart/") && depth < 8 {
        if let Some(boundary) = header_param(&ctype, "boundary") {
            for part in split_multipart(body, &boundary) {
                let (h, b) = split_part_headers(part);
                walk_part(&h, b, out, depth + 1);
            }
            return;
        }
    }
    if mime.starts_with("message/rfc822") && depth < 8 {
        let (h, b) = split_headers(body);
        walk_part(&h, b, out, depth + 1);
        return;
    }
    if !(mime.starts_with("text/") || mime == "application/x-yaml" || mime == "application/x-sh") {
        return;
    }
    let encoding = header(headers, "content-transfer-encoding").unwrap_or_default().to_ascii_lowercase();
    let decoded = match encoding.trim() {
        "quoted-printable" => decode_qp(body),
        "base64" => decode_base64(body),
        _ => body.to_vec(),
    };
    let charset = header_param(&ctype, "charset");
    let disposition = header(headers, "content-disposition").unwrap_or_default();
    let filename = header_param(&disposition, "filename").or_else(|| header_param(&ctype, "name"));
    let attachment = disposition.to_ascii_lowercase().starts_with("attachment") || filename.is_some();
    out.push(TextPart {
        filename: if attachment { Some(filename.unwrap_or_else(|| "attachment".into())) } else { None },
        text: decode_charset(&decoded, charset.as_deref()),
        start: body.as_ptr(),
    });
}

/// Part headers: like message headers but any block before the first empty line counts.
fn split_part_headers(part: &[u8]) -> (Headers, &[u8]) {
    let part = part.strip_prefix(b"\r\n").or_else(|| part.strip_prefix(b"\n")).unwrap_or(part);
    let mut headers: Headers = Vec::new();
    let mut pos = 0;
    while pos < part.len() {
        let end = part[pos..].iter().position(|&b| b == b'\n').map_or(part.len(), |p| pos + p);
        let line = String::from_utf8_lossy(&part[pos..end]);
        let line = line.trim_end_matches('\r');
        let next = (end + 1).min(part.len());
        if line.is_empty() {
            return (headers, &part[next..]);
        }
        if (line.starts_with(' ') || line.starts_with('\t')) && !headers.is_empty() {
            let last = headers.last_mut().expect("non-empty");
            last.1.push(' ');
            last.1.push_str(line.trim());
        } else if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        } else {
            // no header block at all
            return (Vec::new(), part);
        }
        pos = next;
    }
    (headers, &part[part.len()..])
}

fn split_multipart<'a>(body: &'a [u8], boundary: &str) -> Vec<&'a [u8]> {
    let delim = format!("--{boundary}");
    let delim = delim.as_bytes();
    let mut parts = Vec::new();
    let mut starts = Vec::new();
    let mut i = 0;
    // delimiters must start a line
    while let Some(p) = find(&body[i..], delim) {
        let at = i + p;
        if at == 0 || body[at - 1] == b'\n' {
            starts.push(at);
        }
        i = at + delim.len();
    }
    for w in starts.windows(2) {
        let s = w[0] + delim.len();
        if body[s..].starts_with(b"--") {
            break;
        }
        let mut e = w[1];
        // the line break before the delimiter belongs to the delimiter
        if e > s && body[e - 1] == b'\n' {
            e -= 1;
            if e > s && body[e - 1] == b'\r' {
                e -= 1;
            }
        }
        // skip the rest of the delimiter line
        let s = body[s..w[1]].iter().position(|&b| b == b'\n').map_or(w[1], |p| s + p + 1);
        parts.push(&body[s.min(e)..e]);
    }
    parts
}

/// Quoted-printable: `=XX` escapes and `=` soft line breaks.
pub fn decode_qp(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        if b == b'=' {
            if body.get(i + 1) == Some(&b'\n') {
                i += 2;
                continue;
            }
            if body.get(i + 1) == Some(&b'\r') && body.get(i + 2) == Some(&b'\n') {
                i += 3;
                continue;
            }
            if let (Some(h), Some(l)) = (body.get(i + 1).and_then(|c| hex(*c)), body.get(i + 2).and_then(|c| hex(*c))) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Base64 (standard alphabet), ignoring whitespace and anything else outside the alphabet.
pub fn decode_base64(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &c in body {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => continue,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// Bytes → text by charset: UTF-8 (lossy), ISO-8859-1 / Windows-1252 / us-ascii mapped byte by
/// byte. Unknown charsets: UTF-8 when valid, else Latin-1. Line ends normalised to `\n`.
pub fn decode_charset(bytes: &[u8], charset: Option<&str>) -> String {
    let cs = charset.unwrap_or("").to_ascii_lowercase();
    let text = if cs.is_empty() || cs == "utf-8" || cs == "utf8" || cs == "us-ascii" {
        match std::str::from_utf8(bytes) {
            Ok(s) => s.to_string(),
            Err(_) if cs.is_empty() || cs == "us-ascii" => latin1(bytes),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        }
    } else if cs.starts_with("iso-8859") || cs == "latin1" || cs.starts_with("windows-125") {
        latin1(bytes)
    } else {
        match std::str::from_utf8(bytes) {
            Ok(s) => s.to_string(),
            Err(_) => latin1(bytes),
        }
    };
    if text.contains('\r') {
        text.replace("\r\n", "\n")
    } else {
        text
    }
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

/// RFC 2047 encoded words (`=?utf-8?q?...?=`, `=?utf-8?b?...?=`) in a header value.
pub fn decode_words(s: &str) -> String {
    if !s.contains("=?") {
        return s.to_string();
    }
    let mut out = String::new();
    let mut rest = s;
    let mut last_was_word = false;
    while let Some(start) = rest.find("=?") {
        let before = &rest[..start];
        if !(last_was_word && before.trim().is_empty()) {
            out.push_str(before);
        }
        let after = &rest[start + 2..];
        let mut it = after.splitn(3, '?');
        let (Some(cs), Some(enc), Some(tail)) = (it.next(), it.next(), it.next()) else {
            out.push_str(&rest[start..]);
            return out;
        };
        let Some(end) = tail.find("?=") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let payload = &tail[..end];
        let bytes = match enc.to_ascii_lowercase().as_str() {
            "q" => decode_qp(payload.replace('_', " ").as_bytes()),
            "b" => decode_base64(payload.as_bytes()),
            _ => payload.as_bytes().to_vec(),
        };
        out.push_str(&decode_charset(&bytes, Some(cs)));
        rest = &tail[end + 2..];
        last_was_word = true;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qp_and_base64() {
        assert_eq!(decode_qp(b"a=3Db=\nc =C2=B1"), b"a=bc \xc2\xb1");
        assert_eq!(decode_base64(b"aGVs\nbG8="), b"hello");
        assert_eq!(decode_charset(b"\xb1 5%", Some("iso-8859-1")), "± 5%");
        assert_eq!(decode_words("=?utf-8?q?caf=C3=A9?= au =?utf-8?b?bGFpdA==?="), "café au lait");
    }

    #[test]
    fn multipart_with_attachment() {
        let raw = b"From: a\nSubject: s\nMessage-ID: <x@y>\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/plain; charset=us-ascii\n\nhello\n--B\nContent-Type: text/plain; charset=us-ascii\nContent-Disposition: attachment; filename=reproduce\nContent-Transfer-Encoding: base64\n\nZWNobyBoaQo=\n--B--\n";
        let m = parse_message(raw);
        assert_eq!(m.message_id.as_deref(), Some("x@y"));
        assert_eq!(m.body, "hello");
        assert_eq!(m.attachments, vec![("reproduce".to_string(), "echo hi\n".to_string())]);
    }

    #[test]
    fn plain_text_has_no_headers() {
        let m = parse_message(b"Greeting,\nFYI: we noticed\n");
        assert_eq!(m.subject, None);
        assert!(m.body.starts_with("Greeting"));
        let m = parse_message(b"Subject: [x] y\nFrom: r\n\nbody\n");
        assert_eq!(m.subject.as_deref(), Some("[x] y"));
        assert_eq!(m.body, "body\n");
    }

    #[test]
    fn mbox_split() {
        let parts = split_mbox(b"From a@b Mon\nSubject: 1\n\nx\nFrom c@d Tue\nSubject: 2\n\ny\n");
        assert_eq!(parts.len(), 2);
        assert!(parts[1].starts_with(b"Subject: 2"));
    }
}
