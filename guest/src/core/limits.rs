//! Input limits: the largest request the policy accepts. A request over a
//! limit is refused whole, naming the limit, its value and what was asked, so
//! a caller knows what to split or shorten: an item over a per-item limit is
//! `invalid-input` at its index and field (so the CLI names the line); a call
//! over a per-call limit is `limit-exceeded`. The limits bound the work and
//! memory of one call; the host's time and memory limits stop anything that
//! gets past them.

use crate::core::errors::invalid;
use crate::types::{Datetime, Error};

/// The limits of one policy call.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Characters of one text (a candidate, a query, a forget fragment, a
    /// pack request's query and system policy).
    pub max_text_chars: usize,
    /// Characters of one message of a pack request: tool output and logs
    /// arrive whole and are compressed by the packer, so this is larger.
    pub max_message_chars: usize,
    /// Items in one call: candidates, import records, queries, selectors.
    pub max_batch_items: usize,
    /// Distinct index terms of one query sent to the store.
    pub max_query_terms: usize,
    /// Results asked of one query (`k`).
    pub max_recall_k: u32,
    /// Token budget of one pack request.
    pub max_pack_budget: u32,
    /// Messages, state entries, knowledge and artifact snippets of one pack
    /// request, together.
    pub max_pack_items: usize,
    /// Entities attached to one candidate or query.
    pub max_entities: usize,
}

/// The limits in force (documented in docs/limits.md).
pub const LIMITS: Limits = Limits {
    max_text_chars: 20_000,
    max_message_chars: 200_000,
    max_batch_items: 10_000,
    max_query_terms: 4_096,
    max_recall_k: 1_000,
    max_pack_budget: 1_000_000,
    max_pack_items: 10_000,
    max_entities: 256,
};

/// "`name` = value": how a refusal names a limit.
fn over(what: String, name: &str, value: impl std::fmt::Display) -> String {
    format!("{what}, over the limit {name} = {value}")
}

/// A whole call over a per-call limit.
fn exceeded(what: String, name: &str, value: impl std::fmt::Display) -> Error {
    Error::LimitExceeded(over(what, name, value))
}

/// One item over a per-item limit.
fn item_over(
    index: Option<usize>,
    field: &str,
    what: String,
    name: &str,
    value: impl std::fmt::Display,
) -> Error {
    invalid(index, field, over(what, name, value))
}

/// The instants RFC 3339 can write: years 0000 to 9999, offsets within
/// ±23:59. An instant outside them could be stored but never printed back.
pub const EARLIEST_MS: i64 = -62_167_219_200_000;
pub const LATEST_MS: i64 = 253_402_300_799_999;
pub const MAX_OFFSET_MINUTES: i32 = 23 * 60 + 59;

/// An instant a caller gave, at `field` of item `index`.
pub fn instant(index: Option<usize>, field: &str, at: Option<Datetime>) -> Result<(), Error> {
    let Some(at) = at else {
        return Ok(());
    };
    if !(EARLIEST_MS..=LATEST_MS).contains(&at.epoch_ms) {
        return Err(invalid(
            index,
            field,
            format!(
                "{} ms since 1970 is outside the years 0000 to 9999",
                at.epoch_ms
            ),
        ));
    }
    if at.offset_minutes.abs() > MAX_OFFSET_MINUTES {
        return Err(invalid(
            index,
            field,
            format!(
                "a UTC offset of {} minutes is outside ±23:59",
                at.offset_minutes
            ),
        ));
    }
    Ok(())
}

/// Items in one call.
pub fn batch(what: &str, n: usize) -> Result<(), Error> {
    if n > LIMITS.max_batch_items {
        return Err(exceeded(
            format!("{n} {what} in one call"),
            "max_batch_items",
            LIMITS.max_batch_items,
        ));
    }
    Ok(())
}

/// Characters of one text field.
pub fn text(index: Option<usize>, field: &str, text: &str) -> Result<(), Error> {
    chars(index, field, text, "max_text_chars", LIMITS.max_text_chars)
}

/// Characters of one pack message.
pub fn message(index: usize, text: &str) -> Result<(), Error> {
    let max = LIMITS.max_message_chars;
    chars(Some(index), "messages.text", text, "max_message_chars", max)
}

fn chars(
    index: Option<usize>,
    field: &str,
    text: &str,
    name: &str,
    max: usize,
) -> Result<(), Error> {
    // Bytes bound characters from above: count only when it could matter.
    if text.len() > max {
        let chars = text.chars().count();
        if chars > max {
            return Err(item_over(
                index,
                field,
                format!("{chars} characters"),
                name,
                max,
            ));
        }
    }
    Ok(())
}

/// Entities of one item.
pub fn entities(index: Option<usize>, n: usize) -> Result<(), Error> {
    if n > LIMITS.max_entities {
        return Err(item_over(
            index,
            "entities",
            format!("{n} entities"),
            "max_entities",
            LIMITS.max_entities,
        ));
    }
    Ok(())
}

/// Distinct index terms of one query.
pub fn query_terms(n: usize) -> Result<(), Error> {
    if n > LIMITS.max_query_terms {
        return Err(exceeded(
            format!("the query has {n} distinct index terms"),
            "max_query_terms",
            LIMITS.max_query_terms,
        ));
    }
    Ok(())
}

/// Results asked of one query.
pub fn recall_k(index: Option<usize>, k: u32) -> Result<(), Error> {
    if k > LIMITS.max_recall_k {
        return Err(item_over(
            index,
            "k",
            format!("{k} results asked"),
            "max_recall_k",
            LIMITS.max_recall_k,
        ));
    }
    Ok(())
}

/// Budget and size of one pack request.
pub fn pack(budget: u32, items: usize) -> Result<(), Error> {
    if budget > LIMITS.max_pack_budget {
        return Err(item_over(
            None,
            "budget",
            format!("{budget} tokens"),
            "max_pack_budget",
            LIMITS.max_pack_budget,
        ));
    }
    if items > LIMITS.max_pack_items {
        return Err(exceeded(
            format!("{items} messages, state entries and snippets"),
            "max_pack_items",
            LIMITS.max_pack_items,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of a refusal, whichever variant carries it.
    fn message(r: Result<(), Error>) -> String {
        match r {
            Err(Error::LimitExceeded(m)) => m,
            Err(Error::InvalidInput(f)) => format!("{:?} {}: {}", f.index, f.field, f.message),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn each_refusal_names_its_limit_and_value() {
        let long = "记".repeat(LIMITS.max_text_chars + 1);
        let m = message(text(Some(3), "text", &long));
        assert_eq!(
            m,
            "Some(3) text: 20001 characters, over the limit max_text_chars = 20000"
        );
        assert!(matches!(
            batch("queries", 10_001),
            Err(Error::LimitExceeded(_))
        ));
        assert!(message(batch("candidates", 10_001)).contains("max_batch_items = 10000"));
        assert!(message(query_terms(5_000)).contains("max_query_terms = 4096"));
        assert!(message(recall_k(Some(0), 1_001)).contains("max_recall_k = 1000"));
        assert!(message(pack(1_000_001, 1)).contains("max_pack_budget = 1000000"));
        assert!(message(pack(10, 10_001)).contains("max_pack_items = 10000"));
        assert!(message(entities(None, 257)).contains("max_entities = 256"));
        let log = "x".repeat(LIMITS.max_message_chars + 1);
        assert!(message(super::message(2, &log)).contains("max_message_chars = 200000"));
    }

    #[test]
    fn instants_outside_what_rfc3339_can_write_are_refused() {
        let at = |epoch_ms, offset_minutes| {
            Some(Datetime {
                epoch_ms,
                offset_minutes,
            })
        };
        assert!(instant(None, "valid_to", at(LATEST_MS, 0)).is_ok());
        assert!(instant(None, "valid_to", at(EARLIEST_MS, -MAX_OFFSET_MINUTES)).is_ok());
        let m = message(instant(Some(1), "valid_to", at(i64::MAX, 0)));
        assert!(m.contains("valid_to") && m.contains("0000 to 9999"), "{m}");
        let m = message(instant(None, "as_of", at(0, i32::MAX)));
        assert!(m.contains("±23:59"), "{m}");
        assert!(instant(None, "as_of", None).is_ok());
    }

    #[test]
    fn at_the_limit_is_accepted() {
        // A multi-byte text of exactly the limit: bytes exceed it, characters do not.
        assert!(text(None, "text", &"记".repeat(LIMITS.max_text_chars)).is_ok());
        assert!(batch("queries", LIMITS.max_batch_items).is_ok());
        assert!(query_terms(LIMITS.max_query_terms).is_ok());
        assert!(recall_k(None, LIMITS.max_recall_k).is_ok());
        assert!(pack(LIMITS.max_pack_budget, LIMITS.max_pack_items).is_ok());
    }
}
