//! The published data of LKP Explorer: every JSON shape the importer writes and the app reads,
//! the path of every published file, and the statistics both sides share.
//!
//! This crate knows nothing of the web or the filesystem: it is plain serde types and pure
//! functions, so the native importer and the wasm app compile the same definitions.

pub mod assemble;
pub mod changes;
pub mod date;
pub mod find;
pub mod observe;
pub mod order;
pub mod paths;
pub mod record;
pub mod rng;
pub mod search;
pub mod stats;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the published layout. The app refuses data with another version and says so.
pub const SCHEMA_VERSION: u32 = 14;

/// Job parameters, by name. A `BTreeMap` so that every serialisation is sorted and stable.
pub type Params = BTreeMap<String, String>;

/// A testcase's catalog, `data/t/<testcase>.<hash>.json` (published, one testcase, positions local
/// to the file), and also the app's in-memory view of several loaded catalogs merged
/// (`assemble::merge`, positions of the merged view).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Index {
    pub schema: u32,
    /// The root's generation in the merged view; empty in a published catalog (its name is its hash).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub generation: String,
    /// Commits in history order (oldest first). Points refer to them by position.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commits: Vec<Commit>,
    /// Every imported report or result root, in a stable order (as columns: `wire::reports`);
    /// none in a published catalog, whose reports are in its `rest`.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "wire::reports")]
    pub reports: Vec<ReportMeta>,
    /// Every measured configuration (testcase + machine + parameters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<Job>,
    /// Every metric name, sorted, with its direction.
    #[serde(with = "wire::metrics")]
    pub metrics: Vec<MetricInfo>,
    /// Per testcase: its jobs and metrics (positions in `jobs` / `metrics`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub testcases: Vec<TestcaseInfo>,
    /// The changes the reports state in their headlines, newest report first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headlines: Vec<Headline>,
    /// Totals, for the status line.
    #[serde(default, skip_serializing_if = "Totals::is_empty")]
    pub totals: Totals,
    /// Trend chunk files of this testcase (paths relative to the data directory); a metric's
    /// `MetricInfo::chunk` is a position here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunks: Vec<String>,
    /// The changes page of this testcase (the Changes view), none when it has no changes: the
    /// top `CHANGES_FIRST` of the view's default order (`ChangeRecord::listing_order`, ties in
    /// build order), so that the view shows its first rows at once. Every change is made again
    /// from the trend chunks (`assemble::Part::chunk_changes`): the others have no file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
    /// A published catalog is what the first chart needs: its reports and every trend chunk are
    /// in this file, the catalog's rest, `data/t/<testcase>/<hash>.json`: an `Index` of nothing
    /// but `reports`, `chunks` and `chunk_keys`, fetched when a view needs them. `None` once
    /// merged in (`Index::with_rest`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<String>,
    /// Its metrics beyond the first charts' (`metrics` lists those only) are in this file, the
    /// catalog's names (the longest part: every metric name), `data/t/<testcase>/<hash>.json`:
    /// an `Index` of nothing but `metrics`. `None` once merged in (`Index::with_names`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<String>,
    /// In a catalog's rest: each chunk's key, ascending, in `chunks`' order (a hash bucket of
    /// metric names, `paths::chunk_of` over `paths::chunk_count` buckets; after those, the own
    /// chunks of the first charts' metrics), so that a metric's chunk is found without the
    /// metric names (`assemble::Part::chunk_of`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunk_keys: Vec<u32>,
    /// While the rest is not merged in: the reports whose values printed without `±` are quiet
    /// (`ReportMeta::omits_small_stddev`), for the first chart's bands, as half-open ranges of
    /// positions, flat: `[start, end, start, end, …]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quiet: Vec<u32>,
}

impl Index {
    /// The catalog's reports are still to be fetched (`rest`).
    pub fn is_partial(&self) -> bool {
        self.rest.is_some()
    }

    /// The number of reports positions may name: the loaded ones, or the count the totals give.
    pub fn report_count(&self) -> usize {
        if self.is_partial() {
            self.totals.reports
        } else {
            self.reports.len()
        }
    }

    /// Merge a published catalog's rest and names in: the whole catalog, as if published in one
    /// file (its positions are checked where every catalog's are, `assemble::check_catalog`).
    pub fn complete(&mut self, rest: Index, names: Index) -> Result<(), String> {
        self.with_rest(rest)?;
        self.with_names(names);
        Ok(())
    }

    /// Merge a published catalog's rest in: its reports, and every chunk (the first charts'
    /// metrics pointed at them there); its metrics stay the first charts' until `with_names`.
    pub fn with_rest(&mut self, rest: Index) -> Result<(), String> {
        if self.rest.is_none() {
            return Ok(());
        }
        if rest.reports.len() != self.totals.reports {
            return Err(format!("{} reports, the catalog counts {}", rest.reports.len(), self.totals.reports));
        }
        if rest.chunk_keys.len() != rest.chunks.len() {
            return Err(format!("{} chunk keys for {} chunks", rest.chunk_keys.len(), rest.chunks.len()));
        }
        for m in &mut self.metrics {
            let path = self.chunks.get(m.chunk as usize);
            let at = path.and_then(|p| rest.chunks.iter().position(|c| c == p));
            m.chunk = at.ok_or_else(|| format!("{}'s chunk is not in the catalog's rest", m.name))? as u32;
        }
        self.reports = rest.reports;
        self.chunks = rest.chunks;
        self.chunk_keys = rest.chunk_keys;
        self.rest = None;
        self.quiet.clear();
        Ok(())
    }

    /// Merge a published catalog's names in (after `with_rest`): every metric.
    pub fn with_names(&mut self, names: Index) {
        if self.names.take().is_some() {
            self.metrics = names.metrics;
        }
    }

    /// Whether report `r` of a partial catalog is quiet (`quiet`).
    pub fn is_quiet(&self, r: u32) -> bool {
        self.quiet.chunks(2).any(|p| p.len() == 2 && (p[0]..p[1]).contains(&r))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub reports: usize,
    pub jobs: usize,
    pub series: usize,
    pub points: usize,
    pub rows: usize,
}

impl Totals {
    /// All zero: a catalog's rest (`Index::rest`) counts nothing.
    pub fn is_empty(&self) -> bool {
        *self == Totals::default()
    }
}

/// A kernel commit (or a tag such as `v6.16-rc4` where the report names only the tag).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Commit {
    /// The longest id any input gave: 40 hex digits when known, else an abbreviation or a tag.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Git URL of the tree it was found on (as the report prints it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// A tag naming this commit in a report (`v6.16-rc4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Commit time (unix seconds) when `--git-log` gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<i64>,
    /// Where to look at the commit (cgit, GitHub, ...), when it can be built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Date (unix seconds) of the first report naming the commit: orders commits of several
    /// catalogs where neither `time` nor a report's base→head edge does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<i64>,
}

impl Commit {
    /// The short id used on axes and in tables: 12 hex digits, or the tag.
    pub fn short(&self) -> &str {
        short_id(&self.id)
    }
}

/// Short form of a commit id: at most 12 characters of a hex id; tags unchanged.
pub fn short_id(id: &str) -> &str {
    if id.len() > 12 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        &id[..12]
    } else {
        id
    }
}

/// Since August 2017 the robot prints `± N%` only when N > 2: in its mails from then on a value
/// without `±` means a stddev of at most 2 %, not an unknown one.
pub const QUIET_STDDEV_SINCE: i64 = 1_501_545_600; // 2017-08-01T00:00:00Z
/// The largest stddev (percent) such a mail leaves unprinted.
pub const QUIET_STDDEV_PCT: f64 = 2.0;

/// Where a set of measurements came from: one mail (or one result root).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportMeta {
    /// Stable key: derived from the Message-ID, else from the content.
    pub id: String,
    pub kind: SourceKind,
    /// The input file, as given on the command line (relative when it was).
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Unix seconds of `date` (reports are ordered by it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<i64>,
    /// `https://lore.kernel.org/all/<Message-ID>/` when the Message-ID is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `https://download.01.org/0day-ci/archive/...` when the mail gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub materials_url: Option<String>,
    /// Reproduce script, by content hash (see `paths::script`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// The comparison sections of the report (one per table context).
    pub sections: Vec<SectionMeta>,
    /// Short notes on the report from its thread (e.g. a maintainer's "This is not a regression").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl ReportMeta {
    /// The file that carries the report document (everything the mail said): its page
    /// (`paths::page_doc`), relative to the site's root.
    pub fn page(&self) -> String {
        paths::report_html(self.message_id.as_deref().unwrap_or(&self.id))
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    #[default]
    Mail,
    ResultRoot,
}

/// One table context of a report: a job and the commits of its columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SectionMeta {
    /// Position in `Index::jobs`; `None` for tables whose job the mail does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u32>,
    /// Positions in `Index::commits`, in column order (base first).
    pub commits: Vec<u32>,
    /// Number of table rows read in this section.
    pub rows: usize,
    /// Machine description (`128 threads 2 sockets ...`) when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
}

/// Job parameter keys in display order: the storage ones first, then alphabetical (the facets,
/// the legend's labels).
pub fn param_rank(k: &str) -> (usize, &str) {
    const FIRST: [&str; 4] = ["fs", "fs2", "disk", "nr_task"];
    (FIRST.iter().position(|f| *f == k).unwrap_or(FIRST.len()), k)
}

/// A measured configuration: testcase on a machine with parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Stable key (see `job_id`): survives rebuilds with more reports.
    pub id: String,
    pub testcase: String,
    /// `tbox_group` (machine group), empty when unknown.
    pub machine: String,
    /// Every other parameter: fs, fs2, disk, nr_task, rw, bs, compiler, kconfig, rootfs, ...
    pub params: Params,
    /// Reproduce script (content hash) of the most recent report of this job, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// The job's compare file (every metric of the job), path relative to the data directory;
    /// empty for a job one report alone measured (`report`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub shard: String,
    /// The report (its position) whose rows are every observation of the job, when one report
    /// alone measured it: its compare file is made from that report's document
    /// (`JobShard::of_report`), not stored (schema 12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<u32>,
}

/// Stable key of a job: a hash of its testcase, machine and sorted parameters.
pub fn job_id(testcase: &str, machine: &str, params: &Params) -> String {
    let mut h = paths::Fnv::new();
    h.write(testcase.as_bytes());
    h.write(b"\x1f");
    h.write(machine.as_bytes());
    for (k, v) in params {
        h.write(b"\x1e");
        h.write(k.as_bytes());
        h.write(b"=");
        h.write(v.as_bytes());
    }
    format!("{:016x}", h.finish())
}

/// A metric name with what the lkp-tests direction lists say about it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricInfo {
    pub name: String,
    /// 1 = higher is better, -1 = lower is better, 0 = undefined.
    pub direction: i8,
    /// Testcase KPI (`<testcase>.<stat>` not under `.time.`), listed first in the finder.
    #[serde(default, skip_serializing_if = "is_false")]
    pub kpi: bool,
    /// Only ever seen as a failure statistic (fail:runs rows). Whether one observation is a
    /// failure row is `Points::is_fail`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fail: bool,
    /// Position in `Index::chunks` of the trend chunk holding this metric (published catalogs).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub chunk: u32,
    /// Number of series (jobs) measuring it.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub series: u32,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TestcaseInfo {
    pub name: String,
    /// Positions in `Index::jobs`, in the app's merged view. Not in a file: a testcase catalog
    /// holds one testcase, with all its jobs and metrics.
    #[serde(skip)]
    pub jobs: Vec<u32>,
    /// Positions in `Index::metrics`, in the app's merged view (see `jobs`).
    #[serde(skip)]
    pub metrics: Vec<u32>,
    /// Headline metrics of this testcase's reports, most reported first.
    pub headline_metrics: Vec<String>,
    /// Number of steps found by change-point detection in this testcase's changes shard: the
    /// trend fetches that shard for its step markers only when there are some.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub detected: usize,
    /// In the app's merged view: this testcase's catalog is loaded (its jobs and metrics are
    /// listed); else only the root's summary is known.
    #[serde(skip)]
    pub loaded: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A change a report states in its headline (or its "In addition" box).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// Position in `Index::reports`.
    pub report: u32,
    /// Position in `Index::jobs`, when the table of that job is in the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u32>,
    pub testcase: String,
    pub metric: String,
    /// Percent as stated (sign as in the table when the table has the row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    /// The report's own word: "regression" or "improvement" (or empty when none).
    pub word: String,
    /// Positions in `Index::commits`: base and head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<u32>,
}

/// How a change is expressed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// `100 * (head - base) / base`, printed with `%`.
    #[default]
    Percent,
    /// `head - base`, for metrics ending in `%` and `perf-profile.*`.
    Absolute,
    /// `%reproduction` of failure rows.
    Reproduction,
}

impl ChangeKind {
    /// Its name as the published files spell it (serde's `snake_case`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Percent => "percent",
            ChangeKind::Absolute => "absolute",
            ChangeKind::Reproduction => "reproduction",
        }
    }
}

/// What a change means for the metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Regression,
    Improvement,
    #[default]
    Undefined,
}

impl Direction {
    /// Direction of a change of sign `change` for a metric whose weight is `weight`
    /// (1 higher-is-better, -1 lower-is-better, 0 unknown), as lkp's `kpi_stat_direction`.
    pub fn of(weight: i8, change: f64) -> Direction {
        if weight == 0 || change == 0.0 || change.is_nan() {
            Direction::Undefined
        } else if (weight as f64) * change < 0.0 {
            Direction::Regression
        } else {
            Direction::Improvement
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Regression => "regression",
            Direction::Improvement => "improvement",
            Direction::Undefined => "undefined",
        }
    }
}

impl std::str::FromStr for Direction {
    type Err = ();

    /// The inverse of `as_str` (the URL's and the controls' spelling).
    fn from_str(s: &str) -> Result<Direction, ()> {
        [Direction::Regression, Direction::Improvement, Direction::Undefined]
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or(())
    }
}

/// One metric of one testcase, every job's points: what a trend chart draws. Not a file of its
/// own: the app takes it out of the metric's `TrendChunk` (`assemble::Remap::series_shard`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesShard {
    pub schema: u32,
    pub testcase: String,
    pub metric: String,
    pub series: Vec<SeriesData>,
}

/// The points of one series (job × metric) in columnar form; one entry per observation.
/// Several observations of one commit (different reports) are kept side by side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesData {
    /// Position in `Index::jobs`.
    pub job: u32,
    pub metric: String,
    pub points: Points,
}

/// Columnar observations. All vectors have the same length.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Points {
    /// Position in `Index::commits`.
    pub commit: Vec<u32>,
    /// Mean as the report states it (`None` for a blank cell). For failure rows: fails/runs*100.
    pub mean: Vec<Option<f64>>,
    /// Stddev percent as the report prints it (`None` when not shown).
    pub stddev_pct: Vec<Option<f64>>,
    /// Number of runs, when known (fail:runs, matrix columns).
    pub runs: Vec<Option<u32>>,
    /// Position in `Index::reports`.
    pub report: Vec<u32>,
    /// Change stated by the report against its base column (`None` for the base column).
    pub change: Vec<Option<f64>>,
    /// Position in `Index::commits` of the base the change is against.
    pub base: Vec<Option<u32>>,
    /// Failure count of failure rows (`None` otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fails: Vec<Option<u32>>,
    /// Per-run values where known (result roots); empty when no point has them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<Vec<f64>>,
}

impl ReportMeta {
    /// A value this report prints without `±` has a stddev of at most `QUIET_STDDEV_PCT` (a
    /// robot mail of August 2017 or later; older mails and result roots say nothing of it).
    pub fn omits_small_stddev(&self) -> bool {
        self.kind == SourceKind::Mail && self.time.is_some_and(|t| t >= QUIET_STDDEV_SINCE)
    }

    /// A report of a partial catalog, known by position only until its rest is loaded: no id,
    /// no sections; `quiet` as the catalog says (`Index::quiet`).
    pub fn pending(quiet: bool) -> ReportMeta {
        ReportMeta {
            kind: if quiet { SourceKind::Mail } else { SourceKind::ResultRoot },
            time: quiet.then_some(QUIET_STDDEV_SINCE),
            ..Default::default()
        }
    }

    /// A report of a partial catalog (`pending`): nothing but its position is known yet.
    pub fn is_pending(&self) -> bool {
        self.id.is_empty()
    }
}

impl Points {
    pub fn len(&self) -> usize {
        self.commit.len()
    }

    /// Columns of different lengths (`fails` and `values` may be empty: none of them).
    pub fn is_ragged(&self) -> bool {
        let n = self.len();
        [self.mean.len(), self.stddev_pct.len(), self.runs.len(), self.report.len(), self.change.len(), self.base.len()]
            .iter()
            .any(|&l| l != n)
            || !(self.fails.is_empty() || self.fails.len() == n)
            || !(self.values.is_empty() || self.values.len() == n)
    }

    pub fn is_empty(&self) -> bool {
        self.commit.is_empty()
    }

    /// Observation `i` is a failure row (`fails:runs`), whose mean is the percentage of failing
    /// runs. Decided per observation: one metric name can be a failure row in one report and a
    /// measured value in another.
    pub fn is_fail(&self, i: usize) -> bool {
        self.fails.get(i).is_some_and(Option::is_some)
    }

    /// Absolute stddev of observation `i`, derived from the printed percentage.
    pub fn stddev(&self, i: usize) -> Option<f64> {
        match (self.mean[i], self.stddev_pct[i]) {
            (Some(m), Some(p)) => Some((m * p / 100.0).abs()),
            _ => None,
        }
    }
}

/// `data/j/<testcase>/<hash>.json`: every metric of one job. This is what the compare table fetches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobShard {
    pub schema: u32,
    pub job: String,
    #[serde(with = "wire::series")]
    pub series: Vec<SeriesData>,
}

/// A `JobShard` written from series held apart (an import's build: borrowed, not moved into a
/// `JobShard`): the same fields, so the same JSON and the same value fingerprint.
#[derive(Serialize)]
pub struct JobShardOut<'a> {
    pub schema: u32,
    pub job: &'a str,
    pub series: Vec<wire::SeriesRef<'a>>,
}

/// `data/c/<testcase>.<hash>.json`: one page of a testcase's changes, stated by a report or
/// detected along a series (`Index::changes`). This is what the Changes view fetches (never the
/// first screen).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangesShard {
    pub schema: u32,
    pub testcase: String,
    #[serde(with = "wire::changes")]
    pub changes: Vec<ChangeRecord>,
}

/// Records in a testcase's changes page (`Index::changes`): the top 1,024 of the Changes view's
/// default order (`ChangeRecord::listing_order`), where the view shows 200 rows, so that it lists
/// them before it has made the others from the trend chunks (`assemble::Part::chunk_changes`).
pub const CHANGES_FIRST: usize = 1024;

/// Where a change comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeSource {
    /// A row of a report's comparison table.
    #[default]
    Stated,
    /// A step found by change-point detection along the series.
    Detected,
}

/// One change of one series between two commits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeRecord {
    pub source: ChangeSource,
    /// Position in `Index::jobs`.
    pub job: u32,
    pub metric: String,
    /// Positions in `Index::commits`.
    pub base: u32,
    pub head: u32,
    pub base_mean: f64,
    pub head_mean: f64,
    /// As lkp prints it: percent, or absolute for `%` and perf-profile metrics.
    pub change: f64,
    pub kind: ChangeKind,
    pub direction: Direction,
    /// Two-sided p-value of Welch's t-test; `None` when run counts are not known (never guessed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// |head - base| in units of the larger stated stddev; `None` when no stddev is stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_ratio: Option<f64>,
    /// Position in `Index::reports` of the stating report (stated changes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<u32>,
    /// The report's headline names this change.
    #[serde(default, skip_serializing_if = "is_false")]
    pub headline: bool,
}

impl ChangeRecord {
    /// |change| for ordering, a NaN change counted as none.
    pub fn magnitude(&self) -> f64 {
        if self.change.is_nan() {
            -1.0
        } else {
            self.change.abs()
        }
    }

    /// The Changes view's default order, in which the importer pages a testcase's changes: the
    /// changes the reports' headlines name first, then the largest |change|, then by metric name
    /// and newest head commit. Records equal under it keep their order.
    pub fn listing_order(a: &ChangeRecord, b: &ChangeRecord) -> std::cmp::Ordering {
        b.headline
            .cmp(&a.headline)
            .then_with(|| b.magnitude().total_cmp(&a.magnitude()))
            .then_with(|| a.metric.cmp(&b.metric))
            .then_with(|| b.head.cmp(&a.head))
    }
}

pub use layout::*;
mod layout;
pub mod wire;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_kind_names_are_the_published_ones() {
        for k in [ChangeKind::Percent, ChangeKind::Absolute, ChangeKind::Reproduction] {
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.as_str()));
        }
    }

    #[test]
    fn only_robot_mails_from_august_2017_omit_small_stddevs() {
        let at = |kind, time| ReportMeta { kind, time, ..Default::default() };
        for (kind, time, want) in [
            (SourceKind::Mail, Some(QUIET_STDDEV_SINCE), true),
            (SourceKind::Mail, Some(1_770_909_859), true), // 2026-02-12
            (SourceKind::Mail, Some(QUIET_STDDEV_SINCE - 1), false),
            (SourceKind::Mail, Some(1_408_450_350), false), // 2014-08-19: always prints ±
            (SourceKind::Mail, None, false),
            (SourceKind::ResultRoot, Some(1_770_909_859), false),
        ] {
            assert_eq!(at(kind, time).omits_small_stddev(), want, "{kind:?} {time:?}");
        }
    }
}
