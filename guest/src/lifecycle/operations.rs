//! Execution records by operation id (seed 004: whether a tool took
//! effect is looked up by its operation id in the business record, never
//! guessed by similarity; seed 000 §十一: a tool's success is not the
//! task's, and an `unknown` outcome is checked against the real system,
//! by the idempotency key, before anything is retried).
//!
//! A record is not a memory. It is an event of the store's append-only
//! log: session `op:<operation id>`, kind `operation`, scope the record's
//! without its thread (the thread is provenance, kept in the payload), the
//! payload the record as compact JSON (`engram_contract::wire::
//! operation_payload`). It is read back only by `session-log`, exactly, so
//! it never enters recall, pack or list.
//!
//! The state of an operation is the sequence of its records visible from
//! the caller's scope. Its first record is `created`; the identical record
//! again is a `duplicate` (nothing appended); from `submitted` or `unknown`
//! any change is `updated`; a final status never changes, nor do the tool,
//! the idempotency key or the scope the operation was recorded in.

use std::collections::BTreeMap;

use engram_contract::wire::{operation_from_event, operation_payload};

use crate::core::api::Ctx;
use crate::core::config::WritePolicy;
use crate::core::errors::invalid;
use crate::core::limits;
use crate::types::{
    Error, OperationAction, OperationLookup, OperationReceipt, OperationRecord, OperationState,
    OperationStatus, OperationStep, Scope,
};
use crate::wit_store::{Event, WriteOp};
use crate::write::detect::secrets::redact_with;
use crate::write::remember::commit_with_retries;

/// The event kind of an execution record.
pub const KIND: &str = "operation";

/// The session (event log) of one operation id.
pub fn session(operation_id: &str) -> String {
    format!("op:{operation_id}")
}

fn is_final(s: OperationStatus) -> bool {
    matches!(s, OperationStatus::Succeeded | OperationStatus::Failed)
}

/// The record's scope without its thread: what an operation is keyed by.
fn owner(scope: &Scope) -> Scope {
    Scope {
        thread: None,
        ..scope.clone()
    }
}

/// `tenant=acme user=u42`: a scope as a refusal names it.
fn describe(scope: &Scope) -> String {
    let mut out = format!("tenant={}", scope.tenant);
    for (name, v) in [
        ("user", &scope.user),
        ("project", &scope.project),
        ("agent", &scope.agent),
    ] {
        if let Some(v) = v {
            out.push_str(&format!(" {name}={v}"));
        }
    }
    out
}

fn quoted(v: &Option<String>) -> String {
    match v {
        Some(v) => format!("'{v}'"),
        None => "none".into(),
    }
}

/// A required text: present, and within the text limit.
fn required(index: usize, field: &str, value: &str) -> Result<(), Error> {
    if value.trim().is_empty() {
        return Err(invalid(Some(index), field, "must not be empty"));
    }
    limits::text(Some(index), field, value)
}

/// An optional text: not blank when given, and within the text limit.
fn optional(index: usize, field: &str, value: &Option<String>) -> Result<(), Error> {
    match value {
        Some(v) if v.trim().is_empty() => {
            Err(invalid(Some(index), field, "must not be empty when given"))
        }
        Some(v) => limits::text(Some(index), field, v),
        None => Ok(()),
    }
}

fn validate_scope(index: usize, scope: &Scope) -> Result<(), Error> {
    required(index, "scope.tenant", &scope.tenant)?;
    for (field, v) in [
        ("scope.user", &scope.user),
        ("scope.project", &scope.project),
        ("scope.thread", &scope.thread),
        ("scope.agent", &scope.agent),
    ] {
        optional(index, field, v)?;
    }
    Ok(())
}

fn validate_record(index: usize, r: &OperationRecord) -> Result<(), Error> {
    required(index, "operation_id", &r.operation_id)?;
    validate_scope(index, &r.scope)?;
    required(index, "tool", &r.tool)?;
    for (field, v) in [
        ("idempotency_key", &r.idempotency_key),
        ("result_ref", &r.result_ref),
        ("result_digest", &r.result_digest),
        ("detail", &r.detail),
    ] {
        optional(index, field, v)?;
    }
    limits::instant(Some(index), "at", r.at)
}

/// One record as it is stored: secrets and personal data redacted from
/// the free-text fields under the call's write policy, the instant set.
fn stored_form(
    r: &OperationRecord,
    at: crate::types::Datetime,
    wp: &WritePolicy,
) -> OperationRecord {
    let redact = |v: &Option<String>| v.as_deref().map(|t| redact_with(t, wp));
    OperationRecord {
        result_ref: redact(&r.result_ref),
        result_digest: redact(&r.result_digest),
        detail: redact(&r.detail),
        at: Some(r.at.unwrap_or(at)),
        ..r.clone()
    }
}

/// The records of one operation, oldest first, with the scope (without
/// thread) they are recorded in.
struct Series {
    owner: Scope,
    records: Vec<OperationRecord>,
}

/// How many dimensions below the tenant a scope sets.
fn depth(s: &Scope) -> usize {
    [&s.user, &s.project, &s.agent]
        .iter()
        .filter(|d| d.is_some())
        .count()
}

/// The operation `id` as `scope` sees it: of the records visible from it
/// (`events`, oldest first), those of the narrowest scope they were
/// recorded in (two scopes can record the same id without seeing each
/// other; the caller's own comes first), in order.
fn series(id: &str, events: &[Event]) -> Option<Series> {
    let mut by_owner: BTreeMap<String, (usize, Scope)> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        by_owner
            .entry(format!("{:?}", e.scope))
            .or_insert((i, owner(&e.scope)));
    }
    let (_, chosen) = by_owner
        .into_values()
        .max_by(|(i, a), (j, b)| depth(a).cmp(&depth(b)).then(j.cmp(i)))?;
    let records = events
        .iter()
        .filter(|e| owner(&e.scope) == chosen)
        .map(|e| operation_from_event(id, &e.scope, e.at, &e.payload))
        .collect();
    Some(Series {
        owner: chosen,
        records,
    })
}

/// The visible log of operation `id` from `scope`: what the store holds,
/// then what earlier items of this call appended.
fn visible_log(
    ctx: &Ctx,
    scope: &Scope,
    id: &str,
    read: &mut BTreeMap<(String, String), Vec<Event>>,
    pending: &[(String, Event)],
) -> Result<Vec<Event>, Error> {
    let key = (format!("{:?}", owner(scope)), id.to_string());
    if !read.contains_key(&key) {
        let log = ctx.store.session_log(scope, &session(id), KIND)?;
        read.insert(key.clone(), log);
    }
    let mut events = read[&key].clone();
    events.extend(
        pending
            .iter()
            .filter(|(pid, e)| pid == id && crate::core::model::scope_visible(&e.scope, scope))
            .map(|(_, e)| e.clone()),
    );
    Ok(events)
}

/// Record what tool side effects did, in one atomic commit (see
/// `record-operations` in `wit/policy.wit`).
pub fn record(ctx: &Ctx, records: &[OperationRecord]) -> Result<Vec<OperationReceipt>, Error> {
    limits::batch("operation records", records.len())?;
    for (i, r) in records.iter().enumerate() {
        validate_record(i, r)?;
    }
    commit_with_retries(ctx, || plan(ctx, records))
}

fn plan(
    ctx: &Ctx,
    records: &[OperationRecord],
) -> Result<(Vec<OperationReceipt>, Vec<WriteOp>), Error> {
    let now = ctx.now();
    let mut read = BTreeMap::new();
    let mut pending: Vec<(String, Event)> = Vec::new();
    let mut out = Vec::with_capacity(records.len());
    for (i, given) in records.iter().enumerate() {
        let id = given.operation_id.as_str();
        let mut r = stored_form(given, now, &ctx.policy.write);
        let log = visible_log(ctx, &r.scope, id, &mut read, &pending)?;
        let (action, revision, status) = match series(id, &log) {
            None => (OperationAction::Created, 1, r.status),
            Some(s) => {
                inherit(&mut r, &s);
                decide(i, &r, &s)?
            }
        };
        if action != OperationAction::Duplicate {
            pending.push((
                id.to_string(),
                Event {
                    session: session(id),
                    scope: owner(&r.scope),
                    kind: KIND.into(),
                    payload: operation_payload(&r),
                    at: r.at.unwrap_or(now),
                },
            ));
        }
        out.push(OperationReceipt {
            operation_id: id.to_string(),
            action,
            status,
            revision,
        });
    }
    let ops = pending
        .into_iter()
        .map(|(_, e)| WriteOp::Append(e))
        .collect();
    Ok((out, ops))
}

/// An update says what changed: the idempotency key it leaves out is the
/// one first recorded (so "succeeded" need not repeat the key the
/// submission gave), and a repeat of the latest status without its result
/// keeps the result (a retried report that dropped a field changes nothing).
fn inherit(r: &mut OperationRecord, s: &Series) {
    if let (Some(first), Some(last)) = (s.records.first(), s.records.last()) {
        if r.idempotency_key.is_none() {
            r.idempotency_key = first.idempotency_key.clone();
        }
        if r.status == last.status {
            if r.result_ref.is_none() {
                r.result_ref = last.result_ref.clone();
            }
            if r.result_digest.is_none() {
                r.result_digest = last.result_digest.clone();
            }
        }
    }
}

/// Two records say the same: tool, status, idempotency key and result.
fn same(a: &OperationRecord, b: &OperationRecord) -> bool {
    a.tool == b.tool
        && a.status == b.status
        && a.idempotency_key == b.idempotency_key
        && a.result_ref == b.result_ref
        && a.result_digest == b.result_digest
}

/// What record `r` (item `i`) does to an operation already recorded:
/// (action, revision after it, status after it), or why it is refused.
fn decide(
    i: usize,
    r: &OperationRecord,
    s: &Series,
) -> Result<(OperationAction, u32, OperationStatus), Error> {
    let id = &r.operation_id;
    let (Some(first), Some(last)) = (s.records.first(), s.records.last()) else {
        return Ok((OperationAction::Created, 1, r.status));
    };
    let revision = s.records.len() as u32;
    if owner(&r.scope) != s.owner {
        return Err(invalid(
            Some(i),
            "scope",
            format!(
                "operation {id} is recorded in {}; record its updates in that scope (the thread may differ)",
                describe(&s.owner)
            ),
        ));
    }
    if r.tool != first.tool {
        return Err(invalid(
            Some(i),
            "tool",
            format!(
                "operation {id} was recorded for tool '{}'; an operation's tool does not change",
                first.tool
            ),
        ));
    }
    if r.idempotency_key != first.idempotency_key {
        return Err(invalid(
            Some(i),
            "idempotency_key",
            format!(
                "operation {id} was recorded with idempotency key {}; an operation's idempotency key does not change",
                quoted(&first.idempotency_key)
            ),
        ));
    }
    if same(r, last) {
        return Ok((OperationAction::Duplicate, revision, last.status));
    }
    if !is_final(last.status) {
        return Ok((OperationAction::Updated, revision + 1, r.status));
    }
    // Final: a replay of an earlier record changes nothing; anything new
    // is refused, naming what it would change.
    if s.records.iter().any(|x| same(r, x)) {
        return Ok((OperationAction::Duplicate, revision, last.status));
    }
    let done = last.status.name();
    let (field, message) = if r.status != last.status {
        (
            "status",
            format!("operation {id} already {done}; a final status does not change"),
        )
    } else if r.result_ref != last.result_ref {
        (
            "result_ref",
            format!(
                "operation {id} already {done} with result_ref {}; a final record does not change",
                quoted(&last.result_ref)
            ),
        )
    } else {
        (
            "result_digest",
            format!(
                "operation {id} already {done} with result_digest {}; a final record does not change",
                quoted(&last.result_digest)
            ),
        )
    };
    Err(invalid(Some(i), field, message))
}

/// Look operations up by id, exactly (see `get-operations` in
/// `wit/policy.wit`).
pub fn get(ctx: &Ctx, lookups: &[OperationLookup]) -> Result<Vec<OperationState>, Error> {
    limits::batch("operation lookups", lookups.len())?;
    for (i, l) in lookups.iter().enumerate() {
        required(i, "operation_id", &l.operation_id)?;
        validate_scope(i, &l.scope)?;
    }
    let mut out = Vec::with_capacity(lookups.len());
    for l in lookups {
        let id = l.operation_id.as_str();
        let log = ctx.store.session_log(&l.scope, &session(id), KIND)?;
        out.push(match series(id, &log) {
            None => OperationState {
                operation_id: id.to_string(),
                found: false,
                record: None,
                revision: 0,
                history: Vec::new(),
            },
            Some(s) => OperationState {
                operation_id: id.to_string(),
                found: true,
                revision: s.records.len() as u32,
                history: s
                    .records
                    .iter()
                    .map(|r| OperationStep {
                        status: r.status,
                        at: r.at.unwrap_or_else(|| ctx.now()),
                    })
                    .collect(),
                record: s.records.last().cloned(),
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
#[path = "operations_tests.rs"]
mod tests;
