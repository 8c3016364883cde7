//! The memory envelope (SPEC §2) as `list` and `history` print it and as
//! the SQLite and PostgreSQL stores keep it in a row's body (`crate::body`).

use serde::{Deserialize, Serialize};

use super::common::{datetime, time, Entries, MemoryRef, Scope, Source, Time};
use crate::types as t;

/// One step of a procedure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Step {
    pub action: String,
    pub id: String,
    pub required: bool,
    pub side_effect: bool,
}

/// The kind-specific payload. Untagged: a body is read as the first
/// variant whose required fields it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum PayloadJson {
    /// A fact: subject, predicate, object.
    Semantic {
        #[serde(default)]
        condition: Option<String>,
        object: String,
        predicate: String,
        subject: String,
    },
    // Before `Episodic`, whose fields are all optional and would accept a
    // procedural body.
    /// A procedure: goal and steps.
    Procedural {
        #[serde(default)]
        authority: Option<String>,
        goal: String,
        #[serde(default)]
        guards: Vec<String>,
        #[serde(default)]
        preconditions: Vec<String>,
        #[serde(default)]
        recovery: Vec<String>,
        #[serde(default)]
        steps: Vec<Step>,
    },
    /// An event: when, who, what happened.
    Episodic {
        #[serde(default)]
        actions: Vec<String>,
        #[serde(default)]
        actors: Vec<String>,
        #[serde(default)]
        context: Entries,
        occurred_at: Option<Time>,
        #[serde(default)]
        outcome: Option<String>,
        #[serde(default)]
        success: Option<bool>,
        #[serde(default)]
        time_expression: Option<String>,
    },
}

/// The full memory envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryJson {
    pub access_count: u32,
    pub confidence: f64,
    pub created_at: Time,
    /// Only in a store's row body, never printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
    pub entities: Entries,
    pub external_id: Option<String>,
    pub extractor_version: String,
    /// Stable across revisions.
    pub id: String,
    pub kind: t::MemoryKind,
    pub last_accessed: Option<Time>,
    pub observed_at: Time,
    pub payload: PayloadJson,
    pub policy_version: String,
    pub retention: t::Retention,
    pub revision: u32,
    pub scope: Scope,
    pub sensitivity: t::Sensitivity,
    pub source: Source,
    pub source_event_ids: Vec<String>,
    pub status: t::Status,
    pub superseded_by: Option<MemoryRef>,
    pub supersedes: Option<MemoryRef>,
    pub text: String,
    /// The conversation it was said in (provenance; absent in older rows).
    #[serde(default)]
    pub thread: Option<String>,
    pub updated_at: Time,
    pub valid_from: Option<Time>,
    pub valid_to: Option<Time>,
}

impl MemoryJson {
    /// The envelope as printed: without the embedding, which is bulky, and
    /// its confidence rounded for display.
    pub fn printed(m: t::Memory) -> Self {
        let mut j = MemoryJson::from(m);
        j.embedding = None;
        // Rounded as every printed number is (`super::common::shown`); the row
        // body keeps the exact value.
        j.confidence = super::common::Shown::shown(&j.confidence);
        j
    }
}

impl From<t::Payload> for PayloadJson {
    fn from(p: t::Payload) -> Self {
        match p {
            t::Payload::Semantic(p) => PayloadJson::Semantic {
                condition: p.condition,
                object: p.object,
                predicate: p.predicate,
                subject: p.subject,
            },
            t::Payload::Episodic(p) => PayloadJson::Episodic {
                actions: p.actions,
                actors: p.actors,
                context: Entries(p.context),
                occurred_at: time(p.occurred_at),
                outcome: p.outcome,
                success: p.success,
                time_expression: p.time_expression,
            },
            t::Payload::Procedural(p) => PayloadJson::Procedural {
                authority: p.authority,
                goal: p.goal,
                guards: p.guards,
                preconditions: p.preconditions,
                recovery: p.recovery,
                steps: p
                    .steps
                    .into_iter()
                    .map(|s| Step {
                        action: s.action,
                        id: s.id,
                        required: s.required,
                        side_effect: s.side_effect,
                    })
                    .collect(),
            },
        }
    }
}

impl From<PayloadJson> for t::Payload {
    fn from(p: PayloadJson) -> Self {
        match p {
            PayloadJson::Semantic {
                condition,
                object,
                predicate,
                subject,
            } => t::Payload::Semantic(t::SemanticPayload {
                subject,
                predicate,
                object,
                condition,
            }),
            PayloadJson::Episodic {
                actions,
                actors,
                context,
                occurred_at,
                outcome,
                success,
                time_expression,
            } => t::Payload::Episodic(t::EpisodicPayload {
                occurred_at: datetime(occurred_at),
                time_expression,
                actors,
                context: context.0,
                actions,
                outcome,
                success,
            }),
            PayloadJson::Procedural {
                authority,
                goal,
                guards,
                preconditions,
                recovery,
                steps,
            } => t::Payload::Procedural(t::ProceduralPayload {
                goal,
                preconditions,
                steps: steps
                    .into_iter()
                    .map(|s| t::ProcedureStep {
                        id: s.id,
                        action: s.action,
                        required: s.required,
                        side_effect: s.side_effect,
                    })
                    .collect(),
                guards,
                recovery,
                authority,
            }),
        }
    }
}

impl From<t::Memory> for MemoryJson {
    fn from(m: t::Memory) -> Self {
        MemoryJson {
            access_count: m.access_count,
            confidence: m.confidence,
            created_at: Time(m.created_at),
            embedding: m.embedding,
            entities: Entries(m.entities),
            external_id: m.provenance.external_id,
            extractor_version: m.provenance.extractor_version,
            id: m.id,
            kind: m.kind,
            last_accessed: time(m.last_accessed),
            observed_at: Time(m.observed_at),
            payload: m.payload.into(),
            policy_version: m.provenance.policy_version,
            retention: m.retention,
            revision: m.revision,
            scope: m.scope.into(),
            sensitivity: m.sensitivity,
            source: m.provenance.source.into(),
            source_event_ids: m.provenance.source_event_ids,
            status: m.status,
            superseded_by: m.superseded_by.map(Into::into),
            supersedes: m.supersedes.map(Into::into),
            text: m.text,
            thread: m.provenance.thread,
            updated_at: Time(m.updated_at),
            valid_from: time(m.valid_from),
            valid_to: time(m.valid_to),
        }
    }
}

impl From<MemoryJson> for t::Memory {
    fn from(m: MemoryJson) -> Self {
        t::Memory {
            id: m.id,
            revision: m.revision,
            kind: m.kind,
            scope: m.scope.into(),
            text: m.text,
            payload: m.payload.into(),
            provenance: t::Provenance {
                source: m.source.into(),
                source_event_ids: m.source_event_ids,
                external_id: m.external_id,
                thread: m.thread,
                extractor_version: m.extractor_version,
                policy_version: m.policy_version,
            },
            confidence: m.confidence,
            sensitivity: m.sensitivity,
            observed_at: m.observed_at.0,
            valid_from: datetime(m.valid_from),
            valid_to: datetime(m.valid_to),
            status: m.status,
            supersedes: m.supersedes.map(Into::into),
            superseded_by: m.superseded_by.map(Into::into),
            created_at: m.created_at.0,
            updated_at: m.updated_at.0,
            retention: m.retention,
            access_count: m.access_count,
            last_accessed: datetime(m.last_accessed),
            entities: m.entities.0,
            embedding: m.embedding,
        }
    }
}
