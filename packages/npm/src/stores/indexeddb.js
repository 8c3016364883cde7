// A persistent store for browsers on IndexedDB. The component calls its
// store synchronously while IndexedDB is asynchronous, so this store keeps
// its data in memory (it is a `MemoryStore`, with the same semantics) and
// writes each commit through to IndexedDB: `Engram` awaits `flush()` after
// every call, so a call resolves only once its commit is durable. Open it
// with `await IndexedDbStore.open(name)`, which loads what an earlier page
// stored. Each commit writes only the rows, events and tombstones it
// changed. One page at a time per database: two tabs writing the same
// database would overwrite each other's rows.
//
// The fingerprint secret (what tombstone keys are derived from) is not in
// the store's database: pass `fingerprintKey`, or it is kept in a database
// of its own, `<name>:fingerprint-key` (a browser profile holds both, so
// on the web only a caller-supplied key keeps the profile alone from
// testing guesses; docs/durability.md).

import { StoreError } from '../errors.js';
import { randomSecret } from '../fingerprint.js';
import { MemoryStore, stateFrom } from './memory.js';

// 2: tombstones are owned and keyed; the unkeyed ones of version 1 are
// dropped (as the SQLite migration 6 drops them).
const VERSION = 2;
const ROWS = 'rows';
const EVENTS = 'events';
const TOMBSTONES = 'tombstones';

const request = (r) =>
  new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

const done = (tx) =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });

function openDatabase(name, indexedDB) {
  const r = indexedDB.open(name, VERSION);
  r.onupgradeneeded = (event) => {
    const db = r.result;
    // Rows keyed by their row id, events and tombstones by their position.
    for (const s of [ROWS, EVENTS, TOMBSTONES]) if (!db.objectStoreNames.contains(s)) db.createObjectStore(s);
    if (event.oldVersion === 1) r.transaction.objectStore(TOMBSTONES).clear();
  };
  return request(r);
}

const SECRET = 'secret';

/**
 * The secret kept in the database `<name>:fingerprint-key`, created with
 * it unless the store already holds tombstones (a lost key is not silently
 * replaced: the tombstones would no longer match anything).
 */
async function keptSecret(name, indexedDB, hasTombstones) {
  const r = indexedDB.open(`${name}:fingerprint-key`, 1);
  let created = false;
  r.onupgradeneeded = () => {
    created = true;
    r.result.createObjectStore(SECRET);
  };
  const db = await request(r);
  try {
    const tx = db.transaction(SECRET, 'readwrite');
    const store = tx.objectStore(SECRET);
    let secret = await request(store.get(SECRET));
    if (secret === undefined) {
      if (created && hasTombstones) {
        throw new StoreError('backend', `the fingerprint key database ${name}:fingerprint-key is missing, but this store holds tombstones made with it: restore it; without it erased content is no longer recognised`);
      }
      secret = randomSecret();
      store.put(secret, SECRET);
    }
    await done(tx);
    return new Uint8Array(secret);
  } finally {
    db.close();
  }
}

/** Values in key order (row ids and positions are numbers). */
async function all(db, name) {
  const tx = db.transaction(name, 'readonly');
  const store = tx.objectStore(name);
  const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
  return keys.map((k, i) => [k, values[i]]).sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

/** Write what changed between two snapshots, in one transaction. */
function persist(db, before, after) {
  const tx = db.transaction([ROWS, EVENTS, TOMBSTONES], 'readwrite');
  const rows = tx.objectStore(ROWS);
  for (const [rid, row] of after.rows) if (before.rows.get(rid) !== row) rows.put(row, rid);
  for (const rid of before.rows.keys()) if (!after.rows.has(rid)) rows.delete(rid);
  const events = tx.objectStore(EVENTS);
  after.events.forEach((e, i) => {
    if (before.events[i] !== e) events.put(e, i);
  });
  const tombstones = tx.objectStore(TOMBSTONES);
  after.tombstones.forEach((t, i) => {
    if (before.tombstones[i] !== t) tombstones.put(t, i);
  });
  return done(tx);
}

export class IndexedDbStore extends MemoryStore {
  #db;
  #saved;
  #pending = Promise.resolve();

  /**
   * Open (or create) the IndexedDB database `name` and load its contents.
   * `indexedDB` defaults to the page's (`globalThis.indexedDB`).
   */
  static async open(name = 'engram', { indexedDB = globalThis.indexedDB, fingerprintKey } = {}) {
    if (!indexedDB) throw new Error('IndexedDbStore: this environment has no IndexedDB');
    const db = await openDatabase(name, indexedDB);
    const [rows, events, tombstones] = await Promise.all([all(db, ROWS), all(db, EVENTS), all(db, TOMBSTONES)]);
    const secret = fingerprintKey ?? (await keptSecret(name, indexedDB, tombstones.length > 0));
    return new IndexedDbStore(db, stateFrom(rows, events, tombstones), secret);
  }

  /** Use `IndexedDbStore.open`. */
  constructor(db, state, fingerprintKey) {
    super({ state, fingerprintKey });
    this.#db = db;
    this.#saved = state;
  }

  commit(principal, ops) {
    const receipt = super.commit(principal, ops);
    const before = this.#saved;
    const after = this.snapshot();
    this.#saved = after;
    // Commits are written in order; a failed write fails every later flush
    // too (what is on disk no longer matches memory).
    this.#pending = this.#pending.then(() => persist(this.#db, before, after));
    return receipt;
  }

  /** Resolves once every commit so far is in IndexedDB. */
  flush() {
    return this.#pending;
  }

  close() {
    this.#db.close();
  }

  /** Delete the database `name` (close every store on it first). */
  static async destroy(name = 'engram', { indexedDB = globalThis.indexedDB } = {}) {
    await request(indexedDB.deleteDatabase(name));
    await request(indexedDB.deleteDatabase(`${name}:fingerprint-key`));
  }
}
