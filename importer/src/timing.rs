//! Wall time per import stage, printed to stderr when `LKPX_TIMINGS` is set (for benchmarks).

use std::time::Instant;

pub struct Stages {
    last: Instant,
    on: bool,
}

impl Stages {
    pub fn new(start: Instant) -> Self {
        Stages { last: start, on: std::env::var_os("LKPX_TIMINGS").is_some() }
    }

    /// Print the time since the previous mark (or the start) as `stage`'s.
    pub fn mark(&mut self, stage: &str) {
        let now = Instant::now();
        if self.on {
            eprintln!("lkpx: timing: {stage}: {:.3}s{}", (now - self.last).as_secs_f64(), rss());
        }
        self.last = now;
    }
}

/// One testcase's build and its `each` (pack and write), when `LKPX_TIMINGS` is set.
pub fn testcase(name: &str, build: std::time::Duration, rest: std::time::Duration) {
    if std::env::var_os("LKPX_TIMINGS").is_some() {
        eprintln!(
            "lkpx: timing: testcase {name}: built {:.3}s, packed and written {:.3}s{}",
            build.as_secs_f64(),
            rest.as_secs_f64(),
            rss()
        );
    }
}

/// A note on how the import went, when `LKPX_TIMINGS` is set.
pub fn note(what: &str) {
    if std::env::var_os("LKPX_TIMINGS").is_some() {
        eprintln!("lkpx: timing: {what}");
    }
}

/// The process's resident memory now and at its peak (Linux), as `, RSS N MB (peak M MB)`.
fn rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| {
        status.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
    };
    match (kb("VmRSS:"), kb("VmHWM:")) {
        (Some(now), Some(peak)) => format!(", RSS {} MB (peak {} MB)", now >> 10, peak >> 10),
        _ => String::new(),
    }
}
