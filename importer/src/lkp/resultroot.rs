//! Reads lkp-tests result roots (`docs/lkp-formats.md` §1–§2): one commit directory
//! `<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/` with its run
//! directories `0/ 1/ …` becomes one [`Document`] with one section and one row per stat.
//!
//! Numbers are computed as lkp computes them: a run's `stats.json` is used when present, else it is
//! reduced from the run's per-monitor `<monitor>.json` files (`create_stats_matrix` in
//! `lib/matrix.rb`); the commit's `matrix.json` is used when present, else built from the runs'
//! stats with missing stats padded with 0 (`add_stats_to_matrix`, `matrix_fill_missing_zeros`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use model::{Params, SourceKind};
use serde_json::Value;

use reader::direction::{self, complete_runs, is_function_stat, keep_runs, INCOMPLETE_RUN};
use reader::doc::{CommitInfo, Document, JobKey, Row, RowKind, Section};

/// Errors name the file, and the line/column for JSON and YAML syntax errors.
#[derive(Debug, thiserror::Error)]
pub enum ResultRootError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: invalid JSON: {message}")]
    Json { path: PathBuf, line: usize, column: usize, message: String },
    #[error("{path}:{line}:{column}: invalid YAML: {message}")]
    Yaml { path: PathBuf, line: usize, column: usize, message: String },
    /// The file parses but does not have the shape lkp writes.
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    /// The directory has nothing to read (no matrix, no run with stats, no job.yaml).
    #[error("{path}: not an lkp-tests commit result directory: {message}")]
    NotResultRoot { path: PathBuf, message: String },
}

fn io_err(path: &Path, source: std::io::Error) -> ResultRootError {
    ResultRootError::Io { path: path.to_path_buf(), source }
}

/// The per-run values of every stat of one commit (lkp's commit-level `matrix.json`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommitMatrix {
    /// Number of runs (columns). Every vector of `stats` has this length.
    pub columns: usize,
    /// Stat name -> one value per run. String-valued stats are left out.
    pub stats: BTreeMap<String, Vec<f64>>,
    /// `stats_source` of the matrix (the run's stats.json per column), or the run dirs it was built from.
    pub sources: Vec<String>,
}

/// What lkp derives from one run directory: `stats.json` (one number per stat) and the per-run
/// `matrix.json` (every monitor's raw samples).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    pub stats: BTreeMap<String, f64>,
    pub matrix: BTreeMap<String, Vec<f64>>,
}

// ------------------------------------------------------------------------------------------------
// Finding commit directories

/// Every commit directory under `dir` (or `dir` itself), sorted. A commit directory has numbered
/// run subdirectories holding `stats.json(.gz)`, `job.yaml` or monitor JSON, or has a
/// `matrix.json(.gz)` and no commit directory below it (the compiler directory `__rt` also has a
/// `matrix.json`, spanning commits, and must not be taken for one). Symlinked directories are not
/// followed, so a loop cannot trap the walk.
pub fn find_result_roots(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// Returns whether `dir` is or contains a commit directory.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let mut subdirs = Vec::new();
    let mut has_run = false;
    for entry in entries.flatten() {
        let Ok(ft) = entry.file_type() else { continue };
        if !ft.is_dir() {
            continue;
        }
        let path = entry.path();
        if is_run_name(&entry.file_name().to_string_lossy()) && looks_like_run(&path) {
            has_run = true;
        } else {
            subdirs.push(path);
        }
    }
    if has_run {
        out.push(dir.to_path_buf());
        return true;
    }
    let mut below = false;
    subdirs.sort();
    for sub in subdirs {
        below |= walk(&sub, out);
    }
    if !below && find_json(dir, "matrix").is_some() {
        out.push(dir.to_path_buf());
        return true;
    }
    below
}

fn is_run_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

fn looks_like_run(dir: &Path) -> bool {
    if dir.join("job.yaml").is_file() || find_json(dir, "stats").is_some() {
        return true;
    }
    fs::read_dir(dir)
        .map(|rd| {
            rd.flatten().any(|e| {
                let n = e.file_name();
                let n = n.to_string_lossy();
                n.ends_with(".json") || n.ends_with(".json.gz")
            })
        })
        .unwrap_or(false)
}

/// `<stem>.json`, else `<stem>.json.gz` (lkp writes either).
pub fn find_json(dir: &Path, stem: &str) -> Option<PathBuf> {
    let plain = dir.join(format!("{stem}.json"));
    if plain.is_file() {
        return Some(plain);
    }
    let gz = dir.join(format!("{stem}.json.gz"));
    gz.is_file().then_some(gz)
}

/// The run directories of a commit directory, in run order.
fn run_dirs(dir: &Path) -> Result<Vec<PathBuf>, ResultRootError> {
    let mut runs: Vec<(u64, PathBuf)> = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io_err(dir, e))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_run_name(&name) && entry.path().is_dir() {
            runs.push((name.parse().unwrap_or(u64::MAX), entry.path()));
        }
    }
    runs.sort();
    Ok(runs.into_iter().map(|(_, p)| p).collect())
}

// ------------------------------------------------------------------------------------------------
// Reading one commit directory

/// Reads one commit directory into a [`Document`] of kind `ResultRoot`: one section whose only
/// commit is this one, and one row per stat with the mean, the stddev percent, the number of runs
/// and the per-run values. Incomplete runs (`last_state.is_incomplete_run == 1`) are dropped.
pub fn read_commit_dir(dir: &Path, source: &str) -> Result<Document, ResultRootError> {
    let runs = run_dirs(dir)?;
    let job_path = runs.iter().map(|r| r.join("job.yaml")).find(|p| p.is_file());
    let job = match &job_path {
        Some(p) => Some(read_job(p)?),
        None => None,
    };
    let matrix = match commit_matrix(dir) {
        Ok(m) => Some(m),
        Err(ResultRootError::NotResultRoot { .. }) => None,
        Err(e) => return Err(e),
    };

    let path_axes = PathAxes::from_commit_dir(dir);
    let testcase = job
        .as_ref()
        .and_then(|j| j.str("testcase"))
        .or_else(|| path_axes.as_ref().map(|a| a.testcase.clone()))
        .ok_or_else(|| ResultRootError::NotResultRoot {
            path: dir.to_path_buf(),
            message: "no job.yaml, and the path does not name the testcase".into(),
        })?;
    // The path only describes this job when it is laid out for this testcase.
    let path_axes = path_axes.filter(|a| a.testcase == testcase);
    let dir_name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let commit = job
        .as_ref()
        .and_then(|j| j.str("commit"))
        .or_else(|| path_axes.as_ref().map(|a| a.commit.clone()))
        .unwrap_or(dir_name);
    let machine = job
        .as_ref()
        .and_then(|j| j.str("tbox_group"))
        .or_else(|| path_axes.as_ref().map(|a| a.tbox_group.clone()))
        .unwrap_or_default();

    let mut params = job.as_ref().map(|j| j.params()).unwrap_or_default();
    if let Some(axes) = &path_axes {
        for (k, v) in [("rootfs", &axes.rootfs), ("kconfig", &axes.kconfig), ("compiler", &axes.compiler)] {
            params.entry(k.to_string()).or_insert_with(|| v.clone());
        }
    }
    let job_key = JobKey { testcase, machine, params };

    let rows = match matrix {
        Some(m) => rows_from_matrix(&drop_incomplete_runs(m), &job_key),
        None => rows_from_averages(dir, &job_key)?,
    };

    let script = runs
        .iter()
        .map(|r| r.join("reproduce.sh"))
        .find(|p| p.is_file())
        .map(|p| fs::read(&p).map_err(|e| io_err(&p, e)))
        .transpose()?
        .map(|b| String::from_utf8_lossy(&b).into_owned());

    Ok(Document {
        source: source.to_string(),
        kind: SourceKind::ResultRoot,
        script,
        commits: vec![CommitInfo {
            id: commit.clone(),
            branch: job.as_ref().and_then(|j| j.str("branch")),
            ..CommitInfo::default()
        }],
        sections: vec![Section {
            index: 0,
            commits: vec![commit],
            machine_desc: job.as_ref().and_then(|j| j.machine_desc()),
            rows,
        }],
        ..Document::default()
    })
}

/// The commit's matrix: its `matrix.json(.gz)` when present, else built from the runs' stats.
/// Incomplete runs are kept (the comparer needs them); `NotResultRoot` when there is neither.
pub fn commit_matrix(dir: &Path) -> Result<CommitMatrix, ResultRootError> {
    if let Some(path) = find_json(dir, "matrix") {
        return read_matrix_file(&path);
    }
    let mut per_run = Vec::new();
    for run in run_dirs(dir)? {
        if let Some(stats) = load_run_stats(&run)? {
            per_run.push((run.to_string_lossy().into_owned(), stats));
        }
    }
    if per_run.is_empty() {
        return Err(ResultRootError::NotResultRoot {
            path: dir.to_path_buf(),
            message: "no matrix.json and no run with stats".into(),
        });
    }
    Ok(matrix_from_runs(per_run))
}

/// lkp's `unite_to` for a commit directory: columns in run order, stats missing from a run padded
/// with 0, per-CPU `sched_debug.*.<n>` and all-zero stats removed.
fn matrix_from_runs(per_run: Vec<(String, BTreeMap<String, f64>)>) -> CommitMatrix {
    let columns = per_run.len();
    let mut stats: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut sources = Vec::with_capacity(columns);
    for (col, (source, run)) in per_run.into_iter().enumerate() {
        sources.push(source);
        for (k, v) in run {
            let row = stats.entry(k).or_default();
            row.resize(col, 0.0);
            row.push(v);
        }
    }
    stats.retain(|k, v| {
        v.resize(columns, 0.0);
        // lkp drops rows that are all *integer* zero; we cannot tell 0 from 0.0 once parsed, and a
        // row of zeros says nothing either way.
        !is_per_cpu_sched_debug(k) && v.iter().any(|x| *x != 0.0)
    });
    CommitMatrix { columns, stats, sources }
}

fn is_per_cpu_sched_debug(k: &str) -> bool {
    k.starts_with("sched_debug") && k.rsplit_once('.').is_some_and(|(_, last)| is_run_name(last))
}

/// Removes the columns of runs with `last_state.is_incomplete_run == 1`, and that row.
fn drop_incomplete_runs(mut m: CommitMatrix) -> CommitMatrix {
    let Some(flags) = m.stats.remove(INCOMPLETE_RUN) else {
        return m;
    };
    let keep = complete_runs(&flags, m.columns);
    for v in m.stats.values_mut() {
        keep_runs(v, &keep);
    }
    keep_runs(&mut m.sources, &keep);
    m.columns = keep.iter().filter(|k| **k).count();
    m
}

fn rows_from_matrix(m: &CommitMatrix, job: &JobKey) -> Vec<Row> {
    let job = std::sync::Arc::new(job.clone());
    if m.columns == 0 {
        return Vec::new();
    }
    m.stats
        .iter()
        .map(|(stat, values)| {
            let n = values.len();
            let mean = model::stats::mean(values).unwrap_or(0.0);
            let stddev_pct =
                model::stats::pop_stddev(values).filter(|_| mean != 0.0).map(|sd| (100.0 * sd / mean).abs());
            // computed figures carry the digits they mean: 9 significant for a mean, 3 for a stddev %
            let (mean, stddev_pct) =
                (model::stats::round_sig(mean, 9), stddev_pct.map(|s| model::stats::round_sig(s, 3)));
            let fail = is_function_stat(stat);
            Row {
                kind: if fail { RowKind::Fail } else { RowKind::Perf },
                job: job.clone(),
                metric: stat.clone(),
                values: vec![Some(mean)],
                stddev_pct: vec![stddev_pct],
                fails: if fail { vec![Some(values.iter().sum::<f64>().round().max(0.0) as u32)] } else { Vec::new() },
                runs: vec![Some(n as u32)],
                run_values: vec![Some(values.clone())],
                ..Row::default()
            }
        })
        .collect()
}

/// Fallback for a commit directory that kept only `avg.json` (and maybe `stddev.json`).
fn rows_from_averages(dir: &Path, job: &JobKey) -> Result<Vec<Row>, ResultRootError> {
    let job = std::sync::Arc::new(job.clone());
    let Some(avg_path) = find_json(dir, "avg") else {
        return Err(ResultRootError::NotResultRoot {
            path: dir.to_path_buf(),
            message: "no matrix.json, avg.json or run with stats".into(),
        });
    };
    let avg = read_scalar_map(&avg_path)?;
    let stddev = match find_json(dir, "stddev") {
        Some(p) => read_scalar_map(&p)?,
        None => BTreeMap::new(),
    };
    Ok(avg
        .into_iter()
        .map(|(stat, mean)| {
            let fail = is_function_stat(&stat);
            let stddev_pct = stddev.get(&stat).filter(|_| mean != 0.0).map(|sd| (100.0 * sd / mean).abs());
            Row {
                kind: if fail { RowKind::Fail } else { RowKind::Perf },
                job: job.clone(),
                metric: stat,
                values: vec![Some(mean)],
                stddev_pct: vec![stddev_pct],
                runs: vec![None],
                run_values: vec![None],
                ..Row::default()
            }
        })
        .collect())
}

// ------------------------------------------------------------------------------------------------
// Axes from the path

/// The axes the default path scheme puts above a commit's runs.
#[derive(Debug, Clone)]
struct PathAxes {
    testcase: String,
    tbox_group: String,
    rootfs: String,
    kconfig: String,
    compiler: String,
    commit: String,
}

impl PathAxes {
    /// `…/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>`.
    fn from_commit_dir(dir: &Path) -> Option<PathAxes> {
        let parts: Vec<String> = dir
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let n = parts.len();
        if n < 7 {
            return None;
        }
        Some(PathAxes {
            testcase: parts[n - 7].clone(),
            tbox_group: parts[n - 5].clone(),
            rootfs: parts[n - 4].clone(),
            kconfig: parts[n - 3].clone(),
            compiler: parts[n - 2].clone(),
            commit: parts[n - 1].clone(),
        })
    }
}

// ------------------------------------------------------------------------------------------------
// job.yaml

/// A run's `job.yaml` (first YAML document, as lkp's `Job#load`).
#[derive(Debug, Clone, Default)]
pub struct JobYaml {
    pub map: serde_norway::Mapping,
}

/// Keys of a result-dir job.yaml that are not test parameters (docs §2: queue, host, build/boot
/// and runtime-status keys, plus the scheduler's bookkeeping seen in real job.yaml files).
const NOT_PARAMS: &[&str] = &[
    // test identity (kept elsewhere in the JobKey, or implied by it)
    "suite",
    "testcase",
    "category",
    "job_origin",
    // queue
    "queue",
    "testbox",
    "tbox_group",
    "branch",
    "commit",
    "head_commit",
    "base_commit",
    "repeat_to",
    "submit_id",
    "job_file",
    "id",
    "queuer_version",
    "scheduler_version",
    "enqueue_time",
    "_id",
    "_rt",
    "queue_cmdline_keys",
    "queue_at_least_once",
    "schedule_notify_address",
    "monitor_sha",
    "kbuild_queue_analysis",
    "bisect_dmesg",
    "good_samples",
    "bad_samples",
    "avoid_nfs",
    "run_on_local_disk",
    "timeout",
    // lkp derives these from `stats_part` (kept) for the stats reduction
    "stats_part_begin",
    "stats_part_end",
    // host
    "model",
    "nr_node",
    "nr_cpu",
    "memory",
    "brand",
    // The microcode version was an axis until about 2021 (`…-ucode=0x5003006` in the path, `ucode` in
    // the mails' axes); lkp has since left it out of both, and we follow current lkp.
    "ucode",
    // build / boot
    "arch",
    "kernel",
    "result_root",
    "initrd",
    "bootloader_append",
    "boot_params",
    "max_uptime",
    "user",
    "site",
    // runtime status
    "dequeue_time",
    "job_state",
    "loadavg",
    "start_time",
    "end_time",
    "version",
    "last_kernel",
];

/// Monitors whose options (`perf-profile: {delay: 15}`) must not be taken for test parameters;
/// lkp knows them from `programs/*/monitor`, which we do not ship, so the common ones are listed.
const MONITORS: &[&str] = &[
    "bdi_dev_mapping",
    "boot-time",
    "buddyinfo",
    "cpufreq-stats",
    "cpuidle",
    "diskstats",
    "energy",
    "ethtool",
    "ftrace",
    "heartbeat",
    "interrupts",
    "iostat",
    "kmsg",
    "latency_stats",
    "lock_stat",
    "meminfo",
    "mpstat",
    "nfsstat",
    "numa-meminfo",
    "numa-numastat",
    "numa-vmstat",
    "oom-killer",
    "pagetypeinfo",
    "perf-c2c",
    "perf-profile",
    "perf-sched",
    "perf-stat",
    "pmeter",
    "pmu-tools",
    "proc-stat",
    "proc-vmstat",
    "sched_debug",
    "slabinfo",
    "softirqs",
    "turbostat",
    "uptime",
    "vmstat",
    "watchdog",
    "zoneinfo",
];

fn is_param_key(k: &str) -> bool {
    !(NOT_PARAMS.contains(&k)
        || k.ends_with("_partitions")
        || k.ends_with("_partition")
        || k.ends_with("_initrd")
        || k.starts_with("need_")
        || k.starts_with("kernel_cmdline")
        || k.starts_with("LKP_")
        // lkp keeps `#! <file>` comment headers as symbol keys (`:#! include/…:`)
        || k.starts_with(":#")
        || k.starts_with('#'))
}

impl JobYaml {
    /// A top-level scalar as a string.
    pub fn str(&self, key: &str) -> Option<String> {
        self.map.get(key).and_then(scalar_string).filter(|s| !s.is_empty())
    }

    /// The test parameters: scalar leaves, nested program options flattened
    /// (`fio-setup-basic: {rw, bs}` -> `rw`, `bs`); lists, nulls and monitors' options left out.
    pub fn params(&self) -> Params {
        let mut out = Params::new();
        collect_params(&self.map, &mut out);
        // lkp names the rootfs by its file name (`rootfs_filename`): the path and the mail axes
        // show `debian-x86_64-phoronix` for `internal-lkp-server:/osimage/debian/debian-x86_64-phoronix`.
        if let Some(r) = out.get_mut("rootfs") {
            if let Some(last) = r.rsplit(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c))).next() {
                *r = last.to_string();
            }
        }
        out
    }

    /// `96 threads Intel(R) Xeon(R) … (Cascade Lake) with 128G memory`, from the host keys.
    pub fn machine_desc(&self) -> Option<String> {
        let nr_cpu = self.str("nr_cpu");
        let brand = self.str("brand");
        let model = self.str("model");
        let memory = self.str("memory");
        if nr_cpu.is_none() && brand.is_none() && model.is_none() {
            return None;
        }
        let mut s = String::new();
        if let Some(n) = nr_cpu {
            s.push_str(&format!("{n} threads"));
        }
        if let Some(b) = brand {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&b);
        }
        if let Some(m) = model {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&format!("({m})"));
        }
        if let Some(m) = memory {
            s.push_str(&format!(" with {m} memory"));
        }
        Some(s)
    }
}

fn collect_params(map: &serde_norway::Mapping, out: &mut Params) {
    for (k, v) in map {
        let Some(key) = k.as_str() else { continue };
        if !is_param_key(key) {
            continue;
        }
        match v {
            serde_norway::Value::Null | serde_norway::Value::Sequence(_) => {}
            serde_norway::Value::Mapping(m) => {
                if !MONITORS.contains(&key) {
                    collect_params(m, out);
                }
            }
            serde_norway::Value::Tagged(t) => {
                if let Some(s) = scalar_string(&t.value) {
                    out.insert(key.to_string(), s);
                }
            }
            _ => {
                if let Some(s) = scalar_string(v) {
                    out.insert(key.to_string(), s);
                }
            }
        }
    }
}

/// A YAML scalar as text. (YAML reads an unquoted `0x16` as the number 22; lkp quotes such
/// values, e.g. `ucode: '0x4003303'`, so the text is kept.)
fn scalar_string(v: &serde_norway::Value) -> Option<String> {
    match v {
        serde_norway::Value::String(s) => Some(s.clone()),
        serde_norway::Value::Bool(b) => Some(b.to_string()),
        serde_norway::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Reads `job.yaml`: the first document of the stream.
pub fn read_job(path: &Path) -> Result<JobYaml, ResultRootError> {
    let text = fs::read(path).map_err(|e| io_err(path, e))?;
    let text = String::from_utf8_lossy(&text);
    let yaml_err = |e: serde_norway::Error| {
        let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
        ResultRootError::Yaml { path: path.to_path_buf(), line, column, message: e.to_string() }
    };
    let first = serde_norway::Deserializer::from_str(&text).next();
    let value = match first {
        Some(doc) => serde::Deserialize::deserialize(doc).map_err(yaml_err)?,
        None => serde_norway::Value::Null,
    };
    match value {
        serde_norway::Value::Mapping(map) => Ok(JobYaml { map }),
        serde_norway::Value::Null => Ok(JobYaml::default()),
        _ => Err(ResultRootError::Format { path: path.to_path_buf(), message: "job.yaml is not a mapping".into() }),
    }
}

// ------------------------------------------------------------------------------------------------
// JSON with NaN / Infinity

/// Stand-ins for the bare `NaN`, `Infinity`, `-Infinity` lkp's JSON writer emits (`allow_nan`),
/// which JSON parsers reject: a string of exactly the token's length, so that the line and
/// column of any later syntax error stay right. DEL (0x7f) may appear raw in a JSON string but
/// not in anything lkp writes, so the stand-ins cannot be mistaken for real strings.
const NAN_MARK: &str = "\u{7f}";
const POS_INF_MARK: &str = "\u{7f}+    ";
const NEG_INF_MARK: &str = "\u{7f}-     ";

/// Replaces bare `NaN`, `Infinity` and `-Infinity` outside strings by same-length stand-ins.
pub fn sanitize_json(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut start = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let boundary_before = i == 0 || !is_word_byte(bytes[i - 1]);
        let token = [("-Infinity", NEG_INF_MARK), ("Infinity", POS_INF_MARK), ("NaN", NAN_MARK)].into_iter().find(
            |(tok, _)| {
                boundary_before
                    && bytes[i..].starts_with(tok.as_bytes())
                    && bytes.get(i + tok.len()).is_none_or(|&next| !is_word_byte(next))
            },
        );
        match token {
            Some((tok, mark)) => {
                out.push_str(&text[start..i]);
                out.push('"');
                out.push_str(mark);
                out.push('"');
                i += tok.len();
                start = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[start..]);
    out
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// A JSON value as a number: numbers, and the NaN/Infinity stand-ins. Anything else is not numeric.
pub fn json_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s.starts_with('\u{7f}') => Some(match s.as_str() {
            POS_INF_MARK => f64::INFINITY,
            NEG_INF_MARK => f64::NEG_INFINITY,
            _ => f64::NAN,
        }),
        _ => None,
    }
}

/// Reads a `.json` or `.json.gz` file written by lkp (NaN/Infinity tolerated).
pub fn load_json(path: &Path) -> Result<Value, ResultRootError> {
    let raw = fs::read(path).map_err(|e| io_err(path, e))?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out).map_err(|e| io_err(path, e))?;
        out
    } else {
        raw
    };
    let text = String::from_utf8_lossy(&bytes);
    serde_json::from_str(&sanitize_json(&text)).map_err(|e| ResultRootError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

fn expect_object(path: &Path, v: Value) -> Result<serde_json::Map<String, Value>, ResultRootError> {
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(ResultRootError::Format { path: path.to_path_buf(), message: "expected a JSON object".into() }),
    }
}

/// Reads a commit-level `matrix.json(.gz)`: `stat -> [value per run]` plus `stats_source`.
/// Columns = `stats_source` length when present (else the longest row); shorter rows are padded
/// with 0 as lkp does; rows holding a string are skipped, as lkp's comparer skips them.
pub fn read_matrix_file(path: &Path) -> Result<CommitMatrix, ResultRootError> {
    let obj = expect_object(path, load_json(path)?)?;
    let sources: Vec<String> = match obj.get("stats_source") {
        Some(Value::Array(a)) => {
            a.iter().map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())).collect()
        }
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    let mut stats = BTreeMap::new();
    for (k, v) in &obj {
        if k == "stats_source" {
            continue;
        }
        let row: Option<Vec<f64>> = match v {
            Value::Array(a) => a.iter().map(json_number).collect(),
            other => json_number(other).map(|x| vec![x]),
        };
        if let Some(row) = row {
            stats.insert(k.clone(), row);
        }
    }
    let columns = if sources.is_empty() { stats.values().map(Vec::len).max().unwrap_or(0) } else { sources.len() };
    for v in stats.values_mut() {
        v.resize(columns, 0.0);
    }
    Ok(CommitMatrix { columns, stats, sources })
}

/// Reads a flat `stat -> number` JSON object (`stats.json`, `avg.json`), skipping non-numbers.
pub fn read_scalar_map(path: &Path) -> Result<BTreeMap<String, f64>, ResultRootError> {
    let obj = expect_object(path, load_json(path)?)?;
    Ok(obj.iter().filter_map(|(k, v)| json_number(v).map(|x| (k.clone(), x))).collect())
}

// ------------------------------------------------------------------------------------------------
// One run: stats.json, or lkp's reduction of the monitors' samples

/// A run's stats: its `stats.json(.gz)` when present, else reduced from its monitor JSON files;
/// `None` when the run has neither.
pub fn load_run_stats(run: &Path) -> Result<Option<BTreeMap<String, f64>>, ResultRootError> {
    if let Some(p) = find_json(run, "stats") {
        return read_scalar_map(&p).map(Some);
    }
    let computed = create_run_stats(run)?;
    Ok((!computed.matrix.is_empty()).then_some(computed.stats))
}

/// lkp's `create_stats_matrix` for one run directory: every `<monitor>.json(.gz)` is reduced to
/// one number per stat, over the `stats_part_begin`..`stats_part_end` window (seconds) of
/// job.yaml when set: 1 sample -> the sample; independent counters -> sum; event counters ->
/// last minus first; else the sum divided by the window length. Stats matching
/// `add-max-latency` also get `<stat>.max`; `perf-stat.overall.path-length` is added as lkp does.
pub fn create_run_stats(run: &Path) -> Result<RunStats, ResultRootError> {
    let lists = direction::reduce_lists();
    let job_path = run.join("job.yaml");
    let job = if job_path.is_file() { read_job(&job_path)? } else { JobYaml::default() };
    // Ruby's `to_f` of a missing key or a non-number is 0, which means "no bound".
    let bound = |key: &str| -> f64 {
        match job.map.get(key) {
            Some(serde_norway::Value::Number(n)) => n.as_f64().unwrap_or(0.0),
            Some(serde_norway::Value::String(s)) => ruby_to_f(s),
            _ => 0.0,
        }
    };
    let part_begin = bound("stats_part_begin");
    let part_end = bound("stats_part_end");

    let mut out = RunStats::default();
    for (monitor, path) in monitor_files(run)? {
        let obj = expect_object(&path, load_json(&path)?)?;
        // Keep only arrays of numbers; dump-stat writes nothing else.
        let series: BTreeMap<String, Vec<f64>> = obj
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::Array(a) => a.iter().map(json_number).collect::<Option<Vec<f64>>>().map(|v| (k, v)),
                _ => None,
            })
            .collect();
        if series.is_empty() {
            continue;
        }
        let sample_size = series.values().map(Vec::len).max().unwrap_or(0);
        let time_key = format!("{monitor}.time");

        let mut begin = 0usize;
        let mut len = sample_size as i64;
        if let Some(tv) = series.get(&time_key).filter(|tv| tv.len() > 2) {
            let t0 = tv[0];
            // Absolute epoch times are made relative to the first sample; small ones already are.
            let rel: Vec<f64> = if t0 > 2.0 && (part_begin != 0.0 || part_end != 0.0) {
                tv.iter().map(|t| t - t0).collect()
            } else {
                tv.clone()
            };
            let index_at = |bound: f64| rel.iter().position(|t| *t >= bound).unwrap_or(sample_size);
            if part_begin != 0.0 {
                begin = index_at(part_begin);
                len -= begin as i64;
            }
            if part_end != 0.0 {
                len = index_at(part_end) as i64 - begin as i64;
            }
        }

        for (k, v) in &series {
            if *k == time_key {
                continue;
            }
            let window: &[f64] = if lists.ignore_part.contains(k) {
                v
            } else {
                match ruby_slice(v, begin, len) {
                    Some(w) => w,
                    None => continue,
                }
            };
            if window.is_empty() {
                continue;
            }
            let value = if window.len() == 1 {
                window[0]
            } else if lists.independent.contains(k) {
                ruby_sum(window)
            } else if lists.event_prefixes.contains(k) || lists.event_patterns.contains(k) {
                window[window.len() - 1] - window[0]
            } else {
                // lkp divides by the window length, not by the number of samples it got.
                ruby_sum(window) / len as f64
            };
            out.stats.insert(k.clone(), value);
            if lists.add_max_latency.contains(k) {
                let max = window.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                out.stats.insert(format!("{k}.max"), max);
            }
        }
        out.matrix.extend(series);
    }
    add_path_length(&mut out);
    Ok(out)
}

/// lkp's `add_path_length`: instructions per unit of work when exactly one `*.workload` exists.
fn add_path_length(run: &mut RunStats) {
    let workloads: Vec<f64> = run.stats.iter().filter(|(k, _)| k.ends_with(".workload")).map(|(_, v)| *v).collect();
    if workloads.len() != 1 {
        return;
    }
    let Some(instructions) = run.stats.get("perf-stat.total.instructions").copied() else {
        return;
    };
    let path_length = instructions / workloads[0];
    run.stats.insert("perf-stat.overall.path-length".into(), path_length);
    run.matrix.insert("perf-stat.overall.path-length".into(), vec![path_length]);
}

/// The monitor JSON files of a run (`x.json` preferred over `x.json.gz`), by monitor name.
fn monitor_files(run: &Path) -> Result<Vec<(String, PathBuf)>, ResultRootError> {
    let mut found: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    for entry in fs::read_dir(run).map_err(|e| io_err(run, e))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let (monitor, gz) = if let Some(m) = name.strip_suffix(".json.gz") {
            (m.to_string(), true)
        } else if let Some(m) = name.strip_suffix(".json") {
            (m.to_string(), false)
        } else {
            continue;
        };
        // Files lkp itself derives, not monitors.
        if matches!(monitor.as_str(), "stats" | "matrix" | "avg" | "stddev") {
            continue;
        }
        let path = entry.path();
        // lkp skips empty files (`File.size?`).
        if fs::metadata(&path).map(|m| m.len() == 0).unwrap_or(true) {
            continue;
        }
        if !gz || !names.contains(&monitor) {
            found.insert(monitor.clone(), path);
        }
        if !gz {
            names.insert(monitor);
        }
    }
    Ok(found.into_iter().collect())
}

/// Ruby's `array[start, length]`: `None` when start is past the end or length is negative.
fn ruby_slice(v: &[f64], start: usize, len: i64) -> Option<&[f64]> {
    if start > v.len() || len < 0 {
        return None;
    }
    let end = (start + len as usize).min(v.len());
    Some(&v[start..end])
}

/// Ruby's `Array#sum` on floats: Kahan-Babuska compensated summation.
fn ruby_sum(v: &[f64]) -> f64 {
    let mut sum = 0.0f64;
    let mut c = 0.0f64;
    for &x in v {
        let t = sum + x;
        if sum.abs() >= x.abs() {
            c += (sum - t) + x;
        } else {
            c += (x - t) + sum;
        }
        sum = t;
    }
    sum + c
}

/// Ruby's `String#to_f`: the longest leading decimal number, else 0.
fn ruby_to_f(s: &str) -> f64 {
    let s = s.trim_start();
    let numeric = |b: u8| b.is_ascii_digit() || b"+-.eE".contains(&b);
    let end = s.bytes().take_while(|b| numeric(*b)).count();
    (1..=end).rev().find_map(|i| s[..i].parse::<f64>().ok()).unwrap_or(0.0)
}
