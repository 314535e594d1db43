//! Headlines ("-12.3% regression of fio.write_iops") resolved to their job and commits; which
//! metrics are key performance indicators.

use super::options::Options;
use super::series::{usable, JobPos};
use model::{Direction, Headline, TestcaseInfo};
use reader::doc::Document;
use std::collections::BTreeMap;

/// Monitor namespaces: metrics under them are never a testcase's KPI.
pub(crate) const MONITORS: [&str; 40] = [
    "vmstat",
    "proc-vmstat",
    "meminfo",
    "slabinfo",
    "numa-meminfo",
    "numa-vmstat",
    "numa-numastat",
    "iostat",
    "mpstat",
    "turbostat",
    "cpuidle",
    "softirqs",
    "interrupts",
    "sched_debug",
    "perf-stat",
    "perf-profile",
    "perf-sched",
    "perf-c2c",
    "lock_stat",
    "uptime",
    "boot-time",
    "diskstats",
    "pagetypeinfo",
    "buddyinfo",
    "pmeter",
    "energy",
    "time",
    "dmesg",
    "kmsg",
    "stderr",
    "last_state",
    "latency_stats",
    "cpuidle-time",
    "perf-sched-lat",
    "netstat",
    "sockstat",
    "proc-stat",
    "pmeter-power",
    "ftrace",
    "kernel-size",
];

pub(crate) fn is_kpi(metric: &str) -> bool {
    let ns = metric.split('.').next().unwrap_or("");
    metric.contains('.') && !MONITORS.contains(&ns) && !metric.contains(".time.")
}

/// The changes the reports' headlines state, newest report first, resolved to their rows.
/// The reports are at positions from `first_report` on.
pub(crate) fn headlines_stage(
    docs: &[Document],
    pos_of: &dyn Fn(&str) -> u32,
    job_pos: &JobPos,
    opts: &Options,
    first_report: u32,
) -> Vec<Headline> {
    let mut headlines = Vec::new();
    for (ri, d) in docs.iter().enumerate().rev() {
        let ri = first_report as usize + ri;
        for h in &d.headlines {
            // the section that has this metric for this testcase
            let hit = d.sections.iter().find_map(|s| {
                s.rows
                    .iter()
                    .find(|r| {
                        usable(r) && r.metric == h.metric && (h.testcase.is_empty() || r.job.testcase == h.testcase)
                    })
                    .map(|r| (s, r))
            });
            let (job, base, head, change) = match hit {
                Some((s, r)) => (
                    Some(job_pos.of(&r.job)),
                    s.commits.first().map(|c| pos_of(c)),
                    s.commits.get(1).map(|c| pos_of(c)),
                    r.changes.first().copied().flatten().or(h.change),
                ),
                None => (None, None, None, h.change),
            };
            let word = if h.word.is_empty() {
                match Direction::of((opts.weight)(&h.metric), change.unwrap_or(0.0)) {
                    Direction::Undefined => String::new(),
                    dir => dir.as_str().to_string(),
                }
            } else {
                h.word.clone()
            };
            headlines.push(Headline {
                report: ri as u32,
                job,
                testcase: h.testcase.clone(),
                metric: h.metric.clone(),
                change,
                word,
                base,
                head,
            });
        }
    }
    headlines
}

/// A testcase's summary: its headline metrics (most reported first) and its `detected` steps.
pub(crate) fn testcase_info(tc: &str, headlines: &[Headline], detected: usize) -> TestcaseInfo {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for h in headlines.iter().filter(|h| h.testcase == tc || h.testcase.is_empty()) {
        *counts.entry(&h.metric).or_default() += 1;
    }
    let mut hm: Vec<(&str, usize)> = counts.into_iter().collect();
    hm.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    TestcaseInfo {
        name: tc.to_string(),
        headline_metrics: hm.into_iter().map(|(m, _)| m.to_string()).collect(),
        detected,
        ..Default::default()
    }
}
