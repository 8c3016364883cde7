//! The `clock` import: real time, or a fixed instant (`--now`).

use crate::bindings::Datetime;
use chrono::{DateTime, FixedOffset, Local, Offset, Utc};

/// Where `now()` comes from.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// The system clock, in the machine's local UTC offset.
    System,
    /// Always this instant.
    Fixed(Datetime),
}

impl Clock {
    pub fn now(&self) -> Datetime {
        match self {
            Clock::Fixed(d) => *d,
            Clock::System => {
                let now = Utc::now();
                let offset = Local::now().offset().fix().local_minus_utc() / 60;
                Datetime {
                    epoch_ms: now.timestamp_millis(),
                    offset_minutes: offset,
                }
            }
        }
    }
}

/// Convert a parsed RFC 3339 instant.
pub fn from_chrono(dt: DateTime<FixedOffset>) -> Datetime {
    Datetime {
        epoch_ms: dt.timestamp_millis(),
        offset_minutes: dt.offset().local_minus_utc() / 60,
    }
}

/// Format an instant as RFC 3339 in its own offset (seconds, or
/// milliseconds when it has them).
pub fn to_rfc3339(d: Datetime) -> String {
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

/// Parse an instant: RFC 3339, or a date-time / date without offset (UTC).
pub fn parse(s: &str) -> Result<Datetime, String> {
    let s = s.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(s) {
        return Ok(from_chrono(dt));
    }
    if let Ok(n) = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f") {
        return Ok(from_chrono(n.and_utc().fixed_offset()));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        if let Some(n) = d.and_hms_opt(0, 0, 0) {
            return Ok(from_chrono(n.and_utc().fixed_offset()));
        }
    }
    Err(format!(
        "'{s}' is not an RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00)"
    ))
}
