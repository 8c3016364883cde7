//! classify, remember and import: candidates in, decisions out, stored per
//! disposition in one atomic commit per batch.

use std::collections::BTreeMap;

use crate::core::api::Ctx;
use crate::core::config::EXTRACTOR_VERSION;
use crate::core::errors::invalid;
use crate::core::model::{default_retention, make_id, memory_kind_of, semantic_key};
use crate::lifecycle::tombstone::{Erased, Restatement, Verdict};
use crate::types::{
    Candidate, Datetime, Decision, Disposition, Error, GateName, ImportReceipt, ImportRecord,
    Memory, MemoryKind, MemoryRef, Payload, Provenance, Reason, Status, WriteAction,
};
use crate::wit_store::{Event, Insert, StoreError, Stored, Update, WriteOp};
use crate::write::classify::{classify as classify_one, Classification};
use crate::write::detect::secrets::{find_secrets_with, redact, Finding};
use crate::write::gates::{evaluate, GateInput, GateOutcome};
use crate::write::identity::{lasting_scope, memory_id, scope_seed};
use crate::write::import::{import_payload, reimport_resolution};
use crate::write::resolve::{resolve, Resolution};
use crate::write::validate::validate;

/// One memory write of a batch: an insert, or an update guarded by the etag
/// read before the batch was planned.
#[derive(Clone)]
struct Write {
    memory: Memory,
    /// `None` = insert.
    expected_etag: Option<u64>,
}

/// Writes of this batch not yet committed, so later candidates see earlier
/// ones. One op per revision: a later change to a revision the batch already
/// writes replaces the earlier op (keeping its insert or its etag guard).
#[derive(Default)]
struct Batch {
    writes: BTreeMap<(String, u32), Write>,
    /// (id, revision) in the order first written.
    order: Vec<(String, u32)>,
    /// Events, committed after the memory writes, in order.
    ops: Vec<WriteOp>,
}

impl Batch {
    fn insert(&mut self, memory: Memory) {
        self.write(memory, None);
    }

    fn update(&mut self, memory: Memory, expected_etag: u64) {
        self.write(memory, Some(expected_etag));
    }

    fn write(&mut self, memory: Memory, expected_etag: Option<u64>) {
        let key = (memory.id.clone(), memory.revision);
        match self.writes.get_mut(&key) {
            Some(w) => w.memory = memory,
            None => {
                self.order.push(key.clone());
                self.writes.insert(
                    key,
                    Write {
                        memory,
                        expected_etag,
                    },
                );
            }
        }
    }

    /// The ops of the commit: first the writes that leave a revision not
    /// active, then those that make one active (so no statement of the
    /// commit ever sees two active revisions of a key), then the events.
    fn commit_ops(&self) -> Vec<WriteOp> {
        let mut out = Vec::with_capacity(self.order.len() + self.ops.len());
        for activating in [false, true] {
            for key in &self.order {
                let Some(w) = self.writes.get(key) else {
                    continue;
                };
                if (w.memory.status == Status::Active) == activating {
                    out.push(match w.expected_etag {
                        None => insert_op(&w.memory),
                        Some(e) => update_op(&w.memory, e),
                    });
                }
            }
        }
        out.extend(self.ops.iter().cloned());
        out
    }

    /// Every known revision of `id`: the store's, overlaid with this batch's.
    fn revisions(&self, ctx: &Ctx, id: &str) -> Result<Vec<Stored>, Error> {
        let mut by_rev: BTreeMap<u32, Stored> = ctx
            .store
            .revisions(id)?
            .into_iter()
            .map(|s| (s.memory.revision, s))
            .collect();
        for ((oid, rev), w) in &self.writes {
            if oid == id {
                let etag = w.expected_etag.unwrap_or(0);
                by_rev.insert(
                    *rev,
                    Stored {
                        memory: w.memory.clone(),
                        etag,
                        length: 0,
                        frequencies: Vec::new(),
                    },
                );
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
    let scope = lasting_scope(&c.scope);
    let id = memory_id(kind, &scope_seed(&scope), &payload, &c.text);
    let status = if outcome.disposition == Disposition::Pending {
        Status::Pending
    } else {
        Status::Active
    };
    Memory {
        id,
        revision: 1,
        kind,
        scope,
        text: c.text.trim().to_string(),
        payload,
        provenance: Provenance {
            source: c.source.clone(),
            source_event_ids: c.source.reference.iter().cloned().collect(),
            external_id,
            thread: c.scope.thread.clone(),
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
        index_terms: crate::read::index::memory_terms(m),
    })
}

fn update_op(m: &Memory, expected_etag: u64) -> WriteOp {
    WriteOp::Update(Update {
        memory: m.clone(),
        index_terms: crate::read::index::memory_terms(m),
        expected_etag,
    })
}

fn mref(m: &Memory) -> MemoryRef {
    MemoryRef {
        id: m.id.clone(),
        revision: m.revision,
    }
}

fn next_revision(revs: &[Stored]) -> u32 {
    revs.iter()
        .map(|s| s.memory.revision)
        .max()
        .unwrap_or(0)
        .saturating_add(1)
}

/// End a revision's validity at `at`, unless it already ends earlier.
fn close_validity(m: &mut Memory, at: Datetime) {
    m.valid_to = Some(match m.valid_to {
        Some(t) if t.epoch_ms <= at.epoch_ms => t,
        _ => at,
    });
}

/// Merge the source events of `from` into `into`.
fn merge_sources(into: &mut Memory, from: &Memory) {
    for e in &from.provenance.source_event_ids {
        if !into.provenance.source_event_ids.contains(e) {
            into.provenance.source_event_ids.push(e.clone());
        }
    }
}

/// Confidence after independent corroboration (noisy-or), capped; never
/// lowered.
fn corroborate(a: f64, b: f64, cap: f64) -> f64 {
    let joint = 1.0 - (1.0 - a) * (1.0 - b);
    a.max(b).max(joint.min(cap))
}

/// What applying a resolution did.
struct Applied {
    action: WriteAction,
    /// The revision written (or, for a retraction, withdrawn).
    stored: Option<MemoryRef>,
    /// The disposition when resolution changed it.
    disposition: Option<Disposition>,
    /// Did the conflict gate pass (when resolution decided it)?
    conflict_passed: bool,
}

/// Apply a resolution of `new` against `revs` (every known revision of its
/// id) to the batch.
fn apply(
    batch: &mut Batch,
    mut new: Memory,
    revs: &[Stored],
    resolution: Resolution,
    now: Datetime,
    policy: &crate::core::config::Policy,
) -> Applied {
    let next = next_revision(revs);
    let applied = |action, stored, disposition, conflict_passed| Applied {
        action,
        stored,
        disposition,
        conflict_passed,
    };
    match resolution {
        Resolution::Create => {
            new.revision = next;
            let r = mref(&new);
            batch.insert(new);
            applied(WriteAction::Created, Some(r), None, true)
        }
        Resolution::Duplicate { into, corroborates } => {
            let mut m = into.memory.clone();
            merge_sources(&mut m, &new);
            if corroborates {
                m.confidence = corroborate(
                    m.confidence,
                    new.confidence,
                    policy.lifecycle.corroboration_cap,
                );
            }
            // A supplement: entities and an embedding it did not have.
            for e in &new.entities {
                if !m.entities.iter().any(|x| x.key == e.key) {
                    m.entities.push(e.clone());
                }
            }
            if m.embedding.is_none() {
                m.embedding = new.embedding.clone();
            }
            m.updated_at = now;
            let r = mref(&m);
            batch.update(m, into.etag);
            applied(WriteAction::Duplicate, Some(r), None, true)
        }
        Resolution::Supersede { replaced, confirms } => {
            new.revision = next;
            let is_live =
                |s: &&Stored| matches!(s.memory.status, Status::Active | Status::Conflicted);
            let head = replaced
                .iter()
                .filter(is_live)
                .max_by_key(|s| s.memory.revision)
                .or_else(|| replaced.iter().max_by_key(|s| s.memory.revision));
            new.supersedes = head.map(|s| mref(&s.memory));
            // Bi-temporal: the new revision is valid from when it was said
            // (or its own valid-from); the replaced ones end there.
            let switch = crate::write::resolve::effective_start(&new);
            if replaced.iter().any(|s| is_live(&s)) && new.valid_from.is_none() {
                new.valid_from = Some(switch);
            }
            let r = mref(&new);
            for s in &replaced {
                let mut p = s.memory.clone();
                if confirms && crate::write::resolve::same_content(&p, &new) {
                    merge_sources(&mut new, &p);
                    if crate::write::resolve::independent(&new, &p, policy) {
                        new.confidence = corroborate(
                            new.confidence,
                            p.confidence,
                            policy.lifecycle.corroboration_cap,
                        );
                    }
                }
                if is_live(&s) {
                    close_validity(&mut p, switch);
                } else {
                    // A pending revision was never used: it was never valid.
                    p.valid_from = Some(switch);
                    p.valid_to = Some(switch);
                }
                p.status = Status::Superseded;
                p.superseded_by = Some(r.clone());
                p.updated_at = now;
                batch.update(p, s.etag);
            }
            batch.insert(new);
            let action = if confirms {
                WriteAction::Duplicate
            } else {
                WriteAction::Superseded
            };
            applied(action, Some(r), None, true)
        }
        Resolution::Conflict { with } => {
            new.revision = next;
            new.status = Status::Conflicted;
            for s in &with {
                if s.memory.status != Status::Conflicted {
                    let mut p = s.memory.clone();
                    p.status = Status::Conflicted;
                    p.updated_at = now;
                    batch.update(p, s.etag);
                }
            }
            let r = mref(&new);
            batch.insert(new);
            applied(WriteAction::Conflicted, Some(r), None, false)
        }
        Resolution::Park => {
            let outranked = new.status != Status::Pending;
            new.revision = next;
            new.status = Status::Pending;
            let r = mref(&new);
            batch.insert(new);
            applied(
                WriteAction::Created,
                Some(r),
                Some(Disposition::Pending),
                !outranked,
            )
        }
        Resolution::Historical { valid_to } => {
            new.revision = next;
            new.status = Status::Expired;
            new.valid_to = valid_to.or(Some(now));
            // It held from when it was said, when that was before its end.
            if new.valid_from.is_none()
                && new
                    .valid_to
                    .is_some_and(|t| new.observed_at.epoch_ms < t.epoch_ms)
            {
                new.valid_from = Some(new.observed_at);
            }
            let r = mref(&new);
            batch.insert(new);
            applied(WriteAction::Created, Some(r), None, true)
        }
        Resolution::Exception { .. } => {
            applied(WriteAction::None, None, Some(Disposition::Working), true)
        }
        Resolution::Retract { retracted } => {
            let mut head = None;
            for s in &retracted {
                let mut p = s.memory.clone();
                p.status = Status::Retracted;
                close_validity(&mut p, now);
                p.updated_at = now;
                head = Some(mref(&p));
                batch.update(p, s.etag);
            }
            applied(WriteAction::None, head, None, true)
        }
    }
}

/// Record what resolution did on a decision.
fn record(decision: &mut Decision, applied: &Applied, reason: Option<Reason>) {
    decision.action = applied.action;
    if let Some(r) = &applied.stored {
        decision.memory_id = Some(r.id.clone());
        decision.revision = Some(r.revision);
    }
    if let Some(d) = applied.disposition {
        decision.disposition = d;
    }
    if let Some(why) = reason {
        if let Some(g) = decision
            .gates
            .iter_mut()
            .find(|g| g.gate == GateName::Conflict)
        {
            g.passed = applied.conflict_passed;
            g.reason = why.clone();
        }
        decision.reasons.push(why);
    }
}

struct Decided {
    decision: Decision,
    memory: Option<(MemoryKind, Payload)>,
    /// The secrets and personal data classification found under the
    /// call's policy (what the sensitivity gate read), ranges in the
    /// trimmed text: what a task-state event redacts.
    found: Vec<Finding>,
}

/// A candidate's text as its task-state event stores it: what its
/// classification found redacted, so the call's policy decides the gate
/// and the stored text alike (no second detector run).
fn task_state(c: &Candidate, found: &[Finding]) -> String {
    let text = c.text.trim();
    let lead = c.text.len() - c.text.trim_start().len();
    format!(
        "{}{}{}",
        c.text.get(..lead).unwrap_or(""),
        redact(text, found),
        c.text.get(lead + text.len()..).unwrap_or("")
    )
}

/// Classification + gates for one candidate (shared by classify and remember).
fn decide(ctx: &Ctx, c: &Candidate, erased: &Erased, batch: &Batch) -> Result<Decided, Error> {
    let now = ctx.now();
    let cls: Classification = classify_one(c, now, ctx.policy);
    let principal = ctx.store.principal();
    let existing: Vec<Memory> = match &cls.payload {
        Some(p) if crate::core::model::principal_covers(&principal, &c.scope) => {
            let kind = memory_kind_of(cls.kind).unwrap_or(MemoryKind::Semantic);
            let id = memory_id(kind, &scope_seed(&lasting_scope(&c.scope)), p, &c.text);
            live(&batch.revisions(ctx, &id)?)
                .into_iter()
                .map(|s| s.memory)
                .collect()
        }
        _ => Vec::new(),
    };
    let since = crate::core::time::add_ms(now, -ctx.policy.rate_limit_window_minutes * 60_000);
    let recent_writes = if crate::core::model::principal_covers(&principal, &c.scope) {
        // Writes committed in the window, plus this batch's so far.
        let in_batch = batch
            .ops
            .iter()
            .filter(
                |op| matches!(op, WriteOp::Append(e) if e.kind == "write" && e.scope == c.scope),
            )
            .count() as u64;
        ctx.store.count_events(&c.scope, "write", since)? + in_batch
    } else {
        0
    };
    // Outside the principal the permission gate rejects it; its scope's
    // tombstones are not this principal's to read.
    let erasure = if crate::core::model::principal_covers(&principal, &c.scope) {
        erased.check(c, Restatement::Possible, &ctx.policy.write)?
    } else {
        Verdict::Clear
    };
    let outcome = evaluate(&GateInput {
        candidate: c,
        classification: &cls,
        principal: &principal,
        erasure: &erasure,
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
    let mut found = cls.signals.secrets;
    found.extend(cls.signals.personal);
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
        found,
    })
}

/// Dry run: decisions without storing anything.
pub fn classify(ctx: &Ctx, candidates: &[Candidate]) -> Result<Vec<Decision>, Error> {
    crate::core::limits::batch("candidates", candidates.len())?;
    for (i, c) in candidates.iter().enumerate() {
        validate(i, c)?;
    }
    let erased = Erased::new(ctx.store);
    let batch = Batch::default();
    candidates
        .iter()
        .map(|c| decide(ctx, c, &erased, &batch).map(|d| d.decision))
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

/// Classify, gate, resolve and store, in one commit. When the commit loses a
/// compare-and-swap (another writer changed a key this batch read), the whole
/// batch is decided again from fresh reads, a bounded number of times: a
/// concurrent update is resolved against, never lost.
pub fn remember(ctx: &Ctx, candidates: &[Candidate]) -> Result<Vec<Decision>, Error> {
    crate::core::limits::batch("candidates", candidates.len())?;
    for (i, c) in candidates.iter().enumerate() {
        validate(i, c)?;
    }
    commit_with_retries(ctx, || plan_remember(ctx, candidates))
}

/// Plan a batch from fresh reads and commit it; on `StoreError::Conflict`
/// plan again (at most `lifecycle.commit_retries` more times).
pub fn commit_with_retries<T>(
    ctx: &Ctx,
    mut plan: impl FnMut() -> Result<(T, Vec<WriteOp>), Error>,
) -> Result<T, Error> {
    let attempts = ctx.policy.lifecycle.commit_retries.saturating_add(1);
    let mut last = String::new();
    for _ in 0..attempts {
        let (out, ops) = plan()?;
        if ops.is_empty() {
            return Ok(out);
        }
        match ctx.store.commit(&ops) {
            Ok(_) => return Ok(out),
            Err(StoreError::Conflict(m)) => last = m,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Conflict(format!(
        "concurrent writers kept changing the same memories; gave up after {attempts} attempts: {last}"
    )))
}

fn plan_remember(
    ctx: &Ctx,
    candidates: &[Candidate],
) -> Result<(Vec<Decision>, Vec<WriteOp>), Error> {
    let now = ctx.now();
    let erased = Erased::new(ctx.store);
    let mut batch = Batch::default();
    let mut out = Vec::with_capacity(candidates.len());
    for c in candidates {
        let Decided {
            mut decision,
            memory,
            found,
        } = decide(ctx, c, &erased, &batch)?;
        match (decision.disposition, memory) {
            (Disposition::Working, _) => {
                batch
                    .ops
                    .push(event(c, "task-state", task_state(c, &found), now));
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
                let resolved = resolve(&m, &revs, now, ctx.policy);
                let applied = apply(&mut batch, m, &revs, resolved.resolution, now, ctx.policy);
                record(&mut decision, &applied, resolved.reason);
                if applied.disposition == Some(Disposition::Working) {
                    batch
                        .ops
                        .push(event(c, "task-state", task_state(c, &found), now));
                }
                if let Some(r) = &applied.stored {
                    batch.ops.push(event(
                        c,
                        "write",
                        format!(
                            "{} {}#{} {}",
                            crate::core::model::candidate_kind_name(decision.kind),
                            r.id,
                            r.revision,
                            action_name(decision.action)
                        ),
                        now,
                    ));
                }
            }
            _ => {}
        }
        out.push(decision);
    }
    Ok((out, batch.commit_ops()))
}

fn action_name(a: WriteAction) -> &'static str {
    match a {
        WriteAction::Created => "created",
        WriteAction::Superseded => "superseded",
        WriteAction::Duplicate => "duplicate",
        WriteAction::Conflicted => "conflicted",
        WriteAction::None => "retracted",
    }
}

fn inference_expiry(ctx: &Ctx, c: &Candidate, now: Datetime) -> Option<Datetime> {
    ctx.policy.source(c.source.kind).inferred.then(|| {
        crate::core::time::add_ms(
            now,
            ctx.policy.inference_ttl_days * crate::core::time::MS_PER_DAY,
        )
    })
}

/// Bulk-load already-decided records. Secrets and tombstones still reject;
/// keys resolve as in `remember` (with the same retry on a lost
/// compare-and-swap).
pub fn import_records(ctx: &Ctx, records: &[ImportRecord]) -> Result<Vec<ImportReceipt>, Error> {
    crate::core::limits::batch("import records", records.len())?;
    let principal = ctx.store.principal();
    for (i, r) in records.iter().enumerate() {
        validate(i, &r.candidate)?;
        if r.external_id.trim().is_empty() {
            return Err(invalid(Some(i), "external_id", "must not be empty"));
        }
        if let Some(why) = crate::core::model::scope_denial(&principal, &r.candidate.scope) {
            return Err(Error::PermissionDenied(format!("record {i}: {why}")));
        }
        if let Some(f) = find_secrets_with(&r.candidate.text, &ctx.policy.write).first() {
            return Err(invalid(
                Some(i),
                "text",
                format!("contains a secret ({}); never stored", f.family.name()),
            ));
        }
    }
    commit_with_retries(ctx, || plan_import(ctx, records))
}

fn plan_import(
    ctx: &Ctx,
    records: &[ImportRecord],
) -> Result<(Vec<ImportReceipt>, Vec<WriteOp>), Error> {
    let now = ctx.now();
    let erased = Erased::new(ctx.store);
    let mut batch = Batch::default();
    let mut out = Vec::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let c = &r.candidate;
        if let Verdict::Blocked(why) = erased.check(c, Restatement::Never, &ctx.policy.write)? {
            return Err(invalid(Some(i), "text", why.text));
        }
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
            m.id = make_id("m", &format!("{}|{}", scope_seed(&m.scope), r.external_id));
        }
        let revs = batch.revisions(ctx, &m.id)?;
        let resolution = if semantic_key(&m).is_some() {
            match resolve(&m, &revs, now, ctx.policy).resolution {
                // A decided record is kept, for review, rather than dropped.
                Resolution::Exception { .. } => Resolution::Park,
                other => other,
            }
        } else {
            reimport_resolution(&m, &revs)
        };
        let applied = apply(&mut batch, m.clone(), &revs, resolution, now, ctx.policy);
        out.push(ImportReceipt {
            external_id: r.external_id.clone(),
            memory_id: applied.stored.map(|s| s.id).unwrap_or(m.id),
        });
    }
    Ok((out, batch.commit_ops()))
}
