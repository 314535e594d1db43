//! Export: any table as CSV (RFC 4180: comma-separated, CRLF lines, fields with a comma, quote or
//! line break quoted, quotes doubled), for a spreadsheet or a script. Every row is exported, also
//! those a page step or "show all" keeps off screen: a report's table whole; Compare and Changes as
//! their filters select and their sort orders them. Numbers are written plain (no `%`, no `±`), so a spreadsheet reads them as
//! numbers; a text cell a spreadsheet would run as a formula (`=…`, `+…`, `@…`, `-…` that is not a
//! number) is prefixed with `'`.

use crate::changes::{self, ChangesModel};
use crate::compare::{Cell, Row};
use crate::reports::Table;
use model::{ChangeKind, Index};

/// A CSV document: the header line, then one line per row.
pub fn csv<I: IntoIterator<Item = Vec<String>>>(header: &[&str], rows: I) -> String {
    let mut out = String::new();
    line(&mut out, header.iter().map(|h| h.to_string()));
    for r in rows {
        line(&mut out, r);
    }
    out
}

fn line(out: &mut String, cells: impl IntoIterator<Item = String>) {
    for (i, c) in cells.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        field(out, &c);
    }
    out.push_str("\r\n");
}

fn field(out: &mut String, s: &str) {
    let formula = s.starts_with(['=', '+', '@', '-', '\t', '\r']) && s.parse::<f64>().is_err();
    let s = if formula { format!("'{s}") } else { s.to_string() };
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(&s);
    }
}

fn num(v: Option<f64>) -> String {
    v.map(|x| if x.is_finite() { format!("{x}") } else { String::new() }).unwrap_or_default()
}

const ROW_HEADER: [&str; 12] = [
    "metric",
    "base_commit",
    "base_mean",
    "base_stddev_pct",
    "base_runs",
    "head_commit",
    "head_mean",
    "head_stddev_pct",
    "head_runs",
    "change",
    "change_kind",
    "direction",
];

fn cell(c: &Option<Cell>) -> [String; 3] {
    match c {
        Some(c) => [num(Some(c.mean)), num(c.stddev_pct), c.runs.map(|r| r.to_string()).unwrap_or_default()],
        None => Default::default(),
    }
}

/// Compare rows (a report's table, or the Compare view) of `base` against `head`.
pub fn rows_csv<'a>(rows: impl IntoIterator<Item = &'a Row>, base: &str, head: &str) -> String {
    csv(
        &ROW_HEADER,
        rows.into_iter().map(|r| {
            let [bm, bs, br] = cell(&r.base);
            let [hm, hs, hr] = cell(&r.head);
            let kind = r.kind.as_str().to_string();
            let (b, h) = (base.to_string(), head.to_string());
            vec![r.metric.clone(), b, bm, bs, br, h, hm, hs, hr, num(r.change), kind, r.direction.as_str().to_string()]
        }),
    )
}

/// `fails:runs` as the mean and runs columns (`0:6` → `0`, `6`; an unstated side stays empty).
fn fail_cell(cell: &str) -> [String; 3] {
    let (fails, runs) = cell.split_once(':').unwrap_or((cell, ""));
    [fails.to_string(), String::new(), runs.to_string()]
}

/// A report's table: its rows, then its fail:runs rows (the failing runs as the mean, the runs as
/// the runs, the `%reproduction` as the change).
pub fn table_csv(t: &Table) -> String {
    let mut out = rows_csv(&t.rows, &t.base, &t.head);
    let fails = csv(
        &[],
        t.fails.iter().map(|f| {
            let [bf, bs, br] = fail_cell(&f.cells[0]);
            let [hf, hs, hr] = fail_cell(&f.cells[1]);
            let (b, h) = (t.base.clone(), t.head.clone());
            let change = f.change.trim_start_matches('+').trim_end_matches('%').to_string();
            vec![
                f.metric.clone(),
                b,
                bf,
                bs,
                br,
                h,
                hf,
                hs,
                hr,
                change,
                ChangeKind::Reproduction.as_str().into(),
                String::new(),
            ]
        }),
    );
    out.push_str(fails.trim_start_matches("\r\n"));
    out
}

/// Every row of the Changes listing.
pub fn changes_csv(idx: &Index, m: &ChangesModel) -> String {
    let header = [
        "testcase",
        "job",
        "job_label",
        "metric",
        "base_commit",
        "head_commit",
        "base_mean",
        "head_mean",
        "change",
        "change_kind",
        "direction",
        "p_value",
        "noise_ratio",
        "source",
        "headline",
        "report",
        "report_url",
        "notes",
    ];
    let commit = |c: u32| idx.commits.get(c as usize).map(|c| c.id.clone()).unwrap_or_default();
    let rows = (0..m.listing.rows.len()).filter_map(|i| m.row(i)).filter_map(|r| {
        let job = idx.jobs.get(r.job as usize)?;
        let rep = r.report.and_then(|k| idx.reports.get(k as usize));
        Some(vec![
            job.testcase.clone(),
            job.id.clone(),
            m.labels.get(&r.job).cloned().unwrap_or_default(),
            r.metric.clone(),
            commit(r.base),
            commit(r.head),
            num(Some(r.base_mean)),
            num(Some(r.head_mean)),
            num(Some(r.change)),
            r.kind.as_str().into(),
            r.direction.as_str().into(),
            num(r.p_value),
            num(r.noise_ratio),
            changes::source_text(r).into(),
            r.headline.to_string(),
            rep.and_then(|x| x.subject.clone()).unwrap_or_default(),
            rep.and_then(|x| x.url.clone()).unwrap_or_default(),
            rep.map(|x| x.notes.join(" ")).unwrap_or_default(),
        ])
    });
    csv(&header, rows)
}

/// A distribution's bins (value order): each side's mean, stddev % and single runs (space-separated,
/// where the source had them), and the change as lkp prints it for `%` metrics (percentage points).
pub fn dist_csv(idx: &Index, d: &crate::dist::Dist, pair: (u32, u32)) -> String {
    let header = [
        "bin",
        "metric",
        "base_commit",
        "base_mean",
        "base_stddev_pct",
        "base_runs",
        "head_commit",
        "head_mean",
        "head_stddev_pct",
        "head_runs",
        "change",
        "direction",
    ];
    let commit = |c: u32| idx.commits.get(c as usize).map(|c| c.id.clone()).unwrap_or_default();
    let side = |s: &Option<crate::dist::Side>| match s {
        Some(s) => {
            let runs: Vec<String> = s.values.iter().map(|v| num(Some(*v))).collect();
            [num(Some(s.mean)), num(s.stddev_pct), runs.join(" ")]
        }
        None => Default::default(),
    };
    let rows = d.rows.iter().map(|r| {
        let [bm, bs, br] = side(&r.base);
        let [hm, hs, hr] = side(&r.head);
        let (b, h) = (commit(pair.0), commit(pair.1));
        let (label, metric) = (r.bin.label.clone(), r.bin.metric.clone());
        vec![label, metric, b, bm, bs, br, h, hm, hs, hr, num(r.change), r.direction.as_str().into()]
    });
    csv(&header, rows)
}

/// The newest reports' headline changes (the Changes view with no testcase): the reports at
/// `rows` of `list`, as listed.
pub fn recent_csv(list: &[model::ReportSummary], rows: &[usize]) -> String {
    let header = [
        "date",
        "testcase",
        "machine",
        "parameters",
        "metric",
        "change",
        "word",
        "base_commit",
        "head_commit",
        "subject",
        "message_id",
    ];
    let params =
        |r: &model::ReportSummary| r.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
    let rows = rows.iter().filter_map(|&i| list.get(i)).map(|r| {
        vec![
            r.date.clone().unwrap_or_default(),
            r.testcases.first().cloned().unwrap_or_default(),
            r.machine.clone(),
            params(r),
            r.metric.clone().unwrap_or_default(),
            num(r.change),
            r.word.clone(),
            r.base.clone().unwrap_or_default(),
            r.commit.clone().unwrap_or_default(),
            r.subject.clone().unwrap_or_default(),
            r.message_id.clone().unwrap_or_default(),
        ]
    });
    csv(&header, rows)
}

/// A file name for an export: `lkp-<what>.<ext>`, with anything but `[A-Za-z0-9._-]` as `_`.
pub fn file_name(what: &str, ext: &str) -> String {
    let safe: String =
        what.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).take(80).collect();
    format!("lkp-{safe}.{ext}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Direction;

    #[test]
    fn fields_are_quoted_as_rfc_4180_says_and_formulas_are_defused() {
        let s = csv(&["a", "b"], [vec!["x,y".into(), "say \"hi\"".into()], vec!["two\nlines".into(), "-3.5".into()]]);
        assert_eq!(s, "a,b\r\n\"x,y\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",-3.5\r\n");
        let s = csv(
            &["m"],
            [vec!["=HYPERLINK(\"x\")".into()], vec!["+1+1".into()], vec!["@sum".into()], vec!["-x".into()]],
        );
        assert_eq!(s, "m\r\n\"'=HYPERLINK(\"\"x\"\")\"\r\n'+1+1\r\n'@sum\r\n'-x\r\n");
    }

    #[test]
    fn compare_rows_carry_numbers_not_text() {
        let c = |mean, sd, runs| Some(Cell { mean, stddev_pct: sd, runs, report: 0 });
        let rows = [
            Row {
                metric: "fio.write_iops".into(),
                base: c(20193.0, Some(3.0), Some(6)),
                head: c(18897.0, None, Some(6)),
                change: Some(-6.4),
                kind: ChangeKind::Percent,
                direction: Direction::Regression,
                stated: true,
            },
            Row {
                metric: "perf-profile.self.cycles-pp.x".into(),
                base: c(1.5, None, None),
                head: None,
                change: None,
                kind: ChangeKind::Absolute,
                direction: Direction::Undefined,
                stated: false,
            },
        ];
        let s = rows_csv(&rows, "aaa", "bbb");
        let lines: Vec<&str> = s.split("\r\n").collect();
        assert_eq!(lines[0], ROW_HEADER.join(","));
        assert_eq!(lines[1], "fio.write_iops,aaa,20193,3,6,bbb,18897,,6,-6.4,percent,regression");
        assert_eq!(lines[2], "perf-profile.self.cycles-pp.x,aaa,1.5,,,bbb,,,,,absolute,undefined");
        assert_eq!(lines.len(), 4, "{s}");
    }

    #[test]
    fn a_report_table_adds_its_fail_rows() {
        let t = Table {
            section: 0,
            job: "j".into(),
            base: "b".into(),
            head: "h".into(),
            rows: vec![],
            fails: vec![crate::reports::FailRow {
                metric: "dmesg.oops".into(),
                cells: vec!["0:6".into(), ":6".into()],
                change: "+100%".into(),
            }],
        };
        let s = table_csv(&t);
        // fails and runs in their own columns (a spreadsheet would read `0:6` as a time)
        assert_eq!(s, format!("{}\r\ndmesg.oops,b,0,,6,h,,,6,100,reproduction,\r\n", ROW_HEADER.join(",")));
    }

    #[test]
    fn file_names_are_plain() {
        assert_eq!(file_name("fio-basic · lkp-skl/xfs", "csv"), "lkp-fio-basic___lkp-skl_xfs.csv");
    }

    #[test]
    fn the_newest_headlines_as_listed() {
        let r = |id: &str, metric: Option<&str>| model::ReportSummary {
            id: id.into(),
            date: Some("2026-11-30 10:00".into()),
            subject: Some(format!("[linus:master] {id}, \"quoted\"")),
            testcases: vec!["fio-basic".into()],
            metric: metric.map(String::from),
            change: Some(-12.3),
            word: "regression".into(),
            commit: Some("19957a1816bb".into()),
            base: Some("4df0f7f145aa".into()),
            machine: "lkp-icl-2sp9".into(),
            params: [("bs".to_string(), "4k".to_string()), ("rw".to_string(), "write".to_string())].into(),
            ..Default::default()
        };
        let list = [r("a", Some("fio.write_iops")), r("b", None), r("c", Some("fio.read_bw_MBps"))];
        let csv = recent_csv(&list, &[0, 2]);
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert_eq!(
            lines[1],
            "2026-11-30 10:00,fio-basic,lkp-icl-2sp9,bs=4k rw=write,fio.write_iops,-12.3,regression,4df0f7f145aa,\
             19957a1816bb,\"[linus:master] a, \"\"quoted\"\"\",",
        );
        assert!(lines[2].contains("fio.read_bw_MBps"));
    }
}
