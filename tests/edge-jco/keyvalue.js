// A `wasi:keyvalue@0.2.0-draft2` binding for the edge component in Node
// (jco maps `wasi:keyvalue/*` here): store, atomics and batch over one
// in-process Map, made durable by an append-only log (ENGRAM_KV_LOG) that
// is replayed on start. The shape a Workers or Deno deployment gives its
// own KV: synchronous calls on one isolate's state (docs/edge.md).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

const logPath = process.env.ENGRAM_KV_LOG;
const data = new Map(); // `${bucket}\u0000${key}` → Uint8Array
export const counters = { reads: 0, writes: 0, swaps: 0, lostSwaps: 0 };

if (logPath && existsSync(logPath)) {
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line) continue;
    const [op, k, v] = JSON.parse(line);
    if (op === 's') data.set(k, Buffer.from(v, 'base64'));
    else data.delete(k);
  }
}

function log(op, k, v) {
  if (logPath) appendFileSync(logPath, JSON.stringify(v ? [op, k, Buffer.from(v).toString('base64')] : [op, k]) + '\n');
}

const slot = (bucket, key) => `${bucket.name}\u0000${key}`;
function put(k, v) { counters.writes++; data.set(k, new Uint8Array(v)); log('s', k, v); }
function drop(k) { counters.writes++; data.delete(k); log('d', k); }
function read(k) { counters.reads++; return data.get(k); }
function same(a, b) {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

class Bucket {
  constructor(name) { this.name = name; }
  get(key) { return read(slot(this, key)); }
  set(key, value) { put(slot(this, key), value); }
  delete(key) { drop(slot(this, key)); }
  exists(key) { return read(slot(this, key)) !== undefined; }
  listKeys(cursor) {
    const prefix = `${this.name}\u0000`;
    const keys = [...data.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length)).sort()
      .filter((k) => cursor === undefined || k > cursor);
    const page = keys.slice(0, 1000);
    return { keys: page, cursor: page.length === 1000 ? page[999] : undefined };
  }
}

export const store = {
  Bucket,
  open(identifier) { return new Bucket(identifier); },
};

class Cas {
  constructor(bucket, key) { this.k = slot(bucket, key); this.seen = read(this.k); }
  static new(bucket, key) { return new Cas(bucket, key); }
  current() { return this.seen; }
}

export const atomics = {
  Cas,
  increment(bucket, key, delta) {
    const k = slot(bucket, key);
    const cur = read(k);
    const next = (cur === undefined ? 0n : BigInt(new TextDecoder().decode(cur))) + BigInt(delta);
    put(k, new TextEncoder().encode(next.toString()));
    return next;
  },
  swap(cas, value) {
    counters.swaps++;
    if (!same(data.get(cas.k), cas.seen)) {
      counters.lostSwaps++;
      const fresh = Object.create(Cas.prototype);
      fresh.k = cas.k;
      fresh.seen = data.get(cas.k);
      throw { tag: 'cas-failed', val: fresh };
    }
    put(cas.k, value);
  },
};

export const batch = {
  getMany(bucket, keys) { return keys.map((key) => [key, read(slot(bucket, key))]); },
  setMany(bucket, entries) { for (const [key, value] of entries) put(slot(bucket, key), value); },
  deleteMany(bucket, keys) { for (const key of keys) drop(slot(bucket, key)); },
};
