//! `git log --format='%H %ct %s'` lines: the exact order and dates of commits.

#[derive(Debug, Clone, PartialEq)]
pub struct GitLogEntry {
    pub sha: String,
    pub time: i64,
    pub subject: String,
}

/// Parse `git log --format='%H %ct %s'` output; returns entries and bad lines (1-based).
pub fn parse_git_log(text: &str) -> (Vec<GitLogEntry>, Vec<(usize, String)>) {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut it = line.splitn(3, ' ');
        let sha = it.next().unwrap_or("");
        let time = it.next().and_then(|t| t.parse::<i64>().ok());
        match time {
            Some(time) if sha.len() >= 7 && sha.bytes().all(|b| b.is_ascii_hexdigit()) => out.push(GitLogEntry {
                sha: sha.to_ascii_lowercase(),
                time,
                subject: it.next().unwrap_or("").to_string(),
            }),
            _ => bad.push((i + 1, "expected `<sha> <unix time> <subject>`".to_string())),
        }
    }
    (out, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_log_lines() {
        let (e, bad) =
            parse_git_log("19957a181608d25c8f4136652d0ea00b3738972d 1525000000 xfs: Correctly invert\nnonsense\n");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].time, 1525000000);
        assert_eq!(bad, vec![(2, "expected `<sha> <unix time> <subject>`".to_string())]);
    }
}
