#!/usr/bin/env node
// Runs the shared conformance scenario (tests/conformance/scenario.json) on
// the Node host and prints every step's normalised output as JSON. The Rust
// test tests/tests/hosts.rs runs the same scenario on the Rust and Python
// hosts and requires identical output.
//
//   node conformance.js [--scenario PATH] [--store memory|sqlite|sqlite:FILE]
//                       [--bindings DIR] [--component FILE] [--out FILE]

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { Engram, EngramError, MemoryStore } from './src/index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Round every non-integer number to 6 decimals (the same IEEE steps in every host). */
export function normalise(value) {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Math.floor(value * 1e6 + 0.5) / 1e6;
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalise(v);
    return out;
  }
  return value;
}

/** Replace "$ID" in `id`/`memory_id` fields with the memory id an earlier step gave ID. */
function resolveIds(value, ids) {
  if (Array.isArray(value)) return value.map((v) => resolveIds(v, ids));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      const ref = (k === 'id' || k === 'memory_id') && typeof v === 'string' && v.startsWith('$');
      out[k] = ref ? (ids.get(v.slice(1)) ?? v) : resolveIds(v, ids);
    }
    return out;
  }
  return value;
}

export async function runScenario(scenario, { store, bindings, component }) {
  let now = scenario.now;
  const engram = await Engram.open({ principal: scenario.principal, store, bindings, component, now: () => now });
  const ids = new Map();
  const steps = [];
  try {
    for (const step of scenario.steps) {
      now = step.now ?? scenario.now;
      const options = { principal: step.principal ?? scenario.principal };
      const s = resolveIds(step, ids);
      const entry = { name: step.name, op: step.op };
      try {
        let ok;
        switch (step.op) {
          case 'remember':
          case 'classify':
            ok = await engram[step.op](s.candidates, options);
            if (step.op === 'remember') for (const d of ok) if (d.id !== null && d.memory_id !== null) ids.set(d.id, d.memory_id);
            break;
          case 'import':
            ok = await engram.importRecords(s.records, options);
            for (const r of ok) ids.set(r.external_id, r.memory_id);
            break;
          case 'recall':
            ok = await engram.recall(s.queries, options);
            break;
          case 'pack':
            ok = await engram.pack(s.request, options);
            break;
          case 'forget':
            ok = await engram.forget(s.selectors, options);
            break;
          case 'sweep':
            ok = await engram.sweep(s.scope, options);
            break;
          case 'list':
            ok = await engram.list(s.scope, s.statuses ?? [], options);
            break;
          case 'history':
            ok = await engram.history(s.id, options);
            break;
          default:
            throw new Error(`unknown scenario op ${JSON.stringify(step.op)}`);
        }
        entry.ok = normalise(ok);
      } catch (e) {
        if (!(e instanceof EngramError)) throw e;
        entry.error = { kind: e.kind, message: e.detail, field: e.field ?? null, index: e.index ?? null };
      }
      steps.push(entry);
    }
  } finally {
    engram.close();
  }
  return { host: 'node', component_sha256: engram.component.sha256, steps };
}

async function openStore(spec) {
  if (spec === 'memory') return new MemoryStore();
  if (spec === 'sqlite' || spec.startsWith('sqlite:')) {
    const { SqliteStore } = await import('./src/stores/sqlite.js');
    return new SqliteStore(spec === 'sqlite' ? ':memory:' : spec.slice('sqlite:'.length));
  }
  throw new Error(`--store must be memory, sqlite or sqlite:FILE (got ${JSON.stringify(spec)})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', default: resolve(here, '../../tests/conformance/scenario.json') },
      store: { type: 'string', default: 'memory' },
      bindings: { type: 'string' },
      component: { type: 'string' },
      out: { type: 'string' },
    },
  });
  try {
    const scenario = JSON.parse(readFileSync(values.scenario, 'utf8'));
    const store = await openStore(values.store);
    const result = await runScenario(scenario, { store, bindings: values.bindings, component: values.component });
    result.store = values.store;
    const text = `${JSON.stringify(result, null, 1)}\n`;
    if (values.out) writeFileSync(values.out, text);
    else process.stdout.write(text);
  } catch (e) {
    console.error(`conformance (node): ${e.stack ?? e}`);
    process.exitCode = 1;
  }
}
