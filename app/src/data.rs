//! Reading published files: the data directory (relative to the page), and parsing JSON with
//! the schema version checked. Every error names the file, so a broken shard is found at once.

use serde::de::DeserializeOwned;

/// Directory of the published data, relative to the page (so any `--public-url` works).
pub const DATA_DIR: &str = "data/";

/// Published JSON files carry the schema version (the page refuses any other) and the
/// generation of the data build (a shard must belong to the index the page loaded).
pub trait Versioned {
    fn schema(&self) -> u32;
    fn generation(&self) -> &str;
    /// The index defines the generation; shards must match it.
    const IS_INDEX: bool = false;
}

macro_rules! versioned {
    ($t:ty, $index:expr) => {
        impl Versioned for $t {
            fn schema(&self) -> u32 {
                self.schema
            }
            fn generation(&self) -> &str {
                &self.generation
            }
            const IS_INDEX: bool = $index;
        }
    };
}

versioned!(model::Index, true);
versioned!(model::SeriesShard, false);
versioned!(model::JobShard, false);
versioned!(model::ChangesShard, false);

thread_local! {
    /// Generation of the index this page loaded.
    static GENERATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Accept `v` only if it belongs to the loaded index's data build; loading an index sets it.
fn check_generation<T: Versioned>(v: &T) -> Result<(), String> {
    if T::IS_INDEX {
        GENERATION.with(|g| *g.borrow_mut() = Some(v.generation().to_string()));
        return Ok(());
    }
    GENERATION.with(|g| match g.borrow().as_deref() {
        Some(want) if want != v.generation() => Err(format!(
            "it belongs to another build of the data (generation {}, the page loaded {want}): the data was updated \
             since this page was opened — reload the page",
            v.generation()
        )),
        _ => Ok(()),
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
        let stale = r#"{"schema":1,"generation":"bbbb","job":"x","series":[]}"#;
        let e = parse_json::<JobShard>("j/x.json", stale).unwrap_err();
        assert!(e.starts_with("could not load data/j/x.json: it belongs to another build of the data"), "{e}");
        assert!(e.contains("reload the page"), "{e}");
    }
}
