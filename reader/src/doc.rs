//! The validated form of one input document (a mail, or one lkp-tests result root): what the
//! parsers produce and the dataset builder consumes. Both input kinds meet here.

use model::{ChangeKind, Params, SourceKind};
use std::sync::Arc;

/// Everything read from one report or result root.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    /// The input path as given (a file, or `file#N` for the N-th mail of an mbox).
    pub source: String,
    pub kind: SourceKind,
    pub message_id: Option<String>,
    pub subject: Option<String>,
    pub from: Option<String>,
    /// Recipients (To, then Cc), as the mail's headers give them.
    pub to: Vec<String>,
    pub date: Option<String>,
    /// `https://download.01.org/0day-ci/archive/...` when given.
    pub materials_url: Option<String>,
    /// Reproduce script text (attachment `reproduce`, inline block, or `reproduce.sh`).
    pub script: Option<String>,
    /// The script is the real `reproduce` file (attachment, `reproduce.sh`), not mail prose.
    pub script_is_file: bool,
    /// What the document says about commits (ids as long as the document gives them).
    pub commits: Vec<CommitInfo>,
    /// Changes named by the headline / subject / "In addition" box.
    pub headlines: Vec<HeadlineInfo>,
    /// Comparison tables, in document order.
    pub sections: Vec<Section>,
    /// Short notes from the thread (e.g. a maintainer's reply).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommitInfo {
    pub id: String,
    pub subject: Option<String>,
    pub tree: Option<String>,
    pub branch: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeadlineInfo {
    pub testcase: String,
    pub metric: String,
    /// Percent as the sentence states it.
    pub change: Option<f64>,
    /// "regression", "improvement", or "" when the sentence has no word.
    pub word: String,
}

/// Testcase + machine + parameters of a row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobKey {
    pub testcase: String,
    /// tbox_group; empty when the document does not say.
    pub machine: String,
    pub params: Params,
}

/// One comparison table (with its context).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Section {
    /// 0-based position in the document.
    pub index: usize,
    /// Commit ids in column order (base first), as long as the document gives them.
    pub commits: Vec<String>,
    /// Machine description (`96 threads 2 sockets ...`) when given.
    pub machine_desc: Option<String>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RowKind {
    #[default]
    Perf,
    Fail,
}

/// One table row as read. Vectors are per column (commit), except `changes` and
/// `change_kind`, which are per later column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    /// 1-based line in the (decoded) document text; 0 when not from text.
    pub line: usize,
    pub kind: RowKind,
    /// Shared by the rows of one table context (cloning it is cheap).
    pub job: Arc<JobKey>,
    pub metric: String,
    /// The TOTAL / GEO-MEAN row of a 2014 grouped table.
    pub aggregate: bool,
    pub values: Vec<Option<f64>>,
    pub stddev_pct: Vec<Option<f64>>,
    pub changes: Vec<Option<f64>>,
    pub change_kind: Vec<ChangeKind>,
    /// Failure rows: failures and runs per column.
    pub fails: Vec<Option<u32>>,
    pub runs: Vec<Option<u32>>,
    /// Per-run values per column where known (result roots).
    pub run_values: Vec<Option<Vec<f64>>>,
    /// An annotation written after the metric name, as the mail has it (`<-------- (a)`).
    pub note: Option<String>,
}
