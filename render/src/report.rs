//! A report document as the page shows it: its tables as compare rows (base against each later
//! column), its fail:runs rows, the list line of a report, and their HTML — the same functions
//! write the static pages (`lkpx import`) and the live page (the app, in wasm).

use crate::html::{link, safe_href, select, Act, Html};
use crate::profile::{has_profile, profile_html};
use crate::put;
use crate::rows::{Cell, Row, SortKey};
use model::stats::change_kind;
use model::{Direction, ReportDoc, ReportSummary};

/// Parameters worth a column in the list: those of the job minus the ones nearly every job
/// shares, as `k=v`.
pub fn key_params(r: &ReportSummary) -> String {
    const COMMON: [&str; 6] = ["compiler", "cpufreq_governor", "kconfig", "rootfs", "ucode", "iterations"];
    let kept: Vec<String> =
        r.params.iter().filter(|(k, _)| !COMMON.contains(&k.as_str())).map(|(k, v)| format!("{k}={v}")).collect();
    kept.join(" ")
}

/// The colour class of a headline: `regression`, `improvement` or `neutral`.
pub fn word_class(word: &str) -> &'static str {
    match word {
        "regression" => "regression",
        "improvement" => "improvement",
        _ => "neutral",
    }
}

/// `-6.5% regression`, from a summary's headline.
pub fn headline_text(r: &ReportSummary) -> String {
    let mut s = r.metric.clone().unwrap_or_default();
    if let Some(c) = r.change {
        s.push_str(&format!(" {c:+.1}%"));
    }
    if !r.word.is_empty() {
        s.push(' ');
        s.push_str(&r.word);
    }
    s
}

/// The permalink value of a report: its Message-ID, else its id.
pub fn permalink_key(r: &ReportSummary) -> String {
    r.message_id.clone().unwrap_or_else(|| r.id.clone())
}

/// One compare table of a report: a job, a base and a head column.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub section: usize,
    /// `testcase · machine · key params` of the job.
    pub job: String,
    pub base: String,
    pub head: String,
    pub rows: Vec<Row>,
    pub fails: Vec<FailRow>,
}

/// A `fail:runs` row: per column `fails:runs`, and the reproduction change.
#[derive(Debug, Clone, PartialEq)]
pub struct FailRow {
    pub metric: String,
    pub cells: Vec<String>,
    pub change: String,
}

/// Where one table of a report takes its rows: its section, job and head column, and its rows
/// (positions in the section's): the compare rows, then the fail:runs rows. Only the rows' job
/// and flags say it, so a document its page carries without the rows' numbers
/// (`crate::carry`) has the same tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub section: usize,
    pub job: u32,
    /// The head column (1: the first after the base).
    pub head: usize,
    pub rows: Vec<usize>,
    pub fails: Vec<usize>,
}

/// The tables of `doc` in the page's order: per section and job, base against each later column
/// (a table with no row left out).
pub fn slots(doc: &ReportDoc) -> Vec<Slot> {
    let mut out = Vec::new();
    for (si, sec) in doc.sections.iter().enumerate() {
        let mut jobs: Vec<u32> = sec.rows.iter().map(|r| r.job).collect();
        model::order::sort(&mut jobs);
        jobs.dedup();
        for j in jobs {
            let of_job = |fail: bool| -> Vec<usize> {
                let at = sec.rows.iter().enumerate().filter(|(_, r)| r.job == j && !r.aggregate && r.fail == fail);
                at.map(|(k, _)| k).collect()
            };
            let (rows, fails) = (of_job(false), of_job(true));
            if rows.is_empty() && fails.is_empty() {
                continue;
            }
            for h in 1..sec.commits.len().max(2) {
                out.push(Slot { section: si, job: j, head: h, rows: rows.clone(), fails: fails.clone() });
            }
        }
    }
    out
}

/// Every table of a report: per section and job, base against each later column. `weight`
/// gives a metric's direction (1 higher is better, -1 lower, 0 unknown).
pub fn tables(doc: &ReportDoc, weight: &dyn Fn(&str) -> i8) -> Vec<Table> {
    let table = |s: Slot| {
        let sec = &doc.sections[s.section];
        let row = |k: &usize| {
            let r = &sec.rows[*k];
            compare_row(r, s.head, if r.weight != 0 { r.weight } else { weight(&r.metric) })
        };
        Table {
            section: s.section,
            job: doc.jobs.get(s.job as usize).map(job_label).unwrap_or_default(),
            base: sec.commits.first().cloned().unwrap_or_default(),
            head: sec.commits.get(s.head).cloned().unwrap_or_default(),
            rows: s.rows.iter().map(row).collect(),
            fails: s.fails.iter().map(|k| fail_row(&sec.rows[*k], s.head)).collect(),
        }
    };
    slots(doc).into_iter().map(table).collect()
}

fn job_label(j: &model::DocJob) -> String {
    let s = ReportSummary { params: j.params.clone(), ..Default::default() };
    [j.testcase.as_str(), j.machine.as_str(), &key_params(&s)]
        .iter()
        .filter(|x| !x.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" · ")
}

fn cell(r: &model::DocRow, col: usize) -> Option<Cell> {
    let mean = r.values.get(col).copied().flatten()?;
    Some(Cell {
        mean,
        stddev_pct: r.stddev_pct.get(col).copied().flatten(),
        runs: r.runs.get(col).copied().flatten(),
        report: 0,
    })
}

fn compare_row(r: &model::DocRow, h: usize, weight: i8) -> Row {
    let change = r.changes.get(h - 1).copied().flatten();
    Row {
        metric: r.metric.clone(),
        base: cell(r, 0),
        head: cell(r, h),
        change,
        kind: r.change_kind.get(h - 1).copied().unwrap_or_else(|| change_kind(&r.metric)),
        direction: change.map_or(Direction::Undefined, |c| Direction::of(weight, c)),
        stated: true,
    }
}

fn fail_row(r: &model::DocRow, h: usize) -> FailRow {
    let cell = |c: usize| match (r.fails.get(c).copied().flatten(), r.runs.get(c).copied().flatten()) {
        (Some(f), Some(n)) => format!("{f}:{n}"),
        (None, Some(n)) => format!(":{n}"),
        _ => String::new(),
    };
    FailRow {
        metric: r.metric.clone(),
        cells: vec![cell(0), cell(h)],
        change: r.changes.get(h - 1).copied().flatten().map_or_else(String::new, |c| format!("{c:+.0}%")),
    }
}

/// Other reports of the same job as `r` (first testcase, machine and parameters), in list order.
pub fn same_job(list: &[ReportSummary], r: &ReportSummary) -> Vec<usize> {
    let key = |x: &ReportSummary| (x.testcases.first().cloned(), x.machine.clone(), x.params.clone());
    let k = key(r);
    (0..list.len()).filter(|&i| list[i].id != r.id && !list[i].machine.is_empty() && key(&list[i]) == k).collect()
}

/// Distinct commits (head and base) measured by the reports `at` of `list` and `r` itself.
pub fn commits_measured(list: &[ReportSummary], at: &[usize], r: &ReportSummary) -> usize {
    let mut c: Vec<&str> = Vec::new();
    for x in at.iter().map(|&i| &list[i]).chain(std::iter::once(r)) {
        for id in x.commit.iter().chain(&x.base) {
            let short = &id[..id.len().min(10)];
            if !c.contains(&short) {
                c.push(short);
            }
        }
    }
    c.len()
}

/// The list rows of `ix` (positions in `list`), the `open` one marked; each row links the
/// report's page and carries `data-act="open"` and its permalink key (the app opens it in place).
pub fn list_html(list: &[ReportSummary], ix: &[usize], open: Option<&str>) -> Html {
    let mut out = Html::new();
    for &i in ix {
        let r = &list[i];
        let key = permalink_key(r);
        let cls = if open == Some(key.as_str()) { " open" } else { "" };
        let commit = r.commit.as_deref().map(model::short_id).unwrap_or("");
        put!(
            out,
            "<li class=\"report-item{}\" data-testid=\"report-item\" data-report=\"{}\">\
             <a class=\"report-open\" href=\"{}\" data-act=\"{}\" data-value=\"{}\">\
             <span class=\"when\">{}</span><span class=\"branch\">{}</span><span class=\"commit\">{}</span>\
             <span class=\"subject\">{}</span><span class=\"headline {}\">{}</span><span class=\"job\">{} · {} {}</span>\
             </a></li>",
            cls,
            key,
            model::paths::report_url(&key),
            Act::Open,
            key,
            r.date.as_deref().map(short_date).unwrap_or_default(),
            r.branch.as_deref().unwrap_or(""),
            commit,
            r.subject.as_deref().unwrap_or(&r.id),
            word_class(&r.word),
            headline_text(r),
            r.testcases.join(", "),
            r.machine,
            key_params(r),
        );
    }
    out
}

/// `Thu, 12 Feb 2026 23:24:19 +0800` → `12 Feb 2026`.
pub fn short_date(d: &str) -> String {
    let d = d.split_once(", ").map_or(d, |x| x.1);
    d.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

/// The head of a report page: `head_top`, then `head_facts`. A report's page shows its metric's
/// record between the two, so that the signs of noise stand beside the headlines.
pub fn head_html(d: &ReportDoc, commit_url: &dyn Fn(&str) -> Option<String>) -> Html {
    let mut out = head_top(d);
    out.html(&head_facts(d, commit_url));
    out
}

/// A report's subject, date, headlines and the replies' notes.
pub fn head_top(d: &ReportDoc) -> Html {
    let mut out = Html::new();
    put!(
        out,
        "<h2 data-testid=\"report-subject\">{}</h2><p class=\"meta\">{} · {}</p><ul class=\"headlines\">",
        d.subject.as_deref().unwrap_or(&d.source),
        d.date.as_deref().unwrap_or(""),
        d.from.as_deref().unwrap_or("")
    );
    for h in &d.headlines {
        let change = d.headline_change(h).map(|c| format!(" {c:+.1}%")).unwrap_or_default();
        put!(
            out,
            "<li class=\"{}\" data-testid=\"report-headline\">{}{} {}</li>",
            word_class(&h.word),
            h.metric,
            change,
            h.word
        );
    }
    out.lit("</ul>");
    if !d.notes.is_empty() {
        out.lit("<div class=\"notes\" data-testid=\"report-notes\"><h3>Replies</h3>");
        for n in &d.notes {
            out.lit("<blockquote>");
            crate::html::linked_text(&mut out, n);
            out.lit("</blockquote>");
        }
        out.lit("</div>");
    }
    out
}

/// A report's commits (linked by `commit_url`), jobs, lore and materials links.
pub fn head_facts(d: &ReportDoc, commit_url: &dyn Fn(&str) -> Option<String>) -> Html {
    let mut out = Html::new();
    out.lit("<table class=\"facts\">");
    for (i, c) in d.commits.iter().enumerate() {
        let role = if i == 0 { "commit" } else { "base" };
        let (mut short, mut code) = (Html::new(), Html::new());
        put!(short, "<code>{}</code>", model::short_id(&c.id));
        link(&mut code, commit_url(&c.id).or_else(|| c.url.clone()).as_deref(), &c.id, &short);
        let tree = [c.tree.as_deref(), c.branch.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
        put!(
            out,
            "<tr data-testid=\"report-{}\"><th>{}</th><td>{} {}</td><td class=\"tree\">{}</td></tr>",
            role,
            role,
            code,
            c.subject.as_deref().unwrap_or(""),
            tree
        );
    }
    out.lit("</table><table class=\"facts jobs\">");
    for j in &d.jobs {
        let params = j.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
        put!(out, "<tr><th>{}</th><td>{}</td><td><code>{}</code></td></tr>", j.testcase, j.machine, params);
    }
    out.lit("</table><p class=\"links\">");
    if let Some(u) = d.url.as_deref().and_then(safe_href) {
        put!(
            out,
            "<a data-testid=\"lore-link\" href=\"{}\" target=\"_blank\" rel=\"noopener\">the mail on lore</a> ",
            u
        );
    }
    if let Some(u) = d.materials_url.as_deref().and_then(safe_href) {
        put!(out, "<a href=\"{}\" target=\"_blank\" rel=\"noopener\">materials</a>", u);
    }
    out.lit("</p>");
    out
}

/// The compare filters of every report table (Compare's `ns`, `dir`, `sort`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableFilter {
    pub ns: Option<String>,
    pub dir: Option<Direction>,
    pub sort: SortKey,
    /// Every row, not the first `TABLE_ROWS`.
    pub all: bool,
}

impl TableFilter {
    /// Every row in the default order: the text form, as the static page shows it.
    pub fn is_plain(&self) -> bool {
        self.ns.is_none() && self.dir.is_none() && self.sort == SortKey::default()
    }
}

/// Which page a report's tables are drawn for: the app's (controls; the perf-profile's call tree,
/// children and self), or the static page's, which reads without JavaScript and keeps to what it
/// can use: no controls (they need the app), the call tree only (children and self are rows of
/// the table above it). The app draws its own form when it takes the page over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    App,
    Page,
}

/// Rows per report table before "show all".
pub const TABLE_ROWS: usize = 200;

/// Every table of a report: controls (`name="ns"`, `name="dir"`; sort buttons `data-act="sort"`),
/// rows as Compare prints them, fail:runs rows, the perf-profile view.
pub fn tables_html(tables: &[Table], f: &TableFilter, form: Form) -> Html {
    let mut out = Html::new();
    let n = tables.len();
    for (i, t) in tables.iter().enumerate() {
        let title = if n > 1 { format!("Table {} of {n}: {}", i + 1, t.job) } else { t.job.clone() };
        put!(
            out,
            "<section class=\"report-table\" data-testid=\"report-table\"><h3>{}</h3><p class=\"pair\"><code>{}</code> → <code>{}</code> \
             <button class=\"export\" data-act=\"{}\" data-value=\"{}\" data-testid=\"table-csv\" title=\"the whole table, as CSV\">CSV</button></p>",
            title,
            model::short_id(&t.base),
            model::short_id(&t.head),
            Act::Csv,
            i
        );
        if !t.rows.is_empty() {
            if form == Form::App {
                controls_html(&mut out, &t.rows, f);
            }
            if f.is_plain() {
                rows_text(&mut out, &t.rows, f);
            } else {
                rows_html(&mut out, &t.rows, f);
            }
        }
        if !t.fails.is_empty() {
            out.lit("<table class=\"compare fails\" data-testid=\"report-fails\"><thead><tr><th>fail:runs</th><th>base</th><th>%reproduction</th><th>head</th></tr></thead><tbody>");
            for r in &t.fails {
                put!(
                    out,
                    "<tr><td class=\"metric\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                    r.metric,
                    r.cells[0],
                    r.change,
                    r.cells[1]
                );
            }
            out.lit("</tbody></table>");
        }
        if has_profile(&t.rows) {
            profile_html(&mut out, &t.rows, form == Form::App);
        }
        out.lit("</section>");
    }
    out
}

/// A table's controls: namespace and direction (`name="ns"`, `name="dir"`) and the orders
/// (`data-act="sort"`). The app's only (`Form::App`): without it they would do nothing.
fn controls_html(out: &mut Html, rows: &[Row], f: &TableFilter) {
    let mut opts: Vec<(String, String)> = vec![(String::new(), "all".into())];
    opts.extend(crate::rows::namespaces(rows).into_iter().map(|(ns, c)| (ns.clone(), format!("{ns} ({c})"))));
    out.lit("<div class=\"controls\"><label>namespace ");
    select(out, "ns", "report-ns", &opts, f.ns.as_deref().unwrap_or(""));
    out.lit("</label> <label>direction ");
    let dirs: Vec<(String, String)> = std::iter::once((String::new(), "any".to_string()))
        .chain([Direction::Regression, Direction::Improvement].map(|d| (d.as_str().into(), d.as_str().into())))
        .collect();
    select(out, "dir", "report-dir", &dirs, f.dir.map_or("", |d| d.as_str()));
    put!(
        out,
        "</label> <span class=\"orders\">order: <button class=\"sort\" data-act=\"{}\" data-value=\"{}\" data-testid=\"report-sort-name\">metric</button> \
         <button class=\"sort\" data-act=\"{}\" data-value=\"{}\" data-testid=\"report-sort-change\">|%change|</button></span></div>",
        Act::Sort,
        SortKey::Name.as_str(),
        Act::Sort,
        SortKey::Change.as_str()
    );
}

/// The rows as the mail prints them, `base  %change  head  metric` aligned in a `<pre>`, largest
/// |change| first: what a row costs in the mail, and laid out as fast as the mail's own text. The
/// change is coloured by its direction (`<b class=r>` regression, `<b class=i>` improvement).
fn rows_text(out: &mut Html, rows: &[Row], f: &TableFilter) {
    let text = RowsText::of(rows, f.sort);
    put!(out, "<pre class=\"rows\" data-testid=\"report-rows\" tabindex=\"0\">{}\n", text.header);
    for (&k, (lead, change, tail)) in text.order.iter().zip(&text.lines) {
        match rows[k].direction {
            Direction::Regression => put!(out, "{}<b class=r>{}</b>{}\n", lead, change, tail),
            Direction::Improvement => put!(out, "{}<b class=i>{}</b>{}\n", lead, change, tail),
            Direction::Undefined => put!(out, "{}{}{}\n", lead, change, tail),
        };
    }
    out.lit("</pre>");
}

/// A table's rows as its page's text shows them: the header line, and each row's line in three
/// parts (the base column and the change's padding; the change; the head column and the metric),
/// in the order `order` (positions in the rows).
pub struct RowsText {
    pub header: String,
    pub order: Vec<usize>,
    pub lines: Vec<(String, String, String)>,
}

impl RowsText {
    pub fn of(rows: &[Row], sort: SortKey) -> RowsText {
        let order = crate::rows::view(rows, None, None, sort);
        let cell = |c: &Option<Cell>| c.as_ref().map(|c| c.text()).unwrap_or_default();
        let cells: Vec<(String, String, String)> =
            order.iter().map(|&k| (cell(&rows[k].base), rows[k].change_text(), cell(&rows[k].head))).collect();
        let width = |pick: &dyn Fn(&(String, String, String)) -> &String, head: &str| {
            cells.iter().map(|c| pick(c).chars().count()).chain([head.len()]).max().unwrap_or(0)
        };
        let (wb, wc, wh) = (width(&|c| &c.0, "base"), width(&|c| &c.1, "%change"), width(&|c| &c.2, "head"));
        let pad = |s: &str, w: usize| format!("{}{s}", " ".repeat(w.saturating_sub(s.chars().count())));
        let header = format!("{}  {}  {}  metric", pad("base", wb), pad("%change", wc), pad("head", wh));
        let lines = order
            .iter()
            .zip(cells)
            .map(|(&k, (b, c, h))| {
                let lead = format!("{}  {}", pad(&b, wb), " ".repeat(wc.saturating_sub(c.chars().count())));
                (lead, c, format!("  {}  {}", pad(&h, wh), rows[k].metric))
            })
            .collect();
        RowsText { header, order, lines }
    }
}

/// The rows as a table the app sorts and filters (a namespace, a direction or the order by name
/// chosen; `f.all` or the first `TABLE_ROWS`).
fn rows_html(out: &mut Html, rows: &[Row], f: &TableFilter) {
    out.lit("<table class=\"compare rows\" data-testid=\"report-rows\"><thead><tr><th>metric</th><th>base</th><th>%change</th><th>head</th></tr></thead><tbody>");
    let ix = crate::rows::view(rows, f.ns.as_deref(), f.dir, f.sort);
    let limit = if f.all { ix.len() } else { ix.len().min(TABLE_ROWS) };
    for &k in &ix[..limit] {
        row_html(out, &rows[k]);
    }
    out.lit("</tbody>");
    if limit < ix.len() {
        put!(
            out,
            "<tfoot><tr><td colspan=\"4\"><button data-act=\"{}\">show all {} rows</button></td></tr></tfoot>",
            Act::All,
            ix.len()
        );
    }
    out.lit("</table>");
}

/// The `HISTORY_LISTED` of `others` (positions in `list`) nearest to `time`, in their order (ties
/// and undated reports: the first in that order).
fn nearest(list: &[ReportSummary], others: &[usize], time: Option<i64>) -> Vec<usize> {
    if others.len() <= HISTORY_LISTED {
        return others.to_vec();
    }
    let far = |i: usize| match (list[i].time, time) {
        (Some(a), Some(b)) => a.abs_diff(b),
        _ => u64::MAX,
    };
    let mut by: Vec<usize> = (0..others.len()).collect();
    by.sort_by_key(|&k| (far(others[k]), k));
    by.truncate(HISTORY_LISTED);
    by.sort_unstable();
    by.into_iter().map(|k| others[k]).collect()
}

/// One row of the table form: end tags omitted, the columns styled by position (`table.rows`),
/// the change coloured by the row's class (`r` regression, `i` improvement).
fn row_html(out: &mut Html, r: &Row) {
    let cell = |c: &Option<Cell>| c.as_ref().map(|c| c.text()).unwrap_or_default();
    let (base, change, head) = (cell(&r.base), r.change_text(), cell(&r.head));
    match r.direction {
        Direction::Regression => put!(out, "<tr class=r><td>{}<td>{}<td>{}<td>{}\n", r.metric, base, change, head),
        Direction::Improvement => put!(out, "<tr class=i><td>{}<td>{}<td>{}<td>{}\n", r.metric, base, change, head),
        Direction::Undefined => put!(out, "<tr><td>{}<td>{}<td>{}<td>{}\n", r.metric, base, change, head),
    };
}

/// At most this many of a job's other reports are listed on a report's page: the nearest in time
/// (a job that hundreds of result roots measured would list them all on each of their pages).
pub const HISTORY_LISTED: usize = 20;

/// The job's other reports of report `me` (`others`, positions in `list`): the `HISTORY_LISTED`
/// nearest in time, each `data-act="open"`, the number of the others with a link to every report
/// of the testcase, and the button to its trend (`data-act="trend"`) when they measured ≥ 3 commits.
pub fn history_html(
    list: &[ReportSummary],
    others: &[usize],
    commits: usize,
    me: &ReportSummary,
    complete: bool,
) -> Html {
    let mut out = Html::new();
    put!(out, "<h3>This job in other reports ({})</h3>", others.len());
    if others.is_empty() {
        let why = if complete { "No other report measured this job." } else { "loading the reports list…" };
        put!(out, "<p class=\"hint\">{}</p>", why);
    }
    let listed = nearest(list, others, me.time);
    out.lit("<ul>");
    for &i in &listed {
        let r = &list[i];
        put!(
            out,
            "<li><a href=\"{}\" data-act=\"{}\" data-value=\"{}\" data-testid=\"job-report\">{}</a> <span class=\"when\">{}</span> <span class=\"headline {}\">{}</span></li>",
            model::paths::report_url(&permalink_key(r)),
            Act::Open,
            permalink_key(r),
            r.subject.as_deref().unwrap_or(&r.id),
            r.date.as_deref().map(short_date).unwrap_or_default(),
            word_class(&r.word),
            headline_text(r)
        );
    }
    out.lit("</ul>");
    if let Some(tc) = me.testcases.first().filter(|_| others.len() > listed.len()) {
        put!(
            out,
            "<p class=\"hint\">{} more: <a href=\"{}\">every report of {}</a>.</p>",
            others.len() - listed.len(),
            model::paths::list_url(&model::paths::testcase_list(tc), None),
            tc
        );
    }
    if let Some(m) = me.metric.as_deref().filter(|_| commits >= 3) {
        put!(
            out,
            "<button data-act=\"{}\" data-testid=\"job-trend\">Trend of {} over {} commits</button>",
            Act::Trend,
            m,
            commits
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job of 30 other reports, a day apart: its page lists the 20 nearest in time to the report,
    /// newest first as given, says how many more and links every report of the testcase; a job of
    /// few lists them all.
    #[test]
    fn a_long_job_history_lists_the_nearest_reports_and_counts_the_rest() {
        let day = 86_400;
        let list: Vec<ReportSummary> = (0..30)
            .rev()
            .map(|i| ReportSummary { id: format!("r{i:02}"), time: Some(i * day), ..Default::default() })
            .collect();
        let others: Vec<usize> = (0..list.len()).collect();
        let me = ReportSummary {
            id: "me".into(),
            time: Some(7 * day + 1),
            testcases: vec!["fio-basic".into()],
            metric: Some("fio.x".into()),
            ..Default::default()
        };
        let h = history_html(&list, &others, 30, &me, true).into_string();
        let shown: Vec<&str> = h.match_indices("data-value=\"").map(|(at, _)| &h[at + 12..at + 15]).collect();
        let want: Vec<String> = (0..20).rev().map(|i| format!("r{i:02}")).collect();
        assert_eq!(shown, want, "the 20 nearest to day 7, newest first");
        assert!(h.contains("This job in other reports (30)"), "{h}");
        assert!(h.contains("10 more: <a href=\"p/tc/fio-basic/\">every report of fio-basic</a>"), "{h}");
        let h = history_html(&list, &others[..5], 5, &me, true).into_string();
        assert_eq!(h.matches("data-act=\"open\"").count(), 5);
        assert!(!h.contains("more:"), "{h}");
    }
}
