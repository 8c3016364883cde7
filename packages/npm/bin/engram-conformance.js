#!/usr/bin/env node
// Runs the shared conformance scenario on this package in Node and prints
// (or writes) every step's normalised output as JSON, with the names of the
// store checks (`src/store-checks.js`) its kind of store passed.
//
//   engram-conformance --scenario PATH [--store memory|sqlite|sqlite:FILE]
//                      [--bindings DIR] [--component FILE] [--out FILE]

import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { Engram, MemoryStore } from '../src/index.js';
import { runScenario } from '../src/conformance.js';
import { checkStore } from '../src/store-checks.js';

async function openStore(spec) {
  if (spec === 'memory') return new MemoryStore();
  if (spec === 'sqlite' || spec.startsWith('sqlite:')) {
    const { SqliteStore } = await import('../src/stores/sqlite.js');
    return new SqliteStore(spec === 'sqlite' ? ':memory:' : spec.slice('sqlite:'.length));
  }
  throw new Error(`--store must be memory, sqlite or sqlite:FILE (got ${JSON.stringify(spec)})`);
}

const { values } = parseArgs({
  options: {
    scenario: { type: 'string' },
    store: { type: 'string', default: 'memory' },
    bindings: { type: 'string' },
    component: { type: 'string' },
    out: { type: 'string' },
  },
});
try {
  if (!values.scenario) throw new Error('--scenario PATH is required (tests/conformance/scenario.json in the repository)');
  const scenario = JSON.parse(readFileSync(values.scenario, 'utf8'));
  const store = await openStore(values.store);
  const load = { bindings: values.bindings, component: values.component };
  const result = await runScenario(scenario, { Engram, store, load, host: 'node' });
  result.store = values.store;
  // The tenancy checks on fresh stores of the same kind (in memory).
  const kind = values.store === 'memory' ? 'memory' : 'sqlite';
  const codec = await Engram.open({ ...load, principal: scenario.principal });
  try {
    result.store_checks = await checkStore(() => openStore(kind), codec.codec);
  } finally {
    codec.close();
  }
  const text = `${JSON.stringify(result, null, 1)}\n`;
  if (values.out) writeFileSync(values.out, text);
  else process.stdout.write(text);
} catch (e) {
  console.error(`conformance (node): ${e.stack ?? e}`);
  process.exitCode = 1;
}
