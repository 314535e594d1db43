//! A report held as its published document's stored bytes (gzip JSON: about a twentieth of the
//! parsed `Document`) from the moment its file is read until its page is written (the page
//! carries them: `model::paths::page_doc`); once its page is written, as that file alone
//! (`Held::written`), read back from it when its testcase is built.
//! A full import holds its reports so, and parses them back one testcase at a time: its memory
//! grows with the largest testcase, not with its input.

use crate::build::options::Options;
use crate::store::pack;
use crate::store::File;
use model::{ReportDoc, ReportSummary};
use reader::doc::Document;
use reader::threads::ReportKey;

/// One report, held stored, with what the import asks of every report before it needs the whole.
pub struct Held {
    /// `reader::links::report_key`: the copies of one report share it (`dedup`).
    pub key: String,
    pub source: String,
    /// The report's date (unix seconds).
    pub time: Option<i64>,
    pub message_id: Option<String>,
    /// Message-ID, head commit and date, as a patch's `NamedReports` finds it.
    pub named: Option<ReportKey>,
    /// The testcases its usable rows measure (`build::testcases_of`), and its rows.
    pub testcases: Vec<String>,
    pub rows: usize,
    /// Its rows' keys as a reply quoting them names them (`reader::threads::row_keys`).
    pub row_keys: Vec<u64>,
    /// Its reproduce script: hash and text.
    pub script: Option<(String, String)>,
    pub summary: ReportSummary,
    /// The file that carries the report document (its page) and the document's stored bytes (none
    /// once `written`).
    pub file: File,
    /// Where its file was written (`written`): the bytes are read back from there.
    at: Option<std::path::PathBuf>,
    /// The document and its report document themselves, for the rare report with a number JSON
    /// cannot hold (`+Inf%`, a NaN run value: `serde_json` writes them `null`), which would not
    /// read back as it was.
    exact: Option<Box<(Document, ReportDoc)>>,
}

impl Held {
    /// `d` held: its report document made (`reader::docfile::to_doc`, as `build::docs`), its notes
    /// in date order (as `build::dedup` leaves every report), and stored.
    pub fn of(d: &Document, opts: &Options) -> Held {
        let mut scripts = std::collections::BTreeMap::new();
        let mut rd = reader::docfile::to_doc(d, &mut scripts, &opts.doc());
        reader::threads::sort_notes(&mut rd.notes);
        let exact = (!all_finite(d)).then(|| {
            let mut d = d.clone();
            d.notes.clone_from(&rd.notes);
            Box::new((d, rd.clone()))
        });
        let mut file = pack::report_doc(&rd);
        let mut row_keys = reader::threads::row_keys(d);
        // held until the end of the import: no room left over (gzip's buffer is a guess)
        file.1.shrink_to_fit();
        row_keys.shrink_to_fit();
        Held {
            key: reader::links::report_key(d),
            source: d.source.clone(),
            time: d.date.as_deref().and_then(model::date::parse_date),
            message_id: d.message_id.clone(),
            named: reader::threads::report_key(d),
            testcases: crate::build::testcases_of(d).into_iter().collect(),
            rows: crate::build::dedup::row_count(d),
            row_keys,
            script: scripts.into_iter().next(),
            summary: ReportSummary::listed(&rd),
            file,
            at: None,
            exact,
        }
    }

    /// Its page was written under `dir` (`publish::Publisher::write`): its bytes are let go and
    /// read back from there when the report is (the import's memory does not hold every report).
    pub fn written(&mut self, dir: &std::path::Path) {
        self.at = Some(dir.join(&self.file.0));
        self.file.1 = Vec::new();
    }

    /// The report document, read back from its stored bytes.
    pub fn report(&self) -> ReportDoc {
        if let Some(e) = &self.exact {
            return e.1.clone();
        }
        if let Some(path) = &self.at {
            let page = std::fs::read(path).unwrap_or_else(|e| panic!("{}: the import's own file: {e}", path.display()));
            let got = crate::store::dataset::page_doc(&self.file.0, &page);
            return got.unwrap_or_else(|e| panic!("the import's own page: {e}")).0;
        }
        let json = crate::store::dataset::inflated(&self.file.0, &self.file.1);
        let json = json.expect("a held report's stored bytes are gzip");
        serde_json::from_slice(&json).expect("a held report document reads back")
    }

    /// The document, read back (`reader::docfile::from_doc`: exact for everything the build reads).
    pub fn document(&self) -> Document {
        self.document_of(&self.report())
    }

    /// The document of `rd`, this report's document read back.
    fn document_of(&self, rd: &ReportDoc) -> Document {
        if let Some(e) = &self.exact {
            return e.0.clone();
        }
        let script = |h: &str| self.script.as_ref().filter(|(k, _)| k == h).map(|(_, s)| s.clone());
        reader::docfile::from_doc(rd, &script).expect("a held report document names its own script")
    }

    /// The document's part that measures `tc` (`build::split_by_testcase`'s), from `rd`, this
    /// report's document read back.
    fn part(&self, rd: &ReportDoc, tc: &str) -> Document {
        let mut d = self.document_of(rd);
        if self.testcases.len() > 1 {
            crate::build::keep_testcase(&mut d, tc);
        }
        d
    }
}

/// Every number of `d` survives JSON.
fn all_finite(d: &Document) -> bool {
    let ok = |v: &Option<f64>| v.is_none_or(f64::is_finite);
    d.headlines.iter().all(|h| ok(&h.change))
        && d.sections.iter().flat_map(|s| &s.rows).all(|r| {
            r.values.iter().all(ok)
                && r.stddev_pct.iter().all(ok)
                && r.changes.iter().all(ok)
                && r.run_values.iter().flatten().flatten().all(|x| x.is_finite())
        })
}

/// The held reports that `pick` chooses, taken out and read back as documents (in their order)
/// for `f` to change, merge or add to; the documents it leaves are held again, after the others.
pub fn revise<R>(
    held: &mut Vec<Held>,
    pick: impl Fn(&Held) -> bool,
    opts: &Options,
    f: impl FnOnce(&mut Vec<Document>) -> R,
) -> R {
    use rayon::prelude::*;
    let (picked, kept): (Vec<Held>, Vec<Held>) = std::mem::take(held).into_iter().partition(|h| pick(h));
    *held = kept;
    let mut docs: Vec<Document> = picked.par_iter().map(Held::document).collect();
    drop(picked);
    let r = f(&mut docs);
    held.par_extend(docs.par_iter().map(|d| Held::of(d, opts)));
    r
}

/// Duplicate reports merged (`build::dedup::dedup_documents`), reading back only the reports that
/// share a key, those without a Message-ID and those sharing a row with one (where its mail may
/// be). Returns how many copies were merged away.
pub fn dedup(held: &mut Vec<Held>, opts: &Options) -> usize {
    use std::collections::{HashMap, HashSet};
    let mut count: HashMap<&str, usize> = HashMap::new();
    for h in held.iter() {
        *count.entry(h.key.as_str()).or_default() += 1;
    }
    let unkeyed = |h: &Held| h.key.starts_with("content:");
    let shared: HashSet<String> = count.into_iter().filter(|(_, n)| *n > 1).map(|(k, _)| k.to_string()).collect();
    if shared.is_empty() && !held.iter().any(unkeyed) {
        return 0;
    }
    // two rows `dedup_documents` finds the same are the same as a reply quotes them, and more
    let rows: HashSet<u64> = held.iter().filter(|h| unkeyed(h)).flat_map(|h| h.row_keys.iter().copied()).collect();
    let pick = |h: &Held| shared.contains(&h.key) || unkeyed(h) || h.row_keys.iter().any(|k| rows.contains(k));
    revise(held, pick, opts, |docs| {
        let (out, dropped) = crate::build::dedup::dedup_documents(std::mem::take(docs));
        *docs = out;
        dropped
    })
}

/// Every held report's script, by hash.
pub fn scripts(held: &[Held]) -> std::collections::BTreeMap<String, String> {
    held.iter().filter_map(|h| h.script.clone()).collect()
}

/// Each testcase built from its held reports, read back when its turn comes (in time order, as
/// `held` is), handed to `each` (`build::build_testcases_loading`). `seen` gets each report's
/// document once: when the first of its testcases reads it back (a report of none, after the
/// others), so a full import parses each report back once.
pub fn build_testcases<R: Send>(
    held: &[Held],
    opts: &Options,
    seen: &(dyn Fn(&ReportDoc) + Sync),
    each: &(dyn Fn(crate::build::TestcaseData) -> R + Sync),
) -> Vec<R> {
    use rayon::prelude::*;
    let mut by_tc: std::collections::BTreeMap<&str, Vec<usize>> = std::collections::BTreeMap::new();
    for (i, h) in held.iter().enumerate() {
        for tc in &h.testcases {
            by_tc.entry(tc).or_default().push(i);
        }
    }
    let sizes = by_tc.iter().map(|(tc, v)| (tc.to_string(), v.iter().map(|&i| held[i].rows).sum())).collect();
    let load = |tc: &str| {
        let read = |h: &Held| {
            let rd = h.report();
            if h.testcases[0] == tc {
                seen(&rd);
            }
            h.part(&rd, tc)
        };
        by_tc[tc].par_iter().map(|&i| read(&held[i])).collect()
    };
    let built = crate::build::build_testcases_loading(sizes, &load, opts, each);
    held.par_iter().filter(|h| h.testcases.is_empty()).for_each(|h| seen(&h.report()));
    built
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real_mail() -> Document {
        let name = "fixtures/corpus/030.txt";
        let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/corpus/030.txt")).unwrap();
        let mut r = reader::file::FileResult::new(name.into(), text.len());
        reader::file::read_bytes(name, &text, &mut r);
        r.docs.remove(0)
    }

    fn opts_with<'a>(weight: &'a (dyn Fn(&str) -> i8 + Sync)) -> Options<'a> {
        Options { commit_url: None, git_log: vec![], weight }
    }

    /// A real report reads back as it was read; one with `+Inf%`, `-Inf%` and non-finite run values
    /// (JSON writes them `null`) too, instead of losing them or failing to read back.
    #[test]
    fn a_report_reads_back_as_it_was_read_numbers_json_cannot_hold_included() {
        let weight = reader::direction::Directions::lkp_weight;
        let opts = opts_with(&weight);
        let d = real_mail();
        assert!(d.sections[0].rows.len() > 100);
        let h = Held::of(&d, &opts);
        assert!(h.exact.is_none(), "a plain report is held as bytes only");
        assert_eq!(h.document(), d);
        let mut odd = d.clone();
        odd.sections[0].rows[0].changes = vec![Some(f64::INFINITY)];
        odd.sections[0].rows[1].changes = vec![Some(f64::NEG_INFINITY)];
        odd.sections[0].rows[2].run_values = vec![Some(vec![1.0, f64::INFINITY]), Some(vec![f64::NAN])];
        let h = Held::of(&odd, &opts);
        let back = h.document();
        assert_eq!(back.sections[0].rows[0].changes, vec![Some(f64::INFINITY)]);
        assert_eq!(back.sections[0].rows[1].changes, vec![Some(f64::NEG_INFINITY)]);
        let runs = &back.sections[0].rows[2].run_values;
        assert!(runs[0].as_ref().unwrap()[1].is_infinite() && runs[1].as_ref().unwrap()[0].is_nan());
        assert_eq!(h.report().sections[0].rows[0].changes, vec![Some(f64::INFINITY)]);
        assert_eq!(h.part(&h.report(), "x").sections.len(), back.sections.len());
    }

    /// Once its page is written, a held report keeps no bytes of it and reads back from the page:
    /// the import's memory does not hold every report's document until the end.
    #[test]
    fn a_written_report_is_read_back_from_its_page() {
        use crate::store::pages;
        let weight = reader::direction::Directions::lkp_weight;
        let opts = opts_with(&weight);
        let d = real_mail();
        let mut h = Held::of(&d, &opts);
        let dir = std::env::temp_dir().join(format!("lkpx-held-{}", std::process::id()));
        let path = dir.join(&h.file.0);
        assert!(h.file.0.starts_with("m/") && h.file.0.ends_with("/index.html"), "{}", h.file.0);
        let page_of = |h: &Held| pages::report_file(&h.report(), &[], &pages::Peers::of(&[])).1;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, page_of(&h)).unwrap();
        h.written(&dir);
        assert!(h.file.1.is_empty(), "its bytes let go");
        assert_eq!(h.document(), d, "read back from the page");
        // the page carries the rows it shows by their line there, not a second time
        let page = std::fs::read(&path).unwrap();
        let stored = crate::store::dataset::page_stored(&h.file.0, &page).unwrap();
        let carried: ReportDoc =
            serde_json::from_slice(&crate::store::dataset::inflated(&h.file.0, &stored).unwrap()).unwrap();
        let rows: Vec<&model::DocRow> = carried.sections.iter().flat_map(|s| &s.rows).collect();
        let by_line = rows.iter().filter(|r| r.at.is_some() && r.metric.is_empty()).count();
        assert!(by_line * 10 >= rows.len() * 9, "{by_line} of {} rows carried by their line", rows.len());
        let mut other = d.clone();
        other.notes = vec!["2024-02-01 B: a note".into()];
        std::fs::write(&path, page_of(&Held::of(&other, &opts))).unwrap();
        assert_eq!(h.report().notes, other.notes, "the page is what it reads");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A report's notes are in date order once held, as merging copies leaves them: a report read
    /// once publishes what it would have had it been read twice.
    #[test]
    fn a_reports_notes_are_held_in_date_order() {
        let weight = |_: &str| 0i8;
        let opts = opts_with(&weight);
        let mut d = real_mail();
        d.notes = vec!["2024-02-01 B: later".into(), "undated".into(), "2023-05-01 A: earlier".into()];
        let h = Held::of(&d, &opts);
        let want = vec!["undated".to_string(), "2023-05-01 A: earlier".into(), "2024-02-01 B: later".into()];
        assert_eq!(h.report().notes, want);
        assert_eq!(h.document().notes, want);
        let (merged, dropped) = crate::build::dedup::dedup_documents(vec![d]);
        assert_eq!((merged[0].notes.clone(), dropped), (want, 0));
    }
}
