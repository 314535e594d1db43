//! Published data v2 on the real fixtures: bounded files, incremental import byte-identical to a
//! full one and touching only what changed, `lkpx check`, and a killed import losing nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn lkpx(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(args).current_dir(root()).output().expect("run lkpx");
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stderr).unwrap())
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lkpx-layout-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What `of` says of each file under `dir`, by its path relative to `dir`.
fn each_file<T>(dir: &Path, of: &dyn Fn(&Path) -> T) -> BTreeMap<String, T> {
    fn walk<T>(base: &Path, d: &Path, of: &dyn Fn(&Path) -> T, out: &mut BTreeMap<String, T>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, of, out);
            } else {
                out.insert(p.strip_prefix(base).unwrap().display().to_string(), of(&p));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, of, &mut out);
    out
}

/// Every file's bytes, and every empty folder (`"rel/"`: a full import leaves none).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn empty_dirs(base: &Path, d: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let mut any = false;
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            any = true;
            if p.is_dir() {
                empty_dirs(base, &p, out);
            }
        }
        if !any {
            out.insert(format!("{}/", d.strip_prefix(base).unwrap().display()), Vec::new());
        }
    }
    let mut t = each_file(dir, &|p| std::fs::read(p).unwrap());
    empty_dirs(dir, dir, &mut t);
    t
}

/// The JSON text of the published file `rel` (stored gzip-compressed but for the root).
fn json_at(out: &Path, rel: &str) -> Vec<u8> {
    importer::store::dataset::read_json(out, rel).unwrap()
}

/// Write JSON text at `rel` as the importer stores it (the root plain, the rest gzip-compressed).
fn put_json(out: &Path, rel: &str, json: &[u8]) {
    let bytes = if rel.ends_with(".gz") { importer::store::pack::at_rest(json) } else { json.to_vec() };
    std::fs::write(out.join(rel), bytes).unwrap();
}

fn import(out: &Path, inputs: &[&str]) {
    let mut args = vec!["import", "--out", out.to_str().unwrap()];
    args.extend(inputs);
    let (code, err) = lkpx(&args);
    assert_eq!(code, 0, "{err}");
}

fn add(into: &Path, inputs: &[&str]) -> String {
    let mut args = vec!["import", "--into", into.to_str().unwrap()];
    args.extend(inputs);
    let (code, err) = lkpx(&args);
    assert_eq!(code, 0, "{err}");
    err
}

/// `lkpx import --into DIR INPUT` with `LKPX_TIMINGS=1` (which says what the import did); what it said.
fn add_timed(into: &Path, input: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lkpx"))
        .args(["import", "--into", into.to_str().unwrap(), input.to_str().unwrap()])
        .env("LKPX_TIMINGS", "1")
        .output()
        .unwrap();
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{said}");
    said
}

/// The testcases each mail of `dir` measures, by file name.
fn testcases_by_mail(dir: &Path) -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let rows = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(["rows", dir.to_str().unwrap()]).output().unwrap();
    let mut testcases: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for l in String::from_utf8(rows.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let source = v["source"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
        testcases.entry(source).or_default().insert(v["testcase"].as_str().unwrap().to_string());
    }
    testcases
}

/// `lkpx synth --mails n --out dir`.
fn synth(dir: &Path, n: usize) {
    let (code, err) = lkpx(&["synth", "--mails", &n.to_string(), "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
}

const ALL: [&str; 3] = ["fixtures/seeds", "fixtures/corpus", "fixtures/lkp-tests/result_root"];

/// A full import holds its reports stored and reads them back one testcase at a time
/// (`store::held`): it writes the very files the whole build in memory makes (`build::build`,
/// `pack::files`) on the real fixtures, duplicate copies (merged), mails of several testcases and
/// lkp-tests result roots (no Message-ID) included.
#[test]
fn a_full_import_read_back_testcase_by_testcase_writes_what_the_build_in_memory_makes() {
    let out = tmpdir("streamed");
    let dirs = ["fixtures/seeds", "fixtures/corpus", "fixtures/lkp-tests/result_root"];
    import(&out, &dirs);
    let inputs = importer::input::collect(&dirs.map(|d| root().join(d)));
    assert!(!inputs.result_roots.is_empty(), "a result root: a report without a Message-ID");
    let mut docs = Vec::new();
    for r in &inputs.result_roots {
        docs.extend(importer::input::read_result_root_as(r, &inputs.source_of(r)).docs);
    }
    for f in &inputs.files {
        docs.extend(importer::input::read_file_as(f, &inputs.source_of(f)).docs);
    }
    let weight = reader::direction::Directions::lkp_weight;
    let opts = importer::build::options::Options { commit_url: None, git_log: vec![], weight: &weight };
    let (data, merged) = importer::build::build(docs, &opts);
    assert!(merged > 0 && data.testcases.len() > 10, "the fixtures have copies to merge and many testcases");
    let (files, root) = importer::store::pack::files(data);
    let mut want: BTreeMap<String, Vec<u8>> = files.into_iter().collect();
    want.insert(model::paths::INDEX.to_string(), importer::store::pack::json(&root));
    let got = tree(&out);
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "the same files");
    for (rel, bytes) in &want {
        assert!(got[rel] == *bytes, "{rel}: the streamed import wrote other bytes");
    }
}

#[test]
fn files_are_bounded_by_reports_and_testcases() {
    let out = tmpdir("bounds");
    import(&out, &ALL);
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let files = tree(&out).len();
    let (reports, testcases) = (data.root.totals.reports, data.root.testcases.len());
    assert!(files <= 3 * reports + 20 * testcases, "{files} files for {reports} reports and {testcases} testcases");
    // the root names no report or metric beyond its newest-reports summary
    let root = std::fs::read_to_string(out.join("index.json")).unwrap();
    assert!(!root.contains("perf-profile."), "metric names stay out of the root");
    assert_eq!(data.root.newest.len(), reports.min(model::NEWEST));
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("the dataset is whole"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_metrics_first_charts_show_have_trend_chunks_of_their_own() {
    let out = tmpdir("own");
    import(&out, &ALL);
    let root: model::Root = serde_json::from_slice(&std::fs::read(out.join("index.json")).unwrap()).unwrap();
    let mut checked = 0;
    for t in &root.testcases {
        let cat: model::Index = serde_json::from_slice(&json_at(&out, &t.catalog)).unwrap();
        let info = &cat.testcases[0];
        let own_kpi = cat.metrics.iter().filter(|m| m.kpi && m.name.starts_with(&format!("{}.", t.name)));
        let first: Vec<&str> =
            info.headline_metrics.iter().map(String::as_str).chain(own_kpi.map(|m| m.name.as_str())).take(4).collect();
        for name in first {
            let Some(m) = cat.metrics.iter().find(|m| m.name == name) else { continue };
            let bytes = json_at(&out, &cat.chunks[m.chunk as usize]);
            let chunk: model::TrendChunk = serde_json::from_slice(&bytes).unwrap();
            assert!(chunk.series.iter().all(|s| s.metric == name), "{}: {name} shares its chunk", t.name);
            assert!(chunk.detected.iter().all(|c| c.metric == name), "{}: {name}", t.name);
            assert_eq!(chunk.series.len() as u32, m.series, "{}: {name}", t.name);
            checked += 1;
        }
    }
    assert!(checked >= root.testcases.len(), "{checked} metrics checked for {} testcases", root.testcases.len());
    let _ = std::fs::remove_dir_all(&out);
}

/// Choosing a testcase fetches what its first chart needs: the catalog holds no report and only
/// the first charts' metrics (with their chunks); its rest (reports, chunks) and its names (every
/// metric), fetched when a view needs them, make it whole, and the rest alone finds every metric's
/// chunk by its bucket. A catalog whose half does not match its rest is named by `lkpx check`.
#[test]
fn a_catalog_is_what_the_first_chart_needs_and_its_rest_makes_it_whole() {
    let out = tmpdir("halves");
    import(&out, &ALL);
    let read = |rel: &str| json_at(&out, rel);
    let root: model::Root = serde_json::from_slice(&read("index.json")).unwrap();
    let mut quiet = 0;
    for t in &root.testcases {
        let spine: model::Index = serde_json::from_slice(&read(&t.catalog)).unwrap();
        assert!(spine.reports.is_empty(), "{}: reports in the catalog", t.name);
        let rest_rel = spine.rest.clone().expect("a catalog names its rest");
        let rest: model::Index = serde_json::from_slice(&read(&rest_rel)).unwrap();
        let names_rel = spine.names.clone().expect("a catalog names its metric names");
        let names: model::Index = serde_json::from_slice(&read(&names_rel)).unwrap();
        assert_eq!(rest.reports.len(), t.reports, "{}", t.name);
        assert!(rest.metrics.is_empty() && names.reports.is_empty(), "{}: names apart from reports", t.name);
        assert!(spine.metrics.len() <= importer::store::pack::OWN_CHUNKS, "{}", t.name);
        assert!(spine.metrics.len() < names.metrics.len(), "{}: the catalog lists every metric", t.name);
        for h in &t.headline_metrics {
            assert!(spine.metrics.iter().any(|m| &m.name == h), "{}: headline metric {h} not in the catalog", t.name);
        }
        for m in &spine.metrics {
            let r = names.metrics.iter().find(|r| r.name == m.name).expect("a catalog metric is in the names");
            assert_eq!(spine.chunks[m.chunk as usize], rest.chunks[r.chunk as usize], "{}: {}", t.name, m.name);
            assert_eq!((m.direction, m.kpi, m.series), (r.direction, r.kpi, r.series), "{}", m.name);
        }
        for (i, r) in rest.reports.iter().enumerate() {
            assert_eq!(spine.is_quiet(i as u32), r.omits_small_stddev(), "{}: report {i}", t.name);
            quiet += r.omits_small_stddev() as usize;
        }
        // the rest alone: every metric's chunk found by its bucket, as the names place it
        let mut with_rest = spine.clone();
        with_rest.with_rest(rest.clone()).unwrap();
        let part = model::assemble::Part::identity(&t.catalog, &with_rest);
        for m in &names.metrics {
            assert_eq!(part.chunk_of(&m.name), Some(rest.chunks[m.chunk as usize].as_str()), "{}: {}", t.name, m.name);
        }
        let mut whole = spine.clone();
        whole.complete(rest.clone(), names.clone()).unwrap();
        assert_eq!((whole.reports, whole.metrics, whole.chunks), (rest.reports, names.metrics, rest.chunks));
    }
    assert!(quiet > 0, "some fixture mails are of 2017-08 or later");
    // a catalog whose quiet reports are not its rest's
    let t = &root.testcases[0];
    let text = String::from_utf8(read(&t.catalog)).unwrap();
    let mut spine: model::Index = serde_json::from_str(&text).unwrap();
    spine.quiet = if spine.quiet.is_empty() { vec![0, spine.totals.reports as u32] } else { vec![] };
    let bytes = importer::store::pack::json(&spine);
    let rel = model::paths::catalog(&t.name, &model::paths::content_hash(&bytes));
    put_json(&out, &rel, &bytes);
    let idx = String::from_utf8(read("index.json")).unwrap().replace(&t.catalog, &rel);
    std::fs::write(out.join("index.json"), idx).unwrap();
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{rel}: its metrics, chunks or quiet reports are not those of")), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn incremental_import_equals_a_full_one_and_rewrites_only_touched_testcases() {
    let (full, inc) = (tmpdir("full"), tmpdir("inc"));
    import(&full, &ALL);
    import(&inc, &["fixtures/seeds"]);
    add(&inc, &["fixtures/lkp-tests/result_root"]);
    // a testcase the import does not rebuild keeps the trend its page shows; with the page gone,
    // the trend is made from its published catalog and chunk (blogbench: only in the seeds)
    let page = inc.join("p/tc/blogbench/index.html");
    assert!(std::fs::read_to_string(&page).unwrap().contains("data-testid=\"static-trend\""));
    std::fs::remove_file(&page).unwrap();
    let before = tree(&inc);
    let log = add(&inc, &["fixtures/corpus"]);
    assert!(log.contains("removed"), "{log}");
    assert!(tree(&full) == tree(&inc), "an import in three steps gives the bytes of one full import");
    // adding a mail again changes nothing but what it touches (here: nothing at all)
    let again = add(&inc, &["fixtures/corpus/008.txt"]);
    assert!(again.contains("lkpx: nothing new:") && again.contains("no file written"), "{again}");
    assert!(tree(&full) == tree(&inc));
    // a testcase the new mails do not measure keeps its files: pmbench came from the result root
    let pm: Vec<&String> = before.keys().filter(|k| k.contains("pmbench")).collect();
    assert!(!pm.is_empty());
    let after = tree(&inc);
    for k in pm {
        assert_eq!(after.get(k), before.get(k), "{k} untouched");
    }
    let _ = std::fs::remove_dir_all(&full);
    let _ = std::fs::remove_dir_all(&inc);
}

/// A reply written here (no such mail was sent) to the cpuidle report of 38f83090f5, naming as
/// fixed the commit of an fsmark report of 2023 (39d432fc7630).
const NAMING_REPLY: &str = "From: Tom Tester <tom@example.org>\n\
To: kernel test robot <oliver.sang@intel.com>\n\
Subject: Re: [linux-next:master] [cpuidle]  38f83090f5:  fsmark.app_overhead 51.9% regression\n\
Date: Fri, 11 Oct 2024 09:00:00 +0100\n\
Message-ID: <named-commit-layout@example.org>\n\
In-Reply-To: <202410072214.11d18a3c-oliver.sang@intel.com>\n\
References: <202410072214.11d18a3c-oliver.sang@intel.com>\n\
Content-Type: text/plain; charset=UTF-8\n\
\n\
The fix for this one is elsewhere:\n\
\n\
Fixes: 39d432fc7630 (\"a commit of 2023\")\n";

/// A reply that names a commit as fixed, added to a dataset: the replied report's page links the
/// named commit's report and that report's page (its document unchanged: its page made anew in
/// place, `render::page::with_around`) links back, the bytes of one full import.
#[test]
fn a_reply_naming_a_commit_added_later_links_both_pages_as_a_full_import_does() {
    let (full, inc, mail) = (tmpdir("named-full"), tmpdir("named-inc"), tmpdir("named-mail"));
    std::fs::write(mail.join("reply.eml"), NAMING_REPLY).unwrap();
    let mail_dir = mail.to_str().unwrap();
    import(&full, &[ALL[0], ALL[1], ALL[2], mail_dir]);
    import(&inc, &ALL);
    let named = inc.join(model::paths::report_html("202308241229.68396422-oliver.sang@intel.com"));
    let before = std::fs::read_to_string(&named).unwrap();
    assert!(!before.contains("naming-report"), "no reply names its commit yet");
    add(&inc, &[mail_dir]);
    assert!(tree(&full) == tree(&inc), "the reply added later gives the bytes of one full import");
    let after = std::fs::read_to_string(&named).unwrap();
    assert!(
        after.contains("data-testid=\"naming-report\"><a href=\"m/202410072214.11d18a3c-oliver.sang@intel.com/\""),
        "{after}"
    );
    let naming =
        std::fs::read_to_string(inc.join(model::paths::report_html("202410072214.11d18a3c-oliver.sang@intel.com")))
            .unwrap();
    assert!(naming.contains("data-testid=\"named-report\"><a href=\"m/202308241229.68396422-oliver.sang@intel.com/\""));
    assert!(naming.contains("Its replies name 39d432fc7630 (a fix or a revert)"));
    for d in [full, inc, mail] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A report page's job history fetches one small file of the list by job: every report with a
/// job is in the file of its job, once, with every other report of that job.
#[test]
fn the_reports_list_by_job_holds_each_job_whole_in_one_file() {
    let out = tmpdir("byjob");
    import(&out, &ALL);
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let root = &data.root;
    let read = |rel: &str| -> model::ReportPage { serde_json::from_slice(&json_at(&out, rel)).unwrap() };
    let all: Vec<model::ReportSummary> = root.pages.iter().flat_map(|p| read(p).reports).collect();
    assert_eq!(all.len(), root.totals.reports);
    let n = root.by_job.len();
    assert!(n.is_power_of_two() && n >= root.totals.reports / model::BY_JOB, "{n} files");
    let mut seen = 0;
    for r in all.iter().filter(|r| r.job_key().is_some()) {
        let key = r.job_key().unwrap();
        let file = root.by_job_file(&key).expect("the job's file");
        let there = read(file).reports;
        assert_eq!(there.iter().filter(|x| x.id == r.id).count(), 1, "{} once in {file}", r.id);
        let same = |x: &model::ReportSummary| x.job_key().as_deref() == Some(key.as_str());
        assert_eq!(there.iter().filter(|x| same(x)).count(), all.iter().filter(|x| same(x)).count(), "{key}");
        seen += 1;
    }
    assert!(seen > 40, "{seen} reports with a job");
    let in_files: usize = root.by_job.iter().filter(|f| !f.is_empty()).map(|f| read(f).reports.len()).sum();
    assert_eq!(in_files, seen, "no report twice, none without a job");
    // a report moved to another job's file is named by `lkpx check`
    let (from, to) = {
        let full: Vec<usize> = (0..n).filter(|&b| !root.by_job[b].is_empty()).collect();
        (full[0], full[1])
    };
    let mut moved = read(&root.by_job[from]);
    moved.reports.extend(read(&root.by_job[to]).reports.into_iter().take(1));
    put_json(&out, &root.by_job[from], &serde_json::to_vec(&moved).unwrap());
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&root.by_job[from]), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn check_names_a_broken_or_missing_file() {
    let out = tmpdir("check");
    import(&out, &["fixtures/seeds"]);
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let chunk = data.assembled.parts.values().next().unwrap().chunks[0].clone();
    let mut bytes = json_at(&out, &chunk);
    // the first series' mean column: after `[job,"metric",[commits],`
    let series = bytes.windows(11).position(|w| w == b"\"series\":[[").unwrap() + 11;
    let mean = series + bytes[series..].windows(3).position(|w| w == b"],[").unwrap() + 3;
    let at = mean + bytes[mean..].iter().position(|b| b.is_ascii_digit()).unwrap();
    bytes[at] = if bytes[at] == b'9' { b'8' } else { b'9' };
    put_json(&out, &chunk, &bytes);
    // a page whose document is not gzip (its JSON in base64), and one that lost its document
    let doc = data.root.newest[0].page();
    let html = String::from_utf8(std::fs::read(out.join(&doc)).unwrap()).unwrap();
    let b64 = model::paths::page_doc(&html).unwrap();
    let plain = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, json_at(&out, &doc));
    std::fs::write(out.join(&doc), html.replace(b64, &plain)).unwrap();
    let bare = data.root.newest[1].page();
    let html = String::from_utf8(std::fs::read(out.join(&bare)).unwrap()).unwrap();
    let carried = format!(
        "{}{}{}",
        model::paths::PAGE_DOC_OPEN,
        model::paths::page_doc(&html).unwrap(),
        model::paths::PAGE_DOC_CLOSE
    );
    std::fs::write(out.join(&bare), html.replace(&carried, "")).unwrap();
    // the document of another report, the only one of a job: the job's compare file is made from it
    let mut only = data.index.jobs.iter().filter_map(|j| data.assembled.parts[&j.testcase].report_of(j));
    let lost = only.find_map(|r| Some(data.index.reports[r as usize].page()).filter(|d| *d != doc && *d != bare));
    let lost = lost.expect("a job one report measured, not the newest");
    std::fs::remove_file(out.join(&lost)).unwrap();
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{chunk}: fingerprint")), "{err}");
    assert!(err.contains(&format!("{doc}: not gzip-compressed")), "{err}");
    assert!(err.contains(&format!("{bare}: the page carries no report document")), "{err}");
    assert!(err.contains(&lost), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `lkpx check` names a missing shard, a summaries file that says something else, and a missing
/// index file of the search index.
#[test]
fn check_names_a_damaged_search_index_file() {
    let out = tmpdir("check-search");
    import(&out, &["fixtures/seeds"]);
    let root: model::Root = serde_json::from_slice(&std::fs::read(out.join(model::paths::INDEX)).unwrap()).unwrap();
    let index: model::search::SearchIndex = serde_json::from_slice(&json_at(&out, &root.search)).unwrap();
    let shard = index.main.shard_files().next().unwrap();
    std::fs::remove_file(out.join(&shard)).unwrap();
    let summaries = index.main.summary_files().next().unwrap();
    // a summary of another report: the file reads, but is not what the documents make
    let mut page: serde_json::Value = serde_json::from_slice(&json_at(&out, &summaries)).unwrap();
    page["reports"][0]["id"] = "0000000000000000".into();
    put_json(&out, &summaries, &serde_json::to_vec(&page).unwrap());
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&shard), "{err}");
    assert!(err.contains(&format!("{summaries}: not what the report documents make")), "{err}");
    std::fs::remove_file(out.join(&root.search)).unwrap();
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&root.search), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

/// Kill `lkpx import` at many points of its run over an existing dataset: every time, the
/// dataset left behind is whole (`lkpx check`) and is either the old one or the new one.
#[test]
fn a_killed_import_leaves_a_whole_dataset() {
    let out = tmpdir("kill");
    import(&out, &["fixtures/seeds"]);
    let old_root = std::fs::read(out.join("index.json")).unwrap();
    let full = tmpdir("kill-ref");
    import(&full, &ALL);
    let new_root = std::fs::read(full.join("index.json")).unwrap();
    let mut outcomes = BTreeMap::new();
    for delay_ms in [5u64, 20, 50, 100, 200, 400, 800, 1500] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lkpx"))
            .args(["import", "--out", out.to_str().unwrap()])
            .args(ALL)
            .current_dir(root())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
        assert_eq!(code, 0, "killed after {delay_ms} ms: {err}");
        let now = std::fs::read(out.join("index.json")).unwrap();
        let which = if now == old_root {
            "old"
        } else if now == new_root {
            "new"
        } else {
            "other"
        };
        assert_ne!(which, "other", "killed after {delay_ms} ms: a root that is neither");
        *outcomes.entry(which).or_insert(0) += 1;
        // back to the old dataset for the next round
        import(&out, &["fixtures/seeds"]);
    }
    assert!(outcomes.contains_key("old"), "some kills landed before the switch: {outcomes:?}");
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&full);
}

/// A testcase's changes page holds the top of its changes in the view's order; the view makes
/// every change from the trend chunks (`Published::changes`, as the app does); `lkpx check`
/// names a page that is not that top.
#[test]
fn a_testcases_changes_page_is_the_top_of_what_its_trend_chunks_give() {
    let out = tmpdir("pages");
    import(&out, &ALL);
    let data = importer::store::dataset::Published::open(&out).unwrap();
    let part = &data.assembled.parts["fio-basic"];
    assert_eq!(part.changes.len(), 1, "{:?}", part.changes);
    let read = |p: &str| serde_json::from_slice::<model::ChangesShard>(&json_at(&out, p)).unwrap();
    let first = part.changes(&read(&part.changes[0])).unwrap().changes;
    assert_eq!(first.len(), model::CHANGES_FIRST);
    assert!(first[0].headline, "a headline change leads");
    assert!(first.windows(2).all(|w| model::ChangeRecord::listing_order(&w[0], &w[1]).is_le()), "in the listing order");
    let all = data.changes("fio-basic").unwrap().changes;
    assert!(all.len() > 2 * model::CHANGES_FIRST, "{} changes", all.len());
    let key = |c: &model::ChangeRecord| format!("{c:?}");
    let mut rest: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for c in &all {
        *rest.entry(key(c)).or_default() += 1;
    }
    for c in &first {
        let n = rest.get_mut(&key(c)).unwrap_or_else(|| panic!("{c:?} is not a change of the trend chunks"));
        *n -= 1;
    }
    let last = first.last().unwrap();
    let before = all.iter().filter(|c| model::ChangeRecord::listing_order(c, last).is_lt());
    assert_eq!(before.count(), first.iter().filter(|c| model::ChangeRecord::listing_order(c, last).is_lt()).count());
    // a page that is not that top: written under its own name, the catalog and the root pointed at it
    let mut page = read(&part.changes[0]);
    page.changes.swap(0, 1);
    let bytes = serde_json::to_vec(&page).unwrap();
    let page_path = model::paths::changes("fio-basic", &importer::store::known::print(&page));
    put_json(&out, &page_path, &bytes);
    let root_path = out.join("index.json");
    let mut root: model::Root = serde_json::from_slice(&std::fs::read(&root_path).unwrap()).unwrap();
    let entry = root.testcases.iter_mut().find(|t| t.name == "fio-basic").unwrap();
    let mut cat: model::Index = serde_json::from_slice(&json_at(&out, &entry.catalog)).unwrap();
    cat.changes = vec![page_path.clone()];
    let bytes = serde_json::to_vec(&cat).unwrap();
    entry.catalog = model::paths::catalog("fio-basic", &model::paths::content_hash(&bytes));
    put_json(&out, &entry.catalog, &bytes);
    std::fs::write(&root_path, serde_json::to_vec(&root).unwrap()).unwrap();
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{page_path}: not the top 1024 changes")), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The daily case: the newest mail, with jobs never measured before, added `--into` a dataset.
/// Every job measured before keeps its position and so its file (jobs are numbered in the order
/// reports first measure them), and the result is the bytes of a full import.
#[test]
fn a_newer_mails_new_jobs_leave_the_other_jobs_files_alone() {
    let (mails, last, inc, full) =
        (tmpdir("daily-mails"), tmpdir("daily-last"), tmpdir("daily-inc"), tmpdir("daily-full"));
    synth(&mails, 60);
    std::fs::rename(mails.join("00060.eml"), last.join("00060.eml")).unwrap();
    import(&inc, &[mails.to_str().unwrap()]);
    let jobs = |dir: &Path| -> BTreeMap<String, String> {
        let data = importer::store::dataset::Published::open(dir).unwrap();
        data.index.jobs.iter().map(|j| (j.id.clone(), j.shard.clone())).collect()
    };
    let before = jobs(&inc);
    let said = add(&inc, &[last.to_str().unwrap()]);
    let after = jobs(&inc);
    // the files of unchanged values were kept, not serialised again
    assert!(kept(&said) > 0, "{said}");
    let new: Vec<&String> = after.keys().filter(|j| !before.contains_key(*j)).collect();
    assert!(!new.is_empty(), "the newest mail measures a new job");
    // the old jobs the newest mail does not measure: their files are the same files
    let rows = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(["rows", last.to_str().unwrap()]).output().unwrap();
    let measured: std::collections::BTreeSet<String> = String::from_utf8(rows.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| {
            let params: BTreeMap<String, String> = serde_json::from_value(v["params"].clone()).unwrap();
            model::job_id(v["testcase"].as_str().unwrap(), v["tbox_group"].as_str().unwrap(), &params)
        })
        .collect();
    let untouched: Vec<(&String, &String)> = before.iter().filter(|(j, _)| !measured.contains(*j)).collect();
    assert!(untouched.len() > 50, "{} untouched jobs", untouched.len());
    for (j, shard) in untouched {
        assert_eq!(after.get(j), Some(shard), "job {j} keeps its file");
    }
    import(&full, &[mails.to_str().unwrap(), last.to_str().unwrap()]);
    assert!(tree(&full) == tree(&inc), "the bytes of a full import");
    for d in [mails, last, inc, full] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The count of value files an import kept (named by their value's fingerprint, or unchanged by
/// an import from the published state), from its summary line.
fn kept(said: &str) -> usize {
    let (before, _) = said.split_once(" kept, ").unwrap_or_else(|| panic!("{said}"));
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

/// A value file that is there is named without being serialised again; one left empty (a torn
/// write) is written again: the result is a full import's either way.
#[test]
fn an_empty_value_file_is_written_again() {
    let (mails, last, inc, full) = (tmpdir("fp-mails"), tmpdir("fp-last"), tmpdir("fp-inc"), tmpdir("fp-full"));
    synth(&mails, 60);
    std::fs::rename(mails.join("00060.eml"), last.join("00060.eml")).unwrap();
    import(&inc, &[mails.to_str().unwrap()]);
    import(&full, &[mails.to_str().unwrap(), last.to_str().unwrap()]);
    // every other chunk and job file of a testcase the 60th mail adds to that the 59 mails' import
    // has too, emptied (the others are named by their fingerprint)
    let (before, after) = (tree(&inc), tree(&full));
    let dir = |k: &str| k.rsplit_once('/').map_or(String::new(), |(d, _)| d.to_string());
    let touched: std::collections::BTreeSet<String> =
        after.keys().filter(|k| k.starts_with(['s', 'j']) && !before.contains_key(*k)).map(|k| dir(k)).collect();
    let shared: Vec<&String> = before.keys().filter(|k| touched.contains(&dir(k)) && after.contains_key(*k)).collect();
    assert!(shared.len() >= 4, "{} value files unchanged by the 60th mail", shared.len());
    for rel in shared.iter().step_by(2) {
        std::fs::write(inc.join(rel), b"").unwrap();
    }
    let said = add(&inc, &[last.to_str().unwrap()]);
    assert!(tree(&full) == tree(&inc), "the bytes of a full import");
    let (code, err) = lkpx(&["check", inc.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(kept(&said) > 0, "{said}");
    // a job file gone: `lkpx check` names it
    let data = importer::store::dataset::Published::open(&inc).unwrap();
    let job = data.index.jobs.iter().find(|j| !j.shard.is_empty()).expect("a job two reports measure").shard.clone();
    std::fs::remove_file(inc.join(&job)).unwrap();
    let (code, err) = lkpx(&["check", inc.to_str().unwrap()]);
    assert!(code == 2 && err.contains(&job), "{err}");
    for d in [mails, last, inc, full] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A new report of one testcase, where an old report measures that testcase and another: only
/// the new report's testcase is rebuilt (the other's files depend on its own reports only, which
/// did not change), and the result is still the bytes of a full import.
#[test]
fn a_report_of_one_testcase_leaves_the_others_of_a_shared_old_report_alone() {
    let (mails, last, inc, full) = (tmpdir("span-mails"), tmpdir("span-last"), tmpdir("span-inc"), tmpdir("span-full"));
    synth(&mails, 60);
    let testcases = testcases_by_mail(&mails);
    // the newest mail of one testcase that an older mail of two testcases shares
    let (mail, tc, other) = testcases
        .iter()
        .rev()
        .filter(|(_, t)| t.len() == 1)
        .find_map(|(m, t)| {
            let tc = t.first().unwrap();
            let shared = testcases.iter().find(|(o, ts)| o < &m && ts.len() == 2 && ts.contains(tc))?;
            Some((m.clone(), tc.clone(), shared.1.iter().find(|x| *x != tc).unwrap().clone()))
        })
        .expect("a mail of one testcase that an older mail shares with another");
    std::fs::rename(mails.join(&mail), last.join(&mail)).unwrap();
    import(&inc, &[mails.to_str().unwrap()]);
    let catalog = |dir: &Path, t: &str| {
        let root: model::Root = serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
        root.testcases.iter().find(|e| e.name == t).unwrap().catalog.clone()
    };
    let (before, before_tc) = (catalog(&inc, &other), catalog(&inc, &tc));
    let said = add_timed(&inc, &last);
    // (the timings name each testcase built)
    assert!(said.contains(&format!("testcase {tc}: built")), "{said}");
    assert!(!said.contains(&format!("testcase {other}: built")), "{other} not built again: {said}");
    assert_eq!(catalog(&inc, &other), before, "{other} left alone ({mail} measures {tc} only)");
    assert_ne!(catalog(&inc, &tc), before_tc, "{tc} rebuilt");
    import(&full, &[mails.to_str().unwrap(), last.to_str().unwrap()]);
    assert!(tree(&full) == tree(&inc), "the bytes of a full import");
    for d in [mails, last, inc, full] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A mail's text (008.txt, 009.txt) names the generic script of its time (`bin/lkp run job.yaml`);
/// the same mail as sent (raw/*.eml) carries the job's own `reproduce`, which the merged report
/// takes. Added later, the generic script stays while another report names it, then goes: each
/// step is a full import's bytes (it stayed behind as a stray file before).
#[test]
fn a_script_a_merge_replaces_goes_once_no_report_names_it() {
    let (inc, full) = (tmpdir("script-inc"), tmpdir("script-full"));
    let generic = |dir: &Path| {
        tree(dir)
            .into_iter()
            .any(|(k, v)| k.starts_with("r/") && String::from_utf8_lossy(&v).contains("lkp run     job.yaml"))
    };
    let texts = ["fixtures/corpus/008.txt", "fixtures/corpus/009.txt"];
    import(&inc, &texts);
    assert!(generic(&inc), "the texts name the generic script");
    let mut steps: Vec<&str> = texts.to_vec();
    for (mail, generic_left) in [("fixtures/corpus/raw/008.eml", true), ("fixtures/corpus/raw/009.eml", false)] {
        let said = add(&inc, &[mail]);
        assert!(said.contains("1 duplicates merged"), "{said}");
        steps.push(mail);
        import(&full, &steps);
        assert_eq!(generic(&inc), generic_left, "after {mail}");
        assert!(tree(&full) == tree(&inc), "after {mail}: the bytes of a full import");
        let (code, err) = lkpx(&["check", inc.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
    }
    let _ = std::fs::remove_dir_all(&inc);
    let _ = std::fs::remove_dir_all(&full);
}

/// When the document of another report cannot be read, the scripts a merge left unnamed are kept
/// (that report may name them) with a warning, and the import goes on; `lkpx check` names the file.
#[test]
fn a_damaged_document_keeps_the_scripts_a_merge_left_unnamed() {
    let inc = tmpdir("script-damaged");
    import(&inc, &["fixtures/corpus/008.txt", "fixtures/corpus/009.txt"]);
    let docs = tree(&inc).into_iter().filter(|(k, _)| k.starts_with("m/"));
    let (of_009, _) = docs
        .into_iter()
        .find(|(k, _)| String::from_utf8_lossy(&json_at(&inc, k)).contains("\"source\":\"009.txt\""))
        .unwrap();
    std::fs::write(inc.join(&of_009), "{").unwrap();
    let said = add(&inc, &["fixtures/corpus/raw/008.eml"]);
    assert!(said.contains("warning") && said.contains(&of_009) && said.contains("are kept"), "{said}");
    let generic = tree(&inc)
        .iter()
        .any(|(k, v)| k.starts_with("r/") && String::from_utf8_lossy(v).contains("lkp run     job.yaml"));
    assert!(generic, "the generic script is kept");
    let (code, err) = lkpx(&["check", inc.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&of_009), "{err}");
    let _ = std::fs::remove_dir_all(&inc);
}

/// Every real input (the seeds, the mails' texts, the same mails as sent, a result root, and two
/// texts without their Message-ID, as a web page gives them) in a shuffled order, added in batches
/// of 1–6: the dataset is a full import's bytes at the end, and `lkpx check` passes after each step,
/// with no file left that nothing names. Copies of one report merge in any order.
#[test]
fn real_inputs_added_in_shuffled_batches_are_a_full_import() {
    let (inc, full, pages) = (tmpdir("shuffled-inc"), tmpdir("shuffled-full"), tmpdir("shuffled-pages"));
    let mut inputs: Vec<String> = vec!["fixtures/lkp-tests/result_root".into()];
    for n in ["008", "030"] {
        let text = std::fs::read_to_string(root().join(format!("fixtures/corpus/{n}.txt"))).unwrap();
        let page: String = text.lines().filter(|l| !l.starts_with("Message-ID:")).map(|l| format!("{l}\n")).collect();
        assert!(page.len() < text.len(), "{n}.txt has a Message-ID");
        let path = pages.join(format!("page{n}.txt"));
        std::fs::write(&path, page).unwrap();
        inputs.push(path.display().to_string());
    }
    for (dir, ext) in [("fixtures/seeds", "txt"), ("fixtures/corpus", "txt"), ("fixtures/corpus/raw", "eml")] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name.ends_with(ext) {
                inputs.push(format!("{dir}/{name}"));
            }
        }
    }
    inputs.sort();
    assert!(inputs.len() > 70, "{}", inputs.len());
    // a fixed shuffle (xorshift), so that a failure comes back
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    for i in (1..inputs.len()).rev() {
        let j = next(i + 1);
        inputs.swap(i, j);
    }
    let args: Vec<&str> = inputs.iter().map(String::as_str).collect();
    import(&inc, &args[..3]);
    let mut at = 3;
    while at < args.len() {
        let end = args.len().min(at + 1 + next(6));
        add(&inc, &args[at..end]);
        let (code, err) = lkpx(&["check", inc.to_str().unwrap()]);
        assert_eq!(code, 0, "after {:?}: {err}", &args[at..end]);
        assert!(!err.contains("nothing names"), "after {:?}: {err}", &args[at..end]);
        at = end;
    }
    import(&full, &args);
    let (a, b) = (tree(&full), tree(&inc));
    let differ: Vec<&String> = a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).collect();
    assert!(differ.is_empty(), "not a full import's bytes: {differ:?}");
    let _ = std::fs::remove_dir_all(&inc);
    let _ = std::fs::remove_dir_all(&full);
    let _ = std::fs::remove_dir_all(&pages);
}

/// A dataset of schema 12 or before kept each report's document in `d/`; the next import over it
/// removes them (its pages carry the documents now), and the site is whole.
#[test]
fn an_import_over_an_older_dataset_removes_its_report_documents() {
    let out = tmpdir("old-docs");
    import(&out, &["fixtures/seeds"]);
    let root: model::Root = serde_json::from_slice(&std::fs::read(out.join(model::paths::INDEX)).unwrap()).unwrap();
    let old = out.join(format!("d/{}.json.gz", root.newest[0].id));
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    std::fs::write(&old, importer::store::pack::stored(&root.newest[0])).unwrap();
    import(&out, &["fixtures/seeds"]);
    assert!(!old.exists(), "the old document went");
    assert!(tree(&out).keys().all(|k| !k.starts_with("d/")), "no d/ file is left");
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

/// Files nothing names (what an import killed before its switch leaves) are listed by `lkpx check`,
/// which still passes; the next full import removes them.
#[test]
fn check_lists_the_files_nothing_names() {
    let out = tmpdir("strays");
    import(&out, &["fixtures/seeds"]);
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("nothing names"), "{err}");
    std::fs::create_dir_all(out.join("s/none")).unwrap();
    std::fs::write(out.join("s/none/0123456789abcdef.json.gz"), "{}").unwrap();
    std::fs::write(out.join("m/.x.tmp-1"), "{").unwrap();
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 file(s)") && err.contains("nothing names"), "{err}");
    assert!(err.contains("m/.x.tmp-1") && err.contains("s/none/0123456789abcdef.json.gz"), "{err}");
    import(&out, &["fixtures/seeds"]);
    let (code, err) = lkpx(&["check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("nothing names"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `mail`'s text as a later mail of the same jobs: a new Message-ID, `date`, and a new head commit
/// (`head`, 10 hex digits, replacing the mail's own) against the same base.
fn again(mail: &str, date: &str, head: &str) -> String {
    let line = |p: &str| mail.lines().find(|l| l.starts_with(p)).unwrap().to_string();
    let old_head = line("Subject:")
        .split_whitespace()
        .find(|w| w.ends_with(':') && w.len() == 11)
        .unwrap()
        .trim_end_matches(':')
        .to_string();
    let mid = line("Message-ID:");
    mail.replace(&mid, &mid.replace("-lkp@", &format!("-{head}-lkp@")))
        .replace(&line("Date:"), &format!("Date: {date}"))
        .replace(&old_head, head)
}

/// The daily case, many days: mails added one `--into` at a time, each newer than the dataset,
/// are added to their testcases from the published state (not rebuilt from every report
/// document), and after each step the dataset is the bytes of a full import of the same mails.
/// Two mails measure jobs measured before (new points at an old base commit and a new head).
#[test]
fn mails_added_one_by_one_from_the_published_state_are_a_full_import() {
    let (mails, steps, inc, full) =
        (tmpdir("days-mails"), tmpdir("days-steps"), tmpdir("days-inc"), tmpdir("days-full"));
    synth(&mails, 72);
    let mut dirs: Vec<PathBuf> = Vec::new();
    for n in 49..=72 {
        let d = steps.join(format!("{n:02}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::rename(mails.join(format!("{n:05}.eml")), d.join(format!("{n:05}.eml"))).unwrap();
        dirs.push(d);
    }
    for (n, (of, head)) in
        [(73, (mails.join("00030.eml"), "b1e2c3d4e5")), (74, (dirs[20].join("00069.eml"), "c0ffee1234"))]
    {
        let d = steps.join(format!("{n:02}"));
        std::fs::create_dir_all(&d).unwrap();
        let text = std::fs::read_to_string(of).unwrap();
        std::fs::write(
            d.join(format!("{n:05}.eml")),
            again(&text, &format!("Wed, 1 Feb 2023 0{}:00:00 +0800", n - 70), head),
        )
        .unwrap();
        dirs.push(d);
    }
    import(&inc, &[mails.to_str().unwrap()]);
    let mut fast = 0;
    for (k, d) in dirs.iter().enumerate() {
        let said = add_timed(&inc, d);
        let from_published = said.contains("into: added from the published state");
        fast += usize::from(from_published);
        assert!(from_published || said.contains("not from the published state"), "{said}");
        if k >= dirs.len() - 2 {
            assert!(from_published, "a later mail of old jobs is added from the published state: {said}");
        }
        if k % 6 == 5 || k >= dirs.len() - 2 {
            let mut inputs = vec![mails.to_str().unwrap()];
            inputs.extend(dirs[..=k].iter().map(|d| d.to_str().unwrap()));
            let _ = std::fs::remove_dir_all(&full);
            import(&full, &inputs);
            assert!(tree(&full) == tree(&inc), "after {}: the bytes of a full import", d.display());
        }
    }
    assert!(fast >= dirs.len() / 2, "{fast} of {} steps from the published state", dirs.len());
    // one import of an older mail of one testcase (rebuilt from its documents) and a newer mail of
    // another (added to from its published state)
    let testcases = testcases_by_mail(&mails);
    let single: Vec<(&String, &String)> =
        testcases.iter().filter(|(_, t)| t.len() == 1).map(|(m, t)| (m, t.first().unwrap())).collect();
    // the newer: mail 69 again (its testcase took the fast path above, as the last step); the
    // older: the first mail of one other testcase
    let rows = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(["rows", dirs[20].to_str().unwrap()]).output().unwrap();
    let first = String::from_utf8(rows.stdout).unwrap().lines().next().unwrap().to_string();
    let new_tc = serde_json::from_str::<serde_json::Value>(&first).unwrap()["testcase"].as_str().unwrap().to_string();
    let (old_mail, old_tc) = *single.iter().find(|(_, t)| **t != new_tc).unwrap();
    let batch = steps.join("batch");
    std::fs::create_dir_all(&batch).unwrap();
    for (mail, date, head) in [
        (mails.join(old_mail), "Sun, 1 Jan 2023 00:00:00 +0800", "d00dfeed12"),
        (dirs[20].join("00069.eml"), "Fri, 3 Feb 2023 00:00:00 +0800", "beefcafe12"),
    ] {
        let text = std::fs::read_to_string(mail).unwrap();
        std::fs::write(batch.join(format!("{head}.eml")), again(&text, date, head)).unwrap();
    }
    let said = add_timed(&inc, &batch);
    assert!(said.contains(&format!("{old_tc} not from the published state: a new report is not newer")), "{said}");
    assert!(said.contains(&format!("{new_tc} added to from its published state")), "{said}");
    let mut inputs = vec![mails.to_str().unwrap()];
    inputs.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    inputs.push(batch.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&full);
    import(&full, &inputs);
    assert!(tree(&full) == tree(&inc), "after the batch: the bytes of a full import");
    // an old file the next import reads is gone (the job file of the job it adds to: the one of
    // the testcase's jobs that two reports measure, the others are made from their one report's
    // document): that testcase is rebuilt from its documents, which writes the file again, and
    // the import says so
    let row: serde_json::Value = serde_json::from_str(&first).unwrap();
    let params: BTreeMap<String, String> = serde_json::from_value(row["params"].clone()).unwrap();
    let job = model::job_id(&new_tc, row["tbox_group"].as_str().unwrap(), &params);
    let data = importer::store::dataset::Published::open(&inc).unwrap();
    let victim = data.index.jobs.iter().find(|j| j.id == job).unwrap().shard.clone();
    assert!(!victim.is_empty(), "two reports measure job {job}");
    std::fs::remove_file(inc.join(&victim)).unwrap();
    let last = steps.join("last");
    std::fs::create_dir_all(&last).unwrap();
    let text = std::fs::read_to_string(dirs[20].join("00069.eml")).unwrap();
    std::fs::write(last.join("facade1234.eml"), again(&text, "Sat, 4 Feb 2023 00:00:00 +0800", "facade1234")).unwrap();
    let said = add(&inc, &[last.to_str().unwrap()]);
    let warned = format!("lkpx: warning: {victim}: ");
    assert!(
        said.contains(&warned) && said.contains(&format!(": {new_tc} rebuilt from its report documents")),
        "{said}"
    );
    inputs.push(last.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&full);
    import(&full, &inputs);
    assert!(tree(&full) == tree(&inc), "after the lost file: the bytes of a full import");
    let (code, err) = lkpx(&["check", inc.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for d in [mails, steps, inc, full] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Every file of `dir` with its modification time.
fn mtimes(dir: &Path) -> BTreeMap<String, std::time::SystemTime> {
    each_file(dir, &|p| std::fs::metadata(p).unwrap().modified().unwrap())
}

/// Adding inputs already imported touches nothing, the root included, and says so.
#[test]
fn a_no_op_into_changes_no_file_and_says_nothing_new() {
    let out = tmpdir("no-op");
    import(&out, &["fixtures/seeds", "fixtures/corpus", "fixtures/replies"]);
    let before = mtimes(&out);
    assert!(before.len() > 300 && before.contains_key("index.json"), "{}", before.len());
    std::thread::sleep(std::time::Duration::from_millis(20));
    for again in [&["fixtures/corpus"][..], &["fixtures/seeds", "fixtures/corpus/030.txt", "fixtures/replies"]] {
        let said = add(&out, again);
        assert!(said.contains("lkpx: nothing new:") && said.contains("no file written"), "{again:?}: {said}");
        assert!(!said.contains("changed"), "{said}");
        assert_eq!(mtimes(&out), before, "{again:?}: no file written, renamed or removed");
    }
    let _ = std::fs::remove_dir_all(&out);
}
