//! The reports list and the report page: which summaries the facets keep, a report document's
//! tables as compare rows (base against each later column), its fail:runs rows, the other
//! reports of its job, and the perf-profile rows as a call tree and flat bars.

use crate::compare::{Cell, Row};
use crate::state::{FacetKey, ViewState};
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

/// The document paths to try for a `report=` value: the Message-ID's, then the value as an id.
pub fn doc_candidates(key: &str) -> Vec<String> {
    let mut out = vec![model::paths::report_doc(&model::paths::report_id_of_message(key))];
    if key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()) {
        out.push(model::paths::report_doc(key));
    }
    out
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
        jobs.sort_unstable();
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
                        t.rows.push(compare_row(r, h, weight(&r.metric)));
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
        kids.sort_by(|a, b| share(b.1).total_cmp(&share(a.1)).then(a.0.cmp(b.0)));
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
    out.sort_by(|a, b| share(b).total_cmp(&share(a)).then(a.name.cmp(&b.name)));
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
    by.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i) in by.into_iter().take(n) {
        nodes[i].mover = true;
    }
}

/// Whether a table has perf-profile rows worth the profile view.
pub fn has_profile(rows: &[Row]) -> bool {
    rows.iter().any(|r| r.metric.starts_with("perf-profile."))
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
    fn tables_are_base_against_each_later_column() {
        let t = tables(&doc(), &|m| if m == "fio.write_iops" { 1 } else { 0 });
        let got: Vec<(String, String, String, Option<f64>, Direction, Vec<String>)> = t
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
    }

    #[test]
    fn permalinks_and_documents() {
        let r = ReportSummary { id: "0123456789abcdef".into(), message_id: Some("a@b".into()), ..Default::default() };
        assert_eq!(permalink_key(&r), "a@b");
        assert_eq!(doc_candidates("<a@b>"), vec![model::paths::report_doc(&model::paths::hash_hex(b"a@b"))]);
        assert_eq!(doc_candidates("0123456789abcdef").len(), 2);
        assert_eq!(word_class("regression"), "regression");
        let h = ReportSummary {
            metric: Some("fio.write_iops".into()),
            change: Some(-6.5),
            word: "regression".into(),
            ..Default::default()
        };
        assert_eq!(headline_text(&h), "fio.write_iops -6.5% regression");
    }
}
