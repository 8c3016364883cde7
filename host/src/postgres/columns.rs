//! A memory's values as the tables' columns, and a database error as the
//! store interface names it: shared by the reads (`sql`), the writes
//! (`write`, and `apply` in this module's parent) and the cache.

use postgres::error::SqlState;

use crate::bindings::{Memory, Payload, StoreError};

/// A database error as the store interface names it: a unique or check
/// violation is a `conflict` (an (id, revision) that exists, or a second
/// active revision of one key); the rest is the backend's.
pub(crate) fn db_err(e: postgres::Error, what: &str) -> StoreError {
    match e.code() {
        Some(c) if *c == SqlState::UNIQUE_VIOLATION => {
            let detail = e.as_db_error().map(|d| d.message().to_string());
            StoreError::Conflict(format!(
                "{what}: {}",
                detail.unwrap_or_else(|| e.to_string())
            ))
        }
        _ => StoreError::Backend(match e.as_db_error() {
            Some(d) => format!("{what}: {}", d.message()),
            None => format!("{what}: {e}"),
        }),
    }
}

/// Columns derived from a memory for filtering.
pub(crate) fn key_columns(m: &Memory) -> (Option<String>, Option<String>, Option<String>) {
    match &m.payload {
        Payload::Semantic(p) => (
            Some(p.subject.clone()),
            Some(p.predicate.clone()),
            p.condition.clone(),
        ),
        _ => (None, None, None),
    }
}

/// The `kind` column of a memory.
pub(crate) fn kind_name(m: &Memory) -> String {
    m.kind.name().to_string()
}

/// The `status` column of a memory.
pub(crate) fn status_name(m: &Memory) -> String {
    m.status.name().to_string()
}
