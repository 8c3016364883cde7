"""Stores for the Python host.

``SqliteStore`` keeps every tenant's memories in one SQLite database with the
Rust host's schema (``host/schema/``, shipped in the package's ``schema/``) and row format,
so a file written here opens with ``engram --db FILE`` and the other way
round; ``SqliteStore(":memory:")`` is a private in-memory database.

A store serves every tenant. The host opens it for one principal per call
and checks every scope against that principal first (``check_scope``): a
call outside it fails with ``store-error::denied`` before the store is
touched. Stores raise ``StoreError`` for refusals; anything else they raise
traps the call.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from wasmtime.component import Record

from .contract import SENSITIVITY_RANK
from .errors import StoreError
from .fingerprint import check_recorded, check_secret, key_id, random_secret, secret_from_hex, secret_to_file_text
from .records import field, rec

# ---------------------------------------------------------------- capability


def denial(principal: Record, scope: Any) -> Optional[str]:
    """Why ``scope`` lies outside ``principal`` (the first dimension that
    differs, with both values), or None when the principal covers it. Worded
    as the Rust host's ``backend::denial``."""
    if principal.tenant != scope.tenant:
        return f"tenant '{scope.tenant}' is outside this store handle's tenant '{principal.tenant}'"
    for dimension in ("user", "project"):
        allowed = getattr(principal, dimension)
        if allowed is None:
            continue
        asked = getattr(scope, dimension)
        if asked != allowed:
            what = f"a scope without a {dimension}" if asked is None else f"{dimension} '{asked}'"
            return f"{what} is outside this store handle's {dimension} '{allowed}'"
    return None


def covers(principal: Record, scope: Any) -> bool:
    """May ``principal`` act in ``scope``?"""
    return denial(principal, scope) is None


def check_scope(principal: Record, scope: Any) -> None:
    """Raise ``StoreError("denied")`` unless ``principal`` covers ``scope``."""
    why = denial(principal, scope)
    if why is not None:
        raise StoreError("denied", why)


# ---------------------------------------------------------------- SQLite

# Schema migrations, applied in order; `user_version` records how many ran.
# The Rust host's own files (`host/schema/*.sql`), so every host writes one
# format.
_SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
_MIGRATIONS = [f.read_text(encoding="utf-8") for f in sorted(_SCHEMA_DIR.glob("*.sql"))]

_SELECT_STORED = "SELECT m.body, m.etag, m.length, m.access_count, m.last_access FROM memories m"

Args = List[Any]


def _ms(d: Any) -> Optional[int]:
    return None if d is None else field(d, "epoch_ms")


def _needs_memory_columns(f: Any) -> bool:
    return (
        f.subject is not None
        or f.predicate is not None
        or f.condition.tag == "some"
        or field(f, "source_ref") is not None
    )


def _where(a: str, f: Any) -> Tuple[str, Args]:
    """The filter over table alias ``a`` (``m`` = memories, ``p`` = postings)."""
    scope = f.scope
    sql = [f"{a}.tenant = ?"]
    args: Args = [scope.tenant]
    match = field(f, "scope_match")
    for col in ("user", "project", "thread", "agent"):
        v = getattr(scope, col)
        if match == "exact":
            sql.append(f"{a}.{col} IS ?")
            args.append(v)
        elif match == "within":
            if v is not None:
                sql.append(f"{a}.{col} = ?")
                args.append(v)
        elif v is not None:
            sql.append(f"({a}.{col} IS NULL OR {a}.{col} = ?)")
            args.append(v)
        else:
            sql.append(f"{a}.{col} IS NULL")
    if f.kinds:
        sql.append(f"{a}.kind IN ({','.join('?' * len(f.kinds))})")
        args.extend(f.kinds)
    if f.statuses:
        sql.append(f"{a}.status IN ({','.join('?' * len(f.statuses))})")
        args.extend(f.statuses)
    if field(f, "exclude_archived"):
        sql.append(f"{a}.status <> 'archived'")
    valid_at = field(f, "valid_at")
    if valid_at is not None:
        sql.append(
            f"({a}.valid_from IS NULL OR {a}.valid_from <= ?) AND ({a}.valid_to IS NULL OR {a}.valid_to > ?)"
        )
        args.extend([_ms(valid_at), _ms(valid_at)])
    sensitivity_max = field(f, "sensitivity_max")
    if sensitivity_max is not None:
        sql.append(f"{a}.sensitivity <= ?")
        args.append(SENSITIVITY_RANK[sensitivity_max])
    if f.subject is not None:
        sql.append("m.subject = ?")
        args.append(f.subject)
    if f.predicate is not None:
        sql.append("m.predicate = ?")
        args.append(f.predicate)
    if f.condition.tag == "some":
        if f.condition.payload is None:
            sql.append("m.kind = 'semantic' AND m.condition IS NULL")
        else:
            sql.append("m.condition = ?")
            args.append(f.condition.payload)
    source_ref = field(f, "source_ref")
    if source_ref is not None:
        sql.append("(m.source_ref = ? OR m.rid IN (SELECT rid FROM derived_from WHERE event = ?))")
        args.extend([source_ref, source_ref])
    return " AND ".join(sql), args


def _principal_clause(p: Record) -> Tuple[str, Args]:
    sql = "m.tenant = ?"
    args: Args = [p.tenant]
    if p.user is not None:
        sql += " AND m.user = ?"
        args.append(p.user)
    if p.project is not None:
        sql += " AND m.project = ?"
        args.append(p.project)
    return sql, args


def _backend(e: Exception) -> StoreError:
    return e if isinstance(e, StoreError) else StoreError("backend", str(e))


def _create_key_file(path: str) -> bytes:
    """Write a new secret to ``path``, readable by its owner only; another
    process creating it first wins."""
    import os

    secret = random_secret()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return secret_from_hex(Path(path).read_text(encoding="utf-8"), f"fingerprint key {path}")
    except OSError as e:
        raise StoreError("backend", f"creating the fingerprint key {path}: {e}") from e
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(secret_to_file_text(secret))
    return secret


class SqliteStore:
    """A persistent store on SQLite (``:memory:`` for a private in-memory one).

    The fingerprint secret tombstones are keyed with is the key file beside
    the database (``<path>.key``, created 0600 on first use: the file the
    Rust host uses), or ``fingerprint_key_file``, or the bytes
    ``fingerprint_key``; a random one for ``:memory:``."""

    def __init__(
        self,
        path: str = ":memory:",
        *,
        fingerprint_key_file: Optional[str] = None,
        fingerprint_key: Optional[bytes] = None,
    ):
        self._secret: Optional[bytes] = None
        self._key_file: Optional[str] = None
        if fingerprint_key is not None:
            self._secret = check_secret(fingerprint_key)
        elif fingerprint_key_file is not None:
            self._key_file = str(fingerprint_key_file)
        elif path in (":memory:", ""):
            self._secret = random_secret()
        else:
            self._key_file = f"{path}.key"
        try:
            self._db = sqlite3.connect(path, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout = 30000")
            for pragma in (
                "journal_mode = WAL",
                "synchronous = NORMAL",
                "foreign_keys = ON",
                "cache_size = -65536",
                "mmap_size = 0",
                "temp_store = MEMORY",
                "secure_delete = ON",
            ):
                self._db.execute(f"PRAGMA {pragma}")
            self._migrate()
            # A crash between an erasing commit and its checkpoint: finish it first.
            if self._db.execute("SELECT count(*) FROM erasure_pending").fetchone()[0]:
                self._finish_erasure()
        except sqlite3.Error as e:
            raise StoreError("backend", f"opening {path}: {e}") from e
        #: Records handed to the guest so far (bounded-read checks).
        self.records_read = 0
        self._codec: Any = None

    def attach_codec(self, codec: Any) -> None:
        """Called by ``Engram``: a row's body is the contract's memory
        envelope, encoded and decoded by the component itself (its ``json``
        export), so this store writes exactly what the Rust host writes."""
        self._codec = codec

    def _body(self) -> Any:
        if self._codec is None:
            raise StoreError("backend", "SqliteStore needs the component to read and write memory rows: use it through Engram(store=...)")
        return self._codec

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def _migrate(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            at = self._db.execute("PRAGMA user_version").fetchone()[0]
            if at > len(_MIGRATIONS):
                raise StoreError(
                    "backend",
                    f"database schema version {at} is newer than this engram ({len(_MIGRATIONS)}); upgrade engram",
                )
            for i in range(at, len(_MIGRATIONS)):
                # Split on ';' but keep a trigger's body (BEGIN ... END) whole.
                statement = ""
                for part in _MIGRATIONS[i].split(";"):
                    statement += part + ";"
                    if sqlite3.complete_statement(statement):
                        if statement.strip(" \n;"):
                            self._db.execute(statement)
                        statement = ""
                self._db.execute(f"PRAGMA user_version = {i + 1}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------ reads

    def _query_stored(self, sql: str, args: Sequence[Any]) -> List[Record]:
        try:
            rows = self._db.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise _backend(e) from e
        out = []
        memories = self._body().decode_memories([row[0] for row in rows]) if rows else []
        for memory, (_body, etag, length, access, last) in zip(memories, rows):
            setattr(memory, "access-count", access)
            if last is not None:
                setattr(memory, "last-accessed", rec(epoch_ms=last, offset_minutes=0))
            # No term counts: the guest analyses candidates itself.
            out.append(rec(memory=memory, etag=etag, length=length, frequencies=[]))
        self.records_read += len(out)
        return out

    def find(self, filter: Any, limit: int) -> List[Record]:
        w, args = _where("m", filter)
        return self._query_stored(
            f"{_SELECT_STORED} WHERE {w} ORDER BY m.updated_at DESC, m.id, m.revision DESC LIMIT ?", [*args, limit]
        )

    def revisions(self, principal: Record, id: str) -> List[Record]:
        w, args = _principal_clause(principal)
        return self._query_stored(f"{_SELECT_STORED} WHERE {w} AND m.id = ? ORDER BY m.revision", [*args, id])

    def stats(self, filter: Any, terms: List[str]) -> Record:
        try:
            w, args = _where("m", filter)
            documents, average = self._db.execute(
                f"SELECT count(*), ifnull(avg(m.length), 0.0) FROM memories m WHERE {w}", args
            ).fetchone()
            if _needs_memory_columns(filter):
                sql = f"SELECT count(*) FROM postings p JOIN memories m ON m.rid = p.rid WHERE p.term = ? AND {w}"
                pargs = args
            else:
                pw, pargs = _where("p", filter)
                sql = f"SELECT count(*) FROM postings p WHERE p.term = ? AND {pw}"
            frequencies = [self._db.execute(sql, [t, *pargs]).fetchone()[0] for t in terms]
        except sqlite3.Error as e:
            raise _backend(e) from e
        return rec(documents=documents, average_length=float(average), frequencies=frequencies)

    def search(self, filter: Any, terms: List[Any], limit: int) -> List[Record]:
        if not terms or limit == 0:
            return []
        if not _needs_memory_columns(filter):
            return self._search_postings(filter, terms, limit)
        values = ", ".join(["(?, ?)"] * len(terms))
        args: Args = []
        for t in terms:
            args.extend([t.term, t.weight])
        w, fargs = _where("m", filter)
        args.extend(fargs)
        args.append(limit)
        return self._query_stored(
            f"""WITH q(term, weight) AS (VALUES {values}),
                     hits AS (SELECT p.rid AS rid, sum(q.weight) AS score FROM q JOIN postings p ON p.term = q.term GROUP BY p.rid)
                SELECT m.body, m.etag, m.length, m.access_count, m.last_access
                FROM hits h JOIN memories m ON m.rid = h.rid
                WHERE {w}
                ORDER BY h.score DESC, m.id, m.revision
                LIMIT ?""",
            args,
        )

    def _search_postings(self, filter: Any, terms: List[Any], limit: int) -> List[Record]:
        """Search when the filter lives entirely in the postings (as the Rust
        host does it): read each term's postings under the filter, sum the
        weights per record in term order, keep the ``limit`` best (score,
        then row id), load only those, order them by score, id and revision."""
        pw, fargs = _where("p", filter)
        scores: dict = {}
        try:
            for t in terms:
                for (rid,) in self._db.execute(f"SELECT p.rid FROM postings p WHERE p.term = ? AND {pw}", [t.term, *fargs]):
                    scores[rid] = scores.get(rid, 0.0) + t.weight
        except sqlite3.Error as e:
            raise _backend(e) from e
        hits = sorted(scores.items(), key=lambda h: (-h[1], h[0]))[:limit]
        out = []
        for rid, score in hits:
            rows = self._query_stored(f"{_SELECT_STORED} WHERE m.rid = ?", [rid])
            if rows:
                out.append((score, rows[0]))
        out.sort(key=lambda h: (-h[0], h[1].memory.id.encode("utf-8"), h[1].memory.revision))
        return [stored for _, stored in out]

    def tombstones(self, scope: Any) -> List[Record]:
        """Tombstones whose owner ``scope`` can see (user and project unset or equal)."""
        try:
            rows = self._db.execute(
                "SELECT user, project, fingerprint, length, kind, created_at, offset_min FROM tombstones "
                "WHERE tenant = ? AND (user IS NULL OR user = ?) AND (project IS NULL OR project = ?) "
                "ORDER BY created_at, fingerprint, user, project",
                [scope.tenant, scope.user, scope.project],
            ).fetchall()
        except sqlite3.Error as e:
            raise _backend(e) from e
        return [
            rec(
                scope=rec(tenant=scope.tenant, user=u, project=p, thread=None, agent=None),
                fingerprint=fp,
                length=n,
                kind=k,
                created_at=rec(epoch_ms=at, offset_minutes=off),
            )
            for u, p, fp, n, k, at, off in rows
        ]

    def _recorded_key_id(self) -> Optional[str]:
        row = self._db.execute("SELECT key_id FROM fingerprint_key WHERE id = 1").fetchone()
        return None if row is None else row[0]

    def fingerprint_secret(self) -> bytes:
        """The secret fingerprint keys are derived from: loaded (or created,
        while the store has recorded no key) and checked against the key id
        the store recorded for its tombstones."""
        recorded = self._recorded_key_id()
        if self._secret is None:
            path = self._key_file or ""
            try:
                self._secret = secret_from_hex(Path(path).read_text(encoding="utf-8"), f"fingerprint key {path}")
            except FileNotFoundError:
                if recorded is not None:
                    raise StoreError(
                        "backend",
                        f"the fingerprint key file {path} is missing, but this store's tombstones were made with a "
                        f"key (key id {recorded}): restore it from a backup; without it erased content is no longer "
                        "recognised (docs/durability.md)",
                    ) from None
                self._secret = _create_key_file(path)
            except OSError as e:
                raise StoreError("backend", f"fingerprint key {path}: {e}") from e
        check_recorded(self._secret, recorded, self._key_file or "of this store")
        return self._secret

    def events(self) -> List[Dict[str, Any]]:
        """Every appended event (tests, audits)."""
        rows = self._db.execute(
            "SELECT tenant, session, seq, user, project, thread, agent, kind, at, payload FROM events "
            "ORDER BY tenant, session, seq"
        ).fetchall()
        return [
            {"tenant": t, "session": se, "seq": q, "user": u, "project": p, "thread": th, "agent": a,
             "kind": k, "at": at, "payload": pl}
            for t, se, q, u, p, th, a, k, at, pl in rows
        ]

    def count_events(self, scope: Any, kind: str, since: Any) -> int:
        try:
            return self._db.execute(
                "SELECT count(*) FROM events WHERE tenant = ? AND user IS ? AND project IS ? AND thread IS ? "
                "AND agent IS ? AND kind = ? AND at >= ?",
                [scope.tenant, scope.user, scope.project, scope.thread, scope.agent, kind, _ms(since)],
            ).fetchone()[0]
        except sqlite3.Error as e:
            raise _backend(e) from e

    def session_log(self, scope: Any, session: str, kind: str) -> List[Record]:
        """The events of one session and kind whose scope ``scope`` can see
        (every dimension unset or equal), oldest first by sequence. The table
        keeps an event's instant, not its offset (0 here, as in the Rust
        store)."""
        try:
            rows = self._db.execute(
                "SELECT user, project, thread, agent, payload, at FROM events "
                "WHERE tenant = ? AND session = ? AND kind = ? "
                "AND (user IS NULL OR user = ?) AND (project IS NULL OR project = ?) "
                "AND (thread IS NULL OR thread = ?) AND (agent IS NULL OR agent = ?) "
                "ORDER BY seq",
                [scope.tenant, session, kind, scope.user, scope.project, scope.thread, scope.agent],
            ).fetchall()
        except sqlite3.Error as e:
            raise _backend(e) from e
        return [
            rec(
                session=session,
                scope=rec(tenant=scope.tenant, user=u, project=p, thread=th, agent=a),
                kind=kind,
                payload=pl,
                at=rec(epoch_ms=at, offset_minutes=0),
            )
            for u, p, th, a, pl, at in rows
        ]

    # ------------------------------------------------------------ writes

    def commit(self, principal: Record, ops: List[Any]) -> Record:
        """All or nothing, in one IMMEDIATE transaction."""
        sequences: List[int] = []
        etags: List[int] = []
        # Erasure reaches the bytes as in the Rust store: secure_delete zeroes
        # what the delete frees, a marker commits with the erasure, and a
        # checkpoint that truncates the WAL follows (docs/durability.md).
        erases = any(
            op.tag == "erase" or (op.tag == "scrub-events" and op.payload.fragment != "") for op in ops
        )
        # Tombstones are recorded with the id of the key they were made with.
        kid = key_id(self.fingerprint_secret()) if any(op.tag == "tombstone" for op in ops) else None
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise _backend(e) from e
        try:
            if erases:
                self._db.execute("INSERT OR IGNORE INTO erasure_pending (id) VALUES (1)")
            if kid is not None:
                self._db.execute(
                    "INSERT INTO fingerprint_key (id, key_id) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", [kid]
                )
                recorded = self._recorded_key_id()
                if recorded != kid:
                    raise StoreError(
                        "backend",
                        f"this store's tombstones were made with fingerprint key id {recorded}, not this host's "
                        f"{kid}: every host of a store needs the same key file (docs/durability.md)",
                    )
            for op in ops:
                self._apply(principal, op, sequences, etags)
            self._db.execute("COMMIT")
        except BaseException as e:
            self._db.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error):
                raise _backend(e) from e
            raise
        if erases:
            self._finish_erasure()
        return rec(sequences=sequences, etags=etags)

    def _finish_erasure(self) -> None:
        """Checkpoint into the database file and truncate the WAL, then clear the marker."""
        try:
            busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            if busy:
                raise StoreError(
                    "backend",
                    "erased, but another connection kept reading, so the erased pages are still in the "
                    "write-ahead log; they are scrubbed at the next open or erasing commit",
                )
            self._db.execute("DELETE FROM erasure_pending")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as e:
            raise _backend(e) from e

    def _write_row(self, memory: Any, index_terms: List[str], etag: int, rid: Optional[int]) -> None:
        body = self._body().encode_memory(memory)
        payload = memory.payload
        if payload.tag == "semantic":
            key = payload.payload
            subject, predicate, condition = key.subject, key.predicate, key.condition
        else:
            subject = predicate = condition = None
        what = f"{memory.id} revision {memory.revision}"
        terms = sorted(set(index_terms), key=lambda t: t.encode("utf-8"))
        counts = {t: index_terms.count(t) for t in terms}
        # The document length counts repeats, as the ranker does.
        length = len(index_terms)
        s = memory.scope
        vf, vt = _ms(field(memory, "valid_from")), _ms(field(memory, "valid_to"))
        sens = SENSITIVITY_RANK[memory.sensitivity]
        source_ref = memory.provenance.source.reference
        updated = _ms(field(memory, "updated_at"))
        try:
            if rid is None:
                cur = self._db.execute(
                    "INSERT INTO memories (id, revision, tenant, user, project, thread, agent, kind, status, sensitivity, "
                    "valid_from, valid_to, subject, predicate, condition, source_ref, updated_at, etag, length, "
                    "access_count, body) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    [
                        memory.id, memory.revision, s.tenant, s.user, s.project, s.thread, s.agent,
                        memory.kind, memory.status, sens, vf, vt, subject, predicate, condition, source_ref,
                        updated, etag, length, field(memory, "access_count"), body,
                    ],
                )
                rid = cur.lastrowid
            else:
                self._db.execute(
                    "UPDATE memories SET status = ?, sensitivity = ?, valid_from = ?, valid_to = ?, subject = ?, "
                    "predicate = ?, condition = ?, source_ref = ?, updated_at = ?, etag = ?, length = ?, body = ?, "
                    "kind = ? WHERE rid = ?",
                    [
                        memory.status, sens, vf, vt, subject, predicate, condition, source_ref, updated, etag,
                        length, body, memory.kind, rid,
                    ],
                )
                self._db.execute("DELETE FROM postings WHERE rid = ?", [rid])
                self._db.execute("DELETE FROM derived_from WHERE rid = ?", [rid])
        except sqlite3.IntegrityError as e:
            raise StoreError("conflict", f"{what}: {e}") from e
        self._db.executemany(
            "INSERT OR IGNORE INTO postings (term, tenant, rid, user, project, thread, agent, kind, status, "
            "sensitivity, valid_from, valid_to, tf) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (t, s.tenant, rid, s.user, s.project, s.thread, s.agent, memory.kind, memory.status, sens, vf, vt, counts[t])
                for t in terms
            ],
        )
        self._db.executemany(
            "INSERT OR IGNORE INTO derived_from (event, rid) VALUES (?, ?)",
            [(ev, rid) for ev in field(memory.provenance, "source_event_ids")],
        )

    def _apply(self, principal: Record, op: Any, sequences: List[int], etags: List[int]) -> None:
        tag, val = op.tag, op.payload
        if tag == "insert":
            self._write_row(val.memory, field(val, "index_terms"), 1, None)
            etags.append(1)
        elif tag == "update":
            m = val.memory
            # The stored row must lie within the principal too (as in the Rust
            # store): a user-pinned guest may not take over another user's
            # record; and a revision never moves to another scope.
            pw, pargs = _principal_clause(principal)
            s = m.scope
            cur = self._db.execute(
                f"SELECT m.rid, m.etag FROM memories m WHERE {pw} AND m.id = ? AND m.revision = ? AND m.tenant = ? "
                "AND m.user IS ? AND m.project IS ? AND m.thread IS ? AND m.agent IS ?",
                [*pargs, m.id, m.revision, s.tenant, s.user, s.project, s.thread, s.agent],
            ).fetchone()
            if cur is None:
                raise StoreError("conflict", f"{m.id} revision {m.revision} does not exist")
            rid, etag = cur
            expected = field(val, "expected_etag")
            if etag != expected:
                raise StoreError(
                    "conflict",
                    f"{m.id} revision {m.revision} was changed by another writer (etag {etag}, expected {expected})",
                )
            self._write_row(m, field(val, "index_terms"), etag + 1, rid)
            etags.append(etag + 1)
        elif tag == "erase":
            w, args = _principal_clause(principal)
            self._db.execute(
                f"DELETE FROM memories WHERE rid IN (SELECT m.rid FROM memories m WHERE {w} AND m.id = ?)", [*args, val]
            )
        elif tag == "scrub-events":
            # Only the events within the scrub's scope (checked by the host to
            # lie within the principal).
            scope, fragment = val.scope, val.fragment
            if fragment:
                sql, args = ["tenant = ?"], [scope.tenant]
                for col in ("user", "project", "thread", "agent"):
                    if getattr(scope, col) is not None:
                        sql.append(f"{col} = ?")
                        args.append(getattr(scope, col))
                self._db.execute(
                    f"UPDATE events SET payload = replace(payload, ?, '[erased]') WHERE {' AND '.join(sql)} "
                    "AND instr(payload, ?) > 0",
                    [fragment, *args, fragment],
                )
        elif tag == "tombstone":
            at = field(val, "created_at")
            s = val.scope
            self._db.execute(
                "INSERT OR IGNORE INTO tombstones (tenant, user, project, fingerprint, length, kind, created_at, "
                "offset_min) VALUES (?,?,?,?,?,?,?,?)",
                [s.tenant, s.user, s.project, val.fingerprint, val.length, val.kind, _ms(at), field(at, "offset_minutes")],
            )
        elif tag == "append":
            s = val.scope
            seq = self._db.execute(
                "SELECT ifnull(max(seq), 0) + 1 FROM events WHERE tenant = ? AND session = ?", [s.tenant, val.session]
            ).fetchone()[0]
            self._db.execute(
                "INSERT INTO events (tenant, session, seq, user, project, thread, agent, kind, at, payload) "
                "VALUES (?,?,?,?,?,?,?,?,?,?)",
                [s.tenant, val.session, seq, s.user, s.project, s.thread, s.agent, val.kind, _ms(val.at), val.payload],
            )
            sequences.append(seq)
        elif tag == "touch":
            ref = val.memory
            tw, targs = _principal_clause(principal)
            self._db.execute(
                "UPDATE memories SET access_count = access_count + 1, last_access = ? WHERE rid IN "
                f"(SELECT m.rid FROM memories m WHERE {tw} AND m.id = ? AND m.revision = ?)",
                [_ms(val.at), *targs, ref.id, ref.revision],
            )
        else:
            raise StoreError("invalid", f"unknown write op {tag!r}")
