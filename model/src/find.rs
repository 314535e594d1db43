//! The search box: what a typed query means (a Message-ID, a lore URL, a commit id prefix, or
//! words) and the reports, testcases and metrics it finds, best first. Pure, so the page and the
//! native tests and benchmark run the same ranking.

use crate::ReportSummary;

/// What the user typed, understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    Empty,
    /// A Message-ID (from `<id@host>`, `id@host` or a lore / lkml URL), without `<>`.
    MessageId(String),
    /// 7 to 40 hex digits, lower case: a commit id prefix.
    Commit(String),
    /// Lower-case words; every one must match.
    Words(Vec<String>),
}

/// Understand a query.
pub fn parse(q: &str) -> Query {
    let q = q.trim();
    if q.is_empty() {
        return Query::Empty;
    }
    if let Some(mid) = message_id_of_url(q) {
        return Query::MessageId(mid);
    }
    let bare = q.strip_prefix('<').and_then(|m| m.strip_suffix('>')).unwrap_or(q);
    // (`a:josef@toxicpanda.com` is a search prefix, not a Message-ID)
    let prefixed = bare.split_once(':').is_some_and(|(p, _)| (1..=2).contains(&p.len()) && !p.contains('@'));
    if !bare.contains(char::is_whitespace)
        && !bare.contains('/')
        && bare.contains('@')
        && !bare.starts_with('@')
        && !prefixed
    {
        return Query::MessageId(bare.to_string());
    }
    if (7..=40).contains(&q.len()) && q.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Query::Commit(q.to_ascii_lowercase());
    }
    Query::Words(q.to_lowercase().split_whitespace().map(str::to_string).collect())
}

/// The Message-ID in a lore (`https://lore.kernel.org/<list>/<id>/…`) or lkml
/// (`https://lkml.kernel.org/r/<id>`) URL, percent-decoded.
pub fn message_id_of_url(q: &str) -> Option<String> {
    let rest = q.strip_prefix("https://").or_else(|| q.strip_prefix("http://"))?;
    let (host, path) = rest.split_once('/')?;
    let mut segs = path.split('/').filter(|s| !s.is_empty());
    let raw = match host {
        "lore.kernel.org" | "lkml.kernel.org" => {
            let first = segs.next()?;
            if first.contains('@') || first.contains("%40") {
                first
            } else {
                segs.next()?
            }
        }
        _ => return None,
    };
    let mid = percent_decode(raw);
    mid.contains('@').then_some(mid)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a suggestion opens.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A report the published search index found (`search`): its permalink key, and what its
    /// suggestion says (subject; date and headline; the mail's word).
    Found {
        key: String,
        title: String,
        sub: String,
        word: String,
    },
    /// A report, by position in the searched list.
    Report(usize),
    /// A report not in the list, by Message-ID: its document is opened directly.
    Message(String),
    Testcase(String),
    /// A metric and the testcase it belongs to.
    Metric {
        testcase: String,
        metric: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub target: Target,
    pub score: u32,
}

/// Reports, testcases and metrics prepared for searching (lower-cased once).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Per report: subject, testcases, metric, machine and branch, lower case.
    hay: Vec<String>,
    mids: Vec<String>,
    commits: Vec<(String, String)>,
    testcases: Vec<(String, String)>,
    /// (lower-case metric, testcase, metric)
    metrics: Vec<(String, String, String)>,
}

impl Index {
    /// `reports` in list order (newest first: ties rank newer first); `metrics` as
    /// `(testcase, metric)`.
    pub fn new(reports: &[ReportSummary], testcases: &[String], metrics: &[(String, String)]) -> Index {
        let hay = reports
            .iter()
            .map(|r| {
                let mut h = r.subject.clone().unwrap_or_default();
                for t in r.testcases.iter().chain(&r.metric).chain(std::iter::once(&r.machine)).chain(&r.branch) {
                    h.push(' ');
                    h.push_str(t);
                }
                h.to_lowercase()
            })
            .collect();
        let lower = |s: &Option<String>| s.as_deref().unwrap_or("").to_ascii_lowercase();
        let mut ms: Vec<(String, String, String)> =
            metrics.iter().map(|(t, m)| (m.to_lowercase(), t.clone(), m.clone())).collect();
        crate::order::sort(&mut ms);
        ms.dedup();
        Index {
            hay,
            mids: reports.iter().map(|r| r.message_id.clone().unwrap_or_default()).collect(),
            commits: reports.iter().map(|r| (lower(&r.commit), lower(&r.base))).collect(),
            testcases: testcases.iter().map(|t| (t.to_lowercase(), t.clone())).collect(),
            metrics: ms,
        }
    }

    pub fn len(&self) -> usize {
        self.hay.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hay.is_empty()
    }

    /// The best `limit` hits for `q`, best first.
    pub fn search(&self, q: &str, limit: usize) -> Vec<Hit> {
        let mut hits = match parse(q) {
            Query::Empty => vec![],
            Query::MessageId(m) => self.by_message(&m),
            Query::Commit(c) => self.by_commit(&c),
            Query::Words(w) => self.by_words(&w, limit),
        };
        // stable: equal scores keep list order (newer first), then names
        crate::order::sort_by_key(&mut hits, |h| std::cmp::Reverse(h.score));
        hits.truncate(limit);
        hits
    }

    fn by_message(&self, m: &str) -> Vec<Hit> {
        match self.mids.iter().position(|x| x == m) {
            Some(i) => vec![Hit { target: Target::Report(i), score: 1000 }],
            None => vec![Hit { target: Target::Message(m.to_string()), score: 500 }],
        }
    }

    fn by_commit(&self, c: &str) -> Vec<Hit> {
        let mut out = Vec::new();
        for (i, (head, base)) in self.commits.iter().enumerate() {
            let score = if head.starts_with(c) || (c.starts_with(head.as_str()) && head.len() >= 7) {
                900
            } else if base.starts_with(c) || (c.starts_with(base.as_str()) && base.len() >= 7) {
                800
            } else {
                continue;
            };
            out.push(Hit { target: Target::Report(i), score });
        }
        out
    }

    fn by_words(&self, words: &[String], limit: usize) -> Vec<Hit> {
        let phrase = words.join(" ");
        let mut out = Vec::new();
        for (l, name) in &self.testcases {
            if let Some(score) = name_score(l, &phrase, 950, 700, 450) {
                out.push(Hit { target: Target::Testcase(name.clone()), score });
            }
        }
        let mut metric_hits = 0;
        for (l, tc, m) in &self.metrics {
            if let Some(score) = name_score(l, &phrase, 940, 650, 400) {
                metric_hits += 1;
                if metric_hits <= limit {
                    out.push(Hit { target: Target::Metric { testcase: tc.clone(), metric: m.clone() }, score });
                }
            }
        }
        for (i, h) in self.hay.iter().enumerate() {
            if words.iter().all(|w| h.contains(w.as_str())) {
                let whole = words.iter().filter(|w| has_word(h, w)).count() as u32;
                out.push(Hit { target: Target::Report(i), score: 300 + 20 * whole });
            }
        }
        out
    }
}

/// Score of a name against a phrase: exact, prefix, substring; `None` when it does not occur.
fn name_score(name: &str, phrase: &str, exact: u32, prefix: u32, inner: u32) -> Option<u32> {
    if name == phrase {
        Some(exact)
    } else if name.starts_with(phrase) {
        Some(prefix)
    } else if phrase.len() >= 3 && name.contains(phrase) {
        Some(inner)
    } else {
        None
    }
}

/// `w` occurs in `h` delimited by non-alphanumeric characters.
fn has_word(h: &str, w: &str) -> bool {
    h.match_indices(w).any(|(i, _)| {
        let before = h[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after = h[i + w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        before && after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_understood() {
        let mid = |s: &str| Query::MessageId(s.into());
        for (q, want) in [
            ("", Query::Empty),
            ("   ", Query::Empty),
            ("<202305090905.aff4e0e6-oliver.sang@intel.com>", mid("202305090905.aff4e0e6-oliver.sang@intel.com")),
            ("202305090905.aff4e0e6-oliver.sang@intel.com", mid("202305090905.aff4e0e6-oliver.sang@intel.com")),
            ("https://lore.kernel.org/all/a.b-c@intel.com/", mid("a.b-c@intel.com")),
            ("https://lore.kernel.org/oe-lkp/a%40intel.com/T/#u", mid("a@intel.com")),
            ("https://lore.kernel.org/r/x@y", mid("x@y")),
            ("https://lkml.kernel.org/r/x@y", mid("x@y")),
            ("4e159150a9", Query::Commit("4e159150a9".into())),
            ("4E159150A9A56D66", Query::Commit("4e159150a9a56d66".into())),
            ("4e15915", Query::Commit("4e15915".into())),
            ("4e1591", Query::Words(vec!["4e1591".into()])),
            ("Btrfs  regression", Query::Words(vec!["btrfs".into(), "regression".into()])),
            ("https://example.org/a@b", Query::Words(vec!["https://example.org/a@b".into()])),
            ("@home", Query::Words(vec!["@home".into()])),
        ] {
            assert_eq!(parse(q), want, "{q:?}");
        }
    }

    fn report(mid: &str, subject: &str, tc: &str, commit: &str, base: &str) -> ReportSummary {
        ReportSummary {
            id: crate::paths::report_id_of_message(mid),
            message_id: Some(mid.into()),
            subject: Some(subject.into()),
            testcases: vec![tc.into()],
            metric: Some(format!("{tc}.score")),
            commit: Some(commit.into()),
            base: Some(base.into()),
            machine: "lkp-icl-2sp1".into(),
            ..Default::default()
        }
    }

    fn sample() -> Index {
        let reports = [
            report(
                "a@x",
                "[linus:master] [btrfs] 4e159150a9: fio.write_iops -6.5% regression",
                "fio-basic",
                "4e159150a9a56d66",
                "1111111111",
            ),
            report(
                "b@x",
                "[linux-next:master] [xfs] 2edf06a50f: fsmark.files_per_sec -5.7% regression",
                "fsmark",
                "2edf06a50f5bbe66",
                "ecd788a92460eef4",
            ),
            report(
                "c@x",
                "[tip:sched/core] [sched] abcdef0123: will-it-scale.per_thread_ops 12% improvement",
                "will-it-scale",
                "abcdef0123456789",
                "2edf06a50f5bbe66",
            ),
            report(
                "d@x",
                "[linus:master] [btrfsprogs] 9999999999: fio.read_iops 3% improvement",
                "fio-basic",
                "9999999999",
                "8888888888",
            ),
        ];
        let tcs: Vec<String> = ["fio-basic", "fsmark", "will-it-scale"].map(String::from).into();
        let ms: Vec<(String, String)> = [("fio-basic", "fio.write_iops"), ("fsmark", "fsmark.files_per_sec")]
            .map(|(t, m)| (t.to_string(), m.to_string()))
            .into();
        Index::new(&reports, &tcs, &ms)
    }

    fn check(q: &str, want: &[&str]) {
        let got: Vec<String> = sample()
            .search(q, 5)
            .into_iter()
            .map(|h| match h.target {
                Target::Report(i) => format!("r{i}"),
                Target::Message(m) => format!("mid {m}"),
                Target::Testcase(t) => format!("tc {t}"),
                Target::Metric { metric, .. } => format!("m {metric}"),
                Target::Found { key, .. } => format!("found {key}"),
            })
            .collect();
        assert_eq!(got, want, "{q:?}");
    }

    #[test]
    fn ranking() {
        check("<b@x>", &["r1"]);
        check("https://lore.kernel.org/all/c@x/", &["r2"]);
        check("nobody@x", &["mid nobody@x"]);
        // a head commit before a base commit
        check("2edf06a", &["r1", "r2"]);
        check("abcdef0123456789ffff", &["r2"]);
        check("1234567", &[]);
        // words: all must match; whole words rank first; newer first among equals
        check("btrfs", &["r0", "r3"]);
        check("btrfs improvement", &["r3"]);
        check("regression", &["r0", "r1"]);
        // a testcase or metric name typed whole comes before reports naming it
        check("fsmark", &["tc fsmark", "m fsmark.files_per_sec", "r1"]);
        check("fio.write_iops", &["m fio.write_iops", "r0"]);
        check("write_iops", &["m fio.write_iops", "r0"]);
        check("fio", &["tc fio-basic", "m fio.write_iops", "r0", "r3"]);
        check("lkp-icl", &["r0", "r1", "r2", "r3"]);
        check("sched/core", &["r2"]);
        check("zzz", &[]);
        check("", &[]);
    }
}
