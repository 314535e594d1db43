//! The whole shareable view state and its URL query form: `ViewState::parse` and
//! `ViewState::to_query` are exact inverses (`parse(&s.to_query()) == (s, [])`).
//!
//! Everything is named by stable keys (testcase names, parameter values, metric names, commit
//! and job ids), never by positions, so a link survives a rebuild of the data with more reports.
//! This module knows nothing of the index: checking that the names exist is `catalog::resolve`.

use model::Direction;
pub use render::rows::SortKey;
use std::collections::{BTreeMap, BTreeSet};

/// A filter facet: the testcase, the machine group, or one job parameter.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FacetKey {
    Testcase,
    Machine,
    Param(String),
}

impl FacetKey {
    /// The name shown above the facet and used in `data-testid="facet-<name>"`.
    pub fn name(&self) -> &str {
        match self {
            FacetKey::Testcase => "testcase",
            FacetKey::Machine => "machine",
            FacetKey::Param(k) => k,
        }
    }

    /// The query key: `testcase`, `machine`, `p.<param>`.
    fn query_key(&self) -> String {
        match self {
            FacetKey::Testcase => "testcase".into(),
            FacetKey::Machine => "machine".into(),
            FacetKey::Param(k) => format!("p.{}", encode(k)),
        }
    }
}

/// The view tab.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Tab {
    /// The reports list, newest first, with one report open: the first screen.
    #[default]
    Reports,
    Trend,
    Compare,
    /// Every stated or detected change of the selected testcases.
    Changes,
    /// The bins of a latency histogram family, base against head.
    Dist,
}

impl Tab {
    /// The `view=` value; `None` when absent from the query. Without `view=`, a query naming a
    /// metric is the trend (links from before the reports list keep their meaning), else the
    /// reports list: so each tab is written only where the other would be read.
    fn query_value(self, has_metric: bool) -> Option<&'static str> {
        match self {
            Tab::Reports if !has_metric => None,
            Tab::Trend if has_metric => None,
            tab => Some(tab.as_str()),
        }
    }
}

/// Changes view: where a change comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFilter {
    Stated,
    Detected,
}

/// Changes view: significance of a change (Welch's p-value against 0.05).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SigFilter {
    /// p < 0.05.
    Significant,
    /// p ≥ 0.05.
    NotSignificant,
    /// No p-value: the report does not state run counts.
    Unknown,
}

/// Sort order of the Changes view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ChangesSort {
    /// The reports' headline changes first, then largest |change| first.
    #[default]
    Change,
    /// Largest noise ratio first (changes without one last).
    Noise,
    /// Metric name, then |change|.
    Metric,
    /// Newest head commit first.
    Commit,
}

render::spelled!(Tab { Reports => "reports", Trend => "trend", Compare => "compare", Changes => "changes", Dist => "dist" });
render::spelled!(SourceFilter { Stated => "stated", Detected => "detected" });
render::spelled!(SigFilter { Significant => "significant", NotSignificant => "not-significant", Unknown => "unknown" });
render::spelled!(ChangesSort { Change => "change", Noise => "noise", Metric => "metric", Commit => "commit" });

/// A non-negative decimal with at most two decimals (`2.5`, `0.05`, `12`), held exactly as an
/// integer count of hundredths so that its text form round-trips without float parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hundredths(pub u32);

impl Hundredths {
    pub fn value(self) -> f64 {
        self.0 as f64 / 100.0
    }

    /// `12`, `2.5`, `.5`, `0.05`; decimals past the second are cut. `None` for anything else
    /// (signs, exponents, empty, more than 7 integer digits).
    pub fn parse(s: &str) -> Option<Hundredths> {
        let s = s.trim();
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) || int.len() > 7 {
            return None;
        }
        let int: u32 = if int.is_empty() { 0 } else { int.parse().ok()? };
        let f = frac.as_bytes();
        let d = |i: usize| f.get(i).map_or(0, |b| (b - b'0') as u32);
        Some(Hundredths(int * 100 + d(0) * 10 + d(1)))
    }
}

impl std::fmt::Display for Hundredths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (int, frac) = (self.0 / 100, self.0 % 100);
        match frac {
            0 => write!(f, "{int}"),
            x if x % 10 == 0 => write!(f, "{int}.{}", x / 10),
            x => write!(f, "{int}.{x:02}"),
        }
    }
}

/// The Changes view's filters and order (query keys `ch.*`). Kept apart from the compare
/// table's `ns`/`dir`/`sort` so that one view's filters never hide rows of the other.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangesFilter {
    /// Metric namespace (what comes before the first `.`).
    pub ns: Option<String>,
    pub dir: Option<Direction>,
    pub source: Option<SourceFilter>,
    pub sig: Option<SigFilter>,
    /// Minimum |change| (percent or absolute, as the change is printed).
    pub min: Option<Hundredths>,
    /// Minimum noise ratio: |change| in units of the noise (the stated stddev for a report's
    /// change, the series' commit-to-commit noise for a detected step). Changes without one are hidden.
    pub noise: Option<Hundredths>,
    /// Only the changes a report's headline names.
    pub headline: bool,
    pub sort: ChangesSort,
}

/// Everything a permalink must restore. Invariant: no facet holds an empty set (a facet
/// without selection is absent), so that every state has exactly one query form.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewState {
    pub tab: Tab,
    /// Selected facet values; a job matches when it matches every facet present.
    pub facets: BTreeMap<FacetKey, BTreeSet<String>>,
    /// Metric shown in the trend chart.
    pub metric: Option<String>,
    /// Job ids explicitly shown in the trend; empty means every job matching the facets.
    pub jobs: BTreeSet<String>,
    /// Commit range of the trend (commit ids, inclusive).
    pub from: Option<String>,
    pub to: Option<String>,
    /// Selected commit (commit panel), the job and report (id, `rid=`) it was selected from.
    pub commit: Option<String>,
    pub job: Option<String>,
    pub report: Option<String>,
    /// The report open on the reports list (`report=`): its Message-ID, or its report id when it
    /// has none. `None`: the newest report.
    pub open: Option<String>,
    /// The row of the open report whose record is shown (`row=`, its metric).
    pub row: Option<String>,
    /// The search box's text (`q=`).
    pub q: Option<String>,
    /// Compare table: base and head commit ids.
    pub base: Option<String>,
    pub head: Option<String>,
    /// Compare table: metric namespace filter (`vmstat`, `perf-stat`, ...).
    pub ns: Option<String>,
    /// Compare table: direction filter.
    pub dir: Option<Direction>,
    pub sort: SortKey,
    /// Changes view filters and order.
    pub changes: ChangesFilter,
}

impl ViewState {
    /// Nothing is chosen but the tab (one comparison, not inlined at each caller: the first
    /// screen's module carries it once).
    #[inline(never)]
    pub fn chooses_nothing(&self) -> bool {
        *self == ViewState { tab: self.tab, ..ViewState::default() }
    }

    /// Open a report on the Reports tab: `key` is its permalink key (Message-ID, else id).
    pub fn open_report(&mut self, key: String) {
        self.tab = Tab::Reports;
        self.open = Some(key);
        self.row = None;
    }

    /// The trend of `metric` in `testcase`, of `job` only (else of every job of the testcase):
    /// the one rule of every "trend" link. The other facets stay only when `keep_facets` (the
    /// caller saw that the job matches them); the commit range of another trend does not apply.
    pub fn show_trend(&mut self, testcase: String, metric: String, job: Option<String>, keep_facets: bool) {
        if !keep_facets {
            self.facets.clear();
        }
        self.tab = Tab::Trend;
        self.facets.insert(FacetKey::Testcase, [testcase].into());
        self.metric = Some(metric);
        self.jobs.clear();
        self.jobs.extend(job);
        self.from = None;
        self.to = None;
    }

    /// Toggle one facet value, keeping the no-empty-set invariant.
    pub fn toggle(&mut self, key: &FacetKey, value: &str) {
        let set = self.facets.entry(key.clone()).or_default();
        if !set.remove(value) {
            set.insert(value.to_string());
        }
        if set.is_empty() {
            self.facets.remove(key);
        }
    }

    /// Selected values of a facet (empty when none).
    pub fn selected(&self, key: &FacetKey) -> impl Iterator<Item = &String> {
        self.facets.get(key).into_iter().flatten()
    }

    pub fn is_selected(&self, key: &FacetKey, value: &str) -> bool {
        self.facets.get(key).is_some_and(|s| s.contains(value))
    }

    /// The query string (without `?`); empty for the default state: `view`, the facets, then
    /// every key of `KEYS` in its order.
    pub fn to_query(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        if let Some(v) = self.tab.query_value(self.metric.is_some()) {
            out.push(format!("view={}", encode(v)));
        }
        for (key, values) in &self.facets {
            out.push(format!("{}={}", key.query_key(), join(values)));
        }
        for k in KEYS {
            if let Some(v) = k.write(self) {
                out.push(format!("{}={v}", k.name));
            }
        }
        out.join("&")
    }

    /// Parse a query string (with or without `?`). Never fails: what cannot be understood is
    /// dropped and named in the returned notices.
    pub fn parse(query: &str) -> (ViewState, Vec<String>) {
        let mut s = ViewState::default();
        let mut notices = Vec::new();
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut view_given = false;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (raw_key, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
            let Some(key) = decode(raw_key) else {
                notices.push(format!("dropped a parameter whose name is not valid UTF-8: {}", shorten(pair)));
                continue;
            };
            let values = raw_value.split(',').map(decode).collect::<Option<Vec<String>>>();
            let Some(values) = values else {
                notices.push(format!("dropped parameter `{}`: its value is not valid UTF-8", shorten(&key)));
                continue;
            };
            let single = decode(raw_value).unwrap_or_default();
            match key.as_str() {
                "view" => match single.parse() {
                    Ok(t) => (s.tab, view_given) = (t, true),
                    Err(()) => notices.push(format!("unknown view `{}` ignored", shorten(&single))),
                },
                "testcase" => s.facets.entry(FacetKey::Testcase).or_default().extend(values),
                "machine" => s.facets.entry(FacetKey::Machine).or_default().extend(values),
                k => match (KEYS.iter().find(|q| q.name == k), k.strip_prefix("p.")) {
                    (Some(q), _) => q.read(&mut s, single, values, &mut notices),
                    (None, Some(param)) if !param.is_empty() => {
                        s.facets.entry(FacetKey::Param(param.to_string())).or_default().extend(values)
                    }
                    _ => notices.push(format!("unknown parameter `{}` ignored", shorten(k))),
                },
            }
        }
        if !view_given && s.metric.is_some() {
            s.tab = Tab::Trend;
        }
        (s, notices)
    }
}

/// One query key of `KEYS` and its slot in the view state: how it is written and read back, in
/// one place, so that `parse` and `to_query` are inverses by construction.
struct QueryKey {
    name: &'static str,
    slot: Slot,
}

enum Slot {
    /// One text value; given twice, the last one is used (and named in a notice).
    Text(fn(&ViewState) -> &Option<String>, fn(&mut ViewState) -> &mut Option<String>),
    /// A set of text values, `,`-separated.
    Set(fn(&ViewState) -> &BTreeSet<String>, fn(&mut ViewState) -> &mut BTreeSet<String>),
    /// A value with a spelling: `None` when the state holds the default; reading gives the notice
    /// when the text is not one.
    Spelled(fn(&ViewState) -> Option<String>, fn(&mut ViewState, &str) -> Result<(), String>),
}

impl QueryKey {
    /// The value's query form, `None` when the key is absent.
    fn write(&self, s: &ViewState) -> Option<String> {
        match &self.slot {
            Slot::Text(get, _) => get(s).as_deref().map(encode),
            Slot::Set(get, _) => Some(get(s)).filter(|v| !v.is_empty()).map(join),
            Slot::Spelled(get, _) => get(s).map(|v| encode(&v)),
        }
    }

    /// Read the key's decoded value (`single`, or its `,`-separated `values`) into `s`.
    fn read(&self, s: &mut ViewState, single: String, values: Vec<String>, notices: &mut Vec<String>) {
        match &self.slot {
            Slot::Text(_, slot) => {
                if slot(s).replace(single).is_some() {
                    notices.push(format!("parameter `{}` given twice: the last one is used", self.name));
                }
            }
            Slot::Set(_, slot) => slot(s).extend(values),
            Slot::Spelled(_, set) => {
                if let Err(n) = set(s, &single) {
                    notices.push(n);
                }
            }
        }
    }
}

/// `value` into `slot`, or the notice why not.
fn put<T>(slot: &mut T, value: Result<T, String>) -> Result<(), String> {
    *slot = value?;
    Ok(())
}

/// A text key of field `$($f).+`.
macro_rules! text {
    ($name:literal, $($f:ident).+) => {
        QueryKey { name: $name, slot: Slot::Text(|s| &s.$($f).+, |s| &mut s.$($f).+) }
    };
}

/// Every query key but `view` and the facets, in the order `to_query` writes them.
const KEYS: &[QueryKey] = &[
    text!("metric", metric),
    QueryKey { name: "jobs", slot: Slot::Set(|s| &s.jobs, |s| &mut s.jobs) },
    text!("from", from),
    text!("to", to),
    text!("commit", commit),
    text!("job", job),
    text!("rid", report),
    text!("report", open),
    text!("row", row),
    text!("q", q),
    text!("base", base),
    text!("head", head),
    text!("ns", ns),
    QueryKey {
        name: "dir",
        slot: Slot::Spelled(|s| s.dir.map(|d| d.as_str().into()), |s, v| put(&mut s.dir, parse_direction(v).map(Some))),
    },
    QueryKey {
        name: "sort",
        slot: Slot::Spelled(
            |s| (s.sort != SortKey::default()).then(|| s.sort.as_str().into()),
            |s, v| put(&mut s.sort, v.parse().map_err(|()| format!("unknown sort `{}` ignored", shorten(v)))),
        ),
    },
    text!("ch.ns", changes.ns),
    QueryKey {
        name: "ch.dir",
        slot: Slot::Spelled(
            |s| s.changes.dir.map(|d| d.as_str().into()),
            |s, v| put(&mut s.changes.dir, parse_direction(v).map(Some)),
        ),
    },
    QueryKey {
        name: "ch.source",
        slot: Slot::Spelled(
            |s| s.changes.source.map(|v| v.as_str().into()),
            |s, v| {
                let bad = |()| format!("unknown change source `{}` ignored", shorten(v));
                put(&mut s.changes.source, v.parse().map(Some).map_err(bad))
            },
        ),
    },
    QueryKey {
        name: "ch.sig",
        slot: Slot::Spelled(
            |s| s.changes.sig.map(|v| v.as_str().into()),
            |s, v| {
                let bad = |()| format!("unknown significance `{}` ignored", shorten(v));
                put(&mut s.changes.sig, v.parse().map(Some).map_err(bad))
            },
        ),
    },
    QueryKey {
        name: "ch.min",
        slot: Slot::Spelled(
            |s| s.changes.min.map(|v| v.to_string()),
            |s, v| {
                let bad = || format!("minimum change `{}` is not a number ≥ 0: ignored", shorten(v));
                put(&mut s.changes.min, Hundredths::parse(v).map(Some).ok_or_else(bad))
            },
        ),
    },
    QueryKey {
        name: "ch.noise",
        slot: Slot::Spelled(
            |s| s.changes.noise.map(|v| v.to_string()),
            |s, v| {
                let bad = || format!("minimum noise ratio `{}` is not a number ≥ 0: ignored", shorten(v));
                put(&mut s.changes.noise, Hundredths::parse(v).map(Some).ok_or_else(bad))
            },
        ),
    },
    QueryKey {
        name: "ch.headline",
        slot: Slot::Spelled(
            |s| s.changes.headline.then(|| "1".into()),
            |s, v| match v {
                "1" => put(&mut s.changes.headline, Ok(true)),
                "0" => put(&mut s.changes.headline, Ok(false)),
                other => Err(format!("`ch.headline={}` ignored (1 or 0)", shorten(other))),
            },
        ),
    },
    QueryKey {
        name: "ch.sort",
        slot: Slot::Spelled(
            |s| (s.changes.sort != ChangesSort::default()).then(|| s.changes.sort.as_str().into()),
            |s, v| put(&mut s.changes.sort, v.parse().map_err(|()| format!("unknown sort `{}` ignored", shorten(v)))),
        ),
    },
];

fn parse_direction(v: &str) -> Result<Direction, String> {
    v.parse().map_err(|()| format!("unknown direction `{}` ignored", shorten(v)))
}

fn join(values: &BTreeSet<String>) -> String {
    values.iter().map(|v| encode(v)).collect::<Vec<_>>().join(",")
}

/// Cut a user-supplied string for a notice, on a character boundary.
fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Percent-encode everything but a readable safe set: letters, digits and `-._~:@/!*()'`. `,`
/// is the list separator and `%`, `&`, `=`, `+`, `#` are syntax, so all of them are encoded
/// inside values.
pub fn encode(s: &str) -> String {
    model::paths::query_value(s)
}

/// Decode `%XX` escapes and `+` (a space, as forms write it). A `%` not followed by two hex
/// digits stays literal. `None` when the bytes are not UTF-8.
pub fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() && hex(bytes[i + 1]).is_some() && hex(bytes[i + 2]).is_some() => {
                out.push(hex(bytes[i + 1]).unwrap_or(0) * 16 + hex(bytes[i + 2]).unwrap_or(0));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// A static report page's address split into the site's root and the report's key: `…/m/<key>/`
/// (or `…/m/<key>/index.html`), the key percent-decoded (`+` is itself in a path).
fn page_of(path: &str) -> Option<(&str, String)> {
    let p = path.strip_suffix("index.html").unwrap_or(path);
    let p = p.strip_suffix('/')?;
    let (before, seg) = p.rsplit_once('/')?;
    let root = before.strip_suffix("/m")?;
    let key = decode(&seg.replace('+', "%2B")).filter(|k| !k.is_empty())?;
    Some((&path[..root.len() + 1], key))
}

/// The view state's query of an address: its query, or on a report's static page (`m/<key>/`)
/// with no query, that report open.
pub fn page_query(path: &str, query: &str) -> String {
    match page_of(path) {
        Some((_, key)) if query.is_empty() => ViewState { open: Some(key), ..Default::default() }.to_query(),
        _ => query.to_string(),
    }
}

/// The address to write for `query` at `path`: a report's page keeps its own address while the
/// query is that report alone (its permalink stays as it was opened); any other view goes to the
/// site's root with its query.
pub fn page_url(path: &str, query: &str) -> String {
    let root = match page_of(path) {
        Some(_) if page_query(path, "") == query => return path.to_string(),
        Some((root, _)) => root,
        None => path,
    };
    if query.is_empty() {
        root.to_string()
    } else {
        format!("{root}?{query}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lore link with its host swapped opens the report's page; the app reads it as that
    /// report open and keeps the address while nothing else is chosen.
    #[test]
    fn a_report_pages_address_is_its_report_open() {
        let mid = "202512011530.5e2b8c9a-lkp+x@intel.com";
        for path in [format!("/m/{mid}/"), format!("/sub/dir/m/{mid}/index.html")] {
            let q = page_query(&path, "");
            assert_eq!(ViewState::parse(&q).0.open.as_deref(), Some(mid), "{path}");
            assert_eq!(page_url(&path, &q), path, "the page keeps its address");
            let root = if path.starts_with("/sub") { "/sub/dir/" } else { "/" };
            assert_eq!(page_url(&path, "view=trend&metric=x"), format!("{root}?view=trend&metric=x"));
            assert_eq!(page_url(&path, ""), root);
            assert_eq!(page_query(&path, "view=compare"), "view=compare", "a query says it all");
        }
        assert_eq!(page_query("/m/a%40b/", ""), page_query("/m/a@b/", ""));
        for other in ["/", "/index.html", "/x/m/", "/m//", "/p/all/", "/m/a@b"] {
            assert_eq!(page_query(other, ""), "", "{other}");
            assert_eq!(page_url(other, "q=1"), format!("{other}?q=1"), "{other}");
        }
    }

    #[test]
    fn every_trend_link_goes_the_same_way() {
        let (mut s, _) = ViewState::parse("view=compare&testcase=a&machine=m1&metric=x&from=c1&to=c2&jobs=j9");
        s.show_trend("b".into(), "y".into(), Some("j1".into()), true);
        assert_eq!(s.to_query(), "testcase=b&machine=m1&metric=y&jobs=j1", "facets kept, range and jobs replaced");
        s.show_trend("c".into(), "z".into(), None, false);
        assert_eq!(s.to_query(), "testcase=c&metric=z", "facets cleared, every job");
        assert_eq!(ViewState::parse(&s.to_query()).0, s);
        s.open_report("m@x".into());
        assert_eq!((s.tab, s.open.as_deref()), (Tab::Reports, Some("m@x")));
    }

    #[test]
    fn a_rows_record_is_in_the_address_and_goes_with_its_report() {
        let (mut s, notes) = ViewState::parse("report=m%40x&row=perf-stat.ipc%2Cx");
        assert_eq!((s.open.as_deref(), s.row.as_deref(), notes.len()), (Some("m@x"), Some("perf-stat.ipc,x"), 0));
        assert_eq!(s.to_query(), "report=m@x&row=perf-stat.ipc%2Cx");
        roundtrip(&s);
        assert_eq!(
            page_url("/m/m@x/", &s.to_query()),
            "/?report=m@x&row=perf-stat.ipc%2Cx",
            "the page's own address is the report alone"
        );
        s.open_report("other@x".into());
        assert_eq!(s.row, None, "another report: its rows are other rows");
    }

    #[test]
    fn every_spelling_parses_back_and_nothing_else_does() {
        fn check<T: Copy + PartialEq + std::fmt::Debug + std::str::FromStr<Err = ()>>(
            all: &[T],
            str_of: fn(T) -> &'static str,
        ) {
            for &v in all {
                assert_eq!(str_of(v).parse::<T>(), Ok(v));
            }
            let names: BTreeSet<&str> = all.iter().map(|&v| str_of(v)).collect();
            assert_eq!(names.len(), all.len(), "spellings are distinct");
            for bad in ["", "Change", "name ", "significant!", "regressions"] {
                assert_eq!(bad.parse::<T>(), Err(()), "{bad:?}");
            }
        }
        check(SortKey::ALL, SortKey::as_str);
        check(SourceFilter::ALL, SourceFilter::as_str);
        check(SigFilter::ALL, SigFilter::as_str);
        check(ChangesSort::ALL, ChangesSort::as_str);
        check(&[Direction::Regression, Direction::Improvement, Direction::Undefined], Direction::as_str);
        // the URL says them the same way
        for &sort in ChangesSort::ALL {
            let s = ViewState { changes: ChangesFilter { sort, ..Default::default() }, ..Default::default() };
            assert_eq!(ViewState::parse(&s.to_query()).0, s);
        }
    }

    fn roundtrip(s: &ViewState) {
        let q = s.to_query();
        let (back, notices) = ViewState::parse(&q);
        assert_eq!(&back, s, "query {q}");
        assert!(notices.is_empty(), "{q}: {notices:?}");
        assert_eq!(back.to_query(), q);
    }

    #[test]
    fn default_state_is_the_empty_query() {
        assert_eq!(ViewState::default().to_query(), "");
        assert_eq!(ViewState::parse(""), (ViewState::default(), vec![]));
        assert_eq!(ViewState::parse("?"), (ViewState::default(), vec![]));
        assert_eq!(ViewState::parse("&&"), (ViewState::default(), vec![]));
    }

    #[test]
    fn reports_and_trend_share_the_bare_query() {
        for (tab, metric, open, q, query) in [
            (Tab::Reports, None, None, None, ""),
            (Tab::Reports, None, Some("a@b.c"), None, "report=a@b.c"),
            (Tab::Reports, None, None, Some("btrfs regression"), "q=btrfs%20regression"),
            (Tab::Reports, Some("fio.write_iops"), None, None, "view=reports&metric=fio.write_iops"),
            (Tab::Trend, Some("fio.write_iops"), None, None, "metric=fio.write_iops"),
            (Tab::Trend, None, None, None, "view=trend"),
        ] {
            let s = ViewState {
                tab,
                metric: metric.map(String::from),
                open: open.map(String::from),
                q: q.map(String::from),
                ..Default::default()
            };
            assert_eq!(s.to_query(), query);
            roundtrip(&s);
        }
        // the commit panel's report is `rid=`
        let s = ViewState { tab: Tab::Trend, report: Some("r1".into()), ..Default::default() };
        assert_eq!(s.to_query(), "view=trend&rid=r1");
        roundtrip(&s);
    }

    #[test]
    fn readable_query() {
        let mut s = ViewState::default();
        s.toggle(&FacetKey::Testcase, "blogbench");
        s.toggle(&FacetKey::Param("fs".into()), "xfs");
        s.toggle(&FacetKey::Param("fs".into()), "ext4");
        s.metric = Some("mpstat.cpu.all.idle%".into());
        s.tab = Tab::Compare;
        s.dir = Some(Direction::Regression);
        assert_eq!(
            s.to_query(),
            "view=compare&testcase=blogbench&p.fs=ext4,xfs&metric=mpstat.cpu.all.idle%25&dir=regression"
        );
        roundtrip(&s);
    }

    #[test]
    fn changes_view_query() {
        let mut s = ViewState { tab: Tab::Changes, ..Default::default() };
        s.toggle(&FacetKey::Testcase, "blogbench");
        assert_eq!(s.to_query(), "view=changes&testcase=blogbench");
        s.changes = ChangesFilter {
            ns: Some("perf-stat".into()),
            dir: Some(Direction::Improvement),
            source: Some(SourceFilter::Detected),
            sig: Some(SigFilter::NotSignificant),
            min: Some(Hundredths(250)),
            noise: Some(Hundredths(400)),
            headline: true,
            sort: ChangesSort::Noise,
        };
        assert_eq!(
            s.to_query(),
            "view=changes&testcase=blogbench&ch.ns=perf-stat&ch.dir=improvement&ch.source=detected\
             &ch.sig=not-significant&ch.min=2.5&ch.noise=4&ch.headline=1&ch.sort=noise"
        );
        roundtrip(&s);
        // The compare table's filters are other keys: each view keeps its own.
        s.dir = Some(Direction::Regression);
        s.ns = Some("vmstat".into());
        roundtrip(&s);
        for min in [0, 1, 5, 10, 99, 100, 250, 1234567, 999_999_999] {
            s.changes.min = Some(Hundredths(min));
            roundtrip(&s);
        }
        for (text, h) in [("12", 1200), ("2.5", 250), (".5", 50), ("0.05", 5), ("1.999", 199), (" 3. ", 300)] {
            assert_eq!(Hundredths::parse(text), Some(Hundredths(h)), "{text}");
        }
        for bad in ["", ".", "-1", "+1", "1e3", "NaN", "inf", "1.2.3", "12345678", "x"] {
            assert_eq!(Hundredths::parse(bad), None, "{bad}");
        }
        assert_eq!((Hundredths(5).to_string(), Hundredths(250).value()), ("0.05".to_string(), 2.5));
        let dist = ViewState { tab: Tab::Dist, metric: Some("fio.latency_2ms%".into()), ..Default::default() };
        assert_eq!(dist.to_query(), "view=dist&metric=fio.latency_2ms%25");
        roundtrip(&dist);
    }

    #[test]
    fn changes_view_garbage() {
        for (q, n) in [
            ("ch.min=-1", 1),
            ("ch.min=NaN", 1),
            ("ch.min=inf", 1),
            ("ch.min=abc", 1),
            ("ch.noise=-2", 1),
            ("ch.sig=maybe&ch.source=oracle", 2),
            ("ch.headline=yes", 1),
            ("ch.sort=size&ch.dir=up", 2),
            ("ch.ns=a&ch.ns=b", 1),
            ("ch.bogus=1", 1),
        ] {
            let (s, notices) = ViewState::parse(q);
            assert_eq!(notices.len(), n, "{q}: {notices:?}");
            roundtrip(&s);
        }
        let (s, _) = ViewState::parse("ch.headline=0&ch.sort=change&ch.min=1.50");
        assert_eq!(s.to_query(), "ch.min=1.5");
    }

    #[test]
    fn toggling_keeps_no_empty_sets() {
        let mut s = ViewState::default();
        s.toggle(&FacetKey::Machine, "lkp-icl-2sp9");
        s.toggle(&FacetKey::Machine, "lkp-icl-2sp9");
        assert_eq!(s, ViewState::default());
    }

    #[test]
    fn awkward_values_roundtrip() {
        let nasty = [
            "",
            " ",
            ",",
            ",,",
            "a,b",
            "%",
            "%25",
            "%zz",
            "+",
            "a+b",
            "&",
            "=",
            "#frag",
            "?",
            "ü",
            "日本語",
            "a b\tc",
            "perf-profile.calltrace.cycles-pp.__x64_sys_write",
            "p.fs",
            "\u{0}",
            "😀,😀",
            "100%",
        ];
        for v in nasty {
            let mut s = ViewState::default();
            s.toggle(&FacetKey::Param(format!("k{v}")), v);
            s.toggle(&FacetKey::Testcase, v);
            s.metric = Some(v.into());
            s.commit = Some(v.into());
            s.jobs.insert(v.into());
            s.jobs.insert(format!("{v}x"));
            roundtrip(&s);
        }
    }

    #[test]
    fn garbage_is_dropped_with_notices() {
        for (q, n) in [
            ("foo=1", 1),
            ("view=pie", 1),
            ("dir=sideways&sort=size", 2),
            ("p.=x", 1),
            ("%ff%fe=1", 1),
            ("metric=%c3%28", 1),
            ("metric=a&metric=b", 1),
            ("=&=&x", 3),
            ("metric=%", 0),
            ("metric=%4", 0),
        ] {
            let (_, notices) = ViewState::parse(q);
            assert_eq!(notices.len(), n, "{q}: {notices:?}");
        }
        assert_eq!(ViewState::parse("metric=%").0.metric.as_deref(), Some("%"));
        assert_eq!(ViewState::parse("metric=a+b").0.metric.as_deref(), Some("a b"));
        assert_eq!(ViewState::parse("metric=a&metric=b").0.metric.as_deref(), Some("b"));
        assert_eq!(ViewState::parse("metric=%E6%97%A5").0.metric.as_deref(), Some("日"));
        let long = "x".repeat(500);
        let (_, n) = ViewState::parse(&format!("{long}=1"));
        assert!(n[0].len() < 100);
    }

    #[test]
    fn non_canonical_queries_canonicalise() {
        let (s, _) = ViewState::parse("?p.fs=xfs&testcase=b,a&p.fs=ext4&view=reports&sort=change");
        assert_eq!(s.to_query(), "testcase=a,b&p.fs=ext4,xfs");
    }

    /// A tiny deterministic generator (xorshift) so that the property loop needs no crate.
    struct Gen(u64);
    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[(self.next() % xs.len() as u64) as usize]
        }
        fn string(&mut self) -> String {
            let atoms =
                ["a", "fs", "xfs", "%", ",", "&", "=", "+", " ", "é", "日", "😀", "", ".", "*", "?", "#", "/", "p."];
            (0..self.next() % 5).map(|_| self.pick(&atoms)).collect()
        }
        fn opt(&mut self) -> Option<String> {
            (!self.next().is_multiple_of(3)).then(|| self.string())
        }
        fn values(&mut self) -> BTreeSet<String> {
            (0..1 + self.next() % 3).map(|_| self.string()).collect()
        }
    }

    #[test]
    fn property_roundtrip_over_generated_states() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3000 {
            let changes = ChangesFilter {
                ns: g.opt(),
                dir: [None, Some(Direction::Regression), Some(Direction::Undefined)][(g.next() % 3) as usize],
                source: [None, Some(SourceFilter::Stated), Some(SourceFilter::Detected)][(g.next() % 3) as usize],
                sig: [None, Some(SigFilter::Significant), Some(SigFilter::NotSignificant), Some(SigFilter::Unknown)]
                    [(g.next() % 4) as usize],
                min: [None, Some(Hundredths(0)), Some(Hundredths((g.next() % 100_000) as u32))]
                    [(g.next() % 3) as usize],
                noise: [None, Some(Hundredths((g.next() % 2_000) as u32))][(g.next() % 2) as usize],
                headline: g.next().is_multiple_of(2),
                sort: [ChangesSort::Change, ChangesSort::Noise, ChangesSort::Metric, ChangesSort::Commit]
                    [(g.next() % 4) as usize],
            };
            let mut s = ViewState {
                tab: [Tab::Trend, Tab::Compare, Tab::Changes, Tab::Dist][(g.next() % 4) as usize],
                changes,
                sort: if g.next().is_multiple_of(2) { SortKey::Change } else { SortKey::Name },
                dir: match g.next() % 4 {
                    0 => None,
                    1 => Some(Direction::Regression),
                    2 => Some(Direction::Improvement),
                    _ => Some(Direction::Undefined),
                },
                metric: g.opt(),
                from: g.opt(),
                to: g.opt(),
                commit: g.opt(),
                job: g.opt(),
                report: g.opt(),
                base: g.opt(),
                head: g.opt(),
                ns: g.opt(),
                ..Default::default()
            };
            for _ in 0..g.next() % 4 {
                let key = match g.next() % 3 {
                    0 => FacetKey::Testcase,
                    1 => FacetKey::Machine,
                    _ => FacetKey::Param(format!("k{}", g.string())),
                };
                let vals = g.values();
                s.facets.insert(key, vals);
            }
            if g.next().is_multiple_of(2) {
                s.jobs = g.values();
            }
            roundtrip(&s);
        }
    }

    #[test]
    fn parse_never_panics_on_random_bytes() {
        let mut g = Gen(42);
        let alphabet = b"ab=&,%+?#pP.09fFzZ\xc3\xa9 ";
        for _ in 0..5000 {
            let bytes: Vec<u8> =
                (0..g.next() % 30).map(|_| alphabet[(g.next() % alphabet.len() as u64) as usize]).collect();
            let q = String::from_utf8_lossy(&bytes);
            let (s, _) = ViewState::parse(&q);
            // Whatever was understood round-trips from then on.
            roundtrip(&s);
        }
    }
}
