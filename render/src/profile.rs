//! The perf-profile rows of a table as a call tree and as flat bars, and their HTML.

use crate::html::Html;
use crate::put;
use crate::rows::Row;
use model::stats::format_value;

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

/// The perf-profile view of a table's rows: the call tree, then (`flat_too`, or when there is no
/// tree) children and self as bars.
pub fn profile_html(out: &mut Html, rows: &[Row], flat_too: bool) {
    let mut parts = vec![("Call tree", "profile-tree", call_tree(rows, 5))];
    if flat_too || parts[0].2.is_empty() {
        parts.push(("Children", "profile-children", flat(rows, "children", 5)));
        parts.push(("Self", "profile-self", flat(rows, "self", 5)));
    }
    if parts.iter().all(|p| p.2.is_empty()) {
        return; // perf-profile rows of another kind (older mails' `perf-profile.cpu-cycles.*`): no view
    }
    let max = parts.iter().flat_map(|p| &p.2).flat_map(|n| [n.base, n.head]).flatten().fold(1.0f64, f64::max);
    out.lit("<details class=\"perf-profile\" data-testid=\"perf-profile\"><summary>perf-profile: where the cycles went \
        (base <span class=\"key pbase\"></span> head <span class=\"key phead\"></span>, % of cycles; the biggest movers marked)</summary>");
    for (title, testid, nodes) in &parts {
        if nodes.is_empty() {
            continue;
        }
        put!(out, "<h4>{}</h4><ol class=\"profile\" data-testid=\"{}\">", title, testid);
        for n in nodes.iter().take(80) {
            node_html(out, n, max);
        }
        out.lit("</ol>");
    }
    out.lit("</details>");
}

/// One node in about what its numbers cost: the depth and the bars' widths as CSS variables
/// (`ol.profile li` draws the bars; an absent one is 0), end tag omitted; a mover is `class=m`.
fn node_html(out: &mut Html, n: &Node, max: f64) {
    let w = |v: Option<f64>| format!("{:.1}", 100.0 * v.unwrap_or(0.0) / max);
    let mut vars = Vec::new();
    if n.depth > 0 {
        vars.push(format!("--d:{}", n.depth));
    }
    for (name, v) in [("b", w(n.base)), ("h", w(n.head))] {
        if v != "0.0" {
            vars.push(format!("--{name}:{v}%"));
        }
    }
    let delta = n.delta().map(|d| format!("{d:+.2}")).unwrap_or_default();
    let (from, to) = (Node::text(n.base), Node::text(n.head));
    match (n.mover, vars.is_empty()) {
        (true, true) => {
            out.lit("<li class=m>");
        }
        (true, false) => {
            put!(out, "<li class=m style=\"{}\">", vars.join(";"));
        }
        (false, true) => {
            out.lit("<li>");
        }
        (false, false) => {
            put!(out, "<li style=\"{}\">", vars.join(";"));
        }
    }
    if n.base.is_none() && n.head.is_none() {
        // a frame of a chain that no row measures: its name alone (no bars, no numbers)
        put!(out, "<span>{}</span>\n", n.name);
        return;
    }
    put!(out, "<span>{}</span><span>{} → {}</span><span>{}</span>\n", n.name, from, to, delta);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::Cell;
    use model::Direction;

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

    /// A node costs about what its numbers do: depth and bars only when not 0; the static page's
    /// view is the call tree alone (children and self are rows of its table), the app's all three,
    /// and a table with no call chains still shows its bars.
    #[test]
    fn profile_nodes_are_compact_and_the_page_shows_the_tree() {
        let p = |s: &str| format!("{CALLTRACE}{s}");
        let rows = vec![
            row(&p("entry"), 90.0, 0.0),
            row(&p("entry.write"), 40.0, 60.0),
            row("perf-profile.self.cycles-pp.memcpy", 3.0, 9.0),
            row("perf-profile.children.cycles-pp.write", 40.0, 60.0),
        ];
        let html = |rows: &[Row], all: bool| {
            let mut out = Html::new();
            profile_html(&mut out, rows, all);
            out.into_string()
        };
        let page = html(&rows, false);
        assert!(
            page.contains("<li class=m style=\"--b:100.0%\"><span>entry</span><span>90.00 → 0.00</span>"),
            "{page}"
        );
        assert!(page.contains("<li class=m style=\"--d:1;--b:44.4%;--h:66.7%\"><span>write</span>"), "{page}");
        let deep = html(&[row(&p("entry.ksys.read"), 2.0, 4.0)], false);
        assert!(
            deep.contains("<li><span>entry</span>\n<li style=\"--d:1\"><span>ksys</span>\n"),
            "frames no row measures: {deep}"
        );
        assert!(deep.contains("<span>read</span><span>2.00 → 4.00</span><span>+2.00</span>"), "{deep}");
        assert!(page.contains("profile-tree") && !page.contains("profile-self"), "{page}");
        let app = html(&rows, true);
        assert!(
            app.contains("profile-tree") && app.contains("profile-self") && app.contains("profile-children"),
            "{app}"
        );
        assert_eq!(html(&[row("perf-profile.cpu-cycles.memcpy", 3.0, 9.0)], true), "", "no empty view");
        let flat_only = html(&rows[2..], false);
        assert!(flat_only.contains("profile-children"), "{flat_only}");
        assert!(!flat_only.contains("profile-tree") && flat_only.contains("profile-self"), "{flat_only}");
    }
}
