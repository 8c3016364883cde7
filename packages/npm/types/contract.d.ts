// Generated from the contract's JSON Schema (contract/schema/engram-contract.schema.json)
// by `cargo test -p engram-contract --features schema` (ENGRAM_BLESS=1 rewrites it).
// Do not edit. Inputs are what the methods take (SPEC §4), outputs what they return.

/** A candidate memory (SPEC §4): only `text`, `scope.tenant` and `source.kind` are required. */
export interface CandidateIn {
  /** Qualifies a fact's key (e.g. `work` vs `friends`). */
  condition?: string | null;
  /** How sure the source is, 0..1 (default: by source kind). */
  confidence?: number | null;
  /** A caller-supplied embedding. */
  embedding?: Array<number> | null;
  /** Named entities for exact matching (service, host, person, …). */
  entities?: Entries;
  /** The caller's id for this candidate, echoed in its decision. */
  id?: string | null;
  /** A suggested kind; the policy may overrule it, with a reason. */
  kind_hint?: CandidateKind | null;
  /** For a fact: the value. */
  object?: string | null;
  /** When it was said or recorded (default: now). */
  observed_at?: Time | null;
  /** For an event: when it happened. */
  occurred_at?: Time | null;
  /** For a fact: the attribute (e.g. `preferred_name`). */
  predicate?: string | null;
  /** Where it belongs. */
  scope: Scope;
  /** Who said or produced it. */
  source: Source;
  /** For a fact: who or what it is about (e.g. `user:u42`). */
  subject?: string | null;
  /** What to remember, in the speaker's words. */
  text: string;
  /** Valid from this instant. */
  valid_from?: Time | null;
  /** Valid until this instant. */
  valid_to?: Time | null;
}

/** What a candidate was classified as. `working` and `none` are never stored as long-term memory. */
export type CandidateKind = "semantic" | "episodic" | "procedural" | "working" | "none";

/** A string-to-string map (e.g. {"service": "order-service"}); a null value is dropped, another non-string value is kept as its JSON text. */
export type Entries = Record<string, string>;

/** A forget selector (SPEC §4): exactly one of `memory_id`; `scope`+`subject`+`predicate` (optional `condition`); `scope`+`text`; `scope`+`source_ref`. */
export interface ForgetIn {
  /** With `subject` and `predicate`: only under this condition. */
  condition?: string | null;
  /** Forget this memory, every revision. */
  memory_id?: string | null;
  /** With `subject`: the fact with this attribute. */
  predicate?: string | null;
  /** Where to forget (required unless `memory_id` is given). */
  scope?: Scope | null;
  /** Everything derived from this source event or session. */
  source_ref?: string | null;
  /** With `predicate`: the fact about this subject. */
  subject?: string | null;
  /** Erase this text fragment wherever it appears. */
  text?: string | null;
}

/** A history request. */
export interface HistoryIn {
  /** The memory whose revisions to show, oldest first. */
  id: string;
}

/** The JSON Schema name of an import line, which is an import head plus a candidate (read in two passes). */
export interface ImportLine {
  /** Qualifies a fact's key (e.g. `work` vs `friends`). */
  condition?: string | null;
  /** How sure the source is, 0..1 (default: by source kind). */
  confidence?: number | null;
  /** A caller-supplied embedding. */
  embedding?: Array<number> | null;
  /** Named entities for exact matching (service, host, person, …). */
  entities?: Entries;
  /** The record's id in the system it comes from. */
  external_id: string;
  /** The caller's id for this candidate, echoed in its decision. */
  id?: string | null;
  /** Its already-decided kind. */
  kind: MemoryKind;
  /** A suggested kind; the policy may overrule it, with a reason. */
  kind_hint?: CandidateKind | null;
  /** For a fact: the value. */
  object?: string | null;
  /** When it was said or recorded (default: now). */
  observed_at?: Time | null;
  /** For an event: when it happened. */
  occurred_at?: Time | null;
  /** For a fact: the attribute (e.g. `preferred_name`). */
  predicate?: string | null;
  /** Where it belongs. */
  scope: Scope;
  /** Who said or produced it. */
  source: Source;
  /** For a fact: who or what it is about (e.g. `user:u42`). */
  subject?: string | null;
  /** What to remember, in the speaker's words. */
  text: string;
  /** Valid from this instant. */
  valid_from?: Time | null;
  /** Valid until this instant. */
  valid_to?: Time | null;
}

/** An info request: takes nothing (any input is ignored). */
export type InfoIn = Record<string, unknown>;

/** A list request. */
export interface ListIn {
  /** Memories of this scope (latest revisions). */
  scope: Scope;
  /** Only these statuses (default: all). */
  statuses?: Array<Status>;
}

/** What kind of long-term memory a record is. */
export type MemoryKind = "semantic" | "episodic" | "procedural";

/** A message of the recent conversation. */
export interface MessageIn {
  /** 0..100: higher is kept first when the budget is tight (default by role: system 100, user 70, tool 30). */
  priority?: number | null;
  /** A name for it in the manifest. */
  ref?: string | null;
  role: Role;
  text: string;
}

/** An exact lookup of one operation. */
export interface OperationLookupIn {
  /** The operation to look up. */
  operation_id: string;
  /** Looked up from this scope: another tenant's or another user's operation is not found. */
  scope: Scope;
}

/** What a tool side effect did (SPEC §4): only `operation_id`, `scope.tenant`, `tool` and `status` are required. */
export interface OperationRecordIn {
  /** When this status was observed (default: now). */
  at?: Time | null;
  /** A short note; secrets in it (and in the result fields) are redacted before anything is stored. */
  detail?: string | null;
  /** The key the tool was called with, so a retry takes effect once; never changes. */
  idempotency_key?: string | null;
  /** The caller's id for the side effect (e.g. `op_891`). */
  operation_id: string;
  /** A digest of the result (e.g. `sha256:…`). */
  result_digest?: string | null;
  /** Where the result is kept (e.g. `artifact://tool-results/op_891.json`). */
  result_ref?: string | null;
  /** Where it is recorded; `thread` is kept as provenance, and the operation is found from every thread of the rest of the scope. */
  scope: Scope;
  /** `submitted`, then `succeeded` or `failed` (final), or `unknown` when the outcome was lost. */
  status: OperationStatus;
  /** The tool that ran it (e.g. `issue_refund`); never changes. */
  tool: string;
}

/** Where a tool's side effect stands (seed 000 §十一: a tool's success is not the task's success, and an `unknown` outcome is checked against the real system before anything is retried). */
export type OperationStatus = "submitted" | "succeeded" | "failed" | "unknown";

/** A pack request (SPEC §4): the parts of the next turn and a token budget. */
export interface PackIn {
  artifacts?: Array<SnippetIn>;
  /** The token budget, never exceeded. */
  budget: number;
  knowledge?: Array<SnippetIn>;
  /** Recent messages, oldest first. */
  messages?: Array<MessageIn>;
  /** The current task or question; memories are recalled for it. */
  query?: string;
  recall?: RecallOptionsIn;
  /** Whose memories to recall. */
  scope: Scope;
  /** The current task state. */
  state?: Entries;
  /** The system prompt, kept at the top. */
  system?: string;
}

/** A recall query (SPEC §4). */
export interface QueryIn {
  /** Recall as of this instant (default: now). */
  as_of?: Time | null;
  /** A caller-supplied query embedding. */
  embedding?: Array<number> | null;
  /** Entities to match exactly. */
  entities?: Entries;
  /** Also list what was retrieved but not admitted, with the reason. */
  explain?: boolean | null;
  /** The caller's id for this query, echoed in its result. */
  id?: string | null;
  /** How many results at most (default: the policy's). */
  k?: number | null;
  /** Only these kinds. */
  kinds?: Array<MemoryKind> | null;
  /** The question or task to find memories for. */
  query: string;
  /** Where to look: nothing outside it is read. */
  scope: Scope;
  /** Nothing more sensitive than this. */
  sensitivity_ceiling?: Sensitivity | null;
}

/** How memories are recalled for the pack. */
export interface RecallOptionsIn {
  as_of?: Time | null;
  k?: number | null;
  kinds?: Array<MemoryKind> | null;
}

/** A verdict on one pending revision. */
export interface ReviewIn {
  /** The pending memory. */
  id: string;
  /** Who or what decided (kept as the approval's source reference). */
  reference?: string | null;
  /** Its pending revision. */
  revision: number;
  verdict: Verdict;
}

/** Who wrote a message in the conversation being packed. */
export type Role = "system" | "user" | "assistant" | "tool";

/** The namespace a memory lives in (SPEC §2). Only `tenant` is required. */
export interface Scope {
  /** The agent, when narrowed to one. */
  agent?: string | null;
  /** The project, when narrowed to one. */
  project?: string | null;
  /** The tenant: every memory has one. */
  tenant: string;
  /** The conversation thread, when narrowed to one. */
  thread?: string | null;
  /** The user, when narrowed to one. */
  user?: string | null;
}

/** How sensitive a memory's content is; recall applies a ceiling. */
export type Sensitivity = "public" | "internal" | "personal" | "sensitive";

/** A knowledge snippet or an artifact summary. */
export interface SnippetIn {
  ref: string;
  /** The text (`summary` is accepted too). */
  text: string;
}

/** Where something came from. */
export interface Source {
  /** Who said or produced it; decides its default trust. */
  kind: SourceKind;
  /** The event, message or document it came from (e.g. `evt-1001`); forgetting by this reference cascades to what was derived from it. */
  ref?: string | null;
}

/** Where a candidate came from; decides how far it is trusted. */
export type SourceKind = "user" | "system" | "document" | "tool" | "behavior" | "agent";

/** Lifecycle state of one revision. */
export type Status = "pending" | "active" | "superseded" | "retracted" | "expired" | "conflicted" | "archived";

/** A sweep request: `{"scope": {…}}` (a bare scope is read as one too). */
export interface SweepIn {
  /** Where to apply expiry and archival. */
  scope: Scope;
}

/** An RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00); a date-time or date without an offset is UTC. */
export type Time = string;

/** A reviewer's verdict on a pending memory. */
export type Verdict = "approve" | "reject";

/** Why a memory was (or was not) admitted into the results. */
export interface AdmissionOut {
  admit: boolean;
  conflict: boolean;
  /** Why it was not admitted, when it was not. */
  reason: Reason | null;
  relevance: number;
  safety_risk: number;
  scope_ok: boolean;
  task_applicable: boolean;
  time_ok: boolean;
}

export interface CompressedOut {
  ref: string;
  summary: string;
}

/** What the policy decided for one candidate. */
export interface DecisionOut {
  /** What the write did. */
  action: WriteAction;
  confidence: number;
  disposition: Disposition;
  /** The six gates by name, each with its verdict and why. */
  gates: Record<string, GateOut>;
  /** The candidate's `id`. */
  id: string | null;
  kind: CandidateKind;
  /** The memory written or matched, if any. */
  memory_id: string | null;
  occurred_at: Time | null;
  policy_version: string;
  /** Why, in order: classification, the failed gates, the write's resolution. */
  reasons: Array<Reason>;
  revision: number | null;
  sensitivity: Sensitivity;
  /** The words a time was resolved from (e.g. `昨天`). */
  time_expression: string | null;
}

/** What a write decision ends in. */
export type Disposition = "active" | "pending" | "working" | "rejected";

/** Why an item was left out. */
export type DropReason = "budget" | "not-admitted" | "superseded" | "duplicate" | "expired";

export interface DroppedOut {
  reason: DropReason;
  ref: string;
}

/** The features behind a score, each in 0..1. */
export interface FeaturesOut {
  authority: number;
  embedding: number | null;
  entity: number;
  freshness: number;
  risk: number;
  scope: number;
  similarity: number;
  typefit: number;
}

/** What a forget erased. */
export interface ForgetOut {
  /** Memories derived from the erased ones, erased with them. */
  cascaded: Array<string>;
  deleted: Array<string>;
  /** Fingerprints left so the same content is not remembered again. */
  tombstones: number;
}

/** One gate's verdict. */
export interface GateOut {
  pass: boolean;
  reason: Reason;
}

/** The versions of the loaded component. */
export interface InfoOut {
  package_version: string;
  policy_version: string;
}

/** The full memory envelope. */
export interface MemoryJson {
  access_count: number;
  confidence: number;
  created_at: Time;
  /** Only in a store's row body, never printed. */
  embedding?: Array<number> | null;
  entities: Entries;
  external_id: string | null;
  extractor_version: string;
  /** Stable across revisions. */
  id: string;
  kind: MemoryKind;
  last_accessed: Time | null;
  observed_at: Time;
  payload: PayloadJson;
  policy_version: string;
  retention: Retention;
  revision: number;
  scope: ScopeOut;
  sensitivity: Sensitivity;
  source: SourceOut;
  source_event_ids: Array<string>;
  status: Status;
  superseded_by: MemoryRef | null;
  supersedes: MemoryRef | null;
  text: string;
  /** The conversation it was said in (provenance; absent in older rows). */
  thread: string | null;
  updated_at: Time;
  valid_from: Time | null;
  valid_to: Time | null;
}

/** One revision of one memory. */
export interface MemoryRef {
  id: string;
  revision: number;
}

/** What recording one operation record did. */
export type OperationAction = "created" | "updated" | "duplicate";

/** What recording one operation record did. */
export interface OperationReceiptOut {
  /** `created` (its first record), `updated` (a new status or result) or `duplicate` (the same record again: nothing was appended). */
  action: OperationAction;
  operation_id: string;
  /** How many records the operation has now. */
  revision: number;
  /** Its status now. */
  status: OperationStatus;
}

/** What is known of one operation: `found`, `revision` (how many records) and `history` (every status, oldest first), and when found the latest record's fields (an absent optional one as null). */
export interface OperationStateOut {
  /** When the latest record's status was observed (when found). */
  at?: Time | null;
  /** The latest record's note (when found; null when it has none). */
  detail?: string | null;
  /** Whether any record of this id is visible from the lookup's scope. */
  found: boolean;
  /** Every status recorded, oldest first. */
  history: Array<OperationStepOut>;
  /** The idempotency key (when found; null when it has none). */
  idempotency_key?: string | null;
  operation_id: string;
  /** The latest record's result digest (when found). */
  result_digest?: string | null;
  /** The latest record's result reference (when found). */
  result_ref?: string | null;
  /** How many records the operation has (0 when not found). */
  revision: number;
  /** Where it is recorded, with the thread of its latest record (when found). */
  scope?: ScopeOut | null;
  /** Its status now (when found). */
  status?: OperationStatus | null;
  /** The tool that ran it (when found). */
  tool?: string | null;
}

/** One status an operation went through. */
export interface OperationStepOut {
  at: Time;
  status: OperationStatus;
}

/** The packed context and its manifest. */
export interface PackedOut {
  budget: number;
  compressed: Array<CompressedOut>;
  dropped: Array<DroppedOut>;
  sections: Array<SectionOut>;
  /** The text to put in the model's context. */
  text: string;
  tokens: number;
}

/** The kind-specific payload. Untagged: a body is read as the first variant whose required fields it has. */
export type PayloadJson = {
  condition: string | null;
  object: string;
  predicate: string;
  subject: string;
} | {
  authority: string | null;
  goal: string;
  guards: Array<string>;
  preconditions: Array<string>;
  recovery: Array<string>;
  steps: Array<Step>;
} | {
  actions: Array<string>;
  actors: Array<string>;
  context: Entries;
  occurred_at: Time | null;
  outcome: string | null;
  success: boolean | null;
  time_expression: string | null;
};

/** Why the policy decided something: a code of the closed vocabulary (`contract/reasons.txt`), the values of its slots by name, and the sentence rendered from them. */
export interface Reason {
  /** The reason's code (e.g. `gate.sensitivity.secret`); a code keeps its meaning. */
  code: ReasonCode;
  /** The values of the code's slots, by slot name (empty for a code without slots). */
  detail: Record<string, string>;
  /** The sentence for a person: the code's template with the detail put in. */
  text: string;
}

/** A reason's code: one of the closed vocabulary in contract/reasons.txt (SPEC §4, Reasons). */
export type ReasonCode = "kind.deferral" | "kind.past-occurrence" | "kind.prompt-injection" | "kind.carried-order" | "kind.reasoning-trace" | "kind.raw-data" | "kind.inferred-instruction" | "kind.inferred-summary" | "kind.inferred-about-user" | "kind.standing-choice" | "kind.observed-status" | "kind.event" | "kind.undated-event" | "kind.fact" | "kind.no-lasting-value" | "kind.chitchat" | "kind.too-short" | "kind.question-request" | "kind.bare-question" | "kind.procedure" | "kind.single-success-lesson" | "kind.task-scope-cue" | "kind.task-deixis" | "kind.in-progress" | "kind.progress-line" | "kind.request-at-hand" | "kind.plan-for-today" | "kind.time-bound" | "kind.object-bound" | "kind.untrusted-steps" | "kind.health-ask" | "model.structural" | "model.task-cue" | "model.agrees" | "model.untrusted" | "model.stated-key" | "model.short-margin" | "model.overrules" | "model.sensitive-data" | "hint.key-given" | "hint.key-ignored" | "hint.agrees" | "hint.accepted" | "hint.accepted-over-text" | "hint.overruled-injection" | "hint.overruled-nothing-to-keep" | "hint.overruled-not-task-bound" | "hint.overruled-persistence" | "hint.overruled-task-scope" | "hint.overruled-dated-event" | "hint.overruled-steps" | "hint.overruled-no-steps" | "hint.overruled-no-time-or-outcome" | "hint.overruled-standing-fact" | "payload.occurred-at-given" | "payload.occurred-at-resolved" | "payload.relative-past" | "payload.no-time" | "payload.object-not-in-text" | "payload.key-derived" | "gate.value.reusable" | "gate.value.reusable-asked" | "gate.value.task-state" | "gate.value.untrusted-instruction" | "gate.value.nothing-reusable" | "gate.value.nothing-reusable-because" | "gate.value.nothing-reusable-after" | "gate.confidence.ok" | "gate.confidence.ok-hedged" | "gate.confidence.below-floor" | "gate.confidence.inference" | "gate.confidence.inference-hedged" | "gate.confidence.untrusted-steps" | "gate.confidence.single-success" | "gate.confidence.below-active" | "gate.confidence.unsure-untrusted" | "gate.confidence.hearsay" | "gate.sensitivity.clear" | "gate.sensitivity.secret" | "gate.sensitivity.erased-source" | "gate.sensitivity.erased-content" | "gate.sensitivity.restatement" | "gate.sensitivity.restated" | "gate.sensitivity.personal-without-ask" | "gate.sensitivity.personal-with-ask" | "gate.sensitivity.personal-task-state" | "gate.sensitivity.contact-data" | "gate.stability.task-scope-cue" | "gate.stability.task-only" | "gate.stability.past-event" | "gate.stability.observed-report" | "gate.stability.persistence-cue" | "gate.stability.stable" | "gate.stability.nothing-to-keep" | "gate.conflict.no-live-memory" | "gate.conflict.duplicate" | "gate.conflict.revises" | "gate.permission.ok" | "gate.permission.scope" | "gate.permission.untrusted-instruction" | "gate.permission.rate-limit" | "gate.permission.removes-guard" | "resolve.same-content" | "resolve.nothing-to-retract" | "resolve.withdraws" | "resolve.retraction-outranked" | "resolve.confirms-pending" | "resolve.overrules-pending" | "resolve.validity-ended" | "resolve.confirms" | "resolve.sides-with" | "resolve.no-longer-valid" | "resolve.exception" | "resolve.outranks" | "resolve.outranked" | "resolve.simultaneous" | "resolve.later" | "resolve.older" | "resolve.equal-authority" | "admission.out-of-scope" | "admission.status" | "admission.not-in-force" | "admission.kind" | "admission.sensitivity" | "admission.unrelated" | "admission.low-relevance" | "admission.risk" | "admission.duplicate" | "admission.too-little-covered" | "admission.nothing-in-scope" | "admission.none-admitted" | "review.approved" | "review.approved-superseding" | "review.rejected";

/** One query's answer. */
export interface RecallOut {
  /** Why nothing was admitted, when nothing was. */
  abstention: Reason | null;
  /** Records the store handed over for this query. */
  candidates_read: number;
  /** The query's `id`. */
  id: string | null;
  /** Retrieved but not admitted (only with `explain`). */
  not_admitted?: Array<ScoredOut>;
  /** Nothing stored answers the query: `results` is empty (an answer, not an error). */
  nothing_relevant: boolean;
  results: Array<ScoredOut>;
}

/** The memory an import record became. */
export interface ReceiptOut {
  external_id: string;
  /** The memory id (SPEC §4's `id`). */
  id: string;
  /** The same memory id, named as in decisions and recall results. */
  memory_id: string;
}

/** How long a memory and its audit trail are kept. */
export type Retention = "ephemeral" | "standard" | "durable" | "audit";

/** What a verdict did. */
export interface ReviewOut {
  /** The new active revision an approval wrote. */
  approved_as: MemoryRef | null;
  /** What the review did. */
  reason: Reason;
  reviewed: MemoryRef;
  /** Revisions the approval superseded. */
  superseded: Array<MemoryRef>;
  verdict: Verdict;
}

/** The namespace a memory lives in (SPEC §2). Only `tenant` is required. */
export interface ScopeOut {
  /** The agent, when narrowed to one. */
  agent: string | null;
  /** The project, when narrowed to one. */
  project: string | null;
  /** The tenant: every memory has one. */
  tenant: string;
  /** The conversation thread, when narrowed to one. */
  thread: string | null;
  /** The user, when narrowed to one. */
  user: string | null;
}

/** One ranked memory with its explanation. */
export interface ScoredOut {
  admission: AdmissionOut;
  external_id: string | null;
  features: FeaturesOut;
  kind: MemoryKind;
  memory_id: string;
  observed_at: Time;
  revision: number;
  score: number;
  source: SourceOut;
  status: Status;
  text: string;
}

export interface SectionOut {
  items: Array<string>;
  name: string;
  tokens: number;
}

/** Where something came from. */
export interface SourceOut {
  /** Who said or produced it; decides its default trust. */
  kind: SourceKind;
  /** The event, message or document it came from (e.g. `evt-1001`); forgetting by this reference cascades to what was derived from it. */
  ref: string | null;
}

/** One step of a procedure. */
export interface Step {
  action: string;
  id: string;
  required: boolean;
  side_effect: boolean;
}

export interface SweepOut {
  archived: number;
  examined: number;
  expired: number;
  /** Unverified inferences past their expiry. */
  inferences_expired: number;
}

/** What a write did to the store. */
export type WriteAction = "created" | "superseded" | "duplicate" | "conflicted" | "none";

/** Every operation: what one input item and one output line are. */
export interface Operations {
  "classify": { input: CandidateIn; output: DecisionOut };
  "forget": { input: ForgetIn; output: ForgetOut };
  "get-operations": { input: OperationLookupIn; output: OperationStateOut };
  "history": { input: HistoryIn; output: MemoryJson };
  "import": { input: ImportLine; output: ReceiptOut };
  "info": { input: InfoIn; output: InfoOut };
  "list": { input: ListIn; output: MemoryJson };
  "pack": { input: PackIn; output: PackedOut };
  "recall": { input: QueryIn; output: RecallOut };
  "record-operations": { input: OperationRecordIn; output: OperationReceiptOut };
  "remember": { input: CandidateIn; output: DecisionOut };
  "review": { input: ReviewIn; output: ReviewOut };
  "sweep": { input: SweepIn; output: SweepOut };
}
