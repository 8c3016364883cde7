//! classify, remember and import: candidates in, decisions out, stored per
//! disposition in one atomic commit per batch.

use std::collections::BTreeMap;

use crate::api::Ctx;
use crate::classify::{classify as classify_one, Classification};
use crate::config::EXTRACTOR_VERSION;
use crate::errors::invalid;
use crate::gates::{evaluate, GateInput, GateOutcome};
use crate::model::{default_retention, filter, make_id, memory_kind_of, semantic_key};
use crate::resolve::{resolve, Resolution};
use crate::types::{
    Candidate, Datetime, Decision, Disposition, Error, ImportReceipt, ImportRecord, Memory,
    MemoryKind, MemoryRef, Payload, Provenance, Status, WriteAction,
};
use crate::wit_store::{Event, Insert, ScopeMatch, Stored, Tombstone, Update, WriteOp};

/// Reject malformed candidates before anything is decided.
pub fn validate(index: usize, c: &Candidate) -> Result<(), Error> {
    if c.text.trim().is_empty() {
        return Err(invalid(Some(index), "text", "must not be empty"));
    }
    if c.scope.tenant.trim().is_empty() {
        return Err(invalid(Some(index), "scope.tenant", "must not be empty"));
    }
    if let Some(x) = c.confidence {
        if !(0.0..=1.0).contains(&x) || x.is_nan() {
            return Err(invalid(Some(index), "confidence", "must be in [0, 1]"));
        }
    }
    if let (Some(f), Some(t)) = (c.valid_from, c.valid_to) {
        if t.epoch_ms <= f.epoch_ms {
            return Err(invalid(Some(index), "valid_to", "must be after valid_from"));
        }
    }
    Ok(())
}

/// Writes of this batch not yet committed, so later candidates see earlier ones.
#[derive(Default)]
struct Batch {
    ops: Vec<WriteOp>,
    /// (id, revision) → the revision as it will be after the commit.
    overlay: BTreeMap<(String, u32), Stored>,
}

impl Batch {
    fn put(&mut self, memory: Memory, op: WriteOp) {
        let etag = match &op {
            WriteOp::Update(u) => u.expected_etag,
            _ => 0,
        };
        self.overlay.insert(
            (memory.id.clone(), memory.revision),
            Stored {
                memory,
                etag,
                length: 0,
            },
        );
        self.ops.push(op);
    }

    /// Every known revision of `id`: the store's, overlaid with this batch's.
    fn revisions(&self, ctx: &Ctx, id: &str) -> Result<Vec<Stored>, Error> {
        let mut by_rev: BTreeMap<u32, Stored> = ctx
            .store
            .revisions(id)?
            .into_iter()
            .map(|s| (s.memory.revision, s))
            .collect();
        for ((oid, rev), s) in &self.overlay {
            if oid == id {
                by_rev.insert(*rev, s.clone());
            }
        }
        Ok(by_rev.into_values().collect())
    }
}

fn live(revs: &[Stored]) -> Vec<Stored> {
    revs.iter()
        .filter(|s| matches!(s.memory.status, Status::Active | Status::Conflicted))
        .cloned()
        .collect()
}

/// The stable id of a memory: semantic memories by key (so revisions of one
/// key share an id), others by kind and content.
pub fn memory_id(kind: MemoryKind, scope_dbg: &str, payload: &Payload, text: &str) -> String {
    match payload {
        Payload::Semantic(p) => make_id(
            "m",
            &format!(
                "{scope_dbg}|{}|{}|{}",
                p.subject.to_lowercase(),
                p.predicate.to_lowercase(),
                p.condition.as_deref().unwrap_or("").to_lowercase()
            ),
        ),
        _ => make_id(
            "m",
            &format!(
                "{scope_dbg}|{}|{}",
                crate::model::kind_name(kind),
                text.trim()
            ),
        ),
    }
}

fn scope_seed(s: &crate::types::Scope) -> String {
    format!(
        "{}/{}/{}/{}/{}",
        s.tenant,
        s.user.as_deref().unwrap_or(""),
        s.project.as_deref().unwrap_or(""),
        s.thread.as_deref().unwrap_or(""),
        s.agent.as_deref().unwrap_or("")
    )
}

/// Build the first revision of a memory from a candidate and its verdicts.
fn build_memory(
    c: &Candidate,
    kind: MemoryKind,
    payload: Payload,
    outcome: &GateOutcome,
    external_id: Option<String>,
    now: Datetime,
    policy_version: &str,
) -> Memory {
    let observed = c.observed_at.unwrap_or(now);
    let id = memory_id(kind, &scope_seed(&c.scope), &payload, &c.text);
    let status = if outcome.disposition == Disposition::Pending {
        Status::Pending
    } else {
        Status::Active
    };
    Memory {
        id,
        revision: 1,
        kind,
        scope: c.scope.clone(),
        text: c.text.trim().to_string(),
        payload,
        provenance: Provenance {
            source: c.source.clone(),
            source_event_ids: c.source.reference.iter().cloned().collect(),
            external_id,
            extractor_version: EXTRACTOR_VERSION.to_string(),
            policy_version: policy_version.to_string(),
        },
        confidence: outcome.confidence,
        sensitivity: outcome.sensitivity,
        observed_at: observed,
        valid_from: c.valid_from,
        valid_to: match (c.valid_to, outcome.valid_to) {
            (Some(a), Some(b)) => Some(if a.epoch_ms < b.epoch_ms { a } else { b }),
            (a, b) => a.or(b),
        },
        status,
        supersedes: None,
        superseded_by: None,
        created_at: now,
        updated_at: now,
        retention: default_retention(kind, c.source.kind),
        access_count: 0,
        last_accessed: None,
        entities: c.entities.clone(),
        embedding: c.embedding.clone(),
    }
}

fn insert_op(m: &Memory) -> WriteOp {
    WriteOp::Insert(Insert {
        memory: m.clone(),
        index_terms: crate::index::memory_terms(m),
    })
}

fn update_op(m: &Memory, expected_etag: u64) -> WriteOp {
    WriteOp::Update(Update {
        memory: m.clone(),
        index_terms: crate::index::memory_terms(m),
        expected_etag,
    })
}

/// Apply a resolution to the batch; returns (action, stored revision).
fn apply(
    batch: &mut Batch,
    mut new: Memory,
    resolution: Resolution,
    now: Datetime,
) -> (WriteAction, MemoryRef) {
    match resolution {
        Resolution::Create => {
            let r = MemoryRef {
                id: new.id.clone(),
                revision: new.revision,
            };
            let op = insert_op(&new);
            batch.put(new, op);
            (WriteAction::Created, r)
        }
        Resolution::Duplicate(old) => {
            let mut m = old.memory.clone();
            for e in &new.provenance.source_event_ids {
                if !m.provenance.source_event_ids.contains(e) {
                    m.provenance.source_event_ids.push(e.clone());
                }
            }
            m.updated_at = now;
            let r = MemoryRef {
                id: m.id.clone(),
                revision: m.revision,
            };
            let op = update_op(&m, old.etag);
            batch.put(m, op);
            (WriteAction::Duplicate, r)
        }
        Resolution::Supersede(old) => {
            new.id = old.memory.id.clone();
            new.revision = old.memory.revision + 1;
            new.supersedes = Some(MemoryRef {
                id: old.memory.id.clone(),
                revision: old.memory.revision,
            });
            let r = MemoryRef {
                id: new.id.clone(),
                revision: new.revision,
            };
            let mut prev = old.memory.clone();
            prev.status = Status::Superseded;
            prev.superseded_by = Some(r.clone());
            prev.updated_at = now;
            let op = update_op(&prev, old.etag);
            batch.put(prev, op);
            let op = insert_op(&new);
            batch.put(new, op);
            (WriteAction::Superseded, r)
        }
        Resolution::Park(after) => {
            new.id = after.memory.id.clone();
            new.revision = after.memory.revision + 1;
            let r = MemoryRef {
                id: new.id.clone(),
                revision: new.revision,
            };
            let op = insert_op(&new);
            batch.put(new, op);
            (WriteAction::Created, r)
        }
        Resolution::Conflict(old) => {
            new.id = old.memory.id.clone();
            new.revision = old.memory.revision + 1;
            new.status = Status::Conflicted;
            let r = MemoryRef {
                id: new.id.clone(),
                revision: new.revision,
            };
            let mut prev = old.memory.clone();
            prev.status = Status::Conflicted;
            prev.updated_at = now;
            let op = update_op(&prev, old.etag);
            batch.put(prev, op);
            let op = insert_op(&new);
            batch.put(new, op);
            (WriteAction::Conflicted, r)
        }
    }
}

struct Decided {
    decision: Decision,
    memory: Option<(MemoryKind, Payload)>,
}

/// Classification + gates for one candidate (shared by classify and remember).
fn decide(
    ctx: &Ctx,
    c: &Candidate,
    tombstones: &[Tombstone],
    batch: &Batch,
) -> Result<Decided, Error> {
    let now = ctx.now();
    let cls: Classification = classify_one(c, now, ctx.policy);
    let principal = ctx.store.principal();
    let existing: Vec<Memory> = match &cls.payload {
        Some(p) if crate::model::principal_covers(&principal, &c.scope) => {
            let kind = memory_kind_of(cls.kind).unwrap_or(MemoryKind::Semantic);
            let id = memory_id(kind, &scope_seed(&c.scope), p, &c.text);
            live(&batch.revisions(ctx, &id)?)
                .into_iter()
                .map(|s| s.memory)
                .collect()
        }
        _ => Vec::new(),
    };
    let since = crate::time::add_ms(now, -ctx.policy.rate_limit_window_minutes * 60_000);
    let recent_writes = if crate::model::principal_covers(&principal, &c.scope) {
        ctx.store.count_events(&c.scope, "write", since)?
    } else {
        0
    };
    let outcome = evaluate(&GateInput {
        candidate: c,
        classification: &cls,
        principal: &principal,
        tombstones,
        recent_writes,
        existing: &existing,
        now,
        policy: ctx.policy,
    });
    let mut reasons = cls.reasons.clone();
    reasons.extend(outcome.reasons.iter().cloned());
    let (occurred_at, time_expression) = match &cls.payload {
        Some(Payload::Episodic(e)) => (e.occurred_at, e.time_expression.clone()),
        _ => (None, None),
    };
    let memory = match (memory_kind_of(cls.kind), &cls.payload) {
        (Some(k), Some(p))
            if matches!(
                outcome.disposition,
                Disposition::Active | Disposition::Pending
            ) =>
        {
            Some((k, p.clone()))
        }
        _ => None,
    };
    Ok(Decided {
        decision: Decision {
            candidate_id: c.id.clone(),
            kind: cls.kind,
            disposition: outcome.disposition,
            reasons,
            gates: outcome.gates.clone(),
            memory_id: None,
            revision: None,
            action: WriteAction::None,
            confidence: outcome.confidence,
            sensitivity: outcome.sensitivity,
            occurred_at,
            time_expression,
            policy_version: ctx.policy.version.to_string(),
        },
        memory,
    })
}

/// Dry run: decisions without storing anything.
pub fn classify(ctx: &Ctx, candidates: &[Candidate]) -> Result<Vec<Decision>, Error> {
    for (i, c) in candidates.iter().enumerate() {
        validate(i, c)?;
    }
    let tombstones = ctx.store.tombstones()?;
    let batch = Batch::default();
    candidates
        .iter()
        .map(|c| decide(ctx, c, &tombstones, &batch).map(|d| d.decision))
        .collect()
}

fn session_of(c: &Candidate) -> String {
    c.scope
        .thread
        .clone()
        .unwrap_or_else(|| "default".to_string())
}

fn event(c: &Candidate, kind: &str, payload: String, at: Datetime) -> WriteOp {
    WriteOp::Append(Event {
        session: session_of(c),
        scope: c.scope.clone(),
        kind: kind.to_string(),
        payload,
        at,
    })
}

/// Classify, gate, resolve and store, in one commit.
pub fn remember(ctx: &Ctx, candidates: &[Candidate]) -> Result<Vec<Decision>, Error> {
    for (i, c) in candidates.iter().enumerate() {
        validate(i, c)?;
    }
    let now = ctx.now();
    let tombstones = ctx.store.tombstones()?;
    let mut batch = Batch::default();
    let mut out = Vec::with_capacity(candidates.len());
    for c in candidates {
        let Decided {
            mut decision,
            memory,
        } = decide(ctx, c, &tombstones, &batch)?;
        match (decision.disposition, memory) {
            (Disposition::Working, _) => {
                batch.ops.push(event(c, "task-state", c.text.clone(), now));
            }
            (Disposition::Active | Disposition::Pending, Some((kind, payload))) => {
                let outcome = GateOutcome {
                    gates: Vec::new(),
                    disposition: decision.disposition,
                    confidence: decision.confidence,
                    sensitivity: decision.sensitivity,
                    reasons: Vec::new(),
                    valid_to: None,
                };
                let mut m = build_memory(c, kind, payload, &outcome, None, now, ctx.policy.version);
                m.valid_to = m.valid_to.or(inference_expiry(ctx, c, now));
                let revs = batch.revisions(ctx, &m.id)?;
                let resolution = if m.status == Status::Pending {
                    pending_resolution(&m, &revs)
                } else {
                    resolve(&m, &live(&revs), ctx.policy)
                };
                let (action, r) = apply(&mut batch, m, resolution, now);
                decision.action = action;
                decision.memory_id = Some(r.id.clone());
                decision.revision = Some(r.revision);
                batch.ops.push(event(
                    c,
                    "write",
                    format!(
                        "{} {}#{}",
                        crate::model::candidate_kind_name(decision.kind),
                        r.id,
                        r.revision
                    ),
                    now,
                ));
            }
            _ => {}
        }
        out.push(decision);
    }
    ctx.store.commit(&batch.ops)?;
    Ok(out)
}

/// A pending memory never touches the live revisions: it is parked as the
/// next revision of its id, or is a duplicate of an identical latest one.
fn pending_resolution(m: &Memory, revs: &[Stored]) -> Resolution {
    match revs.iter().max_by_key(|s| s.memory.revision) {
        None => Resolution::Create,
        Some(s) if s.memory.text == m.text => Resolution::Duplicate(s.clone()),
        Some(s) => Resolution::Park(s.clone()),
    }
}

fn inference_expiry(ctx: &Ctx, c: &Candidate, now: Datetime) -> Option<Datetime> {
    ctx.policy
        .source(c.source.kind)
        .inferred
        .then(|| crate::time::add_ms(now, ctx.policy.inference_ttl_days * crate::time::MS_PER_DAY))
}

/// Bulk-load already-decided records. Secrets and tombstones still reject.
pub fn import_records(ctx: &Ctx, records: &[ImportRecord]) -> Result<Vec<ImportReceipt>, Error> {
    let now = ctx.now();
    let principal = ctx.store.principal();
    for (i, r) in records.iter().enumerate() {
        validate(i, &r.candidate)?;
        if r.external_id.trim().is_empty() {
            return Err(invalid(Some(i), "external_id", "must not be empty"));
        }
        if !crate::model::principal_covers(&principal, &r.candidate.scope) {
            return Err(Error::PermissionDenied(format!(
                "record {i}: scope tenant {:?} is outside the principal",
                r.candidate.scope.tenant
            )));
        }
        if let Some(f) = crate::secrets::find_secrets(&r.candidate.text).first() {
            return Err(invalid(
                Some(i),
                "text",
                format!("contains a secret ({}); never stored", f.family),
            ));
        }
    }
    let mut batch = Batch::default();
    let mut out = Vec::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let c = &r.candidate;
        let payload = import_payload(i, r, now)?;
        let trust = ctx.policy.source(c.source.kind);
        let outcome = GateOutcome {
            gates: Vec::new(),
            disposition: Disposition::Active,
            confidence: c.confidence.unwrap_or(trust.confidence),
            sensitivity: crate::types::Sensitivity::Internal,
            reasons: Vec::new(),
            valid_to: None,
        };
        let mut m = build_memory(
            c,
            r.kind,
            payload,
            &outcome,
            Some(r.external_id.clone()),
            now,
            ctx.policy.version,
        );
        if semantic_key(&m).is_none() {
            // Episodes and procedures are identified by their external id.
            m.id = make_id("m", &format!("{}|{}", scope_seed(&c.scope), r.external_id));
        }
        let revs = batch.revisions(ctx, &m.id)?;
        let resolution = resolve(&m, &live(&revs), ctx.policy);
        let resolution = match resolution {
            Resolution::Create if !revs.is_empty() => {
                // Re-import of the same external id: a new revision.
                let latest = revs.iter().max_by_key(|s| s.memory.revision).cloned();
                match latest {
                    Some(s) if s.memory.text == m.text => Resolution::Duplicate(s),
                    Some(s) => Resolution::Supersede(s),
                    None => Resolution::Create,
                }
            }
            other => other,
        };
        let (_, mref) = apply(&mut batch, m, resolution, now);
        out.push(ImportReceipt {
            external_id: r.external_id.clone(),
            memory_id: mref.id,
        });
    }
    ctx.store.commit(&batch.ops)?;
    Ok(out)
}

/// The payload of an imported record of a decided kind.
fn import_payload(index: usize, r: &ImportRecord, now: Datetime) -> Result<Payload, Error> {
    let c = &r.candidate;
    Ok(match r.kind {
        MemoryKind::Semantic => Payload::Semantic(crate::types::SemanticPayload {
            subject: c
                .subject
                .clone()
                .unwrap_or_else(|| crate::classify::default_subject(c)),
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

/// The filter for the live revisions of a semantic key.
pub fn key_filter(
    scope: &crate::types::Scope,
    subject: &str,
    predicate: &str,
    condition: Option<&str>,
) -> crate::wit_store::Filter {
    let mut f = filter(scope, ScopeMatch::Exact);
    f.subject = Some(subject.to_string());
    f.predicate = Some(predicate.to_string());
    f.condition = Some(condition.map(str::to_string));
    f.statuses = vec![Status::Active, Status::Conflicted];
    f
}
