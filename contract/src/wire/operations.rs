//! Execution records (seed 004: a tool's outcome is looked up by its
//! operation id, never guessed by similarity): `record-operations` and
//! `get-operations`.

use serde::{Deserialize, Serialize};

use super::common::{datetime, Scope, Time};
use crate::types as t;

/// What a tool side effect did (SPEC §4): only `operation_id`,
/// `scope.tenant`, `tool` and `status` are required.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OperationRecordIn {
    /// The caller's id for the side effect (e.g. `op_891`).
    pub operation_id: String,
    /// Where it is recorded; `thread` is kept as provenance, and the
    /// operation is found from every thread of the rest of the scope.
    pub scope: Scope,
    /// The tool that ran it (e.g. `issue_refund`); never changes.
    pub tool: String,
    /// `submitted`, then `succeeded` or `failed` (final), or `unknown`
    /// when the outcome was lost.
    pub status: t::OperationStatus,
    /// The key the tool was called with, so a retry takes effect once;
    /// never changes.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// Where the result is kept (e.g. `artifact://tool-results/op_891.json`).
    #[serde(default)]
    pub result_ref: Option<String>,
    /// A digest of the result (e.g. `sha256:…`).
    #[serde(default)]
    pub result_digest: Option<String>,
    /// A short note; secrets in it (and in the result fields) are redacted
    /// before anything is stored.
    #[serde(default)]
    pub detail: Option<String>,
    /// When this status was observed (default: now).
    #[serde(default)]
    pub at: Option<Time>,
}

impl From<OperationRecordIn> for t::OperationRecord {
    fn from(r: OperationRecordIn) -> Self {
        t::OperationRecord {
            operation_id: r.operation_id,
            scope: r.scope.into(),
            tool: r.tool,
            status: r.status,
            idempotency_key: r.idempotency_key,
            result_ref: r.result_ref,
            result_digest: r.result_digest,
            detail: r.detail,
            at: datetime(r.at),
        }
    }
}

/// What recording one operation record did.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OperationReceiptOut {
    /// `created` (its first record), `updated` (a new status or result) or
    /// `duplicate` (the same record again: nothing was appended).
    pub action: t::OperationAction,
    pub operation_id: String,
    /// How many records the operation has now.
    pub revision: u32,
    /// Its status now.
    pub status: t::OperationStatus,
}

impl From<t::OperationReceipt> for OperationReceiptOut {
    fn from(r: t::OperationReceipt) -> Self {
        OperationReceiptOut {
            action: r.action,
            operation_id: r.operation_id,
            revision: r.revision,
            status: r.status,
        }
    }
}

/// An exact lookup of one operation.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OperationLookupIn {
    /// The operation to look up.
    pub operation_id: String,
    /// Looked up from this scope: another tenant's or another user's
    /// operation is not found.
    pub scope: Scope,
}

impl From<OperationLookupIn> for t::OperationLookup {
    fn from(l: OperationLookupIn) -> Self {
        t::OperationLookup {
            operation_id: l.operation_id,
            scope: l.scope.into(),
        }
    }
}

/// One status an operation went through.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OperationStepOut {
    pub at: Time,
    pub status: t::OperationStatus,
}

/// What is known of one operation: `found`, `revision` (how many records)
/// and `history` (every status, oldest first), and when found the latest
/// record's fields (an absent optional one as null).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OperationStateOut {
    /// When the latest record's status was observed (when found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Time>,
    /// The latest record's note (when found; null when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Option<String>>,
    /// Whether any record of this id is visible from the lookup's scope.
    pub found: bool,
    /// Every status recorded, oldest first.
    pub history: Vec<OperationStepOut>,
    /// The idempotency key (when found; null when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<Option<String>>,
    pub operation_id: String,
    /// The latest record's result digest (when found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_digest: Option<Option<String>>,
    /// The latest record's result reference (when found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_ref: Option<Option<String>>,
    /// How many records the operation has (0 when not found).
    pub revision: u32,
    /// Where it is recorded, with the thread of its latest record (when
    /// found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Its status now (when found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<t::OperationStatus>,
    /// The tool that ran it (when found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl From<t::OperationState> for OperationStateOut {
    fn from(s: t::OperationState) -> Self {
        let r = s.record.filter(|_| s.found);
        OperationStateOut {
            at: r.as_ref().and_then(|r| r.at).map(Time),
            detail: r.as_ref().map(|r| r.detail.clone()),
            found: s.found,
            history: s
                .history
                .into_iter()
                .map(|h| OperationStepOut {
                    at: Time(h.at),
                    status: h.status,
                })
                .collect(),
            idempotency_key: r.as_ref().map(|r| r.idempotency_key.clone()),
            operation_id: s.operation_id,
            result_digest: r.as_ref().map(|r| r.result_digest.clone()),
            result_ref: r.as_ref().map(|r| r.result_ref.clone()),
            revision: s.revision,
            scope: r.as_ref().map(|r| r.scope.clone().into()),
            status: r.as_ref().map(|r| r.status),
            tool: r.map(|r| r.tool),
        }
    }
}

/// An operation record as the store's event log keeps it: the payload of
/// an event of session `op:<operation id>`, kind `operation`, whose scope
/// is the record's without its thread. Compact JSON with sorted keys; the
/// thread (provenance) and the instant with its offset (a store may keep
/// only an event's milliseconds) travel in it.
#[derive(Debug, Clone, Serialize)]
struct OperationPayload<'a> {
    at: Option<Time>,
    detail: &'a Option<String>,
    idempotency_key: &'a Option<String>,
    result_digest: &'a Option<String>,
    result_ref: &'a Option<String>,
    status: t::OperationStatus,
    thread: &'a Option<String>,
    tool: &'a str,
}

/// The event payload of `record` (`at` set by the caller).
pub fn operation_payload(record: &t::OperationRecord) -> String {
    serde_json::to_string(&OperationPayload {
        at: record.at.map(Time),
        detail: &record.detail,
        idempotency_key: &record.idempotency_key,
        result_digest: &record.result_digest,
        result_ref: &record.result_ref,
        status: record.status,
        thread: &record.scope.thread,
        tool: &record.tool,
    })
    // A struct of strings and an enum always serialises.
    .unwrap_or_default()
}

/// The record an operation event holds: its scope with the payload's
/// thread, its instant (the payload's, which keeps the offset; else the
/// event's). Read leniently, field by field, so a payload an erasure
/// scrubbed (`[erased]` in place of a value) still counts as a record: a
/// field that is not readable is absent, a status that is not readable is
/// `unknown`.
pub fn operation_from_event(
    operation_id: &str,
    scope: &t::Scope,
    at: t::Datetime,
    payload: &str,
) -> t::OperationRecord {
    let v: serde_json::Value = serde_json::from_str(payload).unwrap_or_default();
    let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    t::OperationRecord {
        operation_id: operation_id.to_string(),
        scope: t::Scope {
            thread: text("thread"),
            ..scope.clone()
        },
        tool: text("tool").unwrap_or_default(),
        status: text("status")
            .and_then(|s| t::OperationStatus::from_name(&s))
            .unwrap_or(t::OperationStatus::Unknown),
        idempotency_key: text("idempotency_key"),
        result_ref: text("result_ref"),
        result_digest: text("result_digest"),
        detail: text("detail"),
        at: Some(
            text("at")
                .and_then(|s| crate::time::parse_field(&s).ok())
                .unwrap_or(at),
        ),
    }
}
