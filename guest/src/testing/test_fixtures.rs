//! Memories built directly (not through `remember`) for unit tests, and a
//! way to put them in a store: one base that each test module adjusts.

use crate::core::store::Store;
use crate::testing::memstore::MemStore;
use crate::types::{
    Datetime, EpisodicPayload, Memory, MemoryKind, Payload, ProceduralPayload, Provenance,
    Retention, Scope, SemanticPayload, Sensitivity, Source, SourceKind, Status,
};
use crate::wit_store::{Insert, WriteOp};

/// An active, internal, user-sourced revision 1 of `kind` in `scope`,
/// observed, created and (for an episode) happened at `at`, with the
/// kind's plainest payload (a semantic one states `text` of
/// `subject:{id}`). Confidence 0.95, standard retention, no source
/// reference; tests set what they depend on.
pub fn memory(id: &str, kind: MemoryKind, text: &str, scope: Scope, at: Datetime) -> Memory {
    let payload = match kind {
        MemoryKind::Semantic => Payload::Semantic(SemanticPayload {
            subject: format!("subject:{id}"),
            predicate: "states".into(),
            object: text.into(),
            condition: None,
        }),
        MemoryKind::Episodic => Payload::Episodic(EpisodicPayload {
            occurred_at: Some(at),
            time_expression: None,
            actors: Vec::new(),
            context: Vec::new(),
            actions: Vec::new(),
            outcome: None,
            success: None,
        }),
        MemoryKind::Procedural => Payload::Procedural(ProceduralPayload {
            goal: text.into(),
            preconditions: Vec::new(),
            steps: Vec::new(),
            guards: Vec::new(),
            recovery: Vec::new(),
            authority: None,
        }),
    };
    Memory {
        id: id.into(),
        revision: 1,
        kind,
        scope,
        text: text.into(),
        payload,
        provenance: Provenance {
            source: Source {
                kind: SourceKind::User,
                reference: None,
            },
            source_event_ids: Vec::new(),
            external_id: None,
            thread: None,
            extractor_version: "test".into(),
            policy_version: "test".into(),
        },
        confidence: 0.95,
        sensitivity: Sensitivity::Internal,
        observed_at: at,
        valid_from: None,
        valid_to: None,
        status: Status::Active,
        supersedes: None,
        superseded_by: None,
        created_at: at,
        updated_at: at,
        retention: Retention::Standard,
        access_count: 0,
        last_accessed: None,
        entities: Vec::new(),
        embedding: None,
    }
}

/// The semantic payload `subject` `predicate` `object`.
pub fn semantic(subject: &str, predicate: &str, object: &str) -> Payload {
    Payload::Semantic(SemanticPayload {
        subject: subject.into(),
        predicate: predicate.into(),
        object: object.into(),
        condition: None,
    })
}

/// Insert `memories` into `store` in one commit, indexed as `remember`
/// indexes them.
pub fn insert(store: &MemStore, memories: Vec<Memory>) {
    let ops: Vec<WriteOp> = memories
        .into_iter()
        .map(|m| {
            WriteOp::Insert(Insert {
                index_terms: crate::read::index::memory_terms(&m),
                memory: m,
            })
        })
        .collect();
    store.commit(&ops).expect("commit");
}
