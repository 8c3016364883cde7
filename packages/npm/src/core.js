// The platform-neutral host: supplies the jco-transpiled Engram component's
// imports (a store opened per principal, a clock, and WASI stubs that grant
// nothing) and exposes the policy with the JSON shapes of the `engram` CLI.
// It is a transport: every method hands its argument, as JSON, to the
// component's `json` export (the contract, written once in Rust) and parses
// the JSON Lines it answers.
// How the bindings and core modules are loaded is the platform's: `Engram`
// in `index.js` (Node: files) and in `browser.js` (fetch) extend this class
// with a static `load(options)`.

import { EngramError, EngramTrapError, StoreError } from './errors.js';
import { deriveKey, ownerOf, seesOwner } from './fingerprint.js';
import { checkScope, denial } from './stores/common.js';
import { MemoryStore } from './stores/memory.js';
import { wasiStubs } from './wasi.js';

/** A `principal` option: a tenant name or `{tenant, user?, project?}`. */
function toPrincipal(p) {
  if (typeof p === 'string' && p.length > 0) return { tenant: p, user: undefined, project: undefined };
  if (p && typeof p === 'object' && typeof p.tenant === 'string') {
    const opt = (v, name) => {
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') throw EngramError.input(`principal.${name}`, 'expected a string');
      return v;
    };
    return { tenant: p.tenant, user: opt(p.user, 'user'), project: opt(p.project, 'project') };
  }
  throw EngramError.input('principal', 'expected a tenant name or {tenant, user?, project?}');
}

function fromDate(d, field) {
  if (Number.isNaN(d.getTime())) throw EngramError.input(field, 'is an invalid Date');
  return { epochMs: BigInt(d.getTime()), offsetMinutes: -d.getTimezoneOffset() };
}

const systemNow = () => fromDate(new Date(), 'now');

/**
 * A WIT `datetime` from a Date, a `{epochMs, offsetMinutes}` record, or an
 * RFC 3339 string (parsed by the component's contract, `parse`).
 */
function toDatetime(value, field, parse) {
  if (value instanceof Date) return fromDate(value, field);
  if (typeof value === 'string') {
    try {
      return parse(value);
    } catch (e) {
      if (e?.payload?.tag === 'invalid-input') throw EngramError.input(field, e.payload.val.message);
      throw e;
    }
  }
  if (value && typeof value === 'object' && 'epochMs' in value) {
    return { epochMs: BigInt(value.epochMs), offsetMinutes: Number(value.offsetMinutes ?? 0) };
  }
  throw EngramError.input(field, 'expected an RFC 3339 string, a Date or {epochMs, offsetMinutes}');
}

/** A clock from the `now` option: fixed instant, function, or the system clock. */
function toClock(now, parse) {
  if (now === undefined || now === null) return systemNow;
  if (typeof now === 'function') return () => toDatetime(now(), 'now()', parse);
  const fixed = toDatetime(now, 'now', parse);
  return () => fixed;
}

/** The values of an operation's JSON Lines. */
const parseLines = (text) => text.split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line));

const POLICY_ERRORS = new Set(['invalid-input', 'unsupported', 'not-found', 'permission-denied', 'conflict', 'store', 'limit-exceeded']);

/**
 * A component error (the WIT `error` of a `result`) as jco throws it: its
 * `ComponentError` with the variant as `payload`. Recognised by shape, not
 * class name, which a minifier renames.
 */
function isComponentError(e) {
  return e instanceof Error && !(e instanceof StoreError) && Object.hasOwn(e, 'payload') &&
    typeof e.payload?.tag === 'string' && POLICY_ERRORS.has(e.payload.tag);
}

/** Only `Engram.open` constructs (an unloaded `Engram` could not run a call). */
const OPENING = Symbol('Engram.open');

/** One item or an array of them, as the JSON array the contract reads. */
const batch = (value) => JSON.stringify(Array.isArray(value) ? value : [value]);
/** An array answers an array, one item one value. */
const oneOrMany = (given, values) => (Array.isArray(given) ? values : values[0]);

export class Engram {
  #instantiate;
  #getCoreModule;
  #store;
  #now;
  #clock;
  /** The row body's encoder and decoder (the component's `json` export). */
  #codec = null;
  #principal;
  /** The principal of the call in progress (the store handle's owner). */
  #active = null;
  #policy = null;
  #ready = null;
  #traps = 0;
  #lastTrap = null;

  /**
   * Load the component and return a ready `Engram`.
   *
   * @param {object} options
   * @param {string|{tenant:string,user?:string,project?:string}} options.principal
   *   who this handle acts for; the store refuses every scope outside it.
   * @param {object} [options.store] a store (`MemoryStore`, `SqliteStore`,
   *   `IndexedDbStore`, or your own with the same methods); default: a new
   *   `MemoryStore`.
   * @param {string|Date|Function} [options.now] fix the clock (RFC 3339 or
   *   Date) or supply one (a function returning either); default: system time.
   * Further options belong to the platform's `load` (Node: `component`,
   * `bindings`; browser: `wasmBase`).
   */
  static async open(options = {}) {
    const engram = new this(options, OPENING);
    const loaded = await this.load(options);
    engram.#instantiate = loaded.instantiate;
    engram.#getCoreModule = loaded.getCoreModule;
    engram.component = loaded.component;
    // A second instance, never in a policy call, for what must run while
    // one is in progress: the clock's parsing and the stores' row bodies.
    const codec = (await engram.#instantiate(engram.#getCoreModule, engram.#imports())).json;
    engram.#clock = toClock(engram.#now, (text) => codec.parseDatetime(text));
    engram.#codec = {
      encodeMemory: (m) => codec.encodeMemory(m),
      decodeMemories: (bodies) => codec.decodeMemories(bodies),
    };
    engram.#store.attachCodec?.(engram.#codec);
    engram.#ready = engram.#newInstance();
    await engram.#ready;
    return engram;
  }

  /**
   * The platform's loader: `{instantiate, getCoreModule(name), component:
   * {sha256, source, jco}}` for the jco bindings (`--instantiation async`).
   */
  static async load() {
    throw new Error("import Engram from 'engram-memory' (Node) or 'engram-memory/browser', not from the core module");
  }

  /** Use `Engram.open`. */
  constructor({ principal, store, now } = {}, opening = undefined) {
    if (opening !== OPENING) throw new TypeError('use `await Engram.open(options)` to create an Engram');
    this.#principal = toPrincipal(principal);
    this.#store = store ?? new MemoryStore();
    this.#now = now;
    this.#clock = systemNow;
  }

  #imports() {
    const principal = () => {
      if (this.#active === null) throw new Error('store called outside a policy call');
      return this.#active;
    };
    const store = this.#store;
    const scoped = (scope) => {
      const p = principal();
      checkScope(p, scope);
      return p;
    };
    // A `StoreError` thrown here reaches the guest as `store-error`; any
    // other exception (a bug in a store) traps the call.
    return {
      ...wasiStubs(),
      'engram:memory/types': {},
      'engram:memory/clock': { now: () => this.#clock() },
      'engram:memory/store': {
        currentPrincipal: () => {
          const p = principal();
          return { tenant: p.tenant, user: p.user, project: p.project };
        },
        find: (filter, limit) => (scoped(filter.scope), store.find(filter, limit)),
        revisions: (id) => store.revisions(principal(), id),
        stats: (filter, terms) => (scoped(filter.scope), store.stats(filter, terms)),
        search: (filter, terms, limit) => (scoped(filter.scope), store.search(filter, terms, limit)),
        commit: (ops) => {
          const p = principal();
          for (const op of ops) {
            if (op.tag === 'insert' || op.tag === 'update') checkScope(p, op.val.memory.scope);
            else if (op.tag === 'append' || op.tag === 'scrub-events') checkScope(p, op.val.scope);
            else if (op.tag === 'tombstone') {
              // Owned by the principal or narrower: never another user's
              // scope, nor the whole tenant for a user-pinned handle.
              checkScope(p, op.val.scope);
              if (op.val.scope.thread !== undefined || op.val.scope.agent !== undefined) {
                throw new StoreError('invalid', "a tombstone is owned by a tenant, user and project: its thread and agent must be unset");
              }
            }
          }
          return store.commit(p, ops);
        },
        tombstones: (scope) => (scoped(scope), store.tombstones(ownerOf(scope))),
        fingerprintKey: (scope) => {
          const p = principal();
          const owner = ownerOf(scope);
          if (!seesOwner(p, owner)) {
            throw new StoreError('denied', denial(p, owner) ?? "that owner is outside this store handle's principal");
          }
          return deriveKey(store.fingerprintSecret(), owner);
        },
        countEvents: (scope, kind, since) => (scoped(scope), store.countEvents(scope, kind, since)),
        sessionLog: (scope, session, kind) => (scoped(scope), store.sessionLog(scope, session, kind)),
      },
    };
  }

  async #newInstance() {
    const root = await this.#instantiate(this.#getCoreModule, this.#imports());
    this.#policy = root;
  }

  /** Run one export for `principal`; policy errors and traps come back typed. */
  async #call(options, f) {
    while (this.#policy === null) {
      try {
        await this.#ready;
      } catch (e) {
        // Re-instantiating after a trap failed: try again on the next call.
        this.#ready = this.#newInstance();
        this.#ready.catch(() => {});
        throw new EngramTrapError(`re-instantiating the component failed: ${e.message}`, { cause: e });
      }
    }
    const policy = this.#policy;
    this.#active = options?.principal !== undefined ? toPrincipal(options.principal) : this.#principal;
    let out;
    try {
      out = f(policy);
    } catch (e) {
      if (isComponentError(e)) throw EngramError.fromWit(e.payload);
      // A trap, or an exception that unwound through the guest: its state
      // can no longer be trusted (and jco refuses to re-enter a trapped
      // instance). Replace it and report the failure.
      this.#policy = null;
      this.#traps += 1;
      this.#lastTrap = e;
      this.#ready = this.#newInstance();
      this.#ready.catch(() => {});
      throw new EngramTrapError(e instanceof Error ? e.message : String(e), { cause: e });
    } finally {
      this.#active = null;
    }
    // A store that persists asynchronously (IndexedDB) has taken the
    // commit in memory; the call resolves only once it is durable.
    if (typeof this.#store.flush === 'function') {
      try {
        await this.#store.flush();
      } catch (e) {
        throw new EngramError('store', `the store could not persist the commit: ${e?.message ?? e}`);
      }
    }
    return out;
  }

  /**
   * Advanced: run `f(policy)` on the jco bindings' typed `policy` export
   * directly, with WIT values as jco represents them (camelCase records,
   * `{tag, val}` variants, BigInt, Float32Array) and no JSON. Errors and
   * traps are handled as for every other call.
   */
  async callRaw(f, options) {
    return this.#call(options, (root) => f(root.policy));
  }

  /**
   * Run an operation of the JSON contract by name (`remember`, `recall`,
   * … ; SPEC §4) on `input` (a value, or JSON / JSON Lines text) and
   * return the values of the JSON Lines it answers.
   */
  async call(operation, input, options) {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    return parseLines(await this.#call(options, (root) => root.json.call(operation, text)));
  }

  /** How many calls trapped (each one replaced the instance). */
  get traps() {
    return this.#traps;
  }

  /** What the last trap threw (also the `cause` of its `EngramTrapError`). */
  get lastTrap() {
    return this.#lastTrap;
  }

  /** The store this handle writes to. */
  get store() {
    return this.#store;
  }

  /**
   * The component's memory row codec, `{encodeMemory, decodeMemories}` on
   * WIT values: what a store written in JavaScript keeps a row body with
   * (`attachCodec`), and what the store checks build their records with.
   */
  get codec() {
    return this.#codec;
  }

  /**
   * Classify and gate candidates without storing anything. A candidate is
   * `{text, scope: {tenant, …}, source: {kind, ref?}, …}` (SPEC §4); pass one
   * for one decision, an array for an array.
   */
  async classify(candidates, options) {
    return oneOrMany(candidates, await this.call('classify', batch(candidates), options));
  }

  /** Classify, gate, resolve and store candidates in one atomic commit. */
  async remember(candidates, options) {
    return oneOrMany(candidates, await this.call('remember', batch(candidates), options));
  }

  /** Bulk-load already-decided records (`{external_id, kind, …candidate}`). */
  async importRecords(records, options) {
    return oneOrMany(records, await this.call('import', batch(records), options));
  }

  /** Rank memories for one query (`{query, scope, k?, …}`) or an array of them. */
  async recall(queries, options) {
    return oneOrMany(queries, await this.call('recall', batch(queries), options));
  }

  /** Assemble a model's context under a token budget. */
  async pack(request, options) {
    return (await this.call('pack', request, options))[0];
  }

  /** Forget by `{memory_id}`, `{scope, subject, predicate}`, `{scope, text}` or `{scope, source_ref}`: one report for all. */
  async forget(selectors, options) {
    return (await this.call('forget', batch(selectors), options))[0];
  }

  /** Apply expiry and archival rules in a scope. */
  async sweep(scope, options) {
    return (await this.call('sweep', { scope }, options))[0];
  }

  /**
   * Approve or reject pending memories (`{id, revision, verdict:
   * 'approve'|'reject', reference?}`, one or an array), in one atomic
   * commit: an approval writes a new active revision with the reviewer as
   * its source; a rejection retracts the pending one.
   */
  async review(items, options) {
    return oneOrMany(items, await this.call('review', batch(items), options));
  }

  /**
   * Record what tool side effects did, by operation id (`{operation_id,
   * scope, tool, status: 'submitted'|'succeeded'|'failed'|'unknown',
   * idempotency_key?, result_ref?, result_digest?, detail?, at?}`, one or an
   * array), in one atomic commit: each answers `{action: 'created'|'updated'|
   * 'duplicate', operation_id, revision, status}`. A final status, the tool,
   * the idempotency key and the scope of an operation never change: such a
   * record is refused (`invalid-input` naming the item and the field) and
   * nothing is written.
   */
  async recordOperations(records, options) {
    return oneOrMany(records, await this.call('record-operations', batch(records), options));
  }

  /**
   * Look operations up by id, exactly (`{operation_id, scope}`, one or an
   * array): the latest record beside `found`, `revision` and `history`, or
   * `{found: false, history: [], operation_id, revision: 0}` when none is
   * visible from the scope. Never a similarity search.
   */
  async getOperations(lookups, options) {
    return oneOrMany(lookups, await this.call('get-operations', batch(lookups), options));
  }

  /** Every revision of one memory, oldest first. */
  async history(id, options) {
    return this.call('history', { id }, options);
  }

  /** Memories visible in a scope (latest revisions), optionally only some statuses. */
  async list(scope, statuses = [], options) {
    return this.call('list', { scope, statuses }, options);
  }

  /** `{package_version, policy_version}` of the loaded component. */
  async info() {
    return (await this.call('info', '{}'))[0];
  }

  /** Close the store. */
  close() {
    this.#store.close?.();
  }
}

export { StoreError };
