//! What a time expression resolves to: the moment, its precision, where it
//! stands in the text, and whether it is relative, a recurrence or the
//! end of a stretch ahead.

use crate::core::time::local_day;
use crate::types::Datetime;

/// How precise a resolved time is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    Instant,
    Day,
    Week,
    Month,
    Year,
}

/// A resolved time expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub at: Datetime,
    /// The words it was resolved from, as written.
    pub expression: String,
    pub precision: Precision,
    /// Byte range of the expression in the text.
    pub start: usize,
    pub end: usize,
    /// Relative to when it was said ("昨天"), not a calendar date.
    pub relative: bool,
    /// Preceded by a recurrence marker ("每周三", "every Monday"): a
    /// schedule, not one moment.
    pub recurring: bool,
    /// The end of a stretch from when it was said ("for the next hour",
    /// "接下来两天", "until Friday", "周五前"): a bound on what is said in
    /// it, not the time of an event.
    pub bound: bool,
}

impl Resolved {
    /// Before the local day it was said in.
    pub fn is_past(&self, observed: Datetime) -> bool {
        local_day(self.at) < local_day(observed)
            || (self.precision == Precision::Instant && self.at.epoch_ms < observed.epoch_ms)
    }

    /// After the local day it was said in (a plan, not an episode).
    pub fn is_future(&self, observed: Datetime) -> bool {
        local_day(self.at) > local_day(observed)
    }
}
