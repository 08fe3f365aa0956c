//! UTC calendar dates of Unix times (proleptic Gregorian, no leap seconds), as the recordings'
//! readers and exporters name days and instants.

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;

/// The civil date `(year, month, day)` of a day number (days since 1970-01-01, negative
/// before it): Howard Hinnant's days-to-civil algorithm, exact over `i64` days that stay
/// within about ±25 quadrillion years (saturating beyond).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe.saturating_add(era.saturating_mul(400));
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y.saturating_add(1) } else { y }, m, d)
}

/// The day number (days since 1970-01-01) of a time in ms.
pub fn day_of_ms(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// `YYYY-MM-DD` of a day number.
pub fn date_text(day: i64) -> String {
    let (y, m, d) = civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) of a time in seconds.
pub fn datetime_text(secs: i64) -> String {
    let rem = secs.rem_euclid(86_400);
    format!(
        "{} {:02}:{:02}:{:02}",
        date_text(secs.div_euclid(86_400)),
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (ISO 8601, UTC) of a time in µs.
pub fn iso_micros(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let frac = us.rem_euclid(1_000_000);
    let rem = secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}.{frac:06}Z",
        date_text(secs.div_euclid(86_400)),
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_instants() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(date_text(day_of_ms(1_709_251_199_999)), "2024-02-29");
        assert_eq!(date_text(day_of_ms(1_709_251_200_000)), "2024-03-01");
        assert_eq!(datetime_text(0), "1970-01-01 00:00:00");
        assert_eq!(datetime_text(1_700_000_000), "2023-11-14 22:13:20");
        assert_eq!(
            iso_micros(1_706_763_601_020_000),
            "2024-02-01T05:00:01.020000Z"
        );
        assert_eq!(iso_micros(-1), "1969-12-31T23:59:59.999999Z");
        // The ends of i64 give a date, not a panic.
        let _ = iso_micros(i64::MIN);
        let _ = date_text(i64::MAX);
    }
}
