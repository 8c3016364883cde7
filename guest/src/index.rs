//! What a memory is found by: its text's terms plus structural keys
//! (entities, semantic subject/predicate), computed by the guest and stored
//! by the host as postings, so recall never scans a whole scope.

use crate::model::semantic_key;
use crate::types::{Entry, Memory};

/// The posting term for an exact entity match.
pub fn entity_term(e: &Entry) -> String {
    format!("e:{}={}", e.key.to_lowercase(), e.value.to_lowercase())
}

/// The posting term for a semantic subject.
pub fn subject_term(subject: &str) -> String {
    format!("s:{}", subject.to_lowercase())
}

/// Index terms of a memory (text terms with repeats; the store dedups).
pub fn memory_terms(m: &Memory) -> Vec<String> {
    let mut out = crate::text::terms(&m.text);
    out.extend(m.entities.iter().map(entity_term));
    if let Some((subject, predicate, _)) = semantic_key(m) {
        out.push(subject_term(subject));
        out.push(format!("p:{}", predicate.to_lowercase()));
    }
    out
}
