//! The metric finder: which metric names a query matches (substring, or a glob with `*` and
//! `?`), ranked headline metrics first, then testcase KPIs, then the rest by name.

use crate::catalog::Catalog;
use crate::state::{FacetKey, ViewState};
use std::collections::BTreeSet;

/// A metric the finder lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub name: String,
    /// 0 headline metric, 1 KPI, 2 other.
    pub rank: u8,
}

/// Case-insensitive glob match of the whole text: `*` any run, `?` one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    // Iterative matcher with backtracking to the last `*`: linear in practice, never exponential.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether `name` matches the finder query: a glob when it has `*` or `?`, else a substring;
/// case-insensitive; an empty query matches everything.
pub fn matches(query: &str, name: &str) -> bool {
    let q = query.trim();
    if q.is_empty() {
        true
    } else if q.contains(['*', '?']) {
        glob_match(q, name)
    } else {
        name.to_lowercase().contains(&q.to_lowercase())
    }
}

/// Metric names the finder searches: those of the selected testcases, else of every testcase.
/// Returns the names with their rank, in display order.
pub fn candidates(cat: &Catalog, state: &ViewState) -> Vec<Hit> {
    let idx = &cat.index;
    let selected: BTreeSet<&String> = state.selected(&FacetKey::Testcase).collect();
    let testcases: Vec<&model::TestcaseInfo> =
        idx.testcases.iter().filter(|t| selected.is_empty() || selected.contains(&t.name)).collect();
    let headline: Vec<&str> = testcases.iter().flat_map(|t| t.headline_metrics.iter().map(|s| s.as_str())).collect();
    let metrics: BTreeSet<u32> = testcases.iter().flat_map(|t| t.metrics.iter().copied()).collect();
    let mut hits: Vec<Hit> = metrics
        .into_iter()
        .filter_map(|m| idx.metrics.get(m as usize))
        .map(|m| Hit {
            rank: if headline.contains(&m.name.as_str()) {
                0
            } else if m.kpi {
                1
            } else {
                2
            },
            name: m.name.clone(),
        })
        .collect();
    let headline_pos = |n: &str| headline.iter().position(|h| *h == n).unwrap_or(usize::MAX);
    model::order::sort_by(&mut hits, |a, b| {
        a.rank.cmp(&b.rank).then(headline_pos(&a.name).cmp(&headline_pos(&b.name))).then(a.name.cmp(&b.name))
    });
    hits
}

/// The candidates matching `query`, in display order (as `matches`, with the query prepared once).
pub fn search(candidates: &[Hit], query: &str) -> Vec<Hit> {
    let q = query.trim();
    if q.is_empty() {
        return candidates.to_vec();
    }
    if q.contains(['*', '?']) {
        return candidates.iter().filter(|h| glob_match(q, &h.name)).cloned().collect();
    }
    let q = q.to_lowercase();
    let mut lower = String::new();
    candidates
        .iter()
        .filter(|h| {
            if h.name.is_ascii() {
                lower.clear();
                lower.extend(h.name.chars().map(|c| c.to_ascii_lowercase()));
                lower.contains(&q)
            } else {
                h.name.to_lowercase().contains(&q)
            }
        })
        .cloned()
        .collect()
}

/// Keyboard navigation: the highlighted option after an arrow key, clamped to the list.
pub fn step(current: Option<usize>, len: usize, down: bool) -> Option<usize> {
    if len == 0 {
        return None;
    }
    Some(match (current, down) {
        (None, true) => 0,
        (None, false) => len - 1,
        (Some(i), true) => (i + 1).min(len - 1),
        (Some(i), false) => i.saturating_sub(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::tests::sample_index;

    #[test]
    fn globs() {
        for (p, t, ok) in [
            ("*", "", true),
            ("*", "abc", true),
            ("a*c", "abbbc", true),
            ("a*c", "abbbd", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("fio.*_iops", "fio.write_iops", true),
            ("fio.*_iops", "fio.write_iops_stddev", false),
            ("*IDLE%", "mpstat.cpu.all.idle%", true),
            ("**a**", "xxaxx", true),
            ("a*b*c*d*e*f*g*h", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false),
            ("日*", "日本語", true),
            ("a*", "a*b", true),
            ("*b", "a*b", true),
        ] {
            assert_eq!(glob_match(p, t), ok, "{p} {t}");
        }
    }

    #[test]
    fn substring_or_glob() {
        assert!(matches("", "x"));
        assert!(matches("  ", "x"));
        assert!(matches("WRITE", "blogbench.write_score"));
        assert!(!matches("write*", "blogbench.write_score"));
        assert!(matches("*write*", "blogbench.write_score"));
    }

    #[test]
    fn ranking_and_scope() {
        let cat = Catalog::new(sample_index());
        let names = |s: &ViewState| candidates(&cat, s).into_iter().map(|h| (h.name, h.rank)).collect::<Vec<_>>();
        let mut s = ViewState::default();
        s.toggle(&FacetKey::Testcase, "blogbench");
        assert_eq!(
            names(&s),
            [
                ("blogbench.write_score".into(), 0),
                ("blogbench.read_score".into(), 1),
                ("mpstat.cpu.all.idle%".into(), 2),
                ("vmstat.system.cs".into(), 2)
            ]
        );
        assert_eq!(names(&ViewState::default()).len(), 5);
        let hits = search(&candidates(&cat, &s), "score");
        assert_eq!(hits.len(), 2);
        assert_eq!(search(&candidates(&cat, &s), "*.cs").len(), 1);
    }

    #[test]
    fn arrow_keys() {
        assert_eq!(step(None, 0, true), None);
        assert_eq!(step(None, 3, true), Some(0));
        assert_eq!(step(None, 3, false), Some(2));
        assert_eq!(step(Some(2), 3, true), Some(2));
        assert_eq!(step(Some(0), 3, false), Some(0));
        assert_eq!(step(Some(1), 3, true), Some(2));
    }
}
