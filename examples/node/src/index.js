// Engram for Node.js: the memory-policy WebAssembly component, run through
// jco, with stores implemented in JavaScript.

export { Engram } from './engram.js';
export { EngramError, EngramTrapError, StoreError } from './errors.js';
export { MemoryStore } from './stores/memory.js';
export { transpileComponent, DEFAULT_BINDINGS, DEFAULT_COMPONENT } from './transpile.js';
export { parseDatetime, formatDatetime } from './wire.js';

// The persistent store needs the native better-sqlite3 module, so it has its
// own entry point: import { SqliteStore } from '@engram/node-host/sqlite'.
