//! "Bring your own mail": the page's in-browser parse (`reader::upload::read_upload`, run in a
//! Web Worker) gives, for every real mail in `fixtures/`, exactly the report documents `lkpx
//! import` published in the bundled `data/` — the same reader, not a second one.

use model::Upload;
use reader::upload::read_upload;

const PASTED: &str = Upload::PASTED;
use model::{paths, ReportDoc};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn mails() -> Vec<PathBuf> {
    let mut v = Vec::new();
    // the plain-text copies and the raw .eml files (MIME parts, attachments) as received
    for dir in ["fixtures/seeds", "fixtures/corpus", "fixtures/corpus/raw"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            let partial = dir.ends_with("raw") && p.extension().is_none_or(|x| x != "eml");
            if p.is_file() && !partial {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(v.len() >= 60, "the fixture mails are missing");
    v
}

/// Every published report document, by id: each carried by its page (`paths::page_doc`: stored
/// gzip-compressed, `paths::GZIP_MAGIC`, in base64), its rows filled from the page's.
fn published_docs() -> std::collections::BTreeMap<String, ReportDoc> {
    let mut out = std::collections::BTreeMap::new();
    for e in std::fs::read_dir(root().join("data/m")).unwrap() {
        let page = std::fs::read_to_string(e.unwrap().path().join("index.html")).unwrap();
        let bytes =
            reader::mail::decode_base64(paths::page_doc(&page).expect("a page carries its document").as_bytes());
        assert!(bytes.starts_with(&paths::GZIP_MAGIC), "stored gzip-compressed");
        let d: ReportDoc = serde_json::from_reader(flate2::read::GzDecoder::new(&bytes[..])).unwrap();
        // the rows it shows are carried by their line there (`render::carry`)
        let d = render::carry::filled(d, &render::carry::page_rows(&page)).unwrap();
        out.insert(d.id.clone(), d);
    }
    out
}

fn without_lines(s: &[model::DocSection]) -> Vec<model::DocSection> {
    let mut s = s.to_vec();
    s.iter_mut().flat_map(|s| &mut s.rows).for_each(|r| r.line = 0);
    s
}

#[test]
fn every_fixture_mail_reads_as_its_published_report_documents() {
    let published = published_docs();
    let sources: std::collections::BTreeSet<String> = published.values().map(|d| d.source.clone()).collect();
    assert!(sources.len() >= 40, "{sources:?}");
    let mut docs = 0;
    for path in mails() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let raw = std::fs::read(&path).unwrap();
        let up = read_upload(&name, raw.clone());
        assert_eq!(up.bytes, raw.len());
        assert!(up.errors.is_empty(), "{name}: {:?}", up.errors);
        for d in &up.docs {
            let want = published.get(&d.id).unwrap_or_else(|| panic!("{name}: {} is not in data/", d.id));
            // What the mail says is what was published. (The published report may also hold what
            // other copies of it added: a result root's reproduce file, replies' notes.)
            assert_eq!((&d.kind, &d.message_id, &d.url), (&want.kind, &want.message_id, &want.url), "{name}");
            assert_eq!((&d.commits, &d.headlines), (&want.commits, &want.headlines), "{name}");
            assert_eq!(d.jobs, want.jobs, "{name}");
            if want.source.ends_with(&name) {
                // this very file was published: everything it said is the same
                assert_eq!(d.sections, want.sections, "{name}");
                assert_eq!((&d.subject, &d.date, &d.from), (&want.subject, &want.date, &want.from), "{name}");
            } else {
                // another copy (a quoting reply, the same mail in another file) was published: the
                // same rows, at its own line numbers
                assert_eq!(without_lines(&d.sections), without_lines(&want.sections), "{name} vs {}", want.source);
            }
            for (mine, theirs) in [(&d.subject, &want.subject), (&d.date, &want.date), (&d.from, &want.from)] {
                assert!(mine.is_none() || mine == theirs, "{name}: {mine:?} vs {theirs:?}");
            }
            assert!(d.notes.iter().all(|n| want.notes.contains(n)), "{name}: notes");
            if let Some(h) = &d.script {
                assert!(!up.scripts[h].trim().is_empty(), "{name}: script text");
                assert!(want.script.is_some(), "{name}: a script");
            }
            docs += 1;
        }
        // a file lkpx published a report from gives at least that report
        let rel = path.strip_prefix(root()).unwrap().to_str().unwrap().to_string();
        if sources.contains(&rel) {
            assert!(!up.docs.is_empty(), "{name}: published by lkpx, but no report read here ({:?})", up.skipped);
        }
    }
    assert!(docs >= 40, "only {docs} report documents");
}

#[test]
fn commit_links_and_directions_are_lkpx_defaults() {
    let path = root().join("fixtures/corpus/028.txt");
    let up = read_upload("028.eml", std::fs::read(path).unwrap());
    let d = &up.docs[0];
    let head = d.commits.iter().find(|c| c.id.starts_with("4ae2edf12d")).expect("the head commit");
    let url = head.url.as_deref().expect("a link");
    // rows carry lkp's direction of their metric (fio.write_iops: higher is better)
    let row = d.sections.iter().flat_map(|s| &s.rows).find(|r| r.metric == "fio.write_iops").unwrap();
    assert_eq!(row.weight, 1);
    assert!(url.starts_with("https://git.kernel.org/") && url.contains(&head.id), "{url}");
}

#[test]
fn gzip_is_read_like_lkpx() {
    use std::io::Write;
    let raw = std::fs::read(root().join("fixtures/corpus/028.txt")).unwrap();
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw).unwrap();
    let gz = z.finish().unwrap();
    let up = read_upload("028.eml.gz", gz.clone());
    assert_eq!(up.bytes, gz.len());
    let plain = read_upload("028.eml", raw);
    assert_eq!(up.docs.len(), 1);
    assert_eq!((&up.docs[0].sections, &up.docs[0].commits), (&plain.docs[0].sections, &plain.docs[0].commits));
    assert_eq!(up.docs[0].source, "028.eml.gz");
}

#[test]
fn a_mail_that_is_not_a_report_gets_the_importers_reason() {
    let up = read_upload(PASTED, b"From: someone\nSubject: lunch?\n\nSee you at noon.\n".to_vec());
    assert!(up.docs.is_empty());
    assert_eq!(up.skipped.as_deref(), Some("no comparison table found"));
    let up = read_upload("x.gz", vec![0x1f, 0x8b, 8, 0, 1, 2, 3]);
    assert!(up.docs.is_empty());
    assert!(up.errors.iter().any(|e| e.starts_with("x.gz: bad gzip data")), "{:?}", up.errors);
}

#[test]
fn a_broken_row_names_the_pasted_line_and_keeps_the_rest() {
    let raw = std::fs::read_to_string(root().join("fixtures/corpus/008.txt")).unwrap();
    let good = read_upload(PASTED, raw.clone().into_bytes());
    let bad = raw.replacen("7985664 ±", "798566x4 ±", 1);
    assert_ne!(bad, raw, "the fixture line moved");
    let up = read_upload(PASTED, bad.into_bytes());
    assert!(up.errors.iter().any(|e| e.starts_with("pasted text:")), "{:?}", up.errors);
    let n = |u: &model::Upload| u.docs.iter().flat_map(|d| &d.sections).map(|s| s.rows.len()).sum::<usize>();
    assert_eq!(n(&up) + 1, n(&good));
}
