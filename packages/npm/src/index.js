// Engram for Node.js: the memory-policy WebAssembly component, run through
// jco, with stores implemented in JavaScript.

export { Engram, DEFAULT_BINDINGS } from './node.js';
export { EngramError, EngramTrapError, StoreError } from './errors.js';
export { MemoryStore } from './stores/memory.js';

// The persistent store needs the native better-sqlite3 module, so it has its
// own entry point: import { SqliteStore } from 'engram-memory/sqlite'.
