//! The compare view: one job's metrics between a base and a head commit, as lkp's ncompare
//! prints them; filter by namespace and direction, sort, click a row for its trend.

use crate::catalog::Catalog;
use crate::compare::{self, Row};
use crate::facets;
use crate::html::Act;
use crate::shared::Shared;
use crate::state::{SortKey, Tab};
use crate::ui::context::{commit_option_label, Cat, Nav};
use crate::{views, web};
use leptos::prelude::*;
use model::Direction;
use std::sync::Arc;

/// Rows rendered before "show all".
const FIRST_ROWS: usize = 400;

#[derive(Clone, PartialEq)]
struct Table {
    job: usize,
    commits: Vec<u32>,
    pair: Option<(u32, u32)>,
    rows: Shared<Vec<Row>>,
}

#[component]
pub fn CompareView() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let (job, shard) = crate::ui::context::use_job_shard(nav, cat.clone());
    let c3 = cat.clone();
    let table = Memo::new(move |_| {
        let loaded = shard.get()?;
        Some(loaded.map(|sh| {
            let sh = sh?;
            let j = job.get()?;
            let commits = compare::commits(&sh);
            let chosen = nav.state.with(|s| {
                let pos = |c: &Option<String>| c.as_deref().and_then(|c| c3.commit_pos(c)).map(|c| c as u32);
                (pos(&s.base), pos(&s.head))
            });
            let pair = views::complete_pair(chosen, || views::default_pair(&c3, j, &commits));
            let rows = pair
                .map_or_else(Vec::new, |(b, h)| compare::rows(&sh, b, h, |m| c3.metric(m).map_or(0, |i| i.direction)));
            Some(Table { job: j, commits, pair, rows: Shared(Arc::new(rows)) })
        }))
    });
    let show_all = RwSignal::new(false);
    let c4 = cat.clone();
    move || -> AnyView {
        show_all.track();
        match table.get() {
            None => view! { <p class="loading">"loading the job's metrics…"</p> }.into_any(),
            Some(Err(e)) => view! { <div class="error" data-testid="error" role="alert">{e}</div> }.into_any(),
            Some(Ok(None)) => view! { <p class="hint">"No job matches the filters."</p> }.into_any(),
            Some(Ok(Some(t))) => table_view(&c4, nav, t, show_all).into_any(),
        }
    }
}

/// The table's CSV download: the rows `order` shows (all of them, not only the first page).
fn csv_button(
    rows: Arc<Vec<Row>>,
    order: Vec<usize>,
    pair: (Option<String>, Option<String>),
    job: &str,
) -> impl IntoView {
    let name = crate::export::file_name(&format!("compare-{job}"), "csv");
    let (base, head) = (pair.0.unwrap_or_default(), pair.1.unwrap_or_default());
    let export = move |_| {
        let text = crate::export::rows_csv(order.iter().map(|&i| &rows[i]), &base, &head);
        let _ = web::download(&name, &text, "text/csv");
    };
    view! { <button class="export" data-testid="compare-csv" title="every row shown, as CSV" on:click=export>"CSV"</button> }
}

fn table_view(cat: &Cat, nav: Nav, t: Table, show_all: RwSignal<bool>) -> impl IntoView {
    let (ns, dir, sort) = nav.state.with_untracked(|s| (s.ns.clone(), s.dir, s.sort));
    let rows = t.rows.0.clone();
    let order = compare::view(&rows, ns.as_deref(), dir, sort);
    let namespaces = compare::namespaces(&rows);
    let n_reg = rows.iter().filter(|r| r.direction == Direction::Regression).count();
    let n_imp = rows.iter().filter(|r| r.direction == Direction::Improvement).count();
    let job = &cat.index.jobs[t.job];
    let job_id = job.id.clone();
    let (base, head) = (t.pair.map(|p| p.0), t.pair.map(|p| p.1));
    let ids = |c: Option<u32>| c.map(|c| cat.index.commits[c as usize].id.clone());
    let limit = if show_all.get_untracked() { usize::MAX } else { FIRST_ROWS };
    let hidden = order.len().saturating_sub(limit);
    let body = table_rows(cat, nav, &rows, &order, limit, job, (ids(base), ids(head)));
    let csv = csv_button(rows.clone(), order.clone(), (ids(base), ids(head)), &job_id);
    let summary =
        format!("{} metrics · {} shown · {n_reg} regressions · {n_imp} improvements", rows.len(), order.len());
    view! {
        <section class="compare">
            <div class="compare-controls">
                {job_picker(cat, nav, t.job)}
                {pair_picker(cat, nav, &t.commits, base, head)}
                {row_filters(nav, &namespaces, ns, dir, sort)}
            </div>
            <p class="compare-summary">
                {summary} " · " {commit_link(cat, base)} " → " {commit_link(cat, head)} " "
                {csv}
            </p>
            <table class="compare-table" data-testid="compare-table">
                <thead>
                    <tr>
                        <th class="metric">"metric"</th>
                        <th class="num">"base ± %stddev"</th>
                        <th class="num">"change"</th>
                        <th class="num">"head ± %stddev"</th>
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
            {(hidden > 0).then(|| view! {
                <button class="show-all" on:click=move |_| show_all.set(true)>{format!("show {hidden} more rows")}</button>
            })}
        </section>
    }
}

/// Job picker: the matching jobs, plus the current one (`job`).
fn job_picker(cat: &Cat, nav: Nav, job: usize) -> impl IntoView {
    let mut jobs = nav.state.with_untracked(|s| facets::matching_jobs(&cat.index.jobs, s));
    if !jobs.contains(&job) {
        jobs.insert(0, job);
    }
    let job_options = jobs
        .iter()
        .map(|&j| {
            let id = cat.index.jobs[j].id.clone();
            view! { <option value=id selected=j == job>{Catalog::describe_job(&cat.index.jobs[j])}</option> }
        })
        .collect_view();
    view! {
        <label class="job-pick">
            "job "
            <select data-testid="compare-job" on:change=move |ev| {
                let v = event_target_value(&ev);
                nav.push(|s| {
                    s.job = Some(v);
                    s.base = None;
                    s.head = None;
                })
            }>{job_options}</select>
        </label>
    }
}

/// The base and head pickers over the job's `commits`, and the swap button between them.
fn pair_picker(cat: &Cat, nav: Nav, commits: &[u32], base: Option<u32>, head: Option<u32>) -> impl IntoView {
    let ids = |c: Option<u32>| c.map(|c| cat.index.commits[c as usize].id.clone());
    let (base_id, head_id) = (ids(base), ids(head));
    let swap = move |_| {
        let (b, h) = (base_id.clone(), head_id.clone());
        nav.push(|s| {
            s.base = h;
            s.head = b;
        })
    };
    view! {
        <div class="pair">
            <label>"base " {commit_select(cat, nav, commits, "base", base)}</label>
            <button class="swap" title="swap base and head" on:click=swap>"⇄"</button>
            <label>"head " {commit_select(cat, nav, commits, "head", head)}</label>
        </div>
    }
}

/// The `which` ("base" or "head") commit's picker.
fn commit_select(cat: &Cat, nav: Nav, commits: &[u32], which: &'static str, current: Option<u32>) -> impl IntoView {
    let opts = commits
        .iter()
        .map(|&c| {
            let id = cat.index.commits[c as usize].id.clone();
            view! { <option value=id selected=current == Some(c)>{commit_option_label(cat, c as usize, 80)}</option> }
        })
        .collect_view();
    view! {
        <select
            data-testid=format!("compare-{which}")
            on:change=move |ev| {
                let v = event_target_value(&ev);
                nav.push(|s| if which == "base" { s.base = Some(v) } else { s.head = Some(v) })
            }
        >
            {opts}
        </select>
    }
}

/// The namespace and direction filters and the sort buttons.
fn row_filters(
    nav: Nav,
    namespaces: &[(String, usize)],
    ns: Option<String>,
    dir: Option<Direction>,
    sort: SortKey,
) -> impl IntoView {
    let ns_options = namespaces
        .iter()
        .map(|(n, count)| {
            view! { <option value=n.clone() selected=ns.as_deref() == Some(n.as_str())>{format!("{n} ({count})")}</option> }
        })
        .collect_view();
    let dir_value = dir.map(|d| d.as_str()).unwrap_or("");
    view! {
        <div class="row-filters">
            <label>
                "namespace "
                <select data-testid="compare-ns" on:change=move |ev| {
                    let v = event_target_value(&ev);
                    nav.replace(|s| s.ns = (!v.is_empty()).then_some(v))
                }>
                    <option value="" selected=ns.is_none()>"all"</option>
                    {ns_options}
                </select>
            </label>
            <label>
                " direction "
                <select data-testid="compare-dir" prop:value=dir_value on:change=move |ev| {
                    let v = event_target_value(&ev);
                    nav.replace(|s| s.dir = v.parse().ok())
                }>
                    <option value="" selected=dir.is_none()>"all"</option>
                    <option value="regression" selected=dir == Some(Direction::Regression)>"regressions"</option>
                    <option value="improvement" selected=dir == Some(Direction::Improvement)>"improvements"</option>
                    <option value="undefined" selected=dir == Some(Direction::Undefined)>"direction unknown"</option>
                </select>
            </label>
            " sort: "
            {sort_button(nav, sort, SortKey::Change, "change")}
            {sort_button(nav, sort, SortKey::Name, "name")}
        </div>
    }
}

/// The button that sorts by `key` (active when it is the `current` sort).
fn sort_button(nav: Nav, current: SortKey, key: SortKey, label: &'static str) -> impl IntoView {
    view! {
        <button class="sort" class:active=current == key data-testid=format!("sort-{label}") on:click=move |_| nav.replace(|s| s.sort = key)>
            {label}
        </button>
    }
}

/// A commit's short id, linked to the commit when it has a safe URL.
fn commit_link(cat: &Cat, c: Option<u32>) -> Option<AnyView> {
    c.map(|c| {
        let commit = &cat.index.commits[c as usize];
        let text = commit.short().to_string();
        match commit.url.as_deref().and_then(crate::html::safe_href) {
            Some(u) => {
                view! { <a href=u.to_string() target="_blank" rel="noopener"><code>{text}</code></a> }.into_any()
            }
            None => view! { <code>{text}</code> }.into_any(),
        }
    })
}

/// The first `limit` rows of `order`. Latency-bin families with at least two bins in this job:
/// their rows link the distribution of `pair_ids` (base, head).
fn table_rows(
    cat: &Cat,
    nav: Nav,
    rows: &[Row],
    order: &[usize],
    limit: usize,
    job: &model::Job,
    pair_ids: Pair,
) -> impl IntoView {
    let histograms = crate::dist::families(rows.iter().map(|r| r.metric.as_str()));
    order
        .iter()
        .take(limit)
        .map(|&i| {
            let dist = crate::dist::family(&rows[i].metric).is_some_and(|p| histograms.contains(p));
            row_view(cat, nav, &rows[i], job, &job.id, dist.then(|| pair_ids.clone()))
        })
        .collect_view()
}

/// `dist`: the row is a latency bin; the (base, head) ids its distribution link opens.
type Pair = (Option<String>, Option<String>);

fn row_view(cat: &Cat, nav: Nav, r: &Row, job: &model::Job, job_id: &str, dist: Option<Pair>) -> impl IntoView {
    // The distribution link is plain markup: the row's click handler tells it by `data-act`.
    let dist_link = dist.is_some().then(|| {
        view! {
            " "
            <button class="link dist-link" data-act=Act::Dist.as_str() data-testid="dist-link" title="the whole latency histogram, base vs head">"distribution"</button>
        }
    });
    let pair = dist.unwrap_or_default();
    let metric = r.metric.clone();
    let (testcase, job_id) = (job.testcase.clone(), job_id.to_string());
    let job_matches_filters = {
        let j = job.clone();
        move |s: &crate::state::ViewState| facets::job_matches(&j, s, None)
    };
    let open_trend = move |ev: leptos::ev::MouseEvent| {
        let (metric, testcase, job_id) = (metric.clone(), testcase.clone(), job_id.clone());
        if web::action_of(&ev).is_some_and(|(act, _, _)| act == Act::Dist) {
            let (base, head) = pair.clone();
            nav.push(|s| {
                s.tab = Tab::Dist;
                s.metric = Some(metric);
                s.job = Some(job_id);
                s.base = base;
                s.head = head;
            });
            return;
        }
        let keep = nav.state.with_untracked(&job_matches_filters);
        nav.push(|s| {
            s.show_trend(testcase, metric, Some(job_id.clone()), keep);
            s.job = Some(job_id);
        })
    };
    let kpi = cat.metric(&r.metric).is_some_and(|m| m.kpi);
    let title = if r.stated { "as the report states it" } else { "computed from the two means" };
    view! {
        <tr
            data-testid="compare-row"
            data-metric=r.metric.clone()
            class=format!("dir-{}", r.direction.as_str())
            class:kpi=kpi
            on:click=open_trend
        >
            <td class="metric">{r.metric.clone()} {dist_link}</td>
            <td class="num">{r.base.as_ref().map(|c| c.text()).unwrap_or_else(|| "—".into())}</td>
            <td class="num change" title=title>{r.change_text()}</td>
            <td class="num">{r.head.as_ref().map(|c| c.text()).unwrap_or_else(|| "—".into())}</td>
        </tr>
    }
}
