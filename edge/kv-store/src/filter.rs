//! The `filter` of `wit/store.wit` over stored rows and document classes,
//! and the principal's reach. The reference semantics are the guest's
//! in-memory store (`guest/src/testing/memstore.rs`, `filter_matches`) and
//! SQLite's `where_clause_on`; the store conformance suite holds this
//! store to them (`tests/tests/edge.rs`). Store interface v2 is to define
//! them once for every store.

use crate::bindings::exports::engram::memory::store::{Filter, Principal, ScopeMatch};
use crate::model::{Class, Row};
use crate::types::{Scope, Sensitivity, Status};
use engram_contract::reach::{self, Reach};

/// A level's rank (`engram_contract::types::Sensitivity::rank`): this
/// component's own bindings of the WIT enum have its cases in WIT order, as
/// the contract's do.
pub fn sensitivity_rank(s: Sensitivity) -> u8 {
    engram_contract::types::Sensitivity::ALL
        .get(s as usize)
        .map_or(u8::MAX, |c| c.rank())
}

/// Why `scope` lies outside `principal`, as every store words it
/// (`engram_contract::reach`), or `None`.
pub fn denial(principal: &Principal, scope: &Scope) -> Option<String> {
    let held = Reach {
        tenant: &principal.tenant,
        user: principal.user.as_deref(),
        project: principal.project.as_deref(),
    };
    let asked = Reach {
        tenant: &scope.tenant,
        user: scope.user.as_deref(),
        project: scope.project.as_deref(),
    };
    reach::denial(held, asked, reach::STORE_HANDLE)
}

pub fn covers(principal: &Principal, scope: &Scope) -> bool {
    denial(principal, scope).is_none()
}

/// One scope dimension of a stored row against the filter's.
fn dimension(how: ScopeMatch, stored: &Option<String>, asked: &Option<String>) -> bool {
    match how {
        ScopeMatch::Exact => stored == asked,
        ScopeMatch::Visible => stored.is_none() || stored == asked,
        ScopeMatch::Within => asked.is_none() || stored == asked,
    }
}

/// The columns a class shares with its rows, as one view.
struct Columns<'a> {
    user: &'a Option<String>,
    project: &'a Option<String>,
    thread: &'a Option<String>,
    agent: &'a Option<String>,
    kind: crate::types::MemoryKind,
    status: Status,
    sensitivity: Sensitivity,
    valid_from: Option<i64>,
    valid_to: Option<i64>,
}

fn columns_match(f: &Filter, c: &Columns) -> bool {
    let s = &f.scope;
    dimension(f.scope_match, c.user, &s.user)
        && dimension(f.scope_match, c.project, &s.project)
        && dimension(f.scope_match, c.thread, &s.thread)
        && dimension(f.scope_match, c.agent, &s.agent)
        && (f.kinds.is_empty() || f.kinds.contains(&c.kind))
        && (f.statuses.is_empty() || f.statuses.contains(&c.status))
        && !(f.exclude_archived && c.status == Status::Archived)
        && f.valid_at.is_none_or(|at| {
            c.valid_from.is_none_or(|v| v <= at.epoch_ms)
                && c.valid_to.is_none_or(|v| at.epoch_ms < v)
        })
        && f.sensitivity_max
            .is_none_or(|m| sensitivity_rank(c.sensitivity) <= sensitivity_rank(m))
}

/// Does the filter test columns only rows have (semantic key, source)?
pub fn needs_rows(f: &Filter) -> bool {
    f.subject.is_some() || f.predicate.is_some() || f.condition.is_some() || f.source_ref.is_some()
}

/// Does a document class pass the filter's class-level tests?
pub fn class_matches(f: &Filter, c: &Class) -> bool {
    columns_match(
        f,
        &Columns {
            user: &c.user,
            project: &c.project,
            thread: &c.thread,
            agent: &c.agent,
            kind: c.kind,
            status: c.status,
            sensitivity: c.sensitivity,
            valid_from: c.valid_from,
            valid_to: c.valid_to,
        },
    )
}

/// Does a row pass the whole filter?
pub fn row_matches(f: &Filter, r: &Row) -> bool {
    let key = r.key.as_ref();
    r.scope.tenant == f.scope.tenant
        && columns_match(
            f,
            &Columns {
                user: &r.scope.user,
                project: &r.scope.project,
                thread: &r.scope.thread,
                agent: &r.scope.agent,
                kind: r.kind,
                status: r.status,
                sensitivity: r.sensitivity,
                valid_from: r.valid_from,
                valid_to: r.valid_to,
            },
        )
        && f.subject
            .as_ref()
            .is_none_or(|s| key.is_some_and(|k| &k.0 == s))
        && f.predicate
            .as_ref()
            .is_none_or(|p| key.is_some_and(|k| &k.1 == p))
        && f.condition
            .as_ref()
            .is_none_or(|c| key.is_some_and(|k| &k.2 == c))
        && f.source_ref
            .as_ref()
            .is_none_or(|s| r.source_ref.as_ref() == Some(s) || r.source_events.contains(s))
}
