//! The reports list and the report page: which summaries the facets keep, a report document's
//! tables as compare rows (base against each later column), its fail:runs rows, the other
//! reports of its job, and the perf-profile rows as a call tree and flat bars.

#[cfg(target_arch = "wasm32")]
pub mod view;

use crate::compare::{Cell, Row};
use crate::html::{link, safe_href, select, Act, Html};
use crate::put;
use crate::state::{FacetKey, SortKey, ViewState};
use model::stats::{change_kind, format_value};
use model::{Direction, ReportDoc, ReportSummary};

/// Positions of the summaries the view state's facets keep (a summary matches a facet when its
/// testcases, machine or parameter value is selected), in list order.
pub fn filter(list: &[ReportSummary], s: &ViewState) -> Vec<usize> {
    (0..list.len()).filter(|&i| matches(&list[i], s)).collect()
}

fn matches(r: &ReportSummary, s: &ViewState) -> bool {
    s.facets.iter().all(|(k, set)| match k {
        FacetKey::Testcase => r.testcases.iter().any(|t| set.contains(t)),
        FacetKey::Machine => set.contains(&r.machine),
        FacetKey::Param(p) => set.contains(r.params.get(p).map_or("", |v| v.as_str())),
    })
}

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

/// The report an arrow key moves to in the list: the one after (or before) `open` among the
/// shown rows `shown` (positions in `list`), clamped to the ends.
pub fn step_key(list: &[ReportSummary], shown: &[usize], open: Option<&str>, down: bool) -> Option<String> {
    let at = open.and_then(|k| shown.iter().position(|&i| permalink_key(&list[i]) == k));
    crate::search::step(at, shown.len(), down).map(|j| permalink_key(&list[shown[j]]))
}

/// The document paths to try for a `report=` value: a 16-hex value is first read as a report id
/// (the permalink of a report without a Message-ID, and what the trend links to), then as a
/// Message-ID; anything else is a Message-ID. So a link never costs a failed fetch first.
pub fn doc_candidates(key: &str) -> Vec<String> {
    let by_message = model::paths::report_doc(&model::paths::report_id_of_message(key));
    if key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return vec![model::paths::report_doc(key), by_message];
    }
    vec![by_message]
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

/// Every table of a report: per section and job, base against each later column. `weight`
/// gives a metric's direction (1 higher is better, -1 lower, 0 unknown).
pub fn tables(doc: &ReportDoc, weight: &dyn Fn(&str) -> i8) -> Vec<Table> {
    let mut out: Vec<Table> = Vec::new();
    for (si, sec) in doc.sections.iter().enumerate() {
        let mut jobs: Vec<u32> = sec.rows.iter().map(|r| r.job).collect();
        model::order::sort(&mut jobs);
        jobs.dedup();
        for j in jobs {
            let label = doc.jobs.get(j as usize).map(job_label).unwrap_or_default();
            for h in 1..sec.commits.len().max(2) {
                let rows = sec.rows.iter().filter(|r| r.job == j && !r.aggregate);
                let mut t = Table {
                    section: si,
                    job: label.clone(),
                    base: sec.commits.first().cloned().unwrap_or_default(),
                    head: sec.commits.get(h).cloned().unwrap_or_default(),
                    rows: vec![],
                    fails: vec![],
                };
                for r in rows {
                    if r.fail {
                        t.fails.push(fail_row(r, h));
                    } else {
                        let w = if r.weight != 0 { r.weight } else { weight(&r.metric) };
                        t.rows.push(compare_row(r, h, w));
                    }
                }
                if !t.rows.is_empty() || !t.fails.is_empty() {
                    out.push(t);
                }
            }
        }
    }
    out
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

/// A node of the perf-profile call tree: a call chain's last function at its depth.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub depth: usize,
    pub name: String,
    /// Share of cycles (percent) at base and head; `None` where the row gives no value.
    pub base: Option<f64>,
    pub head: Option<f64>,
    /// Among the biggest movers (|head − base|) of the profile.
    pub mover: bool,
}

impl Node {
    pub fn delta(&self) -> Option<f64> {
        Some(self.head? - self.base?)
    }

    pub fn text(v: Option<f64>) -> String {
        v.map_or_else(|| "–".into(), format_value)
    }
}

const CALLTRACE: &str = "perf-profile.calltrace.cycles-pp.";

/// Function names of a call chain: the metric's dotted path, with compiler suffixes
/// (`.isra.0`, `.constprop.0`, `.part.0`, `.cold`) kept on their function.
pub fn chain(path: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tok in path.split('.') {
        let suffix = matches!(tok, "isra" | "constprop" | "part" | "cold" | "lto_priv" | "llvm")
            || (!tok.is_empty() && tok.bytes().all(|b| b.is_ascii_digit()));
        match out.last_mut() {
            Some(last) if suffix => {
                last.push('.');
                last.push_str(tok);
            }
            _ => out.push(tok.to_string()),
        }
    }
    out
}

/// The `perf-profile.calltrace.cycles-pp.*` rows of a table as a call tree in depth-first
/// order, children by largest share first; the `movers` largest |change| nodes are marked.
pub fn call_tree(rows: &[Row], movers: usize) -> Vec<Node> {
    #[derive(Default)]
    struct T {
        kids: std::collections::BTreeMap<String, T>,
        base: Option<f64>,
        head: Option<f64>,
    }
    let mut root = T::default();
    for r in rows {
        let Some(path) = r.metric.strip_prefix(CALLTRACE) else { continue };
        let mut at = &mut root;
        for f in chain(path) {
            at = at.kids.entry(f).or_default();
        }
        at.base = r.base.as_ref().map(|c| c.mean);
        at.head = r.head.as_ref().map(|c| c.mean);
    }
    fn walk(t: &T, depth: usize, out: &mut Vec<Node>) {
        let mut kids: Vec<(&String, &T)> = t.kids.iter().collect();
        let share = |t: &T| t.base.unwrap_or(0.0).max(t.head.unwrap_or(0.0));
        model::order::sort_by(&mut kids, |a, b| share(b.1).total_cmp(&share(a.1)).then(a.0.cmp(b.0)));
        for (name, k) in kids {
            out.push(Node { depth, name: name.clone(), base: k.base, head: k.head, mover: false });
            walk(k, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    walk(&root, 0, &mut out);
    mark_movers(&mut out, movers);
    out
}

/// `perf-profile.children.*` or `perf-profile.self.*` rows (`kind`: `children` or `self`) as
/// flat bars, largest share first.
pub fn flat(rows: &[Row], kind: &str, movers: usize) -> Vec<Node> {
    let prefix = format!("perf-profile.{kind}.cycles-pp.");
    let mut out: Vec<Node> = rows
        .iter()
        .filter_map(|r| {
            let name = r.metric.strip_prefix(prefix.as_str())?;
            let (base, head) = (r.base.as_ref().map(|c| c.mean), r.head.as_ref().map(|c| c.mean));
            Some(Node { depth: 0, name: name.to_string(), base, head, mover: false })
        })
        .collect();
    let share = |n: &Node| n.base.unwrap_or(0.0).max(n.head.unwrap_or(0.0));
    model::order::sort_by(&mut out, |a, b| share(b).total_cmp(&share(a)).then(a.name.cmp(&b.name)));
    mark_movers(&mut out, movers);
    out
}

fn mark_movers(nodes: &mut [Node], n: usize) {
    let mut by: Vec<(f64, usize)> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, x)| x.delta().map(|d| (d.abs(), i)))
        .filter(|(d, _)| *d > 0.0)
        .collect();
    model::order::sort_by(&mut by, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i) in by.into_iter().take(n) {
        nodes[i].mover = true;
    }
}

/// Whether a table has perf-profile rows worth the profile view.
pub fn has_profile(rows: &[Row]) -> bool {
    rows.iter().any(|r| r.metric.starts_with("perf-profile."))
}

/// The list rows of `ix` (positions in `list`), the `open` one marked; each row's button
/// carries `data-act="open"` and the report's permalink key.
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
             <button class=\"report-open\" data-act=\"{}\" data-value=\"{}\">\
             <span class=\"when\">{}</span><span class=\"branch\">{}</span><span class=\"commit\">{}</span>\
             <span class=\"subject\">{}</span><span class=\"headline {}\">{}</span><span class=\"job\">{} · {} {}</span>\
             </button></li>",
            cls,
            key,
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

/// The head of a report page: subject, date, headlines, the replies' notes, commits (linked by
/// `commit_url`), jobs, lore and materials links.
pub fn head_html(d: &ReportDoc, commit_url: &dyn Fn(&str) -> Option<String>) -> Html {
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
            put!(out, "<blockquote>{}</blockquote>", n);
        }
        out.lit("</div>");
    }
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
    pub sort: crate::state::SortKey,
    /// Every row, not the first `TABLE_ROWS`.
    pub all: bool,
}

/// Rows per report table before "show all".
pub const TABLE_ROWS: usize = 200;

/// Every table of a report: controls (`name="ns"`, `name="dir"`; sort buttons `data-act="sort"`),
/// rows as Compare prints them, fail:runs rows, the perf-profile view.
pub fn tables_html(tables: &[Table], f: &TableFilter) -> Html {
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
            rows_html(&mut out, &t.rows, f);
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
            profile_html(&mut out, &t.rows);
        }
        out.lit("</section>");
    }
    out
}

fn rows_html(out: &mut Html, rows: &[Row], f: &TableFilter) {
    let mut opts: Vec<(String, String)> = vec![(String::new(), "all".into())];
    opts.extend(crate::compare::namespaces(rows).into_iter().map(|(ns, c)| (ns.clone(), format!("{ns} ({c})"))));
    out.lit("<div class=\"controls\"><label>namespace ");
    select(out, "ns", "report-ns", &opts, f.ns.as_deref().unwrap_or(""));
    out.lit("</label> <label>direction ");
    let dirs: Vec<(String, String)> = std::iter::once((String::new(), "any".to_string()))
        .chain([Direction::Regression, Direction::Improvement].map(|d| (d.as_str().into(), d.as_str().into())))
        .collect();
    select(out, "dir", "report-dir", &dirs, f.dir.map_or("", |d| d.as_str()));
    put!(
        out,
        "</label></div><table class=\"compare\" data-testid=\"report-rows\"><thead><tr>\
        <th><button class=\"sort\" data-act=\"{}\" data-value=\"{}\" data-testid=\"report-sort-name\">metric</button></th><th>base</th>\
        <th><button class=\"sort\" data-act=\"{}\" data-value=\"{}\" data-testid=\"report-sort-change\">%change</button></th><th>head</th></tr></thead><tbody>",
        Act::Sort,
        SortKey::Name.as_str(),
        Act::Sort,
        SortKey::Change.as_str()
    );
    let ix = crate::compare::view(rows, f.ns.as_deref(), f.dir, f.sort);
    let limit = if f.all { ix.len() } else { ix.len().min(TABLE_ROWS) };
    for &k in &ix[..limit] {
        let r = &rows[k];
        let cls = match r.direction {
            Direction::Regression => " regression",
            Direction::Improvement => " improvement",
            Direction::Undefined => "",
        };
        let cell = |c: &Option<Cell>| c.as_ref().map(|c| c.text()).unwrap_or_default();
        put!(
            out,
            "<tr data-testid=\"report-row\" data-metric=\"{}\"><td class=\"metric\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num change{}\">{}</td><td class=\"num\">{}</td></tr>",
            r.metric,
            r.metric,
            cell(&r.base),
            cls,
            r.change_text(),
            cell(&r.head)
        );
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

/// The perf-profile view of a table's rows: the call tree, then children and self as bars.
pub fn profile_html(out: &mut Html, rows: &[Row]) {
    let parts = [
        ("Call tree", "profile-tree", call_tree(rows, 5)),
        ("Children", "profile-children", flat(rows, "children", 5)),
        ("Self", "profile-self", flat(rows, "self", 5)),
    ];
    let max = parts.iter().flat_map(|p| &p.2).flat_map(|n| [n.base, n.head]).flatten().fold(1.0f64, f64::max);
    out.lit("<details class=\"perf-profile\" data-testid=\"perf-profile\" open><summary>perf-profile: where the cycles went \
        (base <span class=\"key pbase\"></span> head <span class=\"key phead\"></span>, % of cycles; the biggest movers marked)</summary>");
    for (title, testid, nodes) in &parts {
        if nodes.is_empty() {
            continue;
        }
        put!(out, "<h4>{}</h4><ol class=\"profile\" data-testid=\"{}\">", title, testid);
        for n in nodes.iter().take(80) {
            let w = |v: Option<f64>| format!("{:.1}", 100.0 * v.unwrap_or(0.0) / max);
            put!(
                out,
                "<li class=\"node{}\" data-testid=\"profile-node\" data-depth=\"{}\" style=\"padding-left:{}em\">\
                 <span class=\"fn\" title=\"{}\">{}</span><span class=\"bars\"><span class=\"pbar pbase\" style=\"width:{}%\"></span>\
                 <span class=\"pbar phead\" style=\"width:{}%\"></span></span><span class=\"num\">{} → {}</span><span class=\"num delta\">{}</span></li>",
                if n.mover { " mover" } else { "" },
                n.depth,
                n.depth,
                n.name,
                n.name,
                w(n.base),
                w(n.head),
                Node::text(n.base),
                Node::text(n.head),
                n.delta().map(|d| format!("{d:+.2}")).unwrap_or_default(),
            );
        }
        out.lit("</ol>");
    }
    out.lit("</details>");
}

/// The job's other reports (`others`, positions in `list`), each `data-act="open"`, and the
/// button to its trend (`data-act="trend"`) when they measured ≥ 3 commits.
pub fn history_html(
    list: &[ReportSummary],
    others: &[usize],
    commits: usize,
    metric: Option<&str>,
    complete: bool,
) -> Html {
    let mut out = Html::new();
    put!(out, "<h3>This job in other reports ({})</h3>", others.len());
    if others.is_empty() {
        let why = if complete { "No other report measured this job." } else { "loading the reports list…" };
        put!(out, "<p class=\"hint\">{}</p>", why);
    }
    out.lit("<ul>");
    for &i in others {
        let r = &list[i];
        put!(
            out,
            "<li><a href=\"#\" data-act=\"{}\" data-value=\"{}\" data-testid=\"job-report\">{}</a> <span class=\"when\">{}</span> <span class=\"headline {}\">{}</span></li>",
            Act::Open,
            permalink_key(r),
            r.subject.as_deref().unwrap_or(&r.id),
            r.date.as_deref().map(short_date).unwrap_or_default(),
            word_class(&r.word),
            headline_text(r)
        );
    }
    out.lit("</ul>");
    if let Some(m) = metric.filter(|_| commits >= 3) {
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

/// From a catalog: the reports (other than `except`) with a table of job `job`, newest first,
/// and the number of distinct commits every report of the job measured.
pub fn job_reports(idx: &model::Index, job: usize, except: &str) -> (Vec<ReportSummary>, usize) {
    let mut commits = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for r in &idx.reports {
        let secs: Vec<&model::SectionMeta> = r.sections.iter().filter(|s| s.job == Some(job as u32)).collect();
        if secs.is_empty() {
            continue;
        }
        commits.extend(secs.iter().flat_map(|s| s.commits.iter().copied()));
        if r.id != except {
            out.push(ReportSummary {
                id: r.id.clone(),
                subject: r.subject.clone(),
                date: r.date.clone(),
                time: r.time,
                message_id: r.message_id.clone(),
                ..Default::default()
            });
        }
    }
    model::order::sort_by(&mut out, |a, b| b.time.cmp(&a.time).then(a.id.cmp(&b.id)));
    (out, commits.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{DocJob, DocRow, DocSection};

    fn row(metric: &str, base: f64, head: f64) -> Row {
        let c = |m| Some(Cell { mean: m, stddev_pct: None, runs: None, report: 0 });
        Row {
            metric: metric.into(),
            base: c(base),
            head: c(head),
            change: Some(head - base),
            kind: model::ChangeKind::Absolute,
            direction: Direction::Undefined,
            stated: true,
        }
    }

    #[test]
    fn chains_keep_compiler_suffixes() {
        for (path, want) in [
            ("a.b.c", vec!["a", "b", "c"]),
            (
                "entry_SYSCALL_64.do_syscall_64.ksys_write.isra.0",
                vec!["entry_SYSCALL_64", "do_syscall_64", "ksys_write.isra.0"],
            ),
            ("x.f.constprop.0.cold", vec!["x", "f.constprop.0.cold"]),
            ("one", vec!["one"]),
        ] {
            assert_eq!(chain(path), want, "{path}");
        }
    }

    #[test]
    fn call_tree_nests_chains_and_marks_movers() {
        let p = |s: &str| format!("{CALLTRACE}{s}");
        let rows = vec![
            row(&p("entry"), 90.0, 80.0),
            row(&p("entry.do_syscall"), 88.0, 79.0),
            row(&p("entry.do_syscall.write"), 40.0, 60.0),
            row(&p("entry.do_syscall.read"), 45.0, 15.0),
            row(&p("idle"), 5.0, 6.0),
            row("perf-profile.self.cycles-pp.memcpy", 3.0, 9.0),
            row("fio.write_iops", 100.0, 90.0),
        ];
        let names: Vec<(usize, String, bool)> =
            call_tree(&rows, 2).into_iter().map(|n| (n.depth, n.name, n.mover)).collect();
        assert_eq!(
            names,
            [(0, "entry", false), (1, "do_syscall", false), (2, "write", true), (2, "read", true), (0, "idle", false)]
                .map(|(d, n, m)| (d, n.to_string(), m))
        );
        let bars = flat(&rows, "self", 1);
        assert_eq!((bars.len(), bars[0].name.as_str(), bars[0].mover, bars[0].delta()), (1, "memcpy", true, Some(6.0)));
        assert!(has_profile(&rows) && !has_profile(&rows[6..]));
    }

    fn doc() -> ReportDoc {
        let r = |metric: &str, values: Vec<Option<f64>>, changes: Vec<Option<f64>>| DocRow {
            metric: metric.into(),
            values,
            changes,
            ..Default::default()
        };
        let mut fail = r("dmesg.WARNING", vec![None, None, None], vec![Some(100.0), None]);
        fail.fail = true;
        fail.fails = vec![Some(0), Some(6), None];
        fail.runs = vec![Some(6), Some(6), Some(6)];
        let mut p = model::Params::new();
        p.insert("fs".into(), "xfs".into());
        p.insert("rootfs".into(), "debian".into());
        ReportDoc {
            jobs: vec![DocJob { testcase: "fio-basic".into(), machine: "m1".into(), params: p }],
            sections: vec![DocSection {
                commits: vec!["aaa".into(), "bbb".into(), "ccc".into()],
                machine: None,
                rows: vec![
                    r("fio.write_iops", vec![Some(100.0), Some(90.0), Some(95.0)], vec![Some(-10.0), Some(-5.0)]),
                    fail,
                ],
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_headline_takes_its_sign_from_the_table() {
        // Subject: "fio.write_iops 6.5% regression" (unsigned); the table row says -10 %.
        let mut d = doc();
        let h = model::DocHeadline {
            testcase: "fio-basic".into(),
            metric: "fio.write_iops".into(),
            change: Some(6.5),
            word: "regression".into(),
        };
        assert_eq!(d.headline_change(&h), Some(-10.0));
        d.headlines = vec![h.clone()];
        assert!(head_html(&d, &|_| None).as_str().contains("fio.write_iops -10.0%"));
        let other = model::DocHeadline { metric: "fio.read_iops".into(), ..h };
        assert_eq!(d.headline_change(&other), Some(6.5), "no row: the subject's figure");
    }

    /// job, base, head, first row's change and direction, first fail row's cells
    type TableSummary = (String, String, String, Option<f64>, Direction, Vec<String>);

    #[test]
    fn tables_are_base_against_each_later_column() {
        let t = tables(&doc(), &|m| if m == "fio.write_iops" { 1 } else { 0 });
        let got: Vec<TableSummary> = t
            .iter()
            .map(|t| {
                let r = &t.rows[0];
                (t.job.clone(), t.base.clone(), t.head.clone(), r.change, r.direction, t.fails[0].cells.clone())
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "fio-basic · m1 · fs=xfs".into(),
                    "aaa".into(),
                    "bbb".into(),
                    Some(-10.0),
                    Direction::Regression,
                    vec!["0:6".into(), "6:6".into()]
                ),
                (
                    "fio-basic · m1 · fs=xfs".into(),
                    "aaa".into(),
                    "ccc".into(),
                    Some(-5.0),
                    Direction::Regression,
                    vec!["0:6".into(), ":6".into()]
                ),
            ]
        );
        assert_eq!(t[0].fails[0].change, "+100%");
        assert_eq!(t[0].rows[0].head.as_ref().map(|c| c.text()), Some("90.00".into()));
    }

    #[test]
    fn a_documents_own_directions_and_links_serve_without_a_catalog() {
        // the first screen loads no catalog: the document's row weights colour the table...
        let mut d = doc();
        d.sections[0].rows[0].weight = 1;
        let t = tables(&d, &|_| 0);
        assert_eq!(t[0].rows[0].direction, Direction::Regression, "fio.write_iops fell: a regression");
        // ...and a catalog's direction does not override a stated one
        let t = tables(&d, &|_| -1);
        assert_eq!(t[0].rows[0].direction, Direction::Regression);
        // the document's commit link, when the catalog knows none
        d.commits = vec![model::DocCommit {
            id: "aaa1234".into(),
            url: Some("https://git.example/c/aaa1234".into()),
            ..Default::default()
        }];
        let html = head_html(&d, &|_| None).into_string();
        assert!(html.contains("href=\"https://git.example/c/aaa1234\""), "{html}");
        let html = head_html(&d, &|_| Some("https://cat.example/aaa1234".into())).into_string();
        assert!(html.contains("href=\"https://cat.example/aaa1234\"") && !html.contains("git.example"), "{html}");
    }

    fn summary(id: &str, tc: &str, machine: &str, fs: &str, commit: &str) -> ReportSummary {
        let mut params = model::Params::new();
        params.insert("fs".into(), fs.into());
        ReportSummary {
            id: id.into(),
            testcases: vec![tc.into()],
            machine: machine.into(),
            params,
            commit: Some(commit.into()),
            base: Some("base0000000".into()),
            ..Default::default()
        }
    }

    #[test]
    fn list_filter_and_job_history() {
        let list = vec![
            summary("a", "fio-basic", "m1", "xfs", "c1"),
            summary("b", "fio-basic", "m1", "btrfs", "c2"),
            summary("c", "fsmark", "m2", "xfs", "c3"),
            summary("d", "fio-basic", "m1", "xfs", "c4"),
        ];
        let state = |q: &str| ViewState::parse(q).0;
        for (q, want) in [
            ("", vec![0, 1, 2, 3]),
            ("testcase=fio-basic", vec![0, 1, 3]),
            ("p.fs=xfs", vec![0, 2, 3]),
            ("testcase=fio-basic&p.fs=xfs", vec![0, 3]),
            ("machine=m2", vec![2]),
            ("p.disk=1SSD", vec![]),
            ("p.disk=", vec![0, 1, 2, 3]),
        ] {
            assert_eq!(filter(&list, &state(q)), want, "{q}");
        }
        assert_eq!(same_job(&list, &list[0]), vec![3]);
        assert_eq!(commits_measured(&list, &[3], &list[0]), 3);
        assert_eq!(key_params(&list[0]), "fs=xfs");
        let h = history_html(&list, &[3], 3, Some("fio.x"), true).into_string();
        assert!(
            h.contains("(1)") && h.contains("data-act=\"trend\"") && h.contains("Trend of fio.x over 3 commits"),
            "{h}"
        );
        let h = history_html(&list, &[], 2, Some("fio.x"), true).into_string();
        assert!(h.contains("No other report") && !h.contains("trend"), "{h}");
    }

    #[test]
    fn job_reports_from_a_catalog() {
        let idx = crate::catalog::tests::sample_index();
        let j = idx.reports[0].sections[0].job.unwrap() as usize;
        let (others, commits) = job_reports(&idx, j, &idx.reports[0].id);
        assert!(others.iter().all(|r| r.id != idx.reports[0].id));
        let all: std::collections::BTreeSet<u32> = idx
            .reports
            .iter()
            .flat_map(|r| &r.sections)
            .filter(|s| s.job == Some(j as u32))
            .flat_map(|s| s.commits.iter().copied())
            .collect();
        assert_eq!(commits, all.len());
        let s = ReportSummary::of(&doc());
        assert_eq!(
            (s.testcases, s.machine.as_str(), s.commit.as_deref(), s.base.as_deref()),
            (vec!["fio-basic".to_string()], "m1", Some("bbb"), Some("aaa"))
        );
    }

    #[test]
    fn arrow_keys_step_through_the_shown_reports() {
        let list: Vec<ReportSummary> = ["a", "b", "c"]
            .iter()
            .map(|id| ReportSummary { id: id.to_string(), message_id: Some(format!("{id}@x")), ..Default::default() })
            .collect();
        let shown = [2, 0, 1];
        assert_eq!(step_key(&list, &shown, Some("c@x"), true).as_deref(), Some("a@x"));
        assert_eq!(step_key(&list, &shown, Some("a@x"), false).as_deref(), Some("c@x"));
        assert_eq!(step_key(&list, &shown, Some("b@x"), true).as_deref(), Some("b@x"), "clamped at the end");
        assert_eq!(step_key(&list, &shown, None, true).as_deref(), Some("c@x"), "from nothing: the first");
        assert_eq!(step_key(&list, &[], Some("a@x"), true), None);
    }

    #[test]
    fn permalinks_and_documents() {
        let r = ReportSummary { id: "0123456789abcdef".into(), message_id: Some("a@b".into()), ..Default::default() };
        assert_eq!(permalink_key(&r), "a@b");
        assert_eq!(doc_candidates("<a@b>"), vec![model::paths::report_doc(&model::paths::hash_hex(b"a@b"))]);
        let by_id = doc_candidates("0123456789abcdef");
        assert_eq!(
            by_id,
            vec![
                model::paths::report_doc("0123456789abcdef"),
                model::paths::report_doc(&model::paths::hash_hex(b"0123456789abcdef"))
            ]
        );
        assert_eq!(word_class("regression"), "regression");
        let h = ReportSummary {
            metric: Some("fio.write_iops".into()),
            change: Some(-6.5),
            word: "regression".into(),
            ..Default::default()
        };
        assert_eq!(headline_text(&h), "fio.write_iops -6.5% regression");
        assert_eq!(short_date("Thu, 12 Feb 2026 23:24:19 +0800"), "12 Feb 2026");
    }

    #[test]
    fn html_is_escaped_and_carries_its_actions() {
        let mut r = summary("a", "fio<x>", "m1", "xfs", "c1");
        r.message_id = Some("q\"@x".into());
        r.subject = Some("<b>boom</b>".into());
        let html = list_html(&[r], &[0], Some("q\"@x")).into_string();
        assert!(html.contains("class=\"report-item open\""), "{html}");
        assert!(html.contains("data-act=\"open\" data-value=\"q&quot;@x\""), "{html}");
        assert!(html.contains("&lt;b&gt;boom&lt;/b&gt;") && !html.contains("<b>"), "{html}");
        let t = tables(&doc(), &|_| 1);
        let html = tables_html(&t, &TableFilter::default()).into_string();
        assert_eq!(html.matches("data-testid=\"report-table\"").count(), 2);
        assert!(html.contains("data-metric=\"fio.write_iops\"") && html.contains("report-fails"), "{html}");
        let only =
            tables_html(&t, &TableFilter { ns: Some("perf-profile".into()), ..Default::default() }).into_string();
        assert!(!only.contains("data-testid=\"report-row\""), "{only}");
        let mut d = doc();
        d.notes = vec!["This is not a <regression>".into()];
        d.url = Some("javascript:alert(1)".into());
        let head = head_html(&d, &|_| None).into_string();
        assert!(head.contains("This is not a &lt;regression&gt;") && !head.contains("javascript:"), "{head}");
    }
}
