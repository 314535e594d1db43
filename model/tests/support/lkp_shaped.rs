//! LKP-shaped labelled series for change-point scoring, shared by `model/tests/lkp_shaped.rs` and
//! the benchmark (`importer/examples/changepoints.rs`): per-commit means of 3 runs whose own spread
//! is a fraction of the between-commit noise (0.3–4 % of the level), level steps of 4–12 × that
//! noise, slow drifts and random walks that are not steps, missing commits, 40–400 commits.

use model::changes::Obs;
use model::rng::XorShift;

/// One series as `lkpx import` would see it, with the positions (indices into `obs`) of its true steps.
pub struct Labelled {
    pub obs: Vec<Obs>,
    pub steps: Vec<usize>,
}

/// How a series wanders apart from its steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drift {
    None,
    /// A linear ramp of 2–6 σ over a stretch of at least 30 commits.
    Ramp,
    /// A slow random walk: 0.1–0.2 σ per commit.
    Walk,
}

/// A series of `commits` commits (before some go missing) with the given drift and 0 to
/// `max_steps` steps.
pub fn series(rng: &mut XorShift, commits: usize, drift: Drift, max_steps: usize) -> Labelled {
    let noise = 0.003 * (4.0f64 / 0.3).powf(rng.unit()); // 0.3 %–4 %, log-uniform
    let run_spread = noise * (0.1 + 0.4 * rng.unit());
    let base = 10f64.powf(1.0 + 5.0 * rng.unit());
    let steps = step_commits(rng, commits, max_steps);
    let wander = drift_path(rng, commits, drift);
    let missing = [0.0, 0.05, 0.2][rng.below(3)];
    let (mut obs, mut truth, mut level, mut k) = (Vec::new(), Vec::new(), base, 0);
    for (c, wandered) in wander.iter().enumerate() {
        if k < steps.len() && steps[k] == c {
            let mag = noise * (4.0 + 8.0 * rng.unit());
            level *= if rng.below(2) == 0 { 1.0 + mag } else { 1.0 / (1.0 + mag) };
            truth.push(obs.len());
            k += 1;
        }
        let commit_mean = level * (1.0 + wandered * noise + noise * rng.normal());
        if rng.unit() < missing {
            continue;
        }
        let runs: Vec<f64> = (0..3).map(|_| commit_mean * (1.0 + run_spread * rng.normal())).collect();
        let mean = runs.iter().sum::<f64>() / 3.0;
        let sd = (runs.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        // what build.rs hands the detector: the stddev of the mean of the runs
        obs.push(Obs { mean, sigma: Some(sd / 3f64.sqrt()) });
    }
    // a step whose first commits all went missing is placed at the next observed commit
    truth.dedup();
    truth.retain(|&t| t > 0 && t < obs.len());
    Labelled { obs, steps: truth }
}

/// 0–`max_steps` steps, at least 10 commits apart and 5 from either end.
fn step_commits(rng: &mut XorShift, commits: usize, max_steps: usize) -> Vec<usize> {
    let want = rng.below(max_steps + 1);
    let mut steps: Vec<usize> = Vec::new();
    for _ in 0..20 * want {
        if steps.len() == want {
            break;
        }
        let c = 5 + rng.below(commits - 10);
        if steps.iter().all(|s| s.abs_diff(c) >= 10) {
            steps.push(c);
        }
    }
    steps.sort();
    steps
}

/// The drift of each commit, in units of the noise σ.
fn drift_path(rng: &mut XorShift, commits: usize, drift: Drift) -> Vec<f64> {
    match drift {
        Drift::None => vec![0.0; commits],
        Drift::Ramp => {
            let len = 30 + rng.below(commits - 29);
            let start = rng.below(commits - len + 1);
            let total = (2.0 + 4.0 * rng.unit()) * if rng.below(2) == 0 { 1.0 } else { -1.0 };
            (0..commits).map(|c| total * (c.saturating_sub(start).min(len) as f64 / len as f64)).collect()
        }
        Drift::Walk => {
            let step = 0.1 + 0.1 * rng.unit();
            let mut v = 0.0;
            (0..commits)
                .map(|_| {
                    v += step * rng.normal();
                    v
                })
                .collect()
        }
    }
}

/// True and false detections against the truth, a detection within `tolerance` commits of a true
/// step counting once: (true positives, detections, true steps).
pub fn matches(found: &[usize], truth: &[usize], tolerance: usize) -> (usize, usize, usize) {
    let mut used = vec![false; truth.len()];
    let mut tp = 0;
    for f in found {
        let hit = (0..truth.len())
            .filter(|&j| !used[j] && truth[j].abs_diff(*f) <= tolerance)
            .min_by_key(|&j| truth[j].abs_diff(*f));
        if let Some(j) = hit {
            used[j] = true;
            tp += 1;
        }
    }
    (tp, found.len(), truth.len())
}
