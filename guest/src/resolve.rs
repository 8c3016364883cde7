//! Resolution of a new memory against the stored memories with the same key:
//! create, duplicate, supersede or conflict.

use crate::config::Policy;
use crate::model::semantic_key;
use crate::types::{Memory, Payload};
use crate::wit_store::Stored;

/// What to do with a new memory.
#[derive(Debug, Clone)]
pub enum Resolution {
    /// Nothing with this key: store it.
    Create,
    /// The same content is stored: merge provenance into it.
    Duplicate(Stored),
    /// It replaces this revision.
    Supersede(Stored),
    /// It contradicts this revision and neither wins.
    Conflict(Stored),
    /// It is stored as the next revision without touching this one (pending
    /// memories never replace live ones).
    Park(Stored),
}

/// Resolve `new` against the live revisions (`active`/`conflicted`) of its key.
pub fn resolve(new: &Memory, live: &[Stored], policy: &Policy) -> Resolution {
    let Some(current) = live.iter().max_by_key(|s| s.memory.revision) else {
        return Resolution::Create;
    };
    if same_content(&new.payload, &current.memory.payload) || new.text == current.memory.text {
        return Resolution::Duplicate(current.clone());
    }
    if semantic_key(new).is_none() {
        return Resolution::Create;
    }
    let a_new = policy.source(new.provenance.source.kind).authority;
    let a_old = policy
        .source(current.memory.provenance.source.kind)
        .authority;
    if a_new >= a_old {
        Resolution::Supersede(current.clone())
    } else {
        Resolution::Conflict(current.clone())
    }
}

fn same_content(a: &Payload, b: &Payload) -> bool {
    match (a, b) {
        (Payload::Semantic(x), Payload::Semantic(y)) => {
            x.object.trim().to_lowercase() == y.object.trim().to_lowercase()
        }
        _ => false,
    }
}
