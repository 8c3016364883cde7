// An in-memory store for every tenant, with the semantics of the Rust
// host's SQLite store: pushed-down filters, term search, all-or-nothing
// commits with etag compare-and-swap (insert → etag 1, each update +1), ids
// unique per tenant, one active revision per semantic key, per-(tenant,
// session) event sequences and tombstones owned by a tenant, user and
// project. Every op is bounded by the principal. Its fingerprint secret
// lives with the store object (random unless given), never in its state.
// For tests, examples and short-lived agents.

import { StoreError } from '../errors.js';
import { checkSecret, randomSecret } from '../fingerprint.js';
import {
  SENSITIVITY_RANK,
  activeKey,
  byteOrder,
  canonicalMemory,
  covers,
  filterMatches,
  needsMemoryColumns,
  uniqueTerms,
} from './common.js';

// Ids are unique per tenant only.
const revKey = (tenant, id, revision) => `${tenant}\u0000${id}\u0000${revision}`;
const rowKey = (m) => revKey(m.scope.tenant, m.id, m.revision);

function emptyState() {
  return {
    rows: new Map(), // rid → {rid, memory, etag, length, terms: Set, accessCount}
    byRevision: new Map(), // id\0revision → rid
    active: new Map(), // active semantic key → rid
    events: [], // {tenant, session, seq, scope, kind, at, payload}
    tombstones: [], // {tenant, user, project, fingerprint, length, kind, createdAt}
    maxRid: 0,
  };
}

function copyState(s) {
  return {
    rows: new Map(s.rows),
    byRevision: new Map(s.byRevision),
    active: new Map(s.active),
    events: s.events.slice(),
    tombstones: s.tombstones.slice(),
    maxRid: s.maxRid,
  };
}

function stored(row) {
  return {
    memory: { ...row.memory, accessCount: row.accessCount, lastAccessed: row.lastAccessed ?? row.memory.lastAccessed },
    etag: BigInt(row.etag),
    length: row.length,
    // No term counts: the guest analyses candidates itself.
    frequencies: new Uint32Array(0),
  };
}

/** Newest first: updated-at descending, then id, then revision descending. */
function newestFirst(a, b) {
  const ua = Number(a.memory.updatedAt.epochMs);
  const ub = Number(b.memory.updatedAt.epochMs);
  return ub - ua || byteOrder(a.memory.id, b.memory.id) || b.memory.revision - a.memory.revision;
}

/**
 * A state rebuilt from its rows, events and tombstones (the derived indexes
 * are recomputed), for stores that persist those and load them back.
 */
export function stateFrom(rows, events, tombstones) {
  const state = emptyState();
  for (const row of rows) {
    state.rows.set(row.rid, row);
    state.byRevision.set(rowKey(row.memory), row.rid);
    const key = activeKey(row.memory);
    if (key !== null) state.active.set(key, row.rid);
    if (row.rid > state.maxRid) state.maxRid = row.rid;
  }
  state.events = events.slice();
  state.tombstones = tombstones.slice();
  return state;
}

export class MemoryStore {
  #state;
  #secret;

  /**
   * `fingerprintKey`: the secret tombstone keys are derived from (a
   * Uint8Array of at least 16 bytes); default: a random one for this store.
   * `state`: for subclasses that load a persisted state (see `stateFrom`).
   */
  constructor({ state, fingerprintKey } = {}) {
    this.#state = state ?? emptyState();
    this.#secret = fingerprintKey === undefined ? randomSecret() : checkSecret(fingerprintKey);
  }

  /** The secret fingerprint keys are derived from. */
  fingerprintSecret() {
    return this.#secret;
  }

  /**
   * The current state. Commits never mutate a state in place (each builds a
   * new one, sharing unchanged rows), so a persisting subclass can diff two
   * snapshots by object identity.
   */
  snapshot() {
    return this.#state;
  }

  /** Records handed to the guest so far (bounded-read checks). */
  recordsRead = 0;

  #matching(filter) {
    const out = [];
    for (const row of this.#state.rows.values()) {
      if (filterMatches(filter, row.memory)) out.push(row);
    }
    return out;
  }

  #handOut(rows) {
    this.recordsRead += rows.length;
    return rows.map(stored);
  }

  find(filter, limit) {
    const rows = this.#matching(filter).sort(newestFirst).slice(0, limit);
    return this.#handOut(rows);
  }

  revisions(principal, id) {
    const rows = [...this.#state.rows.values()]
      .filter((r) => r.memory.id === id && principalRow(principal, r.memory))
      .sort((a, b) => a.memory.revision - b.memory.revision);
    return this.#handOut(rows);
  }

  stats(filter, terms) {
    const rows = this.#matching(filter);
    const total = rows.reduce((n, r) => n + r.length, 0);
    return {
      documents: BigInt(rows.length),
      averageLength: rows.length === 0 ? 0 : total / rows.length,
      frequencies: BigUint64Array.from(terms.map((t) => BigInt(rows.filter((r) => r.terms.has(t)).length))),
    };
  }

  search(filter, terms, limit) {
    if (terms.length === 0 || limit === 0) return [];
    const hits = [];
    for (const row of this.#matching(filter)) {
      let score = 0;
      let matched = false;
      for (const t of terms) {
        if (row.terms.has(t.term)) {
          score += t.weight;
          matched = true;
        }
      }
      if (matched) hits.push({ row, score });
    }
    const byKey = (a, b) => b.score - a.score || byteOrder(a.row.memory.id, b.row.memory.id) || a.row.memory.revision - b.row.memory.revision;
    let chosen;
    if (needsMemoryColumns(filter)) {
      chosen = hits.sort(byKey).slice(0, limit);
    } else {
      // The SQLite store picks the winners inside its postings index (ties
      // by row id), then orders them by score, id and revision.
      chosen = hits.sort((a, b) => b.score - a.score || a.row.rid - b.row.rid).slice(0, limit).sort(byKey);
    }
    return this.#handOut(chosen.map((h) => h.row));
  }

  commit(principal, ops) {
    const next = copyState(this.#state);
    const receipt = { sequences: [], etags: [] };
    for (const op of ops) {
      applyOp(next, principal, op, receipt);
    }
    this.#state = next;
    return { sequences: BigUint64Array.from(receipt.sequences), etags: BigUint64Array.from(receipt.etags) };
  }

  /** Tombstones whose owner `scope` can see (user and project unset or equal). */
  tombstones(scope) {
    const seen = (owner, asked) => owner === undefined || owner === asked;
    return this.#state.tombstones
      .filter((t) => t.tenant === scope.tenant && seen(t.user, scope.user) && seen(t.project, scope.project))
      .sort((a, b) => Number(a.createdAt.epochMs) - Number(b.createdAt.epochMs) || byteOrder(a.fingerprint, b.fingerprint))
      .map(({ tenant, user, project, fingerprint, length, kind, createdAt }) => ({
        scope: { tenant, user, project, thread: undefined, agent: undefined },
        fingerprint,
        length,
        kind,
        createdAt,
      }));
  }

  countEvents(scope, kind, since) {
    const at = Number(since.epochMs);
    let n = 0;
    for (const e of this.#state.events) {
      if (
        e.tenant === scope.tenant && e.scope.user === scope.user && e.scope.project === scope.project &&
        e.scope.thread === scope.thread && e.scope.agent === scope.agent && e.kind === kind && e.at >= at
      ) {
        n += 1;
      }
    }
    return BigInt(n);
  }

  /**
   * The events of one session and kind whose scope `scope` can see (every
   * dimension unset or equal), oldest first by sequence. Like the SQLite
   * stores, the store keeps an event's instant, not its offset (0 here).
   */
  sessionLog(scope, session, kind) {
    const seen = (stored, asked) => stored === undefined || stored === asked;
    return this.#state.events
      .filter((e) => e.tenant === scope.tenant && e.session === session && e.kind === kind &&
        seen(e.scope.user, scope.user) && seen(e.scope.project, scope.project) &&
        seen(e.scope.thread, scope.thread) && seen(e.scope.agent, scope.agent))
      .sort((a, b) => a.seq - b.seq)
      .map((e) => ({
        session,
        scope: { tenant: e.tenant, user: e.scope.user, project: e.scope.project, thread: e.scope.thread, agent: e.scope.agent },
        kind,
        payload: e.payload,
        at: { epochMs: BigInt(e.at), offsetMinutes: 0 },
      }));
  }

  /** Every appended event (tests, audits). */
  events() {
    return this.#state.events.map((e) => ({ ...e }));
  }

  close() {}
}

function principalRow(p, m) {
  return m.scope.tenant === p.tenant && (p.user === undefined || m.scope.user === p.user) &&
    (p.project === undefined || m.scope.project === p.project);
}

const DIMS = ['tenant', 'user', 'project', 'thread', 'agent'];

function sameScope(a, b) {
  return DIMS.every((d) => a[d] === b[d]);
}

/** Is `s` within `scope` (every dimension the scope sets is equal)? */
function within(s, scope) {
  return DIMS.every((d) => scope[d] === undefined || s[d] === scope[d]);
}

function checkUnique(state, row) {
  const key = activeKey(row.memory);
  if (key === null) return;
  const holder = state.active.get(key);
  if (holder !== undefined && holder !== row.rid) {
    const { id, revision } = row.memory;
    throw new StoreError('conflict', `${id} revision ${revision}: UNIQUE constraint failed: index 'memories_one_active_per_key'`);
  }
  state.active.set(key, row.rid);
}

function removeRow(state, row) {
  state.rows.delete(row.rid);
  // SQLite hands out max(rowid) + 1, so an erased last row's id is reused.
  if (row.rid === state.maxRid) {
    let max = 0;
    for (const rid of state.rows.keys()) if (rid > max) max = rid;
    state.maxRid = max;
  }
  state.byRevision.delete(rowKey(row.memory));
  const key = activeKey(row.memory);
  if (key !== null && state.active.get(key) === row.rid) state.active.delete(key);
}

function applyOp(state, principal, op, receipt) {
  switch (op.tag) {
    case 'insert': {
      const m = canonicalMemory(op.val.memory);
      if (state.byRevision.has(rowKey(m))) {
        throw new StoreError('conflict', `${m.id} revision ${m.revision}: UNIQUE constraint failed: memories.id, memories.revision`);
      }
      const terms = uniqueTerms(op.val.indexTerms);
      const rid = state.maxRid + 1;
      const row = { rid, memory: m, etag: 1, length: op.val.indexTerms.length, terms: new Set(terms), accessCount: m.accessCount };
      checkUnique(state, row);
      state.maxRid = rid;
      state.rows.set(rid, row);
      state.byRevision.set(rowKey(m), rid);
      receipt.etags.push(1n);
      break;
    }
    case 'update': {
      const m = canonicalMemory(op.val.memory);
      const rid = state.byRevision.get(rowKey(m));
      const cur = rid === undefined ? undefined : state.rows.get(rid);
      // The stored row must lie within the principal too (as in the Rust
      // store): a user-pinned guest may not take over another user's
      // record; and a revision never moves to another scope.
      if (!cur || !sameScope(cur.memory.scope, m.scope) || !principalRow(principal, cur.memory)) {
        throw new StoreError('conflict', `${m.id} revision ${m.revision} does not exist`);
      }
      if (BigInt(cur.etag) !== op.val.expectedEtag) {
        throw new StoreError('conflict', `${m.id} revision ${m.revision} was changed by another writer (etag ${cur.etag}, expected ${op.val.expectedEtag})`);
      }
      const terms = uniqueTerms(op.val.indexTerms);
      // The access count is the store's own (touch), not the writer's copy.
      const row = { rid, memory: m, etag: cur.etag + 1, length: op.val.indexTerms.length, terms: new Set(terms), accessCount: cur.accessCount };
      const oldKey = activeKey(cur.memory);
      if (oldKey !== null && state.active.get(oldKey) === rid) state.active.delete(oldKey);
      checkUnique(state, row);
      state.rows.set(rid, row);
      receipt.etags.push(BigInt(row.etag));
      break;
    }
    case 'erase': {
      for (const row of [...state.rows.values()]) {
        if (row.memory.id === op.val && principalRow(principal, row.memory)) removeRow(state, row);
      }
      break;
    }
    case 'scrub-events': {
      // Only the events within the scrub's scope (which the host checked
      // lies within the principal).
      const { scope, fragment } = op.val;
      if (fragment.length === 0) break;
      state.events = state.events.map((e) =>
        within(e.scope, scope) && e.payload.includes(fragment)
          ? { ...e, payload: e.payload.split(fragment).join('[erased]') }
          : e);
      break;
    }
    case 'tombstone': {
      const { scope, fingerprint, length, kind, createdAt } = op.val;
      const owner = { tenant: scope.tenant, user: scope.user, project: scope.project };
      const exists = state.tombstones.some((x) => x.tenant === owner.tenant && x.user === owner.user &&
        x.project === owner.project && x.fingerprint === fingerprint && x.length === length);
      if (!exists) state.tombstones.push({ ...owner, fingerprint, length, kind, createdAt });
      break;
    }
    case 'append': {
      const e = op.val;
      let seq = 0;
      for (const x of state.events) if (x.tenant === e.scope.tenant && x.session === e.session && x.seq > seq) seq = x.seq;
      seq += 1;
      state.events.push({ tenant: e.scope.tenant, session: e.session, seq, scope: e.scope, kind: e.kind, at: Number(e.at.epochMs), payload: e.payload });
      receipt.sequences.push(BigInt(seq));
      break;
    }
    case 'touch': {
      const { memory: ref, at } = op.val;
      const rid = state.byRevision.get(revKey(principal.tenant, ref.id, ref.revision));
      const row = rid === undefined ? undefined : state.rows.get(rid);
      if (row && principalRow(principal, row.memory)) {
        state.rows.set(rid, { ...row, accessCount: row.accessCount + 1, lastAccessed: at });
      }
      break;
    }
    default:
      throw new StoreError('invalid', `unknown write op ${JSON.stringify(op.tag)}`);
  }
}

export { SENSITIVITY_RANK, covers };
