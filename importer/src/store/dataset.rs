//! Reading a published dataset back: the root, catalogs merged as the app merges them, the
//! files they name, and `lkpx check`, which verifies all of it.

use model::assemble::{merge, Assembled};
use model::{paths, ChangesShard, Index, JobShard, ReportDoc, Root, SeriesShard, TrendChunk, SCHEMA_VERSION};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A published dataset, opened: the root and every catalog, merged.
pub struct Published {
    pub dir: PathBuf,
    pub root: Root,
    /// Every testcase's catalog merged (positions of the merged view).
    pub index: Index,
    pub assembled: Assembled,
}

/// Read and parse one published JSON file, checking its schema; errors name the file.
pub fn read<T: serde::de::DeserializeOwned>(dir: &Path, rel: &str) -> Result<T, String> {
    let bytes = read_json(dir, rel)?;
    parse(rel, &bytes)
}

/// The JSON text of the published file `rel`: inflated when it is stored compressed (`.json.gz`,
/// which must then be gzip: `paths::GZIP_MAGIC`). Errors name the file.
pub fn read_json(dir: &Path, rel: &str) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
    unpacked(rel, bytes)
}

/// `bytes` of the file `rel` as JSON text (see `read_json`); of a report's page, the document it
/// carries, filled from the page's rows (`page_doc`).
pub fn unpacked(rel: &str, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    if is_report_page(rel) {
        return Ok(crate::store::json(&page_doc(rel, &bytes)?.0));
    }
    if !rel.ends_with(".gz") {
        return Ok(bytes);
    }
    inflated(rel, &bytes)
}

/// The document that the report's page `rel` carries, and its stored bytes as the page holds
/// them.
pub fn read_carried(dir: &Path, rel: &str) -> Result<(ReportDoc, Vec<u8>), String> {
    let page = std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
    page_doc(rel, &page)
}

/// The document that page `bytes` (file `rel`) carries, its rows filled from the page's
/// (`render::carry::filled`), and its stored bytes as the page holds them.
pub fn page_doc(rel: &str, bytes: &[u8]) -> Result<(ReportDoc, Vec<u8>), String> {
    let stored = page_stored(rel, bytes)?;
    let carried: ReportDoc = parse(rel, &inflated(rel, &stored)?)?;
    let html = std::str::from_utf8(bytes).map_err(|_| format!("{rel}: the page is not UTF-8"))?;
    let d = render::carry::filled(carried, &render::carry::page_rows(html)).map_err(|e| format!("{rel}: {e}"))?;
    Ok((d, stored))
}

/// A report's page (`m/<key>/index.html`), which carries its document.
fn is_report_page(rel: &str) -> bool {
    rel.ends_with("/index.html") && (rel.starts_with("m/") || rel.contains("/m/"))
}

/// The stored bytes (gzip JSON) of the document that the page `bytes` (file `rel`) carries.
pub fn page_stored(rel: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let html = std::str::from_utf8(bytes).map_err(|_| format!("{rel}: the page is not UTF-8"))?;
    let text = paths::page_doc(html).ok_or_else(|| format!("{rel}: the page carries no report document"))?;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("{rel}: the page's report document is not base64: {e}"))
}

/// Stored bytes `gz` of file `rel` inflated: they must be gzip (`paths::GZIP_MAGIC`).
pub fn inflated(rel: &str, gz: &[u8]) -> Result<Vec<u8>, String> {
    if !gz.starts_with(&paths::GZIP_MAGIC) {
        return Err(format!("{rel}: not gzip-compressed, as its name says"));
    }
    let mut out = Vec::with_capacity(gz.len() * 5);
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gz), &mut out)
        .map_err(|e| format!("{rel}: broken gzip: {e}"))?;
    Ok(out)
}

/// The published file `rel`, given its bytes (see `read`).
fn parse<T: serde::de::DeserializeOwned>(rel: &str, bytes: &[u8]) -> Result<T, String> {
    #[derive(serde::Deserialize)]
    struct Schema {
        schema: u32,
    }
    // lkpx writes the schema first: read it there without parsing the file twice
    let lead = format!("{{\"schema\":{SCHEMA_VERSION},");
    if bytes.starts_with(lead.as_bytes()) {
        return serde_json::from_slice(bytes).map_err(|e| format!("{rel}: malformed: {e}"));
    }
    match serde_json::from_slice::<Schema>(bytes) {
        Ok(s) if s.schema != SCHEMA_VERSION => {
            return Err(format!("{rel}: data schema {}, this lkpx writes schema {SCHEMA_VERSION}", s.schema))
        }
        Err(e) => return Err(format!("{rel}: malformed JSON: {e}")),
        Ok(_) => {}
    }
    serde_json::from_slice(bytes).map_err(|e| format!("{rel}: malformed: {e}"))
}

/// A testcase's published catalog with its rest and names merged in (`Index::complete`): the
/// whole catalog.
pub fn read_catalog(dir: &Path, rel: &str) -> Result<Index, String> {
    read_catalog_and_rest(dir, rel).map(|(cat, _)| cat)
}

/// `read_catalog`, and the paths of the catalog's rest and names.
pub fn read_catalog_and_rest(dir: &Path, rel: &str) -> Result<(Index, Vec<String>), String> {
    let mut cat: Index = read(dir, rel)?;
    let parts: Vec<String> = cat.rest.iter().chain(&cat.names).cloned().collect();
    if let Some(rest) = cat.rest.clone() {
        let r: model::Index = read(dir, &rest)?;
        cat.with_rest(r).map_err(|e| format!("{rest}: malformed: {e}"))?;
    }
    if let Some(names) = cat.names.clone() {
        cat.with_names(read(dir, &names)?);
    }
    Ok((cat, parts))
}

/// The trend chunk a testcase's page draws from (`cat`: its whole catalog): the chunk of
/// `render::trend::metric_of`.
pub fn trend_chunk(cat: &Index) -> Option<&str> {
    let m = render::trend::metric_of(cat)?;
    cat.metrics.iter().find(|x| x.name == m).and_then(|x| cat.chunks.get(x.chunk as usize)).map(String::as_str)
}

/// The trend testcase `e`'s page shows, made from its published catalog and that chunk.
pub fn published_trend(dir: &Path, e: &model::TestcaseEntry) -> Result<Option<render::html::Html>, String> {
    let cat = read_catalog(dir, &e.catalog)?;
    let Some(rel) = trend_chunk(&cat) else { return Ok(None) };
    let chunk: TrendChunk = read(dir, rel)?;
    Ok(render::trend::of_testcase(&cat, &chunk.series.iter().collect::<Vec<_>>()))
}

impl Published {
    pub fn open(dir: &Path) -> Result<Published, String> {
        let root: Root = read(dir, paths::INDEX)?;
        let mut cats = Vec::new();
        for t in &root.testcases {
            cats.push((t.catalog.clone(), read_catalog(dir, &t.catalog)?));
        }
        let assembled = merge(&root, &cats)?;
        Ok(Published { dir: dir.to_path_buf(), index: assembled.index.clone(), root, assembled })
    }

    fn part(&self, testcase: &str) -> Result<&model::assemble::Part, String> {
        self.assembled.parts.get(testcase).ok_or_else(|| format!("no testcase {testcase}"))
    }

    /// The series of one metric of one testcase, in merged positions.
    pub fn series(&self, testcase: &str, metric: &str) -> Result<SeriesShard, String> {
        let part = self.part(testcase)?;
        let rel = part.chunk_of(metric).ok_or_else(|| format!("{testcase} has no metric {metric}"))?;
        let chunk: TrendChunk = read(&self.dir, rel)?;
        part.series_shard(&chunk, metric).map_err(|e| format!("{rel}: {e}"))
    }

    /// The steps detected along one metric of one testcase.
    pub fn detected(&self, testcase: &str, metric: &str) -> Result<ChangesShard, String> {
        let part = self.part(testcase)?;
        let rel = part.chunk_of(metric).ok_or_else(|| format!("{testcase} has no metric {metric}"))?;
        let chunk: TrendChunk = read(&self.dir, rel)?;
        part.detected(&chunk, metric).map_err(|e| format!("{rel}: {e}"))
    }

    /// Every metric of a job (by id), in merged positions.
    /// (A job one report alone measured: made from that report's document, `Job::report`.)
    pub fn job_shard(&self, job_id: &str) -> Result<JobShard, String> {
        let at = self.index.jobs.iter().position(|j| j.id == job_id).ok_or_else(|| format!("no job {job_id}"))?;
        let job = &self.index.jobs[at];
        let part = self.part(&job.testcase)?;
        if let Some(r) = part.report_of(job) {
            let rel = self.index.reports[r as usize].page();
            let rd: ReportDoc = read(&self.dir, &rel)?;
            return part.job_of_report(&self.index, at as u32, &rd).map_err(|e| format!("{rel}: {e}"));
        }
        let shard: JobShard = read(&self.dir, &job.shard)?;
        part.job_shard(&shard).map_err(|e| format!("{}: {e}", job.shard))
    }

    /// Every change of a testcase, in merged positions, as the Changes view makes them: from its
    /// trend chunks (`Part::chunk_changes`).
    pub fn changes(&self, testcase: &str) -> Result<ChangesShard, String> {
        let part = self.part(testcase)?;
        let rules = model::changes::Rules::of(&self.index);
        let mut all = ChangesShard { schema: SCHEMA_VERSION, testcase: testcase.to_string(), changes: Vec::new() };
        for rel in &part.chunks {
            let chunk: TrendChunk = read(&self.dir, rel)?;
            all.changes.extend(part.chunk_changes(&chunk, &rules).map_err(|e| format!("{rel}: {e}"))?.changes);
        }
        Ok(all)
    }

    /// The document of the report with this id, read from its page.
    pub fn report_doc(&self, id: &str) -> Result<ReportDoc, String> {
        let meta = self.index.reports.iter().find(|r| r.id == id).ok_or_else(|| format!("no report {id}"))?;
        read(&self.dir, &meta.page())
    }
}

/// What `check` found.
#[derive(Debug, Default)]
pub struct Checked {
    /// Empty: the dataset is whole.
    pub problems: Vec<String>,
    /// Files checked.
    pub files: usize,
    /// Files under the published directories that nothing the root leads to names (an import killed
    /// before its switch leaves its new files; the next full import removes them): not a problem
    /// for the page, but not what an import makes. Listed only when there is no problem.
    pub strays: Vec<String>,
}

/// Verify a published dataset: the root and every file it names (directly or through a
/// catalog) exist, parse, carry this schema, are the bytes their hash names say, and point only
/// inside their catalog; and list the files nothing names.
pub fn check(dir: &Path) -> Checked {
    let mut problems = Vec::new();
    let root: Root = match read(dir, paths::INDEX) {
        Ok(r) => r,
        Err(e) => return Checked { problems: vec![e], files: 1, strays: Vec::new() },
    };
    let mut checked = 1;
    let mut unstamped = root.clone();
    unstamped.generation.clear();
    if paths::content_hash(&crate::store::pack::json(&unstamped)) != root.generation {
        problems.push(format!("{}: generation {} does not match its content", paths::INDEX, root.generation));
    }
    let mut seen = Seen::default();
    for t in &root.testcases {
        checked += check_testcase(dir, t, &mut problems, &mut seen);
    }
    for d in root.newest.iter().map(model::ReportSummary::page) {
        seen.docs.insert(d);
    }
    let mut all: Vec<model::ReportSummary> = Vec::new();
    for p in &root.pages {
        checked += 1;
        match read_hashed::<model::ReportPage>(dir, p) {
            Ok(page) => {
                seen.docs.extend(page.reports.iter().map(model::ReportSummary::page));
                all.extend(page.reports);
            }
            Err(e) => problems.push(e),
        }
    }
    let listed = all.len();
    if !root.pages.is_empty() && listed != root.totals.reports {
        problems.push(format!(
            "{}: the reports list holds {listed} reports, the root counts {}",
            paths::INDEX,
            root.totals.reports
        ));
    }
    checked += check_by_job(dir, &root, &mut problems);
    let mut terms = crate::store::pack::Terms::default();
    for rel in &seen.docs {
        // (a report's page, which carries its document: counted once, with the pages when they are checked)
        checked += root.pages.is_empty() as usize;
        match read::<ReportDoc>(dir, rel) {
            // a report in no catalog (no row of a known testcase) names its script only here
            Ok(d) => {
                seen.scripts.extend(d.script.iter().map(|h| paths::script(h)));
                terms.add(&d);
            }
            Err(e) => problems.push(e),
        }
    }
    let (n, search_files) = check_search(dir, &root, &all, terms, &mut problems);
    checked += n;
    for rel in &seen.scripts {
        checked += 1;
        if !dir.join(rel).is_file() {
            problems.push(format!("{rel}: missing"));
        }
    }
    if !root.pages.is_empty() {
        checked += check_pages(dir, &root, &all, &mut problems, &mut seen.files);
    }
    let mut named = seen.files;
    named.extend(seen.docs);
    named.extend(seen.scripts);
    named.extend(root.pages.iter().chain(&root.by_job).chain(&root.archives).cloned());
    named.extend(search_files);
    // (a file a broken catalog names would count as one: listed only for a whole dataset)
    let strays = if problems.is_empty() { strays(dir, &named) } else { Vec::new() };
    Checked { problems, files: checked, strays }
}

/// The static pages (every report's, the first screen, the lists) are what `pages` makes of the
/// documents, the reports list (`all`, newest first) and the testcases' catalogs and trend chunks:
/// each one read and compared.
fn check_pages(
    dir: &Path,
    root: &Root,
    all: &[model::ReportSummary],
    problems: &mut Vec<String>,
    named: &mut BTreeSet<String>,
) -> usize {
    use crate::store::pages;
    use rayon::prelude::*;
    let peers = pages::Peers::of(all);
    let problems_of_trends = std::sync::Mutex::new(Vec::new());
    let doc = |s: &model::ReportSummary| read_carried(dir, &s.page());
    let mut want: Vec<Result<crate::store::File, String>> =
        all.par_iter().map(|s| doc(s).map(|(d, _)| pages::report_file(&d, all, &peers))).collect();
    let newest = all.first().and_then(|s| doc(s).ok()).map(|(d, _)| d);
    let trend = |tc: &str| {
        let e = root.testcases.iter().find(|e| e.name == tc)?;
        published_trend(dir, e)
            .inspect_err(|e| problems_of_trends.lock().expect("not poisoned").push(e.clone()))
            .ok()?
    };
    want.extend(pages::list_pages(all, model::NEWEST, newest.as_ref(), &peers, &trend).into_iter().map(Ok));
    problems.extend(problems_of_trends.into_inner().expect("not poisoned"));
    let found: Vec<Option<String>> = want
        .par_iter()
        .map(|w| {
            let (rel, bytes) = w.as_ref().ok()?;
            match std::fs::read(dir.join(rel)) {
                Ok(b) if &b == bytes => None,
                Ok(_) => Some(format!("{rel}: not the page of its report document and the reports list (re-import)")),
                Err(e) => Some(format!("{rel}: {e}")),
            }
        })
        .collect();
    problems.extend(found.into_iter().flatten());
    let n = want.len();
    named.extend(want.into_iter().flatten().map(|(rel, _)| rel));
    n
}

/// The files a check met, by path in the dataset.
#[derive(Default)]
struct Seen {
    docs: BTreeSet<String>,
    scripts: BTreeSet<String>,
    /// Catalogs (both halves), trend chunks, job files, changes pages.
    files: BTreeSet<String>,
}

/// Files under the published directories of `dir` that are not in `named`.
fn strays(dir: &Path, named: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for d in paths::DIRS {
        for e in walkdir::WalkDir::new(dir.join(d)).min_depth(1).into_iter().flatten() {
            let rel = e.path().strip_prefix(dir).unwrap_or(e.path()).display().to_string();
            if !e.file_type().is_dir() && !named.contains(&rel) {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// The search index is what the importer makes of the documents (`terms`) and the reports list
/// (`all`, newest first), and each of its files is there and reads as its name says.
fn check_search(
    dir: &Path,
    root: &Root,
    all: &[model::ReportSummary],
    terms: crate::store::pack::Terms,
    problems: &mut Vec<String>,
) -> (usize, Vec<String>) {
    if root.search.is_empty() {
        return (0, Vec::new());
    }
    let mut named = vec![root.search.clone()];
    let index = match read::<model::search::SearchIndex>(dir, &root.search) {
        Ok(i) => i,
        Err(e) => {
            problems.push(e);
            return (1, named);
        }
    };
    let (files, want) = crate::store::pack::search_files(all, terms);
    if index != want {
        problems.push(format!("{}: the search index is not what the report documents make", root.search));
    }
    let want: HashMap<String, Vec<u8>> = files.into_iter().collect();
    let shards: BTreeSet<String> = index.main.shard_files().chain(index.recent.shard_files()).collect();
    named.extend(index.files());
    for rel in &named {
        let bytes = match std::fs::read(dir.join(rel)) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{rel}: {e}"));
                continue;
            }
        };
        if want.get(rel) == Some(&bytes) {
            continue;
        }
        // say what is wrong with it: it does not read, or it reads as other terms or summaries
        let read = if *rel == root.search {
            read::<model::search::SearchIndex>(dir, rel).map(|_| ())
        } else if *rel == index.common {
            read::<model::search::CommonTerms>(dir, rel).map(|_| ())
        } else if shards.contains(rel) {
            read::<model::search::SearchShard>(dir, rel).map(|_| ())
        } else {
            read::<model::ReportPage>(dir, rel).map(|_| ())
        };
        problems.push(read.err().unwrap_or_else(|| format!("{rel}: not what the report documents make")));
    }
    (named.len(), named)
}

/// The reports list by job: a power of two of files, each report in the file of its job.
fn check_by_job(dir: &Path, root: &Root, problems: &mut Vec<String>) -> usize {
    let n = root.by_job.len() as u32;
    if n > 0 && !n.is_power_of_two() {
        problems.push(format!("{}: by_job has {n} files, not a power of two", paths::INDEX));
        return 0;
    }
    let mut checked = 0;
    for (b, rel) in root.by_job.iter().enumerate().filter(|(_, f)| !f.is_empty()) {
        checked += 1;
        match read_hashed::<model::ReportPage>(dir, rel) {
            Ok(page) => {
                let misplaced =
                    page.reports.iter().find(|r| r.job_key().map(|k| paths::bucket_of(&k, n)) != Some(b as u32));
                if let Some(r) = misplaced {
                    problems.push(format!("{rel}: report {} is not of a job of this by_job file ({b})", r.id));
                }
            }
            Err(e) => problems.push(e),
        }
    }
    checked
}

/// Read a hash-named file, checking its bytes against its name.
fn read_hashed<T: serde::de::DeserializeOwned>(dir: &Path, rel: &str) -> Result<T, String> {
    let bytes = read_json(dir, rel)?;
    named_by(rel, "content hash", &paths::content_hash(&bytes))?;
    parse(rel, &bytes)
}

/// Whether the file `rel` is named by `hash` (its `what`), else the error saying it is not.
fn named_by(rel: &str, what: &str, hash: &str) -> Result<(), String> {
    let stem = rel.rsplit('/').next().unwrap_or(rel).trim_end_matches(".gz").trim_end_matches(".json");
    match stem.ends_with(hash) {
        true => Ok(()),
        false => Err(format!("{rel}: {what} {hash} does not match its name (changed or of another build)")),
    }
}

/// Read a file named by its value's fingerprint (`known::print`), checking the value it parses
/// to against its name.
fn read_printed<T: serde::de::DeserializeOwned + serde::Serialize>(dir: &Path, rel: &str) -> Result<T, String> {
    let v: T = read(dir, rel)?;
    named_by(rel, "fingerprint", &crate::store::known::print(&v))?;
    Ok(v)
}

/// The three parts of a catalog, each checked against its name: the whole they make and the paths
/// of its rest and names. The first part must be what the importer makes of the whole (its
/// metrics, chunks and quiet reports).
fn read_halves(dir: &Path, rel: &str) -> Result<(Index, [String; 2]), String> {
    let spine: Index = read_hashed(dir, rel)?;
    let rest_rel = spine.rest.clone().ok_or_else(|| format!("{rel}: names no rest of the catalog"))?;
    let names_rel = spine.names.clone().ok_or_else(|| format!("{rel}: names no metric names of the catalog"))?;
    let rest: model::Index = read_hashed(dir, &rest_rel)?;
    let names: model::Index = read_hashed(dir, &names_rel)?;
    let mut whole = spine.clone();
    whole.complete(rest, names).map_err(|e| format!("{rest_rel}: malformed: {e}"))?;
    let own = spine.metrics.iter().map(|m| (m.name.clone(), 0)).collect();
    let (mut expected, _, _) = crate::store::pack::split_catalog(whole.clone(), &own);
    expected.rest = spine.rest.clone();
    expected.names = spine.names.clone();
    if expected != spine {
        return Err(format!("{rel}: its metrics, chunks or quiet reports are not those of {rest_rel}"));
    }
    Ok((whole, [rest_rel, names_rel]))
}

/// A whole catalog's chunk keys (`Index::chunk_keys`), by which the record of a row finds a
/// metric's chunk without the names: ascending, and each metric's chunk keyed by its name's
/// bucket (or, after the buckets, an own chunk's).
fn check_chunk_keys(cat: &Index) -> Result<(), String> {
    let n = paths::chunk_count(cat.totals.points);
    if !cat.chunk_keys.windows(2).all(|w| w[0] < w[1]) {
        return Err("its chunks' keys do not ascend".into());
    }
    match cat.metrics.iter().find(|m| {
        let key = cat.chunk_keys.get(m.chunk as usize);
        key.is_none_or(|&k| k < n && k != paths::chunk_of(&m.name, n))
    }) {
        Some(m) => Err(format!("the key of {}'s chunk is not its name's bucket", m.name)),
        None => Ok(()),
    }
}

fn check_testcase(dir: &Path, t: &model::TestcaseEntry, problems: &mut Vec<String>, seen: &mut Seen) -> usize {
    let (cat, parts) = match read_halves(dir, &t.catalog) {
        Ok(c) => c,
        Err(e) => {
            problems.push(e);
            return 3;
        }
    };
    seen.files.insert(t.catalog.clone());
    seen.files.extend(parts);
    let job_files = cat.jobs.iter().map(|j| &j.shard).filter(|s| !s.is_empty());
    seen.files.extend(cat.chunks.iter().chain(job_files).chain(&cat.changes).cloned());
    let mut checked = 3;
    if let Err(e) = model::assemble::check_catalog(&cat).and_then(|_| check_chunk_keys(&cat)) {
        problems.push(format!("{}: {e}", t.catalog));
        return checked;
    }
    // positions unchanged; any file pointing outside the catalog is refused
    let part = model::assemble::Part::identity(&t.catalog, &cat);
    let top = TopChanges::of(&cat);
    // each chunk read, checked and its top changes made on all cores; the tops merged
    use rayon::prelude::*;
    let chunks: Vec<Result<Vec<Ranked>, String>> = cat
        .chunks
        .par_iter()
        .map(|rel| {
            let c = read_printed::<TrendChunk>(dir, rel)?;
            let bad = c
                .series
                .iter()
                .find_map(|s| part.series(s).err())
                .or_else(|| c.detected.iter().find_map(|d| part.change(d).err()));
            match bad {
                Some(e) => Err(e),
                None => top.of_chunk(&part, &c),
            }
            .map_err(|e| format!("{rel}: {e}"))
        })
        .collect();
    checked += chunks.len();
    let mut tops = Vec::new();
    for c in chunks {
        match c {
            Ok(t) => tops.extend(t),
            Err(e) => problems.push(e),
        }
    }
    for (at, j) in cat.jobs.iter().enumerate() {
        // (a job one report measured: its file is made from the document, checked with the others)
        checked += j.report.is_none() as usize;
        let shard = match j.report {
            Some(r) => job_of_report(dir, &cat, &part, at as u32, r),
            None => read_printed::<JobShard>(dir, &j.shard).map(|s| (s, j.shard.clone())),
        };
        match shard {
            Ok((s, rel)) => {
                if let Err(e) = part.job_shard(&s) {
                    problems.push(format!("{rel}: {e}"));
                }
            }
            Err(e) => problems.push(e),
        }
        seen.scripts.extend(j.script.iter().map(|h| paths::script(h)));
    }
    checked += check_changes(dir, &cat, &part, TopChanges::top(tops), problems);
    for r in &cat.reports {
        seen.docs.insert(r.page());
        seen.scripts.extend(r.script.iter().map(|h| paths::script(h)));
    }
    checked
}

/// The compare file of job `at` of `cat`, which names report `r` as its only one (`Job::report`),
/// made from that report's document, and the document's path: it must give the job's series,
/// each observation that report's.
fn job_of_report(
    dir: &Path,
    cat: &Index,
    part: &model::assemble::Part,
    at: u32,
    r: u32,
) -> Result<(JobShard, String), String> {
    let meta = cat
        .reports
        .get(r as usize)
        .ok_or_else(|| format!("{}: report #{r} is not in the catalog", cat.jobs[at as usize].id))?;
    let rel = meta.page();
    let rd: ReportDoc = read(dir, &rel)?;
    let s = part.job_of_report(cat, at, &rd).map_err(|e| format!("{rel}: {e}"))?;
    let others = s.series.iter().any(|x| x.points.report.iter().any(|&p| p != r));
    if s.series.is_empty() || others {
        return Err(format!("{rel}: not the only report of job {}", s.job));
    }
    Ok((s, rel))
}

/// A catalog's changes page: it parses, maps into the catalog and holds the top `CHANGES_FIRST`
/// of its changes as the Changes view makes them from the trend chunks (`want`: in the listing
/// order, ties in build order).
fn check_changes(
    dir: &Path,
    cat: &Index,
    part: &model::assemble::Part,
    want: Vec<model::ChangeRecord>,
    problems: &mut Vec<String>,
) -> usize {
    let rel = match (cat.changes.as_slice(), want.is_empty()) {
        ([], true) => return 0,
        ([rel], false) => rel,
        (pages, _) => {
            let n = if want.is_empty() { 0 } else { 1 };
            problems.push(format!(
                "{}: names {} changes pages, its trend chunks give {n}",
                cat.testcases[0].name,
                pages.len()
            ));
            return pages.len();
        }
    };
    match read_printed::<ChangesShard>(dir, rel).and_then(|s| part.changes(&s).map_err(|e| format!("{rel}: {e}"))) {
        Ok(s) if s.changes == want => {}
        Ok(_) => problems.push(format!(
            "{rel}: not the top {} changes that its testcase's trend chunks give (re-import)",
            model::CHANGES_FIRST
        )),
        Err(e) => problems.push(e),
    }
    1
}

/// A change with its place in build order (series: job and metric, then its place among the
/// series' changes).
type Ranked = ((u32, String, u32), model::ChangeRecord);

/// The top `CHANGES_FIRST` changes of a testcase's trend chunks in the listing order, ties in
/// build order (series, then the series' own): what its changes page must hold. Every series is
/// in one chunk: the top of each chunk's changes holds the whole top.
struct TopChanges<'a> {
    rules: model::changes::Rules<'a>,
}

impl<'a> TopChanges<'a> {
    fn of(cat: &'a Index) -> TopChanges<'a> {
        TopChanges { rules: model::changes::Rules::of(cat) }
    }

    /// The top of `chunk`'s changes.
    fn of_chunk(&self, part: &model::assemble::Part, chunk: &TrendChunk) -> Result<Vec<Ranked>, String> {
        let made = part.chunk_changes(chunk, &self.rules)?.changes;
        let mut top = Vec::with_capacity(made.len());
        let mut k = 0;
        for (i, c) in made.iter().enumerate() {
            k = if i > 0 && (made[i - 1].job, &made[i - 1].metric) == (c.job, &c.metric) { k + 1 } else { 0 };
            top.push(((c.job, c.metric.clone(), k), c.clone()));
        }
        Ok(Self::keep(top))
    }

    fn keep(mut top: Vec<Ranked>) -> Vec<Ranked> {
        top.sort_by(|a, b| model::ChangeRecord::listing_order(&a.1, &b.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(model::CHANGES_FIRST);
        top
    }

    /// The top of the chunks' tops.
    fn top(tops: Vec<Ranked>) -> Vec<model::ChangeRecord> {
        Self::keep(tops).into_iter().map(|t| t.1).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunk keys as the importer writes them pass; out of order, or a metric's chunk keyed
    /// by another bucket, they are named.
    #[test]
    fn chunk_keys_out_of_order_or_not_a_metrics_bucket_are_named() {
        let n = paths::chunk_count(5000);
        let names: Vec<String> = (0..40).map(|i| format!("m.{i}")).collect();
        let mut keys: Vec<u32> = names.iter().map(|m| paths::chunk_of(m, n)).collect();
        keys.sort();
        keys.dedup();
        keys.push(n);
        let metric = |name: &String, own: bool| model::MetricInfo {
            chunk: match own {
                true => keys.len() as u32 - 1,
                false => keys.binary_search(&paths::chunk_of(name, n)).unwrap() as u32,
            },
            name: name.clone(),
            ..Default::default()
        };
        let cat = Index {
            totals: model::Totals { points: 5000, ..Default::default() },
            metrics: names.iter().enumerate().map(|(i, m)| metric(m, i == 0)).collect(),
            chunk_keys: keys.clone(),
            ..Default::default()
        };
        assert!(keys.len() > 2);
        assert_eq!(check_chunk_keys(&cat), Ok(()));
        let mut swapped = cat.clone();
        swapped.chunk_keys.swap(0, 1);
        assert_eq!(check_chunk_keys(&swapped).unwrap_err(), "its chunks' keys do not ascend");
        let mut moved = cat.clone();
        moved.metrics[5].chunk = (moved.metrics[5].chunk + 1) % (keys.len() as u32 - 1);
        assert_eq!(check_chunk_keys(&moved).unwrap_err(), "the key of m.5's chunk is not its name's bucket");
    }
}
