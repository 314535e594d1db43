//! Report text → `Document`: finds the context (testcase, machine, parameters, commits, headline,
//! reproduce script) and every comparison table of a kernel test robot mail of any era, including
//! quoted copies in replies and web renderings with collapsed whitespace.

use crate::doc::{CommitInfo, Document, HeadlineInfo, JobKey, Row, RowKind, Section};
use crate::mail::Message;
use crate::table::{self, Tok};
use model::{ChangeKind, Params};
use regex::Regex;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::OnceLock;

/// A problem in a report, with its 1-based line in the decoded text.
#[derive(Debug, Clone, PartialEq)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

/// The outcome of reading one report: the document (possibly partial) and the rows it could not read.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub doc: Document,
    pub errors: Vec<LineError>,
    /// Rows read from unquoted lines (the mail's own tables) and from quoted ones (`>` copies).
    pub own_rows: usize,
    pub quoted_rows: usize,
    /// Lines of quoted copies of tables already read that are not rows as lkp prints them (a mail
    /// client re-wrapped or re-spaced the copy): not errors, as such a copy is no row's source.
    pub quoted_unread: usize,
}

/// A line after normalisation: quote marks removed.
struct Line<'a> {
    /// 1-based number in the decoded text.
    no: usize,
    text: &'a str,
    /// Produced by splitting a line that a web archive collapsed: trailing prose is tolerated.
    collapsed: bool,
    /// Behind quote marks (`>`, at any depth): a copy of someone else's text.
    quoted: bool,
}

struct Re {
    quote: Regex,
    commit_line: Regex,
    commit_list_item: Regex,
    bare_sha: Regex,
    tree_line: Regex,
    headline: Regex,
    headline_2014: Regex,
    in_addition: Regex,
    subject_change: Regex,
    subject_2014: Regex,
    param_line: Regex,
    msgid: Regex,
    materials: Regex,
    star_machine: Regex,
}

fn re() -> &'static Re {
    static RE: OnceLock<Re> = OnceLock::new();
    RE.get_or_init(|| Re {
        quote: Regex::new(r"^(?:[ \t]*>)+[ \t]?").unwrap(),
        commit_line: Regex::new(r#"^\s*commit:?\s+([0-9a-f]{7,40})\b\s*(?:\("(.*)"\))?"#).unwrap(),
        commit_list_item: Regex::new(r#"^\s*([0-9a-f]{7,40}|v\d[\w.\-]*)\s+\("(.*)"\)\s*$"#).unwrap(),
        bare_sha: Regex::new(r"^\s*([0-9a-f]{40})\s*$").unwrap(),
        tree_line: Regex::new(r"^\s*((?:https?|git)://\S+)(?:\s+(\S+))?\s*$").unwrap(),
        headline: Regex::new(r"noticed an?\s+([+-]?[\d.]+(?:e[+-]?\d+)?)%*\s+(regression|improvement)\s+of\s+(\S+?)(?::|\s+due|\s+on\b|$)").unwrap(),
        headline_2014: Regex::new(r"^\s*\[[^\]]*\]\s+[0-9a-f]{7,}:\s+(.*)$").unwrap(),
        in_addition: Regex::new(r"^\|\s*testcase: change\s*\|\s*([\w.\-]+):\s+(\S+)\s+([+-]?[\d.]+)%\s+(regression|improvement)").unwrap(),
        subject_change: Regex::new(r"[0-9a-f]{7,}:\s+(\S+)\s+([+-]?[\d.]+)%\s+(regression|improvement)").unwrap(),
        subject_2014: Regex::new(r"([+-][\d.]+)%\s+([\w.\-:/%()\[\]]+)").unwrap(),
        param_line: Regex::new(r"^\s*([A-Za-z_][\w\-.]*):\s+(\S.*?)\s*$").unwrap(),
        msgid: Regex::new(r"(?i)^message-id:\s*<([^>\s]+)>").unwrap(),
        materials: Regex::new(r"https://download\.01\.org/0day-ci/archive/\S+").unwrap(),
        star_machine: Regex::new(r"^([\w.\-]+):\s+(\d+ threads.*|.*\bmemory.*)$").unwrap(),
    })
}

/// Read one decoded message.
pub fn parse(source: &str, msg: &Message) -> Parsed {
    // U+00A0 (a mail client's or a gateway's no-break space) is a space to every reader below
    let text = no_break_spaces_as_spaces(msg.body.as_str());
    let text = text.as_ref();
    let lines = normalise(text, msg.body_line_offset);
    let mut p = Parser::new(source, msg);
    p.scan(&lines);
    p.finish(text, &lines)
}

/// `text` with every U+00A0 as a plain space (borrowed when it holds none).
pub fn no_break_spaces_as_spaces(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\u{a0}') {
        std::borrow::Cow::Owned(text.replace('\u{a0}', " "))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Quote marks off, collapsed web renderings split back into lines.
fn normalise(text: &str, offset: usize) -> Vec<Line<'_>> {
    let r = re();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1 + offset;
        // A whole mail collapsed onto one line keeps its quote marks as ` > `: split there.
        if raw.len() > 300 && raw.matches(" > ").count() >= 3 {
            for (k, piece) in raw.split(" > ").enumerate() {
                let piece = r.quote.replace(piece, "");
                let piece = piece.trim_start_matches('>').trim();
                // borrow from the original line: find the piece in it
                if let Some(pos) = raw.find(piece) {
                    out.push(Line { no, text: &raw[pos..pos + piece.len()], collapsed: true, quoted: k > 0 });
                }
            }
            continue;
        }
        let (stripped, quoted) = match r.quote.find(raw) {
            Some(m) => (&raw[m.end()..], true),
            None => (raw, false),
        };
        out.push(Line { no, text: stripped.trim_end(), collapsed: false, quoted });
    }
    out
}

/// What the text said so far about the job being reported.
#[derive(Debug, Clone, Default)]
struct Context {
    testcase: String,
    machine: String,
    machine_desc: Option<String>,
    params: Params,
    /// Params came from an axes header (complete) rather than a parameter list.
    from_axes: bool,
}

struct Parser<'m> {
    doc: Document,
    errors: Vec<LineError>,
    ctx: Context,
    /// the last git URL line seen and its branch
    last_tree: Option<(String, Option<String>)>,
    seen_rows: HashSet<u64>,
    last_job: Option<Arc<JobKey>>,
    /// content hash of each job `Arc` (by address) for row identities
    job_hashes: std::collections::HashMap<usize, (Arc<JobKey>, u64)>,
    msg: &'m Message,
    /// The current table names its rows `testcase/testparams/testbox` (2020), not `testbox/testcase/…`.
    testcase_first: bool,
    own_rows: usize,
    quoted_rows: usize,
    quoted_unread: usize,
    /// Problems on the quoted lines of the table being read.
    quoted_errors: Vec<LineError>,
}

impl<'m> Parser<'m> {
    fn new(source: &str, msg: &'m Message) -> Self {
        let doc = Document {
            source: source.to_string(),
            message_id: msg.message_id.clone(),
            subject: msg.subject.clone(),
            from: msg.from.clone(),
            to: msg.to.clone(),
            date: msg.date.clone(),
            ..Default::default()
        };
        Parser {
            doc,
            errors: vec![],
            ctx: Context::default(),
            last_tree: None,
            seen_rows: HashSet::new(),
            last_job: None,
            job_hashes: Default::default(),
            msg,
            testcase_first: false,
            own_rows: 0,
            quoted_rows: 0,
            quoted_unread: 0,
            quoted_errors: Vec::new(),
        }
    }

    fn scan(&mut self, lines: &[Line]) {
        let r = re();
        let mut i = 0;
        while i < lines.len() {
            let l = &lines[i];
            let t = l.text.trim();
            // headers inside a web page
            if self.msg.message_id.is_none() {
                self.header_in_body(i, lines);
            }
            if let Some(m) = r.materials.find(t) {
                if self.doc.materials_url.is_none() {
                    self.doc.materials_url = Some(m.as_str().trim_end_matches(['.', ',', ')']).to_string());
                }
            }
            if let Some(c) = r.headline.captures(t) {
                let metric = c[3].trim_end_matches(':').to_string();
                let change = c[1].parse().ok();
                let word = c[2].to_string();
                if !self.doc.headlines.iter().any(|h| h.metric == metric) {
                    self.doc.headlines.insert(0, HeadlineInfo { testcase: String::new(), metric, change, word });
                }
            }
            if let Some(c) = r.in_addition.captures(t) {
                let metric = c[2].to_string();
                if !self.doc.headlines.iter().any(|h| h.metric == metric && h.testcase == c[1]) {
                    self.doc.headlines.push(HeadlineInfo {
                        testcase: c[1].to_string(),
                        metric,
                        change: c[3].parse().ok(),
                        word: c[4].to_string(),
                    });
                }
            }
            if let Some(v) = t.strip_prefix("in testcase:").or_else(|| t.strip_prefix("testcase:")) {
                if !t.contains('|') {
                    self.ctx.testcase = v.trim().to_string();
                }
            } else if let Some(v) = t.strip_prefix("on test machine:").or_else(|| t.strip_prefix("test machine:")) {
                self.ctx.machine_desc = Some(v.trim().to_string());
            } else if let Some(v) = t.strip_prefix("test case:") {
                self.testbox_path_context(v.trim());
            } else if t == "with following parameters:" || t == "parameters:" {
                i = self.param_list(lines, i + 1);
                continue;
            } else if t.starts_with("=====") && t.chars().all(|c| c == '=') && t.len() >= 20 {
                if let Some(next) = self.axes(lines, i + 1) {
                    i = next;
                    continue;
                }
            } else if t.starts_with("*****") && t.chars().all(|c| c == '*') && t.len() >= 20 {
                // a further test section: `<tbox_group>: <machine>` follows
                if let Some(n) = lines.get(i + 1) {
                    if let Some(c) = r.star_machine.captures(n.text.trim()) {
                        self.ctx = Context {
                            machine: c[1].to_string(),
                            machine_desc: Some(c[2].to_string()),
                            ..Default::default()
                        };
                    }
                }
            } else if let Some(c) = r.tree_line.captures(t) {
                let url = c[1].to_string();
                if url.contains(".git")
                    || url.contains("git.kernel.org")
                    || url.starts_with("git://")
                    || url.contains("/linux/commits/")
                {
                    self.last_tree = Some((url, c.get(2).map(|m| m.as_str().to_string())));
                    // the tree line follows the commit line since 2016: attach it to that commit
                    if let Some(prev) = i.checked_sub(1).map(|k| lines[k].text) {
                        if let Some(pc) = r.commit_line.captures(prev) {
                            let id = pc[1].to_string();
                            self.set_tree(&id);
                        }
                    }
                }
            } else if let Some(c) = r.commit_line.captures(t) {
                if t.starts_with("commit") {
                    let id = c[1].to_string();
                    let subject = c.get(2).map(|m| m.as_str().to_string());
                    self.add_commit(&id, subject);
                    // 2014: the tree line precedes the commit line
                    let prev_is_tree = i.checked_sub(1).map(|k| r.tree_line.is_match(lines[k].text)).unwrap_or(false)
                        || i.checked_sub(2)
                            .map(|k| r.tree_line.is_match(lines[k].text) && lines[k + 1].text.trim().is_empty())
                            .unwrap_or(false);
                    if prev_is_tree {
                        self.set_tree(&id);
                    }
                }
            } else if t == "commit:" {
                i = self.commit_list(lines, i + 1);
                continue;
            } else if is_dashes(t) {
                i = self.table(lines, i);
                continue;
            } else if let Some(url) = t.strip_prefix("url:") {
                let url = url.trim();
                if url.starts_with("https://github.com/") {
                    self.last_tree = Some((url.to_string(), None));
                }
            }
            i += 1;
        }
    }

    fn header_in_body(&mut self, i: usize, lines: &[Line]) {
        let r = re();
        let t = lines[i].text.trim();
        if let Some(c) = r.msgid.captures(t) {
            if self.doc.message_id.is_none() {
                self.doc.message_id = Some(c[1].to_string());
            }
        } else if i < 60 {
            if let Some(v) = t.strip_prefix("Subject:") {
                if self.doc.subject.is_none() {
                    self.doc.subject = Some(v.trim().to_string());
                }
            } else if let Some(v) = t.strip_prefix("From:") {
                if self.doc.from.is_none() {
                    self.doc.from = Some(v.trim().to_string());
                }
            } else if let Some(v) = t.strip_prefix("Date:") {
                if self.doc.date.is_none() {
                    self.doc.date = Some(v.trim().trim_end_matches("[thread overview]").trim().to_string());
                }
            } else if i == 0 && r.headline_2014.is_match(t) && self.doc.subject.is_none() {
                self.doc.subject = Some(t.to_string());
            }
        }
    }

    fn set_tree(&mut self, id: &str) {
        if let Some((tree, branch)) = self.last_tree.clone() {
            if let Some(c) = self.doc.commits.iter_mut().find(|c| c.id == id) {
                if c.tree.is_none() {
                    c.tree = Some(tree);
                    c.branch = branch;
                }
            }
        }
    }

    fn add_commit(&mut self, id: &str, subject: Option<String>) {
        if let Some(c) = self.doc.commits.iter_mut().find(|c| c.id == id) {
            if c.subject.is_none() {
                c.subject = subject;
            }
            return;
        }
        self.doc.commits.push(CommitInfo { id: id.to_string(), subject, tree: None, branch: None });
    }

    /// `2014: test case: lkp-sb02/blogbench/1HDD-btrfs`
    fn testbox_path_context(&mut self, path: &str) {
        if let Some(job) = testbox_path(path) {
            self.ctx.testcase = job.testcase;
            self.ctx.machine = job.machine;
            self.ctx.params = job.params;
            self.ctx.from_axes = true;
        }
    }

    /// `with following parameters:` then `key: value` lines.
    fn param_list(&mut self, lines: &[Line], mut i: usize) -> usize {
        let r = re();
        let mut params = Params::new();
        // blank lines may precede the list
        while i < lines.len() && lines[i].text.trim().is_empty() {
            i += 1;
        }
        while i < lines.len() {
            let t = lines[i].text;
            let Some(c) = r.param_line.captures(t) else { break };
            let key = &c[1];
            if key == "test-description" || key == "test-url" {
                break;
            }
            params.insert(key.to_string(), c[2].to_string());
            i += 1;
        }
        if !self.ctx.from_axes {
            self.ctx.params.extend(params);
        }
        i
    }

    /// `=====` line, then `k1/k2/...:` and the values line.
    fn axes(&mut self, lines: &[Line], i: usize) -> Option<usize> {
        let keys_line = lines.get(i)?.text.trim();
        let keys = keys_line.strip_suffix(':')?;
        if keys.contains(' ') || !keys.contains('/') && !keys.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let values_line = lines.get(i + 1)?.text.trim();
        let keys: Vec<&str> = keys.split('/').collect();
        let values: Vec<&str> = values_line.split('/').collect();
        if keys.len() != values.len() {
            let message = format!("axes header has {} keys but {} values", keys.len(), values.len());
            if lines[i + 1].quoted {
                self.quoted_unread += 1;
            } else {
                self.errors.push(LineError { line: lines[i + 1].no, message });
            }
            return Some(i + 2);
        }
        let mut params = Params::new();
        let mut testcase = None;
        let mut machine = None;
        for (k, v) in keys.iter().zip(values) {
            match *k {
                "testcase" => testcase = Some(v.to_string()),
                "tbox_group" => machine = Some(v.to_string()),
                _ => {
                    params.insert(k.to_string(), v.to_string());
                }
            }
        }
        self.ctx.params = params;
        self.ctx.from_axes = true;
        if let Some(t) = testcase {
            self.ctx.testcase = t;
        }
        if let Some(m) = machine {
            self.ctx.machine = m;
        }
        Some(i + 2)
    }

    /// `commit:` followed by `<id> ("subject")` lines (or bare 40-hex ids).
    fn commit_list(&mut self, lines: &[Line], mut i: usize) -> usize {
        let r = re();
        while i < lines.len() {
            let t = lines[i].text;
            if let Some(c) = r.commit_list_item.captures(t) {
                self.add_commit(&c[1], Some(c[2].to_string()));
            } else if let Some(c) = r.bare_sha.captures(t) {
                self.add_commit(&c[1], None);
            } else if !t.trim().is_empty() {
                break;
            }
            i += 1;
        }
        i
    }

    /// A table: `i` is the dashes line; the line before holds the column commit ids.
    fn table(&mut self, lines: &[Line], i: usize) -> usize {
        let groups = lines[i].text.split_whitespace().count();
        let header = (0..i).rev().map(|k| &lines[k]).find(|l| !l.text.trim().is_empty());
        let Some(header) = header else { return i + 1 };
        let mut ids: Vec<String> = header.text.split_whitespace().map(str::to_string).collect();
        if ids.len() != groups || groups < 2 {
            return i + 1;
        }
        // the robot's 2020 fix confirmations head the row-name column `testcase/testparams/testbox`
        self.testcase_first = ids.last().is_some_and(|l| l == "testcase/testparams/testbox");
        if self.testcase_first {
            ids.pop();
        }
        let n = ids.len();
        if n < 2 {
            return i + 1;
        }
        let mut mode = RowKind::Perf;
        let mut rows: Vec<Row> = Vec::new();
        // rows of a 2014 grouped table waiting for their TOTAL row
        let mut pending: Vec<usize> = Vec::new();
        let mut k = i + 1;
        while k < lines.len() {
            let l = &lines[k];
            let t = l.text.trim();
            if t.is_empty() {
                // a blank line ends the table unless a block header follows
                let next = lines[k + 1..].iter().find(|l| !l.text.trim().is_empty());
                match next {
                    Some(nl) if is_block_header(nl.text.trim()) => {
                        k += 1;
                        continue;
                    }
                    _ => break,
                }
            }
            if t.starts_with("%stddev") {
                mode = RowKind::Perf;
                k += 1;
                continue;
            }
            if t.starts_with("fail:runs") {
                mode = RowKind::Fail;
                k += 1;
                continue;
            }
            if t.chars().all(|c| c == '|' || c == '\\' || c.is_whitespace()) {
                k += 1;
                continue;
            }
            let toks = table::tokenize(t);
            if !looks_like_row(&toks) && !is_broken_row(&toks, lines.get(k + 1)) {
                break;
            }
            let mut read = self.row(&toks, n, mode, l);
            if read.is_err() {
                if let Some(row) = self.rewrapped(l, lines.get(k + 1), n, mode) {
                    read = Ok(Some(row));
                    k += 1;
                }
            }
            match read {
                Ok(Some(mut row)) => {
                    if row.aggregate {
                        // TOTAL row: the rows above it are its testboxes
                        if pending.is_empty() {
                            row.aggregate = false;
                        } else {
                            let members: Vec<JobKey> = pending.iter().map(|&p| (*rows[p].job).clone()).collect();
                            for &p in &pending {
                                rows[p].metric = row.metric.clone();
                            }
                            row.job = Arc::new(common_job(&members));
                        }
                        pending.clear();
                    } else if row.metric.is_empty() {
                        pending.push(rows.len());
                    }
                    if l.quoted {
                        self.quoted_rows += 1;
                    } else {
                        self.own_rows += 1;
                    }
                    rows.push(row);
                }
                Ok(None) => {}
                Err(e) => self.line_error(l, e),
            }
            k += 1;
        }
        for &p in &pending {
            let line = lines.iter().find(|l| l.no == rows[p].line).unwrap_or(&lines[i]);
            self.line_error(line, "testbox row without a TOTAL row naming its metric".into());
        }
        let pending_set: HashSet<usize> = pending.into_iter().collect();
        let rows: Vec<Row> =
            rows.into_iter().enumerate().filter(|(k, _)| !pending_set.contains(k)).map(|(_, r)| r).collect();
        let had_rows = self.doc.sections.iter().any(|s| !s.rows.is_empty());
        let fresh = self.push_section(ids, rows);
        // a quoted copy of a table already read: its unreadable lines are a mail client's doing;
        // a quoted table that is the text's only copy (a web page of a reply) is the rows' source
        let quoted = std::mem::take(&mut self.quoted_errors);
        if fresh == 0 && had_rows {
            self.quoted_unread += quoted.len();
        } else {
            self.errors.extend(quoted);
        }
        k
    }

    /// A quoted row that a mail client re-wrapped (its name or last cell on the next line): the
    /// two lines read as one, if they make a row.
    fn rewrapped(&mut self, line: &Line, next: Option<&Line>, n: usize, mode: RowKind) -> Option<Row> {
        let next = next.filter(|x| line.quoted && x.quoted && !x.text.trim().is_empty())?;
        let next_toks = table::tokenize(next.text.trim());
        if looks_like_row(&next_toks) && self.row(&next_toks, n, mode, next).is_ok() {
            return None;
        }
        let joined = format!("{} {}", line.text.trim(), next.text.trim());
        let whole = Line { no: line.no, text: &joined, collapsed: false, quoted: true };
        self.row(&table::tokenize(&joined), n, mode, &whole).ok().flatten()
    }

    /// A line that is not what it should be: an error naming it, or, behind quote marks, held
    /// until its table tells whether it is a copy (see `table`).
    fn line_error(&mut self, line: &Line, message: String) {
        let e = LineError { line: line.no, message };
        if line.quoted {
            self.quoted_errors.push(e);
        } else {
            self.errors.push(e);
        }
    }

    fn row(&mut self, toks: &[Tok], n: usize, mode: RowKind, line: &Line) -> Result<Option<Row>, String> {
        // A note after the name (`<-------- (a)`) is not part of the grammar: set it aside.
        let (row_end, note) = table::split_note(line.text.trim(), toks);
        let toks = &toks[..row_end];
        // The name: last token, or `TOTAL <metric>` / `GEO-MEAN <metric>`.
        let mut end = toks.len();
        let total_at = toks.iter().position(|t| matches!(t, Tok::Word("TOTAL") | Tok::Word("GEO-MEAN")));
        let (name, aggregate, cells_end) = match total_at {
            Some(p) if p + 1 < toks.len() && (p + 2 == toks.len() || line.collapsed) => {
                end = p;
                (word(&toks[p + 1]).unwrap_or(""), true, p)
            }
            _ => match toks.last() {
                // a `±` without its percentage, a number or a change is a cell cut short, not a name
                Some(Tok::Word(w)) if !table::is_cell_fragment(w) => (*w, false, end - 1),
                _ => return Err("row has no metric name".into()),
            },
        };
        let _ = end;
        let cells = &toks[..cells_end];
        let fail_row =
            mode == RowKind::Fail || matches!(cells.first(), Some(Tok::Word(w)) if table::parse_fail_runs(w).is_some());
        // A 2014/2011 grouped table row names a testbox path, not a metric.
        let member_job = if aggregate || !name.contains('/') || name.contains('.') {
            None
        } else if self.testcase_first {
            testcase_path(name)
        } else {
            member_path(name)
        };
        let metric = if member_job.is_some() { String::new() } else { name.to_string() };
        let job = match member_job {
            Some(j) => Arc::new(j),
            None => self.job_for(&metric),
        };
        let mut row = Row { line: line.no, job, metric, aggregate, note, ..Default::default() };
        if fail_row {
            let c = table::parse_fail_cells(cells, n)?;
            row.kind = RowKind::Fail;
            row.fails = c.fails;
            row.runs = c.runs;
            row.change_kind = vec![ChangeKind::Reproduction; c.changes.len()];
            row.changes = c.changes;
        } else {
            // Before 2017-08 perf-profile changes were relative; the token itself tells.
            let absolute = model::stats::is_absolute_metric(name);
            let c = table::parse_perf_cells(cells, n, absolute)?;
            row.values = c.values;
            row.stddev_pct = c.stddev_pct;
            row.changes = c.changes;
            row.change_kind = c.change_kind;
        }
        Ok(Some(row))
    }

    /// The job of a row in the current context; rows of one context share one `Arc`.
    fn job_for(&mut self, metric: &str) -> Arc<JobKey> {
        let testcase =
            if self.ctx.testcase.is_empty() { metric.split('.').next().unwrap_or("") } else { &self.ctx.testcase };
        if let Some(j) = &self.last_job {
            if j.testcase == testcase && j.machine == self.ctx.machine && j.params == self.ctx.params {
                return j.clone();
            }
        }
        let j = Arc::new(JobKey {
            testcase: testcase.to_string(),
            machine: self.ctx.machine.clone(),
            params: self.ctx.params.clone(),
        });
        self.last_job = Some(j.clone());
        j
    }

    /// Add a table's rows (those not read before) as a section; returns how many were added.
    fn push_section(&mut self, commits: Vec<String>, rows: Vec<Row>) -> usize {
        // a table already read (the same mail twice on a page, or quoted in a reply) adds nothing
        let mut fresh = Vec::new();
        for row in rows {
            let jh = self
                .job_hashes
                .entry(Arc::as_ptr(&row.job) as usize)
                .or_insert_with(|| {
                    use std::hash::{Hash, Hasher};
                    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
                    row.job.hash(&mut h);
                    // the Arc is kept so that its address cannot be reused by another job
                    (row.job.clone(), h.finish())
                })
                .1;
            let key = row_key(&commits, &row, jh);
            if self.seen_rows.insert(key) {
                fresh.push(row);
            }
        }
        let n = fresh.len();
        if n == 0 {
            return 0;
        }
        // consecutive tables of the same context (2013/2014 one-table-per-metric) form one section
        if let Some(last) = self.doc.sections.last_mut() {
            if last.commits == commits
                && last.machine_desc == self.ctx.machine_desc
                && last.rows.first().map(|r| (&r.job.machine, r.kind))
                    == fresh.first().map(|r| (&r.job.machine, r.kind))
            {
                last.rows.extend(fresh);
                return n;
            }
        }
        let index = self.doc.sections.len();
        self.doc.sections.push(Section { index, commits, machine_desc: self.ctx.machine_desc.clone(), rows: fresh });
        n
    }

    fn finish(mut self, text: &str, lines: &[Line]) -> Parsed {
        let _ = lines.len();
        self.resolve_commits();
        // testcase of headlines from the main section
        let main_tc =
            self.doc.sections.first().and_then(|s| s.rows.first()).map(|r| r.job.testcase.clone()).unwrap_or_default();
        for h in &mut self.doc.headlines {
            if h.testcase.is_empty() {
                h.testcase = if main_tc.is_empty() {
                    h.metric.split('.').next().unwrap_or("").to_string()
                } else {
                    main_tc.clone()
                };
            }
        }
        self.subject_headlines();
        if self.doc.date.is_none() {
            // a web copy without headers: the attribution line of a reply dates the quoted mail
            self.doc.date = lines.iter().find_map(|l| {
                l.text
                    .trim()
                    .strip_prefix("On ")
                    .and_then(|r| r.split_once(" wrote:"))
                    .map(|(d, _)| d.rsplit_once(", ").map_or(d, |(d, _)| d).to_string())
            });
        }
        self.doc.script = find_script(self.msg, text);
        self.doc.script_is_file =
            self.msg.attachments.iter().any(|(n, _)| n.starts_with("reproduce")) || text.contains(": reproduce --]");
        self.doc.notes = find_notes(text);
        Parsed {
            doc: self.doc,
            errors: self.errors,
            own_rows: self.own_rows,
            quoted_rows: self.quoted_rows,
            quoted_unread: self.quoted_unread,
        }
    }

    /// 2014 subjects carry the headline changes: `[btrfs] 4c468fd7485: +7.8% blogbench.write_score, -5.1% turbostat.Pkg_W`.
    fn subject_headlines(&mut self) {
        let r = re();
        let Some(subject) = self.doc.subject.clone() else { return };
        let tc =
            self.doc.sections.first().and_then(|s| s.rows.first()).map(|r| r.job.testcase.clone()).unwrap_or_default();
        if self.doc.headlines.is_empty() {
            if let Some(c) = r.subject_change.captures(&subject) {
                self.doc.headlines.push(HeadlineInfo {
                    testcase: tc.clone(),
                    metric: c[1].to_string(),
                    change: c[2].parse().ok(),
                    word: c[3].to_string(),
                });
                return;
            }
            if let Some(c) = r.headline_2014.captures(&subject) {
                for m in r.subject_2014.captures_iter(&c[1]) {
                    let metric = m[2].trim_end_matches(',').to_string();
                    self.doc.headlines.push(HeadlineInfo {
                        testcase: tc.clone(),
                        metric,
                        change: m[1].parse().ok(),
                        word: String::new(),
                    });
                }
            }
        }
    }

    /// Column ids are abbreviations: resolve each to the longest id the document gives.
    fn resolve_commits(&mut self) {
        let known: Vec<String> = self.doc.commits.iter().map(|c| c.id.clone()).collect();
        for s in &mut self.doc.sections {
            for id in &mut s.commits {
                let best = known
                    .iter()
                    .filter(|k| k.starts_with(id.as_str()) || (id.starts_with(k.as_str()) && k.len() >= 7))
                    .max_by_key(|k| k.len());
                if let Some(b) = best {
                    if b.len() > id.len() {
                        *id = b.clone();
                    }
                }
            }
        }
        // the commits of the columns are commits of the document too
        let ids: Vec<String> = self.doc.sections.iter().flat_map(|s| s.commits.clone()).collect();
        for id in ids {
            if !self.doc.commits.iter().any(|c| c.id == id || (c.id.starts_with(&id))) {
                self.doc.commits.push(CommitInfo { id, ..Default::default() });
            }
        }
        // abbreviated commit-list entries that a longer id covers: merge
        let all = self.doc.commits.clone();
        let mut merged: Vec<CommitInfo> = Vec::new();
        for c in all {
            let longer = self
                .doc
                .commits
                .iter()
                .find(|o| o.id.len() > c.id.len() && o.id.starts_with(&c.id) && c.id.len() >= 7)
                .cloned();
            match longer {
                Some(_) => {
                    // fold subject/tree into the longer entry
                    let target_id = self
                        .doc
                        .commits
                        .iter()
                        .filter(|o| o.id.starts_with(&c.id))
                        .max_by_key(|o| o.id.len())
                        .map(|o| o.id.clone())
                        .unwrap_or_default();
                    if let Some(t) = merged.iter_mut().find(|m| m.id == target_id) {
                        t.subject = t.subject.take().or(c.subject);
                        t.tree = t.tree.take().or(c.tree);
                        t.branch = t.branch.take().or(c.branch);
                    } else {
                        let mut t = self.doc.commits.iter().find(|o| o.id == target_id).cloned().unwrap_or_default();
                        t.subject = t.subject.take().or(c.subject);
                        t.tree = t.tree.take().or(c.tree);
                        t.branch = t.branch.take().or(c.branch);
                        merged.push(t);
                    }
                }
                None => {
                    if let Some(t) = merged.iter_mut().find(|m| m.id == c.id) {
                        t.subject = t.subject.take().or(c.subject);
                        t.tree = t.tree.take().or(c.tree);
                        t.branch = t.branch.take().or(c.branch);
                    } else {
                        merged.push(c);
                    }
                }
            }
        }
        // a head commit's tree is its base's tree too
        let tree = merged.iter().find_map(|c| c.tree.clone().map(|t| (t, c.branch.clone())));
        if let Some((t, b)) = tree {
            for c in &mut merged {
                if c.tree.is_none() {
                    c.tree = Some(t.clone());
                    c.branch = b.clone();
                }
            }
        }
        self.doc.commits = merged;
    }
}

fn word<'a>(t: &Tok<'a>) -> Option<&'a str> {
    match t {
        Tok::Word(w) => Some(w),
        _ => None,
    }
}

fn is_dashes(t: &str) -> bool {
    let mut groups = 0;
    for g in t.split_whitespace() {
        if g.len() < 7 || !g.bytes().all(|b| b == b'-') {
            return false;
        }
        groups += 1;
    }
    groups >= 2
}

fn is_block_header(t: &str) -> bool {
    t.starts_with("%stddev") || t.starts_with("fail:runs")
}

/// A line that tries to be a table row: starts with a number, a `±`, or `fails:runs`.
fn looks_like_row(toks: &[Tok]) -> bool {
    if toks.len() < 3 {
        return false;
    }
    match &toks[0] {
        Tok::Stddev(_) => true,
        Tok::Word(w) => {
            table::parse_value(w).is_some()
                || table::parse_fail_runs(w).is_some()
                || table::parse_change(w, true).is_some()
        }
    }
}

/// A line inside a table that is meant as a row but is malformed where a row should start
/// (`798566x4 ±  5%  -15.9%  6715392 ± 10%  meminfo.DirectMap2M`): it is read as a row, so that
/// it becomes an error naming its line and the table goes on, instead of ending the table and
/// losing the rows after it in silence. Prose after a table (`Disclaimer:`, a reply) is not:
/// it neither starts like a number with another cell after it, nor holds a `±` cell while the
/// next line carries on the table.
fn is_broken_row(toks: &[Tok], next: Option<&Line>) -> bool {
    if toks.len() < 3 {
        return false;
    }
    let cells = &toks[..toks.len() - 1];
    let cellish = |t: &Tok| match t {
        Tok::Stddev(_) => true,
        Tok::Word(w) => table::is_numberish(w) || table::parse_change(w, true).is_some(),
    };
    let starts_as_number = matches!(&toks[0], Tok::Word(w) if table::is_numberish(w));
    if starts_as_number && cells[1..].iter().any(cellish) {
        return true;
    }
    let table_goes_on = next.is_some_and(|l| looks_like_row(&table::tokenize(l.text.trim())));
    table_goes_on && cells.iter().any(|t| matches!(t, Tok::Stddev(_)))
}

/// Identity of a row for "already read": commits, job, metric and every number, hashed.
fn row_key(commits: &[String], row: &Row, job_hash: u64) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    // Abbreviated ids differ between a mail and its quoted copy only by length: use 7 chars.
    for c in commits {
        let short = if c.len() > 7 && c.bytes().all(|b| b.is_ascii_hexdigit()) { &c[..7] } else { c.as_str() };
        short.hash(&mut h);
    }
    row.metric.hash(&mut h);
    job_hash.hash(&mut h);
    (row.aggregate, row.kind == RowKind::Fail).hash(&mut h);
    for v in row.values.iter().chain(&row.stddev_pct).chain(&row.changes) {
        v.map(f64::to_bits).hash(&mut h);
    }
    row.fails.hash(&mut h);
    row.runs.hash(&mut h);
    h.finish()
}

/// The job that all testbox rows of a TOTAL share: common testcase, machine and parameters.
fn common_job(members: &[JobKey]) -> JobKey {
    let first = &members[0];
    let same = |f: &dyn Fn(&JobKey) -> &String| members.iter().all(|m| f(m) == f(first));
    let mut params = Params::new();
    for (k, v) in &first.params {
        if members.iter().all(|m| m.params.get(k) == Some(v)) {
            params.insert(k.clone(), v.clone());
        }
    }
    JobKey {
        testcase: if same(&|m| &m.testcase) { first.testcase.clone() } else { String::new() },
        machine: if same(&|m| &m.machine) { first.machine.clone() } else { String::new() },
        params,
    }
}

/// A testbox path from a 2014 grouped table or `test case:` line:
/// `lkp-ws02/micro/dd-write/11HDD-JBOD-cfq-ext4-10dd`, `ivb44/vm-scalability/300s-migrate`.
pub fn testbox_path(path: &str) -> Option<JobKey> {
    let parts: Vec<&str> = path.split('/').collect();
    let (machine, testcase, pp) = match parts.as_slice() {
        [m, _class, t, p] => (*m, *t, *p),
        [m, t, p] => (*m, *t, *p),
        [m, t] => (*m, *t, ""),
        _ => return None,
    };
    Some(JobKey { testcase: testcase.to_string(), machine: machine.to_string(), params: path_params(pp) })
}

/// A row name of the 2020 fix confirmations: `testcase/testparams/testbox`.
fn testcase_path(name: &str) -> Option<JobKey> {
    let [t, p, m] = name.split('/').collect::<Vec<_>>()[..] else { return None };
    let mut params = Params::new();
    if !p.is_empty() {
        params.insert("test".into(), p.to_string());
    }
    Some(JobKey { testcase: t.to_string(), machine: m.to_string(), params })
}

/// A row name of a grouped table: a testbox path (2014) or a 2011 writeback case
/// `MMAP-RANDWRITE-4K/btrfs-fio_fat_mmap_randwrite_4k-4k-8p-4096M-20:10-X`.
fn member_path(name: &str) -> Option<JobKey> {
    let parts: Vec<&str> = name.split('/').collect();
    if parts.len() == 2 {
        let (fs, rest) = parts[1].split_once('-').unwrap_or((parts[1], ""));
        if FILESYSTEMS.contains(&fs) {
            let mut params = Params::new();
            params.insert("test".into(), parts[0].to_string());
            params.insert("fs".into(), fs.to_string());
            if !rest.is_empty() {
                params.insert("case".into(), rest.to_string());
            }
            return Some(JobKey { testcase: "writeback".into(), machine: String::new(), params });
        }
    }
    testbox_path(name)
}

const FILESYSTEMS: [&str; 12] =
    ["btrfs", "ext2", "ext3", "ext4", "xfs", "f2fs", "tmpfs", "ramfs", "nfsv4", "cifs", "jfs", "reiserfs"];

/// Split a pre-2018 path_params string (values only, job order) into named parameters where the
/// value tells what it is; the rest stays together as `test`.
pub fn path_params(pp: &str) -> Params {
    let mut params = Params::new();
    if pp.is_empty() {
        return params;
    }
    let toks: Vec<&str> = pp.split('-').collect();
    let mut rest = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let t = toks[k];
        let is_disk = t.len() > 3
            && t.chars().next().is_some_and(|c| c.is_ascii_digit())
            && (t.contains("HDD")
                || t.contains("SSD")
                || t.contains("BRD")
                || t.contains("pmem")
                || t.contains("NVMe"));
        if is_disk {
            params.insert("disk".into(), t.to_string());
        } else if t == "JBOD" || t.starts_with("RAID") {
            params.insert("md".into(), t.to_string());
        } else if ["cfq", "deadline", "noop", "bfq", "mq-deadline", "kyber"].contains(&t) {
            params.insert("iosched".into(), t.to_string());
        } else if t == "nfsv4" || t == "cifs" {
            params.insert("fs2".into(), t.to_string());
        } else if FILESYSTEMS.contains(&t) {
            params.insert("fs".into(), t.to_string());
        } else if ["performance", "powersave", "ondemand"].contains(&t) {
            params.insert("cpufreq_governor".into(), t.to_string());
        } else if t.len() > 1 && t.ends_with('s') && t[..t.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
            params.insert("runtime".into(), t.to_string());
        } else if is_count_with_suffix(t, "%") || is_count_with_suffix(t, "dd") {
            // `200%` (of CPUs) and `10dd` (dd processes) are both thread counts
            params.insert("nr_threads".into(), t.to_string());
        } else {
            rest.push(t);
        }
        k += 1;
    }
    if !rest.is_empty() {
        params.insert("test".into(), rest.join("-"));
    }
    params
}

/// `200%`, `10dd`: digits then `suffix`.
fn is_count_with_suffix(t: &str, suffix: &str) -> bool {
    t.strip_suffix(suffix).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The reproduce script: a `reproduce` attachment, a web page's `[-- Attachment: reproduce --]`
/// block, the 2014 inline commands after the signature, or the "To reproduce:" block.
fn find_script(msg: &Message, text: &str) -> Option<String> {
    for (name, body) in &msg.attachments {
        if name == "reproduce" || name == "reproduce.sh" || name.starts_with("reproduce") {
            return Some(body.clone());
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    // web archive rendering of an attachment
    if let Some(p) = lines.iter().position(|l| l.starts_with("[-- Attachment #") && l.contains(": reproduce --]")) {
        let mut out = Vec::new();
        for l in &lines[p + 1..] {
            if l.starts_with("[-- Type:") {
                continue;
            }
            if l.starts_with("[-- ") || l.starts_with("WARNING: multiple messages") {
                break;
            }
            out.push(*l);
        }
        return non_empty_script(&out);
    }
    // "To reproduce:" block (2016-2022): up to the axes header
    if let Some(p) = lines.iter().position(|l| l.trim() == "To reproduce:") {
        let mut out = Vec::new();
        for l in &lines[p + 1..] {
            let t = l.trim();
            if t.starts_with("=====") || t.starts_with("-----") && out.len() > 2 {
                break;
            }
            out.push(t);
        }
        while out.last() == Some(&"") {
            out.pop();
        }
        while out.first() == Some(&"") {
            out.remove(0);
        }
        return non_empty_script(&out);
    }
    // 2014: shell commands after "Thanks,\n<name>" at the end
    if let Some(p) = lines.iter().rposition(|l| l.trim() == "Thanks,") {
        let tail: Vec<&str> = lines.iter().skip(p + 2).copied().collect();
        let shellish = tail.iter().filter(|l| {
            let t = l.trim_start();
            [
                "echo ", "mkfs", "mount ", "dd ", "./", "killall", "sleep ", "mdadm ", "for ", "cd ", "modprobe",
                "swapon", "wait",
            ]
            .iter()
            .any(|p| t.starts_with(p))
        });
        if shellish.count() >= 2 {
            return non_empty_script(&tail);
        }
    }
    None
}

fn non_empty_script(lines: &[&str]) -> Option<String> {
    let mut s = lines.join("\n");
    let trimmed = s.trim_end().len();
    s.truncate(trimmed);
    if s.trim().is_empty() {
        None
    } else {
        s.push('\n');
        Some(s)
    }
}

/// Notes from the thread: a reply paragraph written right under a quoted table row
/// (e.g. a maintainer's "This is not a regression. ..."), each kept once.
fn find_notes(text: &str) -> Vec<String> {
    let r = re();
    let lines: Vec<(usize, &str)> = text
        .lines()
        .map(|l| match r.quote.find(l) {
            Some(m) => (m.as_str().matches('>').count(), l[m.end()..].trim()),
            None => (0, l.trim()),
        })
        .collect();
    let mut notes: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (depth, t) = lines[i];
        let is_row = depth > 0 && looks_like_row(&table::tokenize(t));
        if !is_row {
            i += 1;
            continue;
        }
        // skip to the first non-blank line after the quoted table
        let mut k = i + 1;
        while k < lines.len()
            && lines[k].0 >= depth
            && !lines[k].1.is_empty()
            && looks_like_row(&table::tokenize(lines[k].1))
        {
            k += 1;
        }
        while k < lines.len() && lines[k].1.is_empty() {
            k += 1;
        }
        if k < lines.len() && lines[k].0 < depth {
            let d = lines[k].0;
            let mut para = Vec::new();
            while k < lines.len() && lines[k].0 == d && !lines[k].1.is_empty() {
                let t = lines[k].1;
                // web copies have no blank lines: a sign-off or attribution also ends the paragraph
                let stop = ["Thanks", "Cheers", "--", "Regards", "Best regards"].iter().any(|p| t.starts_with(p))
                    || t.starts_with("On ") && t.ends_with("wrote:");
                if stop {
                    break;
                }
                para.push(t);
                k += 1;
            }
            let note = para.join(" ");
            let signature = ["Thanks", "Cheers", "--", "Regards", "Best"].iter().any(|p| note.starts_with(p));
            if !note.is_empty() && !signature && !notes.contains(&note) && !looks_like_row(&table::tokenize(&note)) {
                notes.push(note);
            }
        }
        i = k.max(i + 1);
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_params_split_by_value() {
        let p = path_params("11HDD-JBOD-cfq-ext4-10dd");
        assert_eq!(p.get("disk").map(String::as_str), Some("11HDD"));
        assert_eq!(p.get("md").map(String::as_str), Some("JBOD"));
        assert_eq!(p.get("iosched").map(String::as_str), Some("cfq"));
        assert_eq!(p.get("fs").map(String::as_str), Some("ext4"));
        assert_eq!(p.get("nr_threads").map(String::as_str), Some("10dd"));
        let p = path_params("120s-200%-TCP_MAERTS");
        assert_eq!(p.get("runtime").map(String::as_str), Some("120s"));
        assert_eq!(p.get("test").map(String::as_str), Some("TCP_MAERTS"));
        let j = testbox_path("lkp-sb02/blogbench/1HDD-btrfs").unwrap();
        assert_eq!((j.machine.as_str(), j.testcase.as_str()), ("lkp-sb02", "blogbench"));
        assert_eq!(j.params.get("fs").map(String::as_str), Some("btrfs"));
    }
}
