//! The write operations: candidates (classify, remember), import records
//! and their outputs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{datetime, time, Entries, Reason, Scope, Source, Time};
use crate::types as t;

/// A candidate memory (SPEC §4): only `text`, `scope.tenant` and
/// `source.kind` are required.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CandidateIn {
    /// The caller's id for this candidate, echoed in its decision.
    #[serde(default)]
    pub id: Option<String>,
    /// What to remember, in the speaker's words.
    pub text: String,
    /// Where it belongs.
    pub scope: Scope,
    /// Who said or produced it.
    pub source: Source,
    /// When it was said or recorded (default: now).
    #[serde(default)]
    pub observed_at: Option<Time>,
    /// How sure the source is, 0..1 (default: by source kind).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// A suggested kind; the policy may overrule it, with a reason.
    #[serde(default)]
    pub kind_hint: Option<t::CandidateKind>,
    /// For a fact: who or what it is about (e.g. `user:u42`).
    #[serde(default)]
    pub subject: Option<String>,
    /// For a fact: the attribute (e.g. `preferred_name`).
    #[serde(default)]
    pub predicate: Option<String>,
    /// For a fact: the value.
    #[serde(default)]
    pub object: Option<String>,
    /// Qualifies a fact's key (e.g. `work` vs `friends`).
    #[serde(default)]
    pub condition: Option<String>,
    /// For an event: when it happened.
    #[serde(default)]
    pub occurred_at: Option<Time>,
    /// Valid from this instant.
    #[serde(default)]
    pub valid_from: Option<Time>,
    /// Valid until this instant.
    #[serde(default)]
    pub valid_to: Option<Time>,
    /// Named entities for exact matching (service, host, person, …).
    #[serde(default)]
    pub entities: Entries,
    /// A caller-supplied embedding.
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
}

impl From<CandidateIn> for t::Candidate {
    fn from(c: CandidateIn) -> Self {
        t::Candidate {
            id: c.id,
            text: c.text,
            scope: c.scope.into(),
            source: c.source.into(),
            observed_at: datetime(c.observed_at),
            confidence: c.confidence,
            kind_hint: c.kind_hint,
            subject: c.subject,
            predicate: c.predicate,
            object: c.object,
            condition: c.condition,
            occurred_at: datetime(c.occurred_at),
            valid_from: datetime(c.valid_from),
            valid_to: datetime(c.valid_to),
            entities: c.entities.0,
            embedding: c.embedding,
        }
    }
}

/// The candidate line of a typed candidate (for clients written in Rust).
impl From<t::Candidate> for CandidateIn {
    fn from(c: t::Candidate) -> Self {
        CandidateIn {
            id: c.id,
            text: c.text,
            scope: c.scope.into(),
            source: c.source.into(),
            observed_at: time(c.observed_at),
            confidence: c.confidence,
            kind_hint: c.kind_hint,
            subject: c.subject,
            predicate: c.predicate,
            object: c.object,
            condition: c.condition,
            occurred_at: time(c.occurred_at),
            valid_from: time(c.valid_from),
            valid_to: time(c.valid_to),
            entities: Entries(c.entities),
            embedding: c.embedding,
        }
    }
}

/// The import-only fields of an import line. An import line is read in
/// two passes, `ImportHead` then `CandidateIn`, rather than with
/// `#[serde(flatten)]`, which would lose the field path of errors.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ImportHead {
    /// The record's id in the system it comes from.
    pub external_id: String,
    /// Its already-decided kind.
    pub kind: t::MemoryKind,
}

/// An already-decided record to bulk-load (SPEC §4): an import head plus
/// every candidate field.
#[derive(Debug, Clone)]
pub struct ImportIn {
    pub head: ImportHead,
    pub candidate: CandidateIn,
}

impl From<ImportIn> for t::ImportRecord {
    fn from(r: ImportIn) -> Self {
        t::ImportRecord {
            external_id: r.head.external_id,
            kind: r.head.kind,
            candidate: r.candidate.into(),
        }
    }
}

/// One gate's verdict.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GateOut {
    pub pass: bool,
    pub reason: Reason,
}

/// What the policy decided for one candidate.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionOut {
    /// What the write did.
    pub action: t::WriteAction,
    #[serde(serialize_with = "super::common::shown")]
    pub confidence: f64,
    pub disposition: t::Disposition,
    /// The six gates by name, each with its verdict and why.
    pub gates: BTreeMap<&'static str, GateOut>,
    /// The candidate's `id`.
    pub id: Option<String>,
    pub kind: t::CandidateKind,
    /// The memory written or matched, if any.
    pub memory_id: Option<String>,
    pub occurred_at: Option<Time>,
    pub policy_version: String,
    /// Why, in order: classification, the failed gates, the write's resolution.
    pub reasons: Vec<Reason>,
    pub revision: Option<u32>,
    pub sensitivity: t::Sensitivity,
    /// The words a time was resolved from (e.g. `昨天`).
    pub time_expression: Option<String>,
}

impl From<t::Decision> for DecisionOut {
    fn from(d: t::Decision) -> Self {
        DecisionOut {
            action: d.action,
            confidence: d.confidence,
            disposition: d.disposition,
            gates: d
                .gates
                .into_iter()
                .map(|g| {
                    (
                        g.gate.name(),
                        GateOut {
                            pass: g.passed,
                            reason: g.reason.into(),
                        },
                    )
                })
                .collect(),
            id: d.candidate_id,
            kind: d.kind,
            memory_id: d.memory_id,
            occurred_at: time(d.occurred_at),
            policy_version: d.policy_version,
            reasons: d.reasons.into_iter().map(Reason::from).collect(),
            revision: d.revision,
            sensitivity: d.sensitivity,
            time_expression: d.time_expression,
        }
    }
}

/// The memory an import record became.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReceiptOut {
    pub external_id: String,
    /// The memory id (SPEC §4's `id`).
    pub id: String,
    /// The same memory id, named as in decisions and recall results.
    pub memory_id: String,
}

impl From<t::ImportReceipt> for ReceiptOut {
    fn from(r: t::ImportReceipt) -> Self {
        ReceiptOut {
            external_id: r.external_id,
            id: r.memory_id.clone(),
            memory_id: r.memory_id,
        }
    }
}
