// What every store must do to keep principals apart, checked on a store
// directly (the Rust store conformance suite's tenancy checks,
// tests/src/store_conformance.rs): ids are per tenant, updates and touches
// reach only the principal's records in their own scope, scrubs only the
// events within their scope, tombstones apply only where their owner's
// content was visible, a session's log shows what its scope can see, and
// the fingerprint key is derived as every host derives it.
// `checkStore(makeStore, codec)` runs each on a fresh store and returns
// their names; a failed check throws naming what differed. `codec`
// is an `Engram`'s (`engram.codec`): the records are the component's
// decoding of a row body, and a store that keeps row bodies is given it.

import { deriveKey, toHex } from './fingerprint.js';

function assert(ok, what) {
  if (!ok) throw new Error(`store check failed: ${what}`);
}

function equal(a, b, what) {
  const text = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
  const [x, y] = [text(a), text(b)];
  assert(x === y, `${what}: ${x} !== ${y}`);
}

const principal = (tenant, user) => ({ tenant, user, project: undefined });
const scope = (tenant, user) => ({ tenant, user, project: undefined, thread: undefined, agent: undefined });
const at = (ms) => ({ epochMs: BigInt(ms), offsetMinutes: 0 });

/** The codec of the run (`checkStore`'s). */
let rows = null;

function memory(id, tenant, user, text) {
  const time = '2026-08-01T10:00:00Z';
  const body = {
    id, revision: 1, kind: 'episodic', scope: { tenant, user: user ?? null }, text,
    payload: { occurred_at: time }, source: { kind: 'user', ref: `src-${id}` }, source_event_ids: [],
    entities: {}, external_id: null, access_count: 0, last_accessed: null,
    extractor_version: 't', policy_version: 't', confidence: 0.9, sensitivity: 'internal',
    observed_at: time, status: 'active', created_at: time, updated_at: time, retention: 'standard',
    supersedes: null, superseded_by: null, valid_from: null, valid_to: null,
  };
  return rows.decodeMemories([JSON.stringify(body)])[0];
}

const insert = (m) => ({ tag: 'insert', val: { memory: m, indexTerms: ['x'] } });

function texts(store, tenant, id) {
  return store.revisions(principal(tenant), id).map((s) => s.memory.text);
}

const CHECKS = {
  'ids are per tenant': (store) => {
    store.commit(principal('a'), [insert(memory('m-shared', 'a', undefined, "a's"))]);
    store.commit(principal('b'), [insert(memory('m-shared', 'b', undefined, "b's"))]);
    equal(texts(store, 'a', 'm-shared'), ["a's"], 'tenant a reads its own');
    equal(texts(store, 'b', 'm-shared'), ["b's"], 'tenant b reads its own');
    let conflict = false;
    try {
      store.commit(principal('b'), [insert(memory('m-shared', 'b', undefined, 'again'))]);
    } catch (e) {
      conflict = e.payload?.tag === 'conflict';
    }
    assert(conflict, 'a second revision 1 within one tenant conflicts');
    store.commit(principal('a'), [{ tag: 'touch', val: { memory: { id: 'm-shared', revision: 1 }, at: { epochMs: 5n, offsetMinutes: 0 } } }, { tag: 'erase', val: 'm-shared' }]);
    equal(texts(store, 'a', 'm-shared'), [], 'erased in tenant a');
    const kept = store.revisions(principal('b'), 'm-shared');
    equal([kept.length, kept[0]?.memory.accessCount, kept[0]?.etag], [1, 0, 1n], "tenant b's untouched");
  },
  'updates and touches stay within the principal': (store) => {
    const m = memory('m-own', 't', 'u1', 'own');
    store.commit(principal('t'), [insert(m)]);
    const update = (memoryValue) => [{ tag: 'update', val: { memory: memoryValue, indexTerms: ['y'], expectedEtag: 1n } }];
    for (const [who, moved] of [
      [principal('t'), { ...m, scope: scope('t', 'u2') }],
      [principal('t'), { ...m, scope: scope('t', undefined) }],
      [principal('t', 'u2'), m],
    ]) {
      let refused = false;
      try {
        store.commit(who, update(moved));
      } catch (e) {
        refused = e.payload?.tag === 'conflict' && /does not exist/.test(e.payload.val);
      }
      assert(refused, `an update by ${JSON.stringify(who)} into ${JSON.stringify(moved.scope)} is refused`);
    }
    const touch = [{ tag: 'touch', val: { memory: { id: 'm-own', revision: 1 }, at: { epochMs: 5n, offsetMinutes: 0 } } }];
    store.commit(principal('t', 'u2'), touch);
    store.commit(principal('t', 'u1'), touch);
    const now = store.revisions(principal('t'), 'm-own')[0];
    equal([now.memory.accessCount, now.etag, now.memory.text], [1, 1n, 'own'], 'only its own user touched it');
  },
  'scrubs stay within their scope': (store) => {
    const event = (user, payload) => ({ tag: 'append', val: { session: 's', scope: scope('t', user), kind: 'decision', payload, at: at(1) } });
    store.commit(principal('t'), [event('u1', 'u1 said hunter2'), event('u2', 'u2 said hunter2')]);
    store.commit(principal('t', 'u1'), [{ tag: 'scrub-events', val: { scope: scope('t', 'u1'), fragment: 'hunter2' } }]);
    const payloads = store.events().map((e) => e.payload).sort();
    equal(payloads, ['u1 said [erased]', 'u2 said hunter2'], "only u1's events scrubbed");
  },
  'tombstones belong to their owner': (store) => {
    const stone = (s, fingerprint, ms) => ({
      tag: 'tombstone', val: { scope: s, fingerprint, length: 12, kind: 'text', createdAt: at(ms) },
    });
    store.commit(principal('t'), [
      stone(scope('t', undefined), 'wide', 1),
      stone(scope('t', 'u1'), 'u1', 2),
      stone(scope('t', 'u2'), 'u2', 3),
      stone(scope('t', 'u2'), 'u1', 4),
      stone(scope('t', 'u2'), 'u1', 5),
    ]);
    const seen = (s) => store.tombstones(s).map((x) => `${x.fingerprint}@${x.scope.user ?? '-'}`);
    equal(seen(scope('t', undefined)), ['wide@-'], 'tenant-wide');
    equal(seen(scope('t', 'u1')), ['wide@-', 'u1@u1'], 'u1');
    equal(seen(scope('t', 'u2')), ['wide@-', 'u2@u2', 'u1@u2'], 'u2, once per owner');
    equal(seen(scope('x', 'u1')), [], 'another tenant');
  },
  "a session's log shows what its scope can see": (store) => {
    const event = (tenant, session, user, kind, payload, ms) =>
      ({ tag: 'append', val: { session, scope: scope(tenant, user), kind, payload, at: at(ms) } });
    store.commit(principal('t'), [
      event('t', 'op:a', 'u1', 'operation', 'first', 10),
      event('t', 'op:b', 'u1', 'operation', 'another session', 11),
      event('t', 'op:a', 'u2', 'operation', "u2's", 12),
      event('t', 'op:a', undefined, 'operation', 'tenant-wide', 13),
      event('t', 'op:a', 'u1', 'decision', 'another kind', 14),
    ]);
    store.commit(principal('t'), [event('t', 'op:a', 'u1', 'operation', 'second', 5)]);
    store.commit(principal('x'), [event('x', 'op:a', 'u1', 'operation', "x's", 1)]);
    const log = (s) => store.sessionLog(s, 'op:a', 'operation').map((e) => `${e.payload}@${e.scope.user ?? '-'}@${e.at.epochMs}`);
    equal(log(scope('t', 'u1')), ['first@u1@10', 'tenant-wide@-@13', 'second@u1@5'], 'u1, by sequence');
    equal(log(scope('t', 'u2')), ["u2's@u2@12", 'tenant-wide@-@13'], 'u2');
    equal(log(scope('t', undefined)), ['tenant-wide@-@13'], 'tenant-wide');
    equal(log(scope('x', 'u1')), ["x's@u1@1"], 'another tenant');
  },
  'the fingerprint key is derived as every host derives it': (store) => {
    const secret = store.fingerprintSecret();
    assert(secret instanceof Uint8Array && secret.length >= 16, 'a secret of 16 bytes or more');
    equal(toHex(deriveKey(new Uint8Array(32).fill(7), { tenant: 'acme', user: 'u1' })),
      '4958d2df704e1c5e8666fb063731fbeb24fd1c84c18b0f71c862ebf90c58425c', 'the shared vector');
    equal(toHex(store.fingerprintSecret()), toHex(secret), 'the same secret every time');
  },
};

/**
 * Run every check, each on a fresh store from `makeStore()`, its records
 * built with `codec` (an `Engram`'s `codec`); their names.
 */
export async function checkStore(makeStore, codec) {
  const passed = [];
  rows = codec;
  for (const [name, check] of Object.entries(CHECKS)) {
    const store = await makeStore();
    store.attachCodec?.(codec);
    try {
      check(store);
    } catch (e) {
      throw new Error(`${name}: ${e.message}`, { cause: e });
    } finally {
      // A store that persists asynchronously finishes its writes first.
      await store.flush?.();
      store.close?.();
    }
    passed.push(name);
  }
  return passed;
}
