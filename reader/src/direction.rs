//! The lkp-tests data lists shipped in `reader/data/` (unedited GPL-2.0 copies of lkp-tests'
//! `etc/`, see its README), embedded and compiled here, once: no other module reads that
//! directory. With them, the rules that are nothing but a lookup in them: which way is better for
//! a metric, lkp's `function_stat?`, `perf_metric?`, `bisectable_stat?`, the thresholds of a
//! reasonable change, how a run's samples reduce to one number, and lkp's incomplete-run rule,
//! which the result-root reader and the comparer both apply.
//!
//! Direction: lkp (`kpi_stat_direction` in `lib/stats.rb`) takes the first key of
//! `index-perf-all.yaml`, in file order, that matches the whole stat name (`/^#{key}$/`); only when
//! none does, the first key of `index-latency-all.yaml`. The sign of its weight is the direction.
//! We keep that precedence: one `RegexSet` over both lists in that order, and the lowest matching
//! index wins.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};

const INDEX_PERF_ALL: &str = include_str!("../data/index-perf-all.yaml");
const INDEX_LATENCY_ALL: &str = include_str!("../data/index-latency-all.yaml");
const FAILURE: &str = include_str!("../data/failure");
const PASS: &str = include_str!("../data/pass");
const PERF_METRICS_PREFIXES: &str = include_str!("../data/perf-metrics-prefixes");
const PERF_METRICS_PATTERNS: &str = include_str!("../data/perf-metrics-patterns");
const PERF_METRICS_THRESHOLD: &str = include_str!("../data/perf-metrics-threshold.yaml");
const LINUX_PERF_TEST_CASES: &str = include_str!("../data/linux-perf-test-cases");
const STAT_DENYLIST: &str = include_str!("../data/stat-denylist");
const STAT_ALLOWLIST: &str = include_str!("../data/stat-allowlist");
const REPORT_ALLOWLIST: &str = include_str!("../data/report-allowlist");
const EVENT_COUNTER_PREFIXES: &str = include_str!("../data/event-counter-prefixes");
const EVENT_COUNTER_PATTERNS: &str = include_str!("../data/event-counter-patterns");
const INDEPENDENT_COUNTER_PREFIXES: &str = include_str!("../data/independent-counter-prefixes");
const IGNORE_PART_PREFIXES: &str = include_str!("../data/ignore-part-prefixes");
const ADD_MAX_LATENCY: &str = include_str!("../data/add-max-latency");

/// The compiled direction lists.
#[derive(Debug)]
pub struct Directions {
    set: RegexSet,
    /// Per pattern of `set`: the source pattern and the sign of its weight.
    entries: Vec<(String, i8)>,
    /// Number of leading entries that come from the perf list (the rest are latency entries).
    perf_len: usize,
}

impl Directions {
    /// The lists shipped in `reader/data/`, compiled once.
    pub fn lkp() -> &'static Directions {
        static LKP: OnceLock<Directions> = OnceLock::new();
        LKP.get_or_init(|| {
            Directions::from_yaml(INDEX_PERF_ALL, INDEX_LATENCY_ALL)
                .expect("the shipped lkp-tests direction lists are valid")
        })
    }

    /// Builds the lists from the text of `index-perf-all.yaml` and `index-latency-all.yaml`.
    /// Patterns that are not valid regexes here are skipped, as they could never match in lkp either
    /// without being valid there; an unreadable file is an error.
    pub fn from_yaml(perf: &str, latency: &str) -> Result<Directions, String> {
        let mut entries = read_list(perf, "index-perf-all.yaml")?;
        let perf_len = entries.len();
        entries.extend(read_list(latency, "index-latency-all.yaml")?);
        // Ruby's `/^#{key}$/`: the keys never use a top-level `|`, so grouping changes nothing,
        // but it keeps a future key with one from matching a mere prefix.
        let anchored: Vec<String> =
            entries.iter().map(|(pattern, _)| format!("^(?:{})$", ruby_to_rust_regex(pattern))).collect();
        let (set, ok) = compiled_set(&anchored)?;
        let perf_len = ok[..perf_len].iter().filter(|k| **k).count();
        let kept = entries.into_iter().zip(ok).filter(|(_, k)| *k).map(|(e, _)| e).collect();
        Ok(Directions { set, entries: kept, perf_len })
    }

    /// 1 if higher is better, -1 if lower is better, 0 if the lists do not know the metric.
    pub fn weight(&self, metric: &str) -> i8 {
        self.find(metric).map_or(0, |i| self.entries[i].1)
    }

    /// `lkp().weight(metric)`, remembered per thread: an import asks once per row, and a metric
    /// name recurs in every report of its job (the regex set is a tenth of an `--into` otherwise).
    pub fn lkp_weight(metric: &str) -> i8 {
        use std::cell::RefCell;
        thread_local! {
            static KNOWN: RefCell<std::collections::HashMap<String, i8, rustc_hash::FxBuildHasher>> =
                RefCell::default();
        }
        KNOWN.with(|k| {
            if let Some(w) = k.borrow().get(metric) {
                return *w;
            }
            let w = Directions::lkp().weight(metric);
            k.borrow_mut().insert(metric.to_string(), w);
            w
        })
    }

    /// The list pattern that decides the direction of `metric`, if any.
    pub fn pattern(&self, metric: &str) -> Option<&str> {
        self.find(metric).map(|i| self.entries[i].0.as_str())
    }

    /// Whether the deciding pattern comes from the latency list.
    pub fn is_latency(&self, metric: &str) -> bool {
        self.find(metric).is_some_and(|i| i >= self.perf_len)
    }

    /// Number of patterns compiled (all of the lists' keys, unless one was not a valid regex).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Index of the first matching entry: perf list before latency list, file order within each.
    fn find(&self, metric: &str) -> Option<usize> {
        self.set.matches(metric).iter().next()
    }
}

/// Whether `pattern` parses and translates as `regex` does (the same parser, default options),
/// without building its automaton, which the set builds anyway (the lists' 251 direction patterns
/// took 5.8 ms to compile one by one, 0.8 ms to check). Only the compiled size can still fail.
fn compiles(pattern: &str) -> bool {
    regex_syntax::Parser::new().parse(pattern).is_ok()
}

/// One set of the `patterns` that compile each on its own (as `Regex::new` would), and which
/// those are. A set of patterns that all parse fails only by size: then each is compiled alone
/// (as before the parse-only check), and the ones over the limit are left out too.
fn compiled_set(patterns: &[String]) -> Result<(RegexSet, Vec<bool>), String> {
    let parsed: Vec<bool> = patterns.iter().map(|p| compiles(p)).collect();
    let kept = |ok: &[bool]| patterns.iter().zip(ok).filter(|(_, k)| **k).map(|(p, _)| p.as_str()).collect::<Vec<_>>();
    if let Ok(set) = RegexSet::new(kept(&parsed)) {
        return Ok((set, parsed));
    }
    let ok: Vec<bool> = patterns.iter().zip(&parsed).map(|(p, k)| *k && Regex::new(p).is_ok()).collect();
    let set = RegexSet::new(kept(&ok)).map_err(|e| e.to_string())?;
    Ok((set, ok))
}

/// Where a line of an lkp pattern file must match (lkp-tests `lib/lkp_pattern.rb`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Anywhere in the name (`stat-denylist`, `report-allowlist`, `perf-metrics-patterns`).
    Anywhere,
    /// At the start (`failure`, `pass`, `*-prefixes`).
    Start,
    /// The whole name (`add-max-latency`).
    Full,
}

/// One lkp-tests pattern file: a regex per line (empty lines and `#` comments skipped), any of
/// which may match. lkp joins the lines into one `(l1|l2|...)` regex; a set of separately
/// anchored regexes matches the same names, and lets an odd line be skipped on its own.
#[derive(Debug)]
pub struct PatternList {
    set: RegexSet,
}

impl PatternList {
    pub fn new(text: &str, anchor: Anchor) -> PatternList {
        let patterns: Vec<String> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let p = ruby_to_rust_regex(l);
                match anchor {
                    Anchor::Anywhere => format!("(?:{p})"),
                    Anchor::Start => format!("^(?:{p})"),
                    Anchor::Full => format!("^(?:{p})$"),
                }
            })
            .collect();
        PatternList { set: compiled_set(&patterns).expect("each pattern compiled on its own").0 }
    }

    pub fn contains(&self, name: &str) -> bool {
        self.set.is_match(name)
    }

    pub fn len(&self) -> usize {
        self.set.len()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

// ------------------------------------------------------------------------------------------------
// The stat classes of lkp's comparer (`lib/stats.rb`)

struct StatLists {
    failure: PatternList,
    pass: PatternList,
    perf_prefixes: PatternList,
    perf_patterns: PatternList,
    /// `perf-metrics-threshold.yaml` in file order: full-match pattern, value, integer-valued.
    thresholds: Vec<(Regex, f64, bool)>,
    denylist: PatternList,
    allowlist: PatternList,
    report_allowlist: PatternList,
}

fn stat_lists() -> &'static StatLists {
    static LISTS: OnceLock<StatLists> = OnceLock::new();
    LISTS.get_or_init(|| StatLists {
        failure: PatternList::new(FAILURE, Anchor::Start),
        pass: PatternList::new(PASS, Anchor::Start),
        perf_prefixes: PatternList::new(&perf_prefix_lines(), Anchor::Start),
        perf_patterns: PatternList::new(PERF_METRICS_PATTERNS, Anchor::Anywhere),
        thresholds: thresholds(PERF_METRICS_THRESHOLD),
        denylist: PatternList::new(STAT_DENYLIST, Anchor::Anywhere),
        allowlist: PatternList::new(STAT_ALLOWLIST, Anchor::Anywhere),
        report_allowlist: PatternList::new(REPORT_ALLOWLIST, Anchor::Anywhere),
    })
}

/// lkp's perf metrics are `etc/perf-metrics-prefixes` plus `<test>.` for every test program that
/// is neither functional nor "other" (`LKP::PerfMetrics`). We do not ship lkp's `programs/`, so the
/// tests are those of `etc/linux-perf-test-cases` and the test names the direction lists start with
/// (`fxmark`, `fio`, `pts`…: every KPI there belongs to a performance test).
fn perf_prefix_lines() -> String {
    let mut lines: Vec<String> = PERF_METRICS_PREFIXES.lines().map(str::to_string).collect();
    let mut tests: BTreeSet<String> =
        LINUX_PERF_TEST_CASES.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    for text in [INDEX_PERF_ALL, INDEX_LATENCY_ALL] {
        for line in text.lines() {
            let Some((head, _)) = line.split_once("\\.") else {
                continue;
            };
            if !head.is_empty() && head.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
                tests.insert(head.to_string());
            }
        }
    }
    lines.extend(tests.iter().map(|t| regex::escape(&format!("{t}."))));
    lines.join("\n")
}

fn thresholds(text: &str) -> Vec<(Regex, f64, bool)> {
    let map: serde_norway::Mapping = serde_norway::from_str(text).unwrap_or_default();
    map.iter()
        .filter_map(|(k, v)| {
            let re = Regex::new(&format!("^(?:{})$", ruby_to_rust_regex(k.as_str()?))).ok()?;
            let integer = v.is_i64() || v.is_u64();
            Some((re, v.as_f64()?, integer))
        })
        .collect()
}

/// lkp's `function_stat?`: failure and pass stats (`etc/failure`, `etc/pass`), except timing
/// stats that happen to match (`.time.`, `.timestamp:`, `.bootstage:`).
pub fn is_function_stat(stat: &str) -> bool {
    if stat.contains(".time.") || stat.contains(".timestamp:") || stat.contains(".bootstage:") {
        return false;
    }
    let l = stat_lists();
    l.failure.contains(stat) || l.pass.contains(stat)
}

/// Whether a failure stat counts passes (more is better) rather than failures.
pub fn is_pass_stat(stat: &str) -> bool {
    stat_lists().pass.contains(stat)
}

/// lkp's `perf_metric?`: a change above 1% (rather than 5%) is worth reporting.
pub fn is_perf_metric(stat: &str) -> bool {
    let l = stat_lists();
    l.perf_patterns.contains(stat) || l.perf_prefixes.contains(stat)
}

/// lkp's `bisectable_stat?` (allow-list beats deny-list).
pub fn is_bisectable(stat: &str) -> bool {
    let l = stat_lists();
    l.allowlist.contains(stat) || !l.denylist.contains(stat)
}

/// `etc/report-allowlist`: reported even when not bisectable.
pub fn is_report_allowed(stat: &str) -> bool {
    stat_lists().report_allowlist.contains(stat)
}

/// `perf-metrics-threshold.yaml` in file order: full-match pattern, minimum magnitude, and
/// whether the value is an integer (Ruby halves those with an integer division).
pub fn perf_thresholds() -> &'static [(Regex, f64, bool)] {
    &stat_lists().thresholds
}

// ------------------------------------------------------------------------------------------------
// How a run's samples reduce to one number (`create_stats_matrix` in `lib/matrix.rb`)

/// The stat classes of lkp's reduction of a monitor's samples.
pub struct ReduceLists {
    /// Counters reduced as last minus first (`event-counter-prefixes`, `-patterns`).
    pub event_prefixes: PatternList,
    pub event_patterns: PatternList,
    /// Counters reduced as a sum (`independent-counter-prefixes`).
    pub independent: PatternList,
    /// Stats not cut to the `stats_part_begin/end` window (`ignore-part-prefixes`).
    pub ignore_part: PatternList,
    /// Stats that also get a `<stat>.max` (`add-max-latency`).
    pub add_max_latency: PatternList,
}

pub fn reduce_lists() -> &'static ReduceLists {
    static LISTS: OnceLock<ReduceLists> = OnceLock::new();
    LISTS.get_or_init(|| ReduceLists {
        event_prefixes: PatternList::new(EVENT_COUNTER_PREFIXES, Anchor::Start),
        event_patterns: PatternList::new(EVENT_COUNTER_PATTERNS, Anchor::Anywhere),
        independent: PatternList::new(INDEPENDENT_COUNTER_PREFIXES, Anchor::Start),
        ignore_part: PatternList::new(IGNORE_PART_PREFIXES, Anchor::Start),
        add_max_latency: PatternList::new(ADD_MAX_LATENCY, Anchor::Full),
    })
}

// ------------------------------------------------------------------------------------------------
// Incomplete runs

/// The stat that flags, per run (column), a run that did not complete (value 1).
pub const INCOMPLETE_RUN: &str = "last_state.is_incomplete_run";

/// lkp's incomplete-run rule (`filter_incomplete_run`): which of `columns` runs to keep, given the
/// `last_state.is_incomplete_run` row: every run whose flag is not 1.
pub fn complete_runs(flags: &[f64], columns: usize) -> Vec<bool> {
    (0..columns).map(|i| flags.get(i) != Some(&1.0)).collect()
}

/// `row` without the runs that `keep` drops (runs past the end of `keep` stay).
pub fn keep_runs<T>(row: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    row.retain(|_| {
        let k = keep.get(i).copied().unwrap_or(true);
        i += 1;
        k
    });
}

/// Reads a `pattern: weight` YAML mapping in file order (serde_norway's `Mapping` keeps it).
fn read_list(text: &str, name: &str) -> Result<Vec<(String, i8)>, String> {
    let map: serde_norway::Mapping = serde_norway::from_str(text).map_err(|e| format!("{name}: {e}"))?;
    let mut out = Vec::with_capacity(map.len());
    for (k, v) in map {
        let Some(pattern) = k.as_str() else { continue };
        let Some(weight) = v.as_f64() else { continue };
        let sign = if weight > 0.0 {
            1
        } else if weight < 0.0 {
            -1
        } else {
            0
        };
        out.push((pattern.to_string(), sign));
    }
    Ok(out)
}

/// Adapts a Ruby regex from the lkp-tests lists to the `regex` crate: Ruby takes a `{` that does
/// not start a valid `{n}`, `{n,}`, `{n,m}` repetition, and any stray `}`, as literal text
/// (`{#:#}` and `},at` in `stat-denylist`); the `regex` crate rejects them, so they are escaped.
pub fn ruby_to_rust_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut chars = pattern.char_indices();
    let mut in_class = false;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                // An escape and the escaped character are copied untouched.
                out.push(c);
                if let Some((_, next)) = chars.next() {
                    out.push(next);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '{' if !in_class => match repetition_len(&pattern[i..]) {
                Some(len) => {
                    out.push_str(&pattern[i..i + len]);
                    // Skip the rest of the repetition (all ASCII, so one char per byte).
                    for _ in 1..len {
                        chars.next();
                    }
                }
                None => out.push_str("\\{"),
            },
            '}' if !in_class => out.push_str("\\}"),
            _ => out.push(c),
        }
    }
    out
}

/// Length of a `{n}`, `{n,}` or `{n,m}` repetition at the start of `s`.
fn repetition_len(s: &str) -> Option<usize> {
    let close = s.find('}')?;
    let inner = &s[1..close];
    let (lo, hi) = match inner.split_once(',') {
        Some((lo, hi)) => (lo, hi),
        None => (inner, ""),
    };
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    (!lo.is_empty() && digits(lo) && digits(hi)).then_some(close + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_agrees_with_regex_on_every_shipped_line_and_on_what_regex_refuses() {
        let shipped =
            [INDEX_PERF_ALL, INDEX_LATENCY_ALL, STAT_DENYLIST, STAT_ALLOWLIST, FAILURE, PERF_METRICS_PREFIXES];
        let mut patterns: Vec<String> = shipped
            .iter()
            .flat_map(|t| t.lines())
            .map(|l| ruby_to_rust_regex(l.rsplit_once(": ").map_or(l, |(k, _)| k)))
            .collect();
        // look-around, back-references, unbalanced groups and classes, bad repetitions and escapes
        let refused = [r"a(?=b)", r"(?<!x)y", r"(a)\1", r"(ab", r"ab)", r"[a-", r"a{2,1}", r"\p{Nope}", r"*a"];
        patterns.extend(refused.iter().map(|p| p.to_string()));
        assert!(patterns.len() > 600, "the shipped lists were read: {}", patterns.len());
        for p in &patterns {
            assert_eq!(compiles(p), Regex::new(p).is_ok(), "{p}");
        }
        assert!(refused.iter().all(|p| !compiles(p)));
    }

    #[test]
    fn a_pattern_over_the_size_limit_is_left_out_as_regex_refuses_it() {
        let big = r"\w{1000}";
        assert!(compiles(&format!("^(?:{big})$")) && Regex::new(&format!("^(?:{big})$")).is_err());
        let d = Directions::from_yaml(&format!("a\\.b: 1\n'{big}': 1\nc\\.d: -1\n"), "e\\.f: -1\n").unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!((d.weight("a.b"), d.weight("c.d"), d.weight("e.f")), (1, -1, -1));
        assert!(!d.is_latency("c.d") && d.is_latency("e.f"), "the perf list's count leaves out the big one");
        let l = PatternList::new(&format!("x\n{big}\ny\n"), Anchor::Full);
        assert_eq!(l.len(), 2);
        assert!(l.contains("x") && l.contains("y") && !l.contains("z"));
    }

    #[test]
    fn every_key_compiles() {
        let perf = INDEX_PERF_ALL.lines().filter(|l| l.contains(": ")).count();
        let latency = INDEX_LATENCY_ALL.lines().filter(|l| l.contains(": ")).count();
        assert_eq!(Directions::lkp().len(), perf + latency);
    }

    #[test]
    fn real_metric_names() {
        let d = Directions::lkp();
        for (metric, weight) in [
            ("blogbench.write_score", 1),
            ("blogbench.read_score", 1),
            ("fio.write_iops", 1),
            ("fio.read_bw_MBps", 1),
            ("will-it-scale.per_process_ops", 1),
            ("vm-scalability.throughput", 1),
            ("vm-scalability.median", 1),
            ("aim7.jobs-per-min", 1),
            ("aim9.add_float.ops_per_sec", 1),
            ("dbench.throughput-MB/sec", 1),
            ("iostat.sda.wkB/s", 1),
            ("sysbench-threads.throughput_events/s", 1),
            ("fxmark.ssd_ext4_no_jnl_MRPL_4_bufferedio.works/sec", 1),
            ("kbuild.buildtime_per_iteration", -1),
            ("pts.aobench.0.seconds", -1),
            // the perf list decides before the latency list (both list thrulay.jitter)
            ("thrulay.jitter", -1),
            // latency list: lower is better
            ("sysbench-fileio.latency_95th_ms", -1),
            ("dbench.max_latency", -1),
            ("vm-scalability.stddev", -1),
            ("iostat.sda.await.max", -1),
            ("apachebench.max_latency.99%", -1),
            // not listed: the robot's `fileio.latency_95th_ms` is not `sysbench-fileio.`
            ("fileio.latency_95th_ms", 0),
            ("vmstat.system.cs", 0),
            ("aim9.test", 0),
            ("ebizzy.throughput.per_thread.stddev_percent", -1),
            ("ebizzy.throughput.per_thread.stddev", 0),
            ("fio.write_iops.extra", 0),
        ] {
            assert_eq!(d.weight(metric), weight, "{metric}");
        }
        assert!(d.is_latency("dbench.max_latency"));
        assert!(!d.is_latency("thrulay.jitter"));
        assert_eq!(d.pattern("fio.write_iops"), Some("fio\\..+_iops"));
    }

    #[test]
    fn perf_metric_lists() {
        assert!(is_perf_metric("vmstat.cpu.us"));
        assert!(is_perf_metric("fxmark.ssd_ext4_no_jnl_MRPL_4_bufferedio.works/sec"));
        assert!(is_perf_metric("will-it-scale.per_process_ops"));
        assert!(is_perf_metric("aim7.time.elapsed_time"));
        assert!(!is_perf_metric("unknown.stat"));
        assert!(!is_perf_metric("meminfo.Active"));
    }

    #[test]
    fn function_stats() {
        assert!(is_function_stat("dmesg.boot_failures"));
        assert!(is_function_stat("kmsg.error"));
        assert!(is_function_stat("kernel-selftests.net.fcnal-test.sh.fail"));
        assert!(is_function_stat("ltp.foo.pass"));
        assert!(!is_function_stat("dmesg.timestamp:last"));
        assert!(!is_function_stat("will-it-scale.per_process_ops"));
        assert!(!is_function_stat("fio.write_iops"));
    }

    #[test]
    fn incomplete_runs() {
        // (flags, columns, runs kept)
        let cases: [(&[f64], usize, &[bool]); 5] = [
            (&[0.0, 1.0, 0.0], 3, &[true, false, true]),
            (&[1.0], 3, &[false, true, true]),
            (&[], 2, &[true, true]),
            (&[f64::NAN, 2.0], 2, &[true, true]),
            (&[1.0, 1.0, 0.0, 1.0], 3, &[false, false, true]),
        ];
        for (flags, columns, want) in cases {
            assert_eq!(complete_runs(flags, columns), want, "{flags:?}");
        }
        let mut row = vec![10, 11, 12, 13];
        keep_runs(&mut row, &[true, false, true]);
        assert_eq!(row, [10, 12, 13]);
    }

    #[test]
    fn braces() {
        assert_eq!(ruby_to_rust_regex("{#:#}"), "\\{#:#\\}");
        assert_eq!(ruby_to_rust_regex("},at"), "\\},at");
        assert_eq!(ruby_to_rust_regex("a[0-9]{1,5}\\]"), "a[0-9]{1,5}\\]");
        assert_eq!(ruby_to_rust_regex("x[{]y[}]"), "x[{]y[}]");
    }
}
