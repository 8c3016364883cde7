// Unit tests of the Node host: store semantics (both stores), typed errors,
// the capability check, trap recovery and persistence.
//
//   npm test                       # the package's gen/ (`npm run build` writes it)
//   ENGRAM_BINDINGS=DIR node --test test/   # other bindings
//
// tests/tests/hosts.rs runs them inside the installed tarball.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { DEFAULT_BINDINGS, Engram, EngramError, EngramTrapError, MemoryStore, StoreError } from '../src/index.js';
import { SqliteStore } from '../src/stores/sqlite.js';
import { wasiStubs } from '../src/wasi.js';

const bindings = process.env.ENGRAM_BINDINGS ?? DEFAULT_BINDINGS;
const NOW = '2026-08-01T10:00:00+08:00';
const scratch = mkdtempSync(join(tmpdir(), 'engram-node-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const open = (options = {}) => Engram.open({ bindings, principal: 'acme', now: NOW, ...options });

// ---------------------------------------------------------------- store semantics

/** A WIT datetime of an RFC 3339 instant with an explicit offset (test data). */
function at(iso) {
  const m = /([+-])(\d{2}):(\d{2})$/.exec(iso);
  const offset = m ? (Number(m[2]) * 60 + Number(m[3])) * (m[1] === '-' ? -1 : 1) : 0;
  return { epochMs: BigInt(Date.parse(iso)), offsetMinutes: offset };
}

/** The component's row-body codec, which `Engram.open` gives a SqliteStore. */
class CodecProbe extends MemoryStore {
  attachCodec(codec) {
    this.codec = codec;
  }
}
const probe = new CodecProbe();
await open({ store: probe });
const sqliteStore = () => {
  const s = new SqliteStore(':memory:');
  s.attachCodec(probe.codec);
  return s;
};

const ACME = { tenant: 'acme', user: undefined, project: undefined };

function memory({ id = 'm-1', revision = 1, status = 'active', subject = 's', predicate = 'p', scope = { tenant: 'acme' }, updated = NOW } = {}) {
  return {
    id, revision, kind: 'semantic', scope, text: `${subject} ${predicate}`,
    payload: { tag: 'semantic', val: { subject, predicate, object: 'o', condition: undefined } },
    provenance: { source: { kind: 'user', reference: 'evt-1' }, sourceEventIds: ['evt-1'], externalId: undefined, extractorVersion: 'x', policyVersion: 'y' },
    confidence: 0.9, sensitivity: 'internal', observedAt: at(NOW), validFrom: undefined, validTo: undefined, status,
    supersedes: undefined, supersededBy: undefined, createdAt: at(NOW), updatedAt: at(updated), retention: 'standard',
    accessCount: 0, lastAccessed: undefined, entities: [{ key: 'b', value: '2' }, { key: 'a', value: '1' }], embedding: undefined,
  };
}

const filter = (extra = {}) => ({
  scope: { tenant: 'acme' }, scopeMatch: 'visible', kinds: [], statuses: [], validAt: undefined, sensitivityMax: undefined,
  subject: undefined, predicate: undefined, condition: { tag: 'none' }, sourceRef: undefined, excludeArchived: false, ...extra,
});

const insert = (m, terms = ['alpha']) => ({ tag: 'insert', val: { memory: m, indexTerms: terms } });
const update = (m, etag, terms = ['alpha']) => ({ tag: 'update', val: { memory: m, indexTerms: terms, expectedEtag: BigInt(etag) } });
const append = (session, tenant = 'acme') => ({ tag: 'append', val: { session, scope: { tenant }, kind: 'decision', payload: 'x', at: at(NOW) } });

for (const [name, make] of [['MemoryStore', () => new MemoryStore()], ['SqliteStore', sqliteStore]]) {
  describe(`${name} semantics`, () => {
    test('inserts get etag 1, each update adds 1, a stale etag is a conflict', () => {
      const s = make();
      assert.deepEqual([...s.commit(ACME, [insert(memory())]).etags], [1n]);
      assert.deepEqual([...s.commit(ACME, [update(memory({ status: 'superseded' }), 1)]).etags], [2n]);
      assert.throws(() => s.commit(ACME, [update(memory(), 1)]), (e) => e instanceof StoreError && e.kind === 'conflict');
      assert.equal(s.find(filter(), 10)[0].etag, 2n);
    });

    test('a commit is all or nothing', () => {
      const s = make();
      s.commit(ACME, [insert(memory())]);
      assert.throws(() => s.commit(ACME, [insert(memory({ id: 'm-2', subject: 't' })), update(memory(), 7)]), StoreError);
      assert.deepEqual(s.find(filter(), 10).map((x) => x.memory.id), ['m-1']);
    });

    test('one active revision per semantic key', () => {
      const s = make();
      s.commit(ACME, [insert(memory())]);
      assert.throws(() => s.commit(ACME, [insert(memory({ id: 'm-2' }))]), (e) => e.kind === 'conflict');
      // Superseding first, then activating, is fine.
      s.commit(ACME, [update(memory({ status: 'superseded' }), 1), insert(memory({ revision: 2 }))]);
      assert.equal(s.find(filter({ statuses: ['active'] }), 10)[0].memory.revision, 2);
    });

    test('event sequences count per tenant and session', () => {
      const s = make();
      const r = s.commit(ACME, [append('t1'), append('t1'), append('t2')]);
      assert.deepEqual([...r.sequences], [1n, 2n, 1n]);
      assert.deepEqual([...s.commit({ tenant: 'globex' }, [append('t1', 'globex')]).sequences], [1n]);
      assert.equal(s.countEvents({ tenant: 'acme' }, 'decision', at(NOW)), 3n);
    });

    test('search returns the top records by summed term weight', () => {
      const s = make();
      s.commit(ACME, [
        insert(memory({ id: 'm-a', subject: 'a' }), ['x']),
        insert(memory({ id: 'm-b', subject: 'b' }), ['x', 'y']),
        insert(memory({ id: 'm-c', subject: 'c' }), ['z']),
      ]);
      const terms = [{ term: 'x', weight: 1 }, { term: 'y', weight: 0.5 }];
      assert.deepEqual(s.search(filter(), terms, 10).map((x) => x.memory.id), ['m-b', 'm-a']);
      assert.deepEqual(s.search(filter(), terms, 1).map((x) => x.memory.id), ['m-b']);
      const st = s.stats(filter(), ['x', 'z', 'nope']);
      assert.equal(st.documents, 3n);
      assert.deepEqual([...st.frequencies], [2n, 1n, 0n]);
    });

    test('scope filters: visible sees tenant-wide facts, exact does not', () => {
      const s = make();
      s.commit(ACME, [insert(memory({ id: 'm-t' })), insert(memory({ id: 'm-u', subject: 'u', scope: { tenant: 'acme', user: 'u1' } }))]);
      const visible = s.find(filter({ scope: { tenant: 'acme', user: 'u1' } }), 10).map((x) => x.memory.id).sort();
      assert.deepEqual(visible, ['m-t', 'm-u']);
      const exact = s.find(filter({ scope: { tenant: 'acme', user: 'u1' }, scopeMatch: 'exact' }), 10).map((x) => x.memory.id);
      assert.deepEqual(exact, ['m-u']);
    });

    test('entities are stored as a sorted map', () => {
      const s = make();
      s.commit(ACME, [insert(memory())]);
      assert.deepEqual(s.find(filter(), 1)[0].memory.entities.map((e) => e.key), ['a', 'b']);
    });
  });
}

// ---------------------------------------------------------------- the host

describe('Engram (Node host)', () => {
  const scope = { tenant: 'acme', user: 'u42' };
  const fact = { id: 'c1', text: 'payment-service uses PostgreSQL 16', scope: { tenant: 'acme' }, source: { kind: 'system', ref: 'cmdb-1' }, subject: 'service:payment-service', predicate: 'database', object: 'PostgreSQL 16' };

  test('remembers and recalls', async () => {
    const engram = await open();
    const d = await engram.remember(fact);
    assert.equal(d.disposition, 'active');
    assert.match(d.memory_id, /^m-/);
    const r = await engram.recall({ query: 'which database does payment-service use?', scope, k: 3 });
    assert.equal(r.results[0].memory_id, d.memory_id);
    const info = await engram.info();
    assert.equal(info.package_version, '0.1.0');
  });

  test('policy errors are typed, with the index and field', async () => {
    const engram = await open();
    await assert.rejects(engram.classify([fact, { ...fact, confidence: 1.5 }]), (e) => {
      assert.ok(e instanceof EngramError);
      assert.equal(e.kind, 'invalid-input');
      assert.equal(e.index, 1);
      assert.equal(e.field, 'confidence');
      return true;
    });
  });

  test('input the host cannot convert is an invalid-input error, before the component runs', async () => {
    const engram = await open();
    await assert.rejects(engram.remember([{ text: 'x', scope }]), (e) => e instanceof EngramError && e.field === 'source' && e.index === 0);
    await assert.rejects(engram.recall({ query: 'x', scope, as_of: 'yesterday' }), (e) => e.kind === 'invalid-input' && e.field === 'as_of');
  });

  test('a scope outside the principal is denied by the store', async () => {
    const engram = await open({ principal: { tenant: 'acme', user: 'u7' } });
    await assert.rejects(engram.recall({ query: 'x', scope: { tenant: 'acme', user: 'u42' } }), (e) => e.kind === 'permission-denied');
  });

  test('a trap replaces the instance and the next call works', async () => {
    const inner = new MemoryStore();
    let fail = false;
    const store = new Proxy(inner, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (prop === 'search' || prop === 'find') {
          return (...args) => {
            if (fail) throw new TypeError('a bug in the store');
            return v.apply(target, args);
          };
        }
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const engram = await open({ store });
    await engram.remember(fact);
    fail = true;
    await assert.rejects(engram.recall({ query: 'payment-service database', scope }), (e) => {
      assert.ok(e instanceof EngramTrapError);
      assert.match(e.message, /a bug in the store/);
      return true;
    });
    assert.equal(engram.traps, 1);
    assert.match(String(engram.lastTrap), /a bug in the store/);
    fail = false;
    const r = await engram.recall({ query: 'payment-service database', scope });
    assert.equal(r.results.length, 1);
  });

  for (const [name, make] of [['MemoryStore', () => new MemoryStore()], ['SqliteStore', () => new SqliteStore(':memory:')]]) {
    test(`review approves one pending memory and rejects another (${name}); list shows both`, async () => {
      const engram = await open({ store: make() });
      const inferred = [
        { text: 'The user prefers dark mode in the dashboard', scope, source: { kind: 'behavior', ref: 'evt-ui-88' }, kind_hint: 'semantic', subject: 'user:u42', predicate: 'ui_theme', object: 'dark' },
        { text: 'order-service 部署在 AWS', scope, source: { kind: 'agent', ref: 'run-17' }, kind_hint: 'semantic', subject: 'order-service', predicate: '部署在', object: 'AWS' },
      ];
      const [a, b] = await engram.remember(inferred);
      assert.deepEqual([a.disposition, b.disposition], ['pending', 'pending']);
      // A bad verdict is named before the component runs; a verdict on a
      // missing revision fails the whole call, so nothing changes.
      await assert.rejects(engram.review([{ id: a.memory_id, revision: 1, verdict: 'maybe' }]), (e) => e.kind === 'invalid-input' && e.field === 'verdict' && e.index === 0);
      await assert.rejects(
        engram.review([{ id: a.memory_id, revision: 1, verdict: 'approve' }, { id: b.memory_id, revision: 9, verdict: 'reject' }]),
        (e) => e.kind === 'not-found' && /revision 9/.test(e.detail),
      );
      assert.deepEqual((await engram.list(scope, ['pending'])).map((m) => m.id).sort(), [a.memory_id, b.memory_id].sort());

      const out = await engram.review([
        { id: a.memory_id, revision: 1, verdict: 'approve', reference: 'app:u42' },
        { id: b.memory_id, revision: 1, verdict: 'reject' },
      ]);
      assert.deepEqual(out.map((o) => [o.verdict, o.approved_as]), [['approve', { id: a.memory_id, revision: 2 }], ['reject', null]]);
      assert.deepEqual(out[0].reviewed, { id: a.memory_id, revision: 1 });
      const listed = new Map((await engram.list(scope)).map((m) => [m.id, m]));
      assert.equal(listed.get(a.memory_id).status, 'active');
      assert.equal(listed.get(a.memory_id).revision, 2);
      assert.equal(listed.get(a.memory_id).source.ref, 'app:u42');
      assert.equal(listed.get(b.memory_id).status, 'retracted');
      // One item in, one outcome out; a reviewed revision is not pending any more.
      await assert.rejects(engram.review({ id: b.memory_id, revision: 1, verdict: 'approve' }), (e) => e.kind === 'invalid-input' && e.field === 'revision');
    });
  }

  for (const [name, make] of [['MemoryStore', () => new MemoryStore()], ['SqliteStore', () => new SqliteStore(':memory:')]]) {
    test(`operations are recorded by id and looked up exactly (${name})`, async () => {
      const engram = await open({ store: make() });
      const refund = (status, extra = {}) => ({
        operation_id: 'op_891', scope: { ...scope, thread: 't1' }, tool: 'issue_refund', status,
        idempotency_key: 'payment-42-order-991', ...extra,
      });
      assert.deepEqual(await engram.recordOperations(refund('submitted')),
        { action: 'created', operation_id: 'op_891', revision: 1, status: 'submitted' });
      const out = await engram.recordOperations([refund('submitted'), refund('succeeded', { result_ref: 'artifact://r/op_891.json' })]);
      assert.deepEqual(out.map((r) => [r.action, r.revision, r.status]), [['duplicate', 1, 'submitted'], ['updated', 2, 'succeeded']]);
      // A final status never changes; the item and field are named, nothing is written.
      await assert.rejects(
        engram.recordOperations([refund('submitted', { operation_id: 'op_892' }), refund('failed')]),
        (e) => e.kind === 'invalid-input' && e.field === 'status' && e.index === 1 && /already succeeded/.test(e.detail),
      );
      const [own, other] = await engram.getOperations([
        { operation_id: 'op_891', scope },
        { operation_id: 'op_892', scope },
      ]);
      assert.deepEqual([own.found, own.revision, own.status, own.result_ref, own.scope.thread], [true, 2, 'succeeded', 'artifact://r/op_891.json', 't1']);
      assert.deepEqual(own.history.map((h) => h.status), ['submitted', 'succeeded']);
      assert.deepEqual(other, { found: false, history: [], operation_id: 'op_892', revision: 0 });
      // Another user's lookup finds nothing; a principal pinned to that user may not look into u42's scope.
      assert.equal((await engram.getOperations({ operation_id: 'op_891', scope: { tenant: 'acme', user: 'u7' } })).found, false);
      await assert.rejects(
        engram.getOperations({ operation_id: 'op_891', scope }, { principal: { tenant: 'acme', user: 'u7' } }),
        (e) => e.kind === 'permission-denied',
      );
      // Not a memory: recall never returns it.
      const r = await engram.recall({ query: 'issue_refund op_891 refund', scope, explain: true });
      assert.deepEqual([r.results, r.not_admitted ?? []], [[], []]);
    });
  }

  test('the SQLite store persists across handles', async () => {
    const path = join(scratch, 'persist.db');
    const first = await open({ store: new SqliteStore(path) });
    const d = await first.remember(fact);
    first.close();
    const second = await open({ store: new SqliteStore(path) });
    const listed = await second.list({ tenant: 'acme' });
    assert.deepEqual(listed.map((m) => m.id), [d.memory_id]);
    second.close();
  });

  test('the clock can be a function', async () => {
    let now = NOW;
    const engram = await open({ now: () => now });
    now = '2026-09-01T08:00:00Z';
    const d = await engram.remember(fact);
    const [m] = await engram.history(d.memory_id);
    assert.equal(m.observed_at, '2026-09-01T08:00:00Z');
  });

  test('an Engram is only made by Engram.open', () => {
    assert.throws(() => new Engram({ principal: 'acme' }), /Engram\.open/);
  });

  test('the WASI stubs grant nothing', () => {
    const stubs = wasiStubs();
    assert.throws(() => stubs['wasi:cli/environment'].getEnvironment(), /grants no WASI capability/);
    assert.throws(() => stubs['wasi:cli/stderr'].getStderr(), /grants no WASI capability/);
    assert.throws(() => new stubs['wasi:io/streams'].OutputStream(), /grants no WASI capability/);
  });

  test('instants round-trip in their own offset', async () => {
    const engram = await open();
    const fact = { scope: { tenant: 'acme' }, source: { kind: 'system', ref: 'cmdb-1' } };
    for (const [i, s] of ['2026-08-01T10:00:00+08:00', '2026-08-01T02:00:00Z', '2026-08-01T10:00:00.250-03:30'].entries()) {
      const d = await engram.remember({ ...fact, text: `service-${i} uses PostgreSQL 16`, observed_at: s });
      assert.equal((await engram.history(d.memory_id)).at(-1).observed_at, s);
    }
    await assert.rejects(engram.remember({ ...fact, text: 'x uses y', observed_at: '2026-02-30T00:00:00Z' }), (e) => e instanceof EngramError && e.field === 'observed_at' && e.index === 0);
    await assert.rejects(open({ now: 'yesterday' }), (e) => e instanceof EngramError && e.field === 'now');
  });
});
