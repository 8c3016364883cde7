// A persistent store on SQLite through better-sqlite3, with the Rust host's
// schema (`host/schema/`, shipped in the package's `schema/`) and row format, so a
// database file written here opens in `engram --db FILE` and the other way
// round. One row per memory revision with a column for every pushed-down
// filter, a postings table for the guest's index terms, an append-only
// event log and tombstones. WAL mode; one IMMEDIATE transaction per commit.
// The fingerprint secret is the key file beside the database (`<path>.key`,
// created 0600 on first use; the same file the Rust host uses), never in it.
// A row's body is encoded and decoded by the component (`attachCodec`).

import { closeSync, constants, openSync, readFileSync, readdirSync, writeSync } from 'node:fs';

import Database from 'better-sqlite3';

import { StoreError } from '../errors.js';
import { checkRecorded, checkSecret, keyId, randomSecret, secretFromHex, secretToFileText } from '../fingerprint.js';
import { SENSITIVITY_RANK, byteOrder, canonicalMemory, needsMemoryColumns, semanticKey, uniqueTerms } from './common.js';

/**
 * Schema migrations, applied in order; `user_version` records how many ran.
 * The Rust host's own files (`host/schema/*.sql`, copied into the package's
 * `schema/` by `npm run build`), so every host writes one format.
 */
const SCHEMA_DIR = new URL('../../schema/', import.meta.url);
const MIGRATIONS = readdirSync(SCHEMA_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .map((f) => readFileSync(new URL(f, SCHEMA_DIR), 'utf8'));

const SELECT_STORED = 'SELECT m.body, m.etag, m.length, m.access_count, m.last_access FROM memories m';

const nul = (v) => (v === undefined ? null : v);
const ms = (d) => (d === undefined ? null : Number(d.epochMs));

function backend(e) {
  return e instanceof StoreError ? e : new StoreError('backend', e.message);
}

function conflictOrBackend(e, what) {
  if (e && typeof e.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT')) {
    return new StoreError('conflict', `${what}: ${e.message}`);
  }
  return backend(e);
}

/** The filter over table alias `a` (`m` = memories, `p` = postings). */
function whereClause(a, f) {
  const sql = [`${a}.tenant = ?`];
  const args = [f.scope.tenant];
  for (const col of ['user', 'project', 'thread', 'agent']) {
    const v = f.scope[col];
    if (f.scopeMatch === 'exact') {
      sql.push(`${a}.${col} IS ?`);
      args.push(nul(v));
    } else if (f.scopeMatch === 'within') {
      if (v !== undefined) {
        sql.push(`${a}.${col} = ?`);
        args.push(v);
      }
    } else if (v !== undefined) {
      sql.push(`(${a}.${col} IS NULL OR ${a}.${col} = ?)`);
      args.push(v);
    } else {
      sql.push(`${a}.${col} IS NULL`);
    }
  }
  if (f.kinds.length > 0) {
    sql.push(`${a}.kind IN (${f.kinds.map(() => '?').join(',')})`);
    args.push(...f.kinds);
  }
  if (f.statuses.length > 0) {
    sql.push(`${a}.status IN (${f.statuses.map(() => '?').join(',')})`);
    args.push(...f.statuses);
  }
  if (f.excludeArchived) sql.push(`${a}.status <> 'archived'`);
  if (f.validAt !== undefined) {
    sql.push(`(${a}.valid_from IS NULL OR ${a}.valid_from <= ?) AND (${a}.valid_to IS NULL OR ${a}.valid_to > ?)`);
    args.push(Number(f.validAt.epochMs), Number(f.validAt.epochMs));
  }
  if (f.sensitivityMax !== undefined) {
    sql.push(`${a}.sensitivity <= ?`);
    args.push(SENSITIVITY_RANK[f.sensitivityMax]);
  }
  if (f.subject !== undefined) {
    sql.push('m.subject = ?');
    args.push(f.subject);
  }
  if (f.predicate !== undefined) {
    sql.push('m.predicate = ?');
    args.push(f.predicate);
  }
  if (f.condition.tag === 'some') {
    if (f.condition.val === undefined) {
      sql.push("m.kind = 'semantic' AND m.condition IS NULL");
    } else {
      sql.push('m.condition = ?');
      args.push(f.condition.val);
    }
  }
  if (f.sourceRef !== undefined) {
    sql.push('(m.source_ref = ? OR m.rid IN (SELECT rid FROM derived_from WHERE event = ?))');
    args.push(f.sourceRef, f.sourceRef);
  }
  return [sql.join(' AND '), args];
}

function principalClause(p) {
  let sql = 'm.tenant = ?';
  const args = [p.tenant];
  if (p.user !== undefined) {
    sql += ' AND m.user = ?';
    args.push(p.user);
  }
  if (p.project !== undefined) {
    sql += ' AND m.project = ?';
    args.push(p.project);
  }
  return [sql, args];
}

/** Write a new secret to `path`, readable by its owner only; another process creating it first wins. */
function createKeyFile(path) {
  const secret = randomSecret();
  let fd;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (e) {
    if (e.code === 'EEXIST') return secretFromHex(readFileSync(path, 'utf8'), `fingerprint key ${path}`);
    throw new StoreError('backend', `creating the fingerprint key ${path}: ${e.message}`);
  }
  try {
    writeSync(fd, secretToFileText(secret));
  } finally {
    closeSync(fd);
  }
  return secret;
}

export class SqliteStore {
  #db;
  #statements = new Map();
  #keyFile;
  #secret;
  /** The row body's encoder and decoder: the component's contract (`attachCodec`). */
  #codec = null;

  /** Records handed to the guest so far (bounded-read checks). */
  recordsRead = 0;

  /**
   * Open (creating and migrating as needed) the database at `path`;
   * `':memory:'` gives a private in-memory database. `fingerprintKeyFile`:
   * the key file (default `<path>.key`; a random key for `:memory:`), or
   * `fingerprintKey`, the secret's bytes.
   */
  constructor(path = ':memory:', { fingerprintKeyFile, fingerprintKey } = {}) {
    if (fingerprintKey !== undefined) this.#secret = checkSecret(fingerprintKey);
    else if (fingerprintKeyFile !== undefined) this.#keyFile = fingerprintKeyFile;
    else if (path === ':memory:' || path === '') this.#secret = randomSecret();
    else this.#keyFile = `${path}.key`;
    try {
      this.#db = new Database(path);
      this.#db.pragma('busy_timeout = 30000');
      this.#db.exec(
        'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; ' +
          'PRAGMA cache_size = -65536; PRAGMA mmap_size = 0; PRAGMA temp_store = MEMORY; ' +
          'PRAGMA secure_delete = ON;',
      );
      this.#migrate();
      // A crash between an erasing commit and its checkpoint: finish it first.
      if (this.#erasurePending()) this.#finishErasure();
    } catch (e) {
      this.#db?.close();
      throw backend(e);
    }
  }

  #recordedKeyId() {
    return this.#db.prepare('SELECT key_id FROM fingerprint_key WHERE id = 1').pluck().get();
  }

  /**
   * The secret fingerprint keys are derived from: loaded (or created, while
   * the store has recorded no key) and checked against the key id the
   * store recorded for its tombstones.
   */
  fingerprintSecret() {
    const recorded = this.#recordedKeyId();
    if (this.#secret === undefined) {
      let text;
      try {
        text = readFileSync(this.#keyFile, 'utf8');
      } catch (e) {
        if (e.code !== 'ENOENT') throw new StoreError('backend', `fingerprint key ${this.#keyFile}: ${e.message}`);
      }
      if (text !== undefined) this.#secret = secretFromHex(text, `fingerprint key ${this.#keyFile}`);
      else if (recorded !== undefined) {
        throw new StoreError('backend', `the fingerprint key file ${this.#keyFile} is missing, but this store's tombstones were made with a key (key id ${recorded}): restore it from a backup; without it erased content is no longer recognised (docs/durability.md)`);
      } else this.#secret = createKeyFile(this.#keyFile);
    }
    checkRecorded(this.#secret, recorded, this.#keyFile ?? 'of this store');
    return this.#secret;
  }

  /** The schema version this database is at. */
  get schemaVersion() {
    return this.#db.pragma('user_version', { simple: true });
  }

  /**
   * Called by `Engram.open`: the row body is the contract's memory envelope,
   * encoded and decoded by the component itself (its `json` export), so this
   * store writes exactly what the Rust host writes.
   */
  attachCodec(codec) {
    this.#codec = codec;
  }

  #body() {
    if (this.#codec === null) {
      throw new StoreError('backend', 'SqliteStore needs the component to read and write memory rows: use it through Engram.open({store})');
    }
    return this.#codec;
  }

  #erasurePending() {
    return this.#db.prepare('SELECT count(*) AS n FROM erasure_pending').get().n > 0;
  }

  /** Checkpoint into the database file and truncate the WAL, then clear the marker. */
  #finishErasure() {
    const [{ busy }] = this.#db.pragma('wal_checkpoint(TRUNCATE)');
    if (busy !== 0) {
      throw new StoreError('backend', 'erased, but another connection kept reading, so the erased pages are still in the write-ahead log; they are scrubbed at the next open or erasing commit');
    }
    this.#db.prepare('DELETE FROM erasure_pending').run();
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }

  #migrate() {
    this.#db.transaction(() => {
      const at = this.#db.pragma('user_version', { simple: true });
      if (at > MIGRATIONS.length) {
        throw new StoreError('backend', `database schema version ${at} is newer than this engram (${MIGRATIONS.length}); upgrade engram`);
      }
      for (let i = at; i < MIGRATIONS.length; i += 1) {
        this.#db.exec(MIGRATIONS[i]);
        this.#db.pragma(`user_version = ${i + 1}`);
      }
    }).immediate();
  }

  #stmt(sql) {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  #queryStored(sql, args) {
    let rows;
    try {
      rows = this.#stmt(sql).raw(true).all(args);
    } catch (e) {
      throw backend(e);
    }
    let memories;
    try {
      memories = this.#body().decodeMemories(rows.map((r) => r[0]));
    } catch (e) {
      throw new StoreError('backend', `corrupt memory row: ${e?.payload?.val?.message ?? e.message}`);
    }
    const out = rows.map(([, etag, length, access, last], i) => {
      const memory = memories[i];
      memory.accessCount = access;
      if (last !== null) memory.lastAccessed = { epochMs: BigInt(last), offsetMinutes: 0 };
      return { memory, etag: BigInt(etag), length, frequencies: new Uint32Array(0) };
    });
    this.recordsRead += out.length;
    return out;
  }

  find(filter, limit) {
    const [w, args] = whereClause('m', filter);
    return this.#queryStored(
      `${SELECT_STORED} WHERE ${w} ORDER BY m.updated_at DESC, m.id, m.revision DESC LIMIT ?`,
      [...args, limit],
    );
  }

  revisions(principal, id) {
    const [w, args] = principalClause(principal);
    return this.#queryStored(`${SELECT_STORED} WHERE ${w} AND m.id = ? ORDER BY m.revision`, [...args, id]);
  }

  stats(filter, terms) {
    try {
      const [w, args] = whereClause('m', filter);
      const [documents, averageLength] = this.#stmt(
        `SELECT count(*), ifnull(avg(m.length), 0.0) FROM memories m WHERE ${w}`,
      ).raw(true).get(args);
      let sql;
      let pargs;
      if (needsMemoryColumns(filter)) {
        sql = `SELECT count(*) FROM postings p JOIN memories m ON m.rid = p.rid WHERE p.term = ? AND ${w}`;
        pargs = args;
      } else {
        const [pw, a] = whereClause('p', filter);
        sql = `SELECT count(*) FROM postings p WHERE p.term = ? AND ${pw}`;
        pargs = a;
      }
      const stmt = this.#stmt(sql).raw(true).pluck();
      const frequencies = BigUint64Array.from(terms.map((t) => BigInt(stmt.get([t, ...pargs]))));
      return { documents: BigInt(documents), averageLength, frequencies };
    } catch (e) {
      throw backend(e);
    }
  }

  search(filter, terms, limit) {
    if (terms.length === 0 || limit === 0) return [];
    if (!needsMemoryColumns(filter)) return this.#searchPostings(filter, terms, limit);
    const values = terms.map(() => '(?, ?)').join(', ');
    const args = terms.flatMap((t) => [t.term, t.weight]);
    const [w, fargs] = whereClause('m', filter);
    args.push(...fargs, limit);
    return this.#queryStored(
      `WITH q(term, weight) AS (VALUES ${values}),
            hits AS (SELECT p.rid AS rid, sum(q.weight) AS score FROM q JOIN postings p ON p.term = q.term GROUP BY p.rid)
       SELECT m.body, m.etag, m.length, m.access_count, m.last_access
       FROM hits h JOIN memories m ON m.rid = h.rid
       WHERE ${w}
       ORDER BY h.score DESC, m.id, m.revision
       LIMIT ?`,
      args,
    );
  }

  /**
   * Search when the filter lives entirely in the postings (as the Rust
   * host does it): read each term's postings under the filter, sum the
   * weights per record in term order, keep the `limit` best (score, then
   * row id), load only those, and order them by score, id and revision.
   */
  #searchPostings(filter, terms, limit) {
    const [pw, fargs] = whereClause('p', filter);
    const scores = new Map();
    try {
      const stmt = this.#stmt(`SELECT p.rid FROM postings p WHERE p.term = ? AND ${pw}`).pluck();
      for (const t of terms) {
        for (const rid of stmt.iterate([t.term, ...fargs])) scores.set(rid, (scores.get(rid) ?? 0) + t.weight);
      }
    } catch (e) {
      throw backend(e);
    }
    const hits = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
    const out = [];
    for (const [rid, score] of hits) {
      const [stored] = this.#queryStored(`${SELECT_STORED} WHERE m.rid = ?`, [rid]);
      if (stored) out.push({ score, stored });
    }
    out.sort((a, b) => b.score - a.score || byteOrder(a.stored.memory.id, b.stored.memory.id) || a.stored.memory.revision - b.stored.memory.revision);
    return out.map((h) => h.stored);
  }

  commit(principal, ops) {
    const receipt = { sequences: [], etags: [] };
    // Erasure reaches the bytes as in the Rust store: secure_delete zeroes
    // what the delete frees, a marker commits with the erasure, and a
    // checkpoint that truncates the WAL follows (docs/durability.md).
    const erases = ops.some((op) => op.tag === 'erase' || (op.tag === 'scrub-events' && op.val.fragment !== ''));
    // Tombstones are recorded with the id of the key they were made with.
    const id = ops.some((op) => op.tag === 'tombstone') ? keyId(this.fingerprintSecret()) : undefined;
    try {
      this.#db.transaction(() => {
        if (erases) this.#db.prepare('INSERT OR IGNORE INTO erasure_pending (id) VALUES (1)').run();
        if (id !== undefined) {
          this.#db.prepare('INSERT INTO fingerprint_key (id, key_id) VALUES (1, ?) ON CONFLICT (id) DO NOTHING').run([id]);
          const recorded = this.#recordedKeyId();
          if (recorded !== id) {
            throw new StoreError('backend', `this store's tombstones were made with fingerprint key id ${recorded}, not this host's ${id}: every host of a store needs the same key file (docs/durability.md)`);
          }
        }
        for (const op of ops) this.#apply(principal, op, receipt);
      }).immediate();
      if (erases) this.#finishErasure();
    } catch (e) {
      throw backend(e);
    }
    return { sequences: BigUint64Array.from(receipt.sequences), etags: BigUint64Array.from(receipt.etags) };
  }

  #writeRow(memory, indexTerms, etag, rid) {
    const m = canonicalMemory(memory);
    const body = this.#body().encodeMemory(m);
    const key = semanticKey(m);
    const subject = key ? key.subject : null;
    const predicate = key ? key.predicate : null;
    const condition = key ? nul(key.condition) : null;
    const what = `${m.id} revision ${m.revision}`;
    const terms = uniqueTerms(indexTerms);
    const counts = new Map();
    for (const t of indexTerms) counts.set(t, (counts.get(t) ?? 0) + 1);
    // The document length counts repeats, as the ranker does.
    const length = indexTerms.length;
    const s = m.scope;
    try {
      if (rid === undefined) {
        const info = this.#stmt(
          `INSERT INTO memories (id, revision, tenant, user, project, thread, agent, kind, status, sensitivity,
              valid_from, valid_to, subject, predicate, condition, source_ref, updated_at, etag, length, access_count, body)
           VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
        ).run([
          m.id, m.revision, s.tenant, nul(s.user), nul(s.project), nul(s.thread), nul(s.agent),
          m.kind, m.status, SENSITIVITY_RANK[m.sensitivity], ms(m.validFrom), ms(m.validTo),
          subject, predicate, condition, nul(m.provenance.source.reference),
          Number(m.updatedAt.epochMs), etag, length, m.accessCount, body,
        ]);
        rid = Number(info.lastInsertRowid);
      } else {
        this.#stmt(
          `UPDATE memories SET status = ?, sensitivity = ?, valid_from = ?, valid_to = ?, subject = ?, predicate = ?,
              condition = ?, source_ref = ?, updated_at = ?, etag = ?, length = ?, body = ?, kind = ?
           WHERE rid = ?`,
        ).run([
          m.status, SENSITIVITY_RANK[m.sensitivity], ms(m.validFrom), ms(m.validTo), subject, predicate,
          condition, nul(m.provenance.source.reference), Number(m.updatedAt.epochMs), etag, length, body, m.kind, rid,
        ]);
        this.#stmt('DELETE FROM postings WHERE rid = ?').run([rid]);
        this.#stmt('DELETE FROM derived_from WHERE rid = ?').run([rid]);
      }
    } catch (e) {
      throw conflictOrBackend(e, what);
    }
    const ins = this.#stmt(
      `INSERT OR IGNORE INTO postings (term, tenant, rid, user, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, tf)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    );
    for (const term of terms) {
      ins.run([term, s.tenant, rid, nul(s.user), nul(s.project), nul(s.thread), nul(s.agent),
        m.kind, m.status, SENSITIVITY_RANK[m.sensitivity], ms(m.validFrom), ms(m.validTo), counts.get(term)]);
    }
    const der = this.#stmt('INSERT OR IGNORE INTO derived_from (event, rid) VALUES (?, ?)');
    for (const ev of m.provenance.sourceEventIds) der.run([ev, rid]);
  }

  #apply(principal, op, receipt) {
    switch (op.tag) {
      case 'insert':
        this.#writeRow(op.val.memory, op.val.indexTerms, 1, undefined);
        receipt.etags.push(1n);
        break;
      case 'update': {
        const m = op.val.memory;
        // The stored row must lie within the principal too (as in the Rust
        // store): a user-pinned guest may not take over another user's record.
        // …and in the very scope the update names: a revision never moves.
        const [pw, pargs] = principalClause(principal);
        const s = m.scope;
        const cur = this.#stmt(`SELECT m.rid, m.etag FROM memories m WHERE ${pw} AND m.id = ? AND m.revision = ? AND m.tenant = ?
            AND m.user IS ? AND m.project IS ? AND m.thread IS ? AND m.agent IS ?`)
          .raw(true).get([...pargs, m.id, m.revision, s.tenant, nul(s.user), nul(s.project), nul(s.thread), nul(s.agent)]);
        if (!cur) throw new StoreError('conflict', `${m.id} revision ${m.revision} does not exist`);
        const [rid, etag] = cur;
        if (BigInt(etag) !== op.val.expectedEtag) {
          throw new StoreError('conflict', `${m.id} revision ${m.revision} was changed by another writer (etag ${etag}, expected ${op.val.expectedEtag})`);
        }
        this.#writeRow(m, op.val.indexTerms, etag + 1, rid);
        receipt.etags.push(BigInt(etag + 1));
        break;
      }
      case 'erase': {
        const [w, args] = principalClause(principal);
        this.#stmt(`DELETE FROM memories WHERE rid IN (SELECT m.rid FROM memories m WHERE ${w} AND m.id = ?)`).run([...args, op.val]);
        break;
      }
      case 'scrub-events': {
        // Only the events within the scrub's scope (checked by the host to
        // lie within the principal).
        const { scope, fragment } = op.val;
        if (fragment.length > 0) {
          const sql = ['tenant = ?'];
          const args = [scope.tenant];
          for (const col of ['user', 'project', 'thread', 'agent']) {
            if (scope[col] !== undefined) {
              sql.push(`${col} = ?`);
              args.push(scope[col]);
            }
          }
          this.#stmt(`UPDATE events SET payload = replace(payload, ?, '[erased]') WHERE ${sql.join(' AND ')} AND instr(payload, ?) > 0`)
            .run([fragment, ...args, fragment]);
        }
        break;
      }
      case 'tombstone': {
        const t = op.val;
        const s = t.scope;
        this.#stmt('INSERT OR IGNORE INTO tombstones (tenant, user, project, fingerprint, length, kind, created_at, offset_min) VALUES (?,?,?,?,?,?,?,?)')
          .run([s.tenant, nul(s.user), nul(s.project), t.fingerprint, t.length, t.kind, Number(t.createdAt.epochMs), t.createdAt.offsetMinutes]);
        break;
      }
      case 'append': {
        const e = op.val;
        const seq = this.#stmt('SELECT ifnull(max(seq), 0) + 1 FROM events WHERE tenant = ? AND session = ?')
          .pluck().get([e.scope.tenant, e.session]);
        this.#stmt('INSERT INTO events (tenant, session, seq, user, project, thread, agent, kind, at, payload) VALUES (?,?,?,?,?,?,?,?,?,?)')
          .run([e.scope.tenant, e.session, seq, nul(e.scope.user), nul(e.scope.project), nul(e.scope.thread), nul(e.scope.agent), e.kind, Number(e.at.epochMs), e.payload]);
        receipt.sequences.push(BigInt(seq));
        break;
      }
      case 'touch':
        {
          const { memory: ref, at } = op.val;
          const [tw, targs] = principalClause(principal);
          this.#stmt(`UPDATE memories SET access_count = access_count + 1, last_access = ? WHERE rid IN (SELECT m.rid FROM memories m WHERE ${tw} AND m.id = ? AND m.revision = ?)`)
            .run([Number(at.epochMs), ...targs, ref.id, ref.revision]);
        }
        break;
      default:
        throw new StoreError('invalid', `unknown write op ${JSON.stringify(op.tag)}`);
    }
  }

  /** Tombstones whose owner `scope` can see (user and project unset or equal). */
  tombstones(scope) {
    try {
      return this.#stmt(
        `SELECT user, project, fingerprint, length, kind, created_at, offset_min FROM tombstones
         WHERE tenant = ? AND (user IS NULL OR user = ?) AND (project IS NULL OR project = ?)
         ORDER BY created_at, fingerprint, user, project`,
      )
        .raw(true).all([scope.tenant, nul(scope.user), nul(scope.project)])
        .map(([user, project, fingerprint, length, kind, at, off]) => ({
          scope: { tenant: scope.tenant, user: user ?? undefined, project: project ?? undefined, thread: undefined, agent: undefined },
          fingerprint,
          length,
          kind,
          createdAt: { epochMs: BigInt(at), offsetMinutes: off },
        }));
    } catch (e) {
      throw backend(e);
    }
  }

  countEvents(scope, kind, since) {
    try {
      const n = this.#stmt(
        `SELECT count(*) FROM events WHERE tenant = ? AND user IS ? AND project IS ? AND thread IS ? AND agent IS ?
         AND kind = ? AND at >= ?`,
      ).pluck().get([scope.tenant, nul(scope.user), nul(scope.project), nul(scope.thread), nul(scope.agent), kind, Number(since.epochMs)]);
      return BigInt(n);
    } catch (e) {
      throw backend(e);
    }
  }

  /**
   * The events of one session and kind whose scope `scope` can see (every
   * dimension unset or equal), oldest first by sequence. The table keeps an
   * event's instant, not its offset (0 here, as in the Rust store).
   */
  sessionLog(scope, session, kind) {
    try {
      return this.#stmt(
        `SELECT user, project, thread, agent, payload, at FROM events
         WHERE tenant = ? AND session = ? AND kind = ?
           AND (user IS NULL OR user = ?) AND (project IS NULL OR project = ?)
           AND (thread IS NULL OR thread = ?) AND (agent IS NULL OR agent = ?)
         ORDER BY seq`,
      )
        .raw(true).all([scope.tenant, session, kind, nul(scope.user), nul(scope.project), nul(scope.thread), nul(scope.agent)])
        .map(([user, project, thread, agent, payload, at]) => ({
          session,
          scope: { tenant: scope.tenant, user: user ?? undefined, project: project ?? undefined, thread: thread ?? undefined, agent: agent ?? undefined },
          kind,
          payload,
          at: { epochMs: BigInt(at), offsetMinutes: 0 },
        }));
    } catch (e) {
      throw backend(e);
    }
  }

  /** Every appended event (tests, audits), as `MemoryStore.events()` gives them. */
  events() {
    try {
      return this.#stmt('SELECT tenant, session, seq, user, project, thread, agent, kind, at, payload FROM events ORDER BY tenant, session, seq')
        .raw(true).all()
        .map(([tenant, session, seq, user, project, thread, agent, kind, at, payload]) => ({
          tenant, session, seq,
          scope: { tenant, user: user ?? undefined, project: project ?? undefined, thread: thread ?? undefined, agent: agent ?? undefined },
          kind, at, payload,
        }));
    } catch (e) {
      throw backend(e);
    }
  }

  close() {
    if (this.#db.open) this.#db.close();
  }
}
