// What every store shares: the capability check (a store handle is opened
// for one principal), the reference filter semantics of `wit/store.wit`
// (as the Rust host's SQLite store applies them), and the canonical form a
// stored memory takes.

import { StoreError } from '../errors.js';
import { compareUtf8 } from '../bytes.js';
import { SENSITIVITY_RANK } from '../contract.js';

export { SENSITIVITY_RANK };
const DIMENSIONS = ['user', 'project', 'thread', 'agent'];

/**
 * Why `scope` lies outside `principal` (the first dimension that differs,
 * with both values), or null when the principal covers it. Worded as the
 * Rust host's `backend::denial`.
 */
export function denial(principal, scope) {
  if (principal.tenant !== scope.tenant) {
    return `tenant '${scope.tenant}' is outside this store handle's tenant '${principal.tenant}'`;
  }
  for (const dimension of ['user', 'project']) {
    const allowed = principal[dimension];
    if (allowed === undefined) continue;
    const asked = scope[dimension];
    if (asked !== allowed) {
      const what = asked === undefined ? `a scope without a ${dimension}` : `${dimension} '${asked}'`;
      return `${what} is outside this store handle's ${dimension} '${allowed}'`;
    }
  }
  return null;
}

/** May `principal` act in `scope`? */
export function covers(principal, scope) {
  return denial(principal, scope) === null;
}

/** Throw `store-error::denied` unless `principal` covers `scope`. */
export function checkScope(principal, scope) {
  const why = denial(principal, scope);
  if (why !== null) throw new StoreError('denied', why);
}

/** The semantic key (subject, predicate, condition) of a memory, or null. */
export function semanticKey(m) {
  if (m.payload.tag !== 'semantic') return null;
  const p = m.payload.val;
  return { subject: p.subject, predicate: p.predicate, condition: p.condition };
}

/** Does the filter need the key/source columns (not only what postings carry)? */
export function needsMemoryColumns(f) {
  return f.subject !== undefined || f.predicate !== undefined || f.condition.tag === 'some' || f.sourceRef !== undefined;
}

const ms = (d) => (d === undefined ? undefined : Number(d.epochMs));

/** The reference semantics of `store.filter` for one memory. */
export function filterMatches(f, m) {
  if (m.scope.tenant !== f.scope.tenant) return false;
  for (const dim of DIMENSIONS) {
    const want = f.scope[dim];
    const have = m.scope[dim];
    if (f.scopeMatch === 'exact') {
      // Every dimension equal (unset = unset).
      if (have !== want) return false;
    } else if (f.scopeMatch === 'within') {
      // The scope and everything narrower: set dimensions equal, unset ones anything.
      if (want !== undefined && have !== want) return false;
    } else if (want === undefined ? have !== undefined : have !== undefined && have !== want) {
      // Visible: unset in the memory, or equal.
      return false;
    }
  }
  if (f.kinds.length > 0 && !f.kinds.includes(m.kind)) return false;
  if (f.statuses.length > 0 && !f.statuses.includes(m.status)) return false;
  if (f.excludeArchived && m.status === 'archived') return false;
  if (f.validAt !== undefined) {
    const at = Number(f.validAt.epochMs);
    const from = ms(m.validFrom);
    const to = ms(m.validTo);
    if (!(from === undefined || from <= at) || !(to === undefined || to > at)) return false;
  }
  if (f.sensitivityMax !== undefined && SENSITIVITY_RANK[m.sensitivity] > SENSITIVITY_RANK[f.sensitivityMax]) {
    return false;
  }
  const key = semanticKey(m);
  if (f.subject !== undefined && (!key || key.subject !== f.subject)) return false;
  if (f.predicate !== undefined && (!key || key.predicate !== f.predicate)) return false;
  if (f.condition.tag === 'some') {
    const want = f.condition.val;
    if (!key || key.condition !== want) return false;
  }
  if (f.sourceRef !== undefined) {
    const prov = m.provenance;
    if (prov.source.reference !== f.sourceRef && !prov.sourceEventIds.includes(f.sourceRef)) return false;
  }
  return true;
}

/** The unique-index key of an active semantic memory, or null. */
export function activeKey(m) {
  if (m.status !== 'active' || m.kind !== 'semantic') return null;
  const k = semanticKey(m);
  if (!k) return null;
  const s = m.scope;
  return JSON.stringify([s.tenant, s.user ?? '', s.project ?? '', s.thread ?? '', s.agent ?? '', k.subject, k.predicate, k.condition ?? '']);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * SQLite's BINARY collation (UTF-8 byte order). For strings without
 * surrogate pairs that is JavaScript's own UTF-16 order, so only those pay
 * for an encoding.
 */
export function byteOrder(a, b) {
  if (a === b) return 0;
  if (SURROGATE.test(a) || SURROGATE.test(b)) return compareUtf8(a, b);
  return a < b ? -1 : 1;
}

/**
 * The canonical stored form: entity and context maps sorted by key with the
 * last value of a repeated key winning (they are maps in the data model,
 * and the Rust host's row format stores them that way).
 */
export function canonicalEntries(entries) {
  const map = new Map();
  for (const e of entries) map.set(e.key, e.value);
  return [...map.keys()].sort(byteOrder).map((key) => ({ key, value: map.get(key) }));
}

export function canonicalMemory(m) {
  const out = { ...m, entities: canonicalEntries(m.entities) };
  if (m.payload.tag === 'episodic') {
    out.payload = { tag: 'episodic', val: { ...m.payload.val, context: canonicalEntries(m.payload.val.context) } };
  }
  return out;
}

export function uniqueTerms(terms) {
  return [...new Set(terms)].sort(byteOrder);
}
