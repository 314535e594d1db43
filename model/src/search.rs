//! Search as kernel developers search lore: the terms a report is found by (the words of its
//! subject and of its commits' titles, its sender's and recipients' names and addresses, its
//! testcases, headline metrics, machines and commit ids), a query understood with lore-like
//! prefixes, and the published index (`Root::search`): terms sharded by a hash, so that a query
//! fetches the shards of its terms and the summaries of the few reports it shows.

use crate::{paths, ReportDoc, ReportSummary};
use serde::{Deserialize, Serialize};

/// The published index (`Root::search`, a file named by its content hash), in two segments:
/// `main` holds the reports dated before `since` (or undated), `recent` those dated from it (the
/// week of the newest report: a daily import rewrites the few files of `recent`, not the many of
/// `main`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchIndex {
    pub schema: u32,
    pub main: Segment,
    #[serde(default, skip_serializing_if = "Segment::is_empty")]
    pub recent: Segment,
    /// Unix seconds: the start of the recent reports' week (`recent_since`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
    /// The capped terms (`CommonTerms`): a query looks up its other terms only, when it has any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub common: String,
}

impl SearchIndex {
    /// The summaries file of the report `key` (`joined`: the recent reports first, then the
    /// others), and its place there.
    pub fn summary_of(&self, key: u32) -> Option<(String, usize)> {
        match key.checked_sub(self.recent.reports) {
            None => self.recent.summary_of(key),
            Some(o) => self.main.summary_of(o),
        }
    }

    /// Every file the index names (shards, summaries, common terms).
    pub fn files(&self) -> impl Iterator<Item = String> + '_ {
        self.main.files().chain(self.recent.files()).chain((!self.common.is_empty()).then(|| self.common.clone()))
    }
}

/// A segment of the index: its reports (numbered newest first from 0, their ordinals), its
/// terms' ordinals in shards by the term's hash (`paths::bucket_of(term, shards)`, a power of two),
/// and its reports' summaries in order, `SUMMARIES` a file (`ReportPage`s: file `o / SUMMARIES`,
/// place `o % SUMMARIES`); all in one folder named by a hash of them all (`paths::search_segment`):
/// the root names the folder and the counts, not every file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// `q/<hash>` ("" for a segment without reports).
    pub dir: String,
    pub reports: u32,
    pub shards: u32,
    /// The shard buckets without a file (no term hashed there), ascending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_shard: Vec<u32>,
}

impl Segment {
    pub fn is_empty(&self) -> bool {
        self.dir.is_empty()
    }

    /// The shard file of `term` (None when no term of the segment hashes there).
    pub fn shard(&self, term: &str) -> Option<String> {
        let b = (!self.is_empty() && self.shards > 0).then(|| paths::bucket_of(term, self.shards))?;
        self.no_shard.binary_search(&b).is_err().then(|| paths::search_file(&self.dir, 't', b))
    }

    /// The summaries file of the report of `ordinal`, and its place there.
    pub fn summary_of(&self, ordinal: u32) -> Option<(String, usize)> {
        let s = SUMMARIES as u32;
        (ordinal < self.reports).then(|| (paths::search_file(&self.dir, 's', ordinal / s), (ordinal % s) as usize))
    }

    /// Every file of the segment: shards, then summaries.
    pub fn files(&self) -> impl Iterator<Item = String> + '_ {
        self.shard_files().chain(self.summary_files())
    }

    /// The summaries files of the segment, in order.
    pub fn summary_files(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.reports.div_ceil(SUMMARIES as u32)).map(|b| paths::search_file(&self.dir, 's', b))
    }

    /// The shard files of the segment.
    pub fn shard_files(&self) -> impl Iterator<Item = String> + '_ {
        (0..if self.is_empty() { 0 } else { self.shards })
            .filter(|b| self.no_shard.binary_search(b).is_err())
            .map(|b| paths::search_file(&self.dir, 't', b))
    }
}

/// What a search result shows and is checked against (`passes`, `rank`): a report's summary
/// without its job's machine and parameters and its reply, which the summaries files leave out.
pub fn result_summary(r: &ReportSummary) -> ReportSummary {
    ReportSummary { machine: String::new(), params: Default::default(), reply: None, names: Vec::new(), ..r.clone() }
}

/// `q/<hash>.json.gz`: the terms found in more than `POSTINGS_MAX` reports, sorted: fetched once,
/// so that a query fetches the shards of its rarer terms only (a commit's title is half common
/// words).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommonTerms {
    pub schema: u32,
    pub terms: Vec<String>,
}

/// The terms of `q` to look up: the ones not in `common` when there are any, else all.
pub fn to_look_up<'a>(q: &'a Query, common: &[String]) -> Vec<&'a str> {
    let rare: Vec<&str> = q
        .terms
        .iter()
        .map(String::as_str)
        .filter(|t| common.binary_search_by(|c| c.as_str().cmp(t)).is_err())
        .collect();
    if rare.is_empty() {
        q.terms.iter().map(String::as_str).collect()
    } else {
        rare
    }
}

/// A shard of a segment, `q/<folder>/t<bucket>.json.gz`: some terms, each with the reports it is found in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchShard {
    pub schema: u32,
    /// Sorted by term.
    pub terms: Vec<Posting>,
}

/// A term and its reports in a segment: their ordinals ascending (newest first), written as
/// gaps — the first ordinal, then each one's distance from the one before — so that a list of
/// hundreds of reports is a few bytes a report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Posting {
    pub term: String,
    pub gaps: Vec<u32>,
    /// Found in more reports than `POSTINGS_MAX`: the list holds the newest of them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
}

impl Posting {
    /// The posting of `term` over `ordinals` (ascending, distinct).
    pub fn new(term: String, ordinals: &[u32], capped: bool) -> Posting {
        let gaps = ordinals.iter().scan(0, |last, &o| Some(o - std::mem::replace(last, o))).collect();
        Posting { term, gaps, capped }
    }

    /// The ordinals, ascending.
    pub fn ordinals(&self) -> Vec<u32> {
        self.gaps
            .iter()
            .scan(0u32, |o, g| {
                *o = o.saturating_add(*g);
                Some(*o)
            })
            .collect()
    }
}

/// A term's reports in the whole index, newest first, as keys: the recent segment's ordinals,
/// then the main segment's after them (`SearchIndex::summary_of`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed {
    pub keys: Vec<u32>,
    pub capped: bool,
}

/// Where the recent segment starts: Monday 00:00 UTC of the week of the newest report dated `newest`.
pub fn recent_since(newest: i64) -> i64 {
    let day = newest.div_euclid(86_400);
    // 1970-01-01 was a Thursday: days since a Monday
    let monday = day - (day + 3).rem_euclid(7);
    monday * 86_400
}

/// A term's reports, newest first: its recent ones (of `recent_reports`), then the others.
pub fn joined(recent: Option<&Posting>, main: Option<&Posting>, recent_reports: u32) -> Option<Listed> {
    recent.or(main)?;
    let capped = recent.is_some_and(|p| p.capped) || main.is_some_and(|p| p.capped);
    let mut keys = recent.map(Posting::ordinals).unwrap_or_default();
    keys.extend(main.iter().flat_map(|p| p.ordinals()).map(|o| o.saturating_add(recent_reports)));
    Some(Listed { keys, capped })
}

/// Reports a term lists at most (the newest). A term in more (`kernel`, `regression`) narrows
/// nothing beside a rarer one, and alone finds the newest.
pub const POSTINGS_MAX: usize = 500;

/// Reports listed per shard, about: ~1.2 kB gzip (ordinals as gaps; median at 10^4 reports), so
/// that a commit's title (8 words, 8 shards) costs about 10 kB before the summaries it shows.
pub const SHARD_POSTINGS: usize = 512;

/// Reports per summaries file (~3.7 kB gzip at 10^4 reports).
pub const SUMMARIES: usize = 32;

/// Results a query shows.
pub const SHOWN: usize = 8;

/// The longest query read (a longer paste is cut, and says so).
pub const QUERY_MAX: usize = 200;

/// The most terms a query looks up.
pub const TERMS_MAX: usize = 8;

/// Words too common to find anything by.
const STOP: [&str; 16] =
    ["a", "an", "and", "as", "at", "be", "by", "for", "in", "is", "of", "on", "re", "the", "to", "with"];

/// The words of `text`: lower-case runs of ASCII letters and digits (and of anything not ASCII:
/// no Unicode tables in the page for this), 2 to 40 long, not a stop word.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| c.is_ascii() && !c.is_ascii_alphanumeric())
        .filter(|w| (2..=40).contains(&w.chars().count()))
        .map(str::to_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
}

/// The address of `Name <addr>` (or of a bare address), lower case.
pub fn address(person: &str) -> Option<String> {
    let a = match (person.rfind('<'), person.rfind('>')) {
        (Some(i), Some(j)) if i < j => &person[i + 1..j],
        _ => person,
    };
    let a = a.trim().trim_matches('"');
    (a.contains('@') && !a.contains(char::is_whitespace)).then(|| a.to_lowercase())
}

/// The terms report `d` is found by, sorted, each once: words (subject, commit titles, names,
/// testcases, headline metrics, machines), `a:<address>` (sender and recipients), `t:<testcase>`
/// and `c:<first 7 hex digits>` of each commit.
pub fn terms_of(d: &ReportDoc) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut text = |t: &str| out.extend(words(t));
    text(d.subject.as_deref().unwrap_or(""));
    for c in &d.commits {
        text(c.subject.as_deref().unwrap_or(""));
    }
    for p in d.from.iter().chain(&d.to) {
        // the name, not a bare address's parts
        text(match p.find('<') {
            Some(i) => &p[..i],
            None if p.contains('@') => "",
            None => p,
        });
    }
    for j in &d.jobs {
        text(&j.testcase);
        text(&j.machine);
    }
    for h in &d.headlines {
        text(&h.metric);
    }
    out.extend(d.from.iter().chain(&d.to).filter_map(|p| address(p)).map(|a| format!("a:{a}")));
    out.extend(d.jobs.iter().filter(|j| !j.testcase.is_empty()).map(|j| format!("t:{}", j.testcase.to_lowercase())));
    out.extend(d.commits.iter().filter_map(|c| commit_term(&c.id)));
    out.sort();
    out.dedup();
    out
}

/// `c:<first 7 hex digits>` of a commit id (None for a tag).
pub fn commit_term(id: &str) -> Option<String> {
    (id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| format!("c:{}", id[..7].to_ascii_lowercase()))
}

/// A query, understood.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// Index terms every result has (looked up in the shards).
    pub terms: Vec<String>,
    /// Words the subject must hold (`s:`).
    pub subject: Vec<String>,
    /// A quoted phrase: results whose subject holds it rank first.
    pub phrase: Option<String>,
    /// A commit id prefix (7+ hex digits): results with that head or base commit.
    pub commit: Option<String>,
    /// Unix seconds, half-open: `d:2024-01..2024-06` (to the end of June).
    pub dates: Option<(i64, i64)>,
    /// A Message-ID the query may be (also opened directly).
    pub message_id: Option<String>,
    /// What the bar says about the query (an unknown prefix, a cut paste, a bad date).
    pub hints: Vec<String>,
}

impl Query {
    /// Nothing to look up in the index.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// Understand a query: words; `s:` subject words; `a:` an address or a name (`f:` alike); `t:` a
/// testcase; `c:` (or 7 to 40 hex digits) a commit; `m:` a metric; `d:` a date range; a
/// `"quoted phrase"`; a Message-ID or a lore URL.
pub fn parse(q: &str) -> Query {
    let mut out = Query::default();
    let mut q = q.trim();
    if q.chars().count() > QUERY_MAX {
        q = &q[..q.char_indices().nth(QUERY_MAX).map_or(q.len(), |(i, _)| i)];
        out.hints.push(format!("only the first {QUERY_MAX} characters are searched"));
    }
    if let crate::find::Query::MessageId(m) = crate::find::parse(q) {
        out.message_id = Some(m.clone());
        out.terms.push(format!("a:{}", m.to_lowercase()));
        return out;
    }
    let q = phrase(q, &mut out);
    for tok in q.split_whitespace() {
        token(tok, &mut out);
    }
    out.terms.dedup();
    if out.terms.len() > TERMS_MAX {
        out.terms.truncate(TERMS_MAX);
        out.hints.push(format!("only the first {TERMS_MAX} terms are searched"));
    }
    if out.terms.is_empty() && (out.dates.is_some() || !out.hints.is_empty()) {
        out.hints.push("add a word, an address, a testcase or a commit to search by".into());
    }
    out
}

/// What the prefixes of `q` ask, in words (`a: josef@toxicpanda.com` → `a: an address or a
/// name`), for the bar; None without a known prefix.
pub fn meaning(q: &str) -> Option<String> {
    let mut said: Vec<&str> = Vec::new();
    for tok in q.split_whitespace().take(TERMS_MAX * 2) {
        let Some((p, v)) = tok.split_once(':') else { continue };
        if v.is_empty() || v.starts_with("//") {
            continue;
        }
        let m = match p.to_ascii_lowercase().as_str() {
            "s" => "s: words of the subject",
            "a" | "f" => "a: an address or a name (sender or recipient)",
            "t" => "t: a testcase",
            "c" => "c: a commit id (7+ hex digits)",
            "m" => "m: words of a headline metric",
            "d" => "d: dates (2024, 2024-01..2024-06, 2024-03-01..)",
            _ => continue,
        };
        if !said.contains(&m) {
            said.push(m);
        }
    }
    (!said.is_empty()).then(|| said.join(" · "))
}

/// Take a `"quoted phrase"` out of `q` (its words become terms); an unbalanced quote is dropped.
fn phrase(q: &str, out: &mut Query) -> String {
    let quotes = q.matches('"').count();
    if quotes == 0 {
        return q.to_string();
    }
    if quotes % 2 == 1 {
        out.hints.push("unbalanced quote: searched as words".into());
        return q.replace('"', " ");
    }
    let mut parts = q.split('"');
    let mut rest = String::new();
    while let Some(outside) = parts.next() {
        rest.push_str(outside);
        rest.push(' ');
        if let Some(inside) = parts.next() {
            let p = inside.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            if out.phrase.is_none() && !p.is_empty() {
                out.phrase = Some(p);
            }
            rest.push_str(inside);
            rest.push(' ');
        }
    }
    rest
}

fn token(tok: &str, out: &mut Query) {
    let Some((prefix, value)) = tok.split_once(':').filter(|(p, v)| !p.is_empty() && !v.is_empty() && p.len() <= 2)
    else {
        return plain(tok, out);
    };
    match prefix.to_ascii_lowercase().as_str() {
        "s" => {
            let w: Vec<String> = words(value).collect();
            out.terms.extend(w.iter().cloned());
            out.subject.extend(w);
        }
        "a" | "f" => match address(value) {
            Some(a) => out.terms.push(format!("a:{a}")),
            None => out.terms.extend(words(value)),
        },
        "t" => out.terms.push(format!("t:{}", value.to_lowercase())),
        "c" => commit(value, out),
        "m" => out.terms.extend(words(value)),
        "d" => match dates(value) {
            Some(d) => out.dates = Some(d),
            None => out.hints.push(format!("d:{value} is no date range (d:2024, d:2024-01..2024-06, d:2024-03-01..)")),
        },
        p => {
            out.hints.push(format!("{p}: is no prefix (s: subject, a: address, t: testcase, c: commit, m: metric, d: dates): searched as words"));
            out.terms.extend(words(tok));
        }
    }
}

fn plain(tok: &str, out: &mut Query) {
    if (7..=40).contains(&tok.len()) && tok.bytes().all(|b| b.is_ascii_hexdigit()) {
        return commit(tok, out);
    }
    match address(tok) {
        Some(a) => out.terms.push(format!("a:{a}")),
        None => out.terms.extend(words(tok)),
    }
}

fn commit(value: &str, out: &mut Query) {
    match commit_term(value) {
        Some(t) => {
            out.terms.push(t);
            out.commit = Some(value.to_ascii_lowercase());
        }
        None => out.hints.push(format!("c:{value}: a commit is 7 to 40 hex digits")),
    }
}

/// `2024`, `2024-01`, `2024-01-05`, or `A..B` of those (either side may be empty): unix seconds,
/// half-open, from the start of A to the end of B.
pub fn dates(v: &str) -> Option<(i64, i64)> {
    let (a, b) = v.split_once("..").unwrap_or((v, v));
    let start = if a.is_empty() { i64::MIN } else { day_range(a)?.0 };
    let end = if b.is_empty() { i64::MAX } else { day_range(b)?.1 };
    (start < end).then_some((start, end))
}

/// The first second of `2024`, `2024-01` or `2024-01-05`, and the first second after it.
fn day_range(s: &str) -> Option<(i64, i64)> {
    let p: Vec<&str> = s.split('-').collect();
    let num = |i: usize| p.get(i).map(|x| x.parse::<i64>().ok().filter(|_| x.bytes().all(|b| b.is_ascii_digit())));
    let y = num(0)??;
    if !(1990..=2200).contains(&y) || p.len() > 3 {
        return None;
    }
    let at = |y: i64, m: i64, d: i64| crate::date::days_from_civil(y, m, d) * 86_400;
    match (num(1), num(2)) {
        (None, _) => Some((at(y, 1, 1), at(y + 1, 1, 1))),
        (Some(m), None) => {
            let m = m.filter(|m| (1..=12).contains(m))?;
            Some((at(y, m, 1), if m == 12 { at(y + 1, 1, 1) } else { at(y, m + 1, 1) }))
        }
        (Some(m), Some(d)) => {
            let (m, d) = (m.filter(|m| (1..=12).contains(m))?, d.filter(|d| (1..=31).contains(d))?);
            Some((at(y, m, d), at(y, m, d) + 86_400))
        }
    }
}

/// Whether summary `r` passes what the query asks beyond its terms (subject words, commit prefix,
/// dates).
pub fn passes(q: &Query, r: &ReportSummary) -> bool {
    let subject = r.subject.as_deref().unwrap_or("").to_lowercase();
    let subject_words: Vec<String> = words(&subject).collect();
    let commit = |c: &str| {
        [r.commit.as_deref(), r.base.as_deref()].into_iter().flatten().any(|x| {
            let n = x.len().min(c.len());
            n >= 7 && x[..n].eq_ignore_ascii_case(&c[..n])
        })
    };
    q.subject.iter().all(|w| subject_words.contains(w))
        && q.commit.as_deref().is_none_or(commit)
        && q.dates.is_none_or(|(a, b)| r.time.is_some_and(|t| a <= t && t < b))
}

/// Rank: the query's commit exactly, then its phrase in the subject, then the rest; newest first
/// among equals (`results` come newest first).
pub fn rank(q: &Query, results: &mut [ReportSummary]) {
    let score = |r: &ReportSummary| {
        let exact =
            q.commit.as_deref().is_some_and(|c| r.commit.as_deref().is_some_and(|x| x.to_lowercase().starts_with(c)));
        let phrase =
            q.phrase.as_deref().is_some_and(|p| r.subject.as_deref().is_some_and(|s| s.to_lowercase().contains(p)));
        if exact {
            0
        } else if phrase {
            1
        } else {
            2
        }
    };
    results.sort_by_key(score);
}

/// The reports found in every list of `lists` (each newest first), newest first: the
/// intersection of the uncapped ones when there are any (a capped list is only the newest
/// reports of a common word), else of all.
pub fn intersect(lists: &[Listed]) -> Vec<u32> {
    let full: Vec<&Listed> = lists.iter().filter(|p| !p.capped).collect();
    let used: Vec<&Listed> = if full.is_empty() { lists.iter().collect() } else { full };
    let Some((first, rest)) = used.split_first() else { return Vec::new() };
    // every list ascending
    first.keys.iter().filter(|k| rest.iter().all(|l| l.keys.binary_search(k).is_ok())).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_found_by_its_titles_people_testcase_and_commits() {
        let d = ReportDoc {
            subject: Some("[linus:master] [btrfs]  fac2f60d5f: fsmark.files_per_sec -6.0% regression".into()),
            from: Some("kernel test robot <oliver.sang@intel.com>".into()),
            to: vec!["Josef Bacik <josef@toxicpanda.com>".into(), "linux-btrfs@vger.kernel.org".into()],
            commits: vec![crate::DocCommit {
                id: "fac2f60d5f8e51bb6d0e5c3ab4ad6e0ef6c2c3b2".into(),
                subject: Some("btrfs: switch extent buffer tree lock to rw_semaphore".into()),
                ..Default::default()
            }],
            jobs: vec![crate::DocJob {
                testcase: "fsmark".into(),
                machine: "lkp-icl-2sp6".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let t = terms_of(&d);
        for want in [
            "switch",
            "rw",
            "semaphore",
            "josef",
            "bacik",
            "a:josef@toxicpanda.com",
            "a:linux-btrfs@vger.kernel.org",
            "a:oliver.sang@intel.com",
            "t:fsmark",
            "c:fac2f60",
            "fsmark",
            "regression",
        ] {
            assert!(t.contains(&want.to_string()), "{want} in {t:?}");
        }
        assert!(!t.contains(&"the".to_string()) && !t.contains(&"to".to_string()));
        assert!(!t.contains(&"vger".to_string()), "a bare address is an address, not words");
        assert!(t.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
    }

    #[test]
    fn queries_read_as_lore_reads_them() {
        let q = parse("switch extent buffer tree lock to rw_semaphore");
        assert_eq!(q.terms, ["switch", "extent", "buffer", "tree", "lock", "rw", "semaphore"]);
        let q = parse("a:Josef@ToxicPanda.com t:fsmark d:2025-12..");
        assert_eq!(q.terms, ["a:josef@toxicpanda.com", "t:fsmark"]);
        assert_eq!(q.dates.map(|d| d.0), Some(crate::date::days_from_civil(2025, 12, 1) * 86_400));
        let q = parse("fac2f60d5f");
        assert_eq!((q.terms.as_slice(), q.commit.as_deref()), (&["c:fac2f60".to_string()][..], Some("fac2f60d5f")));
        let q = parse("\"tree lock\" s:btrfs");
        assert_eq!((q.phrase.as_deref(), q.subject.as_slice()), (Some("tree lock"), &["btrfs".to_string()][..]));
        let q = parse("https://lore.kernel.org/all/202512011234.abcd-lkp@intel.com/");
        assert_eq!(q.message_id.as_deref(), Some("202512011234.abcd-lkp@intel.com"));
        // bad input: a hint and words, never an error
        assert!(parse("x:foo bar").hints[0].starts_with("x: is no prefix"));
        assert_eq!(parse("x:foo bar").terms, ["foo", "bar"]);
        assert!(parse("\"unbalanced quote").hints[0].contains("unbalanced"));
        assert_eq!(parse("\"unbalanced quote").terms, ["unbalanced", "quote"]);
        assert!(parse("d:2024-13").hints[0].contains("no date range"));
        let long = "word ".repeat(2000);
        let q = parse(&long);
        assert!(q.terms.len() <= TERMS_MAX && q.hints.iter().any(|h| h.contains("first 200 characters")));
        assert_eq!(parse(".*(foo|bar)[a-z]+").terms, ["foo", "bar"]);
        assert!(parse("d:2024").hints.iter().any(|h| h.contains("add a word")));
        assert!(parse("   ").is_empty());
        let q = parse("a:axboe@kernel.dk");
        assert_eq!((q.terms.as_slice(), q.message_id.as_deref()), (&["a:axboe@kernel.dk".to_string()][..], None));
        assert_eq!(
            meaning("a:josef t:fsmark").as_deref(),
            Some("a: an address or a name (sender or recipient) · t: a testcase")
        );
        assert_eq!(meaning("https://lore.kernel.org/all/x@y/ words"), None);
    }

    #[test]
    fn the_recent_segment_starts_on_the_monday_of_the_newest_week() {
        let day = |y, m, d| crate::date::days_from_civil(y, m, d) * 86_400;
        // Tuesday 1 Dec 2026, 10:00 → Monday 30 Nov 2026
        assert_eq!(recent_since(day(2026, 12, 1) + 36_000), day(2026, 11, 30));
        assert_eq!(recent_since(day(2026, 11, 30)), day(2026, 11, 30), "a Monday is its own week");
        assert_eq!(recent_since(day(2026, 12, 6) + 86_399), day(2026, 11, 30), "Sunday's last second");
        let (new, old) = (Posting::new("t".into(), &[0, 3], false), Posting::new("t".into(), &[1, 4, 40], true));
        assert_eq!(new.gaps, [0, 3]);
        assert_eq!(old.gaps, [1, 3, 36]);
        assert_eq!(old.ordinals(), [1, 4, 40]);
        assert_eq!(joined(Some(&new), Some(&old), 5), Some(Listed { keys: vec![0, 3, 6, 9, 45], capped: true }));
        assert_eq!(joined(None, Some(&new), 5), Some(Listed { keys: vec![5, 8], capped: false }));
        assert_eq!(joined(None, None, 5), None);
    }

    #[test]
    fn common_terms_are_looked_up_only_alone() {
        let common = vec!["regression".to_string(), "use".to_string()];
        assert_eq!(to_look_up(&parse("use mod_node_page_state regression"), &common), ["mod", "node", "page", "state"]);
        assert_eq!(to_look_up(&parse("regression use"), &common), ["regression", "use"]);
    }

    #[test]
    fn uncapped_lists_decide_and_order_is_kept() {
        let p = |keys: &[u32], capped| Listed { keys: keys.to_vec(), capped };
        let (a, b, common) = (p(&[1, 5, 7, 9], false), p(&[1, 7], false), p(&[0], true));
        assert_eq!(intersect(&[a.clone(), b.clone()]), [1, 7]);
        assert_eq!(intersect(&[a, b, common.clone()]), [1, 7], "a capped list narrows nothing");
        assert_eq!(intersect(&[common]), [0]);
        assert!(intersect(&[]).is_empty());
    }
}
