#!/usr/bin/env node
// Per-call overhead of the Node host: a trivial `info()` and a small
// `recall` (20 memories, k = 5), timed in a loop after warm-up; medians.
//
//   node bench.js [--component FILE] [--iterations N]
//
// It transpiles the component twice into a scratch directory — once as jco
// emits it and once with the JCO_DEBUG check hoisted (what `npm run
// transpile` writes) — and times the raw jco export, the `Engram` method,
// and both stores.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { Engram, MemoryStore } from './src/index.js';
import { DEFAULT_COMPONENT, transpileComponent } from './src/transpile.js';
import { SqliteStore } from './src/stores/sqlite.js';
import { wasiStubs } from './src/wasi.js';

const { values } = parseArgs({
  options: { component: { type: 'string', default: DEFAULT_COMPONENT }, iterations: { type: 'string', default: '2000' } },
});
const N = Number(values.iterations);
const NOW = '2026-08-01T10:00:00+08:00';

function median(f, n) {
  for (let i = 0; i < Math.min(200, n); i += 1) f();
  const t = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const s = process.hrtime.bigint();
    f();
    t[i] = Number(process.hrtime.bigint() - s) / 1000;
  }
  t.sort();
  return t[n >> 1];
}

async function medianAsync(f, n) {
  for (let i = 0; i < Math.min(200, n); i += 1) await f();
  const t = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const s = process.hrtime.bigint();
    await f();
    t[i] = Number(process.hrtime.bigint() - s) / 1000;
  }
  t.sort();
  return t[n >> 1];
}

/** The transpiled component instantiated with inert imports: jco's own cost. */
async function bareInstance(dir) {
  const { instantiate } = await import(pathToFileURL(join(dir, 'engram.js')).href);
  const modules = new Map();
  for (const name of ['engram.core.wasm', 'engram.core2.wasm', 'engram.core3.wasm']) {
    modules.set(name, await WebAssembly.compile(readFileSync(join(dir, name))));
  }
  const fail = () => {
    throw new Error('not used by info()');
  };
  const store = Object.fromEntries(
    ['currentPrincipal', 'find', 'revisions', 'stats', 'search', 'commit', 'tombstones', 'countEvents', 'sessionLog'].map((n) => [n, fail]),
  );
  const root = await instantiate((n) => modules.get(n), {
    ...wasiStubs(),
    'engram:memory/types': {},
    'engram:memory/clock': { now: fail },
    'engram:memory/store': store,
  });
  return root.policy;
}

const scope = { tenant: 'acme', user: 'u42' };
const services = ['payment', 'order', 'billing', 'search', 'auth'];
const candidates = [];
for (let i = 0; i < 20; i += 1) {
  const svc = `${services[i % 5]}-service`;
  candidates.push({
    id: `c${i}`,
    text: `${svc} setting ${i} is value-${i}`,
    scope: { tenant: 'acme' },
    source: { kind: 'system', ref: `cmdb-${i}` },
    subject: `service:${svc}`,
    predicate: `setting-${i}`,
    object: `value-${i}`,
    entities: { service: svc },
  });
}
const query = { id: 'q', query: 'what is the setting of payment-service?', scope, k: 5 };

const scratch = mkdtempSync(join(tmpdir(), 'engram-bench-'));
const rows = [];
try {
  for (const hoistDebug of [false, true]) {
    const dir = join(scratch, hoistDebug ? 'hoisted' : 'stock');
    await transpileComponent(values.component, dir, { hoistDebug });
    for (const [storeName, store] of [['MemoryStore', new MemoryStore()], ['SqliteStore', new SqliteStore(':memory:')]]) {
      const engram = await Engram.open({ principal: 'acme', store, now: NOW, bindings: dir });
      for (const c of candidates) await engram.remember(c);
      const label = `${hoistDebug ? 'hoisted' : 'stock'} JCO_DEBUG check, ${storeName}`;
      if (storeName === 'MemoryStore') {
        // The bare jco export, on an instance of its own (no store needed).
        const policy = await bareInstance(dir);
        rows.push([label, 'bare jco info()', median(() => policy.info(), N)]);
      }
      rows.push([label, 'Engram#info()', await medianAsync(() => engram.info(), N)]);
      const witQuery = { id: 'q', text: query.query, scope, k: 5, asOf: undefined, kinds: [], entities: [], embedding: undefined, sensitivityCeiling: undefined, explainRejected: false };
      rows.push([label, 'callRaw recall (WIT values)', await medianAsync(() => engram.callRaw((p) => p.recall([witQuery])), Math.min(N, 1000))]);
      rows.push([label, 'Engram#recall (JSON in/out)', await medianAsync(() => engram.recall(query), Math.min(N, 1000))]);
      engram.close();
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const width = Math.max(...rows.map((r) => r[0].length));
console.log(`Node ${process.version}, ${N} iterations (recall: ${Math.min(N, 1000)}), median µs per call`);
for (const [label, what, us] of rows) console.log(`${label.padEnd(width)}  ${what.padEnd(28)} ${us.toFixed(1).padStart(8)} µs`);
