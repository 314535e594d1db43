//! The published files of layout v2 that are not the catalog (`Index`): the root index, trend
//! chunks and report documents. See ARCHITECTURE.md ("Published data") for why it is shaped so.

use crate::{ChangeKind, ChangeRecord, Params, SeriesData, SourceKind, Totals};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `data/index.json`, the root: the only file whose name is fixed and the only one rewritten in
/// place (atomically, last). Its size grows with testcases and facet values, not with reports or
/// metric names: everything per report or per metric is in a testcase's catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Root {
    pub schema: u32,
    /// Identity of this build (a hash of the rest of the root).
    pub generation: String,
    pub testcases: Vec<TestcaseEntry>,
    pub totals: Totals,
    /// The newest reports (at most `NEWEST`), newest first: the first screen.
    pub newest: Vec<ReportSummary>,
    /// Path of the archives' read positions (`paths::archive_state`), when archives were imported:
    /// named here so that it switches with the dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archives: Option<String>,
    /// Every report's summary, newest first, in pages of `PAGE` (`paths::report_page`): the
    /// full reports list and search, fetched when the list scrolls past `newest` or on a search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<String>,
    /// The same summaries again, grouped by job for the job history of a report page: file `b`
    /// (`paths::report_page` naming; empty when no report falls there) holds, newest first, every
    /// report whose `ReportSummary::job_key` has `paths::bucket_of(key, by_job.len()) == b`. A
    /// power of two of files of about `BY_JOB` reports each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_job: Vec<String>,
    /// The search index (`search::SearchIndex`, `q/<hash>.json.gz`; "" for none): a file of its own,
    /// read when the first search needs it, so that the first screen parses no more than its path.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub search: String,
}

impl Root {
    /// The file of `by_job` that holds the reports of job `key`, if there is one.
    pub fn by_job_file(&self, key: &str) -> Option<&str> {
        let n = u32::try_from(self.by_job.len()).ok().filter(|n| n.is_power_of_two())?;
        let f = &self.by_job[crate::paths::bucket_of(key, n) as usize];
        (!f.is_empty()).then_some(f.as_str())
    }
}

/// Reports per file of `Root::by_job`, about (the files are a power of two).
pub const BY_JOB: usize = 32;

/// Reports per page of the full reports list.
pub const PAGE: usize = 2048;

/// `data/l/<hash>.json`: one page of the reports list, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportPage {
    pub schema: u32,
    pub reports: Vec<ReportSummary>,
}

/// How many reports the root summarises.
pub const NEWEST: usize = 50;

/// What the root says about one testcase.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TestcaseEntry {
    pub name: String,
    /// Path of its catalog (`paths::catalog`), relative to the data directory.
    pub catalog: String,
    pub reports: usize,
    pub jobs: usize,
    pub metrics: usize,
    pub series: usize,
    pub points: usize,
    pub rows: usize,
    pub commits: usize,
    /// Steps found by change-point detection.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub detected: usize,
    /// Its reports' most reported headline metrics (at most 5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headline_metrics: Vec<String>,
    /// Facet values of its jobs with job counts: `machine` and every parameter name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub facets: BTreeMap<String, BTreeMap<String, u32>>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One report, in a line: what the first screen lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportSummary {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Unix seconds of `date`, the sort key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Testcases of its tables, first the one of its first table.
    pub testcases: Vec<String>,
    /// The first headline: metric, stated change, word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub word: String,
    /// Head commit of its first table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Base commit of its first table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The Message-ID, without `<>` (the permalink `?report=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Tree and branch of the head commit (`linus/master`), as the report names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Machine and parameters of the job of its first table.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub machine: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: Params,
    /// What came of it: the start of the first reply's note (`REPLY_CHARS` at most), when a reply
    /// to the report is attached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// Commits its replies name as fixed or reverted (`Fixes:`, `This reverts commit`; a posted
    /// fix's note: `record::named_commits`), lowercase, each once: the page links their reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

/// Characters of a reply's note a summary keeps.
pub const REPLY_CHARS: usize = 120;

impl ReportSummary {
    /// Its page, which carries its document (`ReportDoc::page`).
    pub fn page(&self) -> String {
        crate::paths::report_html(self.message_id.as_deref().unwrap_or(&self.id))
    }

    /// Its job (first testcase, machine and parameters) as `job_id` names it; `None` for a
    /// summary without a machine (no job to compare with).
    pub fn job_key(&self) -> Option<String> {
        let tc = self.testcases.first()?;
        (!self.machine.is_empty()).then(|| crate::job_id(tc, &self.machine, &self.params))
    }

    /// A report in a line, as the lists hold it: `of`, and what a list shows and sorts by: its
    /// branch, its headline's change as its table prints it (signed), its date as unix seconds.
    pub fn listed(rd: &ReportDoc) -> ReportSummary {
        let of = ReportSummary::of(rd);
        ReportSummary {
            time: rd.date.as_deref().and_then(crate::date::parse_date),
            branch: branch_of(rd, of.commit.as_deref()),
            change: rd.headlines.first().and_then(|h| rd.headline_change(h)),
            reply: rd.notes.first().map(|n| reply_start(n)),
            names: crate::record::named_commits(&rd.notes),
            ..of
        }
    }

    /// What a report says of itself (a report page's own line; `listed` adds what the lists need):
    /// every testcase of its tables (the first table's first), its first table's job, base and
    /// head, its first headline's metric and word. The page, which lists nothing by it, carries
    /// neither the date parser nor the branch and change searches.
    pub fn of(rd: &ReportDoc) -> ReportSummary {
        let mut testcases: Vec<String> = Vec::new();
        for s in &rd.sections {
            for r in s.rows.iter().filter(|r| !r.aggregate && !r.metric.is_empty()) {
                let tc = rd.jobs.get(r.job as usize).map(|j| &j.testcase);
                if let Some(tc) = tc.filter(|tc| !tc.is_empty() && !testcases.contains(tc)) {
                    testcases.push(tc.clone());
                }
            }
        }
        let h = rd.headlines.first();
        let first = rd.sections.first();
        let job = rd.first_job();
        let head = first.and_then(|s| s.commits.get(1).or(s.commits.first()));
        ReportSummary {
            base: first.filter(|s| s.commits.len() > 1).and_then(|s| s.commits.first()).cloned(),
            message_id: rd.message_id.clone(),
            branch: None,
            machine: job.map(|j| j.machine.clone()).unwrap_or_default(),
            params: job.map(|j| j.params.clone()).unwrap_or_default(),
            id: rd.id.clone(),
            date: rd.date.clone(),
            time: None,
            subject: rd.subject.clone(),
            testcases,
            metric: h.map(|h| h.metric.clone()),
            change: None,
            word: h.map(|h| h.word.clone()).unwrap_or_default(),
            commit: head.cloned(),
            reply: None,
            names: Vec::new(),
        }
    }
}

/// The first line of a note, cut at `REPLY_CHARS` characters (`…` when cut): what a summary
/// keeps of a report's first reply (`ReportSummary::reply`).
pub fn reply_start(note: &str) -> String {
    let line = note.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    match line.char_indices().nth(REPLY_CHARS) {
        Some((at, _)) => format!("{}…", line[..at].trim_end()),
        None => line.to_string(),
    }
}

/// `linus:master` from a subject `[linus:master] …`.
pub fn branch_tag(subject: &str) -> Option<&str> {
    let tag = subject.strip_prefix('[').and_then(|s| s.split_once(']')).map(|t| t.0);
    tag.filter(|t| t.contains(':') && !t.contains(' '))
}

/// `linus:master` from a subject `[linus:master] …`, else the head commit's branch.
fn branch_of(rd: &ReportDoc, head: Option<&str>) -> Option<String> {
    if let Some(t) = rd.subject.as_deref().and_then(branch_tag) {
        return Some(t.to_string());
    }
    let c = rd.commits.iter().find(|c| Some(c.id.as_str()) == head || head.is_some_and(|h| h.starts_with(&c.id)));
    c.and_then(|c| c.branch.clone())
}

/// `data/s/<testcase>/<hash>.json`: the series of a group of metrics of one testcase (metrics
/// are grouped by a hash of their name into as many chunks as the testcase's points need), with
/// the steps detected along them. Positions are those of the testcase's catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrendChunk {
    pub schema: u32,
    pub testcase: String,
    /// Sorted by metric, then job.
    #[serde(with = "crate::wire::series")]
    pub series: Vec<SeriesData>,
    /// Steps found by change-point detection along these series.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "crate::wire::changes")]
    pub detected: Vec<ChangeRecord>,
}

/// A `TrendChunk` written from series and changes held apart (an import's build: borrowed, not
/// moved into a `TrendChunk`): the same fields, so the same JSON and the same value fingerprint.
/// Its series are written without their per-run values.
#[derive(Serialize)]
pub struct TrendChunkOut<'a> {
    pub schema: u32,
    pub testcase: &'a str,
    pub series: Vec<crate::wire::SeriesRef<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "crate::wire::changes::serialize_refs")]
    pub detected: Vec<&'a ChangeRecord>,
}

/// One report (or result root) with everything it said, as read: carried by its page
/// (`paths::page_doc`).
/// An incremental import rebuilds a testcase from these, so they hold every input the build uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportDoc {
    pub schema: u32,
    pub id: String,
    pub kind: SourceKind,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Recipients (To, then Cc), each `Name <address>` or an address: what search finds a report by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// lore link, when the Message-ID is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub materials_url: Option<String>,
    /// Reproduce script by content hash (`paths::script`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// The script is the real `reproduce` file, not the mail's prose.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub script_is_file: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commits: Vec<DocCommit>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headlines: Vec<DocHeadline>,
    /// The jobs its rows name; rows point here by position.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<DocJob>,
    pub sections: Vec<DocSection>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocCommit {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Its link, as the catalogs give it (`--commit-url`, else per tree): the report page links it
    /// without the testcase's catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl ReportDoc {
    /// Its page (`m/<Message-ID>/index.html`, else by its id), which carries it (`paths::page_doc`).
    pub fn page(&self) -> String {
        crate::paths::report_html(self.message_id.as_deref().unwrap_or(&self.id))
    }

    /// The job of its first table (that of the table's first row): the report's own job.
    pub fn first_job(&self) -> Option<&DocJob> {
        let row = self.sections.first()?.rows.first()?;
        self.jobs.get(row.job as usize)
    }

    /// A headline's change with its sign: its table row's (subjects often print `6.5% regression`
    /// unsigned), else the subject's figure.
    pub fn headline_change(&self, h: &DocHeadline) -> Option<f64> {
        let row = self.sections.iter().flat_map(|s| &s.rows).find(|r| r.metric == h.metric);
        row.and_then(|r| r.changes.first().copied().flatten()).or(h.change)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocHeadline {
    pub testcase: String,
    pub metric: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub word: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocJob {
    pub testcase: String,
    pub machine: String,
    pub params: Params,
}

/// One comparison table with its context.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocSection {
    /// Commit ids of the columns, base first, as the report gives them.
    pub commits: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    #[serde(with = "crate::wire::doc_rows")]
    pub rows: Vec<DocRow>,
}

/// One table row as read. Per-column vectors as in the mail (`changes` per later column).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocRow {
    /// 1-based line in the decoded mail text (0 when not from text).
    pub line: usize,
    /// A row its page shows as it is: its line among its table's rows on the page
    /// (`render::carry`). A page carries such a row without its metric, values, stddev and
    /// changes, which are read from that line (`render::carry::filled`); `None` in every document
    /// but one read from a page and not filled yet.
    pub at: Option<u32>,
    /// Position in `ReportDoc::jobs`.
    pub job: u32,
    pub metric: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fail: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aggregate: bool,
    pub values: Vec<Option<f64>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stddev_pct: Vec<Option<f64>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Option<f64>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub change_kind: Vec<ChangeKind>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fails: Vec<Option<u32>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Option<u32>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_values: Vec<Option<Vec<f64>>>,
    /// A trailing annotation after the metric name (`<-------- (a)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The metric's direction by lkp's lists: 1 higher is better, -1 lower is better, 0 unknown. The
    /// report page colours its rows by it without the testcase's catalog.
    #[serde(default, skip_serializing_if = "is_unknown")]
    pub weight: i8,
}

fn is_unknown(weight: &i8) -> bool {
    *weight == 0
}

/// `data/a/<hash>.json`: how far an import has read each list archive, and the replies still
/// waiting for their report. Named by its content hash and by the root, so it changes with the
/// dataset in one atomic switch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArchiveState {
    pub schema: u32,
    /// Sorted by path.
    pub archives: Vec<ArchivePosition>,
    /// Replies to a report that is not (yet) in the dataset, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<WaitingNote>,
}

/// One public-inbox epoch: identified by its path (as given) and its first commit.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ArchivePosition {
    pub path: String,
    /// The epoch's first (root) commit: another one means another or a rewritten history.
    pub first: String,
    /// The newest commit read.
    pub last: String,
}

/// A human reply that quotes a report the dataset does not hold yet: attached as a note when
/// a report with one of these Message-IDs arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct WaitingNote {
    /// Message-IDs (without `<>`) the reply names: In-Reply-To first, then References.
    pub refs: Vec<String>,
    pub note: String,
}

/// A mail read in the browser ("bring your own mail": dropped, chosen or pasted onto the page, parsed
/// by the importer's own parser in a Web Worker, never published or sent anywhere): what `lkpx import`
/// would take from it. The worker posts it as JSON; the app shows `docs` as report pages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Upload {
    /// The file name (or "pasted text").
    pub name: String,
    /// Bytes given (before any gzip decompression).
    pub bytes: usize,
    /// Its reports, as `lkpx` publishes them (an mbox may hold several).
    pub docs: Vec<ReportDoc>,
    /// The reproduce scripts the docs name (`ReportDoc::script` → text).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scripts: BTreeMap<String, String>,
    /// Not a report, and the importer's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Problems, each naming the input and line (`name:line: message`), as `lkpx` prints them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

impl Upload {
    /// The name of text pasted onto the page (it has no file name), in the importer's messages
    /// (`pasted text:12: …`).
    pub const PASTED: &'static str = "pasted text";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_keeps_the_start_of_the_first_reply() {
        let mut rd = ReportDoc {
            notes: vec!["\n  Not a regression: alignment.\nsecond line".into(), "other".into()],
            ..Default::default()
        };
        assert_eq!(ReportSummary::listed(&rd).reply.as_deref(), Some("Not a regression: alignment."));
        assert_eq!(ReportSummary::of(&rd).reply, None, "the page's own line carries none");
        rd.notes = vec![format!("{} tail", "é".repeat(REPLY_CHARS))];
        let r = ReportSummary::listed(&rd).reply.unwrap();
        assert_eq!((r.chars().count(), r.ends_with('…')), (REPLY_CHARS + 1, true));
        rd.notes.clear();
        assert_eq!(ReportSummary::listed(&rd).reply, None);
    }
}
