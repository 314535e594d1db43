//! Benchmark of the change-point detector with its defaults (what `lkpx import` and
//! `lkpx changepoints` use), on two sets:
//! - TCPD (van den Burg & Williams 2020): real annotated series in `--tcpd DIR` (default
//!   `../shared/tcpd`), scored by F1 with a margin of 5 and segmentation cover as the dataset
//!   defines them, against the published default-parameter figures;
//! - LKP-shaped labelled series generated here (`model/tests/support/lkp_shaped.rs`): precision and
//!   recall with ±1 commit tolerance, per kind of drift; and the detector's time per series.
//!
//! `cargo run --release -p importer --example changepoints -- [--tcpd DIR] [--series N] [--seed S]`

#[path = "../../model/tests/support/lkp_shaped.rs"]
mod lkp_shaped;

use anyhow::{Context, Result};
use lkp_shaped::Drift;
use model::changes::{change_points, Obs, StepOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Published default-parameter averages over TCPD's 25 univariate series (F1, cover).
const PUBLISHED: [(&str, f64, f64); 5] = [
    ("binseg", 0.690, 0.655),
    ("pelt", 0.684, 0.656),
    ("amoc", 0.647, 0.657),
    ("bocpd", 0.657, 0.591),
    ("zero", 0.647, 0.557),
];

fn main() -> Result<()> {
    let mut tcpd = PathBuf::from("../shared/tcpd");
    let (mut n_series, mut seed, mut opts) = (2000usize, 1u64, StepOptions::default());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--tcpd" => tcpd = PathBuf::from(value()?),
            "--series" => n_series = value()?.parse()?,
            "--seed" => seed = value()?.parse()?,
            "--set" => set_option(&mut opts, &value()?)?,
            _ => anyhow::bail!("unknown argument {a}: use --tcpd DIR, --series N, --seed S, --set OPTION=VALUE"),
        }
    }
    if opts != StepOptions::default() {
        println!("options (not the defaults): {opts:?}\n");
    }
    score_tcpd(&tcpd, opts)?;
    score_lkp_shaped(n_series, seed, opts);
    time_detector(seed, opts);
    Ok(())
}

/// `--set min_z=3.5`: try another value of one detector option (the figures to quote are the defaults').
fn set_option(opts: &mut StepOptions, kv: &str) -> Result<()> {
    let (k, v) = kv.split_once('=').with_context(|| format!("--set {kv}: expected OPTION=VALUE"))?;
    let x: f64 = v.parse().with_context(|| format!("--set {kv}: not a number"))?;
    match k {
        "penalty" => opts.penalty = x,
        "min_relative" => opts.min_relative = x,
        "noise_floor" => opts.noise_floor = x,
        "min_sigmas" => opts.min_sigmas = x,
        "min_z" => opts.min_z = x,
        "min_segment" => opts.min_segment = x as usize,
        "trend_window" => opts.trend_window = x as usize,
        "rare_steps" => opts.rare_steps = x,
        _ => anyhow::bail!("--set {kv}: unknown option {k}"),
    }
    Ok(())
}

/// Annotations: series → annotator → 0-based starts of new segments.
type Annotations = BTreeMap<String, BTreeMap<String, Vec<usize>>>;

fn score_tcpd(dir: &Path, opts: StepOptions) -> Result<()> {
    let path = dir.join("annotations.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let annotations: Annotations = serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
    println!("## TCPD: {} series, defaults, σ unknown\n", annotations.len());
    println!("| series | n | annotated (mean) | detected | F1 | cover | zero F1 | zero cover |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let (mut sum, mut zero) = ((0.0, 0.0), (0.0, 0.0));
    for (name, by_annotator) in &annotations {
        let values = tcpd_values(&dir.join("series").join(format!("{name}.json")))?;
        let obs: Vec<Obs> = values.iter().map(|&mean| Obs { mean, sigma: None }).collect();
        let found: Vec<usize> = change_points(&obs, opts).iter().map(|s| s.at).collect();
        let truth: Vec<&Vec<usize>> = by_annotator.values().collect();
        let (f1, cover) = (f_measure(&truth, &found, 5), covering(&truth, &found, values.len()));
        let (zf1, zcover) = (f_measure(&truth, &[], 5), covering(&truth, &[], values.len()));
        let mean_annotated = truth.iter().map(|t| t.len()).sum::<usize>() as f64 / truth.len() as f64;
        println!(
            "| {name} | {} | {mean_annotated:.1} | {} | {f1:.3} | {cover:.3} | {zf1:.3} | {zcover:.3} |",
            values.len(),
            found.len()
        );
        sum = (sum.0 + f1, sum.1 + cover);
        zero = (zero.0 + zf1, zero.1 + zcover);
    }
    let k = annotations.len() as f64;
    println!(
        "\nmean F1 {:.3}, mean cover {:.3} (zero on these series: {:.3} / {:.3})",
        sum.0 / k,
        sum.1 / k,
        zero.0 / k,
        zero.1 / k
    );
    let published: Vec<String> = PUBLISHED.iter().map(|(m, f, c)| format!("{m} {f:.3} / {c:.3}")).collect();
    println!("published defaults (25 series): {}\n", published.join(", "));
    Ok(())
}

/// `series[0].raw` of a TCPD dataset file (nulls, if any, become NaN and are skipped by the detector).
fn tcpd_values(path: &Path) -> Result<Vec<f64>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let doc: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
    let raw = doc["series"][0]["raw"].as_array().with_context(|| format!("{}: no series[0].raw", path.display()))?;
    Ok(raw.iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect())
}

/// Locations of `truth` that have a prediction within `margin`, each prediction used once, nearest first.
fn true_positives(truth: &BTreeSet<usize>, predicted: &BTreeSet<usize>, margin: usize) -> usize {
    let mut left = predicted.clone();
    let mut tp = 0;
    for &tau in truth {
        let nearest = left.iter().filter(|&&x| x.abs_diff(tau) <= margin).min_by_key(|&&x| (x.abs_diff(tau), x));
        if let Some(&x) = nearest {
            left.remove(&x);
            tp += 1;
        }
    }
    tp
}

/// TCPD's F1: precision against the union of the annotations, recall averaged over annotators; 0
/// counts as a location everywhere.
fn f_measure(truth: &[&Vec<usize>], found: &[usize], margin: usize) -> f64 {
    let with_zero = |v: &[usize]| -> BTreeSet<usize> { v.iter().copied().chain([0]).collect() };
    let x = with_zero(found);
    let all: BTreeSet<usize> = truth.iter().flat_map(|t| t.iter().copied()).chain([0]).collect();
    let precision = true_positives(&all, &x, margin) as f64 / x.len() as f64;
    let recall = truth
        .iter()
        .map(|t| {
            let tk = with_zero(t);
            true_positives(&tk, &x, margin) as f64 / tk.len() as f64
        })
        .sum::<f64>()
        / truth.len() as f64;
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// Segments [start, end) of 0..n cut at `cps`.
fn segments(cps: &[usize], n: usize) -> Vec<(usize, usize)> {
    let cuts: BTreeSet<usize> = cps.iter().copied().filter(|&c| c > 0 && c < n).collect();
    let mut bounds: Vec<usize> = [0].into_iter().chain(cuts).chain([n]).collect();
    bounds.dedup();
    bounds.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Segmentation covering of the annotators' segmentations by the predicted one, averaged over annotators.
fn covering(truth: &[&Vec<usize>], found: &[usize], n: usize) -> f64 {
    let predicted = segments(found, n);
    let jaccard = |a: (usize, usize), b: (usize, usize)| {
        let inter = a.1.min(b.1).saturating_sub(a.0.max(b.0));
        inter as f64 / (a.1.max(b.1) - a.0.min(b.0)) as f64
    };
    let cover = |t: &Vec<usize>| {
        segments(t, n)
            .iter()
            .map(|&a| (a.1 - a.0) as f64 * predicted.iter().map(|&b| jaccard(a, b)).fold(0.0, f64::max))
            .sum::<f64>()
            / n as f64
    };
    truth.iter().map(|t| cover(t)).sum::<f64>() / truth.len() as f64
}

fn score_lkp_shaped(n_series: usize, seed: u64, opts: StepOptions) {
    println!("## LKP-shaped labelled series: {n_series} per row, 40–400 commits, ±1 commit\n");
    println!("| drift | steps per series | series | true steps | detections | precision | recall |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut total = (0, 0, 0);
    for (drift, max_steps) in [(Drift::None, 3), (Drift::Ramp, 3), (Drift::Walk, 3), (Drift::None, 10)] {
        let mut rng = model::rng::XorShift::new(seed);
        let mut sum = (0, 0, 0);
        for _ in 0..n_series {
            let commits = 40 + rng.below(361);
            let s = lkp_shaped::series(&mut rng, commits, drift, max_steps);
            let found: Vec<usize> = change_points(&s.obs, opts).iter().map(|s| s.at).collect();
            let (tp, d, t) = lkp_shaped::matches(&found, &s.steps, 1);
            sum = (sum.0 + tp, sum.1 + d, sum.2 + t);
        }
        println!(
            "| {drift:?} | 0–{max_steps} | {n_series} | {} | {} | {:.3} | {:.3} |",
            sum.2,
            sum.1,
            ratio(sum.0, sum.1),
            ratio(sum.0, sum.2)
        );
        if max_steps == 3 {
            total = (total.0 + sum.0, total.1 + sum.1, total.2 + sum.2);
        }
    }
    println!(
        "\nall three drift kinds (0–3 steps): {} series, precision {:.3}, recall {:.3}\n",
        3 * n_series,
        ratio(total.0, total.1),
        ratio(total.0, total.2)
    );
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// Median and p99 time of one `change_points` call per series length.
fn time_detector(seed: u64, opts: StepOptions) {
    println!("## Detector time per series (LKP-shaped, ramp drift)\n");
    println!("| commits | median | p99 |");
    println!("|---:|---:|---:|");
    let mut rng = model::rng::XorShift::new(seed);
    for commits in [100, 400, 1000, 10_000] {
        let reps = if commits > 1000 { 50 } else { 500 };
        let mut times: Vec<f64> = (0..reps)
            .map(|_| {
                let s = lkp_shaped::series(&mut rng, commits, Drift::Ramp, 3);
                let start = Instant::now();
                let steps = change_points(&s.obs, opts);
                std::hint::black_box(steps);
                start.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!("| {commits} | {:.0} µs | {:.0} µs |", times[reps / 2], times[reps * 99 / 100]);
    }
}
