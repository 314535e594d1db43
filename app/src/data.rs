//! Reading published files: the data directory (relative to the page), and parsing JSON with
//! the schema version checked. Every error names the file, so a broken shard is found at once.

use serde::de::DeserializeOwned;

/// Directory of the published data, relative to the page (so any `--public-url` works).
pub const DATA_DIR: &str = "data/";

/// Published JSON files carry the schema version: the page refuses any other and says so.
/// (Positions inside a file are checked when a testcase's `Part` maps them into the merged view:
/// `model::assemble`.)
pub trait Versioned {
    fn schema(&self) -> u32;
}

macro_rules! versioned {
    ($($t:ty),*) => {$(
        impl Versioned for $t {
            fn schema(&self) -> u32 {
                self.schema
            }
        }
    )*};
}

versioned!(
    model::Root,
    model::Index,
    model::TrendChunk,
    model::JobShard,
    model::ChangesShard,
    model::ReportDoc,
    model::ReportPage,
    model::search::SearchIndex,
    model::search::SearchShard,
    model::search::CommonTerms
);

#[derive(serde::Deserialize)]
struct SchemaOnly {
    schema: u32,
}

/// Parse a published JSON file, checking its schema version. Errors name the file.
pub fn parse_json<T: DeserializeOwned + Versioned>(path: &str, text: &str) -> Result<T, String> {
    parse_json_at(&format!("{DATA_DIR}{path}"), text)
}

/// `parse_json` of JSON from `url` (relative to the site's root: a report's page carries its
/// document).
pub fn parse_json_at<T: DeserializeOwned + Versioned>(url: &str, text: &str) -> Result<T, String> {
    let fail = |why: String| format!("could not load {url}: {why}");
    let schema_error = |found: u32| {
        fail(format!(
            "data schema {found}, but this page reads schema {} (rebuild the data with the matching importer)",
            model::SCHEMA_VERSION
        ))
    };
    match serde_json::from_str::<T>(text) {
        Ok(v) if v.schema() == model::SCHEMA_VERSION => Ok(v),
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
    use model::{JobShard, TrendChunk};

    #[test]
    fn good_files_parse() {
        let s: TrendChunk =
            parse_json("s/a/b.json", &format!(r#"{{"schema":{},"testcase":"a","series":[]}}"#, model::SCHEMA_VERSION))
                .unwrap();
        assert_eq!(s.testcase, "a");
    }

    #[test]
    fn errors_name_the_file_and_the_cause() {
        let e = parse_json::<JobShard>("j/x.json", "<html>").unwrap_err();
        assert!(
            e.starts_with("could not load data/j/x.json: malformed JSON: expected value at line 1 column 1"),
            "{e}"
        );
        let e = parse_json::<JobShard>("j/x.json", &format!(r#"{{"schema":{},"job":"x"}}"#, model::SCHEMA_VERSION))
            .unwrap_err();
        assert!(e.contains("missing field `series`"), "{e}");
        let old = model::SCHEMA_VERSION - 1;
        let e =
            parse_json::<JobShard>("j/x.json", &format!(r#"{{"schema":{old},"job":"x","series":[]}}"#)).unwrap_err();
        let expected = format!(
            "could not load data/j/x.json: data schema {old}, but this page reads schema {} (rebuild the data with the matching importer)",
            model::SCHEMA_VERSION
        );
        assert_eq!(e, expected);
        // Another schema whose shape changed too: the version is what is reported.
        let e = parse_json::<JobShard>("j/x.json", r#"{"schema":1,"jobs":[]}"#).unwrap_err();
        assert!(e.contains("data schema 1"), "{e}");
    }
}
