// The JSON contract of SPEC §4 (the same lines the `engram` CLI reads and
// prints) and its mapping to the component's WIT values as jco represents
// them (camelCase records, `{tag, val}` variants, BigInt for 64-bit
// integers, Float32Array for `list<f32>`).
//
// Input converters validate and throw `EngramError` of kind
// `invalid-input` naming the item index and the dotted field, like the
// policy's own errors; output converters build the CLI's field names, so a
// program can move between the CLI and this library without reshaping data.

import { EngramError } from './errors.js';
import { compareUtf8 } from './bytes.js';

export const MEMORY_KINDS = ['semantic', 'episodic', 'procedural'];
export const CANDIDATE_KINDS = ['semantic', 'episodic', 'procedural', 'working', 'none'];
export const SOURCE_KINDS = ['user', 'system', 'document', 'tool', 'behavior', 'agent'];
export const SENSITIVITIES = ['public', 'internal', 'personal', 'sensitive'];
export const STATUSES = ['pending', 'active', 'superseded', 'retracted', 'expired', 'conflicted', 'archived'];
export const RETENTIONS = ['ephemeral', 'standard', 'durable', 'audit'];
export const ROLES = ['system', 'user', 'assistant', 'tool'];
export const GATE_NAMES = ['value', 'confidence', 'sensitivity', 'stability', 'conflict', 'permission'];
export const VERDICTS = ['approve', 'reject'];

// ------------------------------------------------------------------ time

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))?)?$/;

/**
 * Parse an instant the way the Rust host does: RFC 3339 with an offset, a
 * date-time without one (UTC), or a date (UTC midnight). Returns the WIT
 * `datetime` (`{epochMs: bigint, offsetMinutes}`), or `null` if malformed.
 */
export function parseDatetime(text) {
  if (typeof text !== 'string') return null;
  const m = RFC3339.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', , sign, oh, om] = m;
  // No offset (a bare date or date-time) means UTC.
  let offset = 0;
  if (sign) {
    if (Number(oh) > 23 || Number(om) > 59) return null;
    offset = (Number(oh) * 60 + Number(om)) * (sign === '-' ? -1 : 1);
  }
  const ms = frac ? Number(frac.padEnd(3, '0').slice(0, 3)) : 0;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const check = new Date(local);
  if (
    Number.isNaN(local) ||
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 || Number(mi) > 59 || Number(s) > 59
  ) {
    return null;
  }
  return { epochMs: BigInt(local - offset * 60_000), offsetMinutes: offset };
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

/** Format a WIT `datetime` as RFC 3339 in its own offset (like the CLI). */
export function formatDatetime(dt) {
  const epoch = Number(dt.epochMs);
  const off = dt.offsetMinutes;
  const t = new Date(epoch + off * 60_000);
  let s = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
  if (epoch % 1000 !== 0) s += `.${pad(t.getUTCMilliseconds(), 3)}`;
  if (off === 0) return `${s}Z`;
  const a = Math.abs(off);
  return `${s}${off < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** A WIT `datetime` from a Date, an RFC 3339 string or a datetime record. */
export function toDatetime(value, field = 'now') {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw EngramError.input(field, 'is an invalid Date');
    return { epochMs: BigInt(value.getTime()), offsetMinutes: -value.getTimezoneOffset() };
  }
  if (typeof value === 'string') {
    const dt = parseDatetime(value);
    if (!dt) throw EngramError.input(field, `'${value}' is not an RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00)`);
    return dt;
  }
  if (value && typeof value === 'object' && 'epochMs' in value) {
    return { epochMs: BigInt(value.epochMs), offsetMinutes: Number(value.offsetMinutes ?? 0) };
  }
  throw EngramError.input(field, 'expected an RFC 3339 string, a Date or {epochMs, offsetMinutes}');
}

// ------------------------------------------------------------------ input

/** Reads one input object, recording the dotted path of every field. */
class Reader {
  constructor(value, index, path = '') {
    this.value = value;
    this.index = index;
    this.path = path;
  }

  fail(field, message) {
    throw EngramError.input(this.path ? `${this.path}.${field}` : field, message, this.index);
  }

  get(field) {
    const v = this.value[field];
    return v === null ? undefined : v;
  }

  string(field, { required = false } = {}) {
    const v = this.get(field);
    if (v === undefined) {
      if (required) this.fail(field, 'missing field');
      return undefined;
    }
    if (typeof v !== 'string') this.fail(field, 'expected a string');
    return v;
  }

  number(field, { integer = false, min, max } = {}) {
    const v = this.get(field);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(field, 'expected a number');
    if (integer && !Number.isInteger(v)) this.fail(field, 'expected an integer');
    if ((min !== undefined && v < min) || (max !== undefined && v > max)) {
      this.fail(field, `expected a number in [${min}, ${max}]`);
    }
    return v;
  }

  bool(field) {
    const v = this.get(field);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') this.fail(field, 'expected true or false');
    return v;
  }

  oneOf(field, names, { required = false } = {}) {
    const v = this.string(field, { required });
    if (v !== undefined && !names.includes(v)) {
      this.fail(field, `unknown variant ${JSON.stringify(v)}, expected one of ${names.map((n) => `\`${n}\``).join(', ')}`);
    }
    return v;
  }

  time(field) {
    const v = this.get(field);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') this.fail(field, 'expected an RFC 3339 string');
    const dt = parseDatetime(v);
    if (!dt) this.fail(field, `'${v}' is not an RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00)`);
    return dt;
  }

  object(field, { required = false } = {}) {
    const v = this.get(field);
    if (v === undefined) {
      if (required) this.fail(field, 'missing field');
      return undefined;
    }
    if (typeof v !== 'object' || Array.isArray(v)) this.fail(field, 'expected an object');
    return new Reader(v, this.index, this.path ? `${this.path}.${field}` : field);
  }

  array(field) {
    const v = this.get(field);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) this.fail(field, 'expected an array');
    return v;
  }

  strings(field) {
    const v = this.array(field);
    if (v === undefined) return undefined;
    v.forEach((s, i) => {
      if (typeof s !== 'string') this.fail(`${field}.${i}`, 'expected a string');
    });
    return v;
  }

  kinds(field) {
    const v = this.array(field);
    if (v === undefined) return [];
    return v.map((k, i) => {
      if (!MEMORY_KINDS.includes(k)) this.fail(`${field}.${i}`, `expected one of ${MEMORY_KINDS.join(', ')}`);
      return k;
    });
  }

  /** A string→string map: sorted by key, nulls dropped, other values as JSON text. */
  entries(field) {
    const v = this.get(field);
    if (v === undefined) return [];
    if (typeof v !== 'object' || Array.isArray(v)) this.fail(field, 'expected an object of strings');
    return entriesFrom(v);
  }

  embedding(field) {
    const v = this.array(field);
    if (v === undefined) return undefined;
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) this.fail(`${field}.${i}`, 'expected a number');
    });
    return Float32Array.from(v);
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** UTF-8 byte order of keys (how the Rust host orders a map's keys). */
function compareKeys(a, b) {
  if (a === b) return 0;
  if (SURROGATE.test(a) || SURROGATE.test(b)) return compareUtf8(a, b);
  return a < b ? -1 : 1;
}

export function entriesFrom(map) {
  return Object.keys(map)
    .filter((k) => map[k] !== null && map[k] !== undefined)
    .sort(compareKeys)
    .map((key) => ({ key, value: typeof map[key] === 'string' ? map[key] : JSON.stringify(map[key]) }));
}

function expectObject(value, index, what) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw EngramError.input(what, 'expected a JSON object', index);
  }
  return new Reader(value, index);
}

function scopeFrom(r) {
  return {
    tenant: r.string('tenant', { required: true }),
    user: r.string('user'),
    project: r.string('project'),
    thread: r.string('thread'),
    agent: r.string('agent'),
  };
}

/** A scope object (`{tenant, user?, project?, thread?, agent?}`) → WIT scope. */
export function scopeIn(value, field = 'scope') {
  const r = expectObject(value, undefined, field);
  r.path = field;
  return scopeFrom(r);
}

function candidateFrom(r) {
  const text = r.string('text', { required: true });
  const source = r.object('source', { required: true });
  return {
    id: r.string('id'),
    text,
    scope: scopeFrom(r.object('scope', { required: true })),
    source: {
      kind: source.oneOf('kind', SOURCE_KINDS, { required: true }),
      reference: source.string('ref'),
    },
    observedAt: r.time('observed_at'),
    confidence: r.number('confidence'),
    kindHint: r.oneOf('kind_hint', CANDIDATE_KINDS),
    subject: r.string('subject'),
    predicate: r.string('predicate'),
    object: r.string('object'),
    condition: r.string('condition'),
    occurredAt: r.time('occurred_at'),
    validFrom: r.time('valid_from'),
    validTo: r.time('valid_to'),
    entities: r.entries('entities'),
    embedding: r.embedding('embedding'),
  };
}

/** A candidate line → WIT `candidate`. */
export function candidateIn(value, index) {
  return candidateFrom(expectObject(value, index, 'candidate'));
}

/** An import line (a candidate plus `external_id` and `kind`) → WIT `import-record`. */
export function importIn(value, index) {
  const r = expectObject(value, index, 'record');
  return {
    externalId: r.string('external_id', { required: true }),
    kind: r.oneOf('kind', MEMORY_KINDS, { required: true }),
    candidate: candidateFrom(r),
  };
}

/** A query line → WIT `query`. */
export function queryIn(value, index) {
  const r = expectObject(value, index, 'query');
  return {
    id: r.string('id'),
    text: r.string('query', { required: true }),
    scope: scopeFrom(r.object('scope', { required: true })),
    k: r.number('k', { integer: true, min: 0, max: 4294967295 }) ?? 0,
    asOf: r.time('as_of'),
    kinds: r.kinds('kinds'),
    entities: r.entries('entities'),
    embedding: r.embedding('embedding'),
    sensitivityCeiling: r.oneOf('sensitivity_ceiling', SENSITIVITIES),
    explainRejected: r.bool('explain') ?? false,
  };
}

function snippets(r, field) {
  const list = r.array(field) ?? [];
  return list.map((s, i) => {
    const sr = new Reader(s ?? {}, r.index, `${field}.${i}`);
    if (!s || typeof s !== 'object') sr.fail('', 'expected an object');
    const text = sr.get('text') !== undefined ? sr.string('text') : sr.string('summary', { required: true });
    return { reference: sr.string('ref', { required: true }), text };
  });
}

/** A pack request → WIT `pack-request`. */
export function packIn(value) {
  const r = expectObject(value, undefined, 'request');
  const recall = r.object('recall') ?? new Reader({}, undefined, 'recall');
  const messages = (r.array('messages') ?? []).map((m, i) => {
    const mr = new Reader(m ?? {}, undefined, `messages.${i}`);
    if (!m || typeof m !== 'object') mr.fail('', 'expected an object');
    return {
      reference: mr.string('ref'),
      role: mr.oneOf('role', ROLES, { required: true }),
      text: mr.string('text', { required: true }),
      priority: mr.number('priority', { integer: true, min: 0, max: 255 }),
    };
  });
  const budget = r.number('budget', { integer: true, min: 0, max: 4294967295 });
  if (budget === undefined) r.fail('budget', 'missing field');
  return {
    budget,
    scope: scopeFrom(r.object('scope', { required: true })),
    query: r.string('query') ?? '',
    system: r.string('system') ?? '',
    state: r.entries('state'),
    messages,
    knowledge: snippets(r, 'knowledge'),
    artifacts: snippets(r, 'artifacts'),
    recall: {
      k: recall.number('k', { integer: true, min: 0, max: 4294967295 }) ?? 0,
      asOf: recall.time('as_of'),
      kinds: recall.kinds('kinds'),
    },
  };
}

/** A forget selector line (exactly one of the four shapes) → WIT `forget-selector`. */
export function forgetIn(value, index) {
  const r = expectObject(value, index, 'selector');
  const memoryId = r.string('memory_id');
  if (memoryId !== undefined) return { tag: 'memory-id', val: memoryId };
  const scopeR = r.object('scope');
  if (!scopeR) r.fail('scope', 'required unless memory_id is given');
  const scope = scopeFrom(scopeR);
  const subject = r.string('subject');
  const predicate = r.string('predicate');
  const text = r.string('text');
  const sourceRef = r.string('source_ref');
  const given = [subject, predicate, text, sourceRef].map((x) => x !== undefined);
  const is = (...mask) => mask.every((m, i) => m === given[i]);
  if (is(true, true, false, false)) {
    return { tag: 'key', val: { scope, subject, predicate, condition: r.string('condition') } };
  }
  if (is(false, false, true, false)) return { tag: 'text', val: { scope, text } };
  if (is(false, false, false, true)) return { tag: 'source-ref', val: { scope, sourceRef } };
  if (is(true, false, false, false)) r.fail('predicate', 'a key selector needs subject and predicate');
  if (is(false, true, false, false)) r.fail('subject', 'a key selector needs subject and predicate');
  return r.fail('selector', 'give exactly one of: memory_id; subject+predicate; text; source_ref');
}

/** A list of statuses (names) → WIT statuses. */
export function statusesIn(list) {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw EngramError.input('statuses', 'expected an array of status names');
  return list.map((s, i) => {
    if (!STATUSES.includes(s)) throw EngramError.input(`statuses.${i}`, `expected one of ${STATUSES.join(', ')}`);
    return s;
  });
}

/** A review item (`{id, revision, verdict: 'approve'|'reject', reference?}`) → WIT `review-item`. */
export function reviewIn(value, index) {
  const r = expectObject(value, index, 'review item');
  const id = r.string('id', { required: true });
  const revision = r.number('revision', { integer: true, min: 0, max: 0xffffffff });
  if (revision === undefined) r.fail('revision', 'missing field');
  const verdict = r.oneOf('verdict', VERDICTS, { required: true });
  return { id, revision, verdict, reference: r.string('reference') };
}

// ------------------------------------------------------------------ output

const opt = (v) => (v === undefined ? null : v);
const time = (d) => (d === undefined ? null : formatDatetime(d));

export function entriesJson(entries) {
  const out = {};
  for (const e of [...entries].sort((a, b) => compareKeys(a.key, b.key))) out[e.key] = e.value;
  return out;
}

export function scopeJson(s) {
  return { tenant: s.tenant, user: opt(s.user), project: opt(s.project), thread: opt(s.thread), agent: opt(s.agent) };
}

function sourceJson(s) {
  return { kind: s.kind, ref: opt(s.reference) };
}

/** A decision, as `engram remember` prints it. */
export function decisionJson(d) {
  const gates = {};
  for (const g of d.gates) gates[g.gate] = { pass: g.passed, reason: g.reason };
  return {
    id: opt(d.candidateId),
    kind: d.kind,
    disposition: d.disposition,
    reasons: d.reasons,
    gates,
    memory_id: opt(d.memoryId),
    revision: opt(d.revision),
    action: d.action,
    confidence: d.confidence,
    sensitivity: d.sensitivity,
    occurred_at: time(d.occurredAt),
    time_expression: opt(d.timeExpression),
    policy_version: d.policyVersion,
  };
}

function payloadJson(p) {
  const v = p.val;
  switch (p.tag) {
    case 'semantic':
      return { subject: v.subject, predicate: v.predicate, object: v.object, condition: opt(v.condition) };
    case 'episodic':
      return {
        occurred_at: time(v.occurredAt),
        time_expression: opt(v.timeExpression),
        actors: v.actors,
        context: entriesJson(v.context),
        actions: v.actions,
        outcome: opt(v.outcome),
        success: opt(v.success),
      };
    default:
      return {
        goal: v.goal,
        preconditions: v.preconditions,
        steps: v.steps.map((s) => ({ id: s.id, action: s.action, required: s.required, side_effect: s.sideEffect })),
        guards: v.guards,
        recovery: v.recovery,
        authority: opt(v.authority),
      };
  }
}

const refJson = (r) => (r === undefined ? null : { id: r.id, revision: r.revision });

/** The full memory envelope (SPEC §2), as `engram list`/`history` print it. */
export function memoryJson(m, { embedding = false } = {}) {
  const out = {
    id: m.id,
    revision: m.revision,
    kind: m.kind,
    scope: scopeJson(m.scope),
    text: m.text,
    payload: payloadJson(m.payload),
    source: sourceJson(m.provenance.source),
    source_event_ids: m.provenance.sourceEventIds,
    external_id: opt(m.provenance.externalId),
    extractor_version: m.provenance.extractorVersion,
    policy_version: m.provenance.policyVersion,
    confidence: m.confidence,
    sensitivity: m.sensitivity,
    observed_at: formatDatetime(m.observedAt),
    valid_from: time(m.validFrom),
    valid_to: time(m.validTo),
    status: m.status,
    supersedes: refJson(m.supersedes),
    superseded_by: refJson(m.supersededBy),
    created_at: formatDatetime(m.createdAt),
    updated_at: formatDatetime(m.updatedAt),
    retention: m.retention,
    access_count: m.accessCount,
    last_accessed: time(m.lastAccessed),
    entities: entriesJson(m.entities),
  };
  if (embedding && m.embedding !== undefined) out.embedding = Array.from(m.embedding);
  return out;
}

function scoredJson(s) {
  const m = s.memory;
  const f = s.features;
  const a = s.admission;
  return {
    memory_id: m.id,
    revision: m.revision,
    external_id: opt(m.provenance.externalId),
    kind: m.kind,
    status: m.status,
    text: m.text,
    score: s.score,
    features: {
      similarity: f.similarity,
      scope: f.scope,
      freshness: f.freshness,
      authority: f.authority,
      typefit: f.typefit,
      entity: f.entity,
      risk: f.risk,
      embedding: opt(f.embedding),
    },
    admission: {
      relevance: a.relevance,
      scope_ok: a.scopeOk,
      time_ok: a.timeOk,
      task_applicable: a.taskApplicable,
      conflict: a.conflict,
      safety_risk: a.safetyRisk,
      admit: a.admit,
      reason: opt(a.reason),
    },
    source: sourceJson(m.provenance.source),
    observed_at: formatDatetime(m.observedAt),
  };
}

/** One query's answer, as `engram recall` prints it. */
export function recallJson(r) {
  const out = { id: opt(r.queryId), results: r.results.map(scoredJson), candidates_read: r.candidatesRead };
  if (r.notAdmitted.length > 0) out.not_admitted = r.notAdmitted.map(scoredJson);
  return out;
}

/** A packed context and its manifest, as `engram pack` prints it. */
export function packedJson(p) {
  return {
    text: p.text,
    tokens: p.tokens,
    budget: p.budget,
    sections: p.sections.map((s) => ({ name: s.name, tokens: s.tokens, items: s.items })),
    dropped: p.dropped.map((x) => ({ ref: x.reference, reason: x.reason })),
    compressed: p.compressed.map((x) => ({ ref: x.reference, summary: x.summary })),
  };
}

export function forgetJson(r) {
  return { deleted: r.deleted, cascaded: r.cascaded, tombstones: r.tombstones };
}

export function reviewJson(o) {
  return {
    reviewed: refJson(o.reviewed),
    verdict: o.verdict,
    approved_as: refJson(o.approvedAs),
    superseded: o.superseded.map(refJson),
    reason: o.reason,
  };
}

export function sweepJson(r) {
  return { expired: r.expired, archived: r.archived, inferences_expired: r.inferencesExpired, examined: r.examined };
}

export function receiptJson(r) {
  return { external_id: r.externalId, memory_id: r.memoryId };
}

// ------------------------------------------------------------------ memory rows

function timeFrom(s, field) {
  if (s === null || s === undefined) return undefined;
  const dt = parseDatetime(s);
  if (!dt) throw new Error(`corrupt memory row: ${field} ${JSON.stringify(s)} is not an instant`);
  return dt;
}

const und = (v) => (v === null ? undefined : v);

/**
 * A memory envelope read back from `memoryJson(m, {embedding: true})` (the
 * SQLite store's row body, the same format the Rust host stores). The
 * payload variant follows the envelope's `kind`.
 */
export function memoryFromJson(j) {
  const p = j.payload ?? {};
  let payload;
  if (j.kind === 'semantic') {
    payload = { tag: 'semantic', val: { subject: p.subject, predicate: p.predicate, object: p.object, condition: und(p.condition) } };
  } else if (j.kind === 'episodic') {
    payload = {
      tag: 'episodic',
      val: {
        occurredAt: timeFrom(p.occurred_at, 'occurred_at'),
        timeExpression: und(p.time_expression),
        actors: p.actors ?? [],
        context: entriesFrom(p.context ?? {}),
        actions: p.actions ?? [],
        outcome: und(p.outcome),
        success: und(p.success),
      },
    };
  } else {
    payload = {
      tag: 'procedural',
      val: {
        goal: p.goal ?? '',
        preconditions: p.preconditions ?? [],
        steps: (p.steps ?? []).map((s) => ({ id: s.id, action: s.action, required: s.required, sideEffect: s.side_effect })),
        guards: p.guards ?? [],
        recovery: p.recovery ?? [],
        authority: und(p.authority),
      },
    };
  }
  const ref = (r) => (r ? { id: r.id, revision: r.revision } : undefined);
  const s = j.scope;
  return {
    id: j.id,
    revision: j.revision,
    kind: j.kind,
    scope: { tenant: s.tenant, user: und(s.user), project: und(s.project), thread: und(s.thread), agent: und(s.agent) },
    text: j.text,
    payload,
    provenance: {
      source: { kind: j.source.kind, reference: und(j.source.ref) },
      sourceEventIds: j.source_event_ids ?? [],
      externalId: und(j.external_id),
      extractorVersion: j.extractor_version,
      policyVersion: j.policy_version,
    },
    confidence: j.confidence,
    sensitivity: j.sensitivity,
    observedAt: timeFrom(j.observed_at, 'observed_at'),
    validFrom: timeFrom(j.valid_from, 'valid_from'),
    validTo: timeFrom(j.valid_to, 'valid_to'),
    status: j.status,
    supersedes: ref(j.supersedes),
    supersededBy: ref(j.superseded_by),
    createdAt: timeFrom(j.created_at, 'created_at'),
    updatedAt: timeFrom(j.updated_at, 'updated_at'),
    retention: j.retention,
    accessCount: j.access_count ?? 0,
    lastAccessed: timeFrom(j.last_accessed, 'last_accessed'),
    entities: entriesFrom(j.entities ?? {}),
    embedding: Array.isArray(j.embedding) ? Float32Array.from(j.embedding) : undefined,
  };
}
