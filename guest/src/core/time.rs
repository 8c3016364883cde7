//! Calendar arithmetic on `datetime` (epoch milliseconds + UTC offset),
//! without a time-zone database: the offset travels with the instant.

use crate::types::Datetime;

pub const MS_PER_DAY: i64 = 86_400_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day number.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Milliseconds of the instant on its own wall clock (epoch + offset).
fn local_ms(dt: Datetime) -> i64 {
    dt.epoch_ms + dt.offset_minutes as i64 * 60_000
}

/// The local day number of an instant, in its own offset.
pub fn local_day(dt: Datetime) -> i64 {
    local_ms(dt).div_euclid(MS_PER_DAY)
}

/// Weekday of a day number: 0 = Monday … 6 = Sunday.
pub fn weekday(day: i64) -> u32 {
    // 1970-01-01 was a Thursday (3).
    ((day + 3).rem_euclid(7)) as u32
}

/// Local midnight of `day` in the given offset, as an instant.
pub fn midnight(day: i64, offset_minutes: i32) -> Datetime {
    Datetime {
        epoch_ms: day * MS_PER_DAY - offset_minutes as i64 * 60_000,
        offset_minutes,
    }
}

/// `YYYY-MM-DD` in the instant's own offset.
pub fn date_string(dt: Datetime) -> String {
    let (y, m, d) = civil_from_days(local_day(dt));
    format!("{y:04}-{m:02}-{d:02}")
}

/// RFC 3339 with the instant's own offset, to the second.
pub fn rfc3339(dt: Datetime) -> String {
    let ms = local_ms(dt);
    let secs = ms.div_euclid(1000);
    let (h, mi, s) = (
        secs.rem_euclid(86_400) / 3600,
        secs.rem_euclid(3600) / 60,
        secs.rem_euclid(60),
    );
    let off = dt.offset_minutes;
    let tz = if off == 0 {
        "Z".to_string()
    } else {
        let sign = if off < 0 { '-' } else { '+' };
        format!("{sign}{:02}:{:02}", off.abs() / 60, off.abs() % 60)
    };
    format!("{}T{h:02}:{mi:02}:{s:02}{tz}", date_string(dt))
}

/// Whole days from `earlier` to `later` (may be negative), as a float.
pub fn days_between(earlier: Datetime, later: Datetime) -> f64 {
    (later.epoch_ms - earlier.epoch_ms) as f64 / MS_PER_DAY as f64
}

/// The same instant shifted by `ms`, keeping the offset.
pub fn add_ms(dt: Datetime, ms: i64) -> Datetime {
    Datetime {
        epoch_ms: dt.epoch_ms.saturating_add(ms),
        offset_minutes: dt.offset_minutes,
    }
}

/// Whether `at` lies in [from, to) (open ends unbounded).
pub fn within(at: Datetime, from: Option<Datetime>, to: Option<Datetime>) -> bool {
    from.is_none_or(|f| f.epoch_ms <= at.epoch_ms) && to.is_none_or(|t| at.epoch_ms < t.epoch_ms)
}

/// RFC 3339: `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
pub fn parse_rfc3339(t: &str) -> Option<Datetime> {
    let b = t.as_bytes();
    let num = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut i = 19;
    let mut ms = 0;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let frac = t.get(start..i)?;
        ms = format!("{frac:0<3}").get(..3)?.parse::<i64>().ok()?;
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let oh = num(i + 1..i + 3)?;
            let om = num(i + 4..i + 6)?;
            let o = (oh * 60 + om) as i32;
            if *sign == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo as u32, d as u32);
    let local = days * 86_400_000 + ((h * 60 + mi) * 60 + sec) * 1000 + ms;
    Some(Datetime {
        epoch_ms: local - offset as i64 * 60_000,
        offset_minutes: offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for &(y, m, d) in &[(1970, 1, 1), (2000, 2, 29), (2026, 11, 30), (1969, 12, 31)] {
            let z = days_from_civil(y, m, d);
            assert_eq!(civil_from_days(z), (y, m, d));
        }
        assert_eq!(days_from_civil(1970, 1, 2), 1);
    }

    #[test]
    fn local_date_uses_the_offset() {
        // 2026-08-01T01:00:00+08:00 is 2026-07-31T17:00Z.
        let utc = days_from_civil(2026, 7, 31) * MS_PER_DAY + 17 * 3_600_000;
        let dt = Datetime {
            epoch_ms: utc,
            offset_minutes: 480,
        };
        assert_eq!(date_string(dt), "2026-08-01");
        assert_eq!(rfc3339(dt), "2026-08-01T01:00:00+08:00");
        assert_eq!(weekday(days_from_civil(2026, 11, 30)), 0); // a Monday
    }
}
