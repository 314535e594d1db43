//! HTML text for the large, uniform parts of the page (the Changes table, the distribution
//! figure): written as escaped strings by plain, natively tested functions and set with
//! `inner_html`, with one delegated event handler per view. Typed Leptos views of hundreds of
//! rows cost both wasm size (one generic instantiation per element shape) and render time.
//!
//! Everything that comes from the data (metric names, notes from mail threads, subjects) goes
//! through `esc`: the data is not trusted to be free of markup.

use std::fmt::Write;

/// Escape text for an HTML text node or a double-quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `u` when it may be a link's `href`: an absolute `http://` or `https://` URL without white space
/// or control characters. Every link to a URL from the data goes through here: a `javascript:`
/// or `data:` URL in a mail or a dataset never becomes clickable.
pub fn safe_href(u: &str) -> Option<&str> {
    let prefix =
        ["https://", "http://"].into_iter().find(|p| u.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p)));
    let has_host = prefix.is_some_and(|p| u.len() > p.len());
    let clean = !u.chars().any(|c| c.is_whitespace() || c.is_control());
    (has_host && clean).then_some(u)
}

/// `<option value="v" selected>label</option>`.
pub fn option(out: &mut String, value: &str, label: &str, selected: bool) {
    let sel = if selected { " selected" } else { "" };
    let _ = write!(out, "<option value=\"{}\"{sel}>{}</option>", esc(value), esc(label));
}

/// `<select name=.. data-testid=..>` with `(value, label)` options, `current` selected.
pub fn select(out: &mut String, name: &str, testid: &str, options: &[(String, String)], current: &str) {
    let _ = write!(out, "<select name=\"{}\" data-testid=\"{}\">", esc(name), esc(testid));
    for (v, l) in options {
        option(out, v, l, v == current);
    }
    out.push_str("</select>");
}

/// A link opening in a new tab, or just the text when there is no (safe) URL.
pub fn link(out: &mut String, url: Option<&str>, title: &str, inner_html: &str) {
    match url.and_then(safe_href) {
        Some(u) => {
            let _ = write!(
                out,
                "<a href=\"{}\" target=\"_blank\" rel=\"noopener\" title=\"{}\">{inner_html}</a>",
                esc(u),
                esc(title)
            );
        }
        None => {
            let _ = write!(out, "<span title=\"{}\">{inner_html}</span>", esc(title));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(esc(r#"<b a="1">&'x'</b>"#), "&lt;b a=&quot;1&quot;&gt;&amp;&#39;x&#39;&lt;/b&gt;");
        assert_eq!(esc("fio.latency_>=2000ms%"), "fio.latency_&gt;=2000ms%");
        assert_eq!(esc("日本 ± 3%"), "日本 ± 3%");
    }

    #[test]
    fn only_http_and_https_urls_become_links() {
        for ok in ["https://lore.kernel.org/all/x@y/", "http://0day.example/m", "HTTPS://GIT.KERNEL.ORG/a"] {
            assert_eq!(safe_href(ok), Some(ok));
        }
        for bad in [
            "javascript:alert(1)",
            " javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "data:text/html,<script>x</script>",
            "vbscript:x",
            "//evil.example/x",
            "/relative",
            "https://",
            "https://a b",
            "https://a\nb",
            "ftp://x",
            "",
        ] {
            assert_eq!(safe_href(bad), None, "{bad}");
        }
        let mut s = String::new();
        link(&mut s, Some("javascript:alert(1)"), "t", "x");
        assert_eq!(s, "<span title=\"t\">x</span>");
    }

    #[test]
    fn pieces() {
        let mut s = String::new();
        select(&mut s, "dir", "changes-dir", &[("".into(), "all".into()), ("a\"".into(), "<A>".into())], "a\"");
        assert_eq!(
            s,
            "<select name=\"dir\" data-testid=\"changes-dir\"><option value=\"\">all</option>\
             <option value=\"a&quot;\" selected>&lt;A&gt;</option></select>"
        );
        let mut s = String::new();
        link(&mut s, Some("https://x/?a=1&b=2"), "t\"", "<code>x</code>");
        assert_eq!(
            s,
            "<a href=\"https://x/?a=1&amp;b=2\" target=\"_blank\" rel=\"noopener\" title=\"t&quot;\"><code>x</code></a>"
        );
        let mut s = String::new();
        link(&mut s, None, "t", "x");
        assert_eq!(s, "<span title=\"t\">x</span>");
    }
}
