//! What `import` adds to the write pipeline: an imported record's payload
//! from its decided kind, and how an episode or procedure imported again
//! under the same external id resolves.

use crate::core::errors::invalid;
use crate::types::{Datetime, Error, ImportRecord, Memory, MemoryKind, Payload, Status};
use crate::wit_store::Stored;
use crate::write::resolve::Resolution;

/// An episode or procedure imported again under the same external id: the
/// same content merges, new content is a new revision.
pub fn reimport_resolution(m: &Memory, revs: &[Stored]) -> Resolution {
    match revs.iter().max_by_key(|s| s.memory.revision) {
        None => Resolution::Create,
        Some(s) if crate::write::resolve::same_content(m, &s.memory) => Resolution::Duplicate {
            into: s.clone(),
            corroborates: false,
        },
        Some(_) => Resolution::Supersede {
            replaced: revs
                .iter()
                .filter(|s| {
                    matches!(
                        s.memory.status,
                        Status::Active | Status::Conflicted | Status::Pending
                    )
                })
                .cloned()
                .collect(),
            confirms: false,
        },
    }
}

/// The payload of an imported record of a decided kind.
pub fn import_payload(index: usize, r: &ImportRecord, now: Datetime) -> Result<Payload, Error> {
    let c = &r.candidate;
    Ok(match r.kind {
        MemoryKind::Semantic => Payload::Semantic(crate::types::SemanticPayload {
            subject: c
                .subject
                .clone()
                .unwrap_or_else(|| crate::write::classify::default_subject(c)),
            predicate: c.predicate.clone().ok_or_else(|| {
                invalid(
                    Some(index),
                    "predicate",
                    "a semantic record needs subject, predicate and object",
                )
            })?,
            object: c.object.clone().unwrap_or_else(|| c.text.clone()),
            condition: c.condition.clone(),
        }),
        MemoryKind::Episodic => Payload::Episodic(crate::types::EpisodicPayload {
            occurred_at: Some(c.occurred_at.or(c.observed_at).unwrap_or(now)),
            time_expression: None,
            actors: Vec::new(),
            context: c.entities.clone(),
            actions: Vec::new(),
            outcome: None,
            success: None,
        }),
        MemoryKind::Procedural => Payload::Procedural(crate::types::ProceduralPayload {
            goal: c.text.clone(),
            preconditions: Vec::new(),
            steps: Vec::new(),
            guards: Vec::new(),
            recovery: Vec::new(),
            authority: None,
        }),
    })
}
