//! The Changes view as plain functions: every change of the loaded testcases (stated by a report
//! or detected along a series) filtered and ordered by `state::ChangesFilter`, the texts of a
//! row, job labels, and the detected steps the trend chart marks.

#[cfg(target_arch = "wasm32")]
pub mod view;

use crate::catalog::Catalog;
use crate::compare::namespace;
use crate::html::{link, select, Act, Html};
use crate::put;
use crate::state::{ChangesFilter, ChangesSort, Hundredths, SigFilter, SourceFilter, Tab, ViewState};
use crate::views::TrendModel;
use model::changes::Significance;
use model::stats::{format_change, format_value};
use model::{ChangeRecord, ChangeSource, ChangesShard, Direction, Index, Job};
use render::chart::{css, legend, Rgb};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Significance level of the "significant" filter.
pub const ALPHA: f64 = 0.05;

/// A change by position: (shard, record) in the loaded shards.
pub type Pos = (u32, u32);

/// The record at `p`.
pub fn at(shards: &[Arc<ChangesShard>], p: Pos) -> &ChangeRecord {
    &shards[p.0 as usize].changes[p.1 as usize]
}

/// The p-value as a `Significance`; a missing p-value is unknown, never guessed.
pub fn significance(r: &ChangeRecord) -> Significance {
    r.p_value.map_or(Significance::Unknown, Significance::PValue)
}

/// Whether a record passes every filter except the job scope.
pub fn passes(r: &ChangeRecord, f: &ChangesFilter) -> bool {
    f.ns.as_deref().is_none_or(|ns| namespace(&r.metric) == ns)
        && f.dir.is_none_or(|d| r.direction == d)
        && f.source.is_none_or(|s| {
            r.source
                == match s {
                    SourceFilter::Stated => ChangeSource::Stated,
                    SourceFilter::Detected => ChangeSource::Detected,
                }
        })
        && f.sig.is_none_or(|want| match (want, significance(r).is_significant(ALPHA)) {
            (SigFilter::Significant, Some(sig)) => sig,
            (SigFilter::NotSignificant, Some(sig)) => !sig,
            (SigFilter::Unknown, None) => true,
            _ => false,
        })
        && f.min.is_none_or(|m| r.change.abs() >= m.value())
        && f.noise.is_none_or(|m| r.noise_ratio.is_some_and(|n| n >= m.value()))
        && (!f.headline || r.headline)
}

/// What the view lists for one filter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    /// The shown changes, in display order.
    pub rows: Vec<Pos>,
    /// Changes of the jobs in scope, before the other filters.
    pub in_scope: usize,
    /// Namespaces of the changes in scope, sorted, with counts.
    pub namespaces: Vec<(String, usize)>,
    /// Among the shown rows.
    pub regressions: usize,
    pub improvements: usize,
}

/// Filter the changes of the jobs for which `in_scope(job)` holds and order them.
pub fn list(shards: &[Arc<ChangesShard>], in_scope: impl Fn(u32) -> bool, f: &ChangesFilter) -> Listing {
    let mut out = Listing::default();
    let mut ns: BTreeMap<&str, usize> = BTreeMap::new();
    for (a, sh) in shards.iter().enumerate() {
        for (b, r) in sh.changes.iter().enumerate() {
            if !in_scope(r.job) {
                continue;
            }
            out.in_scope += 1;
            *ns.entry(namespace(&r.metric)).or_default() += 1;
            if passes(r, f) {
                out.rows.push((a as u32, b as u32));
                match r.direction {
                    Direction::Regression => out.regressions += 1,
                    Direction::Improvement => out.improvements += 1,
                    Direction::Undefined => {}
                }
            }
        }
    }
    out.namespaces = ns.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    sort(shards, &mut out.rows, f.sort);
    out
}

/// Order rows: the sort key first (for `Change`: headline changes, then |change|), then |change|,
/// metric, head commit and position, so the order is total and stable across reloads. Each row's
/// key is made once, its metric as its name's rank among the rows' names: the sort compares
/// numbers, not names (a big testcase's every change is hundreds of thousands of rows).
pub fn sort(shards: &[Arc<ChangesShard>], rows: &mut [Pos], key: ChangesSort) {
    let mut rank: HashMap<&str, u32> = rows.iter().map(|&p| (at(shards, p).metric.as_str(), 0)).collect();
    let mut names: Vec<&str> = rank.keys().copied().collect();
    model::order::sort(&mut names);
    for (i, n) in names.into_iter().enumerate() {
        rank.insert(n, i as u32);
    }
    // ascending order of a float (`total_cmp`) as bits; `!` of it descending
    let up = |x: f64| {
        let b = x.to_bits();
        if b >> 63 == 1 {
            !b
        } else {
            b | 1 << 63
        }
    };
    let mut keyed: Vec<([u64; 7], Pos)> = rows
        .iter()
        .map(|&p| {
            let r = at(shards, p);
            let (m, by_change, head) = (u64::from(rank[r.metric.as_str()]), !up(r.magnitude()), !u64::from(r.head));
            let first = match key {
                ChangesSort::Change => [u64::from(!r.headline), by_change, m, head],
                ChangesSort::Noise => [r.noise_ratio.map_or(u64::MAX, |x| !up(x) >> 1), 0, 0, 0],
                ChangesSort::Metric => [m, 0, 0, 0],
                ChangesSort::Commit => [head, 0, 0, 0],
            };
            ([first[0], first[1], first[2], first[3], by_change, m, head], p)
        })
        .collect();
    model::order::sort_by(&mut keyed, |a, b| a.cmp(b));
    for (slot, (_, p)) in rows.iter_mut().zip(keyed) {
        *slot = p;
    }
}

/// The change as the mails print it: `+5.2%`, `-7.3` (absolute), `+33%` (reproduction).
pub fn change_text(r: &ChangeRecord) -> String {
    format_change(r.change, r.kind)
}

/// `10702 → 11259`.
pub fn means_text(r: &ChangeRecord) -> String {
    format!("{} → {}", format_value(r.base_mean), format_value(r.head_mean))
}

/// Noise ratio as `3.6σ`; `—` when the report states no stddev.
pub fn noise_text(r: &ChangeRecord) -> String {
    r.noise_ratio.map_or_else(|| "—".into(), |x| format!("{x:.1}σ"))
}

/// `p=0.030`, `p<0.001` or `unknown`.
pub fn sig_text(r: &ChangeRecord) -> String {
    significance(r).label()
}

pub fn source_text(r: &ChangeRecord) -> &'static str {
    match r.source {
        ChangeSource::Stated => "stated",
        ChangeSource::Detected => "detected",
    }
}

/// Per job of the listed changes, the parameters that tell it apart from the other listed jobs
/// of its testcase (as the trend legend names series); per testcase, what its jobs share.
pub fn job_labels(jobs: &[Job], listed: &BTreeSet<u32>) -> (HashMap<u32, String>, BTreeMap<String, String>) {
    let mut by_testcase: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for &j in listed {
        if let Some(job) = jobs.get(j as usize) {
            by_testcase.entry(&job.testcase).or_default().push(j);
        }
    }
    let mut labels = HashMap::new();
    let mut common = BTreeMap::new();
    for (tc, js) in by_testcase {
        let refs: Vec<&Job> = js.iter().map(|&j| &jobs[j as usize]).collect();
        let l = legend(&refs);
        for (&j, label) in js.iter().zip(l.labels) {
            // A single job is named by its testcase; the testcase has its own column.
            let mut label = if label == tc { String::new() } else { label };
            // The storage parameters are always worth seeing (what the filesystem reports are about).
            for k in ["fs", "fs2", "disk"] {
                if let Some(v) = jobs[j as usize].params.get(k).filter(|_| !label.contains(&format!("{k}="))) {
                    label = format!("{label} {k}={v}").trim_start().to_string();
                }
            }
            labels.insert(j, label);
        }
        let shared: Vec<String> =
            l.common.into_iter().filter(|(k, _)| k != "testcase").map(|(k, v)| format!("{k}={v}")).collect();
        common.insert(tc.to_string(), shared.join(" "));
    }
    (labels, common)
}

/// Apply one control of the Changes view (`name` as in `controls_html`) to the filter.
/// Returns whether the control was known.
pub fn apply_control(f: &mut ChangesFilter, name: &str, value: &str, checked: bool) -> bool {
    let some = |v: &str| (!v.is_empty()).then(|| v.to_string());
    match name {
        "ns" => f.ns = some(value),
        "dir" => f.dir = value.parse().ok(),
        "source" => f.source = value.parse().ok(),
        "sig" => f.sig = value.parse().ok(),
        // Empty, zero, negative or not a number: no minimum.
        "min" => f.min = Hundredths::parse(value).filter(|m| m.0 > 0),
        "noise" => f.noise = Hundredths::parse(value).filter(|m| m.0 > 0),
        "headline" => f.headline = checked,
        "sort" => f.sort = value.parse().unwrap_or_default(),
        _ => return false,
    }
    true
}

/// A select's options: "all" (no filter), then `(value, label)` pairs.
fn choices<const N: usize>(xs: [(&str, &str); N]) -> Vec<(String, String)> {
    let all = std::iter::once((String::new(), "all".to_string()));
    all.chain(xs.iter().map(|(v, l)| (v.to_string(), l.to_string()))).collect()
}

/// The filter controls of the Changes view, each named for `apply_control`.
pub fn controls_html(f: &ChangesFilter, namespaces: &[(String, usize)]) -> Html {
    let mut o = Html::new();
    o.lit("<label>namespace ");
    let mut ns = vec![(String::new(), "all".to_string())];
    ns.extend(namespaces.iter().map(|(n, c)| (n.clone(), format!("{n} ({c})"))));
    select(&mut o, "ns", "changes-ns", &ns, f.ns.as_deref().unwrap_or(""));
    o.lit("</label><label>direction ");
    let dir = f.dir.map_or("", |d| d.as_str());
    let labels = [
        (Direction::Regression, "regressions"),
        (Direction::Improvement, "improvements"),
        (Direction::Undefined, "direction unknown"),
    ];
    select(&mut o, "dir", "changes-dir", &choices(labels.map(|(d, l)| (d.as_str(), l))), dir);
    o.lit("</label><label>source ");
    let labels = [(SourceFilter::Stated, "stated by a report"), (SourceFilter::Detected, "detected (change points)")];
    let src = f.source.map_or("", |v| v.as_str());
    select(&mut o, "source", "changes-source", &choices(labels.map(|(v, l)| (v.as_str(), l))), src);
    o.lit("</label><label>significance ");
    let labels = [
        (SigFilter::Significant, "p < 0.05"),
        (SigFilter::NotSignificant, "not significant (p ≥ 0.05)"),
        (SigFilter::Unknown, "unknown (run counts not stated)"),
    ];
    let sig = f.sig.map_or("", |v| v.as_str());
    select(&mut o, "sig", "changes-sig", &choices(labels.map(|(v, l)| (v.as_str(), l))), sig);
    let min = f.min.map(|m| m.to_string()).unwrap_or_default();
    let noise = f.noise.map(|m| m.to_string()).unwrap_or_default();
    put!(
        o,
        "</label><label title=\"smallest |change| shown: percent, or absolute for % metrics\">min |change| \
         <input type=\"number\" min=\"0\" step=\"0.01\" class=\"min-change\" name=\"min\" data-testid=\"changes-min\" value=\"{}\"></label>\
         <label title=\"smallest |change| in units of the noise: the stated stddev of a report's change, the commit-to-commit noise of a detected step\">min × noise \
         <input type=\"number\" min=\"0\" step=\"0.1\" class=\"min-change\" name=\"noise\" data-testid=\"changes-noise\" value=\"{}\"></label>\
         <label><input type=\"checkbox\" name=\"headline\" data-testid=\"changes-headline\"{}> headline only</label><span> sort: ",
        min,
        noise,
        if f.headline { " checked" } else { "" }
    );
    for &key in ChangesSort::ALL {
        let label = key.as_str();
        let active = if f.sort == key { " active" } else { "" };
        put!(
            o,
            "<button class=\"sort{}\" data-act=\"{}\" data-value=\"{}\" data-testid=\"changes-sort-{}\">{}</button>",
            active,
            Act::Sort,
            label,
            label,
            label
        );
    }
    o.lit("</span>");
    o
}

/// What rows need besides the record: the index, job labels and the histogram families.
pub struct RowCtx<'a> {
    pub idx: &'a Index,
    pub labels: &'a HashMap<u32, String>,
    pub histograms: &'a BTreeSet<String>,
}

/// One table row; `i` is the row's position in the listing (the `data-i` of its actions).
pub fn row_html(o: &mut Html, ctx: &RowCtx, r: &ChangeRecord, i: usize) {
    let idx = ctx.idx;
    let Some(job) = idx.jobs.get(r.job as usize) else { return };
    let commit = |o: &mut Html, c: u32| match idx.commits.get(c as usize) {
        Some(c) => {
            let mut code = Html::new();
            put!(code, "<code>{}</code>", c.short());
            link(o, c.url.as_deref(), c.subject.as_deref().unwrap_or(""), &code);
        }
        None => {
            o.lit("<code>?</code>");
        }
    };
    let report = r.report.and_then(|k| idx.reports.get(k as usize));
    put!(
        o,
        "<tr data-testid=\"change-row\" data-metric=\"{}\" data-job=\"{}\" data-source=\"{}\" class=\"dir-{}{}\">\
         <td>{}</td><td class=\"job\" title=\"{}\">{}</td><td class=\"metric\">{}",
        r.metric,
        job.id,
        source_text(r),
        r.direction.as_str(),
        if r.headline { " headline" } else { "" },
        job.testcase,
        Catalog::describe_job(job),
        ctx.labels.get(&r.job).map_or("", |s| s.as_str()),
        r.metric,
    );
    if let Some(notes) = report.map(|rep| rep.notes.join(" ")).filter(|n| !n.is_empty()) {
        put!(o, "<div class=\"change-note\" data-testid=\"change-note\" title=\"{}\">{}</div>", notes, notes);
    }
    o.lit("</td><td class=\"commits\">");
    commit(o, r.base);
    o.lit(" → ");
    commit(o, r.head);
    let unknown = r.p_value.is_none();
    put!(
        o,
        "</td><td class=\"num\">{}</td><td class=\"num change\">{}</td><td class=\"sig{}\" title=\"",
        means_text(r),
        change_text(r),
        if unknown { " sig-unknown" } else { "" },
    );
    o.lit(if unknown {
        "run counts not stated: the p-value cannot be computed (never guessed)"
    } else {
        "two-sided Welch's t-test"
    });
    put!(
        o,
        "\">{}</td><td class=\"num\">{}</td><td class=\"source\">{}</td><td class=\"links\">\
         <button class=\"link\" data-act=\"{}\" data-i=\"{}\" data-testid=\"change-trend\">trend</button>",
        sig_text(r),
        noise_text(r),
        source_text(r),
        Act::Trend,
        i,
    );
    if let Some(rep) = report {
        if let Some(u) = &rep.url {
            link(o, Some(u), rep.subject.as_deref().unwrap_or(""), &Html::from_static("report"));
        }
    }
    put!(
        o,
        "<button class=\"link\" data-act=\"{}\" data-i=\"{}\" data-testid=\"change-reproduce\" \
         title=\"commit panel with the reproduce script\">reproduce</button>",
        Act::Reproduce,
        i
    );
    if crate::dist::family(&r.metric).is_some_and(|p| ctx.histograms.contains(p)) {
        put!(
            o,
            "<button class=\"link\" data-act=\"{}\" data-i=\"{}\" data-testid=\"change-dist\">distribution</button>",
            Act::Dist,
            i
        );
    }
    o.lit("</td></tr>");
}

/// The first `n` rows of a listing.
pub fn rows_html(ctx: &RowCtx, shards: &[Arc<ChangesShard>], rows: &[Pos], n: usize) -> Html {
    let mut o = Html::with_capacity(n.min(rows.len()) * 900);
    for (i, &p) in rows.iter().take(n).enumerate() {
        row_html(&mut o, ctx, at(shards, p), i);
    }
    o
}

/// The changes files loaded so far for the view (`web::load_changes`), in merged positions.
#[derive(Clone, Default)]
pub struct Loaded {
    pub shards: Arc<Vec<Arc<ChangesShard>>>,
    /// Files loaded, of how many the selected testcases have.
    pub files: usize,
    pub of: usize,
}

impl Loaded {
    pub fn complete(&self) -> bool {
        self.files >= self.of
    }
}

/// What `web::load_changes` reports as the files arrive.
pub enum Progress {
    /// The files to list from: once every selected testcase's first page is in, and at the end.
    Loaded(Loaded),
    /// Only the count: files loaded, of how many.
    Files(usize, usize),
}

/// The status line while files load.
pub fn loading_text(files: usize, of: usize) -> Option<String> {
    (files < of).then(|| format!("loading the changes: {files} of {of} files"))
}

/// Everything the Changes view shows for one state and the loaded shards.
pub struct ChangesModel {
    pub shards: Arc<Vec<Arc<ChangesShard>>>,
    /// Changes files loaded, of how many (the view is complete when they are equal).
    pub files: usize,
    pub of: usize,
    pub listing: Listing,
    pub labels: HashMap<u32, String>,
    /// Per testcase, what its listed jobs share.
    pub common: BTreeMap<String, String>,
    pub histograms: BTreeSet<String>,
}

impl ChangesModel {
    /// The record of listing row `i`.
    pub fn row(&self, i: usize) -> Option<&ChangeRecord> {
        self.listing.rows.get(i).map(|&p| at(&self.shards, p))
    }
}

/// List the changes of the jobs matching the facets, with their labels.
pub fn model(cat: &Catalog, s: &ViewState, loaded: Loaded) -> ChangesModel {
    let Loaded { shards, files, of } = loaded;
    let mut scope = vec![false; cat.index.jobs.len()];
    for j in crate::facets::matching_jobs(&cat.index.jobs, s) {
        scope[j] = true;
    }
    let in_scope = |j: u32| scope.get(j as usize).copied().unwrap_or(false);
    let listing = list(&shards, in_scope, &s.changes);
    let jobs: BTreeSet<u32> =
        shards.iter().flat_map(|sh| sh.changes.iter().map(|r| r.job)).filter(|&j| in_scope(j)).collect();
    let (labels, common) = job_labels(&cat.index.jobs, &jobs);
    let histograms = crate::dist::families(cat.index.metrics.iter().map(|m| m.name.as_str()));
    ChangesModel { shards, files, of, listing, labels, common, histograms }
}

const HEAD: &str = "<thead><tr><th>testcase</th><th>job</th><th class=\"metric\">metric</th><th>base → head</th>\
<th class=\"num\">base → head mean</th><th class=\"num\">change</th><th>significance</th>\
<th class=\"num\" title=\"|Δ| in units of the larger stated stddev\">noise ratio</th><th>source</th><th>links</th></tr></thead>";

/// The whole view: controls, summary, the first `limit` rows, and "show more".
pub fn view_html(idx: &Index, m: &ChangesModel, f: &ChangesFilter, limit: usize) -> Html {
    let l = &m.listing;
    let mut o = Html::new();
    put!(o, "<div class=\"compare-controls\">{}</div>", controls_html(f, &l.namespaces));
    let complete = m.files >= m.of;
    if !complete {
        put!(
            o,
            "<p class=\"hint\" data-testid=\"changes-partial\">The counts and rows below are those of the first {} of {} \
             files (the top of the default order); the others are loading.</p>",
            m.files,
            m.of
        );
    }
    put!(
        o,
        "<p class=\"compare-summary\" data-testid=\"changes-summary\">{} changes in scope · {} shown · {} regressions · {} improvements ",
        l.in_scope,
        l.rows.len(),
        l.regressions,
        l.improvements
    );
    if complete {
        put!(
            o,
            "<button class=\"export\" data-act=\"{}\" data-testid=\"changes-csv\" title=\"every row shown, as CSV\">CSV</button></p>",
            Act::Csv
        );
    } else {
        o.lit("<button class=\"export\" data-testid=\"changes-csv\" disabled title=\"once every change is loaded\">CSV</button></p>");
    }
    let common: Vec<String> =
        m.common.iter().filter(|(_, v)| !v.is_empty()).map(|(tc, v)| format!("{tc}: {v}")).collect();
    if !common.is_empty() {
        put!(o, "<p class=\"compare-summary\">{}</p>", common.join(" · "));
    }
    let ctx = RowCtx { idx, labels: &m.labels, histograms: &m.histograms };
    o.lit("<table class=\"compare-table changes-table\" data-testid=\"changes-table\">").lit(HEAD);
    put!(o, "<tbody>{}</tbody></table>", rows_html(&ctx, &m.shards, &l.rows, limit));
    if l.rows.is_empty() {
        o.lit("<p class=\"hint\">No change matches these filters.</p>");
    }
    let more = l.rows.len().saturating_sub(limit);
    if more > 0 {
        put!(
            o,
            "<button class=\"show-all\" data-act=\"{}\" data-testid=\"changes-more\">show {} more ({} hidden)</button>",
            Act::More,
            more.min(PAGE),
            more
        );
    }
    o
}

/// Rows rendered at a time; "show more" adds as many.
pub const PAGE: usize = 200;

/// The trend of a change: its testcase, metric and job, with its head commit selected (commit
/// panel) from its report. Facet selections the job does not match are cleared.
pub fn open_trend(cat: &Catalog, s: &mut ViewState, r: &ChangeRecord) {
    let Some(job) = cat.index.jobs.get(r.job as usize) else { return };
    let keep = crate::facets::job_matches(job, s, None);
    s.show_trend(job.testcase.clone(), r.metric.clone(), Some(job.id.clone()), keep);
    open_reproduce(cat, s, r);
}

/// Select the change's head commit, job and report: the commit panel with its reproduce script.
pub fn open_reproduce(cat: &Catalog, s: &mut ViewState, r: &ChangeRecord) {
    let idx = &cat.index;
    s.commit = idx.commits.get(r.head as usize).map(|c| c.id.clone());
    s.job = idx.jobs.get(r.job as usize).map(|j| j.id.clone());
    // a report still pending (its catalog's rest not loaded) has no id to name
    s.report =
        r.report.and_then(|k| idx.reports.get(k as usize)).filter(|rep| !rep.is_pending()).map(|rep| rep.id.clone());
}

/// The latency distribution of a bin change: its family, job and pair.
pub fn open_dist(cat: &Catalog, s: &mut ViewState, r: &ChangeRecord) {
    let idx = &cat.index;
    s.tab = Tab::Dist;
    s.metric = Some(r.metric.clone());
    s.job = idx.jobs.get(r.job as usize).map(|j| j.id.clone());
    s.base = idx.commits.get(r.base as usize).map(|c| c.id.clone());
    s.head = idx.commits.get(r.head as usize).map(|c| c.id.clone());
}

/// A detected step of a drawn trend series, to be marked at its head commit.
#[derive(Debug, Clone, PartialEq)]
pub struct StepMarker {
    /// Slot (x position) of the head commit in the chart.
    pub slot: usize,
    /// Index into the chart's series.
    pub series: usize,
    pub color: Rgb,
    pub direction: Direction,
    /// `detected step +12.0% (abc → def)`.
    pub title: String,
}

/// The detected steps (`source = Detected`) of the series the trend draws, from the changes
/// shards of its testcases. Steps whose head commit is outside the drawn range are left out.
pub fn step_markers(m: &TrendModel, shards: &[Arc<ChangesShard>], short: impl Fn(u32) -> String) -> Vec<StepMarker> {
    let slot_of: HashMap<u32, usize> = m.data.slots.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    let mut out = Vec::new();
    for sh in shards {
        for r in sh.changes.iter().filter(|r| r.source == ChangeSource::Detected && r.metric == m.metric) {
            let Some(series) = m.data.series.iter().position(|s| s.job == r.job) else { continue };
            let Some(&slot) = slot_of.get(&r.head) else { continue };
            out.push(StepMarker {
                slot,
                series,
                color: m.data.series[series].color,
                direction: r.direction,
                title: format!(
                    "detected step {} ({} → {}): {}{}",
                    change_text(r),
                    short(r.base),
                    short(r.head),
                    means_text(r),
                    r.noise_ratio.map_or(String::new(), |n| format!(", {n:.1}× the commit-to-commit noise"))
                ),
            });
        }
    }
    model::order::sort_by_key(&mut out, |s| (s.slot, s.series));
    // One marker per series and commit, however many records say the same.
    out.dedup_by_key(|s| (s.slot, s.series));
    out
}

/// Dashed vertical lines over the chart for `marks`; `x(slot)` in CSS pixels, `top`/`height`
/// of the plot area in CSS pixels.
pub fn markers_html(marks: &[StepMarker], x: impl Fn(usize) -> f64, top: f64, height: f64) -> Html {
    let mut o = Html::new();
    let (top, height) = (format!("{top:.1}"), format!("{height:.1}"));
    for m in marks {
        put!(
            o,
            "<div class=\"step-marker\" data-testid=\"step-marker\" style=\"left:{}px;top:{}px;height:{}px;border-color:{}\">\
             <span class=\"step-flag dir-{}\" title=\"{}\">▾</span></div>",
            format!("{:.1}", x(m.slot)),
            top,
            height,
            css(m.color),
            m.direction.as_str(),
            m.title
        );
    }
    o
}

/// The rows of `recent_html`: positions in `list` of the reports with a headline the facets keep.
pub fn recent_rows(list: &[model::ReportSummary], s: &ViewState) -> Vec<usize> {
    crate::reports::filter(list, s).into_iter().filter(|&i| list[i].metric.is_some()).collect()
}

/// With no testcase chosen: the newest reports' headline changes across every testcase (the
/// root's newest list, kept to the other facets), each opening its report or its testcase's
/// changes; never an empty view.
pub fn recent_html(list: &[model::ReportSummary], s: &ViewState) -> Html {
    use crate::reports::{headline_text, key_params, permalink_key, short_date, word_class};
    let ix = recent_rows(list, s);
    let mut out = Html::new();
    put!(
        out,
        "<h2 class=\"view-title\">Newest headline changes, all testcases</h2><p class=\"hint\" data-testid=\"changes-hint\">{} of the newest \
         reports' headlines. Pick testcases in the filters to list every change they measured. \
         <button class=\"export\" data-act=\"{}\" data-testid=\"recent-csv\" title=\"these rows, as CSV\">CSV</button></p>\
         <table class=\"recent\" data-testid=\"recent-changes\"><thead><tr><th>date</th><th>headline</th>\
         <th>testcase</th><th>job</th><th>report</th></tr></thead><tbody>",
        ix.len()
    ,
        Act::Csv);
    for &i in &ix {
        let r = &list[i];
        let tc = r.testcases.first().map(String::as_str).unwrap_or("");
        put!(
            out,
            "<tr data-testid=\"recent-change\"><td>{}</td><td class=\"headline {}\">{}</td>\
             <td><button data-act=\"{}\" data-value=\"{}\">{}</button></td><td>{} {}</td>\
             <td><button data-act=\"{}\" data-value=\"{}\">{}</button></td></tr>",
            r.date.as_deref().map(short_date).unwrap_or_default(),
            word_class(&r.word),
            headline_text(r),
            Act::Testcase,
            tc,
            tc,
            r.machine,
            key_params(r),
            Act::Report,
            permalink_key(r),
            r.subject.as_deref().unwrap_or(&r.id),
        );
    }
    out.lit("</tbody></table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::tests::sample_index;
    use crate::catalog::Catalog;
    use crate::state::FacetKey;
    use crate::state::ViewState;
    use model::ChangeKind;
    use model::SeriesShard;
    use render::chart::testing::series;

    fn rec(job: u32, metric: &str, head: u32, change: f64, kind: ChangeKind, dir: Direction) -> ChangeRecord {
        ChangeRecord {
            source: ChangeSource::Stated,
            job,
            metric: metric.into(),
            base: head.saturating_sub(1),
            head,
            base_mean: 100.0,
            head_mean: 100.0 + change,
            change,
            kind,
            direction: dir,
            ..Default::default()
        }
    }

    fn shards() -> Vec<Arc<ChangesShard>> {
        use ChangeKind::*;
        use Direction::*;
        let mut blog = vec![
            rec(0, "blogbench.write_score", 1, 5.2, Percent, Improvement),
            rec(0, "mpstat.cpu.all.idle%", 1, -7.2, Absolute, Undefined),
            rec(1, "blogbench.read_score", 2, -12.0, Percent, Regression),
            rec(1, "vmstat.system.cs", 2, 30.0, Percent, Undefined),
        ];
        blog[0].headline = true;
        blog[0].base_mean = 10702.0;
        blog[0].head_mean = 11259.0;
        blog[1].noise_ratio = Some(3.64);
        blog[1].p_value = Some(0.2);
        blog[2].noise_ratio = Some(1.2);
        blog[2].p_value = Some(0.0004);
        blog[3].source = ChangeSource::Detected;
        let fio = vec![rec(2, "fio.write_bw_MBps", 2, -40.0, Percent, Regression)];
        vec![
            Arc::new(ChangesShard { schema: 1, testcase: "blogbench".into(), changes: blog }),
            Arc::new(ChangesShard { schema: 1, testcase: "fio-basic".into(), changes: fio }),
        ]
    }

    fn metrics(f: &ChangesFilter, scope: &[u32]) -> Vec<String> {
        let sh = shards();
        list(&sh, |j| scope.contains(&j), f).rows.iter().map(|&p| at(&sh, p).metric.clone()).collect()
    }

    #[test]
    fn default_order_is_headline_then_largest_change_first() {
        let all = [0, 1, 2];
        assert_eq!(
            metrics(&ChangesFilter::default(), &all),
            [
                "blogbench.write_score",
                "fio.write_bw_MBps",
                "vmstat.system.cs",
                "blogbench.read_score",
                "mpstat.cpu.all.idle%",
            ]
        );
        let sh = shards();
        let l = list(&sh, |j| j < 2, &ChangesFilter::default());
        assert_eq!((l.in_scope, l.rows.len(), l.regressions, l.improvements), (4, 4, 1, 1));
        assert_eq!(l.namespaces, [("blogbench".into(), 2), ("mpstat".into(), 1), ("vmstat".into(), 1)]);
    }

    #[test]
    fn every_filter() {
        let all = [0, 1, 2];
        let f = |g: fn(&mut ChangesFilter)| {
            let mut f = ChangesFilter::default();
            g(&mut f);
            metrics(&f, &all)
        };
        assert_eq!(f(|f| f.ns = Some("blogbench".into())), ["blogbench.write_score", "blogbench.read_score"]);
        assert_eq!(f(|f| f.dir = Some(Direction::Improvement)), ["blogbench.write_score"]);
        assert_eq!(f(|f| f.dir = Some(Direction::Undefined)), ["vmstat.system.cs", "mpstat.cpu.all.idle%"]);
        assert_eq!(f(|f| f.source = Some(SourceFilter::Detected)), ["vmstat.system.cs"]);
        assert_eq!(f(|f| f.source = Some(SourceFilter::Stated)).len(), 4);
        assert_eq!(f(|f| f.sig = Some(SigFilter::Significant)), ["blogbench.read_score"]);
        assert_eq!(f(|f| f.sig = Some(SigFilter::NotSignificant)), ["mpstat.cpu.all.idle%"]);
        assert_eq!(
            f(|f| f.sig = Some(SigFilter::Unknown)),
            ["blogbench.write_score", "fio.write_bw_MBps", "vmstat.system.cs"]
        );
        assert_eq!(
            f(|f| f.min = Some(Hundredths(1200))),
            ["fio.write_bw_MBps", "vmstat.system.cs", "blogbench.read_score"]
        );
        assert_eq!(f(|f| f.headline = true), ["blogbench.write_score"]);
        // noise ratio ≥ 3: only the change stated at 3.64 × its stddev (1.2 × and none are hidden)
        assert_eq!(f(|f| f.noise = Some(Hundredths(300))), ["mpstat.cpu.all.idle%"]);
        // Job scope (the facet selection) and a filter together.
        assert_eq!(
            metrics(&ChangesFilter { dir: Some(Direction::Regression), ..Default::default() }, &[0, 1]),
            ["blogbench.read_score"]
        );
    }

    /// The keyed sort orders as the comparator it replaces, on records with ties of every key,
    /// NaN changes and missing noise ratios.
    #[test]
    fn the_keyed_sort_is_the_comparators_order() {
        use std::cmp::Ordering;
        let mut rng = model::rng::XorShift::new(11);
        let mut n = |k: u64| rng.next_u64() % k;
        let mut recs = Vec::new();
        for _ in 0..3000 {
            let change = match n(20) {
                0 => f64::NAN,
                c => (c as f64 - 10.0) * 1.5,
            };
            recs.push(ChangeRecord {
                metric: format!("m{}.x", n(40)),
                head: n(9) as u32,
                change,
                headline: n(10) == 0,
                noise_ratio: (n(3) > 0).then(|| n(5) as f64 / 2.0),
                ..Default::default()
            });
        }
        let shards = vec![
            Arc::new(ChangesShard { changes: recs[..1700].to_vec(), ..Default::default() }),
            Arc::new(ChangesShard { changes: recs[1700..].to_vec(), ..Default::default() }),
        ];
        let all: Vec<Pos> = (0..1700).map(|b| (0, b)).chain((0..1300).map(|b| (1, b))).collect();
        for key in [ChangesSort::Change, ChangesSort::Noise, ChangesSort::Metric, ChangesSort::Commit] {
            let by_change = |a: &ChangeRecord, b: &ChangeRecord| b.magnitude().total_cmp(&a.magnitude());
            let mut want = all.clone();
            want.sort_by(|&pa, &pb| {
                let (a, b) = (at(&shards, pa), at(&shards, pb));
                let first = match key {
                    ChangesSort::Change => ChangeRecord::listing_order(a, b),
                    ChangesSort::Noise => match (a.noise_ratio, b.noise_ratio) {
                        (Some(x), Some(y)) => y.total_cmp(&x),
                        (Some(_), None) => Ordering::Less,
                        (None, Some(_)) => Ordering::Greater,
                        (None, None) => Ordering::Equal,
                    },
                    ChangesSort::Metric => a.metric.cmp(&b.metric),
                    ChangesSort::Commit => b.head.cmp(&a.head),
                };
                first
                    .then_with(|| by_change(a, b))
                    .then_with(|| a.metric.cmp(&b.metric))
                    .then_with(|| b.head.cmp(&a.head))
                    .then_with(|| pa.cmp(&pb))
            });
            let mut got = all.clone();
            got.reverse();
            sort(&shards, &mut got, key);
            assert!(got == want, "{key:?}");
        }
    }

    #[test]
    fn every_order() {
        let all = [0, 1, 2];
        let by = |sort| metrics(&ChangesFilter { sort, ..Default::default() }, &all);
        assert_eq!(
            by(ChangesSort::Noise),
            [
                "mpstat.cpu.all.idle%",
                "blogbench.read_score",
                "fio.write_bw_MBps",
                "vmstat.system.cs",
                "blogbench.write_score"
            ]
        );
        assert_eq!(
            by(ChangesSort::Metric),
            [
                "blogbench.read_score",
                "blogbench.write_score",
                "fio.write_bw_MBps",
                "mpstat.cpu.all.idle%",
                "vmstat.system.cs"
            ]
        );
        assert_eq!(
            by(ChangesSort::Commit),
            [
                "fio.write_bw_MBps",
                "vmstat.system.cs",
                "blogbench.read_score",
                "mpstat.cpu.all.idle%",
                "blogbench.write_score"
            ]
        );
    }

    #[test]
    fn row_texts() {
        let sh = shards();
        let r = |i: usize| &sh[0].changes[i];
        assert_eq!((change_text(r(0)), means_text(r(0))), ("+5.2%".into(), "10702 → 11259".into()));
        assert_eq!(change_text(r(1)), "-7.2");
        assert_eq!((noise_text(r(0)), noise_text(r(1))), ("—".into(), "3.6σ".into()));
        assert_eq!(
            (sig_text(r(0)), sig_text(r(1)), sig_text(r(2))),
            ("unknown".into(), "p=0.200".into(), "p<0.001".into())
        );
        assert_eq!((source_text(r(0)), source_text(r(3))), ("stated", "detected"));
        let fail = rec(0, "dmesg.WARNING", 1, 33.0, ChangeKind::Reproduction, Direction::Regression);
        assert_eq!(change_text(&fail), "+33%");
    }

    #[test]
    fn controls_round_trip_through_apply() {
        let mut f = ChangesFilter::default();
        for (name, value, checked) in [
            ("ns", "perf-stat", false),
            ("dir", "improvement", false),
            ("source", "detected", false),
            ("sig", "unknown", false),
            ("min", " 2.5 ", false),
            ("headline", "on", true),
            ("sort", "commit", false),
        ] {
            assert!(apply_control(&mut f, name, value, checked), "{name}");
        }
        assert_eq!(
            f,
            ChangesFilter {
                ns: Some("perf-stat".into()),
                dir: Some(Direction::Improvement),
                source: Some(SourceFilter::Detected),
                sig: Some(SigFilter::Unknown),
                min: Some(Hundredths(250)),
                noise: None,
                headline: true,
                sort: ChangesSort::Commit,
            }
        );
        let html = controls_html(&f, &[("perf-stat".into(), 3), ("<x>".into(), 1)]).into_string();
        for part in [
            "<option value=\"perf-stat\" selected>perf-stat (3)</option>",
            "<option value=\"&lt;x&gt;\">&lt;x&gt; (1)</option>",
            "<option value=\"improvement\" selected>improvements</option>",
            "<option value=\"detected\" selected>",
            "<option value=\"unknown\" selected>unknown (run counts not stated)</option>",
            "value=\"2.5\"",
            "data-testid=\"changes-headline\" checked>",
            "class=\"sort active\" data-act=\"sort\" data-value=\"commit\"",
        ] {
            assert!(html.contains(part), "{part} in {html}");
        }
        for (name, value) in [("ns", ""), ("dir", ""), ("source", ""), ("sig", ""), ("min", "0"), ("sort", "change")] {
            assert!(apply_control(&mut f, name, value, false));
        }
        apply_control(&mut f, "headline", "", false);
        assert_eq!(f, ChangesFilter::default(), "every control can go back to the default");
        assert!(!apply_control(&mut f, "bogus", "", false));
        for bad in ["-3", "NaN", "inf", "x"] {
            apply_control(&mut f, "min", bad, false);
            assert_eq!(f.min, None, "{bad}");
        }
    }

    #[test]
    fn rows_are_escaped_html_with_their_links() {
        let mut idx = sample_index();
        idx.reports[0].notes = vec!["This is <not> a regression.".into()];
        let mut r = shards()[0].changes[0].clone();
        r.report = Some(0);
        r.metric = "fio.latency_2ms%".into();
        let labels: HashMap<u32, String> = [(0, "fs=xfs".to_string())].into();
        let histograms: BTreeSet<String> = ["fio.latency".to_string()].into();
        let ctx = RowCtx { idx: &idx, labels: &labels, histograms: &histograms };
        let mut o = Html::new();
        row_html(&mut o, &ctx, &r, 7);
        let o = o.into_string();
        for part in [
            "data-metric=\"fio.latency_2ms%\"",
            "class=\"dir-improvement headline\"",
            "<td class=\"job\" title=\"blogbench · lkp-icl-2sp9 disk=1SSD fs=xfs\">fs=xfs</td>",
            "data-act=\"trend\"",
            "This is &lt;not&gt; a regression.",
            "href=\"https://git.kernel.org/torvalds/c/4df0f7f145aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
            "title=\"head\"><code>19957a1816bb</code></a>",
            "<td class=\"num\">10702 → 11259</td><td class=\"num change\">+5.2%</td>",
            "<td class=\"sig sig-unknown\"",
            ">unknown</td>",
            "<td class=\"num\">—</td>",
            "data-act=\"trend\" data-i=\"7\"",
            "href=\"https://lore.kernel.org/all/x@intel.com/\"",
            "data-act=\"reproduce\" data-i=\"7\"",
            "data-act=\"dist\" data-i=\"7\"",
        ] {
            assert!(o.contains(part), "{part} in {o}");
        }
        assert!(!o.contains("<not>"));
        // a known p-value: the test's name as the title, its apostrophe as written
        let mut o = Html::new();
        row_html(&mut o, &ctx, &shards()[0].changes[1], 0);
        assert!(o.as_str().contains("<td class=\"sig\" title=\"two-sided Welch's t-test\">p=0.200</td>"), "{o:?}");
        let sh = shards();
        let l = list(&sh, |_| true, &ChangesFilter::default());
        let all = rows_html(&ctx, &sh, &l.rows, 2).into_string();
        assert_eq!(all.matches("<tr ").count(), 2, "only the first page is rendered");
    }

    #[test]
    fn whole_view_pages_rows() {
        let cat = Catalog::new(sample_index());
        let sh = Loaded { shards: Arc::new(shards()), files: 2, of: 2 };
        let mut s = ViewState::default();
        s.toggle(&FacetKey::Testcase, "blogbench");
        let m = model(&cat, &s, sh.clone());
        assert_eq!(m.listing.rows.len(), 4, "facets scope the jobs");
        assert_eq!(m.row(0).map(|r| r.metric.as_str()), Some("blogbench.write_score"), "the headline leads");
        assert_eq!(m.row(1).map(|r| r.metric.as_str()), Some("vmstat.system.cs"));
        assert_eq!(m.row(9), None);
        let h = view_html(&cat.index, &m, &s.changes, 3).into_string();
        assert_eq!(h.matches("<tr data-testid=\"change-row\"").count(), 3);
        assert!(h.contains("4 changes in scope · 4 shown · 1 regressions · 1 improvements"), "{h}");
        assert!(h.contains("show 1 more (1 hidden)"), "{h}");
        assert!(h.contains("blogbench: machine=lkp-icl-2sp9 disk=1SSD"), "{h}");
        let h = view_html(&cat.index, &m, &s.changes, PAGE).into_string();
        assert!(!h.contains("data-act=\"more\""));
        assert!(!h.contains("changes-partial") && h.contains("data-act=\"csv\""), "complete: no status, CSV on");
        s.changes.headline = true;
        s.changes.dir = Some(Direction::Regression);
        let m = model(&cat, &s, sh);
        assert!(view_html(&cat.index, &m, &s.changes, PAGE).as_str().contains("No change matches these filters."));
    }

    #[test]
    fn a_view_still_loading_says_so_and_exports_nothing() {
        let cat = Catalog::new(sample_index());
        let mut s = ViewState::default();
        s.toggle(&FacetKey::Testcase, "blogbench");
        let first = Loaded { shards: Arc::new(shards()[..1].to_vec()), files: 1, of: 3 };
        let h = view_html(&cat.index, &model(&cat, &s, first), &s.changes, PAGE).into_string();
        assert!(h.contains("those of the first 1 of 3 files"), "{h}");
        assert_eq!(loading_text(1, 3).as_deref(), Some("loading the changes: 1 of 3 files"));
        assert_eq!(loading_text(3, 3), None, "no status once loaded");
        assert!(h.contains("4 changes in scope"), "the loaded file's rows are listed: {h}");
        assert!(!h.contains("data-act=\"csv\"") && h.contains("disabled"), "no CSV of a part: {h}");
    }

    #[test]
    fn the_default_order_is_the_order_of_the_pages() {
        let sh = shards();
        let l = list(&sh, |_| true, &ChangesFilter::default());
        let listed: Vec<&ChangeRecord> = l.rows.iter().map(|&p| at(&sh, p)).collect();
        let mut paged: Vec<&ChangeRecord> = sh.iter().flat_map(|s| s.changes.iter()).collect();
        paged.sort_by(|a, b| ChangeRecord::listing_order(a, b));
        assert_eq!(listed, paged, "the view lists in the order the importer pages");
    }

    #[test]
    fn links_set_the_state() {
        let cat = Catalog::new(sample_index());
        let mut r = shards()[0].changes[0].clone();
        r.report = Some(0);
        let mut s = ViewState { tab: Tab::Changes, from: Some("x".into()), ..Default::default() };
        s.toggle(&FacetKey::Param("fs".into()), "ext4");
        open_trend(&cat, &mut s, &r);
        assert_eq!(
            s.to_query(),
            format!(
                "testcase=blogbench&metric=blogbench.write_score&jobs={j}&commit={c}&job={j}&rid=r1",
                j = cat.index.jobs[0].id,
                c = cat.index.commits[1].id
            ),
            "facets the job does not match are cleared; the head commit is selected"
        );
        let mut s = ViewState { tab: Tab::Changes, ..Default::default() };
        open_dist(&cat, &mut s, &r);
        assert_eq!((s.tab, s.base.as_deref()), (Tab::Dist, Some(cat.index.commits[0].id.as_str())));
        let marks = [StepMarker {
            slot: 2,
            series: 0,
            color: (1, 2, 3),
            direction: Direction::Regression,
            title: "a<b".into(),
        }];
        let h = markers_html(&marks, |s| s as f64 * 10.0, 5.0, 100.0).into_string();
        assert!(h.contains("left:20.0px;top:5.0px;height:100.0px;border-color:#010203"), "{h}");
        assert!(h.contains("title=\"a&lt;b\""), "{h}");
    }

    #[test]
    fn labels_name_what_differs_within_a_testcase() {
        let idx = sample_index();
        let (labels, common) = job_labels(&idx.jobs, &[0, 1, 2].into());
        assert_eq!(labels[&0], "fs=xfs disk=1SSD");
        assert_eq!(labels[&1], "fs=ext4 disk=1SSD");
        assert_eq!(labels[&2], "fs=xfs disk=1HDD", "the only fio job: its storage parameters");
        assert_eq!(common["blogbench"], "machine=lkp-icl-2sp9 disk=1SSD");
        assert!(common["fio-basic"].contains("fs=xfs"), "{common:?}");
    }

    #[test]
    fn detected_steps_of_drawn_series_only() {
        let cat = Catalog::new(sample_index());
        let shard = Arc::new(SeriesShard {
            schema: 1,
            testcase: "blogbench".into(),
            metric: "blogbench.write_score".into(),
            series: vec![
                series(0, &[(0, Some(100.0), None, None), (1, Some(120.0), None, None)]),
                series(1, &[(0, Some(50.0), None, None), (1, Some(50.0), None, None)]),
            ],
        });
        let s = ViewState {
            metric: Some("blogbench.write_score".into()),
            jobs: [cat.index.jobs[0].id.clone()].into(),
            ..Default::default()
        };
        let m = crate::views::trend_model(&cat, &s, vec![shard]);
        let step = |job, head, source| ChangeRecord {
            source,
            job,
            metric: "blogbench.write_score".into(),
            base: 0,
            head,
            base_mean: 100.0,
            head_mean: 120.0,
            change: 20.0,
            direction: Direction::Improvement,
            ..Default::default()
        };
        let mut other_metric = step(0, 1, ChangeSource::Detected);
        other_metric.metric = "blogbench.read_score".into();
        let changes = vec![Arc::new(ChangesShard {
            schema: 1,
            testcase: "blogbench".into(),
            changes: vec![
                step(0, 1, ChangeSource::Detected),
                step(0, 1, ChangeSource::Detected),
                step(0, 1, ChangeSource::Stated),
                step(1, 1, ChangeSource::Detected),
                step(0, 2, ChangeSource::Detected),
                other_metric,
            ],
        })];
        let marks = step_markers(&m, &changes, |c| format!("c{c}"));
        assert_eq!(marks.len(), 1, "{marks:?}");
        assert_eq!((marks[0].slot, marks[0].series, marks[0].color), (1, 0, m.data.series[0].color));
        assert_eq!(marks[0].title, "detected step +20.0% (c0 → c1): 100.00 → 120.00");
        let mut with_noise = (*changes[0]).clone();
        with_noise.changes[0].noise_ratio = Some(5.14);
        let marks = step_markers(&m, &[Arc::new(with_noise)], |c| format!("c{c}"));
        assert_eq!(marks[0].title, "detected step +20.0% (c0 → c1): 100.00 → 120.00, 5.1× the commit-to-commit noise");
    }

    #[test]
    fn with_no_testcase_the_newest_headlines_of_every_testcase() {
        let r = |id: &str, tc: &str, metric: Option<&str>, word: &str| model::ReportSummary {
            id: id.into(),
            message_id: Some(format!("{id}@x")),
            subject: Some(format!("<b>{id}</b>")),
            testcases: vec![tc.into()],
            metric: metric.map(str::to_string),
            change: Some(-6.5),
            word: word.into(),
            machine: "lkp-1".into(),
            ..Default::default()
        };
        let list = vec![
            r("r1", "fio-basic", Some("fio.write_iops"), "regression"),
            r("r2", "aim9", None, ""),
            r("r3", "hackbench", Some("hackbench.throughput"), "improvement"),
        ];
        let html = recent_html(&list, &ViewState::default()).into_string();
        assert_eq!(html.matches("data-testid=\"recent-change\"").count(), 2, "reports without a headline are left out");
        assert!(html.contains("fio.write_iops -6.5% regression") && html.contains("class=\"headline regression\""));
        assert!(
            html.contains("data-act=\"report\" data-value=\"r1@x\"")
                && html.contains("data-act=\"testcase\" data-value=\"hackbench\"")
        );
        assert!(html.contains("&lt;b&gt;r1&lt;/b&gt;") && !html.contains("<b>r1"), "subjects are escaped");
        let mut s = ViewState::default();
        s.facets.insert(FacetKey::Machine, ["lkp-2".to_string()].into());
        assert_eq!(recent_html(&list, &s).as_str().matches("recent-change\"").count(), 0, "the other facets apply");
    }
}
