//! The `clock` import: real time, or a fixed instant (`--now`).

use crate::bindings::Datetime;
use chrono::{Local, Offset, Utc};

/// Where `now()` comes from.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// The system clock, in the machine's local UTC offset.
    System,
    /// Always this instant.
    Fixed(Datetime),
}

impl Clock {
    /// The current instant: the system's, or the fixed one.
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

/// Format an instant as RFC 3339 in its own offset (the contract's rule).
pub fn to_rfc3339(d: Datetime) -> String {
    engram_contract::time::format(d)
}

/// Parse an instant: RFC 3339, or a date-time / date without offset (UTC).
pub fn parse(s: &str) -> Result<Datetime, String> {
    engram_contract::time::parse(s)
}
