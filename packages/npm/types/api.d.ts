// The API of the engram-memory package: the `Engram` host, its errors and
// stores. The JSON shapes its methods take and return are the contract's,
// generated from its JSON Schema into ./contract.d.ts; the WIT-level types
// jco generates are in ../gen/engram.d.ts (`engram-memory/wit`).

import type {
  CandidateIn,
  DecisionOut,
  ForgetIn,
  ForgetOut,
  ImportHead,
  InfoOut,
  MemoryJson,
  OperationLookupIn,
  OperationReceiptOut,
  OperationRecordIn,
  OperationStateOut,
  Operations,
  PackIn,
  PackedOut,
  QueryIn,
  ReceiptOut,
  RecallOut,
  ReviewIn,
  ReviewOut,
  Scope,
  Status,
  SweepOut,
} from './contract.js';

/** An instant as RFC 3339 text with its UTC offset, e.g. `2026-08-01T10:00:00+08:00`. */
export type Instant = string;

/** Who a call acts for: a tenant name or a narrower principal. */
export type PrincipalLike = string | { tenant: string; user?: string; project?: string };

// The methods' names for the contract's types.
export type Candidate = CandidateIn;
export type ImportRecord = ImportHead & CandidateIn;
export type Decision = DecisionOut;
export type ImportReceipt = ReceiptOut;
export type Query = QueryIn;
export type RecallResult = RecallOut;
export type PackRequest = PackIn;
export type Packed = PackedOut;
export type ForgetSelector = ForgetIn;
export type ForgetReport = ForgetOut;
export type SweepReport = SweepOut;
export type Memory = MemoryJson;
export type Info = InfoOut;
export type OperationRecord = OperationRecordIn;
export type OperationReceipt = OperationReceiptOut;
export type OperationLookup = OperationLookupIn;
export type OperationState = OperationStateOut;

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
  /** The events of one session and kind visible from `scope`, oldest first (`session-log`). */
  sessionLog(scope: unknown, session: string, kind: string): unknown[];
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
  /** The component's memory row codec on WIT values (what `SqliteStore` keeps row bodies with). */
  readonly codec: { encodeMemory(memory: unknown): string; decodeMemories(bodies: string[]): unknown[] };
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
  review(item: ReviewIn, options?: CallOptions): Promise<ReviewOut>;
  review(items: ReviewIn[], options?: CallOptions): Promise<ReviewOut[]>;
  recordOperations(record: OperationRecord, options?: CallOptions): Promise<OperationReceipt>;
  recordOperations(records: OperationRecord[], options?: CallOptions): Promise<OperationReceipt[]>;
  getOperations(lookup: OperationLookup, options?: CallOptions): Promise<OperationState>;
  getOperations(lookups: OperationLookup[], options?: CallOptions): Promise<OperationState[]>;
  info(): Promise<Info>;
  /**
   * Any operation of the contract by name, on a value or on JSON / JSON Lines
   * text; resolves to the values of the JSON Lines it answers.
   */
  call<K extends keyof Operations>(operation: K, input: unknown, options?: CallOptions): Promise<Operations[K]['output'][]>;
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
  /** The events of one session and kind visible from `scope`, oldest first (`session-log`). */
  sessionLog(scope: unknown, session: string, kind: string): unknown[];
  close(): void;
}

