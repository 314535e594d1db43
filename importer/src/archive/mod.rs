//! Importing list archives (public-inbox epochs): only the commits after the position the
//! dataset remembers are read, each mail prefiltered on its raw bytes, the robot's reports
//! decoded and kept, the human replies to them turned into notes. The new positions and the
//! replies still waiting for their report form the dataset's `ArchiveState`. `inbox` reads the
//! epochs' git objects.

pub mod inbox;

use crate::archive::inbox::{Blob, Epoch};
use model::{paths, ArchivePosition, ArchiveState, Root, SCHEMA_VERSION};
use reader::doc::Document;
use reader::threads::{self, Reply};
use reader::{mail, prefilter, report};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How many messages went which way.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Counts {
    pub epochs: usize,
    /// Messages read (their bytes).
    pub read: usize,
    pub bytes: u64,
    /// Stopped by the prefilter (or a commit without a mail): never decoded.
    pub skipped: usize,
    /// Fully decoded (MIME, charset, report parser).
    pub decoded: usize,
    pub reports: usize,
    /// Replies attached as notes, and replies left waiting for their report.
    pub notes: usize,
    /// Patches that name a report (`Closes:`) or fix or revert its commit, taken as notes on it.
    pub fixes: usize,
    pub waiting: usize,
    /// Decoded and found to be neither a report nor a reply to one.
    pub other: usize,
}

/// What reading the archives gave.
pub struct Imported {
    /// Reports: new ones, and reports of the dataset that got new notes.
    pub docs: Vec<Document>,
    pub state: ArchiveState,
    pub counts: Counts,
    /// `archive: commit …: reason`.
    pub errors: Vec<String>,
    /// Notices (a history read again, and why).
    pub notices: Vec<String>,
}

/// A mail seen in the first pass that may answer a report: read again if one is found.
struct Pending {
    epoch: usize,
    commit: gix::ObjectId,
    scan: prefilter::Scan,
}

/// Read `archives` (each an epoch or a directory of epochs) from the positions of `old`;
/// `dataset` (for `--into`) is where reports already published are looked up.
pub fn read(archives: &[PathBuf], old: &ArchiveState, dataset: Option<&Path>) -> Imported {
    let mut imp = Imported {
        docs: Vec::new(),
        state: ArchiveState { schema: SCHEMA_VERSION, ..Default::default() },
        counts: Counts::default(),
        errors: Vec::new(),
        notices: Vec::new(),
    };
    let mut positions: BTreeMap<String, ArchivePosition> =
        old.archives.iter().map(|p| (p.path.clone(), p.clone())).collect();
    let mut epochs: Vec<Epoch> = Vec::new();
    let mut replies: Vec<Reply> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    for path in archives {
        for e in crate::archive::inbox::epochs(path).unwrap_or_default() {
            match Epoch::open(&e) {
                Ok(ep) => epochs.push(ep),
                Err(msg) => imp.errors.push(msg),
            }
        }
    }
    imp.counts.epochs = epochs.len();
    for (k, ep) in epochs.iter().enumerate() {
        let key = position_key(&positions, &ep.name);
        let pos = read_epoch(k, ep, key.as_ref().and_then(|k| positions.get(k)), &mut imp, &mut replies, &mut pending);
        if let Some(p) = pos {
            if let Some(k) = key.filter(|k| *k != p.path) {
                positions.remove(&k);
            }
            positions.insert(p.path.clone(), p);
        }
    }
    resolve_pending(&epochs, pending, dataset, &mut imp, &mut replies);
    replies.extend(old.waiting.iter().map(|w| Reply {
        source: String::new(),
        refs: w.refs.clone(),
        note: w.note.clone(),
        keep: true,
        rows: vec![],
    }));
    let mut lookup = |mid: &str| dataset.and_then(|d| published_report(d, mid));
    let (notes, waiting) = threads::attach(&mut imp.docs, replies, &mut lookup);
    let waiting = threads::waiting_notes(waiting);
    imp.counts.notes = notes;
    imp.counts.waiting = waiting.len();
    imp.state.archives = positions.into_values().collect();
    imp.state.waiting = waiting;
    imp
}

/// The key of the position the dataset remembers for the epoch called `name`; a dataset of an older lkpx
/// keyed it by the path as given (`/home/…/linux-pm/git/0.git`), which ends with the name.
fn position_key(positions: &BTreeMap<String, ArchivePosition>, name: &str) -> Option<String> {
    if positions.contains_key(name) {
        return Some(name.to_string());
    }
    let tail = format!("/{name}");
    let mut old = positions.keys().filter(|k| k.trim_end_matches('/').ends_with(&tail));
    match (old.next(), old.next()) {
        (Some(k), None) => Some(k.clone()),
        _ => None,
    }
}

/// Read the new commits of one epoch; returns its new position (it advances only over commits
/// read without error).
fn read_epoch(
    k: usize,
    ep: &Epoch,
    since: Option<&ArchivePosition>,
    imp: &mut Imported,
    replies: &mut Vec<Reply>,
    pending: &mut Vec<Pending>,
) -> Option<ArchivePosition> {
    let plan = match ep.plan(since) {
        Ok(p) => p,
        Err(e) => {
            imp.errors.push(e);
            return None;
        }
    };
    if let Some(why) = &plan.reread {
        imp.notices.push(format!("{}: read again from its first commit: {why}", ep.name));
    }
    if let Some(b) = &plan.broken {
        imp.errors.push(format!("{}: {b}; the commits before it are not read", ep.name));
    }
    let mut last_ok = if plan.reread.is_some() { None } else { since.map(|s| s.last.clone()) };
    let mut clean = plan.broken.is_none();
    for &commit in &plan.commits {
        match ep.mail(commit) {
            Ok(Blob::Mail(bytes)) => {
                take_mail(k, ep, commit, bytes, imp, replies, pending);
            }
            Ok(Blob::NoMail) => imp.counts.skipped += 1,
            Err(e) => {
                imp.errors.push(format!("{}: commit {commit}: {e}", ep.name));
                clean = false;
            }
        }
        if clean {
            last_ok = Some(commit.to_string());
        }
    }
    let first = plan.first?;
    Some(ArchivePosition { path: ep.name.clone(), first, last: last_ok? })
}

/// First look at one mail; decode it only if it may be a report or quote one.
fn take_mail(
    k: usize,
    ep: &Epoch,
    commit: gix::ObjectId,
    bytes: Vec<u8>,
    imp: &mut Imported,
    replies: &mut Vec<Reply>,
    pending: &mut Vec<Pending>,
) {
    imp.counts.read += 1;
    imp.counts.bytes += bytes.len() as u64;
    let scan = prefilter::scan(&bytes);
    if scan.candidate() {
        decode(ep, commit, &bytes, &scan, imp, replies);
    } else if !scan.robot && (!scan.refs.is_empty() || !scan.names.is_empty()) {
        pending.push(Pending { epoch: k, commit, scan });
    } else {
        imp.counts.skipped += 1;
    }
}

/// Decode a candidate: a robot mail with a table is a report, a human mail a reply.
fn decode(
    ep: &Epoch,
    commit: gix::ObjectId,
    bytes: &[u8],
    scan: &prefilter::Scan,
    imp: &mut Imported,
    replies: &mut Vec<Reply>,
) {
    imp.counts.decoded += 1;
    let source = format!("{}@{commit}", ep.name);
    if let Some(h) = prefilter::non_utf8_header(bytes) {
        imp.errors.push(format!(
            "{source}: header {h} is not UTF-8 (8-bit bytes, no RFC 2047 encoding); its bad bytes are read as U+FFFD"
        ));
    }
    let msg = mail::parse_message(bytes);
    let parsed = report::parse(&source, &msg);
    match threads::role_of(scan, &parsed) {
        threads::Role::Report => {
            for e in &parsed.errors {
                imp.errors.push(format!("{source}:{}: {}", e.line, e.message));
            }
            imp.counts.reports += 1;
            imp.docs.push(parsed.doc);
        }
        threads::Role::Reply => replies.push(threads::reply(&source, scan, &msg, &parsed.doc)),
        threads::Role::Other => imp.counts.other += 1,
    }
}

/// The mails of the first pass that name a report found (now or before) or answer a report's
/// subject are decoded as replies; a patch that names a report (`Closes:`) or fixes or reverts
/// its head commit becomes a note on it (`threads::fix_reply`); the rest were ordinary traffic.
fn resolve_pending(
    epochs: &[Epoch],
    pending: Vec<Pending>,
    dataset: Option<&Path>,
    imp: &mut Imported,
    replies: &mut Vec<Reply>,
) {
    let mids: std::collections::HashSet<&str> = imp.docs.iter().filter_map(|d| d.message_id.as_deref()).collect();
    let (wanted, rest): (Vec<Pending>, Vec<Pending>) = pending.into_iter().partition(|p| {
        p.scan.report_subject
            || p.scan.refs.iter().any(|m| mids.contains(m.as_str()) || dataset.is_some_and(|d| is_published(d, m)))
    });
    let (patches, other): (Vec<Pending>, Vec<Pending>) = rest.into_iter().partition(|p| !p.scan.names.is_empty());
    imp.counts.skipped += other.len();
    for p in wanted {
        let ep = &epochs[p.epoch];
        if let Some(bytes) = mail_again(ep, p.commit, imp) {
            decode(ep, p.commit, &bytes, &p.scan, imp, replies);
        }
    }
    take_fixes(epochs, patches, dataset, imp, replies);
}

/// A mail of the first pass read again (None when its commit holds none, or an error said why).
fn mail_again(ep: &Epoch, commit: gix::ObjectId, imp: &mut Imported) -> Option<Vec<u8>> {
    match ep.mail(commit) {
        Ok(Blob::Mail(bytes)) => Some(bytes),
        Ok(Blob::NoMail) => None,
        Err(e) => {
            imp.errors.push(format!("{}: commit {commit}: {e}", ep.name));
            None
        }
    }
}

/// The patches (mails that name fixes, reverts or closed reports) that name a report read now or
/// published in `dataset`, as notes on it; the others were ordinary traffic.
fn take_fixes(
    epochs: &[Epoch],
    patches: Vec<Pending>,
    dataset: Option<&Path>,
    imp: &mut Imported,
    replies: &mut Vec<Reply>,
) {
    if patches.is_empty() {
        return;
    }
    let (known, err) = named_reports(dataset, imp.docs.iter().filter_map(threads::report_key));
    imp.errors.extend(err);
    for p in patches {
        let (targets, named) = known.find(&p.scan.names, p.scan.time);
        if targets.is_empty() {
            imp.counts.skipped += 1;
            continue;
        }
        let ep = &epochs[p.epoch];
        if let Some(bytes) = mail_again(ep, p.commit, imp) {
            imp.counts.decoded += 1;
            imp.counts.fixes += 1;
            let msg = mail::parse_message(&bytes);
            replies.push(threads::fix_reply(&format!("{}@{}", ep.name, p.commit), &msg, &named, targets));
        }
    }
}

/// The reports a patch may name: those `dataset` lists and those of `keys` (`threads::report_key`
/// of the reports read); and why the dataset's could not be read, if so.
pub fn named_reports(
    dataset: Option<&Path>,
    keys: impl Iterator<Item = threads::ReportKey>,
) -> (threads::NamedReports, Option<String>) {
    let mut known = threads::NamedReports::default();
    let err = match dataset.map(published_keys) {
        Some(Ok(k)) => {
            k.into_iter().for_each(|k| known.add(k));
            None
        }
        Some(Err(e)) => Some(format!("the dataset's reports, for the patches that name them: {e}")),
        None => None,
    };
    keys.for_each(|k| known.add(k));
    (known, err)
}

/// The Message-ID and head commit of every report the dataset lists.
fn published_keys(dir: &Path) -> Result<Vec<threads::ReportKey>, String> {
    let root: Root = crate::store::dataset::read(dir, paths::INDEX)?;
    let mut all = root.newest.clone();
    for p in &root.pages {
        all.extend(crate::store::dataset::read::<model::ReportPage>(dir, p)?.reports);
    }
    Ok(all.into_iter().filter_map(|r| Some((r.message_id?, r.commit, r.time))).collect())
}

/// A report with this Message-ID is in the dataset.
fn is_published(dir: &Path, mid: &str) -> bool {
    dir.join(paths::report_html(mid)).is_file()
}

/// The published report with this Message-ID, as a document.
pub fn published_report(dir: &Path, mid: &str) -> Option<Document> {
    if !is_published(dir, mid) {
        return None;
    }
    let rel = paths::report_html(mid);
    let rd: model::ReportDoc = crate::store::dataset::read(dir, &rel).ok()?;
    let script = |h: &str| std::fs::read_to_string(dir.join(paths::script(h))).ok();
    reader::docfile::from_doc(&rd, &script).ok()
}

/// The state a dataset holds (empty when none).
pub fn load_state(dir: &Path) -> Result<ArchiveState, String> {
    let root: Root = crate::store::dataset::read(dir, paths::INDEX)?;
    match &root.archives {
        Some(rel) => crate::store::dataset::read(dir, rel),
        None => Ok(ArchiveState { schema: SCHEMA_VERSION, ..Default::default() }),
    }
}

/// The state as a published file (content-hash named) and the root naming it.
pub fn with_state(root: Root, state: &ArchiveState) -> (Root, crate::store::pack::File) {
    let bytes = crate::store::pack::json(state);
    let rel = paths::archive_state(&paths::content_hash(&bytes));
    (with_state_path(root, &rel), (rel, crate::store::pack::at_rest(&bytes)))
}

/// The root naming the state file `rel`, its generation recomputed.
pub fn with_state_path(mut root: Root, rel: &str) -> Root {
    root.archives = Some(rel.to_string());
    root.generation = String::new();
    root.generation = paths::content_hash(&crate::store::pack::json(&root));
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(path: &str) -> (String, ArchivePosition) {
        (path.to_string(), ArchivePosition { path: path.to_string(), first: "a".into(), last: "b".into() })
    }

    #[test]
    fn an_epoch_finds_its_position_by_name_or_by_the_path_an_older_lkpx_kept() {
        let named: BTreeMap<_, _> = [pos("linux-pm/git/0.git"), pos("/home/u/io-uring/git/0.git")].into();
        assert_eq!(position_key(&named, "linux-pm/git/0.git").as_deref(), Some("linux-pm/git/0.git"));
        assert_eq!(position_key(&named, "io-uring/git/0.git").as_deref(), Some("/home/u/io-uring/git/0.git"));
        assert_eq!(position_key(&named, "0.git"), None, "two old paths end with it: neither is taken");
        assert_eq!(position_key(&named, "linux-mm/git/0.git"), None);
    }
}
