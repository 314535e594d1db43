//! Statistics shared by importer and app, following lkp-tests' `lib/statistics.rb` and
//! `lib/compare.rb` (see `docs/lkp-formats.md` §3 in the shared material).

use crate::ChangeKind;

/// Arithmetic mean; `None` for an empty slice.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

/// Population standard deviation (divide by n), as lkp-tests computes it; `None` for < 2 values.
pub fn pop_stddev(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    Some((xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64).sqrt())
}

/// Metrics whose change lkp prints as an absolute difference: names ending in `%` and
/// everything under `perf-profile`.
pub fn is_absolute_metric(metric: &str) -> bool {
    metric.ends_with('%') || metric.starts_with("perf-profile")
}

/// How lkp expresses the change of `metric`.
pub fn change_kind(metric: &str) -> ChangeKind {
    if is_absolute_metric(metric) {
        ChangeKind::Absolute
    } else {
        ChangeKind::Percent
    }
}

/// Change of `head` against `base` as lkp prints it: percent (base 0 is replaced by 1e-100,
/// as lkp does) or absolute difference for absolute metrics.
pub fn change(metric: &str, base: f64, head: f64) -> f64 {
    match change_kind(metric) {
        ChangeKind::Absolute => head - base,
        _ => {
            let b = if base == 0.0 { 1e-100 } else { base };
            100.0 * (head - b) / b
        }
    }
}

/// Stddev percent as the mails print it: `100 * stddev / mean`, shown only when above 2.
pub fn stddev_pct_shown(mean: f64, stddev: f64) -> Option<f64> {
    if mean == 0.0 {
        return None;
    }
    let p = (100.0 * stddev / mean).abs();
    if p > 2.0 {
        Some(p.round())
    } else {
        None
    }
}

/// A value formatted as ncompare does: 2 decimals below 1000, `%.4g` above 1e8, else integer.
pub fn format_value(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        format!("{v}")
    } else if a < 1000.0 {
        format!("{v:.2}")
    } else if a > 1e8 {
        format_g(v, 4)
    } else {
        format!("{v:.0}")
    }
}

/// A change formatted as ncompare does: `+5.2%`, `-0.3` (absolute), `+2.1e+05%` when huge.
pub fn format_change(change: f64, kind: ChangeKind) -> String {
    if kind == ChangeKind::Reproduction {
        // `%reproduction`: whole percent, as ncompare prints it (`-25%`, `+33%`)
        return format!("{change:+.0}%");
    }
    let body = if change.abs() >= 100000.0 {
        let g = format_g(change, 2);
        if change >= 0.0 {
            format!("+{g}")
        } else {
            g
        }
    } else {
        format!("{change:+.1}")
    };
    match kind {
        ChangeKind::Absolute => body,
        _ => format!("{body}%"),
    }
}

/// C's `%.<p>g`: `%e` style when the exponent is < -4 or >= p, else `%f` style, trailing zeros
/// removed. The exponent is taken after rounding to p digits, as C does (`99999.5` → `1e+05`).
pub fn format_g(v: f64, precision: usize) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let p = precision.max(1);
    let e_form = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = e_form.split_once('e').unwrap_or((&e_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        format!("{}e{}{:02}", trim_zeros(mantissa), if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `x` rounded to `digits` significant decimal digits (the shortest form of the result prints those digits):
/// for figures the importer computes (a mean of runs, a stddev percent), whose further digits are noise and
/// bytes. Non-finite values and 0 are returned as they are.
pub fn round_sig(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let exp = digits - 1 - x.abs().log10().floor() as i32;
    if exp >= 0 {
        let p = 10f64.powi(exp);
        let r = (x * p).round() / p;
        if r.is_finite() {
            r
        } else {
            x
        }
    } else {
        let p = 10f64.powi(-exp);
        (x / p).round() * p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn population_stddev_divides_by_n() {
        assert_eq!(pop_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), Some(2.0));
        assert_eq!(pop_stddev(&[1.0]), None);
        assert_eq!(mean(&[]), None);
    }

    #[test]
    fn absolute_rule() {
        for (m, abs) in [
            ("mpstat.cpu.all.idle%", true),
            ("perf-profile.calltrace.cycles-pp.x", true),
            ("fio.latency_2ms%", true),
            ("fio.write_iops", false),
            ("turbostat.%c0", false),
        ] {
            assert_eq!(is_absolute_metric(m), abs, "{m}");
        }
        assert_eq!(change("fio.latency_2ms%", 46.56, 53.61), 53.61 - 46.56);
        assert!((change("blogbench.write_score", 10702.0, 11259.0) - 5.2046).abs() < 1e-3);
        assert!(change("x", 0.0, 66.25) > 1e100);
    }

    #[test]
    fn formats_like_ncompare() {
        for (v, s) in
            [(0.07, "0.07"), (210443.0, "210443"), (1.345e9, "1.345e+09"), (-36.17, "-36.17"), (1e8 + 1.0, "1e+08")]
        {
            assert_eq!(format_value(v), s, "{v}");
        }
        assert_eq!(format_change(-15.8, ChangeKind::Percent), "-15.8%");
        assert_eq!(format_change(1.4, ChangeKind::Absolute), "+1.4");
        assert_eq!(format_change(210000.0, ChangeKind::Percent), "+2.1e+05%");
        assert_eq!(format_change(-25.0, ChangeKind::Reproduction), "-25%");
        assert_eq!(format_change(33.3, ChangeKind::Reproduction), "+33%");
        assert_eq!(stddev_pct_shown(100.0, 1.0), None);
        assert_eq!(stddev_pct_shown(100.0, 16.4), Some(16.0));
    }

    #[test]
    fn format_g_matches_printf() {
        for (v, p, s) in [
            (10.0, 5, "10"),
            (0.0, 5, "0"),
            (1.0, 5, "1"),
            (7363113.100274, 5, "7.3631e+06"),
            (99999.5, 5, "1e+05"),
            (0.0001234, 5, "0.0001234"),
            (0.00001234, 5, "1.234e-05"),
            (-2.5, 5, "-2.5"),
            (f64::NAN, 5, "nan"),
            (f64::NEG_INFINITY, 4, "-inf"),
        ] {
            assert_eq!(format_g(v, p), s, "{v} {p}");
        }
    }

    #[test]
    fn round_sig_prints_the_digits_it_keeps() {
        for (x, d, want) in [
            (29.990502272486015, 9, "29.9905023"),
            (2.2733864001521016, 3, "2.27"),
            (0.012345678, 3, "0.0123"),
            (1170214.0, 9, "1170214"),
            (123456789012.0, 9, "123456789000"),
            (-5.4321, 2, "-5.4"),
            (0.0, 3, "0"),
        ] {
            assert_eq!(format!("{}", round_sig(x, d)), want, "{x} to {d} digits");
        }
        assert!(round_sig(f64::NAN, 3).is_nan());
    }
}
