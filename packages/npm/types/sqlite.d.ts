// engram-memory/sqlite: the persistent Node store (better-sqlite3), with the
// Rust host's schema and row format.
import type { Store } from './api.js';

export declare class SqliteStore implements Store {
  /** A database file (created on first use) or `':memory:'` (default). */
  constructor(path?: string);
  /** The schema version (the number of migrations applied). */
  readonly schemaVersion: number;
  find(filter: unknown, limit: number): unknown[];
  revisions(principal: unknown, id: string): unknown[];
  stats(filter: unknown, terms: string[]): unknown;
  search(filter: unknown, terms: unknown[], limit: number): unknown[];
  commit(principal: unknown, ops: unknown[]): unknown;
  tombstones(tenant: string): unknown[];
  countEvents(scope: unknown, kind: string, since: unknown): bigint;
  /** Called by `Engram.open`: the component encodes and decodes the row bodies. */
  attachCodec(codec: unknown): void;
  close(): void;
}
