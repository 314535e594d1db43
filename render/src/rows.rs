//! A compare row: one metric's base and head observations and the change between them, as the
//! mails print it; which rows a table shows and in which order.

use model::stats::{format_change, format_value};
use model::{ChangeKind, Direction};

/// Sort order of the compare table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SortKey {
    /// The reports' headline changes first, then largest |change| first.
    #[default]
    Change,
    Name,
}

crate::spelled!(SortKey { Change => "change", Name => "name" });

/// One side of a row: an observation of the metric at a commit.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub mean: f64,
    pub stddev_pct: Option<f64>,
    pub runs: Option<u32>,
    /// Position in `Index::reports`.
    pub report: u32,
}

impl Cell {
    /// `10702 ± 3%` (stddev only when the report printed it).
    pub fn text(&self) -> String {
        match self.stddev_pct {
            Some(p) => format!("{} ± {p:.0}%", format_value(self.mean)),
            None => format_value(self.mean),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub metric: String,
    pub base: Option<Cell>,
    pub head: Option<Cell>,
    /// Change of head against base; `None` when a side is missing.
    pub change: Option<f64>,
    pub kind: ChangeKind,
    pub direction: Direction,
    /// The change is the one the report printed (head and base from the same table).
    pub stated: bool,
}

impl Row {
    /// The change as lkp prints it: `+5.2%`, `-7.2` (absolute), `+33%` (reproduction).
    pub fn change_text(&self) -> String {
        self.change.map_or_else(String::new, |c| format_change(c, self.kind))
    }

    pub fn namespace(&self) -> &str {
        namespace(&self.metric)
    }
}

/// The namespace of a metric: what comes before the first `.` (`perf-stat`, `vmstat`, ...).
pub fn namespace(metric: &str) -> &str {
    metric.split_once('.').map_or(metric, |(ns, _)| ns)
}

/// Namespaces present in `rows`, sorted, with counts.
pub fn namespaces(rows: &[Row]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut names: Vec<&str> = rows.iter().map(|r| r.namespace()).collect();
    model::order::sort(&mut names);
    for n in names {
        match out.last_mut() {
            Some((last, c)) if last == n => *c += 1,
            _ => out.push((n.to_string(), 1)),
        }
    }
    out
}

/// Filter and order rows for display; returns indices into `rows`. Rows without a change sort
/// after every row with one.
pub fn view(rows: &[Row], ns: Option<&str>, dir: Option<Direction>, sort: SortKey) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..rows.len())
        .filter(|&i| ns.is_none_or(|n| rows[i].namespace() == n))
        .filter(|&i| dir.is_none_or(|d| rows[i].direction == d && rows[i].change.is_some()))
        .collect();
    match sort {
        SortKey::Name => model::order::sort_by(&mut idx, |&a, &b| rows[a].metric.cmp(&rows[b].metric)),
        SortKey::Change => model::order::sort_by(&mut idx, |&a, &b| {
            let key = |r: &Row| r.change.filter(|c| !c.is_nan()).map(|c| c.abs());
            match (key(&rows[a]), key(&rows[b])) {
                (Some(x), Some(y)) => y.total_cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
            .then_with(|| rows[a].metric.cmp(&rows[b].metric))
        }),
    }
    idx
}
