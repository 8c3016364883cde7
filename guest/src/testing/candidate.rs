//! The one candidate builder the tests share (unit and integration tests
//! alike, hence behind the `testing` feature rather than in
//! `test_fixtures`): a plain candidate with every optional field unset, so
//! a test sets only what it depends on (an id, a source reference, a key).

use crate::types::{Candidate, Datetime, Scope, Source, SourceKind};

/// A candidate of `text` from `source` in `scope`, observed at
/// `observed_at`: no id, no source reference, no hint, key, times,
/// entities or embedding.
pub fn candidate(text: &str, source: SourceKind, scope: Scope, observed_at: Datetime) -> Candidate {
    Candidate {
        id: None,
        text: text.to_string(),
        scope,
        source: Source {
            kind: source,
            reference: None,
        },
        observed_at: Some(observed_at),
        confidence: None,
        kind_hint: None,
        subject: None,
        predicate: None,
        object: None,
        condition: None,
        occurred_at: None,
        valid_from: None,
        valid_to: None,
        entities: Vec::new(),
        embedding: None,
    }
}
