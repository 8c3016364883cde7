//! The read operation: queries and their ranked, explained results.

use serde::{Deserialize, Serialize};

use super::common::{datetime, time, Entries, Reason, Scope, Source, Time};
use crate::types as t;

/// A recall query (SPEC §4).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QueryIn {
    /// The caller's id for this query, echoed in its result.
    #[serde(default)]
    pub id: Option<String>,
    /// The question or task to find memories for.
    pub query: String,
    /// Where to look: nothing outside it is read.
    pub scope: Scope,
    /// How many results at most (default: the policy's).
    #[serde(default)]
    pub k: Option<u32>,
    /// Recall as of this instant (default: now).
    #[serde(default)]
    pub as_of: Option<Time>,
    /// Only these kinds.
    #[serde(default)]
    pub kinds: Option<Vec<t::MemoryKind>>,
    /// Entities to match exactly.
    #[serde(default)]
    pub entities: Entries,
    /// A caller-supplied query embedding.
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
    /// Nothing more sensitive than this.
    #[serde(default)]
    pub sensitivity_ceiling: Option<t::Sensitivity>,
    /// Also list what was retrieved but not admitted, with the reason.
    #[serde(default)]
    pub explain: Option<bool>,
}

impl From<QueryIn> for t::Query {
    fn from(q: QueryIn) -> Self {
        t::Query {
            id: q.id,
            text: q.query,
            scope: q.scope.into(),
            k: q.k.unwrap_or(0),
            as_of: datetime(q.as_of),
            kinds: q.kinds.unwrap_or_default(),
            entities: q.entities.0,
            embedding: q.embedding,
            sensitivity_ceiling: q.sensitivity_ceiling,
            explain_rejected: q.explain.unwrap_or(false),
        }
    }
}

/// The query line of a typed query (for clients written in Rust).
impl From<t::Query> for QueryIn {
    fn from(q: t::Query) -> Self {
        QueryIn {
            id: q.id,
            query: q.text,
            scope: q.scope.into(),
            k: Some(q.k),
            as_of: time(q.as_of),
            kinds: Some(q.kinds),
            entities: Entries(q.entities),
            embedding: q.embedding,
            sensitivity_ceiling: q.sensitivity_ceiling,
            explain: Some(q.explain_rejected),
        }
    }
}

/// The features behind a score, each in 0..1.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FeaturesOut {
    #[serde(serialize_with = "super::common::shown")]
    pub authority: f64,
    #[serde(serialize_with = "super::common::shown")]
    pub embedding: Option<f64>,
    #[serde(serialize_with = "super::common::shown")]
    pub entity: f64,
    #[serde(serialize_with = "super::common::shown")]
    pub freshness: f64,
    #[serde(serialize_with = "super::common::shown")]
    pub risk: f64,
    #[serde(serialize_with = "super::common::shown")]
    pub scope: f64,
    #[serde(serialize_with = "super::common::shown")]
    pub similarity: f64,
    #[serde(serialize_with = "super::common::shown")]
    pub typefit: f64,
}

/// Why a memory was (or was not) admitted into the results.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AdmissionOut {
    pub admit: bool,
    pub conflict: bool,
    /// Why it was not admitted, when it was not.
    pub reason: Option<Reason>,
    #[serde(serialize_with = "super::common::shown")]
    pub relevance: f64,
    #[serde(serialize_with = "super::common::shown")]
    pub safety_risk: f64,
    pub scope_ok: bool,
    pub task_applicable: bool,
    pub time_ok: bool,
}

/// One ranked memory with its explanation.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScoredOut {
    pub admission: AdmissionOut,
    pub external_id: Option<String>,
    pub features: FeaturesOut,
    pub kind: t::MemoryKind,
    pub memory_id: String,
    pub observed_at: Time,
    pub revision: u32,
    #[serde(serialize_with = "super::common::shown")]
    pub score: f64,
    pub source: Source,
    pub status: t::Status,
    pub text: String,
}

impl From<t::ScoredMemory> for ScoredOut {
    fn from(s: t::ScoredMemory) -> Self {
        let (m, f, a) = (s.memory, s.features, s.admission);
        ScoredOut {
            admission: AdmissionOut {
                admit: a.admit,
                conflict: a.conflict,
                reason: a.reason.map(Reason::from),
                relevance: a.relevance,
                safety_risk: a.safety_risk,
                scope_ok: a.scope_ok,
                task_applicable: a.task_applicable,
                time_ok: a.time_ok,
            },
            external_id: m.provenance.external_id,
            features: FeaturesOut {
                authority: f.authority,
                embedding: f.embedding,
                entity: f.entity,
                freshness: f.freshness,
                risk: f.risk,
                scope: f.scope,
                similarity: f.similarity,
                typefit: f.typefit,
            },
            kind: m.kind,
            memory_id: m.id,
            observed_at: Time(m.observed_at),
            revision: m.revision,
            score: s.score,
            source: m.provenance.source.into(),
            status: m.status,
            text: m.text,
        }
    }
}

/// One query's answer.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecallOut {
    /// Why nothing was admitted, when nothing was.
    pub abstention: Option<Reason>,
    /// Records the store handed over for this query.
    pub candidates_read: u32,
    /// The query's `id`.
    pub id: Option<String>,
    /// Retrieved but not admitted (only with `explain`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_admitted: Vec<ScoredOut>,
    /// Nothing stored answers the query: `results` is empty (an answer,
    /// not an error).
    pub nothing_relevant: bool,
    pub results: Vec<ScoredOut>,
}

impl From<t::RecallResult> for RecallOut {
    fn from(r: t::RecallResult) -> Self {
        RecallOut {
            abstention: r.abstention.map(Reason::from),
            candidates_read: r.candidates_read,
            id: r.query_id,
            nothing_relevant: r.results.is_empty(),
            not_admitted: r.not_admitted.into_iter().map(Into::into).collect(),
            results: r.results.into_iter().map(Into::into).collect(),
        }
    }
}
