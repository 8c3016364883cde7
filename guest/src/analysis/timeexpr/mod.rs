//! Resolution of time expressions ("昨天", "上周三", "last Wednesday", "two
//! days ago", "2026-03-31 04:18", "1 月") against the moment they were said,
//! in the speaker's UTC offset: "yesterday" is the day before the speaker's
//! local date, not the day before in UTC.
//!
//! Conventions (documented because the words are ambiguous):
//! - `上周三` is Wednesday of the previous calendar week (weeks start on
//!   Monday); `本周三`/`这周三` of this week; `下周三` of the next.
//! - `last Wednesday` is the most recent Wednesday strictly before the day it
//!   was said; `next Wednesday` the first one strictly after.
//! - A date without a year ("4 月 2 日", "Nov 2") and a bare month ("1 月")
//!   are taken as the latest such date not more than a week after the
//!   observation: episodes lie in the past.
//! - Day-level expressions resolve to the local midnight that starts the day
//!   (with the clock time when one is given); week, month and year
//!   expressions to their first day; "N hours ago" to the exact instant.
//!
//! The stages, one module each: `reader` (the characters and scanning
//! primitives), `words` (month, weekday and number words, festivals),
//! `calendar` (absolute dates), `clock` (times of day), `relative`
//! (relative expressions and durations), `resolve` (trying them in order,
//! and the moment as a `Datetime`), `resolved` (the result).

mod calendar;
mod clock;
mod reader;
mod relative;
mod resolve;
mod resolved;
mod words;

pub use calendar::days_in_month;
pub use resolved::{Precision, Resolved};

use crate::analysis::cues::fold;
use crate::types::Datetime;
use reader::Parser;

/// The first non-recurring time expression in `text`, resolved.
pub fn resolve(text: &str, observed: Datetime) -> Option<Resolved> {
    find_all(text, observed).into_iter().find(|r| !r.recurring)
}

/// Every time expression in `text`, in order, resolved.
pub fn find_all(text: &str, observed: Datetime) -> Vec<Resolved> {
    let folded = fold(text);
    let p = Parser::new(&folded, observed);
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.c.len() {
        if !p.token_start(i) {
            i += 1;
            continue;
        }
        match p.at(i) {
            Some((end, when, relative)) if end > i => {
                let (start_b, end_b) = (p.off[i], p.off[end]);
                let (at, precision) = p.to_datetime(when);
                out.push(Resolved {
                    at,
                    expression: text.get(start_b..end_b).unwrap_or("").trim().to_string(),
                    precision,
                    start: start_b,
                    end: end_b,
                    relative,
                    recurring: p.recurring_before(i),
                });
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests;
