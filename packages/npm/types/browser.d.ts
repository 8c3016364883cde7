// engram-memory/browser: the same component and wire layer for browsers,
// with the core modules fetched by the page.
import type { EngramBase, MemoryStore, OpenOptions } from './api.js';

export * from './contract.js';
export * from './api.js';

export interface BrowserOpenOptions extends OpenOptions {
  /** URL of the directory holding component.json and the core .wasm files; default `../gen/` beside the module. */
  wasmBase?: string | URL;
}

export declare class Engram extends EngramBase {
  static open(options: BrowserOpenOptions): Promise<Engram>;
}

/** A MemoryStore whose commits are written through to IndexedDB. */
export declare class IndexedDbStore extends MemoryStore {
  /**
   * `fingerprintKey`: the secret tombstone keys are derived from; default:
   * one kept in the database `<name>:fingerprint-key`.
   */
  static open(name?: string, options?: { indexedDB?: IDBFactory; fingerprintKey?: Uint8Array }): Promise<IndexedDbStore>;
  static destroy(name?: string, options?: { indexedDB?: IDBFactory }): Promise<void>;
  /** Resolves once every commit so far is in IndexedDB. */
  flush(): Promise<void>;
}
