//! The reports list and the report page: which summaries the facets keep, a report document's
//! tables as compare rows (base against each later column), its fail:runs rows, the other
//! reports of its job, and the perf-profile rows as a call tree and flat bars.

#[cfg(target_arch = "wasm32")]
pub mod found;
pub mod record;
#[cfg(target_arch = "wasm32")]
pub mod record_view;
#[cfg(target_arch = "wasm32")]
pub mod view;

use crate::state::{FacetKey, ViewState};
use model::ReportSummary;
pub use render::profile::{call_tree, chain, flat, has_profile, profile_html, Node};
pub use render::report::*;

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

/// The report an arrow key moves to in the list: the one after (or before) `open` among the
/// shown rows `shown` (positions in `list`), clamped to the ends.
pub fn step_key(list: &[ReportSummary], shown: &[usize], open: Option<&str>, down: bool) -> Option<String> {
    let at = open.and_then(|k| shown.iter().position(|&i| permalink_key(&list[i]) == k));
    crate::search::step(at, shown.len(), down).map(|j| permalink_key(&list[shown[j]]))
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
    use crate::state::SortKey;
    use model::{Direction, DocJob, DocRow, DocSection, ReportDoc};

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
        let me = ReportSummary { metric: Some("fio.x".into()), ..list[0].clone() };
        let h = history_html(&list, &[3], 3, &me, true).into_string();
        assert!(
            h.contains("(1)") && h.contains("data-act=\"trend\"") && h.contains("Trend of fio.x over 3 commits"),
            "{h}"
        );
        let h = history_html(&list, &[], 2, &me, true).into_string();
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
    fn permalinks_and_pages() {
        let r = ReportSummary { id: "0123456789abcdef".into(), message_id: Some("a@b".into()), ..Default::default() };
        assert_eq!(permalink_key(&r), "a@b");
        // the page that carries a report's document, by the `report=` value: its Message-ID (with or
        // without `<>`), or the id of a report without one (or with one a URL path cannot hold)
        assert_eq!(model::paths::report_url("<a@b>"), "m/a@b/");
        assert_eq!(model::paths::report_url("0123456789abcdef"), "m/0123456789abcdef/");
        let odd = "a b@c";
        assert_eq!(model::paths::report_url(odd), model::paths::report_url(&model::paths::report_id_of_message(odd)));
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
        let html = tables_html(&t, &TableFilter::default(), Form::App).into_string();
        assert_eq!(html.matches("data-testid=\"report-table\"").count(), 2);
        // the default: the rows as the mail prints them, aligned, the change coloured
        assert!(html.contains("<pre class=\"rows\" data-testid=\"report-rows\" tabindex=\"0\">  base  %change   head  metric\n100.00   <b class=r>-10.0%</b>  90.00  fio.write_iops\n</pre>"), "{html}");
        assert!(html.contains("report-fails"), "{html}");
        assert!(html.contains("data-testid=\"report-ns\""), "the app's tables have their controls");
        // the static page's: no controls (they need the app), the same rows
        let page = tables_html(&t, &TableFilter::default(), Form::Page).into_string();
        assert!(!page.contains("class=\"controls\"") && page.contains("<pre class=\"rows\""), "{page}");
        // sorted or filtered: the table the app sorts
        let by_name =
            tables_html(&t, &TableFilter { sort: SortKey::Name, ..Default::default() }, Form::App).into_string();
        assert!(
            by_name.contains("<tr class=r><td>fio.write_iops<td>100.00<td>-10.0%<td>90.00\n")
                && !by_name.contains("<pre"),
            "{by_name}"
        );
        let only = tables_html(&t, &TableFilter { ns: Some("perf-profile".into()), ..Default::default() }, Form::App)
            .into_string();
        assert!(!only.contains("<tr class=r>") && !only.contains("<tr><td>") && !only.contains("<pre"), "{only}");
        let mut d = doc();
        d.notes = vec!["This is not a <regression>".into()];
        d.url = Some("javascript:alert(1)".into());
        let head = head_html(&d, &|_| None).into_string();
        assert!(head.contains("This is not a &lt;regression&gt;") && !head.contains("javascript:"), "{head}");
    }
}
