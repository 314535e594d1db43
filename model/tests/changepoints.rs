//! Change-point detection on synthetic series with known steps and noise: precision and recall
//! (a detection within ±1 commit of a true step counts). Run with `--nocapture` to see the table.

use model::changes::{change_points, Obs, StepOptions};
use model::rng::XorShift as Rng;

/// (precision, recall, true steps, detections) over `n_series` series.
fn evaluate(
    n_series: usize,
    len: usize,
    noise_pct: f64,
    min_step_sigmas: f64,
    sigma_known: bool,
    seed: u64,
) -> (f64, f64, usize, usize) {
    let mut rng = Rng::new(seed);
    let (mut tp, mut fp, mut truth_total) = (0, 0, 0);
    for _ in 0..n_series {
        let base = 1000.0 * (1.0 + 9.0 * rng.unit());
        let n_steps = (rng.next_u64() % 4) as usize;
        let mut steps: Vec<usize> = (0..n_steps).map(|_| 5 + (rng.next_u64() as usize) % (len - 10)).collect();
        steps.sort();
        steps.dedup_by(|a, b| a.abs_diff(*b) < 5);
        let mut level = base;
        let mut obs = Vec::with_capacity(len);
        let mut k = 0;
        let sigma = noise_pct / 100.0;
        let mut truth = Vec::new();
        for i in 0..len {
            if k < steps.len() && steps[k] == i {
                // step of min_step_sigmas..3*min_step_sigmas noise sd, either sign
                let mag = sigma * (min_step_sigmas + 2.0 * min_step_sigmas * rng.unit());
                level *= if rng.next_u64().is_multiple_of(2) { 1.0 + mag } else { 1.0 / (1.0 + mag) };
                truth.push(i);
                k += 1;
            }
            let x = level * (1.0 + sigma * rng.normal());
            obs.push(Obs { mean: x, sigma: sigma_known.then_some(level * sigma) });
        }
        let found = change_points(&obs, StepOptions::default());
        truth_total += truth.len();
        for f in &found {
            if truth.iter().any(|t| t.abs_diff(f.at) <= 1) {
                tp += 1;
            } else {
                fp += 1;
            }
        }
    }
    let precision = if tp + fp == 0 { 1.0 } else { tp as f64 / (tp + fp) as f64 };
    let recall = if truth_total == 0 { 1.0 } else { tp as f64 / truth_total as f64 };
    (precision, recall, truth_total, tp + fp)
}

#[test]
fn precision_and_recall_on_synthetic_series() {
    println!("| commits | noise | step size | sigma | precision | recall | true steps | detections |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut worst = (1.0f64, 1.0f64);
    for (len, noise, step, known) in [
        (100, 2.0, 4.0, true),
        (300, 2.0, 4.0, true),
        (1000, 1.0, 5.0, true),
        (300, 2.0, 4.0, false),
        (100, 5.0, 3.0, true),
    ] {
        let (p, r, t, d) = evaluate(200, len, noise, step, known, 42 + len as u64);
        println!(
            "| {len} | {noise}% | ≥{step}σ | {} | {p:.3} | {r:.3} | {t} | {d} |",
            if known { "stated" } else { "unknown" }
        );
        worst = (worst.0.min(p), worst.1.min(r));
    }
    assert!(worst.0 >= 0.9, "precision {:.3}", worst.0);
    assert!(worst.1 >= 0.85, "recall {:.3}", worst.1);
}

#[test]
fn near_linear_in_commits() {
    // 100k commits with a few steps must finish quickly (PELT prunes); correctness of the steps too.
    let mut rng = Rng::new(7);
    let obs: Vec<Obs> = (0..100_000)
        .map(|i| {
            let level = if i < 40_000 {
                100.0
            } else if i < 70_000 {
                110.0
            } else {
                95.0
            };
            Obs { mean: level * (1.0 + 0.01 * rng.normal()), sigma: Some(level * 0.01) }
        })
        .collect();
    let steps = change_points(&obs, StepOptions::default());
    let at: Vec<usize> = steps.iter().map(|s| s.at).collect();
    assert_eq!(at.len(), 2, "{at:?}");
    assert!(at[0].abs_diff(40_000) <= 1 && at[1].abs_diff(70_000) <= 1, "{at:?}");
}
