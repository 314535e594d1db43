//! lkp-tests' "is this stat changed" rule (`lib/stats.rb` `StatCompare`, `lib/changed_stat.rb`;
//! `docs/lkp-formats.md` §3), applied to two commit-level matrices (one value per run per stat).
//!
//! lkp calls the head matrix `a` and the base matrix `b`; [`StatRecord`] keeps lkp's names so that
//! it can be checked against lkp's own test cases. The public entry points take base first.

use model::stats::format_g;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use model::{ChangeKind, Direction};
use serde::Serialize;

use reader::direction::{
    self, complete_runs, is_bisectable, is_function_stat, is_pass_stat, is_perf_metric, keep_runs, Directions,
    INCOMPLETE_RUN,
};

/// Per-run values per stat of one commit (a commit-level `matrix.json` without `stats_source`).
pub type Matrix = HashMap<String, Vec<f64>>;

/// Options of the comparison, named as lkp's (`ncompare`/`compare` switches).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareOptions {
    /// Also consider stats lkp does not bisect (`etc/stat-denylist`), like lkp's `--more`.
    pub more: bool,
    /// Significance by gap: the two ranges are apart by more than `gap` × the median difference.
    pub gap: Option<f64>,
    /// Significance by spread: one side's spread relative to its median exceeds the other's by
    /// this factor. lkp only applies it with at least 10 runs on both sides.
    pub variance: Option<f64>,
    /// Ignore failure stats that went away (fixes), and `kmsg.*` once a boot failure was fixed.
    pub regression_only: bool,
}

/// One changed stat, as `lkpx compare` prints it (one JSON object per line).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangedStat {
    pub stat: String,
    /// Arithmetic mean over the base runs (as the mails' tables print it).
    pub base_mean: f64,
    pub head_mean: f64,
    /// Percent (or absolute, or %reproduction for failure stats) change of the means, as ncompare.
    pub change: f64,
    pub change_kind: ChangeKind,
    pub direction: Direction,
    /// Always true: only changed stats are listed.
    pub changed: bool,
}

/// The record lkp's `StatCompare#process` returns for a changed stat (without `ttl` and the
/// merged options). `a` is the head, `b` the base; `mean_*` is lkp's "mean", which is the
/// median element of the trimmed, sorted runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatRecord {
    pub stat: String,
    pub interval: String,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    pub is_function_stat: bool,
    pub is_latency: bool,
    pub ratio: f64,
    pub delta: f64,
    pub mean_a: f64,
    pub mean_b: f64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub min_a: f64,
    pub max_a: f64,
    pub min_b: f64,
    pub max_b: f64,
    pub max: f64,
    pub nr_run: usize,
}

/// lkp's `reasonable_perf_change?`: minimum magnitudes per stat (`perf-metrics-threshold.yaml`,
/// first matching key decides), then the monitor rules.
fn reasonable_perf_change(stat: &str, delta: f64, max: f64) -> bool {
    for (re, v, integer) in direction::perf_thresholds() {
        if !re.is_match(stat) {
            continue;
        }
        if max < *v {
            return false;
        }
        // Ruby's `v / 2` on an Integer threshold is an integer division; float thresholds
        // have no delta rule.
        if *integer && delta < (*v as i64 / 2) as f64 {
            return false;
        }
        return true;
    }
    if stat.starts_with("iostat") {
        max > 1.0
    } else if ["pagetypeinfo", "buddyinfo", "slabinfo"].iter().any(|p| stat.starts_with(p)) {
        delta > 100.0
    } else if stat.starts_with("proc-vmstat") || stat.contains("meminfo") {
        max > 1000.0
    } else if stat.starts_with("lock_stat") {
        // lkp compares the whole name with 'waittime-total' / 'holdtime-total', which a
        // `lock_stat.` name never equals; only the `/time/` branch and the default apply.
        if stat.contains("time") {
            delta > 1000.0
        } else {
            delta > 10000.0
        }
    } else if stat.starts_with("interrupts") || stat.starts_with("softirqs") {
        max > 10000.0
    } else {
        true
    }
}

// ------------------------------------------------------------------------------------------------
// The comparison

/// lkp's `StatSummary`: the sorted runs without `n >> 5` outliers at each end (at most
/// `max_margin`), and min / "mean" (the median element) / max of what is left.
#[derive(Debug, Clone)]
struct Summary {
    sorted: Vec<f64>,
    min: f64,
    mean: f64,
    max: f64,
}

impl Summary {
    fn new(values: &[f64], max_margin: usize) -> Summary {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let margin = (sorted.len() >> 5).min(max_margin);
        let sorted =
            if sorted.len() > 2 * margin { sorted[margin..sorted.len() - margin].to_vec() } else { Vec::new() };
        let (min, mean, max) = match sorted.len() {
            0 => (0.0, 0.0, 0.0),
            n => (sorted[0], sorted[n / 2], sorted[n - 1]),
        };
        Summary { sorted, min, mean, max }
    }

    fn len(&self) -> f64 {
        self.max - self.min
    }
}

/// A changed stat with the (zero-padded, unsorted) run values it was decided on.
struct Found {
    record: StatRecord,
    head: Vec<f64>,
    base: Vec<f64>,
}

/// lkp's records of the changed stats, sorted by stat name.
pub fn lkp_records(base: &Matrix, head: &Matrix, opts: &CompareOptions) -> Vec<StatRecord> {
    find_changed(base, head, opts).into_values().map(|f| f.record).collect()
}

/// The changed stats between two commits' matrices (base first), sorted by stat name.
pub fn changed_stats(base: &Matrix, head: &Matrix, opts: &CompareOptions) -> Vec<ChangedStat> {
    find_changed(base, head, opts).into_values().map(|f| summarize(&f)).collect()
}

fn summarize(f: &Found) -> ChangedStat {
    let stat = f.record.stat.clone();
    let base_mean = model::stats::mean(&f.base).unwrap_or(0.0);
    let head_mean = model::stats::mean(&f.head).unwrap_or(0.0);
    if f.record.is_function_stat {
        // ncompare's %reproduction: fails per run now minus before, in percent. More failures is
        // a regression, more passes an improvement.
        let change = 100.0 * (head_mean - base_mean);
        let weight = if is_pass_stat(&stat) { 1 } else { -1 };
        ChangedStat {
            stat,
            base_mean,
            head_mean,
            change,
            change_kind: ChangeKind::Reproduction,
            direction: Direction::of(weight, change),
            changed: true,
        }
    } else {
        let change = model::stats::change(&stat, base_mean, head_mean);
        let direction = Direction::of(Directions::lkp().weight(&stat), change);
        ChangedStat {
            change_kind: model::stats::change_kind(&stat),
            stat,
            base_mean,
            head_mean,
            change,
            direction,
            changed: true,
        }
    }
}

/// lkp's `_get_changed_stats(a = head, b = base)`. When either side has incomplete runs, a first
/// pass looks only at `dmesg.`, `last_state.` and `stderr.` stats over all runs; then the
/// incomplete runs are removed and every stat is compared again.
fn find_changed(base: &Matrix, head: &Matrix, opts: &CompareOptions) -> BTreeMap<String, Found> {
    // `has_boot_fix` lives in lkp's options hash, so it carries over from pass to pass.
    let mut has_boot_fix = false;
    let incomplete = head.contains_key(INCOMPLETE_RUN) || base.contains_key(INCOMPLETE_RUN);
    let mut changed = compare_pass(head, base, incomplete, opts, &mut has_boot_fix);
    if !incomplete {
        return changed;
    }
    let head = filter_incomplete_run(head);
    let base = filter_incomplete_run(base);
    // lkp stops when every run of a side was incomplete (its `stats_source` became empty).
    if matrix_cols(&head) == 0 || matrix_cols(&base) == 0 {
        return changed;
    }
    changed.extend(compare_pass(&head, &base, false, opts, &mut has_boot_fix));
    changed
}

/// lkp's `filter_incomplete_run`: drops the columns of incomplete runs and the flag itself.
fn filter_incomplete_run(m: &Matrix) -> Matrix {
    let mut m = m.clone();
    if let Some(flags) = m.remove(INCOMPLETE_RUN) {
        let keep = complete_runs(&flags, flags.len());
        for v in m.values_mut() {
            keep_runs(v, &keep);
        }
    }
    m
}

/// Number of runs: the longest row (lkp reads it from `stats_source`; matrices read by this
/// module are zero-padded to that length, so the longest row is the same).
fn matrix_cols(m: &Matrix) -> usize {
    m.values().map(Vec::len).max().unwrap_or(0)
}

/// lkp's `__get_changed_stats(a, b, is_incomplete_run, options)`. Stats are visited in name
/// order: lkp relies on `dmesg.*` coming before `kmsg.*` for its boot-fix rule, which name order
/// guarantees.
fn compare_pass(
    a: &Matrix,
    b: &Matrix,
    is_incomplete_run: bool,
    opts: &CompareOptions,
    has_boot_fix: &mut bool,
) -> BTreeMap<String, Found> {
    let mut out = BTreeMap::new();
    let cols_a = matrix_cols(a);
    let cols_b = matrix_cols(b);
    if opts.variance.is_some() && (cols_a < 10 || cols_b < 10) {
        return out;
    }
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let b_bases: BTreeSet<&str> = b.keys().map(|k| stat_key_base(k)).collect();
    for k in keys {
        let ctx = StatContext { k, a, b, cols_a, cols_b, is_incomplete_run, opts, b_bases: &b_bases };
        if let Some(found) = ctx.process(has_boot_fix) {
            out.insert(k.clone(), found);
        }
    }
    out
}

fn stat_key_base(stat: &str) -> &str {
    stat.split_once('.').map_or(stat, |(base, _)| base)
}

struct StatContext<'a> {
    k: &'a str,
    a: &'a Matrix,
    b: &'a Matrix,
    cols_a: usize,
    cols_b: usize,
    is_incomplete_run: bool,
    opts: &'a CompareOptions,
    b_bases: &'a BTreeSet<&'a str>,
}

impl StatContext<'_> {
    /// lkp's `StatCompare#process`.
    fn process(&self, has_boot_fix: &mut bool) -> Option<Found> {
        let k = self.k;
        let is_function = is_function_stat(k);
        // lkp's `latency_stat?` currently always answers false (its result is discarded), so the
        // latency branch of lkp is never taken; we follow the code, not the intent.
        let is_latency = false;
        if self.skip_stat(is_function) {
            return None;
        }
        // Stats of newly added monitors have nothing to compare against in the base.
        let monitored =
            (k.starts_with("lock_stat.") || k.starts_with("perf-profile.")) && self.b_bases.contains(stat_key_base(k));
        if !(self.b.contains_key(k) || is_function || monitored) {
            return None;
        }

        // calculate_matrix_values
        let mut max_margin = if is_function || is_latency { 0 } else { 3 };
        let mut b_k = self.b.get(k).cloned().unwrap_or_else(|| vec![0.0; self.cols_b]);
        if b_k.len() < self.cols_b {
            b_k.resize(self.cols_b, 0.0);
        }
        let mut a_k = self.a.get(k).cloned().unwrap_or_else(|| vec![0.0; self.cols_a]);
        if a_k.len() < self.cols_a {
            a_k.resize(self.cols_a, 0.0);
        }
        let sb = Summary::new(&b_k, max_margin);
        if sb.sorted.is_empty() {
            return None;
        }
        if b_k.len() <= 3 && max_margin > 1 {
            max_margin = 1;
        }
        let sa = Summary::new(&a_k, max_margin);
        if sa.sorted.is_empty() {
            return None;
        }

        let changed = if is_function { sa.max != sb.max } else { self.changed_perf_stat(&sa, &sb) };
        if !changed {
            return None;
        }

        // skip_critical_stat?
        if self.opts.regression_only && is_function {
            if sa.max == 0.0 {
                if k.starts_with("dmesg.") {
                    *has_boot_fix = true;
                }
                return None;
            }
            if *has_boot_fix && k.starts_with("kmsg.") {
                return None;
            }
        }

        let (max, x, y, z, delta, ratio) = calc_stats_metrics(&sa, &sb);
        // skip_small_change? (written so that a NaN ratio is skipped, as in lkp)
        let above = |limit: f64| ratio.partial_cmp(&limit) == Some(Ordering::Greater);
        if !above(1.01) || !(above(1.05) || is_perf_metric(k)) {
            return None;
        }
        if !reasonable_perf_change(k, delta, max) {
            return None;
        }

        let record = StatRecord {
            stat: k.to_string(),
            interval: format_interval(&sa, &sb),
            is_function_stat: is_function,
            is_latency,
            ratio,
            delta,
            mean_a: sa.mean,
            mean_b: sb.mean,
            x,
            y,
            z,
            min_a: sa.min,
            max_a: sa.max,
            min_b: sb.min,
            max_b: sb.max,
            max,
            nr_run: a_k.len(),
            a: sa.sorted,
            b: sb.sorted,
        };
        Some(Found { record, head: a_k, base: b_k })
    }

    /// lkp's `skip_stat?`.
    fn skip_stat(&self, is_function: bool) -> bool {
        let k = self.k;
        if self.is_incomplete_run
            && !(k.starts_with("dmesg.") || k.starts_with("last_state.") || k.starts_with("stderr."))
        {
            return true;
        }
        if !self.opts.more && !is_bisectable(k) && !direction::is_report_allowed(k) {
            return true;
        }
        if is_function {
            self.skip_function_stat()
        } else {
            // Regular stats need at least 3 runs on one side. (lkp also skips `vh-*` boxes and
            // memory stats on `vm-*` boxes; a matrix does not say its box, so that rule is left to
            // the caller.)
            self.cols_a < 3 && self.cols_b < 3
        }
    }

    /// lkp's `skip_function_stat?`: a `.fail/.error/.warn` stat only counts when the base has the
    /// matching `.pass`, and a `.pass` only when the base has a matching failure stat; kernel log
    /// and state stats always count.
    fn skip_function_stat(&self) -> bool {
        let k = self.k;
        if ["dmesg.", "kmsg.", "last_state.", "stderr."].iter().any(|p| k.starts_with(p)) {
            return false;
        }
        let (stat_base, last) = k.rsplit_once('.').unwrap_or((k, ""));
        if matches!(last, "error" | "warn" | "fail") && !self.b.contains_key(&format!("{stat_base}.pass")) {
            return true;
        }
        if last == "pass" && !["error", "warn", "fail"].iter().any(|s| self.b.contains_key(&format!("{stat_base}.{s}")))
        {
            return true;
        }
        false
    }

    /// lkp's `changed_perf_stat?`.
    fn changed_perf_stat(&self, a: &Summary, b: &Summary) -> bool {
        if let Some(v) = self.opts.variance {
            a.len() * b.mean > v * b.len() * a.mean || b.len() * a.mean > v * a.len() * b.mean
        } else if let Some(g) = self.opts.gap {
            gap(a, b, g)
        } else {
            // LKP::ChangedStat#change? without `distance`: the ranges are separated so that one
            // side's min is above the other's median and its median above the other's max.
            (b.min > a.mean && b.mean > a.max) || (a.min > b.mean && a.mean > b.max)
        }
    }
}

/// lkp's `gap?`: the gap between the ranges exceeds `gap` × the difference of the medians.
fn gap(a: &Summary, b: &Summary, gap: f64) -> bool {
    (b.min > a.max && (b.min - a.max) > (b.mean - a.mean) * gap)
        || (a.min > b.max && (a.min - b.max) > (a.mean - b.mean) * gap)
}

const MAX_RATIO: f64 = 5.0;

/// lkp's `calc_stats_metrics`: (max, x, y, z, delta, ratio).
fn calc_stats_metrics(a: &Summary, b: &Summary) -> (f64, f64, f64, f64, f64, f64) {
    let max = b.max.max(a.max);
    let mut x = a.len();
    let z = b.len();
    if a.sorted.len() <= 2 && x < z {
        x = z;
    }
    let (high, low) = if a.mean > b.mean { (a, b) } else { (b, a) };
    let mut y = high.min - low.max;
    let delta = high.mean - low.mean;
    let mut ratio = if low.mean > 0.0 { high.mean / low.mean } else { MAX_RATIO };
    if y < 0.0 {
        y = 0.0;
    }
    if ratio > MAX_RATIO {
        ratio = MAX_RATIO;
    }
    (max, x, y, z, delta, ratio)
}

/// lkp's `format_interval`: `[ %-10.5g - %-10.5g ] -- [ %-10.5g - %-10.5g ]`.
fn format_interval(a: &Summary, b: &Summary) -> String {
    format!(
        "[ {:<10} - {:<10} ] -- [ {:<10} - {:<10} ]",
        format_g(a.min, 5),
        format_g(a.max, 5),
        format_g(b.min, 5),
        format_g(b.max, 5)
    )
}

// ------------------------------------------------------------------------------------------------
// `lkpx compare BASE HEAD`

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_and_monitor_rules() {
        // vmstat.system.cs: 100 — max below it is noise; integer threshold halves for delta
        assert!(!reasonable_perf_change("vmstat.system.cs", 500.0, 90.0));
        assert!(!reasonable_perf_change("vmstat.system.cs", 40.0, 500.0));
        assert!(reasonable_perf_change("vmstat.system.cs", 60.0, 500.0));
        // perf-profile.*: 1 → 1/2 == 0 in Ruby, so no delta rule
        assert!(reasonable_perf_change("perf-profile.self.cycles-pp.foo", 0.1, 1.5));
        assert!(!reasonable_perf_change("perf-profile.self.cycles-pp.foo", 0.1, 0.5));
        // 2.00 is a float: no delta rule either
        assert!(reasonable_perf_change("perf-profile.children.cycles-pp.native_queued_spin_lock_slowpath", 0.01, 3.0));
        // iostat.*.[rw]/s: 50 decides before the iostat rule (max > 1)
        assert!(!reasonable_perf_change("iostat.sda.r/s", 100.0, 20.0));
        assert!(!reasonable_perf_change("iostat.sda.svctm", 100.0, 1.0));
        assert!(reasonable_perf_change("iostat.sda.svctm", 100.0, 1.5));
        assert!(!reasonable_perf_change("slabinfo.kmalloc-64.num_objs", 50.0, 1e6));
        assert!(!reasonable_perf_change("proc-vmstat.pgfault", 1e6, 900.0));
        // `.*vmstat.*nr_.*: 100` decides before the proc-vmstat rule
        assert!(reasonable_perf_change("proc-vmstat.nr_active_anon", 1e6, 900.0));
        assert!(!reasonable_perf_change("numa-meminfo.node0.Active", 1e6, 900.0));
        assert!(!reasonable_perf_change("softirqs.CPU0.RCU", 1e6, 9000.0));
        assert!(reasonable_perf_change("softirqs.CPU0.RCU", 1e6, 90000.0));
        assert!(reasonable_perf_change("fio.write_iops", 1.0, 2.0));
    }
}
