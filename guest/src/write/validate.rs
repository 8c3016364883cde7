//! The validate stage: a malformed candidate is refused, naming its field,
//! before anything is decided (SPEC §2, [input limits](docs/limits.md)).

use crate::core::errors::invalid;
use crate::types::{Candidate, Error};

/// Reject malformed candidates before anything is decided.
pub fn validate(index: usize, c: &Candidate) -> Result<(), Error> {
    if c.text.trim().is_empty() {
        return Err(invalid(Some(index), "text", "must not be empty"));
    }
    if c.scope.tenant.trim().is_empty() {
        return Err(invalid(Some(index), "scope.tenant", "must not be empty"));
    }
    if let Some(x) = c.confidence {
        if !(0.0..=1.0).contains(&x) || x.is_nan() {
            return Err(invalid(Some(index), "confidence", "must be in [0, 1]"));
        }
    }
    for (field, at) in [
        ("observed_at", c.observed_at),
        ("occurred_at", c.occurred_at),
        ("valid_from", c.valid_from),
        ("valid_to", c.valid_to),
    ] {
        crate::core::limits::instant(Some(index), field, at)?;
    }
    if let (Some(f), Some(t)) = (c.valid_from, c.valid_to) {
        if t.epoch_ms <= f.epoch_ms {
            return Err(invalid(Some(index), "valid_to", "must be after valid_from"));
        }
    }
    crate::core::limits::text(Some(index), "text", &c.text)?;
    crate::core::limits::entities(Some(index), c.entities.len())?;
    // Structured hints, when given, must say something (SPEC §2).
    for (field, v) in [
        ("subject", &c.subject),
        ("predicate", &c.predicate),
        ("object", &c.object),
        ("condition", &c.condition),
        ("source.ref", &c.source.reference),
    ] {
        if v.as_ref().is_some_and(|x| x.trim().is_empty()) {
            return Err(invalid(Some(index), field, "must not be empty when given"));
        }
    }
    if let Some(i) = c.entities.iter().position(|e| e.key.trim().is_empty()) {
        return Err(invalid(
            Some(index),
            &format!("entities[{i}]"),
            "entity keys must not be empty",
        ));
    }
    if c.embedding
        .as_ref()
        .is_some_and(|e| e.iter().any(|x| !x.is_finite()))
    {
        return Err(invalid(Some(index), "embedding", "must be finite numbers"));
    }
    Ok(())
}
