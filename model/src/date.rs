//! Dates as the reports spell them: parsed to unix seconds, and days back to a calendar date.

/// Month-day-year-time in any of the date spellings the reports use, as unix seconds (UTC).
pub fn parse_date(s: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let words: Vec<String> = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    // `get`, not slicing: a word may start with a multi-byte character (a name, a Cyrillic date)
    let month_of = |w: &String| w.get(..3).and_then(|p| MONTHS.iter().position(|m| *m == p));
    let mi = words.iter().position(|w| month_of(w).is_some())?;
    let month = month_of(&words[mi])? as i64 + 1;
    let num = |w: &String| w.parse::<i64>().ok();
    // "19 Mar 2014" or "Mar 19 2014" / "Jun 07 2014"
    let (day, year) = match (
        mi.checked_sub(1).and_then(|k| words.get(k)).and_then(num),
        words.get(mi + 1).and_then(num),
        words.get(mi + 2).and_then(num),
    ) {
        (Some(d), Some(y), _) if (1900..10000).contains(&y) && (1..=31).contains(&d) => (d, y),
        (_, Some(d), Some(y)) if (1900..10000).contains(&y) && (1..=31).contains(&d) => (d, y),
        _ => return None,
    };
    let mut secs = 0;
    if let Some(t) = words.iter().skip(mi).find(|w| w.matches(':').count() == 2) {
        let p: Vec<i64> = t.split(':').filter_map(|x| x.parse().ok()).collect();
        if p.len() == 3 && p.iter().all(|x| (0..100).contains(x)) {
            secs = p[0] * 3600 + p[1] * 60 + p[2];
        }
    }
    let tz = words.iter().skip(mi).find(|w| (w.starts_with('+') || w.starts_with('-')) && w.len() == 5).and_then(|w| {
        let v: i64 = w.get(1..)?.parse().ok().filter(|v| (0..2400).contains(v))?;
        let off = (v / 100) * 3600 + (v % 100) * 60;
        Some(if w.starts_with('-') { -off } else { off })
    });
    Some(days_from_civil(year, month, day) * 86400 + secs - tz.unwrap_or(0))
}

/// The proleptic Gregorian date `(year, month, day)` of a day number since 1970-01-01 (the
/// inverse of `days_from_civil`, Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_every_spelling() {
        assert_eq!(parse_date("Wed, 19 Mar 2014 10:21:21 +0800"), Some(1395195681));
        assert_eq!(parse_date("Sat Jun 07 2014 - 02:53:25 EST").map(|t| t / 86400), Some(16228));
        assert_eq!(parse_date("Sat, 16 Aug 2014 15:52:33 +0800 [thread overview]"), Some(1408175553));
        assert_eq!(parse_date("yesterday"), None);
        // multi-byte words and absurd numbers: no panic, no date
        assert_eq!(parse_date("Андрей 2024"), None);
        assert_eq!(parse_date("Вт, 5 июн 2018"), None);
        assert_eq!(parse_date("1 Jan 99999999999999999"), None);
        assert_eq!(parse_date("99999999999 Jan 2020 99999999999:1:1 +9999"), None);
    }
}
