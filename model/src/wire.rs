//! Compact JSON encodings of the published lists that hold most of the bytes: series (trend chunks, job
//! files), change records (changes files, chunks' detected steps), a catalog's metrics and report-document rows. Each element is a
//! JSON array in a fixed order instead of an object, so the keys are not repeated per element (they were
//! 40-60 % of those files), and a column of a series whose every entry is null is written as `[]`.
//! A catalog's reports and metrics are columns instead (`reports`, `metrics`): one array per field.
//! The Rust shapes are unchanged: these are `#[serde(with = …)]` modules, so every reader goes through
//! `model` and gets the same structs back (round trips are tested below). The order of each array is the
//! order of the struct's fields; ARCHITECTURE.md ("Published data v2") documents it.

use crate::{
    ChangeKind, ChangeRecord, ChangeSource, Direction, DocRow, MetricInfo, Points, ReportMeta, SectionMeta, SeriesData,
    SourceKind,
};
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A column of optional values: `[]` when every entry is `None`.
struct OptCol<'a, T>(&'a [Option<T>]);

impl<T: Serialize> Serialize for OptCol<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.iter().all(Option::is_none) {
            s.collect_seq(std::iter::empty::<T>())
        } else {
            s.collect_seq(self.0)
        }
    }
}

fn expand<T: Clone, E: de::Error>(col: Vec<Option<T>>, len: usize, what: &str) -> Result<Vec<Option<T>>, E> {
    match col.len() {
        0 => Ok(vec![None; len]),
        n if n == len => Ok(col),
        n => Err(E::custom(format!("series column {what} has {n} entries for {len} points"))),
    }
}

/// One series as `[job, metric, commit, mean, stddev_pct, runs, report, change, base, fails?, values?]`
/// (`fails` and `values` only when non-empty; `fails` is `[]` when only `values` is there), from a
/// `SeriesData` or from series held apart (an import's build writes its files from its own series,
/// borrowed: `JobShardOut`, `TrendChunkOut`). Without `values`, the per-run values are left out
/// (a trend chunk draws means and bands).
pub struct SeriesRef<'a> {
    pub job: u32,
    pub metric: &'a str,
    pub points: &'a Points,
    pub values: bool,
}

impl<'a> From<&'a SeriesData> for SeriesRef<'a> {
    fn from(sd: &'a SeriesData) -> Self {
        SeriesRef { job: sd.job, metric: &sd.metric, points: &sd.points, values: true }
    }
}

impl Serialize for SeriesRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.points;
        let tail = if self.values && !p.values.is_empty() { 2 } else { usize::from(!p.fails.is_empty()) };
        let mut seq = s.serialize_seq(Some(9 + tail))?;
        seq.serialize_element(&self.job)?;
        seq.serialize_element(self.metric)?;
        seq.serialize_element(&p.commit)?;
        seq.serialize_element(&OptCol(&p.mean))?;
        seq.serialize_element(&OptCol(&p.stddev_pct))?;
        seq.serialize_element(&OptCol(&p.runs))?;
        seq.serialize_element(&p.report)?;
        seq.serialize_element(&OptCol(&p.change))?;
        seq.serialize_element(&OptCol(&p.base))?;
        if tail > 0 {
            seq.serialize_element(&p.fails)?;
        }
        if tail > 1 {
            seq.serialize_element(&p.values)?;
        }
        seq.end()
    }
}

struct SeriesIn(SeriesData);

impl<'de> Deserialize<'de> for SeriesIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(SeriesVisitor)
    }
}

struct SeriesVisitor;

fn need<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(seq: &mut A, what: &str) -> Result<T, A::Error> {
    seq.next_element()?.ok_or_else(|| de::Error::custom(format!("series array ends before {what}")))
}

impl<'de> Visitor<'de> for SeriesVisitor {
    type Value = SeriesIn;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a series array [job, metric, commit, mean, stddev_pct, runs, report, change, base, …]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SeriesIn, A::Error> {
        let job = need(&mut seq, "job")?;
        let metric = need(&mut seq, "metric")?;
        let commit: Vec<u32> = need(&mut seq, "commit")?;
        let n = commit.len();
        let mean = expand(need(&mut seq, "mean")?, n, "mean")?;
        let stddev_pct = expand(need(&mut seq, "stddev_pct")?, n, "stddev_pct")?;
        let runs = expand(need(&mut seq, "runs")?, n, "runs")?;
        let report: Vec<u32> = need(&mut seq, "report")?;
        let change = expand(need(&mut seq, "change")?, n, "change")?;
        let base = expand(need(&mut seq, "base")?, n, "base")?;
        let fails = seq.next_element()?.unwrap_or_default();
        let values = seq.next_element()?.unwrap_or_default();
        if report.len() != n {
            return Err(de::Error::custom(format!("series report column has {} entries for {n} points", report.len())));
        }
        let points = Points { commit, mean, stddev_pct, runs, report, change, base, fails, values };
        Ok(SeriesIn(SeriesData { job, metric, points }))
    }
}

/// `#[serde(with = "wire::series")]` for `Vec<SeriesData>`.
pub mod series {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[SeriesData], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(SeriesRef::from))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SeriesData>, D::Error> {
        Ok(Vec::<SeriesIn>::deserialize(d)?.into_iter().map(|s| s.0).collect())
    }
}

/// One change as `[source, job, metric, base, head, base_mean, head_mean, change, kind, direction, p_value,
/// noise_ratio, report, headline]`; source 0 stated / 1 detected, kind 0 percent / 1 absolute /
/// 2 reproduction, direction 0 regression / 1 undefined / 2 improvement, headline 0 / 1, absent
/// options `null`. (Kind and direction as numbers: as names they were a fifth of a changes page.)
#[derive(Serialize, Deserialize)]
struct ChangeWire<M>(u8, u32, M, u32, u32, f64, f64, f64, u8, u8, Option<f64>, Option<f64>, Option<u32>, u8);

const KINDS: [ChangeKind; 3] = [ChangeKind::Percent, ChangeKind::Absolute, ChangeKind::Reproduction];
const DIRECTIONS: [Direction; 3] = [Direction::Regression, Direction::Undefined, Direction::Improvement];

/// The code of `x` in `all` (its position).
fn code_of<T: PartialEq>(all: &[T], x: &T) -> u8 {
    all.iter().position(|y| y == x).unwrap_or(0) as u8
}

/// The value of code `c` in `all`, or an error naming `what`.
fn of_code<T: Copy, E: de::Error>(all: &[T], c: u8, what: &str) -> Result<T, E> {
    all.get(c as usize).copied().ok_or_else(|| E::custom(format!("{what} code {c} is not one of 0..{}", all.len())))
}

impl<'a> From<&'a ChangeRecord> for ChangeWire<&'a str> {
    fn from(c: &'a ChangeRecord) -> Self {
        ChangeWire(
            u8::from(c.source == ChangeSource::Detected),
            c.job,
            &c.metric,
            c.base,
            c.head,
            c.base_mean,
            c.head_mean,
            c.change,
            code_of(&KINDS, &c.kind),
            code_of(&DIRECTIONS, &c.direction),
            c.p_value,
            c.noise_ratio,
            c.report,
            u8::from(c.headline),
        )
    }
}

impl ChangeWire<String> {
    fn record<E: de::Error>(self) -> Result<ChangeRecord, E> {
        let w = self;
        Ok(ChangeRecord {
            source: if w.0 == 1 { ChangeSource::Detected } else { ChangeSource::Stated },
            job: w.1,
            metric: w.2,
            base: w.3,
            head: w.4,
            base_mean: w.5,
            head_mean: w.6,
            change: w.7,
            kind: of_code(&KINDS, w.8, "change kind")?,
            direction: of_code(&DIRECTIONS, w.9, "direction")?,
            p_value: w.10,
            noise_ratio: w.11,
            report: w.12,
            headline: w.13 == 1,
        })
    }
}

/// `#[serde(with = "wire::changes")]` for `Vec<ChangeRecord>`.
pub mod changes {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[ChangeRecord], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(ChangeWire::from))
    }

    /// Changes held apart (`TrendChunkOut`), written as `serialize` writes them.
    pub fn serialize_refs<S: Serializer>(v: &[&ChangeRecord], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|c| ChangeWire::from(*c)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ChangeRecord>, D::Error> {
        Vec::<ChangeWire<String>>::deserialize(d)?.into_iter().map(ChangeWire::record).collect()
    }
}

/// A catalog's metrics as columns, `[shared, rest, direction, chunk, series, flags]` (arrays). Names are
/// sorted and front-coded: a name is the first `shared` bytes of the one before it followed by `rest`
/// (will-it-scale at 10^4 mails: 70,188 names, 5.8 MB as strings, 3.1 MB front-coded, 972 against 831 kB
/// gzip). `direction` is 0 lower is better / 1 unknown / 2 higher
/// is better, flags kpi (1) | fail (2).
#[derive(Serialize)]
struct MetricColsOut<'a>(Vec<u32>, Vec<&'a str>, Vec<u8>, Vec<u32>, Vec<u32>, Vec<u8>);

/// Columns `shared, rest, direction, chunk, series, flags`.
#[derive(Deserialize)]
struct MetricColsIn(Vec<u32>, Vec<String>, Vec<u8>, Vec<u32>, Vec<u32>, Vec<u8>);

/// Bytes `a` and `b` share at their start, backed off to a character boundary.
fn shared_prefix(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    (0..=n).rev().find(|&k| a.is_char_boundary(k)).unwrap_or(0)
}

/// `#[serde(with = "wire::metrics")]` for `Vec<MetricInfo>`.
pub mod metrics {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[MetricInfo], s: S) -> Result<S::Ok, S::Error> {
        let mut prev = "";
        let (mut shared, mut rest) = (Vec::with_capacity(v.len()), Vec::with_capacity(v.len()));
        for m in v {
            let k = shared_prefix(prev, &m.name);
            shared.push(k as u32);
            rest.push(&m.name[k..]);
            prev = &m.name;
        }
        MetricColsOut(
            shared,
            rest,
            v.iter().map(|m| (m.direction.clamp(-1, 1) + 1) as u8).collect(),
            v.iter().map(|m| m.chunk).collect(),
            v.iter().map(|m| m.series).collect(),
            v.iter().map(|m| u8::from(m.kpi) | (u8::from(m.fail) << 1)).collect(),
        )
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<MetricInfo>, D::Error> {
        let MetricColsIn(shared, names, direction, chunk, series, flags) = MetricColsIn::deserialize(d)?;
        let n = names.len();
        if [shared.len(), direction.len(), chunk.len(), series.len(), flags.len()].iter().any(|&l| l != n) {
            return Err(de::Error::custom("metrics columns of unequal length"));
        }
        let mut out: Vec<MetricInfo> = Vec::with_capacity(n);
        for (i, rest) in names.into_iter().enumerate() {
            let prev = out.last().map_or("", |m| m.name.as_str());
            let (Some(head), 0..=2) = (prev.get(..shared[i] as usize), direction[i]) else {
                return Err(de::Error::custom("metrics: a name shares more than the one before, or a bad direction"));
            };
            let mut name = String::with_capacity(head.len() + rest.len());
            name.push_str(head);
            name.push_str(&rest);
            let f = flags[i];
            out.push(MetricInfo {
                name,
                direction: direction[i] as i8 - 1,
                chunk: chunk[i],
                series: series[i],
                kpi: f & 1 != 0,
                fail: f & 2 != 0,
            });
        }
        Ok(out)
    }
}

/// One report-document row as `[line, job, metric, values, stddev_pct, changes, change_kind, flags, fails,
/// runs, run_values, note]`, flags = fail (1) | aggregate (2) | higher is better (4) | lower is better
/// (8) (the metric's `weight`; neither: unknown); the trailing four only up to the last
/// non-empty one. Every vector is written as it is (an empty one stays `[]`), so a document reads back to
/// the same struct and an incremental import rebuilds the same bytes. A row its page shows
/// (`DocRow::at`) is `[line, job, at, change_kind, flags, …]`: a number where the metric's name
/// would be, and no values, stddev or changes (its page's line has them).
struct DocRowOut<'a>(&'a DocRow);

impl Serialize for DocRowOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let present = [!r.fails.is_empty(), !r.runs.is_empty(), !r.run_values.is_empty(), r.note.is_some()];
        let tail = present.iter().rposition(|p| *p).map_or(0, |i| i + 1);
        let lead = if r.at.is_some() { 5 } else { 8 };
        let mut seq = s.serialize_seq(Some(lead + tail))?;
        seq.serialize_element(&r.line)?;
        seq.serialize_element(&r.job)?;
        match r.at {
            Some(at) => seq.serialize_element(&at)?,
            None => {
                seq.serialize_element(&r.metric)?;
                seq.serialize_element(&r.values)?;
                seq.serialize_element(&r.stddev_pct)?;
                seq.serialize_element(&r.changes)?;
            }
        }
        seq.serialize_element(&r.change_kind)?;
        let weight = u8::from(r.weight > 0) << 2 | u8::from(r.weight < 0) << 3;
        seq.serialize_element(&(u8::from(r.fail) | (u8::from(r.aggregate) << 1) | weight))?;
        if tail > 0 {
            seq.serialize_element(&r.fails)?;
        }
        if tail > 1 {
            seq.serialize_element(&r.runs)?;
        }
        if tail > 2 {
            seq.serialize_element(&r.run_values)?;
        }
        if tail > 3 {
            seq.serialize_element(&r.note)?;
        }
        seq.end()
    }
}

struct DocRowIn(DocRow);

impl<'de> Deserialize<'de> for DocRowIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(DocRowVisitor)
    }
}

/// A row's third entry: its metric, or its line on its page (`DocRow::at`).
enum MetricOrAt {
    At(u32),
    Metric(String),
}

impl<'de> Deserialize<'de> for MetricOrAt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = MetricOrAt;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a metric's name or a line on the page")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<MetricOrAt, E> {
                u32::try_from(v).map(MetricOrAt::At).map_err(|_| E::custom("a row's line on its page past u32"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MetricOrAt, E> {
                Ok(MetricOrAt::Metric(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<MetricOrAt, E> {
                Ok(MetricOrAt::Metric(v))
            }
        }
        d.deserialize_any(V)
    }
}

struct DocRowVisitor;

impl<'de> Visitor<'de> for DocRowVisitor {
    type Value = DocRowIn;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a report row array [line, job, metric, values, stddev_pct, changes, change_kind, flags, …]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DocRowIn, A::Error> {
        let mut r = DocRow { line: need(&mut seq, "line")?, job: need(&mut seq, "job")?, ..Default::default() };
        match need(&mut seq, "metric")? {
            MetricOrAt::At(at) => r.at = Some(at),
            MetricOrAt::Metric(m) => {
                r.metric = m;
                r.values = need(&mut seq, "values")?;
                r.stddev_pct = need(&mut seq, "stddev_pct")?;
                r.changes = need(&mut seq, "changes")?;
            }
        }
        r.change_kind = need(&mut seq, "change_kind")?;
        let flags: u8 = need(&mut seq, "flags")?;
        r.fail = flags & 1 != 0;
        r.aggregate = flags & 2 != 0;
        r.weight = if flags & 4 != 0 {
            1
        } else if flags & 8 != 0 {
            -1
        } else {
            0
        };
        r.fails = seq.next_element()?.unwrap_or_default();
        r.runs = seq.next_element()?.unwrap_or_default();
        r.run_values = seq.next_element()?.unwrap_or_default();
        r.note = seq.next_element()?.unwrap_or_default();
        Ok(DocRowIn(r))
    }
}

/// `#[serde(with = "wire::doc_rows")]` for `Vec<DocRow>`.
pub mod doc_rows {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[DocRow], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(DocRowOut))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<DocRow>, D::Error> {
        Ok(Vec::<DocRowIn>::deserialize(d)?.into_iter().map(|r| r.0).collect())
    }
}

/// A catalog's reports as columns: `[id, kind, source, message_id, subject, from, date, time, url,
/// materials_url, script, sections, notes]`, one array per `ReportMeta` field in its order; a column whose
/// every entry is null (or an empty list) is written `[]`. `kind` is 0 mail / 1 result root. The page reads
/// `time` (whole unix seconds) as `f64`, exact below 2^53, and `kind` as bytes: column types the page
/// already decodes elsewhere add no code to its shell (nor do arrays, which need no field names).
/// Columns compress far better than objects: a result root's path beside its hash id left gzip little
/// to match (size M's catalog: 67.7 kB gzip as objects, 46.4 kB as columns, 44.9 kB with the metrics
/// front-coded).
#[derive(Serialize)]
struct ReportColsOut<'a>(
    Vec<&'a str>,
    Vec<u8>,
    Vec<&'a str>,
    OptCol<'a, &'a str>,
    OptCol<'a, &'a str>,
    OptCol<'a, &'a str>,
    OptCol<'a, &'a str>,
    OptCol<'a, i64>,
    OptCol<'a, &'a str>,
    OptCol<'a, &'a str>,
    OptCol<'a, &'a str>,
    Vec<&'a [SectionMeta]>,
    Vec<&'a [String]>,
);

type Strs = Vec<Option<String>>;

#[derive(Deserialize)]
struct ReportColsIn(
    Vec<String>,
    Vec<u8>,
    Vec<String>,
    Strs,
    Strs,
    Strs,
    Strs,
    Vec<Option<f64>>,
    Strs,
    Strs,
    Strs,
    Vec<Vec<SectionMeta>>,
    Vec<Vec<String>>,
);

/// `#[serde(with = "wire::reports")]` for `Vec<ReportMeta>`.
pub mod reports {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[ReportMeta], s: S) -> Result<S::Ok, S::Error> {
        let col = |f: fn(&ReportMeta) -> &Option<String>| v.iter().map(|r| f(r).as_deref()).collect::<Vec<_>>();
        let a = [col(|r| &r.message_id), col(|r| &r.subject), col(|r| &r.from), col(|r| &r.date)];
        let b = [col(|r| &r.url), col(|r| &r.materials_url), col(|r| &r.script)];
        let time: Vec<Option<i64>> = v.iter().map(|r| r.time).collect();
        let notes: Vec<&[String]> =
            if v.iter().all(|r| r.notes.is_empty()) { vec![] } else { v.iter().map(|r| r.notes.as_slice()).collect() };
        ReportColsOut(
            v.iter().map(|r| r.id.as_str()).collect(),
            v.iter().map(|r| u8::from(r.kind == SourceKind::ResultRoot)).collect(),
            v.iter().map(|r| r.source.as_str()).collect(),
            OptCol(&a[0]),
            OptCol(&a[1]),
            OptCol(&a[2]),
            OptCol(&a[3]),
            OptCol(&time),
            OptCol(&b[0]),
            OptCol(&b[1]),
            OptCol(&b[2]),
            v.iter().map(|r| r.sections.as_slice()).collect(),
            notes,
        )
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ReportMeta>, D::Error> {
        let ReportColsIn(ids, kind, source, a0, a1, a2, a3, time, b0, b1, b2, sections, notes) =
            ReportColsIn::deserialize(d)?;
        let n = ids.len();
        let optional = [a0.len(), a1.len(), a2.len(), a3.len(), time.len(), b0.len(), b1.len(), b2.len(), notes.len()];
        // id, kind, source and sections have one entry per report; the others one, or none (all null or empty)
        if [kind.len(), source.len(), sections.len()].iter().any(|&l| l != n)
            || optional.iter().any(|&l| l != 0 && l != n)
        {
            return Err(de::Error::custom("reports columns of unequal length"));
        }
        if kind.iter().any(|&k| k > 1) {
            return Err(de::Error::custom("reports column kind holds a value other than 0 (mail) or 1 (result root)"));
        }
        if time.iter().flatten().any(|t| t.fract() != 0.0 || t.abs() > 9e15) {
            return Err(de::Error::custom("reports column time holds a value that is not whole unix seconds"));
        }
        let (mut kind, mut source, mut sections, mut notes) =
            (kind.into_iter(), source.into_iter(), sections.into_iter(), notes.into_iter());
        let mut opt = [a0, a1, a2, a3, b0, b1, b2].map(Vec::into_iter);
        let mut time = time.into_iter();
        let mut next = |k: usize| opt[k].next().flatten();
        Ok(ids
            .into_iter()
            .map(|id| ReportMeta {
                id,
                kind: if kind.next() == Some(1) { SourceKind::ResultRoot } else { SourceKind::Mail },
                source: source.next().unwrap_or_default(),
                message_id: next(0),
                subject: next(1),
                from: next(2),
                date: next(3),
                time: time.next().flatten().map(|t| t as i64),
                url: next(4),
                materials_url: next(5),
                script: next(6),
                sections: sections.next().unwrap_or_default(),
                notes: notes.next().unwrap_or_default(),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::SeriesRef;
    use crate::{
        ChangeKind, ChangeRecord, ChangeSource, ChangesShard, Direction, JobShard, MetricInfo, Points, SeriesData,
    };

    fn series(fails: bool, values: bool, runs: bool) -> SeriesData {
        SeriesData {
            job: 3,
            metric: "fio.write_iops".into(),
            points: Points {
                commit: vec![0, 4],
                mean: vec![Some(20200.0), None],
                stddev_pct: vec![None, None],
                runs: if runs { vec![Some(3), None] } else { vec![None, None] },
                report: vec![1, 1],
                change: vec![None, Some(-6.4)],
                base: vec![None, Some(0)],
                fails: if fails { vec![Some(0), Some(2)] } else { vec![] },
                values: if values { vec![vec![1.0, 2.0], vec![]] } else { vec![] },
            },
        }
    }

    fn report(i: u32, mail: bool) -> crate::ReportMeta {
        let s = |x: &str| Some(format!("{x}{i}"));
        crate::ReportMeta {
            id: format!("{i:016x}"),
            kind: if mail { crate::SourceKind::Mail } else { crate::SourceKind::ResultRoot },
            source: format!("in/{i}"),
            message_id: if mail { s("m@x") } else { None },
            subject: if mail { s("[linus:master] ") } else { None },
            from: None,
            date: if mail { s("Tue, 3 Jan 2023 12:34:0") } else { None },
            time: mail.then_some(1_672_720_442 + i as i64),
            url: None,
            materials_url: if mail { s("https://download.01.org/") } else { None },
            script: None,
            sections: vec![crate::SectionMeta { job: Some(i), commits: vec![0, i], rows: 7, machine: None }],
            notes: if i == 2 { vec!["not a regression".into()] } else { vec![] },
        }
    }

    #[test]
    fn catalog_reports_are_columns_and_round_trip() {
        let mut idx =
            crate::Index { reports: vec![report(1, true), report(2, false), report(3, true)], ..Default::default() };
        let text = serde_json::to_string(&idx).unwrap();
        assert_eq!(serde_json::from_str::<crate::Index>(&text).unwrap(), idx, "{text}");
        let cols = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap()["reports"].clone();
        let c = cols(&text);
        assert_eq!(c.as_array().unwrap().len(), 13, "one array per field: {text}");
        assert_eq!(c[2], serde_json::json!(["in/1", "in/2", "in/3"]));
        assert_eq!(c[1], serde_json::json!([0, 1, 0]), "kind");
        assert_eq!(c[12], serde_json::json!([[], ["not a regression"], []]));
        assert_eq!((c[5].clone(), c[8].clone()), (serde_json::json!([]), serde_json::json!([])), "all-null: []");
        idx.reports.truncate(1);
        idx.reports[0].notes.clear();
        let text = serde_json::to_string(&idx).unwrap();
        assert_eq!(cols(&text)[12], serde_json::json!([]), "{text}");
        assert_eq!(serde_json::from_str::<crate::Index>(&text).unwrap(), idx);
        let cases = [
            (r#"["in/1"]"#, r#"["in/1","in/2"]"#, "reports columns of unequal length"),
            (r#"[1672720443]"#, r#"[1.5]"#, "column time"),
            (r#"["0000000000000001"],[0]"#, r#"["0000000000000001"],[2]"#, "column kind"),
        ];
        for (good, bad, why) in cases {
            assert!(text.contains(good), "{text}");
            let text = text.replace(good, bad);
            let e = serde_json::from_str::<crate::Index>(&text).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn series_round_trip_in_every_shape() {
        for (f, v, r) in [(false, false, false), (true, false, true), (false, true, false), (true, true, true)] {
            let shard = JobShard { schema: 2, job: "j".into(), series: vec![series(f, v, r), series(!f, v, !r)] };
            let text = serde_json::to_string(&shard).unwrap();
            assert_eq!(serde_json::from_str::<JobShard>(&text).unwrap(), shard, "{text}");
            assert!(!text.contains("\"points\""), "no per-series keys: {text}");
        }
        let text =
            serde_json::to_string(&JobShard { schema: 2, job: "j".into(), series: vec![series(false, false, false)] })
                .unwrap();
        assert!(
            text.contains(r#"[3,"fio.write_iops",[0,4],[20200.0,null],[],[],[1,1],[null,-6.4],[null,0]]"#),
            "{text}"
        );
    }

    /// A job file and a trend chunk written from borrowed series (`JobShardOut`,
    /// `TrendChunkOut`) are the JSON of the `JobShard` and `TrendChunk` of those series (the
    /// chunk's without their runs), in every shape of series.
    #[test]
    fn borrowed_series_write_the_files_their_shapes_write() {
        let c = ChangeRecord { source: ChangeSource::Detected, metric: "m".into(), change: -4.5, ..Default::default() };
        for (f, v, r) in [(false, false, false), (true, false, true), (false, true, false), (true, true, true)] {
            let all = vec![series(f, v, r), series(!f, v, !r)];
            let shard = JobShard { schema: 2, job: "j".into(), series: all.clone() };
            let out = crate::JobShardOut { schema: 2, job: "j", series: all.iter().map(SeriesRef::from).collect() };
            assert_eq!(serde_json::to_string(&out).unwrap(), serde_json::to_string(&shard).unwrap());
            let runless: Vec<SeriesData> = all
                .iter()
                .cloned()
                .map(|mut s| {
                    s.points.values = Vec::new();
                    s
                })
                .collect();
            for detected in [vec![], vec![c.clone()]] {
                let chunk = crate::TrendChunk {
                    schema: 2,
                    testcase: "t".into(),
                    series: runless.clone(),
                    detected: detected.clone(),
                };
                let out = crate::TrendChunkOut {
                    schema: 2,
                    testcase: "t",
                    series: all.iter().map(|s| SeriesRef { values: false, ..SeriesRef::from(s) }).collect(),
                    detected: detected.iter().collect(),
                };
                assert_eq!(serde_json::to_string(&out).unwrap(), serde_json::to_string(&chunk).unwrap());
            }
        }
    }

    #[test]
    fn a_column_of_the_wrong_length_is_an_error() {
        let bad = r#"{"schema":2,"job":"j","series":[[0,"m",[0,1],[1.0],[],[],[0,0],[],[]]]}"#;
        let e = serde_json::from_str::<JobShard>(bad).unwrap_err().to_string();
        assert!(e.contains("mean has 1 entries for 2 points"), "{e}");
        let short = r#"{"schema":2,"job":"j","series":[[0,"m",[0]]]}"#;
        assert!(serde_json::from_str::<JobShard>(short).unwrap_err().to_string().contains("ends before mean"));
    }

    #[test]
    fn changes_and_metrics_round_trip() {
        let c = ChangeRecord {
            source: ChangeSource::Detected,
            job: 1,
            metric: "m".into(),
            base: 2,
            head: 3,
            base_mean: 1.5,
            head_mean: 2.5,
            change: 66.7,
            kind: ChangeKind::Percent,
            direction: Direction::Regression,
            p_value: None,
            noise_ratio: Some(4.2),
            report: Some(7),
            headline: true,
        };
        let shard = ChangesShard { schema: 2, testcase: "t".into(), changes: vec![c.clone(), ChangeRecord::default()] };
        let text = serde_json::to_string(&shard).unwrap();
        assert_eq!(serde_json::from_str::<ChangesShard>(&text).unwrap(), shard);
        assert!(text.contains(r#"[1,1,"m",2,3,1.5,2.5,66.7,0,0,null,4.2,7,1]"#), "kind and direction as codes: {text}");
        // every kind and direction round trips; a code past them is an error, not a default
        for (kind, direction) in super::KINDS.iter().zip(super::DIRECTIONS.iter()) {
            let one = ChangesShard {
                changes: vec![ChangeRecord { kind: *kind, direction: *direction, ..c.clone() }],
                ..shard.clone()
            };
            let text = serde_json::to_string(&one).unwrap();
            assert_eq!(serde_json::from_str::<ChangesShard>(&text).unwrap(), one);
        }
        let bad = text.replace(",66.7,0,0,", ",66.7,3,0,");
        let err = serde_json::from_str::<ChangesShard>(&bad).unwrap_err().to_string();
        assert!(err.contains("change kind code 3"), "{err}");
        let m = |name: &str, direction, kpi, fail, chunk, series| MetricInfo {
            name: name.into(),
            direction,
            kpi,
            fail,
            chunk,
            series,
        };
        let metrics = vec![
            m("a", -1, true, false, 2, 5),
            m("perf-profile.self.é", 0, false, true, 0, 1),
            m("perf-profile.self.ê", 1, false, false, 1, 1),
            m("perf-profile.self.êx", 0, false, false, 1, 2),
        ];
        let idx = crate::Index { metrics, ..Default::default() };
        let text = serde_json::to_string(&idx).unwrap();
        // front-coded names: shared bytes of the name before, then the rest (never inside a character)
        let want =
            r#""metrics":[[0,0,18,20],["a","perf-profile.self.é","ê","x"],[0,1,2,1],[2,0,1,1],[5,1,1,2],[1,2,0,0]]"#;
        assert!(text.contains(want), "{text}");
        assert_eq!(serde_json::from_str::<crate::Index>(&text).unwrap(), idx);
        let why = "a name shares more than the one before";
        for bad in ["[0,0,18,21]", "[0,0,19,20]"] {
            let e = serde_json::from_str::<crate::Index>(&text.replace("[0,0,18,20]", bad)).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
        let e = serde_json::from_str::<crate::Index>(&text.replace("[1,2,0,0]]", "[1,2,0]]")).unwrap_err().to_string();
        assert!(e.contains("metrics columns of unequal length"), "{e}");
    }

    #[test]
    fn doc_rows_round_trip_exactly() {
        use crate::DocRow;
        let base = DocRow {
            line: 76,
            job: 0,
            metric: "unixbench.score".into(),
            values: vec![Some(1329.0), Some(1290.0)],
            stddev_pct: vec![None, None],
            changes: vec![Some(-2.9)],
            change_kind: vec![ChangeKind::Percent],
            ..Default::default()
        };
        let rows = vec![
            base.clone(),
            DocRow { stddev_pct: vec![], changes: vec![], change_kind: vec![], ..base.clone() },
            DocRow { fail: true, fails: vec![Some(0), Some(3)], runs: vec![Some(6), Some(6)], ..base.clone() },
            DocRow { aggregate: true, note: Some("<-------- (a)".into()), ..base.clone() },
            DocRow { run_values: vec![Some(vec![1.0, 2.0]), None], ..base.clone() },
            DocRow { weight: 1, ..base.clone() },
            DocRow { weight: -1, fail: true, aggregate: true, ..base.clone() },
            DocRow { at: Some(7), metric: String::new(), values: vec![], stddev_pct: vec![], changes: vec![], ..base },
        ];
        let sec = crate::DocSection { rows, ..Default::default() };
        let text = serde_json::to_string(&sec).unwrap();
        assert_eq!(serde_json::from_str::<crate::DocSection>(&text).unwrap(), sec, "{text}");
        assert!(
            text.contains(r#"[76,0,"unixbench.score",[1329.0,1290.0],[null,null],[-2.9],["percent"],0]"#),
            "{text}"
        );
        assert!(text.contains(r#",2,[],[],[],"<-------- (a)"]"#), "{text}");
        // the direction in the flags: higher is better 4, lower is better 8
        assert!(text.contains(r#"["percent"],4]"#) && text.contains(r#"["percent"],11]"#), "{text}");
        // a row its page shows: its line there where the metric's name would be, no numbers
        assert!(text.contains(r#"[76,0,7,["percent"],0]"#), "{text}");
    }
}
