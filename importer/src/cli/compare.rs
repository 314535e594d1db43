//! `lkpx compare BASE HEAD`: lkp-tests' `compare` of two result matrices, as it prints it.

use importer::lkp::compare::{changed_stats, CompareOptions, Matrix};
use importer::lkp::resultroot::{self, CommitMatrix};
use std::io::Write;
use std::path::Path;

/// Reads a matrix for the comparer: a `matrix.json(.gz)` file, or a commit directory (its
/// `matrix.json(.gz)`, else the matrix built from its runs). Rows are zero-padded to the number of
/// runs, as lkp does before comparing.
pub fn load_matrix(path: &Path) -> anyhow::Result<Matrix> {
    let m: CommitMatrix =
        if path.is_dir() { resultroot::commit_matrix(path)? } else { resultroot::read_matrix_file(path)? };
    Ok(m.stats.into_iter().collect())
}

/// `lkpx compare BASE HEAD`: prints the changed stats of HEAD against BASE as JSON Lines.
/// `base` and `head` are lkp `matrix.json(.gz)` files or commit result directories.
pub fn run(base: &Path, head: &Path, opts: &CompareOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    use anyhow::Context;
    let base_m = load_matrix(base).with_context(|| format!("reading {}", base.display()))?;
    let head_m = load_matrix(head).with_context(|| format!("reading {}", head.display()))?;
    for stat in changed_stats(&base_m, &head_m, opts) {
        serde_json::to_writer(&mut *out, &stat)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use importer::lkp::compare::CompareOptions;
    use std::io::Write;
    use std::path::PathBuf;

    fn more() -> CompareOptions {
        CompareOptions { more: true, ..CompareOptions::default() }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("lkpx-compare-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn run_compare_reads_matrix_files_and_prints_json_lines() {
        let dir = temp_dir("run");
        // lkp writes bare NaN; the base is gzipped; a string row and stats_source are ignored.
        let base = r#"{
      "will-it-scale.per_process_ops": [1000, 1010, 990],
      "will-it-scale.workload": [NaN, 1, 2],
      "kernel.version": ["a", "b", "c"],
      "stats_source": ["/r/0/stats.json", "/r/1/stats.json", "/r/2/stats.json"]
    }"#;
        let head = r#"{
      "will-it-scale.per_process_ops": [800, 810, 790],
      "will-it-scale.workload": [Infinity, 1, 2],
      "stats_source": ["/r/0/stats.json", "/r/1/stats.json", "/r/2/stats.json"]
    }"#;
        let base_path = dir.join("base-matrix.json.gz");
        let mut gz =
            flate2::write::GzEncoder::new(std::fs::File::create(&base_path).unwrap(), flate2::Compression::default());
        gz.write_all(base.as_bytes()).unwrap();
        gz.finish().unwrap();
        let head_path = dir.join("head-matrix.json");
        std::fs::write(&head_path, head).unwrap();

        let mut out = Vec::new();
        super::run(&base_path, &head_path, &more(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 1, "{text}");
        assert_eq!(lines[0]["stat"], "will-it-scale.per_process_ops");
        assert_eq!(lines[0]["base_mean"], 1000.0);
        assert_eq!(lines[0]["head_mean"], 800.0);
        assert_eq!(lines[0]["change"], -20.0);
        assert_eq!(lines[0]["direction"], "regression");

        // A broken file is reported with its name and position.
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "{\n  \"a\": [1, 2,,]\n}").unwrap();
        let err = super::run(&bad, &head_path, &more(), &mut Vec::new()).unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains("bad.json:2:"), "{msg}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
