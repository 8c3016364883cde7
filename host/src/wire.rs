//! The JSON Lines contract of SPEC §4 and its mapping to the WIT types.
//!
//! Input types are lenient about extra fields (evaluators add labels) and
//! strict about the ones they read; output is built to the contract's field
//! names. The memory envelope is also the SQLite store's row body, so it
//! round-trips exactly (`MemoryJson`).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

use crate::bindings as w;
use crate::clock;

// ---------------------------------------------------------------- scalars

/// An RFC 3339 instant on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Time(pub w::Datetime);

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        // `to_rfc3339` writes an instant outside chrono's range as its epoch
        // milliseconds: read that back too, or the stored row is lost.
        if let Ok(epoch_ms) = s.parse::<i64>() {
            return Ok(Time(w::Datetime {
                epoch_ms,
                offset_minutes: 0,
            }));
        }
        clock::parse(&s).map(Time).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&clock::to_rfc3339(self.0))
    }
}

fn t(d: Option<w::Datetime>) -> Option<Time> {
    d.map(Time)
}
fn d(t: Option<Time>) -> Option<w::Datetime> {
    t.map(|x| x.0)
}

/// A string→string map on the wire (entities, state); non-string values are
/// kept as their JSON text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entries(pub Vec<w::Entry>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = Option::<BTreeMap<String, Value>>::deserialize(d)?.unwrap_or_default();
        Ok(Entries(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(key, v)| w::Entry {
                    key,
                    value: match v {
                        Value::String(s) => s,
                        other => other.to_string(),
                    },
                })
                .collect(),
        ))
    }
}

impl Serialize for Entries {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m: BTreeMap<&str, &str> = self
            .0
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect();
        m.serialize(s)
    }
}

macro_rules! wire_enum {
    ($name:ident => $wit:path { $($v:ident = $s:literal),+ $(,)? }) => {
        #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
        pub enum $name { $(#[serde(rename = $s)] $v),+ }
        impl From<$name> for $wit { fn from(x: $name) -> Self { match x { $($name::$v => <$wit>::$v),+ } } }
        impl From<$wit> for $name { fn from(x: $wit) -> Self { match x { $(<$wit>::$v => $name::$v),+ } } }
        impl $name {
            /// The contract's spelling.
            pub fn name(self) -> &'static str { match self { $($name::$v => $s),+ } }
        }
    };
}

wire_enum!(MemoryKind => w::MemoryKind { Semantic = "semantic", Episodic = "episodic", Procedural = "procedural" });
wire_enum!(CandidateKind => w::CandidateKind { Semantic = "semantic", Episodic = "episodic", Procedural = "procedural", Working = "working", None = "none" });
wire_enum!(SourceKind => w::SourceKind { User = "user", System = "system", Document = "document", Tool = "tool", Behavior = "behavior", Agent = "agent" });
wire_enum!(Sensitivity => w::Sensitivity { Public = "public", Internal = "internal", Personal = "personal", Sensitive = "sensitive" });
wire_enum!(Status => w::Status { Pending = "pending", Active = "active", Superseded = "superseded", Retracted = "retracted", Expired = "expired", Conflicted = "conflicted", Archived = "archived" });
wire_enum!(Retention => w::Retention { Ephemeral = "ephemeral", Standard = "standard", Durable = "durable", Audit = "audit" });
wire_enum!(Disposition => w::Disposition { Active = "active", Pending = "pending", Working = "working", Rejected = "rejected" });
wire_enum!(GateName => w::GateName { Value = "value", Confidence = "confidence", Sensitivity = "sensitivity", Stability = "stability", Conflict = "conflict", Permission = "permission" });
wire_enum!(WriteAction => w::WriteAction { Created = "created", Superseded = "superseded", Duplicate = "duplicate", Conflicted = "conflicted", None = "none" });
wire_enum!(Role => w::Role { System = "system", User = "user", Assistant = "assistant", Tool = "tool" });
wire_enum!(DropReason => w::DropReason { Budget = "budget", NotAdmitted = "not-admitted", Superseded = "superseded", Duplicate = "duplicate", Expired = "expired" });
wire_enum!(Verdict => w::Verdict { Approve = "approve", Reject = "reject" });

// ---------------------------------------------------------------- shared records

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scope {
    pub tenant: String,
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub thread: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
}

impl From<Scope> for w::Scope {
    fn from(s: Scope) -> Self {
        w::Scope {
            tenant: s.tenant,
            user: s.user,
            project: s.project,
            thread: s.thread,
            agent: s.agent,
        }
    }
}
impl From<w::Scope> for Scope {
    fn from(s: w::Scope) -> Self {
        Scope {
            tenant: s.tenant,
            user: s.user,
            project: s.project,
            thread: s.thread,
            agent: s.agent,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub kind: SourceKind,
    #[serde(rename = "ref", default)]
    pub reference: Option<String>,
}

impl From<Source> for w::Source {
    fn from(s: Source) -> Self {
        w::Source {
            kind: s.kind.into(),
            reference: s.reference,
        }
    }
}
impl From<w::Source> for Source {
    fn from(s: w::Source) -> Self {
        Source {
            kind: s.kind.into(),
            reference: s.reference,
        }
    }
}

// ---------------------------------------------------------------- candidates

/// A candidate line (SPEC §4). Only `text`, `scope.tenant` and `source.kind` are required.
/// (Serialize: clients written in Rust, e.g. the load generator, send it.)
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CandidateIn {
    #[serde(default)]
    pub id: Option<String>,
    pub text: String,
    pub scope: Scope,
    pub source: Source,
    #[serde(default)]
    pub observed_at: Option<Time>,
    #[serde(default)]
    pub confidence: Option<f64>,
    #[serde(default)]
    pub kind_hint: Option<CandidateKind>,
    #[serde(default)]
    pub subject: Option<String>,
    #[serde(default)]
    pub predicate: Option<String>,
    #[serde(default)]
    pub object: Option<String>,
    #[serde(default)]
    pub condition: Option<String>,
    #[serde(default)]
    pub occurred_at: Option<Time>,
    #[serde(default)]
    pub valid_from: Option<Time>,
    #[serde(default)]
    pub valid_to: Option<Time>,
    #[serde(default)]
    pub entities: Entries,
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
}

impl From<CandidateIn> for w::Candidate {
    fn from(c: CandidateIn) -> Self {
        w::Candidate {
            id: c.id,
            text: c.text,
            scope: c.scope.into(),
            source: c.source.into(),
            observed_at: d(c.observed_at),
            confidence: c.confidence,
            kind_hint: c.kind_hint.map(Into::into),
            subject: c.subject,
            predicate: c.predicate,
            object: c.object,
            condition: c.condition,
            occurred_at: d(c.occurred_at),
            valid_from: d(c.valid_from),
            valid_to: d(c.valid_to),
            entities: c.entities.0,
            embedding: c.embedding,
        }
    }
}

impl From<w::Candidate> for CandidateIn {
    fn from(c: w::Candidate) -> Self {
        CandidateIn {
            id: c.id,
            text: c.text,
            scope: c.scope.into(),
            source: c.source.into(),
            observed_at: t(c.observed_at),
            confidence: c.confidence,
            kind_hint: c.kind_hint.map(Into::into),
            subject: c.subject,
            predicate: c.predicate,
            object: c.object,
            condition: c.condition,
            occurred_at: t(c.occurred_at),
            valid_from: t(c.valid_from),
            valid_to: t(c.valid_to),
            entities: Entries(c.entities),
            embedding: c.embedding,
        }
    }
}

/// An import line: a candidate plus its external id and decided kind. It
/// is read in two passes over the same line (`ImportHead`, then
/// `CandidateIn`) rather than with `#[serde(flatten)]`, which would lose the
/// field path of errors.
#[derive(Debug, Clone)]
pub struct ImportIn {
    pub external_id: String,
    pub kind: MemoryKind,
    pub candidate: CandidateIn,
}

/// The import-only fields of an import line.
#[derive(Debug, Clone, Deserialize)]
pub struct ImportHead {
    pub external_id: String,
    pub kind: MemoryKind,
}

impl<'de> Deserialize<'de> for ImportIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let head: ImportHead =
            serde_json::from_value(v.clone()).map_err(serde::de::Error::custom)?;
        let candidate: CandidateIn = serde_json::from_value(v).map_err(serde::de::Error::custom)?;
        Ok(ImportIn {
            external_id: head.external_id,
            kind: head.kind,
            candidate,
        })
    }
}

impl From<ImportIn> for w::ImportRecord {
    fn from(r: ImportIn) -> Self {
        w::ImportRecord {
            external_id: r.external_id,
            kind: r.kind.into(),
            candidate: r.candidate.into(),
        }
    }
}

pub fn decision_json(dec: &w::Decision) -> Value {
    let mut gates = Map::new();
    for g in &dec.gates {
        gates.insert(
            GateName::from(g.gate).name().to_string(),
            json!({"pass": g.passed, "reason": g.reason}),
        );
    }
    json!({
        "id": dec.candidate_id,
        "kind": CandidateKind::from(dec.kind).name(),
        "disposition": Disposition::from(dec.disposition).name(),
        "reasons": dec.reasons,
        "gates": gates,
        "memory_id": dec.memory_id,
        "revision": dec.revision,
        "action": WriteAction::from(dec.action).name(),
        "confidence": dec.confidence,
        "sensitivity": Sensitivity::from(dec.sensitivity).name(),
        "occurred_at": t(dec.occurred_at),
        "time_expression": dec.time_expression,
        "policy_version": dec.policy_version,
    })
}

// ---------------------------------------------------------------- memories

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRef {
    pub id: String,
    pub revision: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub id: String,
    pub action: String,
    pub required: bool,
    pub side_effect: bool,
}

/// The kind-specific payload, flattened into the envelope by kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PayloadJson {
    Semantic {
        subject: String,
        predicate: String,
        object: String,
        #[serde(default)]
        condition: Option<String>,
    },
    // Before `Episodic`, whose fields are all optional and would accept a
    // procedural body (untagged variants are tried in order).
    Procedural {
        goal: String,
        #[serde(default)]
        preconditions: Vec<String>,
        #[serde(default)]
        steps: Vec<Step>,
        #[serde(default)]
        guards: Vec<String>,
        #[serde(default)]
        recovery: Vec<String>,
        #[serde(default)]
        authority: Option<String>,
    },
    Episodic {
        occurred_at: Option<Time>,
        #[serde(default)]
        time_expression: Option<String>,
        #[serde(default)]
        actors: Vec<String>,
        #[serde(default)]
        context: Entries,
        #[serde(default)]
        actions: Vec<String>,
        #[serde(default)]
        outcome: Option<String>,
        #[serde(default)]
        success: Option<bool>,
    },
}

/// The full memory envelope (SPEC §2), as printed by `list`/`history` and
/// stored by the SQLite backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryJson {
    pub id: String,
    pub revision: u32,
    pub kind: MemoryKind,
    pub scope: Scope,
    pub text: String,
    pub payload: PayloadJson,
    pub source: Source,
    pub source_event_ids: Vec<String>,
    pub external_id: Option<String>,
    pub extractor_version: String,
    pub policy_version: String,
    pub confidence: f64,
    pub sensitivity: Sensitivity,
    pub observed_at: Time,
    pub valid_from: Option<Time>,
    pub valid_to: Option<Time>,
    pub status: Status,
    pub supersedes: Option<MemoryRef>,
    pub superseded_by: Option<MemoryRef>,
    pub created_at: Time,
    pub updated_at: Time,
    pub retention: Retention,
    pub access_count: u32,
    pub last_accessed: Option<Time>,
    pub entities: Entries,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
}

fn mref(r: Option<w::MemoryRef>) -> Option<MemoryRef> {
    r.map(|r| MemoryRef {
        id: r.id,
        revision: r.revision,
    })
}
fn wref(r: Option<MemoryRef>) -> Option<w::MemoryRef> {
    r.map(|r| w::MemoryRef {
        id: r.id,
        revision: r.revision,
    })
}

impl From<w::Memory> for MemoryJson {
    fn from(m: w::Memory) -> Self {
        let payload = match m.payload {
            w::Payload::Semantic(p) => PayloadJson::Semantic {
                subject: p.subject,
                predicate: p.predicate,
                object: p.object,
                condition: p.condition,
            },
            w::Payload::Episodic(p) => PayloadJson::Episodic {
                occurred_at: t(p.occurred_at),
                time_expression: p.time_expression,
                actors: p.actors,
                context: Entries(p.context),
                actions: p.actions,
                outcome: p.outcome,
                success: p.success,
            },
            w::Payload::Procedural(p) => PayloadJson::Procedural {
                goal: p.goal,
                preconditions: p.preconditions,
                steps: p
                    .steps
                    .into_iter()
                    .map(|s| Step {
                        id: s.id,
                        action: s.action,
                        required: s.required,
                        side_effect: s.side_effect,
                    })
                    .collect(),
                guards: p.guards,
                recovery: p.recovery,
                authority: p.authority,
            },
        };
        MemoryJson {
            id: m.id,
            revision: m.revision,
            kind: m.kind.into(),
            scope: m.scope.into(),
            text: m.text,
            payload,
            source: m.provenance.source.into(),
            source_event_ids: m.provenance.source_event_ids,
            external_id: m.provenance.external_id,
            extractor_version: m.provenance.extractor_version,
            policy_version: m.provenance.policy_version,
            confidence: m.confidence,
            sensitivity: m.sensitivity.into(),
            observed_at: Time(m.observed_at),
            valid_from: t(m.valid_from),
            valid_to: t(m.valid_to),
            status: m.status.into(),
            supersedes: mref(m.supersedes),
            superseded_by: mref(m.superseded_by),
            created_at: Time(m.created_at),
            updated_at: Time(m.updated_at),
            retention: m.retention.into(),
            access_count: m.access_count,
            last_accessed: t(m.last_accessed),
            entities: Entries(m.entities),
            embedding: m.embedding,
        }
    }
}

impl From<MemoryJson> for w::Memory {
    fn from(m: MemoryJson) -> Self {
        // The variant was chosen when parsing (`PayloadJson` lists the
        // variants most specific first).
        let payload = match (m.kind, m.payload) {
            (
                _,
                PayloadJson::Semantic {
                    subject,
                    predicate,
                    object,
                    condition,
                },
            ) => w::Payload::Semantic(w::SemanticPayload {
                subject,
                predicate,
                object,
                condition,
            }),
            (
                _,
                PayloadJson::Episodic {
                    occurred_at,
                    time_expression,
                    actors,
                    context,
                    actions,
                    outcome,
                    success,
                },
            ) => w::Payload::Episodic(w::EpisodicPayload {
                occurred_at: d(occurred_at),
                time_expression,
                actors,
                context: context.0,
                actions,
                outcome,
                success,
            }),
            (
                _,
                PayloadJson::Procedural {
                    goal,
                    preconditions,
                    steps,
                    guards,
                    recovery,
                    authority,
                },
            ) => w::Payload::Procedural(w::ProceduralPayload {
                goal,
                preconditions,
                steps: steps
                    .into_iter()
                    .map(|s| w::ProcedureStep {
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
        };
        w::Memory {
            id: m.id,
            revision: m.revision,
            kind: m.kind.into(),
            scope: m.scope.into(),
            text: m.text,
            payload,
            provenance: w::Provenance {
                source: m.source.into(),
                source_event_ids: m.source_event_ids,
                external_id: m.external_id,
                extractor_version: m.extractor_version,
                policy_version: m.policy_version,
            },
            confidence: m.confidence,
            sensitivity: m.sensitivity.into(),
            observed_at: m.observed_at.0,
            valid_from: d(m.valid_from),
            valid_to: d(m.valid_to),
            status: m.status.into(),
            supersedes: wref(m.supersedes),
            superseded_by: wref(m.superseded_by),
            created_at: m.created_at.0,
            updated_at: m.updated_at.0,
            retention: m.retention.into(),
            access_count: m.access_count,
            last_accessed: d(m.last_accessed),
            entities: m.entities.0,
            embedding: m.embedding,
        }
    }
}

/// The memory envelope as JSON (without the embedding, which is bulky).
pub fn memory_json(m: &w::Memory) -> Value {
    let mut v = serde_json::to_value(MemoryJson::from(m.clone())).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("embedding");
    }
    v
}

// ---------------------------------------------------------------- recall

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryIn {
    #[serde(default)]
    pub id: Option<String>,
    pub query: String,
    pub scope: Scope,
    #[serde(default)]
    pub k: Option<u32>,
    #[serde(default)]
    pub as_of: Option<Time>,
    #[serde(default)]
    pub kinds: Option<Vec<MemoryKind>>,
    #[serde(default)]
    pub entities: Entries,
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
    #[serde(default)]
    pub sensitivity_ceiling: Option<Sensitivity>,
    /// Also list what was retrieved but not admitted, with the reason.
    #[serde(default)]
    pub explain: Option<bool>,
}

impl From<w::Query> for QueryIn {
    fn from(q: w::Query) -> Self {
        QueryIn {
            id: q.id,
            query: q.text,
            scope: q.scope.into(),
            k: Some(q.k),
            as_of: t(q.as_of),
            kinds: Some(q.kinds.into_iter().map(Into::into).collect()),
            entities: Entries(q.entities),
            embedding: q.embedding,
            sensitivity_ceiling: q.sensitivity_ceiling.map(Into::into),
            explain: Some(q.explain_rejected),
        }
    }
}

impl From<QueryIn> for w::Query {
    fn from(q: QueryIn) -> Self {
        w::Query {
            id: q.id,
            text: q.query,
            scope: q.scope.into(),
            k: q.k.unwrap_or(0),
            as_of: d(q.as_of),
            kinds: q
                .kinds
                .unwrap_or_default()
                .into_iter()
                .map(Into::into)
                .collect(),
            entities: q.entities.0,
            embedding: q.embedding,
            sensitivity_ceiling: q.sensitivity_ceiling.map(Into::into),
            explain_rejected: q.explain.unwrap_or(false),
        }
    }
}

fn scored_json(s: &w::ScoredMemory) -> Value {
    let m = &s.memory;
    let f = &s.features;
    let a = &s.admission;
    json!({
        "memory_id": m.id,
        "revision": m.revision,
        "external_id": m.provenance.external_id,
        "kind": MemoryKind::from(m.kind).name(),
        "status": Status::from(m.status).name(),
        "text": m.text,
        "score": s.score,
        "features": {
            "similarity": f.similarity, "scope": f.scope, "freshness": f.freshness,
            "authority": f.authority, "typefit": f.typefit, "entity": f.entity,
            "risk": f.risk, "embedding": f.embedding,
        },
        "admission": {
            "relevance": a.relevance, "scope_ok": a.scope_ok, "time_ok": a.time_ok,
            "task_applicable": a.task_applicable, "conflict": a.conflict,
            "safety_risk": a.safety_risk, "admit": a.admit, "reason": a.reason,
        },
        "source": Source::from(m.provenance.source.clone()),
        "observed_at": Time(m.observed_at),
    })
}

pub fn recall_json(r: &w::RecallResult) -> Value {
    let mut v = json!({
        "id": r.query_id,
        "results": r.results.iter().map(scored_json).collect::<Vec<_>>(),
        "candidates_read": r.candidates_read,
    });
    if !r.not_admitted.is_empty() {
        v["not_admitted"] = Value::Array(r.not_admitted.iter().map(scored_json).collect());
    }
    v
}

// ---------------------------------------------------------------- pack

#[derive(Debug, Clone, Deserialize)]
pub struct MessageIn {
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    pub role: Role,
    pub text: String,
    #[serde(default)]
    pub priority: Option<u8>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SnippetIn {
    #[serde(rename = "ref")]
    pub reference: String,
    #[serde(alias = "summary")]
    pub text: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct RecallOptionsIn {
    #[serde(default)]
    pub k: Option<u32>,
    #[serde(default)]
    pub as_of: Option<Time>,
    #[serde(default)]
    pub kinds: Option<Vec<MemoryKind>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PackIn {
    pub budget: u32,
    pub scope: Scope,
    #[serde(default)]
    pub query: String,
    #[serde(default)]
    pub system: String,
    #[serde(default)]
    pub state: Entries,
    #[serde(default)]
    pub messages: Vec<MessageIn>,
    #[serde(default)]
    pub knowledge: Vec<SnippetIn>,
    #[serde(default)]
    pub artifacts: Vec<SnippetIn>,
    #[serde(default)]
    pub recall: RecallOptionsIn,
}

impl From<PackIn> for w::PackRequest {
    fn from(p: PackIn) -> Self {
        let snip = |v: Vec<SnippetIn>| {
            v.into_iter()
                .map(|s| w::Snippet {
                    reference: s.reference,
                    text: s.text,
                })
                .collect()
        };
        w::PackRequest {
            budget: p.budget,
            scope: p.scope.into(),
            query: p.query,
            system: p.system,
            state: p.state.0,
            messages: p
                .messages
                .into_iter()
                .map(|m| w::Message {
                    reference: m.reference,
                    role: m.role.into(),
                    text: m.text,
                    priority: m.priority,
                })
                .collect(),
            knowledge: snip(p.knowledge),
            artifacts: snip(p.artifacts),
            recall: w::RecallOptions {
                k: p.recall.k.unwrap_or(0),
                as_of: d(p.recall.as_of),
                kinds: p
                    .recall
                    .kinds
                    .unwrap_or_default()
                    .into_iter()
                    .map(Into::into)
                    .collect(),
            },
        }
    }
}

pub fn packed_json(p: &w::PackedContext) -> Value {
    json!({
        "text": p.text,
        "tokens": p.tokens,
        "budget": p.budget,
        "sections": p.sections.iter().map(|s| json!({"name": s.name, "tokens": s.tokens, "items": s.items})).collect::<Vec<_>>(),
        "dropped": p.dropped.iter().map(|x| json!({"ref": x.reference, "reason": DropReason::from(x.reason).name()})).collect::<Vec<_>>(),
        "compressed": p.compressed.iter().map(|x| json!({"ref": x.reference, "summary": x.summary})).collect::<Vec<_>>(),
    })
}

// ---------------------------------------------------------------- forget

/// A forget selector line: exactly one of the four shapes of SPEC §4.
#[derive(Debug, Clone, Deserialize)]
pub struct ForgetIn {
    #[serde(default)]
    pub memory_id: Option<String>,
    #[serde(default)]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub subject: Option<String>,
    #[serde(default)]
    pub predicate: Option<String>,
    #[serde(default)]
    pub condition: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub source_ref: Option<String>,
}

impl ForgetIn {
    /// The selector, or which field is wrong.
    pub fn selector(self) -> Result<w::ForgetSelector, (String, String)> {
        let err = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        if let Some(id) = self.memory_id {
            return Ok(w::ForgetSelector::MemoryId(id));
        }
        let Some(scope) = self.scope else {
            return err("scope", "required unless memory_id is given");
        };
        let scope: w::Scope = scope.into();
        match (self.subject, self.predicate, self.text, self.source_ref) {
            (Some(subject), Some(predicate), None, None) => {
                Ok(w::ForgetSelector::Key(w::KeySelector {
                    scope,
                    subject,
                    predicate,
                    condition: self.condition,
                }))
            }
            (None, None, Some(text), None) => {
                Ok(w::ForgetSelector::Text(w::TextSelector { scope, text }))
            }
            (None, None, None, Some(source_ref)) => {
                Ok(w::ForgetSelector::SourceRef(w::SourceSelector {
                    scope,
                    source_ref,
                }))
            }
            (Some(_), None, None, None) => {
                err("predicate", "a key selector needs subject and predicate")
            }
            (None, Some(_), None, None) => {
                err("subject", "a key selector needs subject and predicate")
            }
            _ => err(
                "selector",
                "give exactly one of: memory_id; subject+predicate; text; source_ref",
            ),
        }
    }
}

pub fn forget_json(r: &w::ForgetReport) -> Value {
    json!({"deleted": r.deleted, "cascaded": r.cascaded, "tombstones": r.tombstones})
}

pub fn sweep_json(r: &w::SweepReport) -> Value {
    json!({
        "expired": r.expired, "archived": r.archived,
        "inferences_expired": r.inferences_expired, "examined": r.examined,
    })
}

// ---------------------------------------------------------------- review

/// A review line (SPEC §4): a verdict on one pending revision, as the CLI,
/// `POST /v1/review` and the inspector read it.
#[derive(Debug, Clone, Deserialize)]
pub struct ReviewIn {
    pub id: String,
    pub revision: u32,
    pub verdict: Verdict,
    /// Who reviewed (e.g. `cli:ops-7`): the source reference of the approved
    /// revision and of the audit event.
    #[serde(default)]
    pub reference: Option<String>,
}

impl From<ReviewIn> for w::ReviewItem {
    fn from(r: ReviewIn) -> Self {
        w::ReviewItem {
            id: r.id,
            revision: r.revision,
            verdict: r.verdict.into(),
            reference: r.reference,
        }
    }
}

fn ref_json(r: &w::MemoryRef) -> Value {
    json!({"id": r.id, "revision": r.revision})
}

pub fn review_json(o: &w::ReviewOutcome) -> Value {
    json!({
        "reviewed": ref_json(&o.reviewed),
        "verdict": Verdict::from(o.verdict).name(),
        "approved_as": o.approved_as.as_ref().map(ref_json),
        "superseded": o.superseded.iter().map(ref_json).collect::<Vec<_>>(),
        "reason": o.reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_payload_kind_round_trips_through_json() {
        let bodies = [
            r#"{"subject":"s","predicate":"p","object":"o","condition":null}"#,
            r#"{"goal":"release","steps":[{"id":"1","action":"back up","required":true,"side_effect":false}]}"#,
            r#"{"occurred_at":"2026-08-31T23:00:00+08:00","success":false}"#,
        ];
        let parsed: Vec<PayloadJson> = bodies
            .iter()
            .map(|b| serde_json::from_str(b).unwrap())
            .collect();
        assert!(matches!(parsed[0], PayloadJson::Semantic { .. }));
        assert!(matches!(&parsed[1], PayloadJson::Procedural { steps, .. } if steps.len() == 1));
        assert!(matches!(
            parsed[2],
            PayloadJson::Episodic {
                success: Some(false),
                ..
            }
        ));
        for p in parsed {
            let again: PayloadJson =
                serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
            assert_eq!(again, p);
        }
    }
}
