#!/usr/bin/env node
// A short agent turn through the Node host: remember what the user and the
// systems said, recall what matters for a question, and pack a context.
//
//   npm run example                 # in-memory store
//   node example.js memory.db       # persistent SQLite store

import { Engram, EngramError, MemoryStore } from './src/index.js';

const dbPath = process.argv[2];
const store = dbPath ? new (await import('./src/stores/sqlite.js')).SqliteStore(dbPath) : new MemoryStore();

// `component` is transpiled into ./gen on first use (needs the jco dev
// dependency); afterwards the bindings are reused.
const engram = await Engram.open({
  component: new URL('../../target/engram-memory.wasm', import.meta.url).pathname,
  principal: { tenant: 'acme' },
  store,
  now: '2026-08-01T10:00:00+08:00', // a fixed clock: the run is reproducible
});

const scope = { tenant: 'acme', user: 'u42' };
const decisions = await engram.remember([
  { id: 'name', text: '以后请叫我林工', scope, source: { kind: 'user', ref: 'evt-1001' } },
  {
    id: 'db',
    text: 'payment-service uses PostgreSQL 16',
    scope: { tenant: 'acme' },
    source: { kind: 'system', ref: 'cmdb-42' },
    subject: 'service:payment-service',
    predicate: 'database',
    object: 'PostgreSQL 16',
    entities: { service: 'payment-service' },
  },
  { id: 'secret', text: 'the prod password is hunter2', scope, source: { kind: 'user', ref: 'evt-1002' } },
]);
for (const d of decisions) {
  console.log(`${d.id.padEnd(7)} → ${d.kind}/${d.disposition} (${d.action})  ${d.reasons.join('; ')}`);
}

const recalled = await engram.recall({ query: 'which database does payment-service use?', scope, k: 3 });
for (const r of recalled.results) console.log(`recall: ${r.score.toFixed(3)}  ${r.text}`);

try {
  const packed = await engram.pack({ budget: 300, scope, query: 'upgrade the payment-service database', system: 'You are a careful SRE.' });
  console.log(`\npacked ${packed.tokens}/${packed.budget} tokens:\n${packed.text}`);
} catch (e) {
  if (!(e instanceof EngramError)) throw e;
  console.log(`pack: ${e.message}`);
}
engram.close();
