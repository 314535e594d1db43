//! Facts about a document that links and names it: its stable id, its lore URL, a commit's link.

use crate::doc::Document;
use model::{paths, SourceKind};

/// The stable id of a report: a hash of its Message-ID, else of its content.
pub fn report_id(d: &Document) -> String {
    match &d.message_id {
        Some(m) => paths::report_id_of_message(m),
        None => paths::hash_hex(report_key(d).as_bytes()),
    }
}

/// Identity of a report: its Message-ID, else its content.
pub fn report_key(d: &Document) -> String {
    match &d.message_id {
        Some(m) => format!("mid:{m}"),
        None => {
            let mut h = paths::Fnv::new();
            for s in &d.sections {
                for c in &s.commits {
                    h.write(c.as_bytes());
                }
                for r in &s.rows {
                    h.write(r.metric.as_bytes());
                    h.write(format!("{:?}{:?}", r.values, r.fails).as_bytes());
                }
            }
            format!("content:{:016x}", h.finish())
        }
    }
}

/// `https://lore.kernel.org/all/<Message-ID>/` for a mail with a Message-ID.
pub fn lore_url(d: &Document) -> Option<String> {
    match (&d.message_id, d.kind) {
        (Some(m), SourceKind::Mail) => Some(format!("https://lore.kernel.org/all/{}/", mid_escape(m))),
        _ => None,
    }
}

/// A Message-ID as a URL path segment, escaped as public-inbox (lore) does: everything outside
/// `A-Za-z0-9._~!$&'()*+,;=:@-` as `%XX`.
pub fn mid_escape(mid: &str) -> String {
    paths::percent_encode(mid, b"._~!$&'()*+,;=:@-")
}

pub fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Is `template` a usable `--commit-url`: an http(s) URL naming `{sha}`? The explorer only links
/// http and https URLs; any other scheme (`javascript:`, `data:`, `file:`) is refused here.
pub fn check_commit_url(template: &str) -> Result<(), String> {
    let lower = template.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        return Err("must be an http:// or https:// URL".into());
    }
    if template.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("must not contain white space".into());
    }
    if !template.contains("{sha}") {
        return Err("must contain {sha} (replaced by the commit id)".into());
    }
    Ok(())
}

/// A commit's link: the `--commit-url` template for a hex id, else the per-tree default. The one
/// rule for the catalogs' commits and the report documents' commits.
pub fn commit_link(template: Option<&str>, tree: Option<&str>, id: &str) -> Option<String> {
    match template {
        Some(t) if is_hex(id) => Some(t.replace("{sha}", id)),
        _ => default_commit_url(tree, id),
    }
}

/// Commit URL for a commit on `tree`: cgit on git.kernel.org, GitHub; `None` when unknown.
pub fn default_commit_url(tree: Option<&str>, id: &str) -> Option<String> {
    const TORVALDS: &str = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git";
    if !is_hex(id) {
        // a release tag such as v6.16-rc4
        let tag = id.strip_prefix('v')?;
        if tag.starts_with(|c: char| c.is_ascii_digit()) && !id.contains('+') {
            return Some(format!("{TORVALDS}/tag/?h={id}"));
        }
        return None;
    }
    let tree = tree.unwrap_or(TORVALDS);
    if let Some(rest) = tree.strip_prefix("https://github.com/") {
        let mut p = rest.split('/');
        let (o, r) = (p.next()?, p.next()?);
        return Some(format!("https://github.com/{o}/{}/commit/{id}", r.trim_end_matches(".git")));
    }
    let base = if let Some(rest) = tree.strip_prefix("https://git.kernel.org/cgit/") {
        format!("https://git.kernel.org/pub/scm/{rest}")
    } else if let Some(rest) = tree.strip_prefix("git://git.kernel.org/") {
        format!("https://git.kernel.org/{rest}")
    } else if tree.starts_with("https://git.kernel.org/") {
        tree.to_string()
    } else {
        return None;
    };
    Some(format!("{}/commit/?id={id}", base.trim_end_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_url_templates_are_http_links_naming_the_commit() {
        assert_eq!(check_commit_url("https://git.example.org/linux/commit/?id={sha}"), Ok(()));
        assert_eq!(check_commit_url("HTTP://git.example.org/{sha}"), Ok(()));
        for bad in
            ["javascript:alert('{sha}')", "data:text/html,{sha}", "file:///{sha}", "/c/{sha}", "https://a b/{sha}"]
        {
            assert!(check_commit_url(bad).is_err(), "{bad}");
        }
        assert_eq!(check_commit_url("https://x/"), Err("must contain {sha} (replaced by the commit id)".into()));
    }

    #[test]
    fn commit_urls() {
        assert_eq!(
            default_commit_url(Some("https://git.kernel.org/cgit/fs/xfs/xfs-linux.git"), "19957a181608d25c8f4136652d0ea00b3738972d").as_deref(),
            Some("https://git.kernel.org/pub/scm/fs/xfs/xfs-linux.git/commit/?id=19957a181608d25c8f4136652d0ea00b3738972d")
        );
        assert_eq!(
            default_commit_url(
                Some("git://git.kernel.org/pub/scm/linux/kernel/git/next/linux-next.git"),
                "66431c4de99"
            )
            .as_deref(),
            Some("https://git.kernel.org/pub/scm/linux/kernel/git/next/linux-next.git/commit/?id=66431c4de99")
        );
        assert_eq!(
            default_commit_url(Some("https://github.com/intel-lab-lkp/linux/commits/x"), "abcdef1").as_deref(),
            Some("https://github.com/intel-lab-lkp/linux/commit/abcdef1")
        );
        assert_eq!(
            default_commit_url(None, "v6.16-rc4").as_deref(),
            Some("https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tag/?h=v6.16-rc4")
        );
        assert_eq!(default_commit_url(None, "3.1.0-rc9-ioless-full-nfs-wq5-next-20111014+"), None);
        assert_eq!(default_commit_url(Some("git://neil.brown.name/md"), "cf170f3fa451"), None);
    }

    #[test]
    fn message_ids_are_escaped_in_lore_links() {
        assert_eq!(
            mid_escape("202402182000.f21279e1-oliver.sang@intel.com"),
            "202402182000.f21279e1-oliver.sang@intel.com"
        );
        assert_eq!(mid_escape("a/b#c?d%e f"), "a%2Fb%23c%3Fd%25e%20f");
    }
}
