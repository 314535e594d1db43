//! Reading published files: the data directory (relative to the page), and parsing JSON with
//! the schema version checked. Every error names the file, so a broken shard is found at once.

use serde::de::DeserializeOwned;

/// Directory of the published data, relative to the page (so any `--public-url` works).
pub const DATA_DIR: &str = "data/";

/// Published JSON files carry the schema version (the page refuses any other) and the
/// generation of the data build (a shard must belong to the index the page loaded); shards hold
/// positions into the index, which must be in range (a bad position would otherwise panic).
pub trait Versioned: Positions {
    fn schema(&self) -> u32;
    fn generation(&self) -> &str;
}

/// Positions into the index that a published file holds.
pub trait Positions {
    /// The first position out of range, described; `None` when all are in range.
    fn bad_position(&self, sizes: &Sizes) -> Option<String>;
    /// The index defines the generation and the sizes; shards must match them.
    fn as_index(&self) -> Option<&model::Index> {
        None
    }
}

macro_rules! versioned {
    ($($t:ty),*) => {$(
        impl Versioned for $t {
            fn schema(&self) -> u32 {
                self.schema
            }
            fn generation(&self) -> &str {
                &self.generation
            }
        }
    )*};
}

versioned!(model::Index, model::SeriesShard, model::JobShard, model::ChangesShard);

/// Lengths of the index's arrays that shards point into.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sizes {
    pub commits: usize,
    pub jobs: usize,
    pub reports: usize,
}

impl Positions for model::Index {
    fn bad_position(&self, _: &Sizes) -> Option<String> {
        let s = Sizes { commits: self.commits.len(), jobs: self.jobs.len(), reports: self.reports.len() };
        let h = self.headlines.iter().find_map(|h| {
            (h.report as usize >= s.reports
                || h.job.is_some_and(|j| j as usize >= s.jobs)
                || h.base.is_some_and(|c| c as usize >= s.commits)
                || h.head.is_some_and(|c| c as usize >= s.commits))
            .then(|| format!("headline of {} names a missing report, job or commit", h.metric))
        });
        let r = self.reports.iter().find_map(|r| {
            r.sections
                .iter()
                .any(|sec| {
                    sec.job.is_some_and(|j| j as usize >= s.jobs)
                        || sec.commits.iter().any(|&c| c as usize >= s.commits)
                })
                .then(|| format!("report {} names a missing job or commit", r.id))
        });
        h.or(r).or_else(|| {
            self.testcases.iter().find_map(|t| {
                (t.jobs.iter().any(|&j| j as usize >= s.jobs)
                    || t.metrics.iter().any(|&m| m as usize >= self.metrics.len()))
                .then(|| format!("testcase {} names a missing job or metric", t.name))
            })
        })
    }
    fn as_index(&self) -> Option<&model::Index> {
        Some(self)
    }
}

fn bad_series(series: &[model::SeriesData], s: &Sizes) -> Option<String> {
    series.iter().find_map(|sd| {
        let p = &sd.points;
        let n = p.commit.len();
        let lengths_ok = [p.mean.len(), p.stddev_pct.len(), p.runs.len(), p.report.len(), p.change.len(), p.base.len()]
            .iter()
            .all(|&l| l == n)
            && (p.fails.is_empty() || p.fails.len() == n)
            && (p.values.is_empty() || p.values.len() == n);
        let bad = sd.job as usize >= s.jobs
            || !lengths_ok
            || p.commit.iter().any(|&c| c as usize >= s.commits)
            || p.base.iter().flatten().any(|&c| c as usize >= s.commits)
            || p.report.iter().any(|&r| r as usize >= s.reports);
        bad.then(|| format!("series {} of job #{} points outside the index", sd.metric, sd.job))
    })
}

impl Positions for model::SeriesShard {
    fn bad_position(&self, s: &Sizes) -> Option<String> {
        bad_series(&self.series, s)
    }
}

impl Positions for model::JobShard {
    fn bad_position(&self, s: &Sizes) -> Option<String> {
        bad_series(&self.series, s)
    }
}

impl Positions for model::ChangesShard {
    fn bad_position(&self, s: &Sizes) -> Option<String> {
        self.changes.iter().find_map(|c| {
            (c.job as usize >= s.jobs
                || c.base as usize >= s.commits
                || c.head as usize >= s.commits
                || c.report.is_some_and(|r| r as usize >= s.reports))
            .then(|| format!("change of {} points outside the index", c.metric))
        })
    }
}

thread_local! {
    /// Generation and sizes of the index this page loaded.
    static LOADED: std::cell::RefCell<Option<(String, Sizes)>> = const { std::cell::RefCell::new(None) };
}

/// Accept `v` only if it belongs to the loaded index's data build and points inside it; loading
/// an index records its generation and sizes.
fn check_generation<T: Versioned>(v: &T) -> Result<(), String> {
    if let Some(index) = v.as_index() {
        if let Some(why) = v.bad_position(&Sizes::default()) {
            return Err(format!("malformed index: {why}"));
        }
        let sizes = Sizes { commits: index.commits.len(), jobs: index.jobs.len(), reports: index.reports.len() };
        LOADED.with(|g| *g.borrow_mut() = Some((v.generation().to_string(), sizes)));
        return Ok(());
    }
    LOADED.with(|g| match g.borrow().as_ref() {
        Some((want, _)) if want != v.generation() => Err(format!(
            "it belongs to another build of the data (generation {}, the page loaded {want}): the data was updated \
             since this page was opened — reload the page",
            v.generation()
        )),
        Some((_, sizes)) => match v.bad_position(sizes) {
            Some(why) => Err(format!("malformed shard: {why}")),
            None => Ok(()),
        },
        None => Ok(()),
    })
}

#[derive(serde::Deserialize)]
struct SchemaOnly {
    schema: u32,
}

/// Parse a published JSON file, checking its schema version. Errors name the file.
pub fn parse_json<T: DeserializeOwned + Versioned>(path: &str, text: &str) -> Result<T, String> {
    let fail = |why: String| format!("could not load {DATA_DIR}{path}: {why}");
    let schema_error = |found: u32| {
        fail(format!(
            "data schema {found}, but this page reads schema {} (rebuild the data with the matching importer)",
            model::SCHEMA_VERSION
        ))
    };
    match serde_json::from_str::<T>(text) {
        Ok(v) if v.schema() == model::SCHEMA_VERSION => match check_generation(&v) {
            Ok(()) => Ok(v),
            Err(why) => Err(fail(why)),
        },
        Ok(v) => Err(schema_error(v.schema())),
        Err(e) => match serde_json::from_str::<SchemaOnly>(text) {
            Ok(s) if s.schema != model::SCHEMA_VERSION => Err(schema_error(s.schema)),
            _ => Err(fail(format!("malformed JSON: {e}"))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{JobShard, SeriesShard};

    #[test]
    fn good_files_parse() {
        let s: SeriesShard =
            parse_json("s/a/b.json", r#"{"schema":1,"testcase":"a","metric":"m","series":[]}"#).unwrap();
        assert_eq!(s.metric, "m");
    }

    #[test]
    fn errors_name_the_file_and_the_cause() {
        let e = parse_json::<JobShard>("j/x.json", "<html>").unwrap_err();
        assert!(
            e.starts_with("could not load data/j/x.json: malformed JSON: expected value at line 1 column 1"),
            "{e}"
        );
        let e = parse_json::<JobShard>("j/x.json", r#"{"schema":1,"job":"x"}"#).unwrap_err();
        assert!(e.contains("missing field `series`"), "{e}");
        let e = parse_json::<JobShard>("j/x.json", r#"{"schema":7,"job":"x","series":[]}"#).unwrap_err();
        let expected = format!(
            "could not load data/j/x.json: data schema 7, but this page reads schema {} (rebuild the data with the matching importer)",
            model::SCHEMA_VERSION
        );
        assert_eq!(e, expected);
        // Another schema whose shape changed too: the version is what is reported.
        let e = parse_json::<JobShard>("j/x.json", r#"{"schema":2,"jobs":[]}"#).unwrap_err();
        assert!(e.contains("data schema 2"), "{e}");
    }

    #[test]
    fn shards_of_another_data_build_are_refused() {
        // (thread-local state: this test loads its own index first)
        let index = crate::catalog::tests::sample_index();
        let mut index = index;
        index.generation = "aaaa".into();
        let text = serde_json::to_string(&index).unwrap();
        parse_json::<model::Index>("index.json", &text).unwrap();
        let ok = r#"{"schema":1,"generation":"aaaa","job":"x","series":[]}"#;
        assert!(parse_json::<JobShard>("j/x.json", ok).is_ok());
        // a position outside the index is refused, not left to panic later
        let out_of_range = r#"{"schema":1,"generation":"aaaa","job":"x","series":[{"job":99,"metric":"m","points":{"commit":[0],"mean":[1.0],"stddev_pct":[null],"runs":[null],"report":[0],"change":[null],"base":[null]}}]}"#;
        let e = parse_json::<JobShard>("j/x.json", out_of_range).unwrap_err();
        assert!(e.starts_with("could not load data/j/x.json: malformed shard: series m of job #99"), "{e}");
        let ragged = r#"{"schema":1,"generation":"aaaa","job":"x","series":[{"job":0,"metric":"m","points":{"commit":[0,1],"mean":[1.0],"stddev_pct":[null],"runs":[null],"report":[0],"change":[null],"base":[null]}}]}"#;
        assert!(parse_json::<JobShard>("j/x.json", ragged).unwrap_err().contains("malformed shard"));
        let stale = r#"{"schema":1,"generation":"bbbb","job":"x","series":[]}"#;
        let e = parse_json::<JobShard>("j/x.json", stale).unwrap_err();
        assert!(e.starts_with("could not load data/j/x.json: it belongs to another build of the data"), "{e}");
        assert!(e.contains("reload the page"), "{e}");
    }
}
