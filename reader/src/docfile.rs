//! A `doc::Document` as its published report document (`model::ReportDoc`) and back. The
//! round trip is exact for everything the build reads, so an incremental import can rebuild a
//! testcase from the report documents of the dataset instead of the original mails, except for
//! numbers JSON cannot hold (`+Inf%`, a NaN run value), which its file says `null`.

use crate::doc::{CommitInfo, Document, HeadlineInfo, JobKey, Row, RowKind, Section};
use crate::links::{commit_link, lore_url, report_id};
use model::{paths, DocCommit, DocHeadline, DocJob, DocRow, DocSection, ReportDoc, SCHEMA_VERSION};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// How a document's rows and commits are published: the metric directions and the commit links
/// the catalogs use too.
pub struct DocOptions<'a> {
    /// Commit URL template with `{sha}` (overrides the per-tree default).
    pub commit_url: Option<&'a str>,
    /// Direction weight of a metric: 1 higher-is-better, -1 lower-is-better, 0 unknown.
    pub weight: &'a (dyn Fn(&str) -> i8 + Sync),
}

/// The report document of `d`; its script text goes to `scripts` (by content hash). Rows carry
/// their metric's direction and commits their link by `opts`, as the catalogs do.
pub fn to_doc(d: &Document, scripts: &mut BTreeMap<String, String>, opts: &DocOptions) -> ReportDoc {
    let script = d.script.as_ref().map(|s| {
        let h = paths::hash_hex(s.as_bytes());
        scripts.entry(h.clone()).or_insert_with(|| s.clone());
        h
    });
    let mut jobs: Vec<DocJob> = Vec::new();
    let mut job_of: HashMap<*const JobKey, u32> = HashMap::new();
    let sections = d
        .sections
        .iter()
        .map(|s| DocSection {
            commits: s.commits.clone(),
            machine: s.machine_desc.clone(),
            rows: s
                .rows
                .iter()
                .map(|r| {
                    let job = *job_of.entry(Arc::as_ptr(&r.job)).or_insert_with(|| {
                        let k = DocJob {
                            testcase: r.job.testcase.clone(),
                            machine: r.job.machine.clone(),
                            params: r.job.params.clone(),
                        };
                        match jobs.iter().position(|j| *j == k) {
                            Some(i) => i as u32,
                            None => {
                                jobs.push(k);
                                jobs.len() as u32 - 1
                            }
                        }
                    });
                    to_row(r, job, (opts.weight)(&r.metric))
                })
                .collect(),
        })
        .collect();
    ReportDoc {
        schema: SCHEMA_VERSION,
        id: report_id(d),
        kind: d.kind,
        source: d.source.clone(),
        message_id: d.message_id.clone(),
        subject: d.subject.clone(),
        from: d.from.clone(),
        to: d.to.clone(),
        date: d.date.clone(),
        url: lore_url(d),
        materials_url: d.materials_url.clone(),
        script,
        script_is_file: d.script_is_file,
        notes: d.notes.clone(),
        commits: d
            .commits
            .iter()
            .map(|c| DocCommit {
                id: c.id.clone(),
                subject: c.subject.clone(),
                tree: c.tree.clone(),
                branch: c.branch.clone(),
                url: commit_link(opts.commit_url, c.tree.as_deref(), &c.id),
            })
            .collect(),
        headlines: d
            .headlines
            .iter()
            .map(|h| DocHeadline {
                testcase: h.testcase.clone(),
                metric: h.metric.clone(),
                change: h.change,
                word: h.word.clone(),
            })
            .collect(),
        jobs,
        sections,
    }
}

fn to_row(r: &Row, job: u32, weight: i8) -> DocRow {
    DocRow {
        line: r.line,
        at: None,
        job,
        metric: r.metric.clone(),
        fail: r.kind == RowKind::Fail,
        aggregate: r.aggregate,
        values: r.values.clone(),
        stddev_pct: r.stddev_pct.clone(),
        changes: r.changes.clone(),
        change_kind: r.change_kind.clone(),
        fails: r.fails.clone(),
        runs: r.runs.clone(),
        run_values: r.run_values.clone(),
        note: r.note.clone(),
        weight,
    }
}

/// The document a report document was made from; `script` gives a script's text by hash.
pub fn from_doc(rd: &ReportDoc, script: &dyn Fn(&str) -> Option<String>) -> Result<Document, String> {
    if let Some(r) = rd.sections.iter().flat_map(|s| &s.rows).find(|r| r.at.is_some()) {
        return Err(format!("row at line {} is not filled from its page's rows (render::carry::filled)", r.line));
    }
    let jobs: Vec<Arc<JobKey>> = rd
        .jobs
        .iter()
        .map(|j| {
            Arc::new(JobKey { testcase: j.testcase.clone(), machine: j.machine.clone(), params: j.params.clone() })
        })
        .collect();
    let mut sections = Vec::with_capacity(rd.sections.len());
    for (index, s) in rd.sections.iter().enumerate() {
        let mut rows = Vec::with_capacity(s.rows.len());
        for r in &s.rows {
            let job = jobs
                .get(r.job as usize)
                .ok_or_else(|| format!("row of {} names job #{} of {}", r.metric, r.job, jobs.len()))?;
            rows.push(Row {
                line: r.line,
                kind: if r.fail { RowKind::Fail } else { RowKind::Perf },
                job: job.clone(),
                metric: r.metric.clone(),
                aggregate: r.aggregate,
                values: r.values.clone(),
                stddev_pct: r.stddev_pct.clone(),
                changes: r.changes.clone(),
                change_kind: r.change_kind.clone(),
                fails: r.fails.clone(),
                runs: r.runs.clone(),
                run_values: r.run_values.clone(),
                note: r.note.clone(),
            });
        }
        sections.push(Section { index, commits: s.commits.clone(), machine_desc: s.machine.clone(), rows });
    }
    let script_text = match &rd.script {
        Some(h) => Some(script(h).ok_or_else(|| format!("its script {} is missing", paths::script(h)))?),
        None => None,
    };
    Ok(Document {
        source: rd.source.clone(),
        kind: rd.kind,
        message_id: rd.message_id.clone(),
        subject: rd.subject.clone(),
        from: rd.from.clone(),
        to: rd.to.clone(),
        date: rd.date.clone(),
        materials_url: rd.materials_url.clone(),
        script: script_text,
        script_is_file: rd.script_is_file,
        commits: rd
            .commits
            .iter()
            .map(|c| CommitInfo {
                id: c.id.clone(),
                subject: c.subject.clone(),
                tree: c.tree.clone(),
                branch: c.branch.clone(),
            })
            .collect(),
        headlines: rd
            .headlines
            .iter()
            .map(|h| HeadlineInfo {
                testcase: h.testcase.clone(),
                metric: h.metric.clone(),
                change: h.change,
                word: h.word.clone(),
            })
            .collect(),
        sections,
        notes: rd.notes.clone(),
    })
}
