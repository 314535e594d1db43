//! "Bring your own mail", the plain part: the box above a mail read in the browser — what was
//! read, that nothing left the browser, the importer's reason when it is not a report, every
//! problem it named, a choice when the mail held several reports, and a link to the hosted copy
//! when the dataset has the same report. On the page (wasm only): `worker` starts the mail
//! reader's Web Worker, `state` holds the page's mail and its read, `view` is the panel and the
//! page-wide drop and paste listeners.

#[cfg(target_arch = "wasm32")]
pub mod state;
#[cfg(target_arch = "wasm32")]
pub mod view;
#[cfg(target_arch = "wasm32")]
pub mod worker;

use crate::html::{Act, Html};
use crate::put;
use model::Upload;

/// The box's HTML. `pick` is the shown report among `up.docs`; `hosted` the permalink key of the
/// same report in the hosted data, if it is there. Actions: `data-act="mail-pick"` (value: a
/// position), `"open"` (value: the hosted permalink), `"mail-close"`.
pub fn result_html(up: &Upload, pick: usize, hosted: Option<&str>) -> Html {
    let mut out = Html::new();
    out.lit("<div class=\"mail-result\" data-testid=\"mail-result\" role=\"status\">");
    put!(
        out,
        "<p><strong>{}</strong> ({}), read in this browser by the importer's parser: nothing was uploaded. \
         <button data-act=\"{}\" data-testid=\"mail-close\">Close</button></p>",
        up.name,
        bytes_label(up.bytes),
        Act::MailClose
    );
    if up.docs.is_empty() {
        let why = up.skipped.as_deref().unwrap_or("no report could be read");
        put!(out, "<p class=\"mail-reason\" data-testid=\"mail-reason\">Not a report: {}.</p>", why);
    }
    if up.docs.len() > 1 {
        put!(out, "<p>{} reports in this mail:</p><ol class=\"mail-docs\">", up.docs.len());
        for (i, d) in up.docs.iter().enumerate() {
            put!(out, "<li><button data-act=\"{}\" data-value=\"{}\"", Act::MailPick, i);
            if i == pick {
                out.lit(" aria-current=\"true\"");
            }
            put!(out, ">{}</button></li>", d.subject.as_deref().unwrap_or(&d.id));
        }
        out.lit("</ol>");
    }
    if let Some(key) = hosted.filter(|_| pick < up.docs.len()) {
        put!(
            out,
            "<p data-testid=\"mail-hosted\">This report is in the hosted data too: \
             <button data-act=\"{}\" data-value=\"{}\">open the hosted copy</button></p>",
            Act::Open,
            key
        );
    }
    if !up.errors.is_empty() {
        put!(
            out,
            "<details class=\"mail-errors\" data-testid=\"mail-errors\" open><summary>{} problem{} (the rest was read)</summary><ul>",
            up.errors.len(),
            if up.errors.len() == 1 { "" } else { "s" }
        );
        for e in &up.errors {
            put!(out, "<li><code>{}</code></li>", e);
        }
        out.lit("</ul></details>");
    }
    out.lit("</div>");
    out
}

fn bytes_label(n: usize) -> String {
    if n < 10_000 {
        format!("{n} bytes")
    } else {
        format!("{:.0} KB", n as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::ReportDoc;

    fn doc(id: &str, subject: &str) -> ReportDoc {
        ReportDoc { id: id.into(), subject: Some(subject.into()), ..Default::default() }
    }

    #[test]
    fn a_report_says_where_it_was_read_and_links_the_hosted_copy() {
        let up =
            Upload { name: "a<b>.eml".into(), bytes: 41_234, docs: vec![doc("r1", "[x] y")], ..Default::default() };
        let html = result_html(&up, 0, Some("m@x")).into_string();
        assert!(html.contains("<strong>a&lt;b&gt;.eml</strong> (41 KB)"), "{html}");
        assert!(html.contains("nothing was uploaded"));
        assert!(html.contains("data-act=\"open\" data-value=\"m@x\""));
        assert!(!html.contains("mail-reason") && !html.contains("mail-docs") && !html.contains("mail-errors"));
        let alone = result_html(&up, 0, None).into_string();
        assert!(!alone.contains("mail-hosted"));
    }

    #[test]
    fn not_a_report_gives_the_importers_reason_and_problems() {
        let up = Upload {
            name: "pasted text".into(),
            bytes: 52,
            skipped: Some("no comparison table found".into()),
            errors: vec!["pasted text:9: bad <value>".into()],
            ..Default::default()
        };
        let html = result_html(&up, 0, None).into_string();
        assert!(html.contains("(52 bytes)"));
        assert!(html.contains("Not a report: no comparison table found."), "{html}");
        assert!(html.contains("1 problem (the rest was read)"));
        assert!(html.contains("<code>pasted text:9: bad &lt;value&gt;</code>"));
    }

    #[test]
    fn several_reports_offer_a_choice() {
        let up =
            Upload { name: "t.mbox".into(), docs: vec![doc("a", "first"), doc("b", "second")], ..Default::default() };
        let html = result_html(&up, 1, None).into_string();
        assert!(html.contains("2 reports in this mail"));
        assert!(html.contains("data-value=\"0\">first</button>"));
        assert!(html.contains("data-value=\"1\" aria-current=\"true\">second</button>"), "{html}");
    }
}
