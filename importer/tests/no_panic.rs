//! The mail parser never panics: the real reports, mutated in many deterministic ways (bytes
//! flipped, lines cut, dropped, duplicated and shuffled, cells glued), all go through the whole
//! input path. A coverage-guided fuzz target for the same path is in `fuzz/`.

use model::rng::XorShift as Rng;
use reader::file::{read_bytes, FileResult};
use std::path::Path;

fn mutate(src: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = src.to_vec();
    match rng.below(7) {
        0 => {
            for _ in 0..1 + rng.below(64) {
                let i = rng.below(b.len());
                if i < b.len() {
                    b[i] = rng.next_u64() as u8;
                }
            }
        }
        1 => b.truncate(rng.below(b.len())),
        2 => {
            let mut lines: Vec<&[u8]> = src.split(|&c| c == b'\n').collect();
            for _ in 0..1 + rng.below(20) {
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(i, j);
            }
            b = lines.join(&b'\n');
        }
        3 => {
            let lines: Vec<&[u8]> = src.split(|&c| c == b'\n').filter(|_| rng.below(4) != 0).collect();
            b = lines.join(&b'\n');
        }
        4 => {
            // glue cells together: drop spaces
            b.retain(|&c| c != b' ' || rng.below(3) != 0);
        }
        5 => {
            // quote everything, as a reply would
            let lines: Vec<Vec<u8>> = src.split(|&c| c == b'\n').map(|l| [b"> ".as_slice(), l].concat()).collect();
            b = lines.join(&b'\n');
        }
        _ => {
            // collapse onto one line, as web archives do
            b = src.iter().map(|&c| if c == b'\n' { b' ' } else { c }).collect();
        }
    }
    b
}

#[test]
fn mutated_reports_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut inputs = Vec::new();
    for dir in ["fixtures/seeds", "fixtures/corpus", "fixtures/corpus/raw"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                inputs.push(std::fs::read(&p).unwrap());
            }
        }
    }
    inputs.sort();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut parsed = 0;
    let weight = |m: &str| reader::direction::Directions::lkp().weight(m);
    let opts = importer::build::options::Options { commit_url: None, git_log: vec![], weight: &weight };
    for round in 0..600 {
        let src = &inputs[round % inputs.len()];
        // keep each case small enough for a quick test
        let src = &src[..src.len().min(40_000)];
        let data = mutate(src, &mut rng);
        let mut res = FileResult::new("m".into(), data.len());
        read_bytes("m", &data, &mut res);
        for d in &res.docs {
            parsed += importer::rows::row_objects(d).len();
        }
        // and on through the dataset build (dates, commit order, dedup, changes)
        if round % 10 == 0 {
            let (data, _) = importer::build::build(res.docs, &opts);
            let (_, root) = importer::store::pack::files(data);
            assert_eq!(root.generation.len(), 16);
        }
    }
    assert!(parsed > 1000, "the mutations must leave most tables readable ({parsed} rows)");
    // pathological shapes
    for data in [
        &b""[..],
        b"\n\n\n",
        b"From \n",
        b"Content-Type: multipart/mixed; boundary=\"\"\n\n--\n--\n",
        b"=\n=",
        b"---------- ----------\n1 +1% 2 x\n",
    ] {
        let mut res = FileResult::new("p".into(), data.len());
        read_bytes("p", data, &mut res);
    }
}
