//! The detector on LKP-shaped labelled series (`support/lkp_shaped.rs`): between-commit noise
//! 0.3–4 % that the runs' own spread understates, steps of 4–12 × the noise, drifts and random
//! walks that are not steps, missing commits, 40–400 commits. Goal: precision ≥ 0.9 and recall
//! ≥ 0.8 with ±1 commit. The benchmark (`importer/examples/changepoints.rs`) runs more series.

#[path = "support/lkp_shaped.rs"]
mod lkp_shaped;

use lkp_shaped::Drift;
use model::changes::{change_points, StepOptions};
use model::rng::XorShift;

/// (precision, recall, true steps) over `n` series of one kind of drift.
fn score(drift: Drift, n: usize, seed: u64) -> (f64, f64, usize) {
    let mut rng = XorShift::new(seed);
    let (mut tp, mut found, mut truth) = (0, 0, 0);
    for _ in 0..n {
        let commits = 40 + rng.below(361);
        let s = lkp_shaped::series(&mut rng, commits, drift, 3);
        assert!(s.obs.len() <= commits && s.obs.iter().all(|o| o.sigma.is_some()));
        let at: Vec<usize> = change_points(&s.obs, StepOptions::default()).iter().map(|s| s.at).collect();
        let (t, f, all) = lkp_shaped::matches(&at, &s.steps, 1);
        (tp, found, truth) = (tp + t, found + f, truth + all);
    }
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    (ratio(tp, found), ratio(tp, truth), truth)
}

#[test]
fn precision_and_recall_on_lkp_shaped_series() {
    for (drift, seed) in [(Drift::None, 11), (Drift::Ramp, 12), (Drift::Walk, 13)] {
        let (p, r, truth) = score(drift, 150, seed);
        println!("{drift:?}: precision {p:.3}, recall {r:.3} over {truth} steps");
        assert!(truth > 150, "{drift:?}: the series must carry steps ({truth})");
        assert!(p >= 0.9, "{drift:?}: precision {p:.3}");
        assert!(r >= 0.8, "{drift:?}: recall {r:.3}");
    }
}

#[test]
fn matching_counts_each_true_step_once() {
    assert_eq!(lkp_shaped::matches(&[10, 11, 30], &[10, 50], 1), (1, 3, 2));
    assert_eq!(lkp_shaped::matches(&[9, 51], &[10, 50], 1), (2, 2, 2));
    assert_eq!(lkp_shaped::matches(&[], &[10], 1), (0, 0, 1));
}
