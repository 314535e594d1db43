//! A report's page carries its document (`model::paths::page_doc`) without what the page's rows
//! already show: a row whose line on the page reads back to its metric, values, stddev and
//! change exactly is carried as its position there (`DocRow::at`), and filled from the page's
//! text when the document is read (`filled`). The page's rows are the document's rows once.

use crate::report::{slots, tables, RowsText};
use crate::rows::SortKey;
use model::{DocRow, ReportDoc};

/// `d` as its page carries it: each row that its table's line on the page gives back exactly (a
/// table of a base and one head column) reduced to that line's position.
pub fn carried(d: &ReportDoc) -> ReportDoc {
    let mut out = d.clone();
    for (slot, t) in slots(d).iter().zip(tables(d, &|_| 0)) {
        if slot.head != 1 || d.sections[slot.section].commits.len() > 2 || t.rows.is_empty() {
            continue;
        }
        let text = RowsText::of(&t.rows, SortKey::default());
        let cols = Columns::of(&text.header);
        for (at, (&k, (lead, change, tail))) in text.order.iter().zip(&text.lines).enumerate() {
            let row = &mut out.sections[slot.section].rows[slot.rows[k]];
            let line = format!("{lead}{change}{tail}");
            let read = cols.as_ref().and_then(|c| c.read(&line));
            if read.is_some_and(|read| plain(&row.metric) && read.gives(row)) {
                row.at = Some(at as u32);
                row.metric = String::new();
                (row.values, row.stddev_pct, row.changes) = (Vec::new(), Vec::new(), Vec::new());
            }
        }
    }
    out
}

/// A metric name that reads back from a page's text as it was written: no control character (the
/// HTML parser turns `\r` into `\n` and NUL into U+FFFD).
fn plain(metric: &str) -> bool {
    !metric.chars().any(char::is_control)
}

/// `d` (read from a page) with every row the page shows filled from `rows`, the text of its
/// tables' rows (`pre.rows`, in the page's order). An error when the page's rows do not give them.
pub fn filled(mut d: ReportDoc, rows: &[String]) -> Result<ReportDoc, String> {
    if !d.sections.iter().any(|s| s.rows.iter().any(|r| r.at.is_some())) {
        return Ok(d);
    }
    let mut texts = rows.iter();
    for slot in slots(&d).iter().filter(|s| !s.rows.is_empty()) {
        let text = texts.next().ok_or("the page shows fewer tables than its report document has")?;
        if slot.head != 1 {
            continue;
        }
        let mut lines = text.split('\n');
        let cols = lines.next().and_then(Columns::of);
        let lines: Vec<&str> = lines.collect();
        for &k in &slot.rows {
            let row = &mut d.sections[slot.section].rows[k];
            let Some(at) = row.at.take() else { continue };
            let read = cols.as_ref().zip(lines.get(at as usize)).and_then(|(c, line)| c.read(line));
            let read = read.ok_or_else(|| format!("the page has no row {at} in table {} of its rows", slot.section))?;
            read.fill(row);
        }
    }
    match d.sections.iter().flat_map(|s| &s.rows).find(|r| r.at.is_some()) {
        Some(r) => Err(format!("the page's tables do not show its report document's row at line {}", r.line)),
        None => Ok(d),
    }
}

/// The text of each `<pre class="rows">` of a page's HTML, as the browser's `textContent` gives it
/// (tags dropped, the escapes of `html::Html` undone): what `filled` reads.
pub fn page_rows(html: &str) -> Vec<String> {
    const OPEN: &str = "<pre class=\"rows\"";
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at..];
        let Some(start) = after.find('>') else { break };
        let Some(end) = after.find("</pre>") else { break };
        out.push(text_of(&after[start + 1..end]));
        rest = &after[end..];
    }
    out
}

/// The text of a `<pre>`'s markup: tags dropped, entities undone.
fn text_of(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let mut rest = markup;
    while let Some(at) = rest.find(['<', '&']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with('<') {
            rest = rest.find('>').map_or("", |e| &rest[e + 1..]);
            continue;
        }
        let entity = [("&amp;", '&'), ("&lt;", '<'), ("&gt;", '>'), ("&quot;", '"'), ("&#39;", '\'')]
            .into_iter()
            .find(|(e, _)| rest.starts_with(e));
        let (skip, c) = entity.map_or((1, '&'), |(e, c)| (e.len(), c));
        out.push(c);
        rest = &rest[skip..];
    }
    out.push_str(rest);
    out
}

/// Where a table's text puts its columns (in characters): base ends at `base`, the change at
/// `change`, head at `head`; the metric starts two after it. From the header line.
struct Columns {
    base: usize,
    change: usize,
    head: usize,
}

/// One line of a table's text, read: its metric, base and head (mean, stddev) and change.
struct Line {
    metric: String,
    base: Option<(f64, Option<f64>)>,
    change: Option<f64>,
    head: Option<(f64, Option<f64>)>,
}

impl Columns {
    fn of(header: &str) -> Option<Columns> {
        let base = header.find("base")? + 4;
        let change = base + header[base..].find("%change")? + 7;
        let head = change + header[change..].find("head")? + 4;
        (header[head..] == *"  metric").then_some(Columns { base, change, head })
    }

    fn read(&self, line: &str) -> Option<Line> {
        // the byte offsets of the columns' character positions, found in one pass
        let marks = [self.base, self.base + 2, self.change, self.change + 2, self.head, self.head + 2];
        let mut at = [None; 6];
        for (n, (b, _)) in line.char_indices().chain([(line.len(), ' ')]).enumerate() {
            for (k, m) in marks.iter().enumerate() {
                if *m == n {
                    at[k] = Some(b);
                }
            }
            if n >= self.head + 2 {
                break;
            }
        }
        let [b0, b1, c0, c1, h0, h1] = at.map(|a| a.unwrap_or(usize::MAX));
        let part = |a: usize, b: usize| line.get(a..b);
        [(b0, b1), (c0, c1), (h0, h1)].iter().all(|&(a, b)| part(a, b) == Some("  ")).then_some(())?;
        Some(Line {
            metric: part(h1, line.len())?.to_string(),
            base: cell(part(0, b0)?)?,
            change: number(part(b1, c0)?.trim().trim_end_matches('%'))?,
            head: cell(part(c1, h0)?)?,
        })
    }
}

/// `Some(None)` for an empty text, `Some(Some(v))` for a number as Rust prints it (`+5.2`,
/// `1.583e+10`, `NaN`, `-inf`), `None` for anything else. Read by `serde_json`, already in the app
/// (`str::parse` would add Rust's float parser to its shell).
fn number(s: &str) -> Option<Option<f64>> {
    match s {
        "" => Some(None),
        "NaN" => Some(Some(f64::NAN)),
        "inf" => Some(Some(f64::INFINITY)),
        "-inf" => Some(Some(f64::NEG_INFINITY)),
        _ => serde_json::from_str(s.strip_prefix('+').unwrap_or(s)).ok().map(Some),
    }
}

/// A cell's text (`10702 ± 3%`, `10702`, or empty) read.
fn cell(s: &str) -> Option<Option<(f64, Option<f64>)>> {
    let s = s.trim();
    let (mean, sd) = match s.split_once(" ± ") {
        Some((m, sd)) => (m, number(sd.strip_suffix('%')?)?),
        None => (s, None),
    };
    Some(number(mean)?.map(|m| (m, sd)))
}

impl Line {
    fn fill(self, r: &mut DocRow) {
        let (b, h) = (self.base, self.head);
        r.metric = self.metric;
        r.values = vec![b.map(|c| c.0), h.map(|c| c.0)];
        r.stddev_pct = vec![b.and_then(|c| c.1), h.and_then(|c| c.1)];
        r.changes = vec![self.change];
    }

    /// Filling a row from this line gives `r` back, bit for bit.
    fn gives(self, r: &DocRow) -> bool {
        let mut got = DocRow { at: None, ..r.clone() };
        self.fill(&mut got);
        let bits = |v: &[Option<f64>]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
        got.metric == r.metric
            && bits(&got.values) == bits(&r.values)
            && bits(&got.stddev_pct) == bits(&r.stddev_pct)
            && bits(&got.changes) == bits(&r.changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{ChangeKind, DocJob, DocSection};

    fn row(
        line: usize,
        job: u32,
        metric: &str,
        v: [Option<f64>; 2],
        sd: [Option<f64>; 2],
        change: Option<f64>,
    ) -> DocRow {
        DocRow {
            line,
            job,
            metric: metric.into(),
            values: v.to_vec(),
            stddev_pct: sd.to_vec(),
            changes: vec![change],
            change_kind: vec![ChangeKind::Percent],
            ..Default::default()
        }
    }

    fn doc() -> ReportDoc {
        let job = |tc: &str| DocJob { testcase: tc.into(), machine: "m".into(), ..Default::default() };
        let s2 = |rows| DocSection { commits: vec!["a".into(), "b".into()], rows, ..Default::default() };
        ReportDoc {
            id: "00000000000000aa".into(),
            jobs: vec![job("fio-basic"), job("fsmark")],
            sections: vec![
                s2(vec![
                    row(10, 0, "fio.write_bw_MBps", [Some(1329.0), Some(1290.0)], [Some(2.0), None], Some(-2.9)),
                    row(11, 1, "fsmark.files_per_sec", [Some(20.5), Some(22.75)], [None, Some(12.0)], Some(11.0)),
                    // the page prints 1234.5 as 1234: carried whole
                    row(12, 0, "fio.write_iops", [Some(1234.5), Some(1300.0)], [None, None], Some(5.3)),
                    // escaped on the page, two spaces in its name, a base it lacks
                    row(13, 0, "a&b <c>  \"d'", [None, Some(3.0)], [None, None], None),
                    // a control character does not read back from HTML: carried whole
                    row(14, 0, "bad\rname", [Some(1.0), Some(2.0)], [None, None], Some(100.0)),
                    DocRow {
                        fail: true,
                        fails: vec![Some(1), Some(3)],
                        ..row(15, 0, "dmesg.x", [None, None], [None, None], None)
                    },
                    DocRow { aggregate: true, ..row(16, 0, "agg", [Some(1.0), Some(2.0)], [None, None], Some(100.0)) },
                    row(17, 0, "perf-stat.ps.cycles", [Some(7.868e8), Some(6.867e8)], [Some(3.0), None], Some(-12.7)),
                    row(18, 0, "zero.signed", [Some(-0.0), Some(0.0)], [None, None], Some(-0.0)),
                    row(19, 0, "huge.change", [Some(1.0), Some(2.5e5)], [None, None], Some(2.5e7)),
                ]),
                // three columns: two tables share each row, carried whole
                DocSection {
                    commits: vec!["a".into(), "b".into(), "c".into()],
                    rows: vec![DocRow {
                        values: vec![Some(1.0), Some(2.0), Some(3.0)],
                        changes: vec![Some(100.0), Some(200.0)],
                        ..row(30, 0, "x", [None, None], [None, None], None)
                    }],
                    ..Default::default()
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn a_page_carries_its_rows_once_and_they_read_back_exactly() {
        let d = doc();
        let c = carried(&d);
        let by_page: Vec<usize> =
            c.sections.iter().flat_map(|s| &s.rows).filter(|r| r.at.is_some()).map(|r| r.line).collect();
        assert_eq!(by_page, vec![10, 11, 13, 17, 18, 19]);
        for r in c.sections.iter().flat_map(|s| &s.rows).filter(|r| r.at.is_some()) {
            assert!(r.metric.is_empty() && r.values.is_empty() && r.changes.is_empty(), "{r:?}");
        }
        let page = crate::page::report_page(&d, &Default::default(), "").into_string();
        let rows = page_rows(&page);
        assert_eq!(rows.len(), 4, "fio-basic, fsmark, and the three-column section's two tables");
        assert!(rows[0].contains("a&b <c>  \"d'") && !rows[0].contains("<b"), "{}", rows[0]);
        assert_eq!(filled(c.clone(), &rows).unwrap(), d);
        // carried through JSON as the page holds it
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(filled(serde_json::from_str(&json).unwrap(), &rows).unwrap(), d);
    }

    #[test]
    fn a_page_without_its_rows_is_an_error_not_fewer_rows() {
        let d = doc();
        let c = carried(&d);
        let rows = page_rows(&crate::page::report_page(&d, &Default::default(), "").into_string());
        let e = filled(c.clone(), &rows[..1]).unwrap_err();
        assert!(e.contains("fewer tables"), "{e}");
        let mut short = rows.clone();
        short[0] = short[0].lines().take(2).collect::<Vec<_>>().join("\n");
        let e = filled(c.clone(), &short).unwrap_err();
        assert!(e.contains("no row"), "{e}");
        let mut broken = rows;
        broken[1] = broken[1].replace("22.75", "22.7x");
        assert!(filled(c, &broken).is_err());
    }
}
