//! The path of every published file, relative to the data directory. The importer writes these
//! paths and the app fetches them; this module is the only place that spells them.

/// The root index: testcases, facet values, totals, the newest reports. The only file with a
/// fixed name, replaced atomically and last by an import: it is the pointer to everything else.
pub const INDEX: &str = "index.json";

/// Every published JSON file but the root is stored gzip-compressed (`.json.gz`, one gzip member,
/// no name or time in its header): static hosts store bytes as given, and the browser inflates with
/// its own `DecompressionStream`. A reader checks these magic bytes, not the name, so a host that
/// adds `Content-Encoding: gzip` itself (the browser then inflates it first) reads the same.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Every directory an import writes (and whose unreferenced files it removes after the switch).
/// `d/` held the report documents until schema 13 (they now ride in the pages): an import still
/// sweeps it, so a dataset of an older schema loses them at its next import.
pub const DIRS: [&str; 11] = ["t", "s", "j", "c", "d", "r", "a", "l", "m", "p", "q"];

/// The first screen as a static page (the newest reports, the newest report), written beside the
/// root; the site's build puts it, `m/` and `p/` at the site's root, the JSON under `data/`.
pub const FIRST_PAGE: &str = "index.html";

/// The directories of static pages: a report's (`m/`) and the lists' (`p/`). They sit at the
/// site's root (a lore link with its host swapped opens `m/<Message-ID>/`), the data beside them
/// under `data/`.
pub const PAGE_DIRS: [&str; 2] = ["m", "p"];

/// The folder of a report's page under `m/`: its Message-ID without `<>` as lore spells it in
/// its URLs, when every byte of it needs no escape in a URL path and it is a plain file name;
/// else the report id (`key` a Message-ID or a report id).
pub fn page_dir(key: &str) -> String {
    let k = key.trim();
    let k = k.strip_prefix('<').and_then(|m| m.strip_suffix('>')).unwrap_or(k);
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"._~!$&'()*+,;=:@-".contains(&b);
    if !k.is_empty() && k.len() <= 200 && !k.starts_with('.') && k.bytes().all(plain) {
        k.to_string()
    } else {
        hash_hex(k.as_bytes())
    }
}

/// A report's static page (`key`: its Message-ID, else its report id), relative to the site's root.
pub fn report_html(key: &str) -> String {
    format!("m/{}/index.html", page_dir(key))
}

/// The link to a report's page from any page of the site (every page sets `<base>` to the root).
pub fn report_url(key: &str) -> String {
    format!("m/{}/", page_dir(key))
}

/// A page of a static list of reports (`list`: `all`, or `tc/<slug>` of a testcase): `Some(n)`
/// the n-th full page from the oldest, `None` the newest (`index.html`, the list's stable
/// address). Numbered from the oldest, so a new report rewrites the newest page only.
pub fn list_html(list: &str, n: Option<usize>) -> String {
    match n {
        Some(n) => format!("p/{list}/{n}.html"),
        None => format!("p/{list}/index.html"),
    }
}

/// The link to a page of a list (`list_html`), from any page of the site.
pub fn list_url(list: &str, n: Option<usize>) -> String {
    match n {
        Some(n) => format!("p/{list}/{n}.html"),
        None => format!("p/{list}/"),
    }
}

/// The list of one testcase's reports (`list_html`'s `list`).
pub fn testcase_list(testcase: &str) -> String {
    format!("tc/{}", slug(testcase))
}

/// A testcase's catalog, named by its content hash (`hash`: `content_hash` of the bytes).
pub fn catalog(testcase: &str, hash: &str) -> String {
    format!("t/{}.{hash}.json.gz", slug(testcase))
}

/// A part of a testcase's catalog beyond what the first chart needs (`Index::rest`: every report
/// and chunk; `Index::names`: every metric), named by its content hash.
pub fn catalog_rest(testcase: &str, hash: &str) -> String {
    format!("t/{}/{hash}.json.gz", slug(testcase))
}

/// A trend chunk of a testcase, named by its value's fingerprint (the importer's `known::print`:
/// the same name, the same value, so the same bytes).
pub fn trend_chunk(testcase: &str, hash: &str) -> String {
    format!("s/{}/{hash}.json.gz", slug(testcase))
}

/// The compare file of a job, named by its value's fingerprint.
pub fn job_shard(testcase: &str, hash: &str) -> String {
    format!("j/{}/{hash}.json.gz", slug(testcase))
}

/// A page of one testcase's changes (stated by reports or detected along series), named by its
/// value's fingerprint: the Changes view.
pub fn changes(testcase: &str, hash: &str) -> String {
    format!("c/{}.{hash}.json.gz", slug(testcase))
}

/// A report's document (`ReportDoc`) rides in its page (`report_html`), the one file of the
/// report: stored as every JSON file is (gzip), in base64, as the text of this element just before
/// the page's `</body>`. An import reads it back from there (`--into`, `lkpx check`), and so does
/// the app (the page it takes over, or the page fetched).
pub const PAGE_DOC_OPEN: &str = "<script type=\"application/gzip\" id=\"report-doc\">";

/// The end of `PAGE_DOC_OPEN`'s element (base64 has no `<`).
pub const PAGE_DOC_CLOSE: &str = "</script>";

/// The base64 text of the document that a report's page `html` carries.
pub fn page_doc(html: &str) -> Option<&str> {
    let at = html.rfind(PAGE_DOC_OPEN)? + PAGE_DOC_OPEN.len();
    let len = html[at..].find(PAGE_DOC_CLOSE)?;
    Some(&html[at..at + len])
}

/// A file of the search index named by its content hash: the index itself (`search::SearchIndex`)
/// or its common terms (`search::CommonTerms`).
pub fn search_named(hash: &str) -> String {
    format!("q/{hash}.json.gz")
}

/// The folder of a segment of the search index (`search::Segment`), named by a hash of its files.
pub fn search_segment(hash: &str) -> String {
    format!("q/{hash}")
}

/// A file of segment `dir`: its shard (`kind` 't') or its summaries (`kind` 's') of `bucket`.
pub fn search_file(dir: &str, kind: char, bucket: u32) -> String {
    format!("{dir}/{kind}{bucket}.json.gz")
}

/// A page of the reports list, named by its content hash.
pub fn report_page(hash: &str) -> String {
    format!("l/{hash}.json.gz")
}

/// The report id of a Message-ID (with or without `<>`): the name of its document.
pub fn report_id_of_message(message_id: &str) -> String {
    let m = message_id.trim();
    let m = m.strip_prefix('<').and_then(|m| m.strip_suffix('>')).unwrap_or(m);
    hash_hex(m.as_bytes())
}

/// A reproduce script, stored once per distinct text.
pub fn script(hash: &str) -> String {
    format!("r/{hash}.sh")
}

/// The archives' read positions and waiting replies (`ArchiveState`), named by its content hash.
pub fn archive_state(hash: &str) -> String {
    format!("a/{hash}.json.gz")
}

/// Observations per trend chunk the packing aims at: a chunk is what one metric's chart waits for.
pub const CHUNK_POINTS: usize = 2048;

/// Number of chunks for `points` observations (a testcase's `Totals::points`): a power of two,
/// so a metric's chunk is a mask of its name's hash (`chunk_of`).
pub fn chunk_count(points: usize) -> u32 {
    (points.div_ceil(CHUNK_POINTS).max(1) as u32).next_power_of_two()
}

/// Which trend chunk of `n` (a power of two) holds `metric`.
pub fn chunk_of(metric: &str, n: u32) -> u32 {
    bucket_of(metric, n)
}

/// Which of `n` (a power of two) files holds `key`: trend chunks by metric name, the reports list
/// by job (`Root::by_job`).
pub fn bucket_of(key: &str, n: u32) -> u32 {
    let mut h = Fnv::new();
    h.write(key.as_bytes());
    let x = h.finish();
    ((x ^ (x >> 32)) as u32) & n.saturating_sub(1)
}

/// Name of a published file from its bytes: 16 hex digits of XXH3-64 (tens of GB/s, so naming the
/// hundreds of MB an import writes costs next to nothing; FNV-1a took a tenth of the serialise stage).
pub fn content_hash(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// Content hash used for script names and report ids: 16 hex digits of FNV-1a 64.
pub fn hash_hex(bytes: &[u8]) -> String {
    let mut h = Fnv::new();
    h.write(bytes);
    format!("{:016x}", h.finish())
}

/// `s` with every byte but ASCII letters, digits and those of `keep` written `%XX`, upper case
/// (non-ASCII too, byte by byte): the one URL escape, of a permalink's query values
/// (`app::state`) and of a Message-ID in a lore link (`reader::links`).
pub fn percent_encode(s: &str, keep: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(b as char);
        } else {
            out.extend(['%', HEX[usize::from(b >> 4)] as char, HEX[usize::from(b & 15)] as char]);
        }
    }
    out
}

/// A value in a permalink's query (`?testcase=…&metric=…`): `percent_encode` keeping what a
/// query value may hold as it is. The app's view state and the static pages' links to it.
pub fn query_value(s: &str) -> String {
    percent_encode(s, b"-._~:@/!*()'")
}

/// A file-name-safe form of a testcase name: `[A-Za-z0-9._-]` kept, anything else `_`,
/// plus a hash suffix when something had to be replaced (so two names never collide).
pub fn slug(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' { c } else { '_' })
        .collect();
    if clean == name && !name.is_empty() && !name.starts_with('.') {
        clean
    } else {
        format!("{clean}-{}", &hash_hex(name.as_bytes())[..8])
    }
}

/// FNV-1a, 64 bit: tiny, deterministic across platforms and builds (unlike `DefaultHasher`).
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Also a `std::hash::Hasher`, for fast deterministic hash maps and row identities.
impl std::hash::Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        Fnv::write(self, bytes)
    }

    fn finish(&self) -> u64 {
        Fnv::finish(self)
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lore link with its host swapped opens the page: a Message-ID that needs no escape is the
    /// folder's name as it is; any other (a `/`, `%`, space, a leading dot, a huge one) is its id.
    #[test]
    fn a_report_page_is_named_as_lore_spells_the_message_id() {
        let mid = "202512011530.5e2b8c9a-lkp@intel.com";
        assert_eq!(report_html(mid), format!("m/{mid}/index.html"));
        assert_eq!(report_url(&format!("<{mid}>")), format!("m/{mid}/"));
        assert_eq!(page_dir("Zx+a=b$c!d'(e)*f,g;h:i~j@k"), "Zx+a=b$c!d'(e)*f,g;h:i~j@k");
        for odd in ["a/b@c", "a b@c", "a%2F@c", ".hidden@x", "a\\b@c", "é@x", "", "?x@y", "a#b@c"] {
            assert_eq!(page_dir(odd), hash_hex(odd.as_bytes()), "{odd}");
        }
        assert_eq!(page_dir(&"x".repeat(201)).len(), 16);
        assert_eq!(page_dir("0123456789abcdef"), "0123456789abcdef", "a report id is its own folder");
        assert_eq!(list_html("all", Some(3)), "p/all/3.html");
        assert_eq!((list_html("all", None).as_str(), list_url("all", None).as_str()), ("p/all/index.html", "p/all/"));
        assert_eq!(testcase_list("fio-basic"), "tc/fio-basic");
    }

    #[test]
    fn paths_are_stable_and_safe() {
        assert_eq!(trend_chunk("fio-basic", "0123"), "s/fio-basic/0123.json.gz");
        assert_eq!(catalog("a/b", "ff"), format!("t/{}.ff.json.gz", slug("a/b")));
        assert_eq!(hash_hex(b""), "cbf29ce484222325");
        assert_eq!(slug("fio-basic"), "fio-basic");
        let s = slug("a/b c");
        assert!(s.starts_with("a_b_c-") && s.len() == "a_b_c-".len() + 8, "{s}");
        assert_ne!(slug("a/b"), slug("a_b"));
        assert!(slug("..").starts_with("..-"));
        assert_eq!(job_shard("fio-basic", "00ff"), "j/fio-basic/00ff.json.gz");
        assert_eq!(script("abc"), "r/abc.sh");
        assert_eq!(changes("fio-basic", "aa"), "c/fio-basic.aa.json.gz");
        let page = format!("<p>{PAGE_DOC_OPEN}</p>x{PAGE_DOC_OPEN}H4sI{PAGE_DOC_CLOSE}</body></html>");
        assert_eq!(page_doc(&page), Some("H4sI"));
        assert_eq!(page_doc("<html><body></body></html>"), None);
        assert_eq!(report_page("ab"), "l/ab.json.gz");
        assert_eq!(search_file(&search_segment("ab"), 't', 3), "q/ab/t3.json.gz");
        assert_eq!(report_id_of_message("<a@b>"), hash_hex(b"a@b"));
        assert_eq!(report_id_of_message(" a@b "), hash_hex(b"a@b"));
        // every path lives in one of the published directories
        for p in [
            catalog("x", "1"),
            trend_chunk("x", "1"),
            job_shard("x", "1"),
            changes("x", "1"),
            report_html("1"),
            script("1"),
            archive_state("1"),
            report_page("1"),
            search_named("1"),
            search_file(&search_segment("1"), 's', 0),
        ] {
            assert!(DIRS.contains(&p.split('/').next().unwrap()), "{p}");
        }
    }

    #[test]
    fn chunks_spread_metrics_and_stay_in_range() {
        let mut seen = [0usize; 8];
        for i in 0..800 {
            let c = chunk_of(&format!("perf-profile.self.f{i}"), 8);
            assert!(c < 8);
            seen[c as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 60), "{seen:?}");
        assert_eq!(chunk_of("anything", 1), 0);
    }
}
