// engram-memory for Node.js.
import type { EngramBase, OpenOptions } from './api.js';

export * from './contract.js';
export * from './api.js';

export interface NodeOpenOptions extends OpenOptions {
  /** A directory of jco bindings; default: the package's own `gen/`. */
  bindings?: string;
  /** A component of your own, transpiled into `bindings` (needs @bytecodealliance/jco). */
  component?: string;
}

export declare class Engram extends EngramBase {
  static open(options: NodeOpenOptions): Promise<Engram>;
}

/** The bindings shipped with the package. */
export declare const DEFAULT_BINDINGS: string;
