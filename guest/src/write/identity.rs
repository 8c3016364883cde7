//! A memory's identity: its stable id (semantic memories by key, others by
//! kind and content), the scope a lasting memory lives in, and the store
//! filter for the live revisions of a key.

use crate::core::model::{filter, make_id};
use crate::types::{MemoryKind, Payload, Status};
use crate::wit_store::ScopeMatch;

/// The stable id of a memory: semantic memories by key (so revisions of one
/// key share an id), others by kind and content.
pub fn memory_id(kind: MemoryKind, scope_dbg: &str, payload: &Payload, text: &str) -> String {
    match payload {
        Payload::Semantic(p) => make_id(
            "m",
            &format!(
                "{scope_dbg}|{}|{}|{}",
                p.subject.to_lowercase(),
                p.predicate.to_lowercase(),
                p.condition.as_deref().unwrap_or("").to_lowercase()
            ),
        ),
        _ => make_id(
            "m",
            &format!(
                "{scope_dbg}|{}|{}",
                crate::core::model::kind_name(kind),
                text.trim()
            ),
        ),
    }
}

pub(crate) fn scope_seed(s: &crate::types::Scope) -> String {
    format!(
        "{}/{}/{}/{}/{}",
        s.tenant,
        s.user.as_deref().unwrap_or(""),
        s.project.as_deref().unwrap_or(""),
        s.thread.as_deref().unwrap_or(""),
        s.agent.as_deref().unwrap_or("")
    )
}

/// Where a long-term memory lives: the candidate's scope without its
/// thread. A memory belongs to its speaker (and project, agent), not to the
/// conversation it was said in; the thread is kept as provenance. Only task
/// state (working memory) is thread-bound (seed 001: a preference said in
/// one session is known in the next).
pub fn lasting_scope(s: &crate::types::Scope) -> crate::types::Scope {
    crate::types::Scope {
        thread: None,
        ..s.clone()
    }
}

/// The filter for the live revisions of a semantic key.
pub fn key_filter(
    scope: &crate::types::Scope,
    subject: &str,
    predicate: &str,
    condition: Option<&str>,
) -> crate::wit_store::Filter {
    let mut f = filter(scope, ScopeMatch::Exact);
    f.subject = Some(subject.to_string());
    f.predicate = Some(predicate.to_string());
    f.condition = Some(condition.map(str::to_string));
    f.statuses = vec![Status::Active, Status::Conflicted];
    f
}
