//! Which way is better for a metric, as lkp-tests' direction lists say (`etc/index-perf-all.yaml`,
//! `etc/index-latency-all.yaml`, shipped in `importer/data/`).
//!
//! lkp (`kpi_stat_direction` in `lib/stats.rb`) takes the first key of `index-perf-all.yaml`, in file
//! order, that matches the whole stat name (`/^#{key}$/`); only when none does, the first key of
//! `index-latency-all.yaml`. The sign of its weight is the direction. We keep that precedence: one
//! `RegexSet` over both lists in that order, and the lowest matching index wins.

use std::sync::OnceLock;

use regex::{Regex, RegexSet};

const INDEX_PERF_ALL: &str = include_str!("../data/index-perf-all.yaml");
const INDEX_LATENCY_ALL: &str = include_str!("../data/index-latency-all.yaml");

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
    /// The lists shipped with the importer, compiled once.
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
        let mut kept = Vec::with_capacity(entries.len());
        let mut patterns = Vec::with_capacity(entries.len());
        let mut kept_perf = 0;
        for (i, (pattern, weight)) in entries.into_iter().enumerate() {
            let anchored = format!("^(?:{})$", ruby_to_rust_regex(&pattern));
            if Regex::new(&anchored).is_ok() {
                patterns.push(anchored);
                kept.push((pattern, weight));
                kept_perf += usize::from(i < perf_len);
            }
        }
        let perf_len = kept_perf;
        let set = RegexSet::new(&patterns).map_err(|e| e.to_string())?;
        Ok(Directions { set, entries: kept, perf_len })
    }

    /// 1 if higher is better, -1 if lower is better, 0 if the lists do not know the metric.
    pub fn weight(&self, metric: &str) -> i8 {
        self.find(metric).map_or(0, |i| self.entries[i].1)
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
            .filter(|p| Regex::new(p).is_ok())
            .collect();
        PatternList { set: RegexSet::new(patterns).expect("each pattern compiled on its own") }
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

/// Reads a `pattern: weight` YAML mapping in file order (serde_yaml's `Mapping` keeps it).
fn read_list(text: &str, name: &str) -> Result<Vec<(String, i8)>, String> {
    let map: serde_yaml::Mapping = serde_yaml::from_str(text).map_err(|e| format!("{name}: {e}"))?;
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
    fn braces() {
        assert_eq!(ruby_to_rust_regex("{#:#}"), "\\{#:#\\}");
        assert_eq!(ruby_to_rust_regex("},at"), "\\},at");
        assert_eq!(ruby_to_rust_regex("a[0-9]{1,5}\\]"), "a[0-9]{1,5}\\]");
        assert_eq!(ruby_to_rust_regex("x[{]y[}]"), "x[{]y[}]");
    }
}
