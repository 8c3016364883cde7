//! Behaviour of recall over the in-memory store: the fixtures here, the
//! tests by behaviour in the modules below (ranking signals, filters and
//! as-of reads, what the query's context adds, determinism and scale).

mod context;
mod filters;
mod ranking;
mod scale;

use super::*;
use crate::core::config::Policy;
use crate::core::store::FixedClock;
use crate::testing::memstore::MemStore;
use crate::types::{Entry, MemoryKind, MemoryRef, Payload, Scope};
use crate::wit_store::WriteOp;

const DAY: i64 = crate::core::time::MS_PER_DAY;

/// 2026-01-01T00:00:00Z.
const NOW: i64 = 20_454 * DAY;

fn dt(ms: i64) -> Datetime {
    Datetime {
        epoch_ms: ms,
        offset_minutes: 0,
    }
}

fn scope(user: &str) -> Scope {
    Scope {
        tenant: "acme".into(),
        user: Some(user.into()),
        project: None,
        thread: None,
        agent: None,
    }
}

/// An active memory of user `u1`, happened/observed `days_ago` before NOW.
fn mem(id: &str, kind: MemoryKind, text: &str, days_ago: i64) -> Memory {
    let mut m = crate::testing::test_fixtures::memory(
        id,
        kind,
        text,
        scope("u1"),
        dt(NOW - days_ago * DAY),
    );
    if kind == MemoryKind::Semantic {
        m.payload = crate::testing::test_fixtures::semantic("user:u1", id, text);
    }
    m.provenance.source.reference = Some(format!("src/{id}"));
    m.provenance.external_id = Some(id.into());
    m
}

fn put(store: &MemStore, memories: Vec<Memory>) {
    crate::testing::test_fixtures::insert(store, memories)
}

fn query(text: &str) -> Query {
    Query {
        id: Some("q".into()),
        text: text.into(),
        scope: scope("u1"),
        k: 10,
        as_of: None,
        kinds: Vec::new(),
        entities: Vec::new(),
        embedding: None,
        sensitivity_ceiling: None,
        explain_rejected: false,
    }
}

fn run(store: &MemStore, policy: &Policy, q: &Query) -> RecallResult {
    let clock = FixedClock(dt(NOW));
    let ctx = Ctx {
        store,
        clock: &clock,
        policy,
    };
    recall(&ctx, std::slice::from_ref(q))
        .expect("recall")
        .remove(0)
}

/// A result with its memories' usage counts cleared (a recall counts its
/// use, so consecutive recalls differ in nothing else).
fn without_usage(mut r: RecallResult) -> RecallResult {
    for s in r.results.iter_mut().chain(r.not_admitted.iter_mut()) {
        s.memory.access_count = 0;
        s.memory.last_accessed = None;
    }
    r
}

fn ids(r: &RecallResult) -> Vec<&str> {
    r.results.iter().map(|s| s.memory.id.as_str()).collect()
}
