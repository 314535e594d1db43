//! A report's headline metric in other reports (`model::record`): a one-line summary, the signs of
//! noise with their numbers, one mark per report on a time axis, the nearest reports listed; and
//! the other reports of its head commit. The static page carries it; the app shows the same.

use crate::html::Html;
use crate::put;
use crate::report::{short_date, word_class};
use model::record::{self, Hint, Summary};
use model::ReportSummary;

/// Reports listed under the picture (nearest in time first chosen, shown newest first).
pub const LISTED: usize = 12;

/// Marks drawn (the nearest in time).
pub const MARKS: usize = 150;

/// The record of `me` (`others`: every other report of its record, any order) and the reports of
/// its head commit (`same`). Empty when `me` has no headline metric.
pub fn record_html(me: &ReportSummary, others: &[&ReportSummary], same: &[&ReportSummary]) -> Html {
    let mut out = Html::new();
    let Some((testcase, metric)) = record::key(me) else { return out };
    out.lit("<section class=\"record\" data-testid=\"metric-record\">");
    put!(out, "<h3>{} in other reports of {} ({})</h3>", metric, testcase, others.len());
    if others.is_empty() {
        out.lit("<p class=\"hint\">No other report stated a change of this metric in this testcase.</p></section>");
        same_commit_html(&mut out, same);
        return out;
    }
    put!(
        out,
        "<p class=\"record-summary\" data-testid=\"record-summary\">{}</p>",
        summary_text(&record::summary(me, others))
    );
    let hints = record::hints(me, others);
    for h in &hints {
        hint_html(&mut out, me, h, others);
    }
    let near = nearest(me, others, MARKS);
    picture(&mut out, me, &near);
    let mut listed: Vec<&ReportSummary> = near.into_iter().take(LISTED).collect();
    listed.sort_by(|a, b| b.time.cmp(&a.time).then(a.id.cmp(&b.id)));
    out.lit("<ul class=\"record-list\" data-testid=\"record-list\">");
    for r in &listed {
        item_html(&mut out, me, r);
    }
    out.lit("</ul>");
    if others.len() > listed.len() {
        put!(
            out,
            "<p class=\"hint\">{} more: <a href=\"{}\">every report of {}</a>.</p>",
            others.len() - listed.len(),
            model::paths::list_url(&model::paths::testcase_list(testcase), None),
            testcase
        );
    }
    out.lit("</section>");
    same_commit_html(&mut out, same);
    out
}

/// `reported 20 times since 2020: 9 regressions, 11 improvements; |change| median 30.0%; on this
/// machine 3 times, alternating`.
pub fn summary_text(s: &Summary) -> String {
    let mut t = format!("Reported {} times", s.reports);
    if let Some(since) = s.since {
        t.push_str(&format!(" since {}", year(since)));
    }
    t.push_str(&format!(": {} regressions, {} improvements", s.regressions, s.improvements));
    if let Some(m) = s.median_abs {
        t.push_str(&format!("; |change| median {m:.1}%"));
    }
    if s.on_machine > 1 {
        t.push_str(&format!("; on this machine {} times", s.on_machine));
        if s.alternating {
            t.push_str(", alternating");
        }
    }
    t
}

fn year(t: i64) -> i64 {
    model::date::civil_from_days(t.div_euclid(86_400)).0
}

fn day(t: Option<i64>) -> String {
    t.map(|t| {
        let (y, m, d) = model::date::civil_from_days(t.div_euclid(86_400));
        format!("{y:04}-{m:02}-{d:02}")
    })
    .unwrap_or_else(|| "undated".into())
}

fn change_text(r: &ReportSummary) -> String {
    r.change.map(|c| format!("{c:+.1}%")).unwrap_or_else(|| "–".into())
}

/// A link to `r`'s page (the app opens it in place: `report_of_link`).
fn link(out: &mut Html, r: &ReportSummary, text: &str) {
    put!(out, "<a href=\"{}\">{}</a>", model::paths::report_url(&crate::report::permalink_key(r)), text);
}

/// The report a link of the record names (`href` as written: `m/<dir>/`): its page's folder, a
/// Message-ID or a report id, either of which opens it.
pub fn report_of_link(href: &str) -> Option<&str> {
    href.strip_prefix("m/")?.strip_suffix('/').filter(|k| !k.is_empty() && !k.contains('/'))
}

fn hint_html(out: &mut Html, me: &ReportSummary, h: &Hint, others: &[&ReportSummary]) {
    out.lit("<p class=\"noise-hint\" data-testid=\"noise-hint\"><b>Noise?</b> ");
    match h {
        Hint::Flips { machine, reports } => {
            put!(
                out,
                "On {} this metric moved the other way within {} days of this report ({}): ",
                machine,
                record::FLIP_DAYS,
                change_text(me)
            );
            for (i, id) in reports.iter().enumerate() {
                let Some(r) = others.iter().find(|r| &r.id == id) else { continue };
                if i > 0 {
                    out.lit(", ");
                }
                link(out, r, &format!("{} {}", change_text(r), day(r.time)));
            }
            out.lit(". A metric that flips sign on one machine is often code alignment, not the commit.");
        }
        Hint::InsideSpread { change, earlier, median_abs } => {
            put!(
                out,
                "{} is inside the spread of the {} earlier reports of this metric (median |change| {}%).",
                format!("{change:+.1}%").as_str(),
                *earlier,
                format!("{median_abs:.1}").as_str()
            );
        }
    }
    out.lit("</p>");
}

/// The `n` reports nearest to `me` in time (undated ones last), nearest first.
fn nearest<'a>(me: &ReportSummary, others: &[&'a ReportSummary], n: usize) -> Vec<&'a ReportSummary> {
    let t = me.time.unwrap_or(0);
    let far = |r: &ReportSummary| r.time.map_or(i64::MAX, |x| (x - t).abs());
    let mut v: Vec<&ReportSummary> = others.to_vec();
    let by = |a: &&ReportSummary, b: &&ReportSummary| far(a).cmp(&far(b)).then_with(|| a.id.cmp(&b.id));
    if v.len() > n {
        v.select_nth_unstable_by(n, by);
        v.truncate(n);
    }
    v.sort_by(by);
    v
}

/// One mark per report on a time axis, up for a rise and down for a fall of the metric, coloured by
/// the mail's word; `me` a ring. Dated reports only.
fn picture(out: &mut Html, me: &ReportSummary, near: &[&ReportSummary]) {
    let dated: Vec<(&ReportSummary, i64, f64)> =
        near.iter().copied().chain(std::iter::once(me)).filter_map(|r| Some((r, r.time?, r.change?))).collect();
    if dated.len() < 2 {
        return;
    }
    let (t0, t1) = dated.iter().fold((i64::MAX, i64::MIN), |(a, b), (_, t, _)| (a.min(*t), b.max(*t)));
    let top = dated.iter().map(|d| d.2.abs()).fold(1.0f64, f64::max);
    let (w, mid) = (600u32, 40.0);
    let x = |t: i64| 10.0 + (f64::from(w) - 20.0) * if t1 > t0 { (t - t0) as f64 / (t1 - t0) as f64 } else { 0.5 };
    let y = |c: f64| mark_height(c, top);
    let mut paths = [String::new(), String::new(), String::new()];
    for (r, t, c) in dated.iter().filter(|d| d.0.id != me.id) {
        let k = match record::is_regression(r) {
            Some(true) => 0,
            Some(false) => 1,
            None => 2,
        };
        paths[k].push_str(&format!("M{:.0} {mid}v{:.0}", x(*t), y(*c)));
    }
    put!(
        out,
        "<svg class=\"record-marks\" viewBox=\"0 0 {} 80\" role=\"img\" aria-label=\"{} reports from {} to {}: a mark up for a rise, down for a fall; this report ringed\">\
         <path class=\"axis\" d=\"M0 40h{}\"/>",
        w,
        dated.len(),
        day(Some(t0)).as_str(),
        day(Some(t1)).as_str(),
        w
    );
    for (k, cls) in ["r", "i", "n"].iter().enumerate() {
        if !paths[k].is_empty() {
            put!(out, "<path class=\"{}\" d=\"{}\"/>", *cls, paths[k].as_str());
        }
    }
    if let (Some(t), Some(c)) = (me.time, me.change) {
        put!(
            out,
            "<circle class=\"me\" cx=\"{}\" cy=\"{}\" r=\"4\"/>",
            format!("{:.0}", x(t)).as_str(),
            format!("{:.0}", mid + y(c)).as_str()
        );
    }
    put!(
        out,
        "<text x=\"0\" y=\"78\">{}</text><text x=\"{}\" y=\"78\" text-anchor=\"end\">{}</text></svg>",
        year(t0),
        w,
        year(t1)
    );
}

/// Half the picture's height: the mark of the largest |change|.
const HALF: f64 = 34.0;

/// The signed height of a mark for `change` (negative is up, as SVG's y grows down), `top` the
/// largest |change| drawn: on a log scale, so that one +3,000 % report leaves the others' −7 % and
/// +12 % visible, and never under 2 units for a change that is not 0.
fn mark_height(change: f64, top: f64) -> f64 {
    if change == 0.0 {
        return 0.0;
    }
    let h = (HALF * log2_1p(change.abs()) / log2_1p(top)).clamp(2.0, HALF);
    if change > 0.0 {
        -h
    } else {
        h
    }
}

/// log2(1 + x) for x ≥ 0, within 0.09 of it: the exponent of `1 + x` and its mantissa, linear
/// between powers of two (enough for a picture, and no `log` routine in the page's module).
fn log2_1p(x: f64) -> f64 {
    let bits = (1.0 + x).to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as f64 - 1023.0;
    let mantissa = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52)) - 1.0;
    exponent + mantissa
}

/// A report of the record in a line: date (its page), branch, commit, machine and the parameters
/// that differ from `me`'s job, its change.
fn item_html(out: &mut Html, me: &ReportSummary, r: &ReportSummary) {
    out.lit("<li>");
    link(out, r, &r.date.as_deref().map(short_date).unwrap_or_else(|| day(r.time)));
    put!(
        out,
        " <span class=\"branch\">{}</span> <code>{}</code> ",
        r.branch.as_deref().unwrap_or(""),
        r.commit.as_deref().map(model::short_id).unwrap_or("")
    );
    if r.machine != me.machine {
        put!(out, "{} ", r.machine);
    }
    let differ: Vec<String> = r
        .params
        .iter()
        .filter(|(k, v)| me.params.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}={v}"))
        .take(4)
        .collect();
    if !differ.is_empty() {
        put!(out, "<span class=\"differ\">{}</span> ", differ.join(" ").as_str());
    }
    put!(out, "<b class=\"headline {}\">{}</b>", word_class(&r.word), change_text(r));
    reply_html(out, r);
    out.lit("</li>");
}

/// What came of a report: the start of its first reply's note, quoted.
fn reply_html(out: &mut Html, r: &ReportSummary) {
    if let Some(n) = &r.reply {
        put!(out, " <q class=\"reply\" data-testid=\"record-reply\">{}</q>", n.as_str());
    }
}

/// The other reports of the same head commit (any branch), newest first; nothing when none.
fn same_commit_html(out: &mut Html, same: &[&ReportSummary]) {
    if same.is_empty() {
        return;
    }
    put!(
        out,
        "<section class=\"same-commit\" data-testid=\"same-commit\"><h3>This commit in other reports ({})</h3>",
        same.len()
    );
    reports_html(out, same, false, None);
    out.lit("</section>");
}

/// `reports` newest first, each in a line: its date (its page), branch, head commit (`commit`),
/// subject, headline and what came of it.
fn reports_html(out: &mut Html, reports: &[&ReportSummary], commit: bool, testid: Option<&str>) {
    let mut v = reports.to_vec();
    v.sort_by(|a, b| b.time.cmp(&a.time).then(a.id.cmp(&b.id)));
    out.lit("<ul>");
    for r in v {
        match testid {
            Some(t) => put!(out, "<li data-testid=\"{}\">", t),
            None => out.lit("<li>"),
        };
        link(out, r, &r.date.as_deref().map(short_date).unwrap_or_else(|| day(r.time)));
        put!(out, " <span class=\"branch\">{}</span>", r.branch.as_deref().unwrap_or(""));
        if commit {
            put!(out, " <code>{}</code>", r.commit.as_deref().map(model::short_id).unwrap_or(""));
        }
        put!(
            out,
            " {} <b class=\"headline {}\">{}</b>",
            r.subject.as_deref().unwrap_or(&r.id),
            word_class(&r.word),
            crate::report::headline_text(r)
        );
        reply_html(out, r);
        out.lit("</li>");
    }
    out.lit("</ul>");
}

/// The reports of the commits `me`'s replies name as fixed or reverted (`named`), and the
/// reports whose replies name `me`'s head commit (`naming`); nothing when neither has one.
pub fn named_html(me: &ReportSummary, named: &[&ReportSummary], naming: &[&ReportSummary]) -> Html {
    let mut out = Html::new();
    if named.is_empty() && naming.is_empty() {
        return out;
    }
    out.lit("<section class=\"named-commits\" data-testid=\"named-commits\"><h3>Commits named in the replies</h3>");
    if !named.is_empty() {
        let ids: Vec<&str> = me.names.iter().map(|c| model::short_id(c)).collect();
        put!(out, "<p>Its replies name {} (a fix or a revert); reported in:</p>", ids.join(", ").as_str());
        reports_html(&mut out, named, true, Some("named-report"));
    }
    if !naming.is_empty() {
        put!(
            out,
            "<p>The replies to these reports name its commit {} (a fix or a revert):</p>",
            me.commit.as_deref().map(model::short_id).unwrap_or("")
        );
        reports_html(&mut out, naming, true, Some("naming-report"));
    }
    out.lit("</section>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str, day: i64, change: f64, machine: &str) -> ReportSummary {
        ReportSummary {
            id: id.into(),
            message_id: Some(format!("{id}@x")),
            time: Some(1_600_000_000 + day * 86_400),
            testcases: vec!["t".into()],
            metric: Some("t.m".into()),
            change: Some(change),
            word: if change < 0.0 { "regression" } else { "improvement" }.into(),
            machine: machine.into(),
            commit: Some(format!("{id:0<12}")),
            subject: Some(format!("<b>{id}</b>")),
            ..Default::default()
        }
    }

    #[test]
    fn the_reports_of_the_commits_its_replies_name_are_linked_both_ways() {
        let mut me = r("a", 100, -6.0, "m1");
        me.names = vec!["f628c7e5a7c0".into()];
        let (named, mut naming) = (r("f628c7e5a7c0", 90, -3.0, "m2"), r("d", 120, 4.0, "m1"));
        naming.reply = Some("Fixes: aaaaaaaaaaaa".into());
        assert_eq!(named_html(&me, &[], &[]).into_string(), "", "nothing named, nothing shown");
        let html = named_html(&me, &[&named], &[&naming]).into_string();
        assert!(html.starts_with("<section class=\"named-commits\" data-testid=\"named-commits\">"), "{html}");
        assert!(html.contains("<p>Its replies name f628c7e5a7c0 (a fix or a revert); reported in:</p>"), "{html}");
        assert!(html.contains("<li data-testid=\"named-report\"><a href=\"m/f628c7e5a7c0@x/\""), "{html}");
        assert!(html.contains("name its commit a00000000000 (a fix or a revert)"), "{html}");
        assert!(html.contains("<li data-testid=\"naming-report\"><a href=\"m/d@x/\""), "{html}");
        assert!(html.contains("&lt;b&gt;d&lt;/b&gt;") && !html.contains("<b>d</b>"), "subjects stay inert: {html}");
        assert!(html.contains("<q class=\"reply\" data-testid=\"record-reply\">Fixes: aaaaaaaaaaaa</q>"), "{html}");
        let only_back = named_html(&me, &[], &[&naming]).into_string();
        assert!(!only_back.contains("Its replies name") && only_back.contains("naming-report"), "{only_back}");
    }

    #[test]
    fn the_record_shows_its_summary_hints_marks_and_links() {
        let me = r("a", 100, -6.0, "m1");
        let mut others = [r("b", 70, 8.0, "m1"), r("c", 10, -9.0, "m2")];
        others[1].reply = Some("Not a <regression>: the fix is in".into());
        let refs: Vec<&ReportSummary> = others.iter().collect();
        let same = [r("z", 110, -6.3, "m1")];
        let html = record_html(&me, &refs, &[&same[0]]).into_string();
        assert!(html.contains("<h3>t.m in other reports of t (2)</h3>"), "{html}");
        assert!(html.contains("Reported 3 times since 2020: 2 regressions, 1 improvements; |change| median 8.0%; on this machine 2 times"), "{html}");
        assert!(html.contains("data-testid=\"noise-hint\"") && html.contains("href=\"m/b@x/\">+8.0% 2020-"), "{html}");
        assert_eq!(html.matches("<li>").count(), 3, "two of the record, one of the commit: {html}");
        assert!(
            html.contains(
                "<q class=\"reply\" data-testid=\"record-reply\">Not a &lt;regression&gt;: the fix is in</q></li>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<path class=\"r\"")
                && html.contains("<path class=\"i\"")
                && html.contains("<circle class=\"me\""),
            "{html}"
        );
        assert!(
            html.contains("data-testid=\"same-commit\"")
                && html.contains("&lt;b&gt;z&lt;/b&gt;")
                && !html.contains("<b>z</b>"),
            "{html}"
        );
        assert_eq!(
            (report_of_link("m/b@x/"), report_of_link("m/"), report_of_link("p/all/")),
            (Some("b@x"), None, None)
        );
        let alone = record_html(&me, &[], &[]).into_string();
        assert!(alone.contains("No other report stated") && !alone.contains("same-commit"), "{alone}");
        let mut none = me.clone();
        none.metric = None;
        assert_eq!(record_html(&none, &refs, &[]).into_string(), "");
    }

    #[test]
    fn the_log_is_close_enough_to_draw() {
        for x in [0.0, 0.5, 1.0, 7.4, 12.0, 99.0, 3268.0, 1e6] {
            assert!((log2_1p(x) - (1.0f64 + x).log2()).abs() < 0.09, "{x}");
        }
    }

    /// Regression: one +3,268 % report of 976 drew every other mark 0 units high (a linear scale).
    #[test]
    fn an_outlier_leaves_the_other_marks_visible() {
        let top = 3268.0;
        assert_eq!(mark_height(top, top), -HALF, "the largest rise reaches the top");
        assert_eq!(mark_height(-top, top), HALF);
        assert_eq!(mark_height(0.0, top), 0.0);
        for c in [-7.4, 12.0, -0.3, 0.01] {
            let h = mark_height(c, top);
            assert!(h.abs() >= 2.0 && (h < 0.0) == (c > 0.0), "{c}% → {h}");
        }
        assert!(mark_height(-12.0, top).abs() > mark_height(-7.4, top).abs());
        let me = r("a", 100, -7.4, "m1");
        let others = [r("b", 70, 3268.0, "m1"), r("c", 10, -12.0, "m2")];
        let refs: Vec<&ReportSummary> = others.iter().collect();
        let html = record_html(&me, &refs, &[]).into_string();
        assert!(html.contains("<path class=\"r\" d=\"M10 40v11\"/>"), "{html}");
    }
}
