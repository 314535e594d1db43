//! `lkpx changepoints [FILE|-]`: the importer's change-point detection on one series given as
//! text, one commit per line (`mean[,stddev_pct[,runs]]`, as the mails state them), printed as
//! JSON Lines, one object per detected step.

use model::changes::{change_points, Obs, StepOptions};
use serde_json::json;
use std::io::{Read, Write};
use std::path::Path;

/// One commit's line as the importer would see its values: the mean, and the noise of the mean
/// from the stated stddev (percent of the mean) and run count (1 when not given), as `build.rs`
/// derives it.
pub fn parse_line(line: &str) -> Result<Obs, String> {
    let mut fields = line.split(',').map(str::trim);
    let mean_text = fields.next().unwrap_or_default();
    let mean: f64 = number(mean_text, "mean")?;
    let stddev_pct = fields.next().map(|f| number(f, "stddev_pct")).transpose()?;
    let runs = match fields.next() {
        Some(f) => match f.parse::<u32>() {
            Ok(r) if r > 0 => r,
            _ => return Err(format!("runs must be a positive integer, not {f:?}")),
        },
        None => 1,
    };
    if let Some(extra) = fields.next() {
        return Err(format!("expected mean[,stddev_pct[,runs]], found an extra field {extra:?}"));
    }
    if let Some(pct) = stddev_pct {
        if pct < 0.0 {
            return Err(format!("stddev_pct must not be negative, not {pct}"));
        }
    }
    let sigma = stddev_pct.map(|pct| mean.abs() * pct / 100.0 / f64::from(runs).sqrt()).filter(|s| *s > 0.0);
    Ok(Obs { mean, sigma })
}

fn number(field: &str, what: &str) -> Result<f64, String> {
    match field.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ if field.is_empty() => Err(format!("{what} is missing")),
        _ => Err(format!("{what} is not a finite number: {field:?}")),
    }
}

/// The series of a whole text, skipping blank lines and `#` comments (indices count the commit
/// lines only), or every bad line as `SOURCE:LINE: reason`.
pub fn parse_series(text: &str, source: &str) -> Result<Vec<Obs>, Vec<String>> {
    let (mut obs, mut errors) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            Ok(o) => obs.push(o),
            Err(why) => errors.push(format!("{source}:{}: {why}", i + 1)),
        }
    }
    if errors.is_empty() {
        Ok(obs)
    } else {
        Err(errors)
    }
}

/// The detected steps of a series with the importer's defaults, as the JSON objects printed:
/// `index` is the 0-based position of the first commit of the new level.
pub fn step_objects(obs: &[Obs]) -> Vec<serde_json::Value> {
    change_points(obs, StepOptions::default())
        .iter()
        .map(|s| {
            let pct = s.change_pct();
            let pct = if pct.is_finite() { json!((pct * 100.0).round() / 100.0) } else { json!(null) };
            json!({"index": s.at, "before": s.before, "after": s.after, "change_pct": pct})
        })
        .collect()
}

/// Runs the command on FILE (`None` or `-`: standard input). Bad lines are written to `err`, and
/// then nothing is detected (the positions would not be the commits meant); `Ok(true)` says so.
pub fn run(file: Option<&Path>, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<bool> {
    use anyhow::Context;
    let (text, source) = match file {
        Some(p) if p != Path::new("-") => {
            let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            (text, p.display().to_string())
        }
        _ => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).context("reading standard input")?;
            (text, "<stdin>".to_string())
        }
    };
    match parse_series(&text, &source) {
        Ok(obs) => {
            for step in step_objects(&obs) {
                writeln!(out, "{step}")?;
            }
            out.flush()?;
            Ok(false)
        }
        Err(errors) => {
            for e in errors {
                writeln!(err, "error: {e}")?;
            }
            Ok(true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_as_the_mails_state_them() {
        let check = |line: &str, mean: f64, sigma: Option<f64>| {
            let o = parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(o.mean, mean, "{line}");
            match (o.sigma, sigma) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-9, "{line}: {a} vs {b}"),
                (a, b) => assert_eq!(a, b, "{line}"),
            }
        };
        check("1000", 1000.0, None);
        check(" 1000 , 2 ", 1000.0, Some(20.0));
        check("1000,2,4", 1000.0, Some(10.0));
        check("-50,10,1", -50.0, Some(5.0));
        check("1e3,0", 1000.0, None);
    }

    #[test]
    fn bad_lines_say_why() {
        let check = |line: &str, why: &str| {
            let e = parse_line(line).expect_err(line);
            assert!(e.contains(why), "{line}: {e}");
        };
        check("abc", "mean is not a finite number");
        check("", "mean is missing");
        check("NaN", "not a finite number");
        check("inf", "not a finite number");
        check("100,x", "stddev_pct is not a finite number");
        check("100,-1", "must not be negative");
        check("100,1,0", "runs must be a positive integer");
        check("100,1,2.5", "runs must be a positive integer");
        check("100,1,3,4", "extra field");
    }

    #[test]
    fn errors_name_the_line_and_comments_do_not_count() {
        let text = "# a series\n100\n\n100,1,3\nabc\n101\n1,2,3,4\n";
        let errors = parse_series(text, "s.txt").expect_err("two bad lines");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("s.txt:5: "), "{errors:?}");
        assert!(errors[1].starts_with("s.txt:7: "), "{errors:?}");
        let obs = parse_series("# head\n1\n\n2\n3\n", "t").expect("good");
        assert_eq!(obs.iter().map(|o| o.mean).collect::<Vec<_>>(), [1.0, 2.0, 3.0]);
    }

    /// A 5 % regression after 30 commits of 0.5 % noise, then the same level: one step, at 30.
    fn regression_series() -> String {
        let mut rng = model::rng::XorShift::new(3);
        (0..60)
            .map(|i| {
                let level = if i < 30 { 1000.0 } else { 950.0 };
                format!("{:.2},0.3,3\n", level * (1.0 + 0.005 * rng.normal()))
            })
            .collect()
    }

    #[test]
    fn prints_one_object_per_step() {
        let dir = std::env::temp_dir().join(format!("lkpx-changepoints-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("series.txt");
        std::fs::write(&file, regression_series()).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let failed = run(Some(&file), &mut out, &mut err).unwrap();
        assert!(!failed && err.is_empty());
        let lines: Vec<serde_json::Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0]["index"], 30);
        let pct = lines[0]["change_pct"].as_f64().unwrap();
        assert!((pct + 5.0).abs() < 0.6, "{pct}");
        assert!((lines[0]["before"].as_f64().unwrap() - 1000.0).abs() < 3.0);

        std::fs::write(&file, "100\n1O1\n").unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert!(run(Some(&file), &mut out, &mut err).unwrap(), "a bad line fails the run");
        assert!(out.is_empty());
        let err = String::from_utf8(err).unwrap();
        assert!(err.starts_with(&format!("error: {}:2: mean is not a finite number", file.display())), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
