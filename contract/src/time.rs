//! Instants on the wire: RFC 3339 in, RFC 3339 out, in the instant's own
//! UTC offset. Every host and every operation reads and prints time here.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, Utc};

use crate::types::{Datetime, Error};

fn from_chrono(dt: DateTime<FixedOffset>) -> Datetime {
    Datetime {
        epoch_ms: dt.timestamp_millis(),
        offset_minutes: dt.offset().local_minus_utc() / 60,
    }
}

/// Parse an instant: RFC 3339, or a date-time or date without an offset
/// (UTC).
pub fn parse(s: &str) -> Result<Datetime, String> {
    let s = s.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(s) {
        return Ok(from_chrono(dt));
    }
    if let Ok(n) = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f") {
        return Ok(from_chrono(n.and_utc().fixed_offset()));
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        if let Some(n) = d.and_hms_opt(0, 0, 0) {
            return Ok(from_chrono(n.and_utc().fixed_offset()));
        }
    }
    Err(format!(
        "'{s}' is not an RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00)"
    ))
}

/// `parse`, failing with `invalid-input` (the component's `parse-datetime`).
pub fn parse_instant(s: &str) -> Result<Datetime, Error> {
    parse(s).map_err(|m| crate::item::invalid(None, "", m))
}

/// An instant as a JSON field holds it: what `parse` reads, or an integer
/// of epoch milliseconds, which is how `format` writes an instant outside
/// the calendar's range (so a stored row reads back).
pub fn parse_field(s: &str) -> Result<Datetime, String> {
    match s.trim().parse::<i64>() {
        Ok(epoch_ms) => Ok(Datetime {
            epoch_ms,
            offset_minutes: 0,
        }),
        Err(_) => parse(s),
    }
}

/// Format an instant as RFC 3339 in its own offset: to the second, or to
/// the millisecond when it has milliseconds.
pub fn format(d: Datetime) -> String {
    let offset = FixedOffset::east_opt(d.offset_minutes.saturating_mul(60))
        .unwrap_or_else(|| FixedOffset::east_opt(0).expect("zero offset"));
    match DateTime::<Utc>::from_timestamp_millis(d.epoch_ms) {
        Some(t) => {
            let t = t.with_timezone(&offset);
            if d.epoch_ms % 1000 == 0 {
                t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            } else {
                t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
            }
        }
        None => d.epoch_ms.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_round_trip_in_their_own_offset() {
        for s in [
            "2026-08-01T10:00:00+08:00",
            "2026-08-01T10:00:00.250-05:30",
            "2023-05-08T13:56:00Z",
        ] {
            assert_eq!(format(parse(s).unwrap()), s);
        }
        assert_eq!(format(parse("2026-08-01").unwrap()), "2026-08-01T00:00:00Z");
        assert_eq!(
            format(parse("2026-08-01T10:00:00").unwrap()),
            "2026-08-01T10:00:00Z"
        );
        assert!(parse("yesterday").unwrap_err().contains("'yesterday'"));
        let far = Datetime {
            epoch_ms: i64::MAX,
            offset_minutes: 0,
        };
        assert_eq!(parse_field(&format(far)).unwrap(), far);
        assert!(parse("2026").is_err(), "a bare year is no instant");
    }
}
