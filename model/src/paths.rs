//! The path of every published file, relative to the data directory. The importer writes these
//! paths and the app fetches them; this module is the only place that spells them.

/// The index: facets, commits, reports, metric names.
pub const INDEX: &str = "index.json";

/// Trend shard of one metric of one testcase.
pub fn series_shard(testcase: &str, metric: &str) -> String {
    format!("s/{}/{}.json", slug(testcase), hash_hex(metric.as_bytes()))
}

/// Compare shard of one job (all its metrics).
pub fn job_shard(job_id: &str) -> String {
    format!("j/{job_id}.json")
}

/// Every change of one testcase (stated by reports or detected along series): the Changes view.
pub fn changes(testcase: &str) -> String {
    format!("c/{}.json", slug(testcase))
}

/// A reproduce script, stored once per distinct text.
pub fn script(hash: &str) -> String {
    format!("r/{hash}.sh")
}

/// Content hash used for script names and report ids: 16 hex digits of FNV-1a 64.
pub fn hash_hex(bytes: &[u8]) -> String {
    let mut h = Fnv::new();
    h.write(bytes);
    format!("{:016x}", h.finish())
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

    #[test]
    fn paths_are_stable_and_safe() {
        assert_eq!(
            series_shard("fio-basic", "fio.write_iops"),
            format!("s/fio-basic/{}.json", hash_hex(b"fio.write_iops"))
        );
        assert_eq!(hash_hex(b""), "cbf29ce484222325");
        assert_eq!(slug("fio-basic"), "fio-basic");
        let s = slug("a/b c");
        assert!(s.starts_with("a_b_c-") && s.len() == "a_b_c-".len() + 8, "{s}");
        assert_ne!(slug("a/b"), slug("a_b"));
        assert!(slug("..").starts_with("..-"));
        assert_eq!(job_shard("00ff"), "j/00ff.json");
        assert_eq!(script("abc"), "r/abc.sh");
        assert_eq!(changes("fio-basic"), "c/fio-basic.json");
    }
}
