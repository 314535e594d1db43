//! `lkpx import` of a real public-inbox epoch (`fixtures/archives/pm-iouring-small.bundle`, cut from
//! two kernel lists): the robot's reports and nothing else, replies as notes, incremental runs
//! byte-identical to a full one, rewritten histories read again, and broken archives reported.
//! `git` only builds the fixture repositories; lkpx reads them with gix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const MARK: &str = "26cb4b56aebc9c5688dc6d100cc05969d635458a";
const TIP: &str = "0fb8801863d6b55901e2bc409ee35fbcbc631640";
/// The commit of report `202508251419.d8117ed7-lkp@intel.com` (4th after the mark) and its parent.
const REPORT_2645: &str = "0483facd76fd0a6c32925e0deecf9c5ec58f86bc";

const REPORTS: [&str; 10] = [
    "20200326083355.GO11705@shao2-debian",
    "202410072214.11d18a3c-oliver.sang@intel.com",
    "202412271132.a09c3500-lkp@intel.com",
    "202503102146.28d80a16-lkp@intel.com",
    "202504241314.fe89a536-lkp@intel.com",
    "202506042113.498dd81a-lkp@intel.com",
    "202506121643.6753f7b8-lkp@intel.com",
    "202507010550.2d6f83ea-lkp@intel.com",
    "202508251419.d8117ed7-lkp@intel.com",
    "202511281432.47ac7e38-lkp@intel.com",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lkpx-archive-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).output().expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A mirror clone of the fixture epoch in `dir/name`.
fn epoch(dir: &Path, name: &str) -> PathBuf {
    let bundle = root().join("fixtures/archives/pm-iouring-small.bundle");
    git(dir, &["clone", "-q", "--mirror", bundle.to_str().unwrap(), name]);
    dir.join(name)
}

/// Run lkpx in `dir`: (exit code, stdout, stderr).
fn lkpx(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lkpx")).args(args).current_dir(dir).output().expect("run lkpx");
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, _, err) = lkpx(dir, args);
    assert_eq!(code, 0, "lkpx {args:?}: {err}");
    err
}

/// `lkpx reports`: Message-ID → the report's JSON object.
fn reports(dir: &Path, data: &str) -> BTreeMap<String, serde_json::Value> {
    let (code, out, err) = lkpx(dir, &["reports", data]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["message_id"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, d: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.insert(p.strip_prefix(base).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn state(data: &Path) -> serde_json::Value {
    let root: serde_json::Value = serde_json::from_slice(&std::fs::read(data.join("index.json")).unwrap()).unwrap();
    let rel = root["archives"].as_str().expect("the root names the archive state");
    serde_json::from_slice(&importer::store::dataset::read_json(data, rel).unwrap()).unwrap()
}

/// The notes of the published report with this Message-ID.
fn doc_notes(data: &Path, mid: &str) -> Vec<String> {
    let rel = model::paths::report_html(mid);
    let doc: model::ReportDoc =
        serde_json::from_slice(&importer::store::dataset::read_json(data, &rel).unwrap()).unwrap();
    doc.notes
}

/// A patch that closes a report is a note on it (`Closes:`, 802 in the archive); one that fixes a
/// report's head commit but was posted ten days before the report (716; also as a file, `--into`)
/// is not what came of it: said, and no note.
#[test]
fn a_patch_posted_before_the_report_is_no_note_on_it() {
    let dir = tmpdir("patch");
    epoch(&dir, "pm.git");
    let patch = root().join("fixtures/patches/io_uring-rw-free_iovec-fixes-8cf0c459993e.eml");
    let patch = patch.to_str().unwrap();
    ok(&dir, &["import", "--out", "inc", "pm.git"]);
    let mid = "202412271132.a09c3500-lkp@intel.com";
    let before = doc_notes(&dir.join("inc"), mid);
    assert!(before[0].contains("Fix posted: [PATCH] io_uring/rw: always clear ->bytes_done"), "{before:?}");
    assert!(!before.iter().any(|n| n.contains("Fixes: 8cf0c459993e")), "{before:?}");
    let err = ok(&dir, &["import", "--into", "inc", patch]);
    assert!(err.contains("a patch that is dated before the reports it names: not what came of them"), "{err}");
    assert_eq!(doc_notes(&dir.join("inc"), mid), before);
    let (_, _, err) = lkpx(&dir, &["import", "--out", "alone", patch]);
    assert!(err.contains("a patch that names no report among the inputs or the dataset"), "{err}");
}

#[test]
fn an_epoch_gives_the_robot_reports_and_their_replies_as_notes() {
    let dir = tmpdir("full");
    epoch(&dir, "pm.git");
    let err = ok(&dir, &["import", "--out", "data", "pm.git"]);
    assert!(err.contains("178 messages"), "{err}");
    assert!(
        err.contains("10 reports, 9 replies and 1 patches that name a report attached as notes, 5 waiting"),
        "{err}"
    );
    let got = reports(&dir, "data");
    assert_eq!(got.keys().map(String::as_str).collect::<Vec<_>>(), REPORTS);
    // replies add notes, never rows or reports of their own
    let notes: BTreeMap<&str, u64> = got.iter().map(|(k, v)| (k.as_str(), v["notes"].as_u64().unwrap())).collect();
    assert_eq!(notes["202410072214.11d18a3c-oliver.sang@intel.com"], 3, "509 (quoted-printable), 521, 527");
    assert_eq!(notes["202412271132.a09c3500-lkp@intel.com"], 3, "801, the operator's 832, the patch 802 closing it");
    assert_eq!(notes.values().sum::<u64>(), 10);
    let first = &doc_notes(&dir.join("data"), "202412271132.a09c3500-lkp@intel.com")[0];
    assert_eq!(
        first,
        "2024-12-27 Jens Axboe: Fix posted: [PATCH] io_uring/rw: always clear ->bytes_done on io_async_rw setup\n\
         Closes: this report\nhttps://lore.kernel.org/all/1e3d150c-8d0c-42b9-b479-0aa55f0ab86f@kernel.dk/"
    );
    let r2020 = &got["20200326083355.GO11705@shao2-debian"];
    assert_eq!(r2020["metric"], "will-it-scale.per_process_ops");
    assert!(r2020["source"].as_str().unwrap().starts_with("pm.git@"), "{r2020}");
    let r = &got["202412271132.a09c3500-lkp@intel.com"];
    assert_eq!(
        (r["tree"].as_str().unwrap(), r["branch"].as_str().unwrap()),
        ("https://git.kernel.org/cgit/linux/kernel/git/next/linux-next.git", "master")
    );
    assert_eq!((r["change"].as_f64(), r["word"].as_str()), (Some(51.1), Some("regression")));
    // the 2020 thread's human mails wait for their report (it went to other lists)
    let s = state(&dir.join("data"));
    assert_eq!(s["waiting"].as_array().unwrap().len(), 5);
    assert_eq!(s["archives"][0]["last"], TIP);
    ok(&dir, &["check", "data"]);
}

/// Regression: gix sets a delta-base cache only with its `max-performance` feature; without one
/// the non-report path ran at 15 MB/s instead of 122 (docs/benchmarks.md, "List archives").
#[test]
fn an_epoch_is_read_with_a_delta_base_cache() {
    let dir = tmpdir("cache");
    let ep = importer::archive::inbox::Epoch::open(&epoch(&dir, "pm.git")).unwrap();
    assert!(ep.caches_delta_bases());
    let plan = ep.plan(None).unwrap();
    assert!(plan.commits.len() > 100, "{}", plan.commits.len());
    let mails =
        plan.commits.iter().filter(|c| matches!(ep.mail(**c), Ok(importer::archive::inbox::Blob::Mail(_)))).count();
    assert_eq!(mails, plan.commits.len(), "every commit of the fixture epoch holds a mail");
}

#[test]
fn ninety_then_ten_percent_is_byte_identical_to_one_import() {
    let dir = tmpdir("incremental");
    epoch(&dir, "pm.git");
    git(&dir.join("pm.git"), &["update-ref", "refs/heads/master", MARK]);
    let first = ok(&dir, &["import", "--out", "inc", "pm.git"]);
    assert!(first.contains("157 messages") && first.contains("8 reports, 8 replies"), "{first}");
    assert_eq!(state(&dir.join("inc"))["archives"][0]["last"], MARK);
    git(&dir.join("pm.git"), &["update-ref", "refs/heads/master", TIP]);
    let second = ok(&dir, &["import", "--into", "inc", "pm.git"]);
    assert!(second.contains("21 messages") && second.contains("2 reports, 1 replies"), "{second}");
    ok(&dir, &["import", "--out", "full", "pm.git"]);
    let (inc, full) = (tree(&dir.join("inc")), tree(&dir.join("full")));
    assert_eq!(inc.keys().collect::<Vec<_>>(), full.keys().collect::<Vec<_>>());
    for (k, v) in &full {
        assert!(inc[k] == *v, "{k} differs");
    }
    // nothing new: no message read, no file rewritten
    let before: Vec<_> = walk_mtimes(&dir.join("inc"));
    let third = ok(&dir, &["import", "--into", "inc", "pm.git"]);
    assert!(third.contains(" 0 messages") && third.contains("nothing new"), "{third}");
    assert_eq!(walk_mtimes(&dir.join("inc")), before);
}

fn walk_mtimes(d: &Path) -> Vec<(String, std::time::SystemTime)> {
    let mut out = Vec::new();
    for (k, _) in tree(d) {
        out.push((k.clone(), std::fs::metadata(d.join(&k)).unwrap().modified().unwrap()));
    }
    out
}

#[test]
fn a_rewritten_history_is_read_again() {
    let dir = tmpdir("rewritten");
    let repo = epoch(&dir, "pm.git");
    ok(&dir, &["import", "--out", "data", "pm.git"]);
    // replace the last commit by another one (same mail, another message): the position is gone
    let tree_id = git(&repo, &["rev-parse", &format!("{TIP}^{{tree}}")]);
    let new = git(&repo, &["commit-tree", tree_id.trim(), "-p", &format!("{TIP}^"), "-m", "rewritten"]);
    git(&repo, &["update-ref", "refs/heads/master", new.trim()]);
    let err = ok(&dir, &["import", "--into", "data", "pm.git"]);
    assert!(err.contains("pm.git: read again from its first commit") && err.contains("rewritten"), "{err}");
    assert!(err.contains("178 messages"), "{err}");
    assert_eq!(state(&dir.join("data"))["archives"][0]["last"], new.trim());
    assert_eq!(reports(&dir, "data").len(), 10);
    ok(&dir, &["import", "--out", "full", "pm.git"]);
    assert!(tree(&dir.join("data")) == tree(&dir.join("full")), "a re-read equals a full import");
}

/// A copy of the epoch with every object loose (so one object can be damaged).
fn loose_epoch(dir: &Path) -> PathBuf {
    let packed = epoch(dir, "packed.git");
    git(dir, &["init", "-q", "--bare", "loose.git"]);
    let loose = dir.join("loose.git");
    let pack = std::fs::read_dir(packed.join("objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .unwrap();
    let out = Command::new("git")
        .args(["unpack-objects", "-q"])
        .current_dir(&loose)
        .stdin(std::fs::File::open(pack).unwrap())
        .status()
        .unwrap();
    assert!(out.success());
    git(&loose, &["update-ref", "refs/heads/master", TIP]);
    loose
}

#[test]
fn a_corrupt_object_is_an_error_naming_archive_and_commit_and_the_rest_is_read() {
    let dir = tmpdir("corrupt");
    let repo = loose_epoch(&dir);
    let blob = git(&repo, &["rev-parse", &format!("{REPORT_2645}:m")]);
    let blob = blob.trim();
    let path = repo.join("objects").join(&blob[..2]).join(&blob[2..]);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).unwrap();
    std::fs::write(&path, b"this is not a zlib stream").unwrap();
    let (code, _, err) = lkpx(&dir, &["import", "--out", "data", "loose.git"]);
    assert_eq!(code, 2, "{err}");
    let line = err.lines().find(|l| l.starts_with("error:")).expect("an error line");
    assert!(line.contains(&format!("loose.git: commit {REPORT_2645}:")) && line.contains(blob), "{line}");
    assert_eq!(err.lines().filter(|l| l.starts_with("error:")).count(), 1, "{err}");
    // the other 9 reports, including the one after the damaged commit, are imported
    let got = reports(&dir, "data");
    assert_eq!(got.len(), 9);
    assert!(!got.contains_key("202508251419.d8117ed7-lkp@intel.com"));
    assert!(got.contains_key("202511281432.47ac7e38-lkp@intel.com"));
    // the position stops before the damaged commit: the next run tries it again
    let parent = git(&repo, &["rev-parse", &format!("{REPORT_2645}^")]);
    assert_eq!(state(&dir.join("data"))["archives"][0]["last"], parent.trim());
}

#[test]
fn a_truncated_pack_is_an_error_naming_the_archive_and_exit_2() {
    let dir = tmpdir("truncated");
    let repo = epoch(&dir, "pm.git");
    let pack = std::fs::read_dir(repo.join("objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .unwrap();
    let bytes = std::fs::read(&pack).unwrap();
    let mut perms = std::fs::metadata(&pack).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&pack, perms).unwrap();
    std::fs::write(&pack, &bytes[..bytes.len() * 3 / 4]).unwrap();
    let seed = root().join("fixtures/seeds/002_e53dde8fe48f6a79.txt");
    let (code, _, err) = lkpx(&dir, &["import", "--out", "data", "pm.git", seed.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert!(!errors.is_empty() && errors.iter().all(|l| l.starts_with("error: pm.git")), "{err}");
    // the other input is still imported
    let (_, out, _) = lkpx(&dir, &["reports", "data"]);
    assert!(out.contains("002_e53dde8fe48f6a79.txt"), "{out}");
}

#[test]
fn an_8bit_header_is_an_error_naming_the_commit_and_the_mail_is_still_read() {
    let dir = tmpdir("8bit");
    let src = epoch(&dir, "pm.git");
    let mail =
        Command::new("git").args(["cat-file", "blob", &format!("{REPORT_2645}:m")]).current_dir(&src).output().unwrap();
    let mut bytes = mail.stdout;
    // the real report with its Subject spelt in raw Latin-1 (`±` as the single byte 0xB1)
    let at = bytes.windows(9).position(|w| w == b"Subject: ").unwrap() + 9;
    bytes.insert(at, 0xB1);
    git(&dir, &["init", "-q", "--bare", "8bit.git"]);
    let repo = dir.join("8bit.git");
    let mut stream = format!("blob\nmark :1\ndata {}\n", bytes.len()).into_bytes();
    stream.extend(&bytes);
    stream.extend(b"\ncommit refs/heads/master\ncommitter list <list@example.org> 1756105892 +0800\ndata 5\nmail\nM 100644 :1 m\n\n");
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&repo)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&stream).unwrap();
    assert!(child.wait().unwrap().success());
    let commit = git(&repo, &["rev-parse", "master"]);
    let (code, _, err) = lkpx(&dir, &["import", "--out", "data", "8bit.git"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("error: 8bit.git@{}: header Subject is not UTF-8", commit.trim())), "{err}");
    assert_eq!(reports(&dir, "data").len(), 1);
}

#[test]
fn the_same_report_from_two_lists_is_one_report() {
    let dir = tmpdir("twolists");
    epoch(&dir, "a.git");
    epoch(&dir, "b.git");
    let err = ok(&dir, &["import", "--out", "data", "a.git", "b.git"]);
    assert!(err.contains("2 archive epoch(s): 356 messages"), "{err}");
    let got = reports(&dir, "data");
    assert_eq!(got.len(), 10);
    // each reply's (and patch's) note once, although both lists carry it
    assert_eq!(got.values().map(|v| v["notes"].as_u64().unwrap()).sum::<u64>(), 10);
    assert_eq!(state(&dir.join("data"))["archives"].as_array().unwrap().len(), 2);
}

#[test]
fn a_directory_of_epochs_is_one_archive_read_in_epoch_order() {
    let dir = tmpdir("epochs");
    std::fs::create_dir_all(dir.join("pm/git")).unwrap();
    epoch(&dir.join("pm/git"), "0.git");
    let err = ok(&dir, &["import", "--out", "data", "pm"]);
    assert!(err.contains("1 archive epoch(s): 178 messages"), "{err}");
    assert_eq!(state(&dir.join("data"))["archives"][0]["path"], "pm/git/0.git");
}

/// The mails at these positions (1-based) of the fixture epoch as one mboxrd, as `b4 mbox` writes it.
fn thread_mbox(dir: &Path, positions: &[usize]) -> Vec<u8> {
    let repo = epoch(dir, "src.git");
    let revs: Vec<String> = git(&repo, &["rev-list", "--reverse", "master"]).lines().map(str::to_string).collect();
    let mut mbox = Vec::new();
    for &p in positions {
        let out = Command::new("git")
            .args(["cat-file", "blob", &format!("{}:m", revs[p - 1])])
            .current_dir(&repo)
            .output()
            .unwrap();
        mbox.extend_from_slice(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n");
        for line in out.stdout.split_inclusive(|&b| b == b'\n') {
            if line.iter().skip_while(|&&b| b == b'>').take(5).eq(b"From ".iter()) {
                mbox.push(b'>');
            }
            mbox.extend_from_slice(line);
        }
        mbox.push(b'\n');
    }
    mbox
}

#[test]
fn a_b4_thread_mbox_and_a_lore_t_mbox_gz_give_the_report_with_its_replies_as_notes() {
    use std::io::Write;
    let dir = tmpdir("b4");
    // report 202410072214.11d18a3c (position 32), replies 509, 521, 527 (33, 35, 36) and an unrelated patch (34)
    let mbox = thread_mbox(&dir, &[32, 33, 34, 35, 36]);
    std::fs::write(dir.join("thread.mbox"), &mbox).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&mbox).unwrap();
    std::fs::create_dir_all(dir.join("lore")).unwrap();
    std::fs::write(dir.join("lore/t.mbox.gz"), gz.finish().unwrap()).unwrap();
    for input in ["thread.mbox", "lore/t.mbox.gz"] {
        let data = format!("data-{}", input.replace('/', "-"));
        ok(&dir, &["import", "--out", &data, input]);
        let got = reports(&dir, &data);
        assert_eq!(got.keys().collect::<Vec<_>>(), ["202410072214.11d18a3c-oliver.sang@intel.com"], "{input}");
        let r = &got["202410072214.11d18a3c-oliver.sang@intel.com"];
        assert_eq!(r["notes"], 3, "{input}: {r}");
        // a file given as an argument is named by its own name (no directories of the importing machine)
        assert_eq!(r["source"], format!("{}#1", input.rsplit('/').next().unwrap()));
    }
}

/// Inputs given by absolute paths (mails, a result root, an epoch in lore's `<list>/git/N.git`
/// layout): no published file holds the importing machine's directories; sources are relative to
/// the argument they were found under, an epoch named from its list; `--into` from the same
/// inputs is the full import's bytes.
#[test]
fn absolute_inputs_publish_no_local_path() {
    let dir = tmpdir("abs");
    let git_dir = dir.join("lists/linux-pm/git");
    std::fs::create_dir_all(&git_dir).unwrap();
    let ep = epoch(&git_dir, "0.git");
    let (corpus, rr) = (root().join("fixtures/corpus"), root().join("fixtures/lkp-tests/result_root"));
    let (full, inc) = (dir.join("full"), dir.join("inc"));
    let inputs = [corpus.to_str().unwrap(), rr.to_str().unwrap(), ep.to_str().unwrap()];
    let mut args = vec!["import", "--out", full.to_str().unwrap()];
    args.extend(inputs);
    ok(&dir, &args);
    ok(&dir, &["import", "--out", inc.to_str().unwrap(), inputs[1]]);
    let mut args = vec!["import", "--into", inc.to_str().unwrap()];
    args.extend(inputs);
    ok(&dir, &args);
    let (a, b) = (tree(&full), tree(&inc));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    assert!(a == b, "--into is the full import's bytes");
    let here = [root().display().to_string(), dir.display().to_string()];
    let leaks: Vec<&String> = a
        .iter()
        .filter(|(k, v)| {
            let text = importer::store::dataset::unpacked(k, v.to_vec()).unwrap();
            // a report's page: its markup and the document it carries
            let seen = |b: &[u8]| here.iter().any(|h| String::from_utf8_lossy(b).contains(h.as_str()));
            seen(&text) || seen(v)
        })
        .map(|(k, _)| k)
        .collect();
    assert!(leaks.is_empty(), "files holding a local path: {leaks:?}");
    let docs: Vec<String> = a
        .iter()
        .filter(|(k, _)| k.starts_with("m/"))
        .map(|(k, v)| importer::store::dataset::unpacked(k, v.clone()).unwrap())
        .map(|v| serde_json::from_slice::<serde_json::Value>(&v).unwrap()["source"].as_str().unwrap().to_string())
        .collect();
    assert!(docs.iter().any(|s| s == "030.txt" || s == "raw/030.eml"), "{docs:?}");
    assert!(docs.iter().any(|s| s.starts_with("linux-pm/git/0.git@")), "{docs:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
