//! HTML text for the large, uniform parts of the page (the Changes table, the distribution
//! figure, the report page): written by plain, natively tested functions into an `Html` and set
//! with `inner_html`, with one delegated event handler per view. Typed Leptos views of hundreds
//! of rows cost both wasm size (one generic instantiation per element shape) and render time.
//!
//! The data is not trusted to be free of markup (metric names, notes from mail threads,
//! subjects), so markup is never built by formatting text: `Html` takes markup only as
//! `&'static str` templates and literals, and every other piece as a `Fragment`, which escapes
//! text. Text from the data cannot become markup, whatever a view forgets.

use std::fmt::Write;

/// HTML being written. Markup enters only as `&'static str` templates and literals; every other
/// piece goes through `Fragment`, which escapes text. So text from the data cannot become markup.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Html(String);

/// A piece put into a template's `{}`: text is escaped, an `Html` goes in as it is. Sealed: only
/// this module can say how a type is written, so no other module can add a raw kind of text.
pub trait Fragment: sealed::Sealed {
    fn put_into(&self, out: &mut String);
}

mod sealed {
    /// Public but unnameable outside `html`: the types here are the only fragments.
    pub trait Sealed {}
    impl Sealed for str {}
    impl Sealed for String {}
    impl Sealed for super::Html {}
    impl Sealed for super::Act {}
    impl<T: Sealed + ?Sized> Sealed for &T {}
    impl Sealed for usize {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

impl Fragment for str {
    fn put_into(&self, out: &mut String) {
        escape_into(out, self);
    }
}

impl Fragment for String {
    fn put_into(&self, out: &mut String) {
        escape_into(out, self);
    }
}

impl Fragment for Html {
    fn put_into(&self, out: &mut String) {
        out.push_str(&self.0);
    }
}

impl<T: Fragment + ?Sized> Fragment for &T {
    fn put_into(&self, out: &mut String) {
        (**self).put_into(out);
    }
}

/// What a click on HTML written here asks of its view: the `data-act` of the clicked element.
/// The builders write it and the views' handlers read it back (`web::action_of`) through this one
/// type, so a handler can only match an action some HTML writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// Show every row of a report's table.
    All,
    /// The compare table of the distribution's pair.
    Compare,
    Csv,
    /// A latency histogram's distribution.
    Dist,
    MailClose,
    /// One of a mail's reports (value: its position).
    MailPick,
    /// The next page of a list.
    More,
    /// A report (value: its permalink key).
    Open,
    Png,
    /// A report from the Changes view's newest headlines (value: its permalink key).
    Report,
    /// The commit panel with the reproduce script.
    Reproduce,
    /// A table's order (value: the sort key).
    Sort,
    Svg,
    /// Select a testcase (value: its name).
    Testcase,
    /// The metric's trend.
    Trend,
}

crate::spelled!(Act {
    All => "all",
    Compare => "compare",
    Csv => "csv",
    Dist => "dist",
    MailClose => "mail-close",
    MailPick => "mail-pick",
    More => "more",
    Open => "open",
    Png => "png",
    Report => "report",
    Reproduce => "reproduce",
    Sort => "sort",
    Svg => "svg",
    Testcase => "testcase",
    Trend => "trend",
});

impl Fragment for Act {
    fn put_into(&self, out: &mut String) {
        out.push_str(self.as_str());
    }
}

/// Integers need no escaping. Not floats: the caller formats them (`format!("{:.2}", x)`) into a
/// `String`, which is escaped like any text.
macro_rules! integer_fragments {
    ($($t:ty),*) => {$(
        impl Fragment for $t {
            fn put_into(&self, out: &mut String) {
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
integer_fragments!(usize, u8, u16, u32, u64, i32, i64);

/// Escape text for an HTML text node or a double-quoted attribute value.
fn escape_into(out: &mut String, s: &str) {
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
}

/// The number of `{}` in a template (public for `put!`, which calls it in a constant). Panics (at compile time, in `put!`) on a `{` not followed
/// by `}` and on a lone `}`: inline captures (`{name}`) and format specs (`{:.2}`) would bypass
/// the escaping of `Fragment`, and a template has no other use for braces.
pub const fn holes(template: &str) -> usize {
    let b = template.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'{' if i + 1 < b.len() && b[i + 1] == b'}' => {
                n += 1;
                i += 1;
            }
            b'{' => panic!("html template: a `{{` not followed by `}}` (no inline captures, no format specs)"),
            b'}' => panic!("html template: a lone `}}`"),
            _ => {}
        }
        i += 1;
    }
    n
}

impl Html {
    pub fn new() -> Html {
        Html(String::new())
    }

    pub fn with_capacity(n: usize) -> Html {
        Html(String::with_capacity(n))
    }

    /// Static markup as an `Html` value (a link's inner content, say).
    pub fn from_static(markup: &'static str) -> Html {
        Html(markup.to_string())
    }

    /// `template` with each `{}` replaced by the next of `args`. Panics if the count of `{}`
    /// differs from `args.len()`, or if the template has a `{` not followed by `}` or a lone `}`
    /// (no inline captures, no format specs: they would bypass escaping). `put!` checks both
    /// when it compiles.
    pub fn put(&mut self, template: &'static str, args: &[&dyn Fragment]) -> &mut Html {
        let n = holes(template);
        assert!(n == args.len(), "html template with {n} `{{}}` given {} arguments: {template}", args.len());
        let mut parts = template.split("{}");
        if let Some(first) = parts.next() {
            self.0.push_str(first);
        }
        for (part, arg) in parts.zip(args) {
            arg.put_into(&mut self.0);
            self.0.push_str(part);
        }
        self
    }

    /// Static markup, as it is.
    pub fn lit(&mut self, markup: &'static str) -> &mut Html {
        self.0.push_str(markup);
        self
    }

    /// Markup this crate made by other means: an SVG plotters' backend wrote (`draw::svg`; it
    /// escapes every text it writes), or a part of a page `render` wrote, read back (`--into`).
    pub(crate) fn made(markup: String) -> Html {
        Html(markup)
    }

    /// Text, escaped.
    pub fn text(&mut self, t: &str) -> &mut Html {
        escape_into(&mut self.0, t);
        self
    }

    /// Markup written by another builder, as it is.
    pub fn html(&mut self, h: &Html) -> &mut Html {
        self.0.push_str(&h.0);
        self
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `put!(h, "<td class=\"num\">{}</td>", value)`: `Html::put` with each argument as
/// `&dyn Fragment`, the template checked when it compiles (as many `{}` as arguments, no other
/// braces).
///
/// ```
/// let mut h = render::html::Html::new();
/// render::put!(h, "<td title=\"{}\">{}</td>", "a<b", 3usize);
/// assert_eq!(h.as_str(), "<td title=\"a&lt;b\">3</td>");
/// ```
/// An inline capture, a format spec or a count of arguments other than of `{}` does not compile:
/// ```compile_fail,E0080
/// let (mut h, name) = (render::html::Html::new(), "x");
/// render::put!(h, "<b>{name}</b>");
/// ```
/// ```compile_fail,E0080
/// render::put!(render::html::Html::new(), "<b>{:.2}</b>", 1u8);
/// ```
/// ```compile_fail,E0080
/// render::put!(render::html::Html::new(), "<b>{}</b>", "x", "y");
/// ```
#[macro_export]
macro_rules! put {
    ($h:expr, $t:literal $(, $a:expr)* $(,)?) => {{
        const _: () = assert!(
            $crate::html::holes($t) == <[&str]>::len(&[$(stringify!($a)),*]),
            "html template: the count of `{{}}` differs from the count of arguments"
        );
        $h.put($t, &[$(&$a as &dyn $crate::html::Fragment),*])
    }};
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

/// A view's error message: `<div class="error" data-testid="error" role="alert">`.
pub fn alert(message: &str) -> Html {
    let mut h = Html::new();
    put!(h, "<div class=\"error\" data-testid=\"error\" role=\"alert\">{}</div>", message);
    h
}

/// `<option value="v" selected>label</option>`.
pub fn option(out: &mut Html, value: &str, label: &str, selected: bool) {
    if selected {
        put!(out, "<option value=\"{}\" selected>{}</option>", value, label);
    } else {
        put!(out, "<option value=\"{}\">{}</option>", value, label);
    }
}

/// `<select name=.. data-testid=..>` with `(value, label)` options, `current` selected.
pub fn select(out: &mut Html, name: &str, testid: &str, options: &[(String, String)], current: &str) {
    put!(out, "<select name=\"{}\" data-testid=\"{}\">", name, testid);
    for (v, l) in options {
        option(out, v, l, v == current);
    }
    out.lit("</select>");
}

/// A link opening in a new tab, or just the content when there is no (safe) URL.
pub fn link(out: &mut Html, url: Option<&str>, title: &str, inner: &Html) {
    match url.and_then(safe_href) {
        Some(u) => {
            put!(out, "<a href=\"{}\" target=\"_blank\" rel=\"noopener\" title=\"{}\">{}</a>", u, title, inner);
        }
        None => {
            put!(out, "<span title=\"{}\">{}</span>", title, inner);
        }
    }
}

/// Plain text (a reply's note) with each `http://` / `https://` URL in it a link (`safe_href`); a
/// URL ends at white space, `<`, `>` or `"`, and the punctuation that ends a sentence is left out.
pub fn linked_text(out: &mut Html, text: &str) {
    let mut rest = text;
    while let Some(at) = ["https://", "http://"].iter().filter_map(|p| rest.find(p)).min() {
        out.text(&rest[..at]);
        let tail = &rest[at..];
        let end = tail.find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"')).unwrap_or(tail.len());
        let url = tail[..end].trim_end_matches(['.', ',', ';', ':', ')', ']', '\'', '!', '?']);
        match safe_href(url) {
            Some(u) => put!(out, "<a href=\"{}\" rel=\"noopener\">{}</a>", u, u),
            None => out.text(url),
        };
        rest = &tail[url.len()..];
    }
    out.text(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notes_urls_are_links_and_the_rest_stays_text() {
        let mut h = Html::new();
        linked_text(
            &mut h,
            "See https://lore.kernel.org/all/a@b/. And <b>http://x.org/p?q=1&r=2</b>, or javascript:alert(1) https://",
        );
        assert_eq!(
            h.into_string(),
            "See <a href=\"https://lore.kernel.org/all/a@b/\" rel=\"noopener\">https://lore.kernel.org/all/a@b/</a>. \
             And &lt;b&gt;<a href=\"http://x.org/p?q=1&amp;r=2\" rel=\"noopener\">http://x.org/p?q=1&amp;r=2</a>&lt;/b&gt;, \
             or javascript:alert(1) https://"
        );
    }

    #[test]
    fn every_action_is_spelled_once_and_reads_back() {
        let mut seen = std::collections::BTreeSet::new();
        for a in Act::ALL {
            assert!(seen.insert(a.as_str()), "{a:?} spelled twice");
            assert_eq!(a.as_str().parse::<Act>(), Ok(*a));
            let mut h = Html::new();
            crate::put!(h, "<button data-act=\"{}\">", *a);
            assert_eq!(h.into_string(), format!("<button data-act=\"{}\">", a.as_str()));
        }
        assert_eq!("trend ".parse::<Act>(), Err(()));
    }

    fn text(s: &str) -> String {
        let mut h = Html::new();
        h.text(s);
        h.into_string()
    }

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(text(r#"<b a="1">&'x'</b>"#), "&lt;b a=&quot;1&quot;&gt;&amp;&#39;x&#39;&lt;/b&gt;");
        assert_eq!(text("fio.latency_>=2000ms%"), "fio.latency_&gt;=2000ms%");
        assert_eq!(text("日本 ± 3%"), "日本 ± 3%");
        let mut h = Html::new();
        put!(h, "<i title=\"{}\">{}</i>", r#"<b a="1">&'x'</b>"#, String::from("a<b"));
        assert_eq!(h.as_str(), "<i title=\"&lt;b a=&quot;1&quot;&gt;&amp;&#39;x&#39;&lt;/b&gt;\">a&lt;b</i>");
    }

    #[test]
    fn html_goes_in_as_it_is_text_and_numbers_escaped_or_printed() {
        let mut inner = Html::new();
        put!(inner, "<code>{}</code>", "<x>");
        let mut h = Html::new();
        let (n, m, k): (usize, u32, i64) = (7, 42, -3);
        put!(h, "{}|{}|{}|{}|{}|{}", inner, "<code>", n, m, k, format!("{:.2}", 1.0f64 / 3.0));
        assert_eq!(h.as_str(), "<code>&lt;x&gt;</code>|&lt;code&gt;|7|42|-3|0.33");
        h.lit("<br>").text("&").html(&inner);
        assert_eq!(h.as_str(), "<code>&lt;x&gt;</code>|&lt;code&gt;|7|42|-3|0.33<br>&amp;<code>&lt;x&gt;</code>");
        assert!(!h.is_empty() && Html::new().is_empty());
        assert_eq!(Html::from_static("<b>x</b>").as_str(), "<b>x</b>");
        let mut t = Html::new();
        put!(t, "no holes");
        put!(t, "{}{}", 1u8, 2u16);
        t.put("{} and {}", &[&"a", &3u64]);
        assert_eq!(t.into_string(), "no holes12a and 3");
    }

    #[test]
    fn templates_count_their_holes() {
        assert_eq!((holes(""), holes("<a>"), holes("{}"), holes("a{}b{}c{}")), (0, 0, 1, 3));
    }

    #[test]
    #[should_panic(expected = "given 1 arguments")]
    fn fewer_holes_than_arguments_panic() {
        Html::new().put("<b></b>", &[&"x"]);
    }

    #[test]
    #[should_panic(expected = "given 1 arguments")]
    fn more_holes_than_arguments_panic() {
        Html::new().put("<b>{}{}</b>", &[&"x"]);
    }

    #[test]
    #[should_panic(expected = "not followed by")]
    fn an_inline_capture_panics() {
        Html::new().put("<b>{name}</b>", &[]);
    }

    #[test]
    #[should_panic(expected = "not followed by")]
    fn a_format_spec_panics() {
        Html::new().put("<b>{:.2}</b>", &[&"1"]);
    }

    #[test]
    #[should_panic(expected = "lone")]
    fn a_lone_closing_brace_panics() {
        Html::new().put("<b>}</b>", &[]);
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
        let mut s = Html::new();
        link(&mut s, Some("javascript:alert(1)"), "t", &Html::from_static("x"));
        assert_eq!(s.as_str(), "<span title=\"t\">x</span>");
    }

    #[test]
    fn pieces() {
        let mut s = Html::new();
        select(&mut s, "dir", "changes-dir", &[("".into(), "all".into()), ("a\"".into(), "<A>".into())], "a\"");
        assert_eq!(
            s.as_str(),
            "<select name=\"dir\" data-testid=\"changes-dir\"><option value=\"\">all</option>\
             <option value=\"a&quot;\" selected>&lt;A&gt;</option></select>"
        );
        let mut s = Html::new();
        link(&mut s, Some("https://x/?a=1&b=2"), "t\"", &Html::from_static("<code>x</code>"));
        assert_eq!(
            s.as_str(),
            "<a href=\"https://x/?a=1&amp;b=2\" target=\"_blank\" rel=\"noopener\" title=\"t&quot;\"><code>x</code></a>"
        );
        let mut s = Html::new();
        link(&mut s, None, "t", &Html::from_static("x"));
        assert_eq!(s.as_str(), "<span title=\"t\">x</span>");
        assert_eq!(
            alert("no <x>").as_str(),
            "<div class=\"error\" data-testid=\"error\" role=\"alert\">no &lt;x&gt;</div>"
        );
    }
}
