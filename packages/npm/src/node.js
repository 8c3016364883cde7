// The Node.js loader: the jco bindings and core modules from files — by
// default the ones this package ships in `gen/` (transpiled from the
// component at build time, so jco is not needed at run time).

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Engram as Core } from './core.js';

/** The bindings shipped with the package. */
export const DEFAULT_BINDINGS = fileURLToPath(new URL('../gen/', import.meta.url));

/** The file name stem of the generated module (`engram.js`). */
export const MODULE_NAME = 'engram';

/** Compiled core modules, shared by every `Engram` on the same bindings. */
const COMPILED = new Map();

function compiledModules(dir, manifest) {
  const key = `${dir}\u0000${manifest.sha256}`;
  let modules = COMPILED.get(key);
  if (!modules) {
    modules = (async () => {
      const out = new Map();
      for (const name of manifest.files.filter((f) => f.endsWith('.wasm'))) {
        out.set(name, await WebAssembly.compile(await readFile(join(dir, name))));
      }
      return out;
    })();
    COMPILED.set(key, modules);
    modules.catch(() => COMPILED.delete(key));
  }
  return modules;
}

export class Engram extends Core {
  /**
   * Node options besides the common ones (`principal`, `store`, `now`):
   * `bindings`, a directory of jco bindings (default: the package's own);
   * `component`, a `.wasm` of your own, transpiled into `bindings` first
   * when that holds bindings of another file (needs the
   * `@bytecodealliance/jco` package).
   */
  static async load({ component, bindings } = {}) {
    if (component !== undefined && bindings === undefined) {
      throw new TypeError('Engram.open: `component` needs a `bindings` directory to transpile it into');
    }
    const dir = resolve(bindings ?? DEFAULT_BINDINGS);
    if (component !== undefined) {
      const { transpileComponent } = await import('./transpile.js');
      await transpileComponent(component, dir);
    }
    let manifest;
    try {
      manifest = JSON.parse(await readFile(join(dir, 'component.json'), 'utf8'));
    } catch {
      throw new Error(
        `no transpiled bindings in ${dir}: build the package (\`npm run build\`) ` +
          'or pass {component, bindings} to Engram.open',
      );
    }
    // Keyed by the component's hash: bindings re-transpiled into the same
    // directory load as a new module, not the cached old one.
    const url = pathToFileURL(join(dir, `${MODULE_NAME}.js`));
    url.searchParams.set('sha256', manifest.sha256);
    const { instantiate } = await import(url.href);
    const modules = await compiledModules(dir, manifest);
    return {
      instantiate,
      getCoreModule: (name) => modules.get(name),
      component: { sha256: manifest.sha256, source: manifest.source, jco: manifest.jco },
    };
  }
}
