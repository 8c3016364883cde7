// The JSON contract of Engram (SPEC §4): what `Engram`'s methods take and
// return. The WIT-level types jco generates are in ../gen/engram.d.ts
// (`engram-memory/wit`); these are the plain-object shapes of the CLI.

export type MemoryKind = 'semantic' | 'episodic' | 'procedural';
export type CandidateKind = MemoryKind | 'working' | 'none';
export type SourceKind = 'user' | 'system' | 'document' | 'tool' | 'behavior' | 'agent';
export type Sensitivity = 'public' | 'internal' | 'personal' | 'sensitive';
export type Status = 'pending' | 'active' | 'superseded' | 'retracted' | 'expired' | 'conflicted' | 'archived';
export type Retention = 'ephemeral' | 'standard' | 'durable' | 'audit';
export type Disposition = 'active' | 'pending' | 'working' | 'rejected';
export type GateName = 'value' | 'confidence' | 'sensitivity' | 'stability' | 'conflict' | 'permission';
export type WriteAction = 'created' | 'superseded' | 'duplicate' | 'conflicted' | 'none';
export type Role = 'system' | 'user' | 'assistant' | 'tool';
/** An instant as RFC 3339 text with its UTC offset, e.g. `2026-08-01T10:00:00+08:00`. */
export type Instant = string;

/** Who a call acts for: a tenant name or a narrower principal. */
export type PrincipalLike = string | { tenant: string; user?: string; project?: string };

export interface Scope {
  tenant: string;
  user?: string | null;
  project?: string | null;
  thread?: string | null;
  agent?: string | null;
}

export interface Source {
  kind: SourceKind;
  ref?: string | null;
}

export interface Candidate {
  /** Your id for the candidate, echoed in its decision. */
  id?: string;
  text: string;
  scope: Scope;
  source: Source;
  observed_at?: Instant;
  confidence?: number;
  kind_hint?: CandidateKind;
  subject?: string;
  predicate?: string;
  object?: string;
  condition?: string;
  occurred_at?: Instant;
  valid_from?: Instant;
  valid_to?: Instant;
  entities?: Record<string, string>;
  embedding?: number[];
}

export interface ImportRecord extends Candidate {
  external_id: string;
  kind: MemoryKind;
}

export interface GateResult {
  pass: boolean;
  reason: string;
}

export interface Decision {
  id: string | null;
  kind: CandidateKind;
  disposition: Disposition;
  reasons: string[];
  gates: Record<GateName, GateResult>;
  memory_id: string | null;
  revision: number | null;
  action: WriteAction;
  confidence: number;
  sensitivity: Sensitivity;
  occurred_at: Instant | null;
  time_expression: string | null;
  policy_version: string;
}

export interface ImportReceipt {
  external_id: string;
  memory_id: string;
}

export interface Query {
  id?: string;
  query: string;
  scope: Scope;
  k?: number;
  as_of?: Instant;
  kinds?: MemoryKind[];
  entities?: Record<string, string>;
  embedding?: number[];
  sensitivity_ceiling?: Sensitivity;
  /** Also return the candidates that were not admitted, with why. */
  explain?: boolean;
}

/** One ranked memory with the features of its score and its admission record. */
export interface Scored {
  memory_id: string;
  revision: number;
  external_id: string | null;
  kind: MemoryKind;
  status: Status;
  text: string;
  score: number;
  features: {
    similarity: number;
    scope: number;
    freshness: number;
    authority: number;
    typefit: number;
    entity: number;
    risk: number;
    embedding: number | null;
  };
  admission: {
    relevance: number;
    scope_ok: boolean;
    time_ok: boolean;
    task_applicable: boolean;
    conflict: boolean;
    safety_risk: number;
    admit: boolean;
    reason: string | null;
  };
  source: Source;
  observed_at: Instant;
}

export interface RecallResult {
  id: string | null;
  results: Scored[];
  candidates_read: number;
  not_admitted?: Scored[];
}

export interface Snippet {
  ref: string;
  text?: string;
  summary?: string;
}

export interface PackRequest {
  budget: number;
  scope: Scope;
  query?: string;
  system?: string;
  state?: Record<string, string>;
  messages?: { ref?: string; role: Role; text: string; priority?: number }[];
  knowledge?: Snippet[];
  artifacts?: Snippet[];
  recall?: { k?: number; as_of?: Instant; kinds?: MemoryKind[] };
}

export interface Packed {
  text: string;
  tokens: number;
  budget: number;
  sections: { name: string; tokens: number; items: string[] }[];
  dropped: { ref: string; reason: string }[];
  compressed: { ref: string; summary: string }[];
}

export type ForgetSelector =
  | { memory_id: string }
  | { scope: Scope; subject: string; predicate: string; condition?: string }
  | { scope: Scope; text: string }
  | { scope: Scope; source_ref: string };

export interface ForgetReport {
  deleted: string[];
  cascaded: string[];
  tombstones: number;
}

export interface SweepReport {
  expired: number;
  archived: number;
  inferences_expired: number;
  examined: number;
}

/** The memory envelope (SPEC §2), as `list` and `history` return it. */
export interface Memory {
  id: string;
  revision: number;
  kind: MemoryKind;
  scope: Scope;
  text: string;
  payload: Record<string, unknown>;
  source: Source;
  source_event_ids: string[];
  external_id: string | null;
  extractor_version: string;
  policy_version: string;
  confidence: number;
  sensitivity: Sensitivity;
  observed_at: Instant;
  valid_from: Instant | null;
  valid_to: Instant | null;
  status: Status;
  supersedes: { id: string; revision: number } | null;
  superseded_by: { id: string; revision: number } | null;
  created_at: Instant;
  updated_at: Instant;
  retention: Retention;
  access_count: number;
  last_accessed: Instant | null;
  entities: Record<string, string>;
}

export interface Info {
  package_version: string;
  policy_version: string;
}

export interface CallOptions {
  /** Act for another principal on this instance. */
  principal?: PrincipalLike;
}

/** What a store implements (see `wit/store.wit`); values are jco's WIT values. */
export interface Store {
  find(filter: unknown, limit: number): unknown[];
  revisions(principal: unknown, id: string): unknown[];
  stats(filter: unknown, terms: string[]): unknown;
  search(filter: unknown, terms: unknown[], limit: number): unknown[];
  commit(principal: unknown, ops: unknown[]): unknown;
  /** Tombstones whose owner (tenant, user, project) `scope` can see. */
  tombstones(scope: unknown): unknown[];
  /** The secret tombstone keys are derived from (kept out of the database). */
  fingerprintSecret(): Uint8Array;
  countEvents(scope: unknown, kind: string, since: unknown): bigint;
  /** Awaited after every call by stores that persist asynchronously. */
  flush?(): Promise<void>;
  close?(): void;
}

export interface OpenOptions {
  principal: PrincipalLike;
  /** Default: a new `MemoryStore`. */
  store?: Store;
  /** A fixed instant, or a function returning one; default: the system clock. */
  now?: Instant | Date | (() => Instant | Date);
}

export declare class EngramBase {
  /** `{sha256, source, jco}` of the loaded component. */
  readonly component: { sha256: string; source: string; jco: string };
  /** How many calls trapped (each replaced the instance). */
  readonly traps: number;
  readonly lastTrap: unknown;
  readonly store: Store;
  classify(candidate: Candidate, options?: CallOptions): Promise<Decision>;
  classify(candidates: Candidate[], options?: CallOptions): Promise<Decision[]>;
  remember(candidate: Candidate, options?: CallOptions): Promise<Decision>;
  remember(candidates: Candidate[], options?: CallOptions): Promise<Decision[]>;
  importRecords(record: ImportRecord, options?: CallOptions): Promise<ImportReceipt>;
  importRecords(records: ImportRecord[], options?: CallOptions): Promise<ImportReceipt[]>;
  recall(query: Query, options?: CallOptions): Promise<RecallResult>;
  recall(queries: Query[], options?: CallOptions): Promise<RecallResult[]>;
  pack(request: PackRequest, options?: CallOptions): Promise<Packed>;
  forget(selectors: ForgetSelector | ForgetSelector[], options?: CallOptions): Promise<ForgetReport>;
  sweep(scope: Scope, options?: CallOptions): Promise<SweepReport>;
  history(id: string, options?: CallOptions): Promise<Memory[]>;
  list(scope: Scope, statuses?: Status[], options?: CallOptions): Promise<Memory[]>;
  info(): Promise<Info>;
  /** Advanced: run `f` on the jco bindings' `policy` export with WIT values. */
  callRaw<T>(f: (policy: typeof import('../gen/interfaces/engram-memory-policy.js')) => T, options?: CallOptions): Promise<T>;
  close(): void;
}

/** The policy refused: the WIT `error` case as `kind`, plus `field`/`index` for input errors. */
export declare class EngramError extends Error {
  readonly kind: 'invalid-input' | 'unsupported' | 'not-found' | 'permission-denied' | 'conflict' | 'store' | 'limit-exceeded';
  readonly detail: string;
  readonly field?: string;
  readonly index?: number;
  toJSON(): { kind: string; message: string; field?: string; index?: number };
}

/** The component trapped; the instance was replaced. The original error is `cause`. */
export declare class EngramTrapError extends Error {}

/** Thrown by stores to refuse; reaches the guest as `store-error`. */
export declare class StoreError extends Error {
  constructor(kind: 'denied' | 'conflict' | 'invalid' | 'backend', message: string);
  readonly kind: 'denied' | 'conflict' | 'invalid' | 'backend';
}

/** Every tenant in memory. */
export declare class MemoryStore implements Store {
  /** `fingerprintKey`: the secret tombstone keys are derived from (≥ 16 bytes); default: random. */
  constructor(options?: { fingerprintKey?: Uint8Array });
  find(filter: unknown, limit: number): unknown[];
  revisions(principal: unknown, id: string): unknown[];
  stats(filter: unknown, terms: string[]): unknown;
  search(filter: unknown, terms: unknown[], limit: number): unknown[];
  commit(principal: unknown, ops: unknown[]): unknown;
  /** Tombstones whose owner (tenant, user, project) `scope` can see. */
  tombstones(scope: unknown): unknown[];
  /** The secret tombstone keys are derived from (kept out of the database). */
  fingerprintSecret(): Uint8Array;
  countEvents(scope: unknown, kind: string, since: unknown): bigint;
  close(): void;
}

/** jco's `datetime`: milliseconds since the epoch and the UTC offset. */
export interface Datetime {
  epochMs: bigint;
  offsetMinutes: number;
}
export declare function parseDatetime(text: Instant): Datetime;
export declare function formatDatetime(dt: Datetime): Instant;
