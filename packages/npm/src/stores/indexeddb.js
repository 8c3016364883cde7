// A persistent store for browsers on IndexedDB. The component calls its
// store synchronously while IndexedDB is asynchronous, so this store keeps
// its data in memory (it is a `MemoryStore`, with the same semantics) and
// writes each commit through to IndexedDB: `Engram` awaits `flush()` after
// every call, so a call resolves only once its commit is durable. Open it
// with `await IndexedDbStore.open(name)`, which loads what an earlier page
// stored. Each commit writes only the rows, events and tombstones it
// changed. One page at a time per database: two tabs writing the same
// database would overwrite each other's rows.

import { MemoryStore, stateFrom } from './memory.js';

const VERSION = 1;
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
  r.onupgradeneeded = () => {
    const db = r.result;
    // Rows keyed by their row id, events and tombstones by their position.
    for (const s of [ROWS, EVENTS, TOMBSTONES]) if (!db.objectStoreNames.contains(s)) db.createObjectStore(s);
  };
  return request(r);
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
  static async open(name = 'engram', { indexedDB = globalThis.indexedDB } = {}) {
    if (!indexedDB) throw new Error('IndexedDbStore: this environment has no IndexedDB');
    const db = await openDatabase(name, indexedDB);
    const [rows, events, tombstones] = await Promise.all([all(db, ROWS), all(db, EVENTS), all(db, TOMBSTONES)]);
    return new IndexedDbStore(db, stateFrom(rows, events, tombstones));
  }

  /** Use `IndexedDbStore.open`. */
  constructor(db, state) {
    super(state);
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
  }
}
