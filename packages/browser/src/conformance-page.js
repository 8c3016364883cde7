// The shared conformance scenario in the browser: tests/tests/hosts.rs
// (through packages/browser/test/run.js) calls `runConformance` with the
// scenario and a store kind and compares the output with the Rust host's.

import { Engram, IndexedDbStore, MemoryStore } from './lib/engram-memory.js';
import { checkStore, normalise, runScenario } from './lib/conformance.js';

const DB = 'engram-conformance';

window.runConformance = async (scenario, storeKind) => {
  let store;
  if (storeKind === 'memory') {
    store = new MemoryStore();
  } else if (storeKind === 'indexeddb') {
    await IndexedDbStore.destroy(DB);
    store = await IndexedDbStore.open(DB);
  } else {
    throw new Error(`unknown store kind ${storeKind}`);
  }
  const result = await runScenario(scenario, { Engram, store, host: 'browser' });
  result.store = storeKind;
  // The tenancy checks, each on a fresh store of this kind.
  let n = 0;
  const rows = await Engram.open({ principal: scenario.principal });
  result.store_checks = await checkStore(async () => {
    if (storeKind === 'memory') return new MemoryStore();
    const name = `${DB}-checks-${(n += 1)}`;
    await IndexedDbStore.destroy(name);
    return IndexedDbStore.open(name);
  }, rows.codec);
  rows.close();
  if (storeKind === 'indexeddb') {
    // What IndexedDB holds, read back by a new store: every `list` step
    // of the scenario run again at the scenario's end state.
    const again = await IndexedDbStore.open(DB);
    const engram = await Engram.open({ principal: scenario.principal, store: again, now: scenario.now });
    result.reopened = {};
    for (const step of scenario.steps.filter((s) => s.op === 'list')) {
      result.reopened[step.name] = normalise(await engram.list(step.scope, step.statuses ?? [], { principal: step.principal ?? scenario.principal }));
    }
    engram.close();
  }
  return result;
};
document.getElementById('status').textContent = 'ready';
window.conformanceReady = true;
