//! `lkpx synth`: LKP-shaped synthetic data at chosen sizes, for benchmarks and scale tests.
//! Testcases × parameter combinations × machines × metrics × commits, with noise, occasional
//! steps and missing points; written as published data (through the same model types and paths
//! as real imports) and, optionally, as lkp-tests result roots for the importer.
//!
//! Everything it makes says it is synthetic (commit subjects, report subjects), so it can never
//! pass for real measurements.

use crate::publish::{write_file, write_json, Written};
use model::rng::XorShift as Rng;
use model::{
    paths, ChangesShard, Commit, Headline, Index, Job, JobShard, MetricInfo, Params, Points, ReportMeta, SectionMeta,
    SeriesData, SeriesShard, SourceKind, TestcaseInfo, Totals, SCHEMA_VERSION,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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

/// Write a synthetic published dataset under `out`. Returns what was written and the totals.
pub fn write_published(shape: Shape, out: &Path) -> std::io::Result<(Written, Totals)> {
    let mut rng = Rng::new(shape.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut w = Written::default();
    // shards are written before the index exists: the generation is the shape's identity
    let generation = paths::hash_hex(format!("synth {shape:?}").as_bytes());
    let mut keep = BTreeSet::new();
    let commits: Vec<Commit> = (0..shape.commits)
        .map(|i| {
            let id = format!("{:016x}{:016x}{:08x}", paths::Fnv::new().finish() ^ i as u64, shape.seed, i);
            Commit {
                url: Some(format!(
                    "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id={id}"
                )),
                id,
                subject: Some(format!("synthetic commit {i}")),
                tree: Some("https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git".into()),
                branch: Some("master".into()),
                tag: None,
                time: Some(1_700_000_000 + 86_400 * i as i64),
            }
        })
        .collect();
    // one synthetic report per commit after the first, comparing it with its parent
    let mut reports: Vec<ReportMeta> = (1..shape.commits)
        .map(|i| ReportMeta {
            id: format!("synthetic-{i:05}"),
            kind: SourceKind::ResultRoot,
            source: format!("synthetic/{i}"),
            subject: Some(format!("[synthetic] run {i}")),
            sections: vec![],
            ..Default::default()
        })
        .collect();
    let script = "# synthetic dataset: no real reproduce script\n".to_string();
    let script_hash = paths::hash_hex(script.as_bytes());
    write_file(out, &paths::script(&script_hash), script.as_bytes(), &mut w, &mut keep)?;

    let mut jobs: Vec<Job> = Vec::new();
    let mut metric_info: BTreeMap<String, MetricInfo> = BTreeMap::new();
    let mut testcases = Vec::new();
    let mut headlines = Vec::new();
    let mut totals = Totals::default();
    for tc in 0..shape.testcases {
        let tc_name = if tc < TESTCASES.len() {
            TESTCASES[tc].0.to_string()
        } else {
            format!("{}-{tc}", TESTCASES[tc % TESTCASES.len()].0)
        };
        let metrics = metric_names(tc, shape.metrics_per_testcase);
        let first_job = jobs.len();
        for j in 0..shape.jobs_per_testcase {
            let mut params = Params::new();
            params.insert("fs".into(), FS[j % FS.len()].into());
            params.insert("disk".into(), DISK[(j / FS.len()) % DISK.len()].into());
            params.insert("nr_task".into(), NR_TASK[(j / (FS.len() * DISK.len())) % NR_TASK.len()].into());
            params.insert("runtime".into(), "300s".into());
            params.insert("compiler".into(), "gcc-12".into());
            params.insert("kconfig".into(), "x86_64-rhel-9.4".into());
            params.insert("rootfs".into(), "debian-12-x86_64-20240206.cgz".into());
            let machine = MACHINES[(j / (FS.len() * DISK.len() * NR_TASK.len()) + tc) % MACHINES.len()].to_string();
            let id = model::job_id(&tc_name, &machine, &params);
            jobs.push(Job { id, testcase: tc_name.clone(), machine, params, script: Some(script_hash.clone()) });
        }
        let mut job_series: Vec<Vec<SeriesData>> = vec![Vec::new(); shape.jobs_per_testcase];
        let mut changes = Vec::new();
        let mut tc_metric_ids = Vec::new();
        for (mi, (metric, dir)) in metrics.iter().enumerate() {
            metric_info.entry(metric.clone()).or_insert_with(|| MetricInfo {
                name: metric.clone(),
                direction: *dir,
                kpi: mi == 0,
                fail: false,
            });
            tc_metric_ids.push(metric.clone());
            let mut shard = SeriesShard {
                schema: SCHEMA_VERSION,
                generation: generation.clone(),
                testcase: tc_name.clone(),
                metric: metric.clone(),
                series: vec![],
            };
            for (j, series_of_job) in job_series.iter_mut().enumerate() {
                let job_pos = (first_job + j) as u32;
                let absolute = model::stats::is_absolute_metric(metric);
                let mut level = if absolute { 5.0 + 40.0 * rng.unit() } else { 10f64.powf(1.0 + 6.0 * rng.unit()) };
                let noise = 0.005 + 0.04 * rng.unit();
                let step_at = if rng.unit() < 0.05 { Some(1 + rng.below(shape.commits - 1)) } else { None };
                let step = if rng.unit() < 0.5 { 0.85 } else { 1.15 };
                let mut p = Points::default();
                let mut prev: Option<(u32, f64)> = None;
                for c in 0..shape.commits {
                    if Some(c) == step_at {
                        level *= step;
                    }
                    if rng.unit() < 0.03 {
                        continue; // missing point
                    }
                    let runs = 3 + rng.below(4) as u32;
                    let mean = level * (1.0 + noise * rng.normal() / (runs as f64).sqrt());
                    let sd_pct = (100.0 * noise * (0.5 + rng.unit())).round();
                    p.commit.push(c as u32);
                    p.mean.push(Some(crate::build::printed(mean)));
                    p.stddev_pct.push((sd_pct > 2.0).then_some(sd_pct));
                    p.runs.push(Some(runs));
                    p.report.push(c.saturating_sub(1) as u32);
                    match prev {
                        Some((pc, pm)) if pc + 1 == c as u32 => {
                            p.change.push(Some(crate::build::printed(model::stats::change(metric, pm, mean))));
                            p.base.push(Some(pc));
                        }
                        _ => {
                            p.change.push(None);
                            p.base.push(None);
                        }
                    }
                    prev = Some((c as u32, mean));
                }
                totals.points += p.len();
                totals.series += 1;
                if let (Some(at), 0) = (step_at, mi) {
                    headlines.push(Headline {
                        report: (at - 1) as u32,
                        job: Some(job_pos),
                        testcase: tc_name.clone(),
                        metric: metric.clone(),
                        change: Some(100.0 * (step - 1.0)),
                        word: match model::Direction::of(*dir, step - 1.0) {
                            model::Direction::Regression => "regression".into(),
                            _ => "improvement".into(),
                        },
                        base: Some((at - 1) as u32),
                        head: Some(at as u32),
                    });
                }
                crate::build::detected_changes(job_pos, metric, &p, *dir, &mut changes);
                let sd = SeriesData { job: job_pos, metric: metric.clone(), points: p };
                series_of_job.push(sd.clone());
                shard.series.push(sd);
            }
            let rel = paths::series_shard(&tc_name, metric);
            write_json(out, &rel, &shard, &mut w, &mut keep)?;
        }
        let detected = changes.len();
        let shard =
            ChangesShard { schema: SCHEMA_VERSION, generation: generation.clone(), testcase: tc_name.clone(), changes };
        write_json(out, &paths::changes(&tc_name), &shard, &mut w, &mut keep)?;
        for (j, s) in job_series.into_iter().enumerate() {
            let job = &jobs[first_job + j];
            let shard =
                JobShard { schema: SCHEMA_VERSION, generation: generation.clone(), job: job.id.clone(), series: s };
            write_json(out, &paths::job_shard(&job.id), &shard, &mut w, &mut keep)?;
        }
        testcases.push((
            tc_name,
            (first_job..jobs.len()).map(|j| j as u32).collect::<Vec<_>>(),
            tc_metric_ids,
            metrics[0].0.clone(),
            detected,
        ));
    }
    let metrics: Vec<MetricInfo> = metric_info.into_values().collect();
    let pos: BTreeMap<&str, u32> = metrics.iter().enumerate().map(|(i, m)| (m.name.as_str(), i as u32)).collect();
    let testcases: Vec<TestcaseInfo> = testcases
        .into_iter()
        .map(|(name, jobs, ms, kpi, detected)| TestcaseInfo {
            name,
            jobs,
            metrics: {
                let mut v: Vec<u32> = ms.iter().map(|m| pos[m.as_str()]).collect();
                v.sort();
                v
            },
            headline_metrics: vec![kpi],
            detected,
        })
        .collect();
    // newest report first, as the importer orders headlines
    headlines.sort_by(|a, b| b.report.cmp(&a.report).then(a.testcase.cmp(&b.testcase)));
    for r in &mut reports {
        r.sections = vec![SectionMeta { job: None, commits: vec![], rows: 0, machine: None }];
    }
    totals.reports = reports.len();
    totals.jobs = jobs.len();
    let index = Index {
        schema: SCHEMA_VERSION,
        generation: generation.clone(),
        commits,
        reports,
        jobs,
        metrics,
        testcases,
        headlines,
        totals: totals.clone(),
    };
    write_json(out, paths::INDEX, &index, &mut w, &mut keep)?;
    Ok((w, totals))
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
            matrix.insert(m, (0..runs).map(|_| crate::build::printed(level * (1.0 + 0.02 * rng.normal()))).collect());
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
        let index: Index = serde_json::from_slice(&std::fs::read(dir.join(paths::INDEX)).unwrap()).unwrap();
        assert_eq!(index.jobs.len(), 10);
        let tc = &index.testcases[0];
        let metric = &index.metrics[tc.metrics[0] as usize].name;
        let shard: SeriesShard =
            serde_json::from_slice(&std::fs::read(dir.join(paths::series_shard(&tc.name, metric))).unwrap()).unwrap();
        assert_eq!(shard.series.len(), 5);
        assert!(index.commits.iter().all(|c| c.subject.as_deref().unwrap().starts_with("synthetic")));
        // deterministic
        let again = dir.join("again");
        write_published(shape, &again).unwrap();
        assert_eq!(std::fs::read(dir.join(paths::INDEX)).unwrap(), std::fs::read(again.join(paths::INDEX)).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
