//! Is a change real? Welch's t-test from what a mail states (mean, stddev, runs), and change
//! points along a series found by penalised step fitting that weighs each commit by its noise.

/// Confidence that a stated change is not noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Significance {
    /// Two-sided p-value of Welch's t-test (run counts known on both sides).
    PValue(f64),
    /// Not computable: run counts or stddevs are not known. Never guessed.
    Unknown,
}

impl Significance {
    /// Short label for tables: `p<0.001`, `p=0.03`, `unknown`.
    pub fn label(self) -> String {
        match self {
            Significance::PValue(p) if p < 0.001 => "p<0.001".into(),
            Significance::PValue(p) => format!("p={p:.3}"),
            Significance::Unknown => "unknown".into(),
        }
    }

    pub fn is_significant(self, alpha: f64) -> Option<bool> {
        match self {
            Significance::PValue(p) => Some(p < alpha),
            Significance::Unknown => None,
        }
    }
}

/// One side of a comparison as a report states it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub mean: f64,
    /// Population stddev (what lkp prints as a percentage of the mean).
    pub stddev: f64,
    pub runs: u32,
}

/// Welch's t-test on two samples given by mean, population stddev and run count.
/// `Unknown` when a side has fewer than 2 runs.
pub fn welch(a: Sample, b: Sample) -> Significance {
    if a.runs < 2 || b.runs < 2 || !a.mean.is_finite() || !b.mean.is_finite() {
        return Significance::Unknown;
    }
    let (na, nb) = (a.runs as f64, b.runs as f64);
    // lkp's stddev divides by n: turn it into the sample variance
    let va = a.stddev * a.stddev * na / (na - 1.0);
    let vb = b.stddev * b.stddev * nb / (nb - 1.0);
    let se2 = va / na + vb / nb;
    let diff = b.mean - a.mean;
    if se2 <= 0.0 {
        return Significance::PValue(if diff == 0.0 { 1.0 } else { 0.0 });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / ((va / na).powi(2) / (na - 1.0) + (vb / nb).powi(2) / (nb - 1.0));
    Significance::PValue(student_t_two_sided(t, df))
}

/// Two-sided p-value of Student's t with `df` degrees of freedom.
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    let x = df / (df + t * t);
    incomplete_beta(df / 2.0, 0.5, x).clamp(0.0, 1.0)
}

/// Regularised incomplete beta I_x(a, b) (continued fraction, Numerical Recipes `betai`).
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x), Lanczos approximation (g = 7, n = 9).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// One commit's value for change-point detection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    pub mean: f64,
    /// Noise of this mean (stddev of the mean); `None` when unknown.
    pub sigma: Option<f64>,
}

/// A step found along a series: the series changes level at position `at`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Index of the first observation of the new level.
    pub at: usize,
    pub before: f64,
    pub after: f64,
}

impl Step {
    /// Relative size of the step in percent.
    pub fn change_pct(&self) -> f64 {
        if self.before == 0.0 {
            f64::INFINITY
        } else {
            100.0 * (self.after - self.before) / self.before.abs()
        }
    }
}

/// Options of `change_points`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepOptions {
    /// Penalty per step, in units of ln(n) of the weighted squared error (chi-square units).
    pub penalty: f64,
    /// Steps smaller than this relative change are merged away (lkp ignores < 1%).
    pub min_relative: f64,
    /// Relative noise floor: no commit is trusted to better than this fraction of its level.
    pub noise_floor: f64,
}

impl Default for StepOptions {
    fn default() -> Self {
        StepOptions { penalty: 3.0, min_relative: 0.01, noise_floor: 0.005 }
    }
}

/// Change points of a series (observations in commit order) by PELT: exact penalised
/// least-squares segmentation with pruning, each observation weighted by 1/σ². Deterministic and
/// near-linear in the number of commits. When no σ is known the series' own scatter is used.
pub fn change_points(obs: &[Obs], opts: StepOptions) -> Vec<Step> {
    let n = obs.len();
    if n < 3 {
        return Vec::new();
    }
    let weights = weights(obs, opts);
    // prefix sums of w, w·x, w·x²
    let mut sw = vec![0.0; n + 1];
    let mut swx = vec![0.0; n + 1];
    let mut swx2 = vec![0.0; n + 1];
    for i in 0..n {
        let (w, x) = (weights[i], obs[i].mean);
        sw[i + 1] = sw[i] + w;
        swx[i + 1] = swx[i] + w * x;
        swx2[i + 1] = swx2[i] + w * x * x;
    }
    let cost = |s: usize, e: usize| -> f64 {
        let w = sw[e] - sw[s];
        if w <= 0.0 {
            return 0.0;
        }
        let m = swx[e] - swx[s];
        (swx2[e] - swx2[s] - m * m / w).max(0.0)
    };
    let beta = opts.penalty * (n as f64).ln().max(1.0);
    let mut f = vec![0.0; n + 1];
    f[0] = -beta;
    let mut last = vec![0usize; n + 1];
    let mut candidates = vec![0usize];
    for t in 1..=n {
        let (mut best, mut arg) = (f64::INFINITY, 0);
        for &s in &candidates {
            let v = f[s] + cost(s, t) + beta;
            if v < best {
                best = v;
                arg = s;
            }
        }
        f[t] = best;
        last[t] = arg;
        // PELT pruning: a start that cannot win any more is dropped
        candidates.retain(|&s| f[s] + cost(s, t) <= best);
        candidates.push(t);
    }
    let mut bounds = Vec::new();
    let mut t = n;
    while t > 0 {
        bounds.push(t);
        t = last[t];
    }
    bounds.push(0);
    bounds.reverse();
    // segment means, then merge steps below the minimum relative size
    let mean = |s: usize, e: usize| (swx[e] - swx[s]) / (sw[e] - sw[s]);
    let mut segs: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    loop {
        let small = segs
            .windows(2)
            .enumerate()
            .map(|(i, w)| (i, rel(mean(w[0].0, w[0].1), mean(w[1].0, w[1].1))))
            .filter(|(_, r)| *r < opts.min_relative)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match small {
            Some((i, _)) => {
                let merged = (segs[i].0, segs[i + 1].1);
                segs.splice(i..i + 2, [merged]);
            }
            None => break,
        }
    }
    segs.windows(2).map(|w| Step { at: w[1].0, before: mean(w[0].0, w[0].1), after: mean(w[1].0, w[1].1) }).collect()
}

fn rel(a: f64, b: f64) -> f64 {
    let d = a.abs().max(b.abs());
    if d == 0.0 {
        0.0
    } else {
        (b - a).abs() / d
    }
}

/// Inverse-variance weights with a relative noise floor; unknown σ → robust scatter of the
/// series (median absolute difference of neighbours).
fn weights(obs: &[Obs], opts: StepOptions) -> Vec<f64> {
    let mut diffs: Vec<f64> = obs.windows(2).map(|w| (w[1].mean - w[0].mean).abs()).collect();
    diffs.sort_by(f64::total_cmp);
    let scatter = if diffs.is_empty() { 0.0 } else { diffs[diffs.len() / 2] / std::f64::consts::SQRT_2 / 0.6745 };
    obs.iter()
        .map(|o| {
            let floor = (o.mean.abs() * opts.noise_floor).max(1e-12);
            let s = o.sigma.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(scatter).max(floor);
            1.0 / (s * s)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_known_values() {
        // equal size, sample variance 1: t = 2/sqrt(0.4) = 3.162, df = 8 → p ≈ 0.01335
        let a = Sample { mean: 10.0, stddev: 1.0 * (4.0f64 / 5.0).sqrt(), runs: 5 };
        let b = Sample { mean: 12.0, stddev: 1.0 * (4.0f64 / 5.0).sqrt(), runs: 5 };
        match welch(a, b) {
            Significance::PValue(p) => assert!((p - 0.01335).abs() < 2e-4, "{p}"),
            s => panic!("{s:?}"),
        }
        assert_eq!(welch(Sample { runs: 1, ..a }, b), Significance::Unknown);
        assert_eq!(Significance::Unknown.label(), "unknown");
        assert!((student_t_two_sided(0.0, 5.0) - 1.0).abs() < 1e-12);
        assert!((student_t_two_sided(2.571, 5.0) - 0.05).abs() < 1e-3);
    }

    #[test]
    fn flat_series_has_no_steps_and_a_step_is_found() {
        let flat: Vec<Obs> =
            (0..50).map(|i| Obs { mean: 100.0 + if i % 2 == 0 { 0.3 } else { -0.3 }, sigma: Some(0.5) }).collect();
        assert!(change_points(&flat, StepOptions::default()).is_empty());
        let mut s = flat.clone();
        for o in &mut s[30..] {
            o.mean += 10.0;
        }
        let steps = change_points(&s, StepOptions::default());
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert_eq!(steps[0].at, 30);
        assert!((steps[0].change_pct() - 10.0).abs() < 0.5);
    }
}
