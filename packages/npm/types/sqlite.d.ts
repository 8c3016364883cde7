// engram-memory/sqlite: the persistent Node store (better-sqlite3), with the
// Rust host's schema and row format.
import type { Store } from './api.js';

export declare class SqliteStore implements Store {
  /**
   * A database file (created on first use) or `':memory:'` (default). The
   * fingerprint key is `<path>.key` beside it (created 0600 on first use),
   * or `fingerprintKeyFile`, or the bytes `fingerprintKey`.
   */
  constructor(path?: string, options?: { fingerprintKeyFile?: string; fingerprintKey?: Uint8Array });
  /** Every appended event (tests, audits). */
  events(): unknown[];
  /** The schema version (the number of migrations applied). */
  readonly schemaVersion: number;
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
  /** Called by `Engram.open`: the component encodes and decodes the row bodies. */
  attachCodec(codec: unknown): void;
  close(): void;
}
