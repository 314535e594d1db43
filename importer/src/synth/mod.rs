//! `lkpx synth`: LKP-shaped synthetic data at chosen sizes, for benchmarks and scale tests.
//! Testcases × parameter combinations × machines × metrics × commits, with noise, occasional
//! steps and missing points; written as published data (through the same model types and paths
//! as real imports) and, optionally, as lkp-tests result roots for the importer.
//!
//! Everything it makes says it is synthetic (commit subjects, report subjects), so it can never
//! pass for real measurements. `mails` writes robot mails derived from real ones (`--mails N`).

pub mod mails;

use crate::build::gitlog::GitLogEntry;
use crate::store::publish::Written;
use model::rng::XorShift as Rng;
use model::{paths, Params, SourceKind, Totals};
use reader::doc::{Document, JobKey, Row, Section};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Shape of a synthetic dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub testcases: usize,
    pub jobs_per_testcase: usize,
    pub metrics_per_testcase: usize,
    pub commits: usize,
    pub seed: u64,
}

impl Shape {
    /// `small` (10^4 points), `medium` (10^6), `large` (10^7 points, 10^5 series), and `redraw`
    /// (one testcase, 20 jobs × 1,000 commits per metric: the chart-drawing benchmark).
    pub fn named(name: &str) -> Option<Shape> {
        let (t, j, m, c) = match name {
            "small" => (2, 5, 20, 50),
            "medium" => (10, 20, 50, 100),
            "large" => (20, 50, 100, 100),
            "redraw" => (1, 20, 4, 1000),
            _ => return None,
        };
        Some(Shape { testcases: t, jobs_per_testcase: j, metrics_per_testcase: m, commits: c, seed: 1 })
    }

    pub fn series(&self) -> usize {
        self.testcases * self.jobs_per_testcase * self.metrics_per_testcase
    }
}

const TESTCASES: [(&str, &str, i8); 20] = [
    ("fio-basic", "fio.write_iops", 1),
    ("blogbench", "blogbench.write_score", 1),
    ("will-it-scale", "will-it-scale.per_process_ops", 1),
    ("vm-scalability", "vm-scalability.throughput", 1),
    ("fsmark", "fsmark.files_per_sec", 1),
    ("aim7", "aim7.jobs-per-min", 1),
    ("reaim", "reaim.jobs_per_min", 1),
    ("hackbench", "hackbench.throughput", 1),
    ("netperf", "netperf.Throughput_Mbps", 1),
    ("stress-ng", "stress-ng.ops_per_sec", 1),
    ("unixbench", "unixbench.score", 1),
    ("fxmark", "fxmark.works/sec", 1),
    ("filebench", "filebench.sum_operations/s", 1),
    ("postmark", "postmark.transactions", 1),
    ("dbench", "dbench.throughput-MB/sec", 1),
    ("ebizzy", "ebizzy.throughput", 1),
    ("pft", "pft.faults_per_sec_per_cpu", 1),
    ("fileio", "fileio.latency_95th_ms", -1),
    ("schbench", "schbench.latency_90%_us", -1),
    ("swapin", "swapin.throughput", 1),
];

const MONITOR_METRICS: [&str; 16] = [
    "vmstat.system.cs",
    "vmstat.system.in",
    "vmstat.io.bo",
    "proc-vmstat.pgfault",
    "proc-vmstat.numa_hit",
    "meminfo.Dirty",
    "slabinfo.kmalloc-512.num_objs",
    "mpstat.cpu.all.idle%",
    "mpstat.cpu.all.sys%",
    "turbostat.PkgWatt",
    "perf-stat.i.ipc",
    "perf-stat.i.cache-misses",
    "perf-stat.overall.cpi",
    "perf-profile.children.cycles-pp.native_queued_spin_lock_slowpath",
    "perf-profile.self.cycles-pp._raw_spin_lock",
    "sched_debug.cpu.nr_running.avg",
];

const MACHINES: [&str; 6] =
    ["lkp-icl-2sp2", "lkp-csl-2sp7", "lkp-spr-2sp4", "lkp-skl-d07", "lkp-cpl-4sp2", "lkp-gnr-2ap2"];
const FS: [&str; 4] = ["xfs", "ext4", "btrfs", "f2fs"];
const DISK: [&str; 4] = ["1HDD", "1SSD", "2pmem", "1BRD_48G"];
const NR_TASK: [&str; 4] = ["1", "25%", "50%", "100%"];

fn metric_names(tc: usize, n: usize) -> Vec<(String, i8)> {
    let (name, kpi, dir) = TESTCASES[tc % TESTCASES.len()];
    let ns = kpi.split('.').next().unwrap_or(name);
    let mut out = vec![(kpi.to_string(), dir)];
    out.push((format!("{ns}.time.elapsed_time"), 0));
    out.push((format!("{ns}.time.voluntary_context_switches"), 0));
    for m in MONITOR_METRICS {
        out.push((m.to_string(), 0));
    }
    let mut k = 0;
    while out.len() < n {
        out.push((format!("perf-profile.calltrace.cycles-pp.synthetic_fn_{k}"), 0));
        k += 1;
    }
    out.truncate(n);
    out
}

/// A synthetic commit id (40 hex digits) of commit `i`.
fn commit_id(i: usize, seed: u64) -> String {
    format!("{:016x}{:016x}{:08x}", paths::Fnv::new().finish() ^ i as u64, seed, i)
}

/// The synthetic measurements as documents, one per testcase and commit (as lkp-tests result
/// roots are: one column each), with a git log giving the commit order and subjects.
pub fn documents(shape: Shape) -> (Vec<Document>, Vec<GitLogEntry>) {
    let mut rng = Rng::new(shape.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let log: Vec<GitLogEntry> = (0..shape.commits)
        .map(|i| GitLogEntry {
            sha: commit_id(i, shape.seed),
            time: 1_700_000_000 + 86_400 * i as i64,
            subject: format!("synthetic commit {i}"),
        })
        .collect();
    let mut docs = Vec::new();
    for tc in 0..shape.testcases {
        let tc_name = if tc < TESTCASES.len() {
            TESTCASES[tc].0.to_string()
        } else {
            format!("{}-{tc}", TESTCASES[tc % TESTCASES.len()].0)
        };
        let metrics = metric_names(tc, shape.metrics_per_testcase);
        let jobs: Vec<Arc<JobKey>> = (0..shape.jobs_per_testcase).map(|j| Arc::new(job_key(&tc_name, tc, j))).collect();
        // per (job, metric): level, noise, optional step
        let mut series: Vec<(f64, f64, Option<usize>, f64)> = Vec::new();
        for _ in 0..jobs.len() {
            for (metric, _) in &metrics {
                let absolute = model::stats::is_absolute_metric(metric);
                let level = if absolute { 5.0 + 40.0 * rng.unit() } else { 10f64.powf(1.0 + 6.0 * rng.unit()) };
                let noise = 0.005 + 0.04 * rng.unit();
                let step_at = if rng.unit() < 0.05 { Some(1 + rng.below(shape.commits - 1)) } else { None };
                let step = if rng.unit() < 0.5 { 0.85 } else { 1.15 };
                series.push((level, noise, step_at, step));
            }
        }
        for (c, commit) in log.iter().enumerate() {
            let mut sections = Vec::new();
            for (j, job) in jobs.iter().enumerate() {
                let mut rows = Vec::new();
                for (mi, (metric, _)) in metrics.iter().enumerate() {
                    let (level, noise, step_at, step) = series[j * metrics.len() + mi];
                    if rng.unit() < 0.03 {
                        continue; // missing point
                    }
                    let level = if step_at.is_some_and(|a| c >= a) { level * step } else { level };
                    let runs = 3 + rng.below(4) as u32;
                    let mean = level * (1.0 + noise * rng.normal() / (runs as f64).sqrt());
                    let sd_pct = (100.0 * noise * (0.5 + rng.unit())).round();
                    rows.push(Row {
                        job: job.clone(),
                        metric: metric.clone(),
                        values: vec![Some(crate::build::changes::printed(mean))],
                        stddev_pct: vec![(sd_pct > 2.0).then_some(sd_pct)],
                        runs: vec![Some(runs)],
                        ..Default::default()
                    });
                }
                sections.push(Section { index: j, commits: vec![commit.sha.clone()], machine_desc: None, rows });
            }
            docs.push(Document {
                source: format!("synthetic/{tc_name}/{c}"),
                kind: SourceKind::ResultRoot,
                subject: Some(format!("[synthetic] {tc_name} run {c}")),
                date: Some(format!("{} +0000", date_of(commit.time))),
                script: Some("# synthetic dataset: no real reproduce script\n".into()),
                script_is_file: true,
                sections,
                ..Default::default()
            });
        }
    }
    (docs, log)
}

/// `1 Jan 2024 00:00:00`-style date of unix seconds (what `model::date::parse_date` reads).
fn date_of(t: i64) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let (y, m, d) = model::date::civil_from_days(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    format!("{d} {} {y} {:02}:{:02}:{:02}", MONTHS[(m - 1) as usize], s / 3600, s / 60 % 60, s % 60)
}

fn job_key(tc_name: &str, tc: usize, j: usize) -> JobKey {
    let mut params = Params::new();
    params.insert("fs".into(), FS[j % FS.len()].into());
    params.insert("disk".into(), DISK[(j / FS.len()) % DISK.len()].into());
    params.insert("nr_task".into(), NR_TASK[(j / (FS.len() * DISK.len())) % NR_TASK.len()].into());
    params.insert("runtime".into(), "300s".into());
    params.insert("compiler".into(), "gcc-12".into());
    params.insert("kconfig".into(), "x86_64-rhel-9.4".into());
    params.insert("rootfs".into(), "debian-12-x86_64-20240206.cgz".into());
    let machine = MACHINES[(j / (FS.len() * DISK.len() * NR_TASK.len()) + tc) % MACHINES.len()].to_string();
    JobKey { testcase: tc_name.to_string(), machine, params }
}

/// Write a synthetic published dataset under `out`, through the importer's own build, packing
/// and publishing. Returns what was written and the totals.
pub fn write_published(shape: Shape, out: &Path) -> std::io::Result<(Written, Totals)> {
    let (docs, log) = documents(shape);
    let weight = |m: &str| TESTCASES.iter().find(|t| t.1 == m).map_or(0, |t| t.2);
    let opts = crate::build::options::Options { commit_url: None, git_log: log, weight: &weight };
    let (data, _) = crate::build::build(docs, &opts);
    let (files, root) = crate::store::pack::files(data);
    let w = crate::store::publish::publish(&files, &root, out, crate::store::publish::Sweep::All)?;
    Ok((w, root.totals))
}

/// Write `n` lkp-tests result roots (commit directories with job.yaml, per-run stats.json and
/// a commit-level matrix.json) under `out`, for importer throughput in result roots per second.
pub fn write_result_roots(n: usize, out: &Path, seed: u64) -> std::io::Result<usize> {
    let mut rng = Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut files = 0;
    for i in 0..n {
        let fs = FS[i % FS.len()];
        let commit = format!("{:040x}", 0xabc0_0000u64 + i as u64);
        let dir = out.join(format!(
            "fio-basic/4k-gcc-12-performance-1SSD-{fs}-sync-x86_64-rhel-9.4-300s-write/lkp-icl-2sp2/debian-12.cgz/x86_64-rhel-9.4/gcc-12/{commit}"
        ));
        let runs = 3;
        let mut matrix: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for (m, _) in metric_names(0, 20) {
            let level = 10f64.powf(1.0 + 5.0 * rng.unit());
            matrix.insert(
                m,
                (0..runs).map(|_| crate::build::changes::printed(level * (1.0 + 0.02 * rng.normal()))).collect(),
            );
        }
        for r in 0..runs {
            let rd = dir.join(r.to_string());
            std::fs::create_dir_all(&rd)?;
            let job = format!(
                "suite: fio-basic\ntestcase: fio-basic\ncategory: benchmark\ntbox_group: lkp-icl-2sp2\ntestbox: lkp-icl-2sp2\n\
                 commit: {commit}\nrootfs: debian-12.cgz\nkconfig: x86_64-rhel-9.4\ncompiler: gcc-12\ndisk: 1SSD\nfs: {fs}\n\
                 runtime: 300s\ncpufreq_governor: performance\nfio-setup-basic:\n  rw: write\n  bs: 4k\n  ioengine: sync\n"
            );
            std::fs::write(rd.join("job.yaml"), job)?;
            let stats: BTreeMap<&String, f64> = matrix.iter().map(|(k, v)| (k, v[r])).collect();
            std::fs::write(rd.join("stats.json"), serde_json::to_vec(&stats).map_err(std::io::Error::other)?)?;
            std::fs::write(rd.join("reproduce.sh"), "# synthetic result root\n")?;
            files += 3;
        }
        let mut m = serde_json::to_value(&matrix).map_err(std::io::Error::other)?;
        m["stats_source"] =
            serde_json::json!((0..runs).map(|r| format!("{}/{r}/stats.json", dir.display())).collect::<Vec<_>>());
        std::fs::write(dir.join("matrix.json"), serde_json::to_vec(&m).map_err(std::io::Error::other)?)?;
        files += 1;
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_dataset_reads_back_through_the_model() {
        let dir = std::env::temp_dir().join(format!("lkpx-synth-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let shape = Shape::named("small").unwrap();
        let (_, totals) = write_published(shape, &dir).unwrap();
        assert_eq!(totals.series, shape.series());
        assert!(totals.points > 9_000 && totals.points <= 10_000, "{}", totals.points);
        let data = crate::store::dataset::Published::open(&dir).unwrap();
        let index = &data.index;
        assert_eq!(index.jobs.len(), 10);
        let tc = &index.testcases[0];
        let metric = &index.metrics[tc.metrics[0] as usize].name;
        let shard = data.series(&tc.name, metric).unwrap();
        assert_eq!(shard.series.len(), 5);
        assert!(index.commits.iter().all(|c| c.subject.as_deref().unwrap().starts_with("synthetic")));
        assert_eq!(date_of(1_700_000_000), "14 Nov 2023 22:13:20");
        // deterministic
        let again = dir.join("again");
        write_published(shape, &again).unwrap();
        assert_eq!(std::fs::read(dir.join(paths::INDEX)).unwrap(), std::fs::read(again.join(paths::INDEX)).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
