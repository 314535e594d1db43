//! Whole static pages: a report's (`m/<Message-ID>/`), the first screen (`index.html`) and the
//! lists (`p/…`). Each is complete and readable without JavaScript, styled by the site's
//! `main.css`, and (all but the lists) starts the app (`boot.js`), which takes the page over
//! where it stands; a list is an index of the static pages, its links open them. Every
//! page sets `<base>` to the site's root, so one link (`m/…/`, `data/…`) means the same file from
//! any page, and the site works under any sub-path.

use crate::html::Html;
use crate::put;
use crate::report::{self, TableFilter};
use model::{ReportDoc, ReportSummary};

/// The pages' own style, inlined: lines of the site's `main.css` in its order (a test checks it),
/// so a page paints with no other file, and `main.css`, which `boot.js` links for the app after
/// the page's first paint, changes nothing of it.
const PAGE_CSS: &str = include_str!("../../style/page.css");

/// The style a page inlines: `PAGE_CSS` (lines of `main.css`, kept readable there) without its
/// comments and the whitespace CSS does not need (every page carries it); a report's page
/// (`report`) without the rules of the lists alone (`LIST_ONLY`).
fn page_css(report: bool) -> &'static str {
    static ALL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    static REPORT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| minified(PAGE_CSS));
    match report {
        true => REPORT.get_or_init(|| without_lists(all)),
        false => all,
    }
}

/// The classes of the lists and the first screen (`list_page`, `first_page`, `trend::of_testcase`)
/// that a report's page never shows.
const LIST_ONLY: [&str; 8] = [
    ".trend-svg",
    ".reports-layout",
    ".reports-list",
    ".list-count",
    "report-list",
    ".report-item",
    ".report-open",
    ".pager",
];

/// Minified `css` without the rules (and `@media` blocks) whose every selector names a class of
/// `LIST_ONLY`, in its order.
fn without_lists(css: &str) -> String {
    let listed = |selectors: &str| selectors.split(',').all(|s| LIST_ONLY.iter().any(|c| s.contains(c)));
    let mut out = String::with_capacity(css.len());
    let (mut depth, mut start) = (0, 0);
    for (i, c) in css.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => {
                depth = 0;
                let rule = &css[start..=i];
                let head = &rule[..rule.find('{').unwrap_or(0)];
                let inner = || rule[head.len() + 1..rule.len() - 1].split('}').filter_map(|r| r.split_once('{'));
                let drop = match head.starts_with('@') {
                    true => inner().all(|(sel, _)| listed(sel)),
                    false => listed(head),
                };
                if !drop {
                    out.push_str(rule);
                }
                start = i + 1;
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    out
}

/// `css` without comments, line breaks and the spaces around `{ } ; , :` (its quoted strings hold
/// none of these followed by a space: the fonts' names).
fn minified(css: &str) -> String {
    let mut text = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(at) = rest.find("/*") {
        text.push_str(&rest[..at]);
        rest = rest[at..].find("*/").map_or("", |e| &rest[at + e + 2..]);
    }
    text.push_str(rest);
    let mut out = String::with_capacity(text.len());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !(out.is_empty() || out.ends_with(['{', '}', ';', ',']) || line.starts_with('}')) {
            out.push(' ');
        }
        out.push_str(line);
    }
    [(" {", "{"), ("{ ", "{"), ("; ", ";"), (" }", "}"), (";}", "}"), (": ", ":"), (", ", ",")]
        .iter()
        .fold(out, |s, (a, b)| s.replace(a, b))
}

/// Reports per page of a static list.
pub const LIST_PAGE: usize = 100;

/// Whether a page starts the app on top of it (`boot.js`, which links `main.css`): every page but the lists.
#[derive(Clone, Copy, PartialEq)]
enum App {
    OnTop,
    None,
}

/// How a page starts the app on top of it (`boot.js`, inserted, so that nothing the page fetches
/// or runs comes before its own first paint): once the page has painted its content (the first
/// contentful paint; at the latest after 3 s, where a browser reports none); at once for an
/// address with a query, which asks the app for another view while the page waits hidden (`q`).
const START_APP: &str = "function b(){if(b.s)return;b.s=1;var s=document.createElement('script');\
    s.type='module';s.src='boot.js';document.head.append(s)}\
    if(location.search){d.className='q';b()}else{setTimeout(b,3000);\
    try{new PerformanceObserver(function(l,o){if(l.getEntriesByName('first-contentful-paint').length){\
    o.disconnect();b()}}).observe({type:'paint',buffered:true})}catch(e){b()}}";

/// A page's `<head>` and the start of its body: `depth` folders below the site's root.
/// Which rules of the site's style a page inlines: a report's page those it can show, any other all.
#[derive(PartialEq, Eq)]
enum Style {
    Report,
    All,
}

fn open(out: &mut Html, depth: usize, title: &str, description: &str, app: App, style: Style) {
    out.lit(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
        <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    );
    if depth > 0 {
        put!(out, "<base href=\"{}\">", "../".repeat(depth).as_str());
    }
    // the theme the reader chose in the app (`lkpx-theme`, app/src/ui/theme.rs) holds before it starts
    out.lit(
        "<script>var d=document.documentElement;\
        try{var t=localStorage.getItem('lkpx-theme');if(t=='light'||t=='dark')d.dataset.theme=t}catch(e){}",
    );
    if app == App::OnTop {
        out.lit(START_APP);
    }
    out.lit("</script>");
    put!(out, "<title>{}</title>", title);
    if !description.is_empty() {
        put!(out, "<meta name=\"description\" content=\"{}\">", description);
    }
    out.lit("<link rel=\"icon\" href=\"data:,\"><style>").lit(page_css(style == Style::Report)).lit("</style>");
    out.lit(
        "</head>\n<body><div id=\"static\">\
        <header class=\"top\" role=\"banner\"><h1><a href=\"./\">LKP Explorer</a></h1>\
        <span class=\"tagline\">Linux kernel test robot performance reports: find one, read it whole, see the job's history</span></header>\n",
    );
}

/// The end of a page; `doc`: the report document it carries (`model::paths::page_doc`: stored
/// bytes in base64, which escaping leaves as they are), after the static part the app hides.
fn close(out: &mut Html, doc: Option<&str>) {
    out.lit("</div>");
    if let Some(b64) = doc {
        out.lit(model::paths::PAGE_DOC_OPEN);
        put!(out, "{}", b64);
        out.lit(model::paths::PAGE_DOC_CLOSE);
    }
    out.lit("</body></html>\n");
}

/// Where a report's page holds what it shows of other reports (its record and its commit's): the
/// app takes that part from the page (`around_of`), not from a file of its own.
const AROUND_OPEN: &str = "<div class=\"around\">";
const AROUND_CLOSE: &str = "</div><!--/around-->";

/// The part of a report's page (`report_page`) between `AROUND_OPEN` and `AROUND_CLOSE`.
pub fn around_of(page: &str) -> Option<&str> {
    between(page, AROUND_OPEN, AROUND_CLOSE).map(|r| &page[r])
}

/// Where a report's page holds its job's other reports (`history_part`).
const HISTORY_OPEN: &str = "<section class=\"job-history\" data-testid=\"job-history\">";
const HISTORY_CLOSE: &str = "</section>";

/// The part of a report's page that shows its record and its commit's other reports.
fn record_part(me: &ReportSummary, around: &Around) -> Html {
    let mut out = crate::record::record_html(me, &around.record, &around.same);
    out.html(&crate::record::named_html(me, &around.named, &around.naming));
    out
}

/// The part of a report's page that shows its job's other reports.
fn history_part(me: &ReportSummary, around: &Around) -> Html {
    let ix: Vec<usize> = (0..around.others.len()).collect();
    report::history_html(&around.others, &ix, around.commits, me, true)
}

/// The text between `open` and the first `close` after it in `page`, as a range.
pub(crate) fn between(page: &str, open: &str, close: &str) -> Option<std::ops::Range<usize>> {
    let from = page.find(open)? + open.len();
    Some(from..from + page[from..].find(close)?)
}

/// A report's page (`report_page`, made with any `Around`) with what it shows of other reports
/// made anew from `around`: the same bytes as `report_page` with `around`, without the report's
/// document (`me`: its summary, `ReportSummary::listed`). An incremental import rewrites the
/// pages that only show a new report this way. `None` when the page lacks either part.
pub fn with_around(page: &str, me: &ReportSummary, around: &Around) -> Option<String> {
    let record = between(page, AROUND_OPEN, AROUND_CLOSE)?;
    let history = between(page, HISTORY_OPEN, HISTORY_CLOSE).filter(|h| h.start >= record.end)?;
    let mut out = String::with_capacity(page.len() + 4096);
    out.push_str(&page[..record.start]);
    out.push_str(record_part(me, around).as_str());
    out.push_str(&page[record.end..history.start]);
    out.push_str(history_part(me, around).as_str());
    out.push_str(&page[history.end..]);
    Some(out)
}

/// What a report's page shows of other reports: its job's (`others`, newest first; `commits`
/// they and it measured), its headline metric's record (`record`, `model::record`) and its head
/// commit's (`same`).
#[derive(Debug, Clone, Default)]
pub struct Around<'a> {
    pub others: Vec<ReportSummary>,
    pub commits: usize,
    pub record: Vec<&'a ReportSummary>,
    pub same: Vec<&'a ReportSummary>,
    /// The reports of the commits its replies name (`ReportSummary::names`), and the reports whose
    /// replies name its head commit.
    pub named: Vec<&'a ReportSummary>,
    pub naming: Vec<&'a ReportSummary>,
}

/// A report as an `<article>`: subject and headlines, its headline metric's record (its signs of
/// noise beside the headlines) and its commit's other reports, the commits and jobs, the job's
/// other reports, every table with every row, the reproduce script's link.
pub fn report_article(d: &ReportDoc, around: &Around) -> Html {
    let me = ReportSummary::listed(d);
    let tables = report::tables(d, &|_| 0);
    let mut out = Html::new();
    put!(out, "<article class=\"report\" data-testid=\"report-page\" data-report-id=\"{}\">", d.id);
    out.html(&report::head_top(d));
    out.lit(AROUND_OPEN).html(&record_part(&me, around)).lit(AROUND_CLOSE);
    out.html(&report::head_facts(d, &|_| None));
    out.lit(HISTORY_OPEN).html(&history_part(&me, around)).lit(HISTORY_CLOSE);
    out.html(&report::tables_html(&tables, &TableFilter { all: true, ..Default::default() }, report::Form::Page));
    if let Some(h) = &d.script {
        put!(
            out,
            "<h3>Reproduce</h3><p><a href=\"data/{}\" data-testid=\"script-link\">the reproduce script</a></p>",
            model::paths::script(h)
        );
    }
    out.lit("</article>");
    out
}

/// The first screen's count of reports, in all and per testcase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    pub all: usize,
    pub testcases: Vec<(String, usize)>,
}

/// The links to the lists: the newest reports, every report, and the lists of `testcases` (with
/// their counts on the first screen). Stable addresses: a new report changes no report's page.
fn nav_html(out: &mut Html, testcases: &[String], counts: Option<&Counts>) {
    out.lit("<nav class=\"crumbs\" data-testid=\"page-nav\"><a href=\"./\">Newest reports</a>");
    let all = model::paths::list_url("all", None);
    match counts {
        Some(c) => put!(out, " · <a href=\"{}\">All {} reports</a>", all, c.all),
        None => put!(out, " · <a href=\"{}\">All reports</a>", all),
    };
    let listed: Vec<(&str, Option<usize>)> = match counts {
        Some(c) => c.testcases.iter().map(|(t, n)| (t.as_str(), Some(*n))).collect(),
        None => testcases.iter().map(|t| (t.as_str(), None)).collect(),
    };
    for (tc, n) in listed {
        let url = model::paths::list_url(&model::paths::testcase_list(tc), None);
        match n {
            Some(n) => put!(out, " · <a href=\"{}\">{} ({})</a>", url, tc, n),
            None => put!(out, " · <a href=\"{}\">{}</a>", url, tc),
        };
    }
    out.lit("</nav>\n");
}

/// A report's page (`m/<Message-ID>/index.html`).
pub fn report_page(d: &ReportDoc, around: &Around, stored: &str) -> Html {
    let me = ReportSummary::listed(d);
    let mut out = Html::with_capacity(4096);
    let title = d.subject.clone().unwrap_or_else(|| d.source.clone());
    open(&mut out, 2, &title, &report::headline_text(&me), App::OnTop, Style::Report);
    out.lit("<main class=\"static-page\">");
    nav_html(&mut out, &me.testcases, None);
    out.html(&report_article(d, around));
    out.lit("</main>");
    close(&mut out, Some(stored));
    out
}

/// The first screen (`index.html`): the newest reports (`newest`, newest first) beside the
/// newest report (`open`, with its job's other reports), and the links to every list.
pub fn first_page(newest: &[ReportSummary], open_doc: Option<(&ReportDoc, &Around, &str)>, counts: &Counts) -> Html {
    let mut out = Html::with_capacity(64 * 1024);
    open(
        &mut out,
        0,
        "LKP Explorer",
        "Linux kernel test robot (LKP) performance reports per commit, with stddev bands, commit links and reproduce scripts.",
        App::OnTop,
        Style::All,
    );
    out.lit("<main class=\"static-page\">");
    nav_html(&mut out, &[], Some(counts));
    let key = open_doc.map(|(d, _, _)| d.message_id.clone().unwrap_or_else(|| d.id.clone()));
    put!(
        out,
        "<div class=\"reports-layout\"><section class=\"reports-list\" aria-label=\"Reports\">\
         <p class=\"list-count\" data-testid=\"reports-count\">the {} newest reports</p><ol class=\"report-list\" data-testid=\"report-list\">{}</ol>",
        newest.len(),
        report::list_html(newest, &(0..newest.len()).collect::<Vec<_>>(), key.as_deref())
    );
    out.lit("</section><section class=\"report-pane\" aria-label=\"Report\">");
    if let Some((d, around, _)) = open_doc {
        out.html(&report_article(d, around));
    }
    out.lit("</section></div></main>");
    close(&mut out, open_doc.map(|(_, _, stored)| stored));
    out
}

/// A page of a list (`list`: its name in `model::paths::list_html`; `n`: `None` the newest page,
/// else the n-th from the oldest; `reports`: the page's, newest first): the links to the newer
/// and older pages (`last`: the count of numbered pages); a testcase's newest page shows its
/// `trend` (`trend::of_testcase`) above them.
pub fn list_page(
    title: &str,
    list: &str,
    n: Option<usize>,
    last: usize,
    reports: &[ReportSummary],
    trend: Option<&Html>,
) -> Html {
    let mut out = Html::with_capacity(32 * 1024);
    let depth = model::paths::list_html(list, n).matches('/').count();
    let full = match n {
        Some(k) => format!("{title}, page {} of the oldest", k + 1),
        None => format!("{title}, the newest"),
    };
    open(&mut out, depth, &full, "", App::None, Style::All);
    out.lit("<main class=\"static-page\">");
    nav_html(&mut out, &[], None);
    put!(out, "<h2>{}</h2>", full);
    if let Some(t) = trend {
        out.html(t);
    }
    out.lit("<p class=\"pager\">");
    let newer = match n {
        Some(k) if k + 1 < last => Some(Some(k + 1)),
        Some(_) => Some(None),
        None => None,
    };
    let older = match n {
        Some(0) => None,
        Some(k) => Some(k - 1),
        None => last.checked_sub(1),
    };
    if let Some(p) = newer {
        put!(out, "<a rel=\"prev\" href=\"{}\">newer reports</a> ", model::paths::list_url(list, p));
    }
    if let Some(p) = older {
        put!(out, "<a rel=\"next\" href=\"{}\">older reports</a>", model::paths::list_url(list, Some(p)));
    }
    put!(
        out,
        "</p><ol class=\"report-list\" data-testid=\"report-list\">{}</ol>",
        report::list_html(reports, &(0..reports.len()).collect::<Vec<_>>(), None)
    );
    out.lit("</main>");
    close(&mut out, None);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inlined style is the site's own: its lines are lines of `main.css`, in the same order,
    /// so the page looks the same before and after `main.css` arrives.
    #[test]
    fn the_pages_style_is_main_css_in_its_order() {
        let main: Vec<&str> = include_str!("../../style/main.css").lines().collect();
        let mut at = 0;
        for line in PAGE_CSS.lines().filter(|l| !l.trim().is_empty()) {
            let found = main[at..].iter().position(|m| *m == line);
            assert!(found.is_some(), "style/page.css: {line:?} is not a line of main.css after line {at}");
            at += found.unwrap_or(0) + 1;
        }
        assert!(PAGE_CSS.len() < 6 * 1024, "the inlined style stays small: {} bytes", PAGE_CSS.len());
    }

    /// The inlined style is `PAGE_CSS` but for comments and spaces CSS does not need: the same
    /// characters once every space is gone, on one line, and about a seventh smaller.
    #[test]
    fn the_inlined_style_is_the_pages_style_made_small() {
        let squeezed = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>().replace(";}", "}");
        let no_comment = PAGE_CSS.lines().filter(|l| !l.trim_start().starts_with("/*")).collect::<Vec<_>>().join("\n");
        let css = page_css(false);
        assert_eq!(squeezed(css), squeezed(&no_comment));
        assert!(!css.contains('\n') && !css.contains("/*"), "{css}");
        assert!(css.contains("\"Segoe UI\"") && css.contains(".static-page .crumbs{"), "{css}");
        assert!(css.len() * 8 < PAGE_CSS.len() * 7, "{} of {} bytes", css.len(), PAGE_CSS.len());
        assert!(minified("a { b: c; }\n/* x */\nd,\ne { f: g h; }") == "a{b:c}d,e{f:g h}");
    }

    /// A report's page inlines the site's style but the rules of the lists, which it never shows
    /// (`LIST_ONLY`): the others in their order.
    #[test]
    fn a_report_page_inlines_the_rules_it_can_show() {
        let (all, report) = (page_css(false), page_css(true));
        assert!(report.len() + 1200 < all.len(), "{} of {} bytes", report.len(), all.len());
        let html = report_page(&doc("x"), &Around::default(), "").into_string();
        let markup = html.replace(report, "");
        for class in LIST_ONLY {
            let name = class.trim_start_matches('.');
            assert!(!report.contains(class), "{class} in {report}");
            assert!(!markup.contains(&format!("class=\"{name}")), "{name} on a report's page");
        }
        for kept in
            ["pre.rows{", ".report-table{", ".headline{", ".record-list,", "@media (max-width:600px)", ".q #static"]
        {
            assert!(report.contains(kept), "{kept} dropped");
        }
        // the rules it keeps, in the order of them all
        let mut at = 0;
        for rule in report.split_inclusive('}').filter(|r| !r.starts_with('}')) {
            let found = all[at..].find(rule);
            assert!(found.is_some(), "{rule} out of order");
            at += found.unwrap_or(0) + rule.len();
        }
        let list = list_page("All reports", "all", None, 0, &[], None).into_string();
        assert!(list.contains(all), "a list inlines every rule");
    }
    use model::{DocCommit, DocHeadline, DocJob, DocRow, DocSection};

    fn doc(subject: &str) -> ReportDoc {
        let row = |metric: &str, v: [f64; 2], change: f64, weight: i8| DocRow {
            metric: metric.into(),
            values: vec![Some(v[0]), Some(v[1])],
            stddev_pct: vec![Some(2.0), None],
            changes: vec![Some(change)],
            weight,
            ..Default::default()
        };
        ReportDoc {
            id: "00000000000000aa".into(),
            message_id: Some("2025@intel.com".into()),
            subject: Some(subject.into()),
            date: Some("Mon, 1 Dec 2025 10:00:00 +0800".into()),
            headlines: vec![DocHeadline {
                metric: "fsmark.files_per_sec".into(),
                word: "regression".into(),
                ..Default::default()
            }],
            commits: vec![
                DocCommit { id: "4591c3ef75aa".into(), url: Some("javascript:alert(1)".into()), ..Default::default() },
                DocCommit { id: "1111111111bb".into(), ..Default::default() },
            ],
            jobs: vec![DocJob { testcase: "fsmark".into(), machine: "lkp-1".into(), ..Default::default() }],
            sections: vec![DocSection {
                commits: vec!["1111111111bb".into(), "4591c3ef75aa".into()],
                rows: vec![
                    row("fsmark.files_per_sec", [100.0, 94.0], -6.0, 1),
                    row("vmstat.<script>", [1.0, 2.0], 100.0, 0),
                ],
                ..Default::default()
            }],
            script: Some("abc".into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_report_page_is_whole_and_inert() {
        let d = doc("[btrfs] <b>6.0%</b> regression");
        let other = ReportSummary {
            id: "b".into(),
            message_id: Some("x/y@z".into()),
            subject: Some("older".into()),
            ..Default::default()
        };
        let html = report_page(
            &d,
            &Around { others: vec![other.clone()], commits: 2, record: vec![&other], ..Default::default() },
            "H4sIAAAA+/=",
        )
        .into_string();
        let part = around_of(&html).expect("the page holds its record");
        assert!(
            part.starts_with("<section class=\"record\" data-testid=\"metric-record\">")
                && part.ends_with("</section>"),
            "{part}"
        );
        assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
        assert!(html.contains("<base href=\"../../\">"), "a report page is two folders down");
        assert!(html.contains("<title>[btrfs] &lt;b&gt;6.0%&lt;/b&gt; regression</title>"), "{html}");
        assert!(html.contains("100.00 ± 2%    <b class=r>-6.0%</b>  94.00  fsmark.files_per_sec\n"), "{html}");
        assert!(html.contains("  vmstat.&lt;script&gt;\n"), "every row, its name escaped");
        assert!(!html.contains("javascript:"), "links are http(s) only");
        assert!(
            html.contains(&format!("href=\"m/{}/\"", model::paths::page_dir("x/y@z"))),
            "the job's other report linked"
        );
        assert!(html.contains("href=\"data/r/abc.sh\""), "the reproduce script");
        assert!(
            html.contains("href=\"p/tc/fsmark/\">fsmark</a>") && html.contains("href=\"p/all/\">All reports</a>"),
            "{html}"
        );
        assert!(
            html.contains(START_APP) && !html.contains("<script type=\"module\""),
            "the app starts on top, once painted"
        );
        assert!(html.contains("<style>:root{") && !html.contains("main.css"), "{html}");
        assert!(
            html.ends_with(&format!(
                "</div>{}H4sIAAAA+/={}</body></html>\n",
                model::paths::PAGE_DOC_OPEN,
                model::paths::PAGE_DOC_CLOSE
            )),
            "the page carries its document, after the part the app hides"
        );
        assert_eq!(model::paths::page_doc(&html), Some("H4sIAAAA+/="));
    }

    /// The record's signs of noise stand beside the headlines: the record comes after the
    /// headlines (and the replies), before the commits, the jobs and the tables.
    #[test]
    fn a_reports_record_and_its_noise_hint_follow_its_headlines() {
        let mut d = doc("[btrfs] 6.0% regression");
        d.notes = vec!["not a regression".into()];
        d.headlines[0].change = Some(-6.0);
        d.sections[0].machine = Some("lkp-1".into());
        let me = ReportSummary::listed(&d);
        let flip = ReportSummary {
            id: "b".into(),
            message_id: Some("b@lkp".into()),
            change: Some(7.0),
            word: "improvement".into(),
            ..me.clone()
        };
        let html = report_page(&d, &Around { record: vec![&flip], ..Default::default() }, "").into_string();
        let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("{needle} in {html}"));
        let order = [
            at("data-testid=\"report-headline\""),
            at("data-testid=\"report-notes\""),
            at("data-testid=\"noise-hint\""),
            at("data-testid=\"report-commit\""),
            at("data-testid=\"job-history\""),
            at("data-testid=\"report-table\""),
        ];
        assert!(order.is_sorted(), "{order:?}");
    }

    #[test]
    fn a_page_with_its_others_made_anew_is_the_page_made_with_them() {
        let d = doc("[btrfs] 6.0% regression");
        let me = ReportSummary::listed(&d);
        let peer = |id: &str, subject: &str, change: f64| ReportSummary {
            id: id.into(),
            message_id: Some(format!("{id}@lkp")),
            subject: Some(subject.into()),
            testcases: vec!["fsmark".into()],
            metric: Some("fsmark.files_per_sec".into()),
            change: Some(change),
            word: "regression".into(),
            date: Some("2024-01-02".into()),
            time: Some(1_704_153_600),
            ..Default::default()
        };
        let (a, b, c) = (peer("a", "older", -3.0), peer("b", "</section><b>x</b>", 9.0), peer("c", "newer", -7.0));
        let before = Around { others: vec![a.clone()], commits: 2, record: vec![&a], ..Default::default() };
        let after = Around {
            others: vec![c.clone(), a.clone()],
            commits: 3,
            record: vec![&c, &b, &a],
            same: vec![&b],
            named: vec![&a],
            naming: vec![&c],
        };
        let (old, new) = (report_page(&d, &before, "AA").into_string(), report_page(&d, &after, "AA").into_string());
        assert_ne!(old, new, "the two pages differ in what they show of others");
        assert_eq!(with_around(&old, &me, &after).as_deref(), Some(new.as_str()));
        assert_eq!(with_around(&new, &me, &before).as_deref(), Some(old.as_str()));
        assert_eq!(
            with_around(&new, &me, &Around::default()),
            Some(report_page(&d, &Around::default(), "AA").into_string())
        );
        assert_eq!(
            with_around("<html>no parts</html>", &me, &after),
            None,
            "a page without the parts is not guessed at"
        );
    }

    #[test]
    fn the_first_screen_and_the_lists_link_every_report() {
        let d = doc("newest");
        let list: Vec<ReportSummary> = (0..3)
            .map(|i| ReportSummary {
                id: format!("{i:016x}"),
                message_id: Some(format!("m{i}@x")),
                subject: Some(format!("s{i}")),
                ..Default::default()
            })
            .collect();
        let counts = Counts { all: 3, testcases: vec![("fsmark".into(), 1)] };
        let html =
            first_page(&list, Some((&d, &Around { commits: 1, ..Default::default() }, "AA")), &counts).into_string();
        assert!(
            html.contains("href=\"p/all/\">All 3 reports</a>") && html.contains("href=\"p/tc/fsmark/\">fsmark (1)</a>"),
            "{html}"
        );
        assert!(!html.contains("<base"), "the first screen is at the root");
        assert_eq!(html.matches("data-testid=\"report-item\"").count(), 3);
        assert!(html.contains("href=\"m/m1@x/\""), "{html}");
        assert!(html.contains("data-testid=\"report-page\""), "the newest report pre-rendered");
        assert_eq!(model::paths::page_doc(&html), Some("AA"), "with its document");
        let page = list_page("All reports", "all", Some(1), 3, &list, None).into_string();
        assert!(
            page.contains("<base href=\"../../\">")
                && page.contains("href=\"p/all/2.html\"")
                && page.contains("href=\"p/all/0.html\""),
            "{page}"
        );
        let top = list_page("All reports", "all", Some(2), 3, &list, None).into_string();
        assert!(top.contains("rel=\"prev\" href=\"p/all/\"") && top.contains("href=\"p/all/1.html\""), "{top}");
        let newest = list_page("fsmark", "tc/fsmark", None, 0, &list, None).into_string();
        assert!(
            newest.contains("<base href=\"../../../\">")
                && !newest.contains("rel=\"prev\"")
                && !newest.contains("rel=\"next\""),
            "{newest}"
        );
    }
}
