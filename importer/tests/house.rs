//! The house rules of the workspace, read from its own sources (ARCHITECTURE.md states them):
//! the mail worker builds on `reader` and `model` only; `reader` does no I/O; only the command
//! line (`importer/src/cli/`) uses anyhow; `importer/src` keeps few files at its top; no function
//! outside tests is over 120 lines; no two files import each other; ARCHITECTURE.md is a short
//! map that names every crate and folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: [&str; 6] = ["model", "reader", "render", "importer", "app", "worker"];
const LONGEST_FUNCTION: usize = 120;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let all = walkdir::WalkDir::new(dir).sort_by_file_name().into_iter().map(|e| e.unwrap().into_path());
    all.filter(|p| p.extension().is_some_and(|x| x == "rs")).collect()
}

/// The source of `text` with comments, string and char literals blanked (same length and line
/// breaks), so braces and paths are code only.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            blank(&mut out, start, i);
        } else if b[i..].starts_with(b"/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            blank(&mut out, start, i);
        } else if b[i] == b'r' && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#')) && !ident_byte(b, i) {
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            i = text[i + 2 + hashes..].find(&close).map_or(b.len(), |k| i + 2 + hashes + k + close.len());
            blank(&mut out, start + 1, i);
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            blank(&mut out, start + 1, i.min(b.len()) - 1);
        } else if b[i] == b'\'' {
            // a char literal ('{', '\n', '\u{7f}'), not a lifetime ('a)
            let len = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|&c| c == b'\'').map(|k| k + 3)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            i += len.unwrap_or(1);
            if len.is_some() {
                blank(&mut out, start + 1, i - 1);
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn ident_byte(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The byte just after the brace that closes the one at `open`.
fn matching(code: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// `code` without the items under `#[cfg(test)]` and `#[test]` (blanked, lines kept).
fn without_tests(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    for attr in ["#[cfg(test)]", "#[test]"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(attr) {
            let at = from + k;
            let item_end = match code[at..].find(['{', ';']) {
                Some(j) if code.as_bytes()[at + j] == b'{' => matching(code.as_bytes(), at + j),
                Some(j) => at + j + 1,
                None => code.len(),
            };
            for c in &mut out[at..item_end] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
            from = item_end;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Each function of `code` with its length in lines (its `fn` line to its closing brace).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("fn ") {
        let at = from + k;
        from = at + 3;
        if ident_byte(b, at) {
            continue;
        }
        let name: String = code[at + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // the body: the first `{` before any `;` (a trait method without body has none)
        let Some(j) = code[at..].find(['{', ';']) else { continue };
        if b[at + j] == b';' || name.is_empty() {
            continue;
        }
        let end = matching(b, at + j);
        let line = code[..at].matches('\n').count() + 1;
        let lines = code[at..end].matches('\n').count() + 1;
        out.push((name, line, lines));
    }
    out
}

#[test]
fn the_mail_worker_builds_on_reader_and_model_only() {
    let toml = std::fs::read_to_string(root().join("worker/Cargo.toml")).unwrap();
    let deps = toml.split("[dependencies]").nth(1).unwrap().split("\n[").next().unwrap();
    let ours: BTreeSet<&str> = deps
        .lines()
        .filter_map(|l| l.split(['=', '.']).next().map(str::trim))
        .filter(|name| CRATES.contains(name))
        .collect();
    assert_eq!(ours, BTreeSet::from(["model", "reader"]), "worker/Cargo.toml [dependencies]");
}

#[test]
fn the_reader_and_the_renderer_do_no_io_and_the_command_line_alone_uses_anyhow() {
    let toml = std::fs::read_to_string(root().join("reader/Cargo.toml")).unwrap();
    for dep in ["rayon", "clap", "gix", "anyhow", "importer", "indicatif"] {
        assert!(!toml.lines().any(|l| l.starts_with(&format!("{dep} "))), "reader depends on {dep}");
    }
    for f in rust_files(&root().join("reader/src")).into_iter().chain(rust_files(&root().join("render/src"))) {
        let code = without_tests(&code_only(&std::fs::read_to_string(&f).unwrap()));
        for io in ["std::fs", "std::process", "std::thread", "std::net", "rayon::", "clap::", "gix::"] {
            assert!(!code.contains(io), "{} uses {io}", f.display());
        }
    }
    for f in rust_files(&root().join("importer/src")) {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        let cli = f.starts_with(root().join("importer/src/cli"));
        assert!(cli || !code.contains("anyhow"), "{} uses anyhow outside cli/", f.display());
    }
}

#[test]
fn the_importer_keeps_few_files_at_its_top() {
    let top: Vec<String> = std::fs::read_dir(root().join("importer/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(top.len() <= 12, "importer/src has {} files at its top: {top:?}", top.len());
}

#[test]
fn no_function_outside_tests_is_over_120_lines() {
    let mut long = Vec::new();
    for krate in CRATES {
        for f in rust_files(&root().join(krate).join("src")) {
            let code = without_tests(&code_only(&std::fs::read_to_string(&f).unwrap()));
            for (name, line, lines) in functions(&code) {
                if lines > LONGEST_FUNCTION {
                    long.push(format!(
                        "{}:{line}: fn {name}: {lines} lines",
                        f.strip_prefix(root()).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(long.is_empty(), "functions over {LONGEST_FUNCTION} lines:\n{}", long.join("\n"));
}

/// One crate (or binary) root: its module tree as module path → file.
fn module_files(src: &Path, root_file: &Path, skip: &dyn Fn(&Path) -> bool) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    for f in rust_files(src) {
        if skip(&f)
            || (f != root_file && f.parent() == Some(src) && ["main.rs", "lib.rs"].iter().any(|n| f.ends_with(n)))
        {
            continue;
        }
        let rel = f.strip_prefix(src).unwrap();
        let mut path: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
        let last = path.pop().unwrap();
        match last.trim_end_matches(".rs") {
            "mod" => {}
            "lib" | "main" if path.is_empty() => {}
            stem => path.push(stem.to_string()),
        }
        out.insert(path, f);
    }
    out
}

/// The module paths `code` (of the module at `here`) names: `crate::a::b`, `super::x`,
/// `self::x`, and the members of `use crate::{a, b::{c}}`.
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            if ident_byte(bytes, at) || (at >= 2 && &code[at - 2..at] == "::") {
                continue;
            }
            let mut base: Vec<String> = match start {
                "crate::" => vec![],
                "super::" => here[..here.len().saturating_sub(1)].to_vec(),
                _ => here.to_vec(),
            };
            let mut rest = &code[from..];
            loop {
                if let Some(group) = rest.strip_prefix('{') {
                    let inner = &group[..matching(rest.as_bytes(), 0) - 2];
                    for member in split_group(inner) {
                        let mut p = base.clone();
                        p.extend(member.split("::").map(|w| w.trim().to_string()).filter(|w| !w.is_empty()));
                        out.push(p);
                    }
                    break;
                }
                let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if word == "super" {
                    base.pop();
                } else if !word.is_empty() {
                    base.push(word.clone());
                }
                rest = &rest[word.len()..];
                match rest.strip_prefix("::") {
                    Some(r) if !word.is_empty() => rest = r,
                    _ => break,
                }
            }
            out.push(base);
        }
    }
    out
}

/// The top-level members of a `{a, b::{c, d}}` group, nested groups flattened to their paths.
fn split_group(inner: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
            _ if depth == 0 => cur.push(c),
            _ => {}
        }
    }
    out.push(cur);
    out.into_iter().map(|m| m.split(" as ").next().unwrap().trim().to_string()).filter(|m| !m.is_empty()).collect()
}

/// The file of the longest module prefix of `path`.
fn file_of<'a>(mods: &'a BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<&'a PathBuf> {
    (0..=path.len()).rev().find_map(|n| mods.get(&path[..n]))
}

#[test]
fn no_two_files_import_each_other() {
    let r = root();
    let bin_only = |f: &Path| f.starts_with(r.join("importer/src/cli")) || f == r.join("importer/src/main.rs");
    type Tree<'a> = (PathBuf, PathBuf, Box<dyn Fn(&Path) -> bool + 'a>);
    let trees: Vec<Tree> = vec![
        (r.join("model/src"), r.join("model/src/lib.rs"), Box::new(|_| false)),
        (r.join("reader/src"), r.join("reader/src/lib.rs"), Box::new(|_| false)),
        (r.join("render/src"), r.join("render/src/lib.rs"), Box::new(|_| false)),
        (r.join("importer/src"), r.join("importer/src/lib.rs"), Box::new(bin_only)),
        (r.join("importer/src"), r.join("importer/src/main.rs"), Box::new(move |f| !bin_only(f))),
        (r.join("app/src"), r.join("app/src/lib.rs"), Box::new(|_| false)),
        (r.join("worker/src"), r.join("worker/src/main.rs"), Box::new(|_| false)),
    ];
    let mut circles = Vec::new();
    let mut edges_seen = 0;
    for (src, root_file, skip) in &trees {
        let mods = module_files(src, root_file, skip.as_ref());
        let mut edges: BTreeSet<(PathBuf, PathBuf)> = BTreeSet::new();
        for (here, f) in &mods {
            let code = without_tests(&code_only(&std::fs::read_to_string(f).unwrap()));
            for p in named_paths(&code, here) {
                if let Some(to) = file_of(&mods, &p).filter(|to| *to != f && *to != root_file) {
                    edges.insert((f.clone(), to.clone()));
                }
            }
        }
        edges_seen += edges.len();
        for (a, b) in &edges {
            if a < b && edges.contains(&(b.clone(), a.clone())) {
                circles.push(format!(
                    "{} <-> {}",
                    a.strip_prefix(&r).unwrap().display(),
                    b.strip_prefix(&r).unwrap().display()
                ));
            }
        }
    }
    assert!(edges_seen > 100, "the import reader found only {edges_seen} imports");
    assert!(circles.is_empty(), "files that import each other:\n{}", circles.join("\n"));
}

#[test]
fn architecture_is_a_short_map_naming_every_crate_and_folder() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    assert!(text.len() <= 10 * 1024, "ARCHITECTURE.md is {} bytes", text.len());
    let mut missing = Vec::new();
    for krate in CRATES {
        if !text.contains(&format!("`{krate}`")) && !text.contains(&format!("`{krate}/`")) {
            missing.push(krate.to_string());
        }
        for f in rust_files(&root().join(krate).join("src")) {
            let dir = f.parent().unwrap().strip_prefix(root().join(krate).join("src")).unwrap();
            if dir.as_os_str().is_empty() {
                continue;
            }
            let name = format!("{}/", dir.display());
            if !text.contains(&name) && !missing.contains(&format!("{krate}/src/{name}")) {
                missing.push(format!("{krate}/src/{name}"));
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md does not name: {missing:?}");
}

#[test]
fn the_source_reader_sees_through_strings_and_comments() {
    let code = code_only("fn a() { let s = \"}\"; let c = '{'; // }\n let r = r#\"{\"#; 'a: loop {} }\nfn b() {}\n");
    let fs = functions(&code);
    assert_eq!(fs.iter().map(|(n, l, len)| (n.as_str(), *l, *len)).collect::<Vec<_>>(), [("a", 1, 2), ("b", 3, 1)]);
    let here = vec!["ui".to_string(), "mail".to_string()];
    let paths = named_paths("use super::split::{read, Mail}; use crate::{state::{self, View}, draw};", &here);
    assert!(paths.contains(&vec!["ui".to_string(), "split".to_string(), "read".to_string()]), "{paths:?}");
    assert!(paths.contains(&vec!["state".to_string()]), "{paths:?}");
    assert!(paths.contains(&vec!["draw".to_string()]), "{paths:?}");
    assert!(without_tests("fn x() {}\n#[cfg(test)]\nmod tests { fn y() {} }\n").find('y').is_none());
}
