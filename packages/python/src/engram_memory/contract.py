"""The JSON contract's types (SPEC §4) as typed dicts: inputs are what the
methods take, outputs what they return.

Generated from the contract's JSON Schema (contract/schema/engram-contract.schema.json)
by `cargo test -p engram-contract --features schema` (ENGRAM_BLESS=1 rewrites it).
Do not edit.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Tuple, TypedDict, Union


class _CandidateInRequired(TypedDict):
    scope: "Scope"
    """Where it belongs."""
    source: "Source"
    """Who said or produced it."""
    text: str
    """What to remember, in the speaker's words."""


class CandidateIn(_CandidateInRequired, total=False):
    """A candidate memory (SPEC §4): only `text`, `scope.tenant` and `source.kind` are required."""

    condition: Union[str, None]
    """Qualifies a fact's key (e.g. `work` vs `friends`)."""
    confidence: Union[float, None]
    """How sure the source is, 0..1 (default: by source kind)."""
    embedding: Union[List[float], None]
    """A caller-supplied embedding."""
    entities: "Entries"
    """Named entities for exact matching (service, host, person, …)."""
    id: Union[str, None]
    """The caller's id for this candidate, echoed in its decision."""
    kind_hint: Union["CandidateKind", None]
    """A suggested kind; the policy may overrule it, with a reason."""
    object: Union[str, None]
    """For a fact: the value."""
    observed_at: Union["Time", None]
    """When it was said or recorded (default: now)."""
    occurred_at: Union["Time", None]
    """For an event: when it happened."""
    predicate: Union[str, None]
    """For a fact: the attribute (e.g. `preferred_name`)."""
    subject: Union[str, None]
    """For a fact: who or what it is about (e.g. `user:u42`)."""
    valid_from: Union["Time", None]
    """Valid from this instant."""
    valid_to: Union["Time", None]
    """Valid until this instant."""


class ForgetIn(TypedDict, total=False):
    """A forget selector (SPEC §4): exactly one of `memory_id`; `scope`+`subject`+`predicate` (optional `condition`); `scope`+`text`; `scope`+`source_ref`."""

    condition: Union[str, None]
    """With `subject` and `predicate`: only under this condition."""
    memory_id: Union[str, None]
    """Forget this memory, every revision."""
    predicate: Union[str, None]
    """With `subject`: the fact with this attribute."""
    scope: Union["Scope", None]
    """Where to forget (required unless `memory_id` is given)."""
    source_ref: Union[str, None]
    """Everything derived from this source event or session."""
    subject: Union[str, None]
    """With `predicate`: the fact about this subject."""
    text: Union[str, None]
    """Erase this text fragment wherever it appears."""


class HistoryIn(TypedDict):
    """A history request."""

    id: str
    """The memory whose revisions to show, oldest first."""


class _ImportLineRequired(TypedDict):
    external_id: str
    """The record's id in the system it comes from."""
    kind: "MemoryKind"
    """Its already-decided kind."""
    scope: "Scope"
    """Where it belongs."""
    source: "Source"
    """Who said or produced it."""
    text: str
    """What to remember, in the speaker's words."""


class ImportLine(_ImportLineRequired, total=False):
    """The JSON Schema name of an import line, which is an import head plus a candidate (read in two passes)."""

    condition: Union[str, None]
    """Qualifies a fact's key (e.g. `work` vs `friends`)."""
    confidence: Union[float, None]
    """How sure the source is, 0..1 (default: by source kind)."""
    embedding: Union[List[float], None]
    """A caller-supplied embedding."""
    entities: "Entries"
    """Named entities for exact matching (service, host, person, …)."""
    id: Union[str, None]
    """The caller's id for this candidate, echoed in its decision."""
    kind_hint: Union["CandidateKind", None]
    """A suggested kind; the policy may overrule it, with a reason."""
    object: Union[str, None]
    """For a fact: the value."""
    observed_at: Union["Time", None]
    """When it was said or recorded (default: now)."""
    occurred_at: Union["Time", None]
    """For an event: when it happened."""
    predicate: Union[str, None]
    """For a fact: the attribute (e.g. `preferred_name`)."""
    subject: Union[str, None]
    """For a fact: who or what it is about (e.g. `user:u42`)."""
    valid_from: Union["Time", None]
    """Valid from this instant."""
    valid_to: Union["Time", None]
    """Valid until this instant."""


class _ListInRequired(TypedDict):
    scope: "Scope"
    """Memories of this scope (latest revisions)."""


class ListIn(_ListInRequired, total=False):
    """A list request."""

    statuses: List["Status"]
    """Only these statuses (default: all)."""


class _MessageInRequired(TypedDict):
    role: "Role"
    text: str


class MessageIn(_MessageInRequired, total=False):
    """A message of the recent conversation."""

    priority: Union[int, None]
    """0..100: higher is kept first when the budget is tight (default by role: system 100, user 70, tool 30)."""
    ref: Union[str, None]
    """A name for it in the manifest."""


class OperationLookupIn(TypedDict):
    """An exact lookup of one operation."""

    operation_id: str
    """The operation to look up."""
    scope: "Scope"
    """Looked up from this scope: another tenant's or another user's operation is not found."""


class _OperationRecordInRequired(TypedDict):
    operation_id: str
    """The caller's id for the side effect (e.g. `op_891`)."""
    scope: "Scope"
    """Where it is recorded; `thread` is kept as provenance, and the operation is found from every thread of the rest of the scope."""
    status: "OperationStatus"
    """`submitted`, then `succeeded` or `failed` (final), or `unknown` when the outcome was lost."""
    tool: str
    """The tool that ran it (e.g. `issue_refund`); never changes."""


class OperationRecordIn(_OperationRecordInRequired, total=False):
    """What a tool side effect did (SPEC §4): only `operation_id`, `scope.tenant`, `tool` and `status` are required."""

    at: Union["Time", None]
    """When this status was observed (default: now)."""
    detail: Union[str, None]
    """A short note; secrets in it (and in the result fields) are redacted before anything is stored."""
    idempotency_key: Union[str, None]
    """The key the tool was called with, so a retry takes effect once; never changes."""
    result_digest: Union[str, None]
    """A digest of the result (e.g. `sha256:…`)."""
    result_ref: Union[str, None]
    """Where the result is kept (e.g. `artifact://tool-results/op_891.json`)."""


class _PackInRequired(TypedDict):
    budget: int
    """The token budget, never exceeded."""
    scope: "Scope"
    """Whose memories to recall."""


class PackIn(_PackInRequired, total=False):
    """A pack request (SPEC §4): the parts of the next turn and a token budget."""

    artifacts: List["SnippetIn"]
    knowledge: List["SnippetIn"]
    messages: List["MessageIn"]
    """Recent messages, oldest first."""
    query: str
    """The current task or question; memories are recalled for it."""
    recall: "RecallOptionsIn"
    state: "Entries"
    """The current task state."""
    system: str
    """The system prompt, kept at the top."""


class _QueryInRequired(TypedDict):
    query: str
    """The question or task to find memories for."""
    scope: "Scope"
    """Where to look: nothing outside it is read."""


class QueryIn(_QueryInRequired, total=False):
    """A recall query (SPEC §4)."""

    as_of: Union["Time", None]
    """Recall as of this instant (default: now)."""
    embedding: Union[List[float], None]
    """A caller-supplied query embedding."""
    entities: "Entries"
    """Entities to match exactly."""
    explain: Union[bool, None]
    """Also list what was retrieved but not admitted, with the reason."""
    id: Union[str, None]
    """The caller's id for this query, echoed in its result."""
    k: Union[int, None]
    """How many results at most (default: the policy's)."""
    kinds: Union[List["MemoryKind"], None]
    """Only these kinds."""
    sensitivity_ceiling: Union["Sensitivity", None]
    """Nothing more sensitive than this."""


class RecallOptionsIn(TypedDict, total=False):
    """How memories are recalled for the pack."""

    as_of: Union["Time", None]
    k: Union[int, None]
    kinds: Union[List["MemoryKind"], None]


class _ReviewInRequired(TypedDict):
    id: str
    """The pending memory."""
    revision: int
    """Its pending revision."""
    verdict: "Verdict"


class ReviewIn(_ReviewInRequired, total=False):
    """A verdict on one pending revision."""

    reference: Union[str, None]
    """Who or what decided (kept as the approval's source reference)."""


class _ScopeRequired(TypedDict):
    tenant: str
    """The tenant: every memory has one."""


class Scope(_ScopeRequired, total=False):
    """The namespace a memory lives in (SPEC §2). Only `tenant` is required."""

    agent: Union[str, None]
    """The agent, when narrowed to one."""
    project: Union[str, None]
    """The project, when narrowed to one."""
    thread: Union[str, None]
    """The conversation thread, when narrowed to one."""
    user: Union[str, None]
    """The user, when narrowed to one."""


class SnippetIn(TypedDict):
    """A knowledge snippet or an artifact summary."""

    ref: str
    text: str
    """The text (`summary` is accepted too)."""


class _SourceRequired(TypedDict):
    kind: "SourceKind"
    """Who said or produced it; decides its default trust."""


class Source(_SourceRequired, total=False):
    """Where something came from."""

    ref: Union[str, None]
    """The event, message or document it came from (e.g. `evt-1001`); forgetting by this reference cascades to what was derived from it."""


class SweepIn(TypedDict):
    """A sweep request: `{"scope": {…}}` (a bare scope is read as one too)."""

    scope: "Scope"
    """Where to apply expiry and archival."""


class AdmissionOut(TypedDict):
    """Why a memory was (or was not) admitted into the results."""

    admit: bool
    conflict: bool
    reason: Union["Reason", None]
    """Why it was not admitted, when it was not."""
    relevance: float
    safety_risk: float
    scope_ok: bool
    task_applicable: bool
    time_ok: bool


class CompressedOut(TypedDict):
    ref: str
    summary: str


class DecisionOut(TypedDict):
    """What the policy decided for one candidate."""

    action: "WriteAction"
    """What the write did."""
    confidence: float
    disposition: "Disposition"
    gates: Dict[str, "GateOut"]
    """The six gates by name, each with its verdict and why."""
    id: Union[str, None]
    """The candidate's `id`."""
    kind: "CandidateKind"
    memory_id: Union[str, None]
    """The memory written or matched, if any."""
    occurred_at: Union["Time", None]
    policy_version: str
    reasons: List["Reason"]
    """Why, in order: classification, the failed gates, the write's resolution."""
    revision: Union[int, None]
    sensitivity: "Sensitivity"
    time_expression: Union[str, None]
    """The words a time was resolved from (e.g. `昨天`)."""


class DroppedOut(TypedDict):
    reason: "DropReason"
    ref: str


class FeaturesOut(TypedDict):
    """The features behind a score, each in 0..1."""

    authority: float
    embedding: Union[float, None]
    entity: float
    freshness: float
    risk: float
    scope: float
    similarity: float
    typefit: float


class ForgetOut(TypedDict):
    """What a forget erased."""

    cascaded: List[str]
    """Memories derived from the erased ones, erased with them."""
    deleted: List[str]
    tombstones: int
    """Fingerprints left so the same content is not remembered again."""


GateOut = TypedDict("GateOut", {"pass": bool, "reason": "Reason"})
"""One gate's verdict."""


class InfoOut(TypedDict):
    """The versions of the loaded component."""

    package_version: str
    policy_version: str


class _MemoryJsonRequired(TypedDict):
    access_count: int
    confidence: float
    created_at: "Time"
    entities: "Entries"
    external_id: Union[str, None]
    extractor_version: str
    id: str
    """Stable across revisions."""
    kind: "MemoryKind"
    last_accessed: Union["Time", None]
    observed_at: "Time"
    payload: "PayloadJson"
    policy_version: str
    retention: "Retention"
    revision: int
    scope: "ScopeOut"
    sensitivity: "Sensitivity"
    source: "SourceOut"
    source_event_ids: List[str]
    status: "Status"
    superseded_by: Union["MemoryRef", None]
    supersedes: Union["MemoryRef", None]
    text: str
    thread: Union[str, None]
    """The conversation it was said in (provenance; absent in older rows)."""
    updated_at: "Time"
    valid_from: Union["Time", None]
    valid_to: Union["Time", None]


class MemoryJson(_MemoryJsonRequired, total=False):
    """The full memory envelope."""

    embedding: Union[List[float], None]
    """Only in a store's row body, never printed."""


class MemoryRef(TypedDict):
    """One revision of one memory."""

    id: str
    revision: int


class OperationReceiptOut(TypedDict):
    """What recording one operation record did."""

    action: "OperationAction"
    """`created` (its first record), `updated` (a new status or result) or `duplicate` (the same record again: nothing was appended)."""
    operation_id: str
    revision: int
    """How many records the operation has now."""
    status: "OperationStatus"
    """Its status now."""


class _OperationStateOutRequired(TypedDict):
    found: bool
    """Whether any record of this id is visible from the lookup's scope."""
    history: List["OperationStepOut"]
    """Every status recorded, oldest first."""
    operation_id: str
    revision: int
    """How many records the operation has (0 when not found)."""


class OperationStateOut(_OperationStateOutRequired, total=False):
    """What is known of one operation: `found`, `revision` (how many records) and `history` (every status, oldest first), and when found the latest record's fields (an absent optional one as null)."""

    at: Union["Time", None]
    """When the latest record's status was observed (when found)."""
    detail: Union[str, None]
    """The latest record's note (when found; null when it has none)."""
    idempotency_key: Union[str, None]
    """The idempotency key (when found; null when it has none)."""
    result_digest: Union[str, None]
    """The latest record's result digest (when found)."""
    result_ref: Union[str, None]
    """The latest record's result reference (when found)."""
    scope: Union["ScopeOut", None]
    """Where it is recorded, with the thread of its latest record (when found)."""
    status: Union["OperationStatus", None]
    """Its status now (when found)."""
    tool: Union[str, None]
    """The tool that ran it (when found)."""


class OperationStepOut(TypedDict):
    """One status an operation went through."""

    at: "Time"
    status: "OperationStatus"


class PackedOut(TypedDict):
    """The packed context and its manifest."""

    budget: int
    compressed: List["CompressedOut"]
    dropped: List["DroppedOut"]
    sections: List["SectionOut"]
    text: str
    """The text to put in the model's context."""
    tokens: int


class Reason(TypedDict):
    """Why the policy decided something: a code of the closed vocabulary (`contract/reasons.txt`), the values of its slots by name, and the sentence rendered from them."""

    code: "ReasonCode"
    """The reason's code (e.g. `gate.sensitivity.secret`); a code keeps its meaning."""
    detail: Dict[str, str]
    """The values of the code's slots, by slot name (empty for a code without slots)."""
    text: str
    """The sentence for a person: the code's template with the detail put in."""


class _RecallOutRequired(TypedDict):
    abstention: Union["Reason", None]
    """Why nothing was admitted, when nothing was."""
    candidates_read: int
    """Records the store handed over for this query."""
    id: Union[str, None]
    """The query's `id`."""
    nothing_relevant: bool
    """Nothing stored answers the query: `results` is empty (an answer, not an error)."""
    results: List["ScoredOut"]


class RecallOut(_RecallOutRequired, total=False):
    """One query's answer."""

    not_admitted: List["ScoredOut"]
    """Retrieved but not admitted (only with `explain`)."""


class ReceiptOut(TypedDict):
    """The memory an import record became."""

    external_id: str
    id: str
    """The memory id (SPEC §4's `id`)."""
    memory_id: str
    """The same memory id, named as in decisions and recall results."""


class ReviewOut(TypedDict):
    """What a verdict did."""

    approved_as: Union["MemoryRef", None]
    """The new active revision an approval wrote."""
    reason: "Reason"
    """What the review did."""
    reviewed: "MemoryRef"
    superseded: List["MemoryRef"]
    """Revisions the approval superseded."""
    verdict: "Verdict"


class ScopeOut(TypedDict):
    """The namespace a memory lives in (SPEC §2). Only `tenant` is required."""

    agent: Union[str, None]
    """The agent, when narrowed to one."""
    project: Union[str, None]
    """The project, when narrowed to one."""
    tenant: str
    """The tenant: every memory has one."""
    thread: Union[str, None]
    """The conversation thread, when narrowed to one."""
    user: Union[str, None]
    """The user, when narrowed to one."""


class ScoredOut(TypedDict):
    """One ranked memory with its explanation."""

    admission: "AdmissionOut"
    external_id: Union[str, None]
    features: "FeaturesOut"
    kind: "MemoryKind"
    memory_id: str
    observed_at: "Time"
    revision: int
    score: float
    source: "SourceOut"
    status: "Status"
    text: str


class SectionOut(TypedDict):
    items: List[str]
    name: str
    tokens: int


class SourceOut(TypedDict):
    """Where something came from."""

    kind: "SourceKind"
    """Who said or produced it; decides its default trust."""
    ref: Union[str, None]
    """The event, message or document it came from (e.g. `evt-1001`); forgetting by this reference cascades to what was derived from it."""


class Step(TypedDict):
    """One step of a procedure."""

    action: str
    id: str
    required: bool
    side_effect: bool


class SweepOut(TypedDict):
    archived: int
    examined: int
    expired: int
    inferences_expired: int
    """Unverified inferences past their expiry."""


class PayloadJson3Variant(TypedDict):
    """An event: when, who, what happened."""

    actions: List[str]
    actors: List[str]
    context: "Entries"
    occurred_at: Union["Time", None]
    outcome: Union[str, None]
    success: Union[bool, None]
    time_expression: Union[str, None]


class PayloadJson2Variant(TypedDict):
    """A procedure: goal and steps."""

    authority: Union[str, None]
    goal: str
    guards: List[str]
    preconditions: List[str]
    recovery: List[str]
    steps: List["Step"]


class PayloadJson1Variant(TypedDict):
    """A fact: subject, predicate, object."""

    condition: Union[str, None]
    object: str
    predicate: str
    subject: str


CandidateKind = Union[Literal["semantic", "episodic", "procedural"], Literal["working"], Literal["none"]]
"""What a candidate was classified as. `working` and `none` are never stored as long-term memory."""

Entries = Dict[str, str]
"""A string-to-string map (e.g. {"service": "order-service"}); a null value is dropped, another non-string value is kept as its JSON text."""

InfoIn = Dict[str, Any]
"""An info request: takes nothing (any input is ignored)."""

MemoryKind = Union[Literal["semantic"], Literal["episodic"], Literal["procedural"]]
"""What kind of long-term memory a record is."""

OperationStatus = Union[Literal["submitted"], Literal["succeeded"], Literal["failed"], Literal["unknown"]]
"""Where a tool's side effect stands (seed 000 §十一: a tool's success is not the task's success, and an `unknown` outcome is checked against the real system before anything is retried)."""

Role = Literal["system", "user", "assistant", "tool"]
"""Who wrote a message in the conversation being packed."""

Sensitivity = Literal["public", "internal", "personal", "sensitive"]
"""How sensitive a memory's content is; recall applies a ceiling."""

SourceKind = Union[Literal["user"], Literal["system"], Literal["document"], Literal["tool"], Literal["behavior"], Literal["agent"]]
"""Where a candidate came from; decides how far it is trusted."""

Status = Union[Literal["pending"], Literal["active"], Literal["superseded"], Literal["retracted"], Literal["expired"], Literal["conflicted"], Literal["archived"]]
"""Lifecycle state of one revision."""

Time = str
"""An RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00); a date-time or date without an offset is UTC."""

Verdict = Union[Literal["approve"], Literal["reject"]]
"""A reviewer's verdict on a pending memory."""

Disposition = Union[Literal["active"], Literal["pending"], Literal["working"], Literal["rejected"]]
"""What a write decision ends in."""

DropReason = Literal["budget", "not-admitted", "superseded", "duplicate", "expired"]
"""Why an item was left out."""

OperationAction = Union[Literal["created"], Literal["updated"], Literal["duplicate"]]
"""What recording one operation record did."""

PayloadJson = Union["PayloadJson1Variant", "PayloadJson2Variant", "PayloadJson3Variant"]
"""The kind-specific payload. Untagged: a body is read as the first variant whose required fields it has."""

ReasonCode = Literal["kind.deferral", "kind.past-occurrence", "kind.prompt-injection", "kind.carried-order", "kind.reasoning-trace", "kind.raw-data", "kind.inferred-instruction", "kind.inferred-summary", "kind.inferred-about-user", "kind.standing-choice", "kind.observed-status", "kind.event", "kind.undated-event", "kind.fact", "kind.no-lasting-value", "kind.chitchat", "kind.too-short", "kind.question-request", "kind.bare-question", "kind.procedure", "kind.single-success-lesson", "kind.task-scope-cue", "kind.task-deixis", "kind.in-progress", "kind.progress-line", "kind.request-at-hand", "kind.plan-for-today", "kind.time-bound", "kind.object-bound", "kind.untrusted-steps", "kind.health-ask", "model.structural", "model.task-cue", "model.agrees", "model.untrusted", "model.stated-key", "model.short-margin", "model.overrules", "model.sensitive-data", "hint.key-given", "hint.key-ignored", "hint.agrees", "hint.accepted", "hint.accepted-over-text", "hint.overruled-injection", "hint.overruled-nothing-to-keep", "hint.overruled-not-task-bound", "hint.overruled-persistence", "hint.overruled-task-scope", "hint.overruled-dated-event", "hint.overruled-steps", "hint.overruled-no-steps", "hint.overruled-no-time-or-outcome", "hint.overruled-standing-fact", "payload.occurred-at-given", "payload.occurred-at-resolved", "payload.relative-past", "payload.no-time", "payload.object-not-in-text", "payload.key-derived", "gate.value.reusable", "gate.value.reusable-asked", "gate.value.task-state", "gate.value.untrusted-instruction", "gate.value.nothing-reusable", "gate.value.nothing-reusable-because", "gate.value.nothing-reusable-after", "gate.confidence.ok", "gate.confidence.ok-hedged", "gate.confidence.below-floor", "gate.confidence.inference", "gate.confidence.inference-hedged", "gate.confidence.untrusted-steps", "gate.confidence.single-success", "gate.confidence.below-active", "gate.confidence.unsure-untrusted", "gate.confidence.hearsay", "gate.sensitivity.clear", "gate.sensitivity.secret", "gate.sensitivity.erased-source", "gate.sensitivity.erased-content", "gate.sensitivity.restatement", "gate.sensitivity.restated", "gate.sensitivity.personal-without-ask", "gate.sensitivity.personal-with-ask", "gate.sensitivity.personal-task-state", "gate.sensitivity.contact-data", "gate.stability.task-scope-cue", "gate.stability.task-only", "gate.stability.past-event", "gate.stability.observed-report", "gate.stability.persistence-cue", "gate.stability.stable", "gate.stability.nothing-to-keep", "gate.conflict.no-live-memory", "gate.conflict.duplicate", "gate.conflict.revises", "gate.permission.ok", "gate.permission.scope", "gate.permission.untrusted-instruction", "gate.permission.rate-limit", "gate.permission.removes-guard", "resolve.same-content", "resolve.nothing-to-retract", "resolve.withdraws", "resolve.retraction-outranked", "resolve.confirms-pending", "resolve.overrules-pending", "resolve.validity-ended", "resolve.confirms", "resolve.sides-with", "resolve.no-longer-valid", "resolve.exception", "resolve.outranks", "resolve.outranked", "resolve.simultaneous", "resolve.later", "resolve.older", "resolve.equal-authority", "admission.out-of-scope", "admission.status", "admission.not-in-force", "admission.kind", "admission.sensitivity", "admission.unrelated", "admission.low-relevance", "admission.risk", "admission.duplicate", "admission.too-little-covered", "admission.nothing-in-scope", "admission.none-admitted", "review.approved", "review.approved-superseding", "review.rejected"]
"""A reason's code: one of the closed vocabulary in contract/reasons.txt (SPEC §4, Reasons)."""

Retention = Union[Literal["ephemeral"], Literal["standard"], Literal["durable"], Literal["audit"]]
"""How long a memory and its audit trail are kept."""

WriteAction = Union[Literal["created"], Literal["superseded"], Literal["duplicate"], Literal["conflicted"], Literal["none"]]
"""What a write did to the store."""


SENSITIVITY_RANK: Dict[str, int] = {"public": 0, "internal": 1, "personal": 2, "sensitive": 3}
"""Each sensitivity level's rank, lowest first (`Sensitivity::rank`): stores compare and store it."""

REASON_CODES: Tuple[str, ...] = (
    "kind.deferral",
    "kind.past-occurrence",
    "kind.prompt-injection",
    "kind.carried-order",
    "kind.reasoning-trace",
    "kind.raw-data",
    "kind.inferred-instruction",
    "kind.inferred-summary",
    "kind.inferred-about-user",
    "kind.standing-choice",
    "kind.observed-status",
    "kind.event",
    "kind.undated-event",
    "kind.fact",
    "kind.no-lasting-value",
    "kind.chitchat",
    "kind.too-short",
    "kind.question-request",
    "kind.bare-question",
    "kind.procedure",
    "kind.single-success-lesson",
    "kind.task-scope-cue",
    "kind.task-deixis",
    "kind.in-progress",
    "kind.progress-line",
    "kind.request-at-hand",
    "kind.plan-for-today",
    "kind.time-bound",
    "kind.object-bound",
    "kind.untrusted-steps",
    "kind.health-ask",
    "model.structural",
    "model.task-cue",
    "model.agrees",
    "model.untrusted",
    "model.stated-key",
    "model.short-margin",
    "model.overrules",
    "model.sensitive-data",
    "hint.key-given",
    "hint.key-ignored",
    "hint.agrees",
    "hint.accepted",
    "hint.accepted-over-text",
    "hint.overruled-injection",
    "hint.overruled-nothing-to-keep",
    "hint.overruled-not-task-bound",
    "hint.overruled-persistence",
    "hint.overruled-task-scope",
    "hint.overruled-dated-event",
    "hint.overruled-steps",
    "hint.overruled-no-steps",
    "hint.overruled-no-time-or-outcome",
    "hint.overruled-standing-fact",
    "payload.occurred-at-given",
    "payload.occurred-at-resolved",
    "payload.relative-past",
    "payload.no-time",
    "payload.object-not-in-text",
    "payload.key-derived",
    "gate.value.reusable",
    "gate.value.reusable-asked",
    "gate.value.task-state",
    "gate.value.untrusted-instruction",
    "gate.value.nothing-reusable",
    "gate.value.nothing-reusable-because",
    "gate.value.nothing-reusable-after",
    "gate.confidence.ok",
    "gate.confidence.ok-hedged",
    "gate.confidence.below-floor",
    "gate.confidence.inference",
    "gate.confidence.inference-hedged",
    "gate.confidence.untrusted-steps",
    "gate.confidence.single-success",
    "gate.confidence.below-active",
    "gate.confidence.unsure-untrusted",
    "gate.confidence.hearsay",
    "gate.sensitivity.clear",
    "gate.sensitivity.secret",
    "gate.sensitivity.erased-source",
    "gate.sensitivity.erased-content",
    "gate.sensitivity.restatement",
    "gate.sensitivity.restated",
    "gate.sensitivity.personal-without-ask",
    "gate.sensitivity.personal-with-ask",
    "gate.sensitivity.personal-task-state",
    "gate.sensitivity.contact-data",
    "gate.stability.task-scope-cue",
    "gate.stability.task-only",
    "gate.stability.past-event",
    "gate.stability.observed-report",
    "gate.stability.persistence-cue",
    "gate.stability.stable",
    "gate.stability.nothing-to-keep",
    "gate.conflict.no-live-memory",
    "gate.conflict.duplicate",
    "gate.conflict.revises",
    "gate.permission.ok",
    "gate.permission.scope",
    "gate.permission.untrusted-instruction",
    "gate.permission.rate-limit",
    "gate.permission.removes-guard",
    "resolve.same-content",
    "resolve.nothing-to-retract",
    "resolve.withdraws",
    "resolve.retraction-outranked",
    "resolve.confirms-pending",
    "resolve.overrules-pending",
    "resolve.validity-ended",
    "resolve.confirms",
    "resolve.sides-with",
    "resolve.no-longer-valid",
    "resolve.exception",
    "resolve.outranks",
    "resolve.outranked",
    "resolve.simultaneous",
    "resolve.later",
    "resolve.older",
    "resolve.equal-authority",
    "admission.out-of-scope",
    "admission.status",
    "admission.not-in-force",
    "admission.kind",
    "admission.sensitivity",
    "admission.unrelated",
    "admission.low-relevance",
    "admission.risk",
    "admission.duplicate",
    "admission.too-little-covered",
    "admission.nothing-in-scope",
    "admission.none-admitted",
    "review.approved",
    "review.approved-superseding",
    "review.rejected",
)
"""Every reason code of the vocabulary (contract/reasons.txt), in its order."""
