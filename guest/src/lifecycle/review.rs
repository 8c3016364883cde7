//! Review of pending memories: a user or an operator approves or rejects
//! what the policy parked (unverified behaviour and agent inferences,
//! personal data kept for consent, procedures from a single success).
//!
//! Seed 001: an agent-inferred fact "expires after a week unless verified";
//! approving is that verification. It writes a new active revision (never an
//! in-place edit) that supersedes the pending one and any live revision of
//! the same memory, so the history shows what was inferred, who verified it
//! and what it replaced. A rejection retracts the pending revision, which is
//! kept for audit and never recalled.

use std::collections::BTreeSet;

use crate::core::api::Ctx;
use crate::core::errors::invalid;
use crate::core::model::{default_retention, status_name};
use crate::types::{
    Datetime, Error, Memory, MemoryRef, Reason, ReviewItem, ReviewOutcome, Source, SourceKind,
    Status, Verdict,
};
use crate::wit_store::{Event, Insert, Stored, Update, WriteOp};
use crate::write::remember::commit_with_retries;
use engram_contract::reason::ReasonCode;

/// Who reviewed, when the caller does not say.
const DEFAULT_REVIEWER: &str = "review";

/// Approve or reject pending revisions, in one atomic commit.
pub fn review(ctx: &Ctx, items: &[ReviewItem]) -> Result<Vec<ReviewOutcome>, Error> {
    crate::core::limits::batch("review items", items.len())?;
    let mut ids = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        if item.id.trim().is_empty() {
            return Err(invalid(Some(i), "id", "must not be empty"));
        }
        if item.reference.as_ref().is_some_and(|r| r.trim().is_empty()) {
            return Err(invalid(
                Some(i),
                "reference",
                "must not be empty when given",
            ));
        }
        // Two verdicts on one memory in a call could leave two active
        // revisions of it: one memory per call keeps each verdict simple.
        if !ids.insert(item.id.trim().to_string()) {
            return Err(invalid(
                Some(i),
                "id",
                format!("memory '{}' is reviewed twice in one call", item.id.trim()),
            ));
        }
    }
    commit_with_retries(ctx, || plan(ctx, items))
}

fn mref(m: &Memory) -> MemoryRef {
    MemoryRef {
        id: m.id.clone(),
        revision: m.revision,
    }
}

fn label(r: &MemoryRef) -> String {
    format!("{}#{}", r.id, r.revision)
}

fn update(m: Memory, expected_etag: u64) -> WriteOp {
    WriteOp::Update(Update {
        index_terms: crate::read::index::memory_terms(&m),
        memory: m,
        expected_etag,
    })
}

/// The writes of one call, ordered so that no statement of the commit sees
/// two active revisions of a key: demotions, then insertions, then events.
#[derive(Default)]
struct Ops {
    demote: Vec<WriteOp>,
    insert: Vec<WriteOp>,
    events: Vec<WriteOp>,
}

fn plan(ctx: &Ctx, items: &[ReviewItem]) -> Result<(Vec<ReviewOutcome>, Vec<WriteOp>), Error> {
    let now = ctx.now();
    let mut ops = Ops::default();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let id = item.id.trim();
        let revs = ctx.store.revisions(id)?;
        let Some(target) = revs.iter().find(|s| s.memory.revision == item.revision) else {
            return Err(engram_contract::item::not_found(
                i,
                format_args!("no revision {} of memory '{id}'", item.revision),
            ));
        };
        if target.memory.status != Status::Pending {
            return Err(invalid(
                Some(i),
                "revision",
                format!(
                    "{id}#{} is {}: only pending revisions are reviewed",
                    item.revision,
                    status_name(target.memory.status)
                ),
            ));
        }
        let reviewer = item
            .reference
            .as_deref()
            .map(str::trim)
            .unwrap_or(DEFAULT_REVIEWER);
        let outcome = match item.verdict {
            Verdict::Reject => reject(target, reviewer, now, &mut ops),
            Verdict::Approve => approve(ctx, target, &revs, reviewer, now, &mut ops),
        };
        ops.events.push(WriteOp::Append(Event {
            session: target
                .memory
                .scope
                .thread
                .clone()
                .unwrap_or_else(|| "default".into()),
            scope: target.memory.scope.clone(),
            kind: "review".into(),
            payload: outcome.reason.text.clone(),
            at: now,
        }));
        out.push(outcome);
    }
    let mut all = ops.demote;
    all.extend(ops.insert);
    all.extend(ops.events);
    Ok((out, all))
}

/// Retract the pending revision; its content stays for audit.
fn reject(target: &Stored, reviewer: &str, now: Datetime, ops: &mut Ops) -> ReviewOutcome {
    let mut m = target.memory.clone();
    m.status = Status::Retracted;
    m.updated_at = now;
    let reviewed = mref(&m);
    ops.demote.push(update(m, target.etag));
    ReviewOutcome {
        reason: Reason::new(ReasonCode::ReviewRejected, &[&label(&reviewed), reviewer]),
        reviewed,
        verdict: Verdict::Reject,
        approved_as: None,
        superseded: Vec::new(),
    }
}

/// Write the verified revision and supersede the pending and live ones.
fn approve(
    ctx: &Ctx,
    target: &Stored,
    revs: &[Stored],
    reviewer: &str,
    now: Datetime,
    ops: &mut Ops,
) -> ReviewOutcome {
    let pending = &target.memory;
    let live: Vec<&Stored> = revs
        .iter()
        .filter(|s| matches!(s.memory.status, Status::Active | Status::Conflicted))
        .collect();
    let next = revs
        .iter()
        .map(|s| s.memory.revision)
        .max()
        .unwrap_or(0)
        .saturating_add(1);
    let verified = verified_revision(ctx, pending, next, reviewer, now, !live.is_empty());
    let approved = mref(&verified);
    let mut superseded = Vec::new();
    for s in &live {
        let mut m = s.memory.clone();
        // The old value held until the reviewed one was accepted.
        m.valid_to = Some(match m.valid_to {
            Some(t) if t.epoch_ms <= now.epoch_ms => t,
            _ => now,
        });
        m.status = Status::Superseded;
        m.superseded_by = Some(approved.clone());
        m.updated_at = now;
        superseded.push(mref(&m));
        ops.demote.push(update(m, s.etag));
    }
    // The pending revision was never used, so it was never valid.
    let mut parked = pending.clone();
    parked.status = Status::Superseded;
    parked.superseded_by = Some(approved.clone());
    parked.valid_from = Some(now);
    parked.valid_to = Some(now);
    parked.updated_at = now;
    ops.demote.push(update(parked, target.etag));
    ops.insert.push(WriteOp::Insert(Insert {
        index_terms: crate::read::index::memory_terms(&verified),
        memory: verified,
    }));
    let (memory, active) = (label(&mref(pending)), label(&approved));
    let reason = if superseded.is_empty() {
        Reason::new(ReasonCode::ReviewApproved, &[&memory, reviewer, &active])
    } else {
        let replaced = superseded.iter().map(label).collect::<Vec<_>>().join(", ");
        Reason::new(
            ReasonCode::ReviewApprovedSuperseding,
            &[&memory, reviewer, &active, &replaced],
        )
    };
    ReviewOutcome {
        reason,
        reviewed: mref(pending),
        verdict: Verdict::Approve,
        approved_as: Some(approved),
        superseded,
    }
}

/// The active revision a reviewer's approval writes. An inference a person
/// verified is no longer an inference: its source becomes the user (the
/// original events stay in `source-event-ids`, so forgetting them still
/// cascades), its confidence is at least a user statement's, and its
/// inference expiry ends; a validity end the source itself gave is kept.
fn verified_revision(
    ctx: &Ctx,
    pending: &Memory,
    revision: u32,
    reviewer: &str,
    now: Datetime,
    replaces_live: bool,
) -> Memory {
    let mut m = pending.clone();
    let inferred = ctx.policy.source(pending.provenance.source.kind).inferred;
    if inferred {
        m.provenance.source = Source {
            kind: SourceKind::User,
            reference: Some(reviewer.to_string()),
        };
        let expiry = crate::core::time::add_ms(
            pending.created_at,
            ctx.policy.inference_ttl_days * crate::core::time::MS_PER_DAY,
        );
        if m.valid_to.is_some_and(|t| t.epoch_ms >= expiry.epoch_ms) {
            m.valid_to = None;
        }
    }
    if !m.provenance.source_event_ids.iter().any(|e| e == reviewer) {
        m.provenance.source_event_ids.push(reviewer.to_string());
    }
    m.provenance.policy_version = ctx.policy.version.to_string();
    m.confidence = m
        .confidence
        .max(ctx.policy.source(SourceKind::User).confidence);
    m.revision = revision;
    m.status = Status::Active;
    m.supersedes = Some(mref(pending));
    m.superseded_by = None;
    if replaces_live && m.valid_from.is_none() {
        m.valid_from = Some(now);
    }
    m.retention = default_retention(m.kind, m.provenance.source.kind);
    m.created_at = now;
    m.updated_at = now;
    m.access_count = 0;
    m.last_accessed = None;
    m
}
