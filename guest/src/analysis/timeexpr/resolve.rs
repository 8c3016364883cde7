//! Resolution: every parser tried at one position, and the moment found
//! turned into a `Datetime` with its precision in the speaker's offset.

use super::reader::{Parser, When};
use super::resolved::Precision;
use crate::core::time::MS_PER_DAY;
use crate::types::Datetime;

impl Parser {
    /// Try every expression at `i`: (end, moment, relative).
    pub(super) fn at(&self, i: usize) -> Option<(usize, When, bool)> {
        if let Some((e, w)) = self.iso(i) {
            return Some((e, w, false));
        }
        if let Some((e, w)) = self.cn_calendar(i) {
            return Some((e, w, false));
        }
        if let Some((e, w)) = self.cn_relative(i) {
            return Some((e, w, true));
        }
        if let Some((e, w)) = self.en_relative(i) {
            return Some((e, w, true));
        }
        if let Some((e, w)) = self.en_calendar(i) {
            return Some((e, w, false));
        }
        None
    }

    pub(super) fn to_datetime(&self, w: When) -> (Datetime, Precision) {
        let off = self.observed.offset_minutes;
        let day_ms = |day: i64| day * MS_PER_DAY - off as i64 * 60_000;
        match w {
            When::Day(day, None) => (
                Datetime {
                    epoch_ms: day_ms(day),
                    offset_minutes: off,
                },
                Precision::Day,
            ),
            When::Day(day, Some(min)) => (
                Datetime {
                    epoch_ms: day_ms(day) + min * 60_000,
                    offset_minutes: off,
                },
                Precision::Instant,
            ),
            When::Instant(ms, o) => (
                Datetime {
                    epoch_ms: ms,
                    offset_minutes: o,
                },
                Precision::Instant,
            ),
            When::Week(monday) => (
                Datetime {
                    epoch_ms: day_ms(monday),
                    offset_minutes: off,
                },
                Precision::Week,
            ),
            When::Month(y, m) => (
                Datetime {
                    epoch_ms: day_ms(Self::day_of(y, m, 1)),
                    offset_minutes: off,
                },
                Precision::Month,
            ),
            When::Year(y) => (
                Datetime {
                    epoch_ms: day_ms(Self::day_of(y, 1, 1)),
                    offset_minutes: off,
                },
                Precision::Year,
            ),
        }
    }
}
