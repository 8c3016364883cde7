//! Small helpers over the WIT data model shared by every module: names of
//! enum values, scope relations, and building a memory from a candidate.

use crate::types::{
    CandidateKind, Datetime, Memory, MemoryKind, Payload, Retention, Scope, SourceKind, Status,
};
use crate::wit_store::{Filter, Principal, ScopeMatch};
use engram_contract::reach::{self, Reach};

pub fn kind_name(k: MemoryKind) -> &'static str {
    match k {
        MemoryKind::Semantic => "semantic",
        MemoryKind::Episodic => "episodic",
        MemoryKind::Procedural => "procedural",
    }
}

pub fn candidate_kind_name(k: CandidateKind) -> &'static str {
    match k {
        CandidateKind::Semantic => "semantic",
        CandidateKind::Episodic => "episodic",
        CandidateKind::Procedural => "procedural",
        CandidateKind::Working => "working",
        CandidateKind::None => "none",
    }
}

/// The long-term kind of a candidate kind, if it has one.
pub fn memory_kind_of(k: CandidateKind) -> Option<MemoryKind> {
    match k {
        CandidateKind::Semantic => Some(MemoryKind::Semantic),
        CandidateKind::Episodic => Some(MemoryKind::Episodic),
        CandidateKind::Procedural => Some(MemoryKind::Procedural),
        CandidateKind::Working | CandidateKind::None => None,
    }
}

pub fn candidate_kind_of(k: MemoryKind) -> CandidateKind {
    match k {
        MemoryKind::Semantic => CandidateKind::Semantic,
        MemoryKind::Episodic => CandidateKind::Episodic,
        MemoryKind::Procedural => CandidateKind::Procedural,
    }
}

pub fn source_label(k: SourceKind) -> &'static str {
    match k {
        SourceKind::User => "user-stated",
        SourceKind::System => "system-of-record",
        SourceKind::Document => "document",
        SourceKind::Tool => "tool-output",
        SourceKind::Behavior => "behavior-inferred",
        SourceKind::Agent => "agent-inferred",
    }
}

pub fn status_name(s: Status) -> &'static str {
    match s {
        Status::Pending => "pending",
        Status::Active => "active",
        Status::Superseded => "superseded",
        Status::Retracted => "retracted",
        Status::Expired => "expired",
        Status::Conflicted => "conflicted",
        Status::Archived => "archived",
    }
}

/// May `principal` act in `scope`? (Same tenant; user/project pinned when
/// the principal pins them.)
pub fn principal_covers(principal: &Principal, scope: &Scope) -> bool {
    scope_denial(principal, scope).is_none()
}

/// Why `scope` lies outside `principal`, naming the first dimension that
/// differs and both values (`None` when the principal covers the scope).
/// Worded once for every surface (`engram_contract::reach`).
pub fn scope_denial(principal: &Principal, scope: &Scope) -> Option<String> {
    let held = Reach {
        tenant: &principal.tenant,
        user: principal.user.as_deref(),
        project: principal.project.as_deref(),
    };
    reach::denial(held, scope.into(), "this principal")
}

/// Is a memory in `mem` visible from a caller in `query`? Every dimension of
/// the memory is unset or equal to the caller's.
pub fn scope_visible(mem: &Scope, query: &Scope) -> bool {
    fn dim(m: &Option<String>, q: &Option<String>) -> bool {
        m.is_none() || m == q
    }
    mem.tenant == query.tenant
        && dim(&mem.user, &query.user)
        && dim(&mem.project, &query.project)
        && dim(&mem.thread, &query.thread)
        && dim(&mem.agent, &query.agent)
}

/// May `principal` see content owned by `owner` (a tombstone's scope)?
/// Never another user's or project's (`engram_contract::owner`).
pub fn principal_sees_owner(principal: &Principal, owner: &Scope) -> bool {
    engram_contract::owner::sees_owner(
        &principal.tenant,
        principal.user.as_deref(),
        principal.project.as_deref(),
        owner,
    )
}

/// Is a memory in `mem` stored under `scope` (equal on every dimension the
/// scope sets; anything on the ones it leaves unset)?
pub fn scope_within(mem: &Scope, scope: &Scope) -> bool {
    fn dim(m: &Option<String>, s: &Option<String>) -> bool {
        s.is_none() || m == s
    }
    mem.tenant == scope.tenant
        && dim(&mem.user, &scope.user)
        && dim(&mem.project, &scope.project)
        && dim(&mem.thread, &scope.thread)
        && dim(&mem.agent, &scope.agent)
}

/// How many scope dimensions below the tenant a memory pins: narrower
/// memories beat global ones.
pub fn scope_depth(s: &Scope) -> u32 {
    [&s.user, &s.project, &s.thread, &s.agent]
        .iter()
        .filter(|d| d.is_some())
        .count() as u32
}

/// A filter with nothing but a scope relation; callers narrow it.
///
/// Memories have no thread (`identity::lasting_scope`): an `exact` or
/// `within` filter ignores the thread it is given, so a key, a list or a
/// forget asked from inside a conversation reaches what was said in it.
pub fn filter(scope: &Scope, scope_match: ScopeMatch) -> Filter {
    let mut scope = scope.clone();
    if matches!(scope_match, ScopeMatch::Exact | ScopeMatch::Within) {
        scope.thread = None;
    }
    Filter {
        scope,
        scope_match,
        kinds: Vec::new(),
        statuses: Vec::new(),
        valid_at: None,
        sensitivity_max: None,
        subject: None,
        predicate: None,
        condition: None,
        source_ref: None,
        exclude_archived: false,
    }
}

/// The semantic key of a memory, if it is semantic.
pub fn semantic_key(m: &Memory) -> Option<(&str, &str, Option<&str>)> {
    match &m.payload {
        Payload::Semantic(p) => Some((&p.subject, &p.predicate, p.condition.as_deref())),
        _ => None,
    }
}

/// Is this memory usable at `at` (status active or conflicted, and valid)?
pub fn usable_at(m: &Memory, at: Datetime) -> bool {
    matches!(m.status, Status::Active | Status::Conflicted)
        && crate::core::time::within(at, m.valid_from, m.valid_to)
}

/// A short, stable id: `m-` + 16 hex digits of a FNV-1a hash of the seed.
/// Deterministic, so the same input on the same store gives the same id.
pub fn make_id(prefix: &str, seed: &str) -> String {
    format!("{prefix}-{:016x}", fnv1a(seed.as_bytes()))
}

/// 64-bit FNV-1a: stable across platforms and runs (ids, fingerprints).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Default retention of a new memory.
pub fn default_retention(kind: MemoryKind, source: SourceKind) -> Retention {
    match (kind, source) {
        (MemoryKind::Semantic, SourceKind::User | SourceKind::System) => Retention::Durable,
        (_, SourceKind::Behavior | SourceKind::Agent) => Retention::Ephemeral,
        _ => Retention::Standard,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(user: Option<&str>, project: Option<&str>) -> Principal {
        Principal {
            tenant: "acme".into(),
            user: user.map(String::from),
            project: project.map(String::from),
        }
    }

    fn scope(tenant: &str, user: Option<&str>, project: Option<&str>) -> Scope {
        Scope {
            tenant: tenant.into(),
            user: user.map(String::from),
            project: project.map(String::from),
            thread: None,
            agent: None,
        }
    }

    #[test]
    fn a_denial_names_the_dimension_and_both_values() {
        let p = principal(Some("u2"), None);
        assert_eq!(
            scope_denial(&p, &scope("acme", Some("u1"), None)).as_deref(),
            Some("user 'u1' is outside this principal's user 'u2'")
        );
        assert_eq!(
            scope_denial(&p, &scope("acme", None, None)).as_deref(),
            Some("a scope without a user is outside this principal's user 'u2'")
        );
        assert_eq!(
            scope_denial(&p, &scope("globex", Some("u2"), None)).as_deref(),
            Some("tenant 'globex' is outside this principal's tenant 'acme'")
        );
        let q = principal(None, Some("p1"));
        assert_eq!(
            scope_denial(&q, &scope("acme", Some("anyone"), Some("p9"))).as_deref(),
            Some("project 'p9' is outside this principal's project 'p1'")
        );
        assert!(scope_denial(&q, &scope("acme", Some("anyone"), Some("p1"))).is_none());
        assert!(principal_covers(
            &p,
            &scope("acme", Some("u2"), Some("any"))
        ));
    }
}
