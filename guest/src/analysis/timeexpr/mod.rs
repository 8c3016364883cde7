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
//! (relative expressions and durations), `span` (stretches from now to a
//! moment ahead, which bound what is said in them), `resolve` (trying them in order,
//! and the moment as a `Datetime`), `resolved` (the result).

mod calendar;
mod clock;
mod reader;
mod relative;
mod resolve;
mod resolved;
mod span;
mod words;

pub use calendar::days_in_month;
pub use resolved::{Precision, Resolved};

use crate::analysis::cues::fold;
use crate::types::Datetime;
use reader::Parser;

/// The first time expression in `text` that is one moment (neither a
/// recurrence nor a stretch ahead), resolved.
pub fn resolve(text: &str, observed: Datetime) -> Option<Resolved> {
    find_all(text, observed)
        .into_iter()
        .find(|r| !r.recurring && !r.bound)
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
        // A stretch ahead opened by its words ("接下来一小时", "until
        // Friday"), else a moment — closing a stretch when 之前/前/为止
        // follows ("今晚之前"), read once either way.
        let found = match p.bound_opened(i) {
            Some((end, when)) => Some((end, when, true, true)),
            None => {
                let read = p.at(i);
                match p.bound_closed(i, read.map(|(e, w, _)| (e, w))) {
                    Some((end, when)) => Some((end, when, read.is_none_or(|r| r.2), true)),
                    None => read.map(|(end, when, relative)| (end, when, relative, false)),
                }
            }
        };
        match found {
            Some((end, when, relative, bound)) if end > i => {
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
                    bound,
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
