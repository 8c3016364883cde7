// Engram for browsers (and other runtimes with `fetch` and WebAssembly):
// the same component, bindings and host as the Node entry, with the
// core modules fetched and compiled by the page, and two stores: in memory
// and on IndexedDB.

import { Engram as Core } from './core.js';
import { instantiate } from '../gen/engram.js';

export { EngramError, EngramTrapError, StoreError } from './errors.js';
export { MemoryStore } from './stores/memory.js';
export { IndexedDbStore } from './stores/indexeddb.js';

/** Compiled core modules per base URL, shared by every `Engram` of the page. */
const COMPILED = new Map();

async function compile(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url}: HTTP ${response.status}`);
  // compileStreaming needs the application/wasm type; a server that sends
  // another still works, only slower.
  if (WebAssembly.compileStreaming && response.headers.get('content-type')?.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

function compiledModules(base) {
  let modules = COMPILED.get(base.href);
  if (!modules) {
    modules = (async () => {
      const response = await fetch(new URL('component.json', base));
      if (!response.ok) throw new Error(`cannot fetch ${new URL('component.json', base)}: HTTP ${response.status}`);
      const manifest = await response.json();
      const names = manifest.files.filter((f) => f.endsWith('.wasm'));
      const compiled = await Promise.all(names.map((n) => compile(new URL(n, base))));
      return { manifest, modules: new Map(names.map((n, i) => [n, compiled[i]])) };
    })();
    COMPILED.set(base.href, modules);
    modules.catch(() => COMPILED.delete(base.href));
  }
  return modules;
}

export class Engram extends Core {
  /**
   * Browser option besides the common ones (`principal`, `store`, `now`):
   * `wasmBase`, the URL of the directory holding `component.json` and the
   * core `.wasm` files (default: `../gen/` next to this module).
   */
  static async load({ wasmBase } = {}) {
    const base = wasmBase === undefined ? new URL('../gen/', import.meta.url) : new URL(wasmBase, globalThis.location?.href);
    const { manifest, modules } = await compiledModules(base);
    return {
      instantiate,
      getCoreModule: (name) => modules.get(name),
      component: { sha256: manifest.sha256, source: manifest.source, jco: manifest.jco },
    };
  }
}
