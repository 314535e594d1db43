//! `lkpx synth --mails N`: kernel test robot mails at realistic scale, derived from the real
//! reports in `fixtures/`. Each mail takes one real report as its template (its testcases, jobs,
//! sections and rows, read with the importer's own parser) and writes it again in the 2023+ robot
//! format with new commit ids, jittered values, stddevs and job parameters, changes recomputed from
//! the printed values, and part of the long-tail metric names (perf-profile call chains and
//! symbols, perf-sched paths, slab caches, interrupts, softirqs, sched_debug and vmstat fields)
//! replaced by names recombined from real fragments. Replacement names are drawn from a Zipf law
//! per name kind, so the number of distinct names grows with the number of mails sublinearly, as a
//! vocabulary does (real mails: 42 reports, 5.5k names; 179 reports, 19k; see `ZIPF_S`).
//!
//! Every mail says it is synthetic (an `X-LKPX-Synthetic: yes` header, its first body line, the
//! commit subjects and a `.invalid` Message-ID domain). The output depends only on the templates
//! and the seed: mail `k` is drawn from its own generator, so mails can be written in parallel.

use crate::input;
use model::rng::XorShift as Rng;
use model::{stats, ChangeKind, Params};
use reader::doc::{Document, HeadlineInfo, RowKind};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Zipf exponent of the replacement names of one kind: rank `r` is drawn with weight about
/// `(r + K0)^-S`. With S = 1.05 most recombined names are new, while the real names and the kinds
/// with small name spaces (per-CPU interrupts, NUMA nodes, vmstat fields) saturate. Measured
/// (seed 1): 179 mails have 22k distinct names (179 real reports: 19k), 10^3 have 76k and 10^4
/// 534k, close to the real growth from 42 to 179 reports (N^0.85) carried on: 82k and 580k.
const ZIPF_S: f64 = 1.05;
/// Offset of the Zipf ranks: flattens the head so that no single synthetic name is in every mail.
const ZIPF_K0: f64 = 20.0;
/// First mail date (2023-01-02 00:00 UTC) and the mean gap between mails (3 hours).
const START: i64 = 1_672_617_600;
const STEP: i64 = 3 * 3600;
/// Parameters that vary across the testcases of the real mails; the others vary within a testcase.
const SHARED_KEYS: [&str; 7] =
    ["compiler", "cpufreq_governor", "kconfig", "nr_task", "nr_threads", "rootfs", "runtime"];
/// Parameters every 2023+ axes header has; added from the real values when a template lacks them.
const BUILD_KEYS: [&str; 3] = ["compiler", "kconfig", "rootfs"];

/// A set of FNV hashes of names: hashing them again (SipHash) would only cost time.
type HashIds = HashSet<u64, std::hash::BuildHasherDefault<IdHasher>>;

#[derive(Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0, u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = mix(n, 0);
    }
}

/// The real reports the mails are made from, and the fragments their names are recombined from.
#[derive(Debug)]
pub struct Corpus {
    templates: Vec<Template>,
    pools: Pools,
    vocab: Vocab,
}

/// One real report, reduced to what a 2023+ mail needs.
#[derive(Debug)]
struct Template {
    /// Message-ID (or file name) of the real mail, named in the synthetic one.
    origin: String,
    tree_tag: Option<String>,
    area: String,
    tree: (String, Option<String>),
    /// Real commit subjects, head first.
    subjects: Vec<String>,
    headlines: Vec<HeadlineInfo>,
    tables: Vec<Table>,
}

/// The rows of one job in one section of a real report.
#[derive(Debug)]
struct Table {
    section: usize,
    testcase: String,
    machine: String,
    desc: Option<String>,
    params: Params,
    cols: usize,
    rows: Vec<TRow>,
}

#[derive(Debug)]
struct TRow {
    fail: bool,
    metric: String,
    values: Vec<f64>,
    stddev: Vec<Option<f64>>,
    fails: Vec<u32>,
    runs: Vec<u32>,
}

/// Real values to vary jobs with.
#[derive(Debug, Default)]
struct Pools {
    /// tbox_group and its machine description.
    machines: Vec<(String, String)>,
    /// Values of the `SHARED_KEYS` over all reports.
    shared: BTreeMap<String, Vec<String>>,
    /// Values of the other keys per testcase.
    per_testcase: BTreeMap<(String, String), Vec<String>>,
}

/// Fragments of the real metric names.
#[derive(Debug, Default)]
struct Vocab {
    syms: Vec<String>,
    /// Per symbol: the symbols seen calling it in real call chains.
    callers: Vec<Vec<u32>>,
    sym_heads: Vec<String>,
    sym_tails: Vec<String>,
    /// `interrupts.CPU` / `softirqs.CPU` → the real interrupt types after the CPU number.
    per_cpu: BTreeMap<String, Vec<String>>,
    slabs: Vec<String>,
    slab_heads: Vec<String>,
    slab_tails: Vec<String>,
    /// `proc-vmstat.`, `sched_debug.cpu.` ... → the real remainders of the names.
    fields: BTreeMap<String, Vec<String>>,
}

/// One synthetic mail: its file name, its text, and what each table row says.
#[derive(Debug, Clone)]
pub struct SynthMail {
    pub name: String,
    pub text: String,
    pub tables: Vec<SynthTable>,
}

/// A table of a synthetic mail: the job and the rows as written.
#[derive(Debug, Clone)]
pub struct SynthTable {
    pub testcase: String,
    pub machine: String,
    pub desc: String,
    pub params: Params,
    /// Full commit ids of the columns, base first.
    pub commits: Vec<String>,
    pub rows: Vec<WrittenRow>,
    /// Opens a new `*****` section (another machine or another section of the template).
    pub new_section: bool,
}

/// A row as written: its text and the numbers its cells print (read back from the text).
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenRow {
    pub kind: RowKind,
    pub metric: String,
    pub values: Vec<f64>,
    pub stddev_pct: Vec<Option<f64>>,
    /// Per later column: percent or absolute change, or %reproduction for failure rows.
    pub changes: Vec<f64>,
    pub change_kind: ChangeKind,
    pub fails: Vec<u32>,
    pub runs: Vec<u32>,
    pub line: String,
}

/// What `write_mails` did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub templates: usize,
    pub mails: usize,
    pub rows: usize,
    pub bytes: u64,
    pub distinct_metrics: usize,
    pub removed: usize,
}

impl Corpus {
    /// Read the real reports under `paths` (files or directories, as `lkpx import` takes them).
    pub fn load(paths: &[PathBuf]) -> Result<Corpus, String> {
        let inputs = input::collect(paths);
        if let Some(e) = inputs.errors.first() {
            return Err(e.clone());
        }
        let docs = inputs.files.iter().flat_map(|f| input::read_file(f).docs).collect();
        let corpus = Corpus::from_documents(docs);
        if corpus.templates.is_empty() {
            let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            return Err(format!("no report with a usable table under {}", shown.join(", ")));
        }
        Ok(corpus)
    }

    /// Templates from parsed reports: one per mail (copies of one mail, by Message-ID, once).
    pub fn from_documents(docs: Vec<Document>) -> Corpus {
        let mut seen = HashSet::new();
        let mut templates = Vec::new();
        for d in docs {
            let key = d.message_id.clone().or_else(|| d.subject.clone()).unwrap_or_else(|| d.source.clone());
            if !seen.insert(key) {
                continue;
            }
            if let Some(t) = template(d) {
                templates.push(t);
            }
        }
        let pools = Pools::new(&templates);
        let names: BTreeSet<&str> =
            templates.iter().flat_map(|t| &t.tables).flat_map(|t| &t.rows).map(|r| r.metric.as_str()).collect();
        let vocab = Vocab::new(&names);
        Corpus { templates, pools, vocab }
    }

    /// Number of real reports used as templates.
    pub fn templates(&self) -> usize {
        self.templates.len()
    }

    /// Mail `k` (0-based) of the set of `n` made with `seed`.
    pub fn mail(&self, seed: u64, k: usize, n: usize) -> SynthMail {
        let mut rng = Rng::new(mix(seed, k as u64));
        let t = &self.templates[rng.below(self.templates.len())];
        let cols = t.tables.iter().map(|x| x.cols).max().unwrap_or(2);
        let ids: Vec<String> = (0..cols).map(|_| commit_id(&mut rng)).collect();
        let when = START + k as i64 * STEP + rng.below(STEP as usize - 60) as i64;
        let tables = self.tables(t, &ids, seed, &mut rng);
        let text = render(t, &tables, &ids, when, k, &mut rng);
        SynthMail { name: file_name(k, n), text, tables }
    }

    /// The tables of one mail: jobs varied per template section, rows jittered and renamed.
    fn tables(&self, t: &Template, ids: &[String], seed: u64, rng: &mut Rng) -> Vec<SynthTable> {
        let mut machines: HashMap<usize, (String, String)> = HashMap::new();
        // metric names per job: two tables of one job must not repeat a row
        let mut used: HashMap<String, HashIds> = HashMap::new();
        let mut out: Vec<SynthTable> = Vec::new();
        for (j, tt) in t.tables.iter().enumerate() {
            let (machine, desc) = machines.entry(tt.section).or_insert_with(|| self.pools.machine(tt, rng)).clone();
            let params = self.pools.params(tt, rng);
            let new_section =
                j > 0 && (t.tables[j - 1].section != tt.section || out.last().is_some_and(|p| p.machine != machine));
            let job = format!("{}\n{}\n{:?}", tt.testcase, machine, params);
            let names = used.entry(job).or_default();
            let machine_scale = (0.15 * rng.normal()).exp();
            let mut rows = Vec::with_capacity(tt.rows.len());
            for tr in &tt.rows {
                let keep = t.headlines.iter().any(|h| h.metric == tr.metric);
                let Some(metric) = self.row_name(&tr.metric, keep, names, seed, rng) else { continue };
                rows.push(if tr.fail { fail_row(metric, tr, rng) } else { perf_row(metric, tr, machine_scale, rng) });
            }
            out.push(SynthTable {
                testcase: tt.testcase.clone(),
                machine,
                desc,
                params,
                commits: ids[..tt.cols].to_vec(),
                rows,
                new_section,
            });
        }
        out
    }

    /// The name of a row: the real one, or (for long-tail kinds, by chance) a recombined one.
    /// `None` when the job already has a row of that name.
    fn row_name(&self, real: &str, keep: bool, used: &mut HashIds, seed: u64, rng: &mut Rng) -> Option<String> {
        if !keep {
            if let Some(kind) = kind_of(real) {
                if rng.unit() < kind.share() {
                    for _ in 0..3 {
                        let name = self.vocab.name(&kind, real, zipf_rank(rng), seed);
                        if is_single_token(&name) && used.insert(fnv(&name)) {
                            return Some(name);
                        }
                    }
                }
            }
        }
        used.insert(fnv(real)).then(|| real.to_string())
    }
}

/// A real report as a template: its tables of one job each (2014 TOTAL rows and rows of unknown
/// testcase or machine left out); `None` when nothing usable remains.
fn template(d: Document) -> Option<Template> {
    let mut tables: Vec<Table> = Vec::new();
    for s in &d.sections {
        let mut by_job: Vec<Table> = Vec::new();
        for r in &s.rows {
            if r.aggregate || r.job.testcase.is_empty() || r.job.machine.is_empty() || s.commits.len() < 2 {
                continue;
            }
            let Some(row) = template_row(r, s.commits.len()) else { continue };
            let at = by_job
                .iter()
                .position(|t| t.testcase == r.job.testcase && t.machine == r.job.machine && t.params == r.job.params);
            let at = at.unwrap_or_else(|| {
                by_job.push(Table {
                    section: s.index,
                    testcase: r.job.testcase.clone(),
                    machine: r.job.machine.clone(),
                    desc: s.machine_desc.clone(),
                    params: clean_params(&r.job.params),
                    cols: s.commits.len(),
                    rows: vec![],
                });
                by_job.len() - 1
            });
            by_job[at].rows.push(row);
        }
        tables.extend(by_job);
    }
    if tables.is_empty() {
        return None;
    }
    let subject = d.subject.clone().unwrap_or_default();
    let (tree_tag, area) = subject_tags(&subject);
    let subjects: Vec<String> = d.commits.iter().filter_map(|c| c.subject.clone()).collect();
    let area = area
        .or_else(|| subjects.first().and_then(|s| s.split_once(':')).map(|(a, _)| a.trim().to_string()))
        .filter(|a| !a.is_empty() && a.len() <= 24 && !a.contains(' '))
        .unwrap_or_else(|| "mm".into());
    let tree = d.commits.iter().find_map(|c| c.tree.clone().map(|t| (t, c.branch.clone()))).unwrap_or_else(|| {
        ("https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git".into(), Some("master".into()))
    });
    let origin = d.message_id.clone().unwrap_or_else(|| d.source.rsplit('/').next().unwrap_or("").to_string());
    Some(Template { origin, tree_tag, area, tree, subjects, headlines: d.headlines, tables })
}

fn template_row(r: &reader::doc::Row, cols: usize) -> Option<TRow> {
    let mut t = TRow {
        fail: r.kind == RowKind::Fail,
        metric: r.metric.clone(),
        values: vec![],
        stddev: vec![],
        fails: vec![],
        runs: vec![],
    };
    if t.metric.is_empty() || !is_single_token(&t.metric) {
        return None;
    }
    if t.fail {
        t.runs = r.runs.iter().map(|x| x.filter(|&n| n > 0)).collect::<Option<Vec<u32>>>()?;
        t.fails = r.fails.iter().zip(&t.runs).map(|(f, &n)| f.unwrap_or(0).min(n)).collect();
        (t.runs.len() == cols).then_some(t)
    } else {
        t.values = r.values.iter().map(|v| v.filter(|x| x.is_finite())).collect::<Option<Vec<f64>>>()?;
        t.stddev = r.stddev_pct.iter().map(|s| s.filter(|x| x.is_finite())).collect();
        t.stddev.resize(cols, None);
        (t.values.len() == cols).then_some(t)
    }
}

/// Parameters as an axes header can print them: no `/` in values, keys without blanks.
fn clean_params(p: &Params) -> Params {
    p.iter()
        .filter(|(k, v)| {
            !v.trim().is_empty()
                && !k.is_empty()
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
                && !matches!(k.as_str(), "testcase" | "tbox_group")
        })
        .map(|(k, v)| (k.clone(), v.trim().replace('/', "_")))
        .collect()
}

/// `[linus:master] [btrfs]  4ae2edf12d: ...` → (`linus:master`, `btrfs`).
fn subject_tags(subject: &str) -> (Option<String>, Option<String>) {
    let mut rest = subject.trim();
    rest = rest.strip_prefix("Re:").unwrap_or(rest).trim_start();
    let (mut tree, mut area) = (None, None);
    while let Some(inner) = rest.strip_prefix('[') {
        let Some((tag, after)) = inner.split_once(']') else { break };
        let tag = tag.trim();
        if tag.contains(':') {
            tree = Some(tag.to_string());
        } else if !matches!(tag.to_ascii_lowercase().as_str(), "lkp" | "patch" | "f2fs-dev")
            && !tag.starts_with("PATCH")
        {
            area = Some(tag.to_string());
        }
        rest = after.trim_start();
    }
    (tree, area)
}

impl Pools {
    fn new(templates: &[Template]) -> Pools {
        let mut machines = BTreeMap::new();
        let mut shared: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut per_testcase: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for t in templates {
            for tt in &t.tables {
                if let Some(d) = &tt.desc {
                    machines.entry(tt.machine.clone()).or_insert_with(|| d.clone());
                }
                for (k, v) in &tt.params {
                    if SHARED_KEYS.contains(&k.as_str()) {
                        shared.entry(k.clone()).or_default().insert(v.clone());
                    } else {
                        per_testcase.entry((tt.testcase.clone(), k.clone())).or_default().insert(v.clone());
                    }
                }
            }
        }
        Pools { machines: machines.into_iter().collect(), shared: to_vecs(shared), per_testcase: to_vecs(per_testcase) }
    }

    /// The machine of a section: the real one (when its description is known), or now and then
    /// another real machine with its description.
    fn machine(&self, t: &Table, rng: &mut Rng) -> (String, String) {
        match &t.desc {
            Some(d) if rng.unit() >= 0.3 || self.machines.is_empty() => (t.machine.clone(), d.clone()),
            _ if !self.machines.is_empty() => self.machines[rng.below(self.machines.len())].clone(),
            _ => (t.machine.clone(), "96 threads 2 sockets (synthetic machine) with 256G memory".into()),
        }
    }

    /// The job parameters: each value now and then replaced by another real value of its key.
    fn params(&self, t: &Table, rng: &mut Rng) -> Params {
        let mut p = t.params.clone();
        for k in BUILD_KEYS {
            if let (false, Some(vals)) = (p.contains_key(k), self.shared.get(k)) {
                p.insert(k.to_string(), vals[rng.below(vals.len())].clone());
            }
        }
        for (k, v) in p.iter_mut() {
            // `test` names what runs (and often the metrics): never varied
            if k == "test" {
                continue;
            }
            let vals = match self.shared.get(k) {
                Some(vals) => vals,
                None => match self.per_testcase.get(&(t.testcase.clone(), k.clone())) {
                    Some(vals) => vals,
                    None => continue,
                },
            };
            if vals.len() > 1 && rng.unit() < 0.25 {
                *v = vals[rng.below(vals.len())].clone();
            }
        }
        p
    }
}

/// How a long-tail name is recombined.
#[derive(Debug)]
enum Kind<'a> {
    /// `<prefix><sym>.<sym>...`: perf-profile call traces, perf-sched paths.
    Chain(&'a str, usize),
    /// `<prefix><sym>`: perf-profile children and self.
    Sym(&'a str),
    /// `interrupts.CPU<n>.<type>`, `softirqs.CPU<n>.<type>`.
    PerCpu(&'a str),
    /// `slabinfo.<cache>.<field>`.
    Slab(&'a str),
    /// `<prefix><field>`: proc-vmstat, sched_debug.
    Field(&'a str),
    /// The real name with its numbers redrawn: device interrupts, NUMA nodes.
    Renumber,
}

impl Kind<'_> {
    /// The share of the rows of this kind that get a recombined name.
    fn share(&self) -> f64 {
        match self {
            Kind::Chain(..) => 0.8,
            Kind::Sym(_) => 0.65,
            Kind::PerCpu(_) | Kind::Slab(_) | Kind::Renumber => 0.45,
            Kind::Field(_) => 0.3,
        }
    }
}

const CHAIN_PREFIXES: [&str; 2] = ["perf-profile.calltrace.cycles-pp.", "perf-profile.cpu-cycles."];
const SYM_PREFIXES: [&str; 2] = ["perf-profile.children.cycles-pp.", "perf-profile.self.cycles-pp."];
const PER_CPU_PREFIXES: [&str; 2] = ["interrupts.CPU", "softirqs.CPU"];

fn kind_of(metric: &str) -> Option<Kind<'_>> {
    for p in CHAIN_PREFIXES {
        if let Some(rest) = metric.strip_prefix(p) {
            return Some(Kind::Chain(p, rest.split('.').filter(|s| is_sym(s)).count().max(1)));
        }
    }
    for p in SYM_PREFIXES {
        if let Some(rest) = metric.strip_prefix(p) {
            return is_sym(rest).then_some(Kind::Sym(p));
        }
    }
    if metric.starts_with("perf-sched.") {
        let at = metric.find(".ms.")? + 4;
        let n = metric[at..].split('.').filter(|s| is_sym(s)).count();
        return (n > 0).then_some(Kind::Chain(&metric[..at], n));
    }
    for p in PER_CPU_PREFIXES {
        if let Some(rest) = metric.strip_prefix(p) {
            let (cpu, _) = rest.split_once('.')?;
            return cpu.bytes().all(|b| b.is_ascii_digit()).then_some(Kind::PerCpu(p));
        }
    }
    if metric.starts_with("interrupts.") && metric.as_bytes().get(11).is_some_and(u8::is_ascii_digit)
        || metric.starts_with("numa-") && metric.contains(".node")
    {
        return Some(Kind::Renumber);
    }
    if let Some(rest) = metric.strip_prefix("slabinfo.") {
        let (_, field) = rest.rsplit_once('.')?;
        return Some(Kind::Slab(&metric[metric.len() - field.len()..]));
    }
    field_prefix(metric).map(Kind::Field)
}

/// `proc-vmstat.` and `sched_debug.<group>.`: the part of a name that a recombined field keeps.
fn field_prefix(metric: &str) -> Option<&str> {
    if metric.starts_with("proc-vmstat.") {
        return Some("proc-vmstat.");
    }
    let rest = metric.strip_prefix("sched_debug.")?;
    let (group, tail) = rest.split_once('.')?;
    (!tail.is_empty()).then(|| &metric[..12 + group.len() + 1])
}

/// A kernel symbol as it appears between the dots of a perf name (not `isra`, `0`, ...).
fn is_sym(s: &str) -> bool {
    s.len() >= 3
        && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !matches!(s, "isra" | "constprop" | "part" | "cold" | "llvm")
}

/// The name reads back as one table token (no blanks, nothing the tokenizer takes for `±`).
fn is_single_token(name: &str) -> bool {
    // fast path: printable ASCII with no character that can start a `±` marker
    if name.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b'~' | b'?' | b'+')) {
        return true;
    }
    matches!(reader::table::tokenize(name).as_slice(), [reader::table::Tok::Word(w)] if *w == name)
}

impl Vocab {
    fn new(names: &BTreeSet<&str>) -> Vocab {
        let mut syms: BTreeSet<&str> = BTreeSet::new();
        let mut edges: BTreeSet<(&str, &str)> = BTreeSet::new();
        let mut per_cpu: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut slabs: BTreeSet<&str> = BTreeSet::new();
        let mut fields: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for &m in names {
            match kind_of(m) {
                Some(Kind::Chain(p, _)) => {
                    let parts: Vec<&str> = m[p.len()..].split('.').filter(|s| is_sym(s)).collect();
                    syms.extend(&parts);
                    edges.extend(parts.windows(2).map(|w| (w[0], w[1])));
                }
                Some(Kind::Sym(p)) => {
                    syms.insert(&m[p.len()..]);
                }
                Some(Kind::PerCpu(p)) => {
                    if let Some((_, ty)) = m[p.len()..].split_once('.') {
                        per_cpu.entry(p.to_string()).or_default().insert(ty.to_string());
                    }
                }
                Some(Kind::Slab(field)) => {
                    slabs.insert(&m[9..m.len() - field.len() - 1]);
                }
                Some(Kind::Field(p)) => {
                    fields.entry(p.to_string()).or_default().insert(m[p.len()..].to_string());
                }
                Some(Kind::Renumber) | None => {}
            }
        }
        let syms: Vec<String> = syms.into_iter().map(str::to_string).collect();
        let index: HashMap<&str, u32> = syms.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();
        let mut callers = vec![Vec::new(); syms.len()];
        for (callee, caller) in edges {
            callers[index[callee] as usize].push(index[caller]);
        }
        let (sym_heads, sym_tails) = fragments(syms.iter().map(String::as_str));
        let (slab_heads, slab_tails) = fragments(slabs.iter().copied());
        Vocab {
            syms,
            callers,
            sym_heads,
            sym_tails,
            per_cpu: to_vecs(per_cpu),
            slabs: slabs.into_iter().map(str::to_string).collect(),
            slab_heads,
            slab_tails,
            fields: to_vecs(fields),
        }
    }

    /// The recombined name of `rank` in `kind`: the same (kind, rank, seed) always gives the same
    /// name, so frequent ranks recur across mails as frequent names do.
    fn name(&self, kind: &Kind, real: &str, rank: u64, seed: u64) -> String {
        let key = match kind {
            Kind::Chain(p, n) => mix(fnv(p), *n as u64),
            Kind::Sym(p) | Kind::PerCpu(p) | Kind::Field(p) => fnv(p),
            Kind::Slab(f) => mix(fnv(f), 1),
            Kind::Renumber => fnv(real),
        };
        let mut rng = Rng::new(mix(mix(seed, key), rank));
        match kind {
            Kind::Chain(p, n) => {
                let mut s = p.to_string();
                self.chain(*n, &mut s, &mut rng);
                s
            }
            Kind::Sym(p) => {
                let mut s = p.to_string();
                self.sym(0.3, &mut s, &mut rng);
                s
            }
            Kind::PerCpu(p) => {
                let types = self.per_cpu.get(*p).map_or(&[][..], Vec::as_slice);
                match pick(types, &mut rng) {
                    Some(ty) => format!("{p}{}.{ty}", rng.below(512)),
                    None => real.to_string(),
                }
            }
            Kind::Slab(f) => format!("slabinfo.{}.{f}", self.slab(&mut rng)),
            Kind::Field(p) => {
                let pool = self.fields.get(*p).map_or(&[][..], Vec::as_slice);
                match (pick(pool, &mut rng), pick(pool, &mut rng)) {
                    (Some(a), Some(b)) => format!("{p}{}", splice(a, b)),
                    _ => real.to_string(),
                }
            }
            Kind::Renumber => renumber(real, &mut rng),
        }
    }

    /// Append a symbol: a real one (with probability `real`), or the first word of one joined to
    /// the rest of another (`xfs` + `file_read_iter`). Returns the index of a real symbol.
    fn sym(&self, real: f64, out: &mut String, rng: &mut Rng) -> Option<usize> {
        if self.syms.is_empty() {
            let _ = write!(out, "synthetic_fn_{}", rng.below(100_000));
            return None;
        }
        if rng.unit() < real || self.sym_heads.is_empty() || self.sym_tails.is_empty() {
            let i = rng.below(self.syms.len());
            out.push_str(&self.syms[i]);
            return Some(i);
        }
        out.push_str(&self.sym_heads[rng.below(self.sym_heads.len())]);
        out.push('_');
        out.push_str(&self.sym_tails[rng.below(self.sym_tails.len())]);
        None
    }

    /// Append a call chain of `n` symbols, innermost first: mostly a real symbol and real caller
    /// edges, now and then another symbol.
    fn chain(&self, n: usize, out: &mut String, rng: &mut Rng) {
        let mut at = self.sym(0.6, out, rng);
        for _ in 1..n {
            out.push('.');
            let next = at.map(|i| &self.callers[i]).filter(|c| !c.is_empty() && rng.unit() < 0.75);
            at = match next {
                Some(c) => {
                    let i = c[rng.below(c.len())] as usize;
                    out.push_str(&self.syms[i]);
                    Some(i)
                }
                None => self.sym(0.3, out, rng),
            };
        }
    }

    fn slab(&self, rng: &mut Rng) -> String {
        let u = rng.unit();
        if u < 0.2 || self.slab_heads.is_empty() || self.slab_tails.is_empty() {
            const KINDS: [&str; 4] = ["kmalloc-", "kmalloc-rcl-", "kmalloc-cg-", "dma-kmalloc-"];
            const SIZES: [&str; 13] = ["8", "16", "32", "64", "96", "128", "192", "256", "512", "1k", "2k", "4k", "8k"];
            return format!("{}{}", KINDS[rng.below(4)], SIZES[rng.below(SIZES.len())]);
        }
        if u < 0.45 && !self.slabs.is_empty() {
            return self.slabs[rng.below(self.slabs.len())].clone();
        }
        let head = &self.slab_heads[rng.below(self.slab_heads.len())];
        format!("{head}_{}", self.slab_tails[rng.below(self.slab_tails.len())])
    }
}

/// First words (leading underscores kept) and remainders of `_`-joined names.
fn fragments<'a>(names: impl Iterator<Item = &'a str>) -> (Vec<String>, Vec<String>) {
    let (mut heads, mut tails) = (BTreeSet::new(), BTreeSet::new());
    for n in names {
        let body = n.trim_start_matches('_');
        if let Some((h, t)) = body.split_once('_') {
            if !h.is_empty() && !t.is_empty() {
                heads.insert(format!("{}{h}", &n[..n.len() - body.len()]));
                tails.insert(t.to_string());
            }
        }
    }
    (heads.into_iter().collect(), tails.into_iter().collect())
}

/// `nr_dirty` + `pgsteal_kswapd` → `nr_kswapd`; names without `_` stay as they are.
fn splice(a: &str, b: &str) -> String {
    match (a.split_once('_'), b.split_once('_')) {
        (Some((h, _)), Some((_, t))) if !h.is_empty() => format!("{h}_{t}"),
        _ => a.to_string(),
    }
}

/// Every run of digits redrawn with as many digits.
fn renumber(name: &str, rng: &mut Rng) -> String {
    let b = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            let c = name[i..].chars().next().unwrap_or('_');
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        for d in 0..i - start {
            let lead = d == 0 && i - start > 1;
            out.push(char::from(b'0' + if lead { 1 + rng.below(9) } else { rng.below(10) } as u8));
        }
    }
    out
}

fn to_vecs<K: Ord>(m: BTreeMap<K, BTreeSet<String>>) -> BTreeMap<K, Vec<String>> {
    m.into_iter().map(|(k, v)| (k, v.into_iter().collect())).collect()
}

fn pick<'a>(xs: &'a [String], rng: &mut Rng) -> Option<&'a str> {
    (!xs.is_empty()).then(|| xs[rng.below(xs.len())].as_str())
}

/// A Zipf-distributed rank (0, 1, 2, ...; see `ZIPF_S`).
fn zipf_rank(rng: &mut Rng) -> u64 {
    let u = rng.unit().max(1e-300);
    (ZIPF_K0 * (u.powf(-1.0 / (ZIPF_S - 1.0)) - 1.0)).min(1e18) as u64
}

/// splitmix64 of `a` and `b`: independent generator states from (seed, index) pairs.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(0x6a09_e667_f3bc_c909);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn fnv(s: &str) -> u64 {
    let mut h = model::paths::Fnv::new();
    h.write(s.as_bytes());
    h.finish()
}

fn commit_id(rng: &mut Rng) -> String {
    format!("{:016x}{:016x}{:08x}", rng.next_u64(), rng.next_u64(), rng.next_u64() as u32)
}

/// Read a printed number back as the importer will (`+1.4`, `-12.3%`, `6.6e+103%`).
fn read_back(s: &str) -> f64 {
    s.trim_end_matches('%').parse().unwrap_or(f64::NAN)
}

/// A perf row with jittered values (one scale for the row, a little noise per column), stddevs
/// and the changes recomputed from the printed values.
fn perf_row(metric: String, t: &TRow, machine_scale: f64, rng: &mut Rng) -> WrittenRow {
    let kind = stats::change_kind(&metric);
    let absolute = kind == ChangeKind::Absolute;
    let bounded = absolute && t.values.iter().all(|v| (0.0..=100.0).contains(v));
    let scale = if absolute { (0.12 * rng.normal()).exp() } else { machine_scale * (0.08 * rng.normal()).exp() };
    let mut line = String::with_capacity(120);
    let (mut values, mut stddev_pct, mut changes) = (vec![], vec![], vec![]);
    for (i, v) in t.values.iter().enumerate() {
        let mut x = v * scale * (1.0 + 0.004 * rng.normal());
        if bounded {
            x = x.clamp(0.0, 100.0);
        }
        let text = stats::format_value(x);
        let value = read_back(&text);
        if i > 0 {
            let c = stats::format_change(stats::change(&metric, values[0], value), kind);
            let _ = write!(line, "{c:>11}{}", if absolute { "  " } else { " " });
            changes.push(read_back(&c));
        }
        let sd = stddev(t.stddev[i], value, rng);
        let _ = write!(line, "{text:>10}");
        match sd {
            Some(p) => {
                let _ = write!(line, " ±{p:>3}%");
            }
            None => line.push_str("      "),
        }
        values.push(value);
        stddev_pct.push(sd.map(|p| p as f64));
    }
    line.push_str("  ");
    line.push_str(&metric);
    WrittenRow {
        kind: RowKind::Perf,
        metric,
        values,
        stddev_pct,
        changes,
        change_kind: kind,
        fails: vec![],
        runs: vec![],
        line,
    }
}

/// The stddev percent printed for a value: the real one jittered (or, where the real mail printed
/// none, a small one), printed only when above 2%, as post-2017 mails do.
fn stddev(real: Option<f64>, value: f64, rng: &mut Rng) -> Option<i64> {
    let p = match real {
        Some(p) if p > 0.0 => p * (0.3 * rng.normal()).exp(),
        _ => 2.4 * rng.unit(),
    };
    if value == 0.0 {
        return None;
    }
    stats::stddev_pct_shown(100.0, p).map(|p| p as i64)
}

/// A failure row: failure counts moved a little, %reproduction recomputed.
fn fail_row(metric: String, t: &TRow, rng: &mut Rng) -> WrittenRow {
    let fails: Vec<u32> = t
        .fails
        .iter()
        .zip(&t.runs)
        .map(|(&f, &n)| match f {
            0 if rng.unit() < 0.9 => 0,
            _ => (f as i64 + rng.below(3) as i64 - 1).clamp(0, n as i64) as u32,
        })
        .collect();
    let share = |i: usize| fails[i] as f64 / t.runs[i] as f64;
    let mut line = String::with_capacity(100);
    let mut changes = vec![];
    for (i, (&f, &n)) in fails.iter().zip(&t.runs).enumerate() {
        if i > 0 {
            let c = format!("{:.0}%", 100.0 * (share(i) - share(0)) + 0.0);
            let _ = write!(line, "{c:>14}");
            changes.push(read_back(&c));
        }
        let f = if f == 0 { String::new() } else { f.to_string() };
        let _ = write!(line, "{f:>11}:{n:<4}");
    }
    line.push(' ');
    line.push_str(&metric);
    WrittenRow {
        kind: RowKind::Fail,
        metric,
        values: vec![],
        stddev_pct: vec![],
        changes,
        change_kind: ChangeKind::Reproduction,
        fails,
        runs: t.runs.clone(),
        line,
    }
}

/// The word for a change of `metric`: by lkp's direction lists, else by its sign.
fn word(metric: &str, change: f64) -> &'static str {
    let w = reader::direction::Directions::lkp().weight(metric);
    let signed = if w == 0 { change } else { f64::from(w) * change };
    if signed < 0.0 {
        "regression"
    } else {
        "improvement"
    }
}

/// A headline of a table: metric, change as the sentence prints it (`-12.3`), word.
struct Headline {
    metric: String,
    change: String,
    word: &'static str,
}

fn headline_of(row: &WrittenRow) -> Headline {
    let text = stats::format_change(row.changes[0], row.change_kind);
    let change = text.trim_end_matches('%').trim_start_matches('+').to_string();
    Headline { metric: row.metric.clone(), change, word: word(&row.metric, row.changes[0]) }
}

/// The headline of the first table: the real report's headline metric where the table has it,
/// else a metric whose direction lkp knows, else the first perf row.
fn main_headline(t: &Template, table: &SynthTable) -> Option<Headline> {
    let perf: Vec<&WrittenRow> = table.rows.iter().filter(|r| r.kind == RowKind::Perf).collect();
    let named = t.headlines.iter().find_map(|h| perf.iter().find(|r| r.metric == h.metric));
    let known = || {
        perf.iter().find(|r| {
            r.change_kind == ChangeKind::Percent
                && r.values[0] != 0.0
                && reader::direction::Directions::lkp().weight(&r.metric) != 0
        })
    };
    named.or_else(known).or(perf.first()).map(|r| headline_of(r))
}

/// "In addition to that" entries: the real report's other headlines, where a later table of
/// that testcase has the metric.
fn extra_headlines(t: &Template, tables: &[SynthTable], main: Option<&Headline>) -> Vec<(usize, Headline)> {
    let mut out: Vec<(usize, Headline)> = Vec::new();
    for h in &t.headlines {
        if main.is_some_and(|m| m.metric == h.metric) {
            continue;
        }
        let found = tables.iter().enumerate().skip(1).find_map(|(j, tb)| {
            let fits = h.testcase.is_empty() || h.testcase == tb.testcase;
            let row = tb.rows.iter().find(|r| r.kind == RowKind::Perf && r.metric == h.metric);
            row.filter(|_| fits && !out.iter().any(|(k, _)| *k == j)).map(|r| (j, headline_of(r)))
        });
        // the box's pattern reads plain decimals only
        if let Some(e) = found.filter(|(_, hl)| !hl.change.contains('e')) {
            out.push(e);
        }
    }
    out
}

/// Test parameters as the mail lists them (build settings are on their own lines).
fn test_params(p: &Params) -> impl Iterator<Item = (&String, &String)> {
    p.iter().filter(|(k, _)| !BUILD_KEYS.contains(&k.as_str()))
}

fn render(t: &Template, tables: &[SynthTable], ids: &[String], when: i64, k: usize, rng: &mut Rng) -> String {
    let stamp = Stamp::at(when);
    let msgid = format!("{}.{:08x}.{k}-lkp@synthetic.invalid", stamp.compact(), rng.next_u64() as u32);
    let main = main_headline(t, &tables[0]);
    let extra = extra_headlines(t, tables, main.as_ref());
    let mut s = String::with_capacity(tables.iter().map(|x| x.rows.len() * 110).sum::<usize>() + 4096);
    headers(&mut s, t, tables, ids, &stamp, &msgid, main.as_ref());
    intro(&mut s, t, &tables[0], ids, main.as_ref());
    in_addition(&mut s, tables, &extra);
    let _ = write!(
        s,
        "\n\nIf you fix the issue in a separate patch/commit (i.e. not just a new version of\n\
         the same patch/commit), kindly add following tags\n\
         | Reported-by: kernel test robot <lkp@intel.com>\n\
         | Closes: https://lore.kernel.org/oe-lkp/{msgid}\n\n\n\
         Details are as below:\n\
         -------------------------------------------------------------------------------------------------->\n\n\n\
         The kernel config and materials to reproduce are available at:\n\
         https://download.01.org/0day-ci/archive/{}/{msgid}\n\n",
        &stamp.compact()[..8]
    );
    for tb in tables {
        table_block(&mut s, t, tb, ids);
    }
    s.push_str(
        "\n\n\nDisclaimer:\nResults have been estimated based on internal Intel analysis and are provided\n\
         for informational purposes only. Any difference in system hardware or software\n\
         design or configuration may affect actual performance.\n\n\n\
         -- \n0-DAY CI Kernel Test Service\nhttps://github.com/intel/lkp-tests/wiki\n",
    );
    s
}

fn headers(
    s: &mut String,
    t: &Template,
    tables: &[SynthTable],
    ids: &[String],
    stamp: &Stamp,
    msgid: &str,
    main: Option<&Headline>,
) {
    let tree_tag = t.tree_tag.clone().unwrap_or_else(|| {
        if t.tree.0.contains("linux-next") { "linux-next:master" } else { "linus:master" }.to_string()
    });
    let what = match main {
        Some(h) => format!("{} {}% {}", h.metric, h.change, h.word),
        None => tables[0].rows.first().map_or_else(String::new, |r| r.metric.clone()),
    };
    let _ = write!(
        s,
        "From: kernel test robot <lkp@intel.com>\n\
         To: Synthetic Author <author-{}@example.org>\n\
         Cc: {}\n\
         Subject: [{tree_tag}] [{}]  {}: {what}\n\
         Date: {}\n\
         Message-ID: <{msgid}>\n\
         MIME-Version: 1.0\n\
         Content-Type: text/plain; charset=utf-8\n\
         Content-Transfer-Encoding: 8bit\n\
         X-LKPX-Synthetic: yes\n\n",
        &ids[1][..8],
        cc(tables).join(", "),
        t.area,
        &ids[1][..10],
        stamp.rfc2822()
    );
    let _ = writeln!(
        s,
        "[synthetic] Written by `lkpx synth --mails` from the real report <{}>:\n\
         new commits, jittered numbers, recombined metric names. Not a measurement.\n\n\nHello,\n",
        t.origin
    );
}

/// Mailing lists by what the jobs exercise (real list addresses; no people).
fn cc(tables: &[SynthTable]) -> Vec<&'static str> {
    let mut out = vec!["oe-lkp@lists.linux.dev", "lkp@intel.com", "linux-kernel@vger.kernel.org"];
    for tb in tables {
        let list = match tb.params.get("fs").map(String::as_str) {
            Some("btrfs") => "linux-btrfs@vger.kernel.org",
            Some("xfs") => "linux-xfs@vger.kernel.org",
            Some("ext4") => "linux-ext4@vger.kernel.org",
            Some("f2fs") => "linux-f2fs-devel@lists.sourceforge.net",
            Some(_) => "linux-fsdevel@vger.kernel.org",
            None => "linux-mm@kvack.org",
        };
        if !out.contains(&list) {
            out.push(list);
        }
    }
    out
}

fn intro(s: &mut String, t: &Template, first: &SynthTable, ids: &[String], main: Option<&Headline>) {
    match main {
        Some(h) => {
            let _ = write!(s, "kernel test robot noticed a {}% {} of {} on:\n\n\n", h.change, h.word, h.metric);
        }
        None => {
            let m = first.rows.first().map_or("", |r| r.metric.as_str());
            let _ = write!(s, "kernel test robot noticed \"{m}\" on:\n\n\n");
        }
    }
    let branch = t.tree.1.as_deref().map_or(String::new(), |b| format!(" {b}"));
    let _ =
        write!(s, "commit: {} (\"{}\")\n{}{branch}\n\ntestcase: {}\n", ids[1], subject(t, 1), t.tree.0, first.testcase);
    for (key, label) in [("kconfig", "config"), ("compiler", "compiler")] {
        if let Some(v) = first.params.get(key) {
            let _ = writeln!(s, "{label}: {v}");
        }
    }
    let _ = write!(s, "test machine: {}\nparameters:\n\n", first.desc);
    for (k, v) in test_params(&first.params) {
        let _ = writeln!(s, "\t{k}: {v}");
    }
    s.push_str("\n\n");
}

fn in_addition(s: &mut String, tables: &[SynthTable], extra: &[(usize, Headline)]) {
    if extra.is_empty() {
        return;
    }
    let mut entries: Vec<Vec<(&str, String)>> = Vec::new();
    for (j, h) in extra {
        let tb = &tables[*j];
        let mut e = vec![
            ("testcase: change", format!("{}: {} {}% {}", tb.testcase, h.metric, h.change, h.word)),
            ("test machine", tb.desc.clone()),
        ];
        for (n, (k, v)) in test_params(&tb.params).enumerate() {
            e.push((if n == 0 { "test parameters" } else { "" }, format!("{k}={v}")));
        }
        entries.push(e);
    }
    let width = entries.iter().flatten().map(|(_, v)| v.chars().count()).max().unwrap_or(0) + 1;
    let border = format!("+------------------+{}+\n", "-".repeat(width + 1));
    s.push_str("\nIn addition to that, the commit also has significant impact on the following tests:\n\n");
    for e in &entries {
        s.push_str(&border);
        for (label, v) in e {
            let _ = writeln!(s, "| {label:<16} | {v:<width$}|");
        }
    }
    s.push_str(&border);
}

/// The commit subject of column `col` (1 = the reported commit, 0 = its base).
fn subject(t: &Template, col: usize) -> String {
    let j = match col {
        0 => 1,
        1 => 0,
        c => c,
    };
    let real = t.subjects.get(j).cloned().unwrap_or_else(|| match col {
        0 => format!("Merge branch '{}-next'", t.area),
        1 => format!("{}: the change under test", t.area),
        c => format!("{}: follow-up {}", t.area, c - 1),
    });
    format!("[synthetic] {real}")
}

fn table_block(s: &mut String, t: &Template, tb: &SynthTable, ids: &[String]) {
    if tb.new_section {
        let _ = write!(s, "\n{}\n{}: {}\n", "*".repeat(99), tb.machine, tb.desc);
    }
    let mut axes: Vec<(&str, &str)> = tb.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    axes.push(("tbox_group", &tb.machine));
    axes.push(("testcase", &tb.testcase));
    axes.sort();
    let keys: Vec<&str> = axes.iter().map(|a| a.0).collect();
    let values: Vec<&str> = axes.iter().map(|a| a.1).collect();
    let _ = write!(s, "{}\n{}:\n  {}\n\ncommit: \n", "=".repeat(89), keys.join("/"), values.join("/"));
    for (c, id) in tb.commits.iter().enumerate() {
        let _ = writeln!(s, "  {} (\"{}\")", &id[..10], subject(t, c));
    }
    let n = tb.commits.len();
    let heads: Vec<&str> = ids[..n].iter().enumerate().map(|(c, id)| &id[..if c == 0 { 16 } else { 27 }]).collect();
    let dashes: Vec<String> = (0..n).map(|c| "-".repeat(if c == 0 { 16 } else { 27 })).collect();
    let _ = write!(s, "\n{} \n{} \n", heads.join(" "), dashes.join(" "));
    let (fails, perfs): (Vec<&WrittenRow>, Vec<&WrittenRow>) = tb.rows.iter().partition(|r| r.kind == RowKind::Fail);
    if !fails.is_empty() {
        let _ = write!(
            s,
            "       fail:runs{}\n           |{}\n",
            "  %reproduction    fail:runs".repeat(n - 1),
            "             |             |".repeat(n - 1)
        );
        for r in fails {
            s.push_str(&r.line);
            s.push('\n');
        }
    }
    if !perfs.is_empty() {
        let _ = write!(
            s,
            "         %stddev{}\n             \\{}  \n",
            "     %change         %stddev".repeat(n - 1),
            "          |                \\".repeat(n - 1)
        );
        for r in perfs {
            s.push_str(&r.line);
            s.push('\n');
        }
    }
    s.push('\n');
}

/// A date as the mails print it, in the robot's time zone (+0800).
struct Stamp {
    y: i64,
    mo: i64,
    d: i64,
    h: i64,
    mi: i64,
    sec: i64,
    weekday: usize,
}

impl Stamp {
    fn at(t: i64) -> Stamp {
        let local = t + 8 * 3600;
        let (days, secs) = (local.div_euclid(86_400), local.rem_euclid(86_400));
        let (y, mo, d) = model::date::civil_from_days(days);
        let weekday = (days + 4).rem_euclid(7) as usize;
        Stamp { y, mo, d, h: secs / 3600, mi: secs % 3600 / 60, sec: secs % 60, weekday }
    }

    fn rfc2822(&self) -> String {
        const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
        const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
        format!(
            "{}, {} {} {} {:02}:{:02}:{:02} +0800",
            DAYS[self.weekday],
            self.d,
            MONTHS[(self.mo - 1) as usize],
            self.y,
            self.h,
            self.mi,
            self.sec
        )
    }

    /// `YYYYMMDDhhmm`, as the robot's Message-IDs start.
    fn compact(&self) -> String {
        format!("{:04}{:02}{:02}{:02}{:02}", self.y, self.mo, self.d, self.h, self.mi)
    }
}

/// `00001.eml` ...: numbered from 1, at least five digits, as many as `n` needs.
pub fn file_name(k: usize, n: usize) -> String {
    let width = n.to_string().len().max(5);
    format!("{:0width$}.eml", k + 1)
}

/// Write `n` mails into `out` (created if needed), in parallel; numbered mail files of an earlier
/// run that are not part of this set are removed, anything else is left alone.
pub fn write_mails(corpus: &Corpus, n: usize, seed: u64, out: &Path) -> std::io::Result<Summary> {
    std::fs::create_dir_all(out)?;
    let mut removed = 0;
    for e in std::fs::read_dir(out)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(num) = name.strip_suffix(".eml").filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let k: usize = num.parse().unwrap_or(0);
        if k == 0 || k > n || file_name(k - 1, n) != name {
            std::fs::remove_file(e.path())?;
            removed += 1;
        }
    }
    let workers = std::thread::available_parallelism().map_or(1, |w| w.get()).clamp(1, 8);
    let parts = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || -> std::io::Result<(u64, usize, HashIds)> {
                    let (mut bytes, mut rows, mut names) = (0u64, 0usize, HashIds::default());
                    for k in (w..n).step_by(workers) {
                        let m = corpus.mail(seed, k, n);
                        std::fs::write(out.join(&m.name), &m.text)?;
                        bytes += m.text.len() as u64;
                        for r in m.tables.iter().flat_map(|t| &t.rows) {
                            rows += 1;
                            names.insert(fnv(&r.metric));
                        }
                    }
                    Ok((bytes, rows, names))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a mail writer panicked")).collect::<Vec<_>>()
    });
    let mut sum = Summary { templates: corpus.templates(), mails: n, removed, ..Default::default() };
    let mut names = HashIds::default();
    for p in parts {
        let (bytes, rows, part) = p?;
        sum.bytes += bytes;
        sum.rows += rows;
        names.extend(part);
    }
    sum.distinct_metrics = names.len();
    Ok(sum)
}

/// `lkpx synth --mails N --from DIR... --out DIR --seed S`.
pub fn run(n: usize, from: &[PathBuf], out: &Path, seed: u64) -> std::io::Result<Summary> {
    let corpus = Corpus::load(from).map_err(std::io::Error::other)?;
    write_mails(&corpus, n, seed, out)
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} synthetic mails from {} real reports: {} rows, {} distinct metric names, {:.1} MB",
            self.mails,
            self.templates,
            self.rows,
            self.distinct_metrics,
            self.bytes as f64 / 1e6
        )?;
        if self.removed > 0 {
            write!(f, " ({} mail files of an earlier run removed)", self.removed)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_the_robot_prints_them() {
        for (t, rfc, compact) in [
            (1_715_925_390, "Fri, 17 May 2024 13:56:30 +0800", "202405171356"),
            (1_709_136_000, "Thu, 29 Feb 2024 00:00:00 +0800", "202402290000"),
            (946_656_000, "Sat, 1 Jan 2000 00:00:00 +0800", "200001010000"),
            (START, "Mon, 2 Jan 2023 08:00:00 +0800", "202301020800"),
        ] {
            let s = Stamp::at(t);
            assert_eq!((s.rfc2822().as_str(), s.compact().as_str()), (rfc, compact), "{t}");
        }
    }

    #[test]
    fn long_tail_kinds() {
        for (m, k) in [
            (
                "perf-profile.calltrace.cycles-pp.copy_page.do_fault.__handle_mm_fault",
                "Chain(\"perf-profile.calltrace.cycles-pp.\", 3)",
            ),
            (
                "perf-profile.calltrace.cycles-pp.cpuidle_enter_state.isra.0.cpuidle_enter",
                "Chain(\"perf-profile.calltrace.cycles-pp.\", 2)",
            ),
            ("perf-profile.self.cycles-pp.copy_page", "Sym(\"perf-profile.self.cycles-pp.\")"),
            ("perf-sched.wait_time.max.ms.pipe_write.vfs_write", "Chain(\"perf-sched.wait_time.max.ms.\", 2)"),
            ("interrupts.CPU12.LOC:Local_timer_interrupts", "PerCpu(\"interrupts.CPU\")"),
            ("softirqs.CPU7.SCHED", "PerCpu(\"softirqs.CPU\")"),
            ("interrupts.34:PCI-MSI.524292-edge.eth0-TxRx-3", "Renumber"),
            ("numa-vmstat.node1.nr_mapped", "Renumber"),
            ("slabinfo.kmalloc-rcl-512.active_objs", "Slab(\"active_objs\")"),
            ("proc-vmstat.pgsteal_kswapd", "Field(\"proc-vmstat.\")"),
            ("sched_debug.cfs_rq:/.load_avg.stddev", "Field(\"sched_debug.cfs_rq:/.\")"),
        ] {
            assert_eq!(kind_of(m).map(|k| format!("{k:?}")).as_deref(), Some(k), "{m}");
        }
        for m in [
            "will-it-scale.per_process_ops",
            "perf-profile.children.cycles-pp.a.b",
            "sched_debug.cpu_clk",
            "meminfo.Slab",
        ] {
            assert!(kind_of(m).is_none(), "{m}");
        }
    }

    #[test]
    fn recombination_keeps_the_shape() {
        assert_eq!(splice("nr_dirty", "pgsteal_kswapd"), "nr_kswapd");
        assert_eq!(splice("pgfault", "pgsteal_kswapd"), "pgfault");
        let mut rng = Rng::new(7);
        let r = renumber("interrupts.34:PCI-MSI.524292-edge.eth0-TxRx-3", &mut rng);
        let shape = |s: &str| s.chars().map(|c| if c.is_ascii_digit() { '9' } else { c }).collect::<String>();
        assert_eq!(shape(&r), shape("interrupts.34:PCI-MSI.524292-edge.eth0-TxRx-3"), "{r}");
        assert!(is_single_token("sched_debug.cfs_rq:/.load_avg.avg"));
        assert!(!is_single_token("a ±5%") && !is_single_token("two words"));
    }

    #[test]
    fn subject_tags_of_real_subjects() {
        for (s, tree, area) in [
            (
                "[linus:master] [btrfs]  4ae2edf12d: fio.write_iops -11.9% regression",
                Some("linus:master"),
                Some("btrfs"),
            ),
            (
                "[f2fs-dev] [linux-next:master] [super] 1af3331764: x 23.3% regression",
                Some("linux-next:master"),
                Some("super"),
            ),
            ("[mm] e04ddfd12aa: +9.4% ebizzy.throughput", None, Some("mm")),
            ("Re: [PATCH] mm: create a separate slab for page->ptl allocation", None, None),
        ] {
            let (t, a) = subject_tags(s);
            assert_eq!((t.as_deref(), a.as_deref()), (tree, area), "{s}");
        }
    }

    #[test]
    fn failure_rows_recompute_reproduction() {
        let t = TRow {
            fail: true,
            metric: "dmesg.x".into(),
            values: vec![],
            stddev: vec![],
            fails: vec![0, 4],
            runs: vec![4, 4],
        };
        let mut rng = Rng::new(3);
        for _ in 0..50 {
            let r = fail_row("dmesg.x".into(), &t, &mut rng);
            let want = 100.0 * (r.fails[1] as f64 / 4.0 - r.fails[0] as f64 / 4.0);
            assert_eq!(r.changes, vec![want.round()], "{}", r.line);
            assert!(!r.line.contains("-0%"), "{}", r.line);
        }
    }

    #[test]
    fn file_names_sort_in_order() {
        assert_eq!(file_name(0, 10), "00001.eml");
        assert_eq!(file_name(99_999, 100_000), "100000.eml");
        assert_eq!(file_name(0, 100_000), "000001.eml");
    }
}
