//! The `clock` the store exports: a fixed instant (`ENGRAM_NOW`, RFC 3339,
//! as the CLI's `--now`) or the wall clock in the offset
//! `ENGRAM_UTC_OFFSET_MINUTES` (default UTC: an edge has no local zone).

use crate::types::Datetime;

/// Where `now()` comes from, read from the environment once per request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Clock {
    Fixed(Datetime),
    Wall { offset_minutes: i32 },
}

impl Clock {
    pub fn from_env(now: Option<&str>, offset: Option<&str>) -> Result<Clock, String> {
        if let Some(s) = now.filter(|s| !s.trim().is_empty()) {
            return parse(s)
                .map(Clock::Fixed)
                .map_err(|e| format!("ENGRAM_NOW: {e}"));
        }
        let offset_minutes = match offset.map(str::trim).filter(|s| !s.is_empty()) {
            None => 0,
            Some(s) => s
                .parse::<i32>()
                .ok()
                .filter(|m| m.abs() < 24 * 60)
                .ok_or_else(|| {
                    format!("ENGRAM_UTC_OFFSET_MINUTES: '{s}' is not a whole number of minutes between -1439 and 1439")
                })?,
        };
        Ok(Clock::Wall { offset_minutes })
    }

    pub fn now(&self, wall_ms: i64) -> Datetime {
        match *self {
            Clock::Fixed(d) => d,
            Clock::Wall { offset_minutes } => Datetime {
                epoch_ms: wall_ms,
                offset_minutes,
            },
        }
    }
}

/// An RFC 3339 instant with its offset.
pub fn parse(s: &str) -> Result<Datetime, String> {
    let dt = chrono::DateTime::parse_from_rfc3339(s.trim()).map_err(|e| {
        format!("'{s}' is not an RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00): {e}")
    })?;
    Ok(Datetime {
        epoch_ms: dt.timestamp_millis(),
        offset_minutes: dt.offset().local_minus_utc() / 60,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_instant_keeps_its_offset() {
        let c = Clock::from_env(Some("2026-08-01T10:00:00+08:00"), None).unwrap();
        assert_eq!(
            c.now(0),
            Datetime {
                epoch_ms: 1_785_549_600_000,
                offset_minutes: 480
            }
        );
        assert!(Clock::from_env(Some("yesterday"), None)
            .unwrap_err()
            .starts_with("ENGRAM_NOW: 'yesterday'"));
        assert_eq!(
            Clock::from_env(None, Some("-300")).unwrap().now(5),
            Datetime {
                epoch_ms: 5,
                offset_minutes: -300
            }
        );
        assert!(Clock::from_env(None, Some("2000")).is_err());
    }
}
