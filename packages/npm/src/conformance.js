// The shared conformance scenario (tests/conformance/scenario.json) run on
// this package: every step's normalised output as JSON. The Rust test
// tests/tests/hosts.rs runs the same scenario on the Rust host, this package
// (installed from its tarball, and in Chromium) and the Python wheel, and
// requires identical output. Platform-neutral: `bin/engram-conformance.js`
// runs it in Node, the browser test page in Chromium.

import { EngramError } from './errors.js';

// The stores' tenancy checks travel with the scenario (the browser bundles
// this module).
export { checkStore } from './store-checks.js';

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

/**
 * Run `scenario` on `Engram` (the Node or the browser class) with `store`;
 * `load` holds the platform's loader options (`bindings`, `wasmBase`, …).
 */
export async function runScenario(scenario, { Engram, store, load = {}, host = 'node' }) {
  let now = scenario.now;
  const engram = await Engram.open({ ...load, principal: scenario.principal, store, now: () => now });
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
          case 'review':
            ok = await engram.review(s.items, options);
            break;
          case 'record-operations':
            ok = await engram.recordOperations(s.records, options);
            break;
          case 'get-operations':
            ok = await engram.getOperations(s.lookups, options);
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
  return { host, component_sha256: engram.component.sha256, steps };
}

