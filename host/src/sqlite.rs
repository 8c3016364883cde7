//! The embedded SQLite store: one row per memory revision with a column for
//! every pushed-down filter, a postings table for guest-computed index
//! terms, an append-only event log, and tombstones. WAL mode; one
//! transaction per commit; a versioned schema with migrations.
//!
//! Erasure reaches the bytes: `secure_delete` zeroes what a delete frees,
//! and a commit that erased anything is followed by a checkpoint that
//! copies the zeroed pages into the database file and truncates the WAL, so
//! the forgotten text is in none of the three files. A marker row written
//! in the erasing transaction survives a crash between commit and
//! checkpoint; the next open finishes the checkpoint before anything else
//! (docs/durability.md).
//!
//! A CLI run can wrap many guest calls in one outer transaction
//! (`begin_batch`/`finish_batch`) so that a bad input line leaves nothing
//! half-written: each commit is then a savepoint inside it.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use rusqlite::{
    params, params_from_iter, Connection, OptionalExtension, ToSql, TransactionBehavior,
};

use crate::backend::Backend;
use crate::bindings::{
    Datetime, Event, Filter, MemoryKind, Principal, Receipt, Scope, ScopeMatch, Status, StoreError,
    Stored, TermStats, Tombstone, WeightedTerm, WriteOp,
};
use crate::bindings::{Memory, Payload};
use crate::fingerprint::{FingerprintSecret, KeyHolder, KeySource};
use crate::postings_cache::{self, Bounded, Documents, Posting, PostingsCache, TermPostings};

/// Schema migrations, applied in order; `user_version` records how many
/// ran. The SQL lives in `host/schema/`, which the Node and Python stores
/// read too, so one file set defines the format every host shares.
const MIGRATIONS: &[&str] = &[
    include_str!("../schema/0001-init.sql"),
    include_str!("../schema/0002-filter-index.sql"),
    include_str!("../schema/0003-term-counts.sql"),
    include_str!("../schema/0004-erasure-marker.sql"),
    include_str!("../schema/0005-scope-documents.sql"),
    include_str!("../schema/0006-tenant-ids-and-owned-tombstones.sql"),
];

/// How far a commit is pushed to disk before it returns (SQLite's
/// `synchronous` in WAL mode). Both keep the database consistent through any
/// crash; they differ in which crashes a returned commit survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// `synchronous = NORMAL`: a commit that returned survives the process
    /// being killed; an OS crash or power loss may lose the last commits
    /// (never corrupts). The WAL is fsynced at each checkpoint.
    #[default]
    Normal,
    /// `synchronous = FULL`: the WAL is fsynced at every commit, so a
    /// returned commit survives a power loss too; each commit costs an fsync.
    Full,
}

impl Durability {
    /// The name `--durability` takes.
    pub fn name(self) -> &'static str {
        match self {
            Durability::Normal => "normal",
            Durability::Full => "full",
        }
    }
    fn pragma(self) -> &'static str {
        match self {
            Durability::Normal => "NORMAL",
            Durability::Full => "FULL",
        }
    }
}

impl std::str::FromStr for Durability {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "normal" => Ok(Durability::Normal),
            "full" => Ok(Durability::Full),
            other => Err(format!("unknown durability '{other}' (normal or full)")),
        }
    }
}

/// How to open a SQLite store.
#[derive(Debug, Clone, Copy)]
pub struct SqliteOptions {
    /// What a returned commit survives.
    pub durability: Durability,
    /// How long a call waits for another connection's write lock before it
    /// fails with "database is locked".
    pub busy_timeout: Duration,
    /// Open the file read-only (`SQLITE_OPEN_READ_ONLY`): reads work on a
    /// file or directory the process cannot write; nothing is migrated or
    /// written, usage counts (`touch`) are skipped, any other write fails.
    pub read_only: bool,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            durability: Durability::Normal,
            busy_timeout: Duration::from_secs(30),
            read_only: false,
        }
    }
}

/// The embedded store: one SQLite file (or `:memory:`) with the schema of
/// `host/schema/*.sql`, for every tenant; each call is checked against its
/// principal by `backend::ScopedStore`.
pub struct SqliteStore {
    conn: Connection,
    /// Inside an outer CLI transaction: commits become savepoints.
    in_batch: bool,
    reads: u64,
    /// Term statistics and postings kept between recalls (see
    /// `postings_cache`).
    cache: PostingsCache,
    /// A commit since the last checkpoint erased content: checkpoint once
    /// the outermost transaction commits.
    erasure_due: bool,
    busy_timeout: Duration,
    /// Where the fingerprint secret comes from (`<db>.key` by default).
    key: KeyHolder,
    /// Opened read-only (`SqliteOptions::read_only`).
    read_only: bool,
    /// Usage counts a read-only store skipped (`skipped_touches`).
    skipped_touches: u64,
}

fn backend_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// A write asked of a store opened read-only.
fn read_only_write() -> StoreError {
    StoreError::Backend(
        "the database is open read-only (--read-only, or the file or its directory is not writable): nothing was written".into(),
    )
}

/// Open `path` read-only, creating nothing beside it where that can be
/// avoided. A WAL database is read through its `-shm` index, which SQLite
/// creates (with the file's own mode) when it is missing:
///
/// - a `-wal` file exists (a writer is running, or left changes): read
///   through it, as any reader does;
/// - no `-wal`, and the file's permission bits let nobody write it: no
///   writer can come, so the file is opened as immutable — nothing created
///   (a `-shm` made 0444 here would later stop its owner's writes);
/// - otherwise read normally; when the `-wal`/`-shm` files cannot be
///   created (a read-only directory) no writer can run either — it could
///   not create its `-wal` — so the file is opened as immutable.
fn open_read_only(path: &Path) -> Result<Connection, StoreError> {
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let meta = std::fs::metadata(path)
        .map_err(|e| StoreError::Backend(format!("unable to open database file: {e}")))?;
    let wal = std::fs::metadata(beside(path, "-wal"))
        .ok()
        .map(|m| m.len());
    let immutable = || Connection::open_with_flags(immutable_uri(path), flags).map_err(backend_err);
    if wal.is_none() && meta.permissions().readonly() {
        return immutable();
    }
    let conn = Connection::open_with_flags(path, flags).map_err(backend_err)?;
    // The first read opens the WAL index, if the file is in WAL mode.
    match conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)) {
        Ok(_) => Ok(conn),
        Err(e) if cannot_open(&e) && !beside(path, "-shm").exists() => {
            drop(conn);
            if wal.unwrap_or(0) > 0 {
                // Immutable would read the file without what the log holds.
                return Err(StoreError::Backend(format!(
                    "{e}: its write-ahead log (-wal) holds changes not yet in the file and, read-only, its index (-shm) cannot be created: open it once with write access"
                )));
            }
            immutable()
        }
        Err(e) => Err(backend_err(e)),
    }
}

fn cannot_open(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::CannotOpen) | Some(rusqlite::ErrorCode::ReadOnly)
    )
}

/// `<path><suffix>`: SQLite's `-wal` and `-shm` files.
fn beside(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    p.into()
}

/// `file:<path>?mode=ro&immutable=1`, the path percent-encoded.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'?' | b'#' | b'%' | 0x80.. => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(char::from(*b)),
        }
    }
    uri.push_str("?mode=ro&immutable=1");
    uri
}

/// Prefix a backend error with what was being done (e.g. the file opened).
fn with_context(e: StoreError, what: &str) -> StoreError {
    match e {
        StoreError::Backend(m) => StoreError::Backend(format!("{what}: {m}")),
        other => other,
    }
}

fn status_name(s: Status) -> &'static str {
    s.name()
}
fn kind_name(k: MemoryKind) -> &'static str {
    k.name()
}

impl SqliteStore {
    /// Open (creating and migrating as needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with(path, SqliteOptions::default())
    }

    /// Open with explicit durability and busy timeout.
    /// The fingerprint key is the file `<path>.key` beside it (created on
    /// first use) unless `with_key_source` names another.
    pub fn open_with(path: &Path, opts: SqliteOptions) -> Result<Self, StoreError> {
        let opened = if opts.read_only {
            open_read_only(path)
        } else {
            Connection::open(path).map_err(backend_err)
        };
        let opened = opened.and_then(|conn| Self::init(conn, opts, KeySource::beside(path)));
        opened.map_err(|e| with_context(e, &format!("opening {}", path.display())))
    }

    /// Opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// How many usage counts (`touch`) this read-only store skipped.
    pub fn skipped_touches(&self) -> u64 {
        self.skipped_touches
    }

    /// A private in-memory database (tests, benchmarks), with a fingerprint
    /// key of this process only.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::init(
            Connection::open_in_memory().map_err(backend_err)?,
            SqliteOptions::default(),
            KeySource::Ephemeral,
        )
    }

    /// Take the fingerprint secret from `source` instead.
    pub fn with_key_source(mut self, source: KeySource) -> Self {
        self.key = KeyHolder::new(source);
        self
    }

    /// The key id the store recorded for its tombstones, if any.
    fn recorded_key_id(&self) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT key_id FROM fingerprint_key WHERE id = 1", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(backend_err)
    }

    fn init(conn: Connection, opts: SqliteOptions, key: KeySource) -> Result<Self, StoreError> {
        conn.busy_timeout(opts.busy_timeout).map_err(backend_err)?;
        // Setting the journal mode writes the file's header: a read-only
        // connection takes the mode the file has.
        let journal = if opts.read_only {
            ""
        } else {
            "PRAGMA journal_mode = WAL;"
        };
        // A 64 MiB page cache and no mmap: with a 1 GiB mmap every page a
        // scan touched stayed in the process's RSS (373 MiB of file-backed
        // RSS at 100k memories in `engram-bench`); reads now go through the
        // OS page cache at no measurable cost. `secure_delete` zeroes freed
        // cells and pages, so erased text does not linger in free space.
        conn.execute_batch(&format!(
            "{journal} PRAGMA synchronous = {}; PRAGMA foreign_keys = ON;
             PRAGMA cache_size = -65536; PRAGMA mmap_size = 0; PRAGMA temp_store = MEMORY;
             PRAGMA secure_delete = ON;",
            opts.durability.pragma()
        ))
        .map_err(backend_err)?;
        // Room for every statement shape a commit and a recall use (the
        // default 16 made them evict each other).
        conn.set_prepared_statement_cache_capacity(64);
        let mut s = SqliteStore {
            conn,
            in_batch: false,
            reads: 0,
            cache: PostingsCache::default(),
            erasure_due: false,
            busy_timeout: opts.busy_timeout,
            key: KeyHolder::new(key),
            read_only: opts.read_only,
            skipped_touches: 0,
        };
        if s.read_only {
            s.check_schema_read_only()?;
            // An unfinished erasure's scrub is a write: the next writable
            // open does it (docs/durability.md).
            return Ok(s);
        }
        s.migrate()?;
        // A crash between an erasing commit and its checkpoint left the
        // erased pages' old images in the WAL: scrub them before any read.
        if s.erasure_pending()? {
            s.finish_erasure()?;
        }
        Ok(s)
    }

    /// Turn `secure_delete` off on this connection: erased rows then leave
    /// bytes in the file (docs/durability.md), so never for real data.
    /// `engram-bench` calls it to measure what secure deletion costs side
    /// by side.
    pub fn without_secure_delete_for_bench(self) -> Result<Self, StoreError> {
        self.conn
            .execute_batch("PRAGMA secure_delete = OFF;")
            .map_err(backend_err)?;
        Ok(self)
    }

    /// An erasing commit whose checkpoint has not completed yet.
    pub fn erasure_pending(&self) -> Result<bool, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM erasure_pending", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n > 0)
            .map_err(backend_err)
    }

    /// Copy every committed page into the database file and truncate the
    /// WAL, so erased content survives in neither; then clear the marker.
    /// Waits up to the busy timeout for other connections' readers; if they
    /// still hold old snapshots, the marker stays and the next erasing
    /// commit or open retries.
    fn finish_erasure(&mut self) -> Result<(), StoreError> {
        self.cache.clear();
        if !self.checkpoint_truncate()? {
            return Err(StoreError::Backend(format!(
                "erased, but another connection kept reading for {} s, so the erased pages are still in the write-ahead log; they are scrubbed at the next open or erasing commit",
                self.busy_timeout.as_secs()
            )));
        }
        self.conn
            .execute("DELETE FROM erasure_pending", [])
            .map_err(backend_err)?;
        // The marker's own deletion left a page in the WAL: no content, but
        // truncate again so the WAL file is empty after an erasure.
        self.checkpoint_truncate()?;
        Ok(())
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`; true when it completed.
    fn checkpoint_truncate(&self) -> Result<bool, StoreError> {
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
            .map_err(backend_err)?;
        Ok(busy == 0)
    }

    /// The schema version this database is at.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, u32>(0))
            .map_err(backend_err)
    }

    /// A read-only open migrates nothing: the schema must be this
    /// engram's already.
    fn check_schema_read_only(&self) -> Result<(), StoreError> {
        let at = self.schema_version()? as usize;
        if at == MIGRATIONS.len() {
            return Ok(());
        }
        Err(StoreError::Backend(if at > MIGRATIONS.len() {
            format!(
                "database schema version {at} is newer than this engram ({}); upgrade engram",
                MIGRATIONS.len()
            )
        } else if at == 0 {
            "opened read-only, but it is not an engram database (an empty file, or one no engram has written): nothing to read".to_string()
        } else {
            format!(
                "opened read-only, but its schema (version {at}) is older than this engram's ({}): open it once with write access (any engram command without --read-only, e.g. `engram list`) to migrate it",
                MIGRATIONS.len()
            )
        }))
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        // Only take the write lock when there is something to migrate: a
        // reader opening the file must not wait for a running writer.
        if self.schema_version()? as usize == MIGRATIONS.len() {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend_err)?;
        let at: usize = tx
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            .map_err(backend_err)? as usize;
        if at > MIGRATIONS.len() {
            return Err(StoreError::Backend(format!(
                "database schema version {at} is newer than this engram ({}); upgrade engram",
                MIGRATIONS.len()
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(at) {
            tx.execute_batch(sql).map_err(backend_err)?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(backend_err)?;
        }
        tx.commit().map_err(backend_err)
    }

    fn row_to_stored(
        body: String,
        etag: i64,
        length: i64,
        access: i64,
        last: Option<i64>,
        offset: i32,
    ) -> Result<Stored, StoreError> {
        let mut memory = engram_contract::body::decode(&body).map_err(StoreError::Backend)?;
        memory.access_count = access.clamp(0, u32::MAX as i64) as u32;
        if let Some(ms) = last {
            memory.last_accessed = Some(Datetime {
                epoch_ms: ms,
                offset_minutes: offset,
            });
        }
        Ok(Stored {
            memory,
            etag: etag as u64,
            length: length as u32,
            frequencies: Vec::new(),
        })
    }

    /// The records `sql` selects (`SELECT_STORED` columns), decoded.
    fn load_stored(&self, sql: &str, args: &[Box<dyn ToSql>]) -> Result<Vec<Stored>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(backend_err)?;
        let rows = stmt
            .query_map(params_from_iter(args.iter().map(|b| b.as_ref())), |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                ))
            })
            .map_err(backend_err)?;
        let mut out = Vec::new();
        for row in rows {
            let (body, etag, length, access, last) = row.map_err(backend_err)?;
            out.push(Self::row_to_stored(body, etag, length, access, last, 0)?);
        }
        Ok(out)
    }

    /// `load_stored`, counted as records handed out.
    fn query_stored(
        &mut self,
        sql: &str,
        args: &[Box<dyn ToSql>],
    ) -> Result<Vec<Stored>, StoreError> {
        let out = self.load_stored(sql, args)?;
        self.reads += out.len() as u64;
        Ok(out)
    }
}

impl SqliteStore {
    /// Make sure the cache holds the documents under `filter` (validity
    /// aside); returns the cache key. Only for filters that live in the
    /// postings (`!needs_memory_columns`). The revisions without validity
    /// bounds are counted from `scope_documents` (kept by triggers,
    /// migration 5: a few rows per scope), the bounded ones read through
    /// their partial index, so a cold process does not scan the scope. (At
    /// 100k live memories that scan was 20 ms of CPU, and every write
    /// dropped the cached result.)
    fn cache_documents(&mut self, filter: &Filter) -> Result<Filter, StoreError> {
        let version = self.data_version()?;
        self.cache.check_version(version);
        let key = postings_cache::key_of(filter);
        if self.cache.documents(&key).is_some() {
            return Ok(key);
        }
        let mut docs = Documents::default();
        let (sw, sargs) = where_clause_on("s", &key);
        let (count, length): (i64, i64) = self
            .conn
            .prepare_cached(&format!(
                "SELECT ifnull(sum(s.documents), 0), ifnull(sum(s.length), 0) FROM scope_documents s WHERE {sw}"
            ))
            .and_then(|mut st| {
                st.query_row(params_from_iter(sargs.iter().map(|b| b.as_ref())), |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
            })
            .map_err(backend_err)?;
        docs.unbounded = count.max(0);
        docs.unbounded_length = length.max(0);
        let (w, args) = where_clause(&key);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT m.rid, m.valid_from, m.valid_to, m.length FROM memories m INDEXED BY memories_bounded
                 WHERE {w} AND (m.valid_from IS NOT NULL OR m.valid_to IS NOT NULL)"
            ))
            .map_err(backend_err)?;
        let mut rows = stmt
            .query(params_from_iter(args.iter().map(|b| b.as_ref())))
            .map_err(backend_err)?;
        while let Some(r) = rows.next().map_err(backend_err)? {
            let b = Bounded {
                valid_from: r.get(1).map_err(backend_err)?,
                valid_to: r.get(2).map_err(backend_err)?,
                length: r.get(3).map_err(backend_err)?,
            };
            docs.bounded.insert(r.get(0).map_err(backend_err)?, b);
        }
        drop(rows);
        drop(stmt);
        self.cache.insert_documents(key.clone(), docs);
        Ok(key)
    }

    /// Run `f` over the documents under `filter` (validity aside) and the
    /// postings of each of `terms`, in order: from the cache, else read now
    /// (and kept when they fit). The one way `stats` and `search` reach
    /// the index when the filter lives in the postings.
    fn with_postings<R>(
        &mut self,
        filter: &Filter,
        terms: &[&str],
        f: impl FnOnce(&Documents, &[&TermPostings]) -> R,
    ) -> Result<R, StoreError> {
        let key = self.cache_documents(filter)?;
        let uncached = self.load_postings(&key, terms)?;
        Ok(self.cache.with_lists(&key, terms, &uncached, f))
    }

    /// Make sure the postings of `terms` under `key` (a cache key: validity
    /// aside) are at hand: cached, or, when too many to keep, returned by
    /// term. The terms not cached yet are read in one statement (a recall's
    /// neighbour lookup asks for a dozen one-posting terms at once). The
    /// entry must exist (`cache_documents`).
    fn load_postings(
        &mut self,
        key: &Filter,
        terms: &[&str],
    ) -> Result<HashMap<String, TermPostings>, StoreError> {
        self.cache.make_room();
        let mut missing: Vec<&str> = terms
            .iter()
            .copied()
            .filter(|t| self.cache.postings(key, t).is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let mut read: HashMap<String, Vec<Posting>> = missing
            .iter()
            .map(|t| (t.to_string(), Vec::new()))
            .collect();
        let (pw, pargs) = where_clause_on("p", key);
        // IN lists padded to a power of two, so a handful of statement
        // shapes serve every query (repeating a term in IN is harmless).
        for chunk in missing.chunks(64) {
            let width = chunk.len().next_power_of_two();
            let mut stmt = self
                .conn
                .prepare_cached(&format!(
                    "SELECT p.term, p.rid, p.tf FROM postings p WHERE p.term IN ({}) AND {pw}",
                    vec!["?"; width].join(",")
                ))
                .map_err(backend_err)?;
            let mut a: Vec<&dyn ToSql> = Vec::with_capacity(width + pargs.len());
            for i in 0..width {
                a.push(&chunk[i.min(chunk.len() - 1)]);
            }
            a.extend(pargs.iter().map(|b| b.as_ref()));
            let mut rows = stmt.query(params_from_iter(a)).map_err(backend_err)?;
            while let Some(row) = rows.next().map_err(backend_err)? {
                let term: String = row.get(0).map_err(backend_err)?;
                let tf: Option<i64> = row.get(2).map_err(backend_err)?;
                read.entry(term).or_default().push(Posting {
                    rid: row.get(1).map_err(backend_err)?,
                    tf: tf.map_or(0, |n| n.clamp(0, u32::MAX as i64) as u32),
                    bounded: false,
                });
            }
        }
        let mut kept_out = HashMap::new();
        for (term, list) in read {
            if let Some(p) = self.cache.insert_postings(key, &term, list) {
                kept_out.insert(term, p);
            }
        }
        Ok(kept_out)
    }

    /// Changes when another connection commits to the database.
    fn data_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(backend_err)
    }

    /// Candidate search when the filter lives entirely in the postings:
    /// sum the weights of each record's matched terms over the (cached)
    /// posting lists (`postings_cache::best_hits`), keep the `limit` best (score, then
    /// rid), and only then load those records, each with how often every
    /// searched term occurs in it. The same result as a SQL `GROUP BY …
    /// ORDER BY … LIMIT`, without its two temporary B-trees over every
    /// matched posting.
    fn search_postings(
        &mut self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        let asked: Vec<&str> = terms.iter().map(|t| t.term.as_str()).collect();
        let hits = self.with_postings(filter, &asked, |documents, lists| {
            postings_cache::best_hits(terms, lists, documents, filter.valid_at, limit)
        })?;
        let mut out: Vec<(f64, Stored)> = Vec::with_capacity(hits.len());
        for (rid, score, frequencies) in hits {
            let stored = match self.cache.record(rid) {
                Some(s) => s.clone(),
                None => {
                    let Some(s) = self
                        .load_stored(
                            &format!("{SELECT_STORED} WHERE m.rid = ?"),
                            &[Box::new(rid)],
                        )?
                        .pop()
                    else {
                        continue;
                    };
                    self.cache.insert_record(rid, s.clone());
                    s
                }
            };
            out.push((
                score,
                Stored {
                    frequencies,
                    ..stored
                },
            ));
        }
        out.sort_by(|a, b| {
            b.0.partial_cmp(&a.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.1.memory.id.cmp(&b.1.memory.id))
                .then_with(|| a.1.memory.revision.cmp(&b.1.memory.revision))
        });
        self.reads += out.len() as u64;
        Ok(out.into_iter().map(|(_, s)| s).collect())
    }
}

/// SQL for a filter over `memories m`, with its parameters.
fn where_clause(f: &Filter) -> (String, Vec<Box<dyn ToSql>>) {
    where_clause_on("m", f)
}

/// Does the filter need columns only `memories` has (key, source)?
fn needs_memory_columns(f: &Filter) -> bool {
    f.subject.is_some() || f.predicate.is_some() || f.condition.is_some() || f.source_ref.is_some()
}

/// The filter over table alias `a` (`m` = memories, `p` = postings, which
/// carry every column except the key and source ones).
fn where_clause_on(a: &str, f: &Filter) -> (String, Vec<Box<dyn ToSql>>) {
    let mut sql = vec![format!("{a}.tenant = ?")];
    let mut args: Vec<Box<dyn ToSql>> = vec![Box::new(f.scope.tenant.clone())];
    for (col, val) in [
        ("user", &f.scope.user),
        ("project", &f.scope.project),
        ("thread", &f.scope.thread),
        ("agent", &f.scope.agent),
    ] {
        match (f.scope_match, val) {
            (ScopeMatch::Exact, v) => {
                sql.push(format!("{a}.{col} IS ?"));
                args.push(Box::new(v.clone()));
            }
            (ScopeMatch::Visible, Some(v)) => {
                sql.push(format!("({a}.{col} IS NULL OR {a}.{col} = ?)"));
                args.push(Box::new(v.clone()));
            }
            (ScopeMatch::Visible, None) => sql.push(format!("{a}.{col} IS NULL")),
            (ScopeMatch::Within, Some(v)) => {
                sql.push(format!("{a}.{col} = ?"));
                args.push(Box::new(v.clone()));
            }
            (ScopeMatch::Within, None) => {}
        }
    }
    if !f.kinds.is_empty() {
        sql.push(format!(
            "{a}.kind IN ({})",
            vec!["?"; f.kinds.len()].join(",")
        ));
        args.extend(
            f.kinds
                .iter()
                .map(|k| Box::new(kind_name(*k)) as Box<dyn ToSql>),
        );
    }
    if !f.statuses.is_empty() {
        sql.push(format!(
            "{a}.status IN ({})",
            vec!["?"; f.statuses.len()].join(",")
        ));
        args.extend(
            f.statuses
                .iter()
                .map(|s| Box::new(status_name(*s)) as Box<dyn ToSql>),
        );
    }
    if f.exclude_archived {
        sql.push(format!("{a}.status <> 'archived'"));
    }
    if let Some(at) = f.valid_at {
        sql.push(format!("({a}.valid_from IS NULL OR {a}.valid_from <= ?) AND ({a}.valid_to IS NULL OR {a}.valid_to > ?)"));
        args.push(Box::new(at.epoch_ms));
        args.push(Box::new(at.epoch_ms));
    }
    if let Some(s) = f.sensitivity_max {
        sql.push(format!("{a}.sensitivity <= ?"));
        args.push(Box::new(i64::from(s.rank())));
    }
    if let Some(s) = &f.subject {
        sql.push("m.subject = ?".into());
        args.push(Box::new(s.clone()));
    }
    if let Some(p) = &f.predicate {
        sql.push("m.predicate = ?".into());
        args.push(Box::new(p.clone()));
    }
    match &f.condition {
        None => {}
        Some(None) => sql.push("m.kind = 'semantic' AND m.condition IS NULL".into()),
        Some(Some(c)) => {
            sql.push("m.condition = ?".into());
            args.push(Box::new(c.clone()));
        }
    }
    if let Some(r) = &f.source_ref {
        sql.push(
            "(m.source_ref = ? OR m.rid IN (SELECT rid FROM derived_from WHERE event = ?))".into(),
        );
        args.push(Box::new(r.clone()));
        args.push(Box::new(r.clone()));
    }
    (sql.join(" AND "), args)
}

const SELECT_STORED: &str =
    "SELECT m.body, m.etag, m.length, m.access_count, m.last_access FROM memories m";

/// Columns derived from a memory for filtering.
struct Columns<'a> {
    subject: Option<&'a str>,
    predicate: Option<&'a str>,
    condition: Option<&'a str>,
}

fn columns(m: &Memory) -> Columns<'_> {
    match &m.payload {
        Payload::Semantic(p) => Columns {
            subject: Some(&p.subject),
            predicate: Some(&p.predicate),
            condition: p.condition.as_deref(),
        },
        _ => Columns {
            subject: None,
            predicate: None,
            condition: None,
        },
    }
}

fn conflict_or_backend(e: rusqlite::Error, what: &str) -> StoreError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            StoreError::Conflict(format!("{what}: {e}"))
        }
        _ => backend_err(e),
    }
}

/// Distinct index terms with how often each occurs (sorted by term).
fn term_counts(terms: &[String]) -> Vec<(&str, i64)> {
    let mut sorted: Vec<&str> = terms.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    let mut out: Vec<(&str, i64)> = Vec::with_capacity(sorted.len());
    for t in sorted {
        match out.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => out.push((t, 1)),
        }
    }
    out
}

/// Write one revision: its row (inserted, or updated in place at `rid`),
/// its postings and its source events. Every statement is prepared once
/// per connection (a 21-column insert compiled per memory was a large
/// share of a commit).
fn write_row(
    tx: &rusqlite::Savepoint,
    m: &Memory,
    terms: &[String],
    etag: i64,
    rid: Option<i64>,
) -> Result<i64, StoreError> {
    let body = engram_contract::body::encode(m);
    let c = columns(m);
    let what = || format!("{} revision {}", m.id, m.revision);
    // Distinct terms with their counts; the length counts repeats.
    let uniq = term_counts(terms);
    let length = terms.len() as i64;
    let rid = match rid {
        None => {
            tx.prepare_cached(
                "INSERT INTO memories (id, revision, tenant, user, project, thread, agent, kind, status, sensitivity,
                    valid_from, valid_to, subject, predicate, condition, source_ref, updated_at, etag, length, access_count, body)
                 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    m.id, m.revision, m.scope.tenant, m.scope.user, m.scope.project, m.scope.thread, m.scope.agent,
                    kind_name(m.kind), status_name(m.status), i64::from(m.sensitivity.rank()),
                    m.valid_from.map(|d| d.epoch_ms), m.valid_to.map(|d| d.epoch_ms),
                    c.subject, c.predicate, c.condition, m.provenance.source.reference,
                    m.updated_at.epoch_ms, etag, length, m.access_count, body
                ])
            })
            .map_err(|e| conflict_or_backend(e, &what()))?;
            tx.last_insert_rowid()
        }
        Some(rid) => {
            tx.prepare_cached(
                "UPDATE memories SET status = ?, sensitivity = ?, valid_from = ?, valid_to = ?, subject = ?, predicate = ?,
                    condition = ?, source_ref = ?, updated_at = ?, etag = ?, length = ?, body = ?, kind = ?
                 WHERE rid = ?",
            )
            .and_then(|mut st| {
                st.execute(params![
                    status_name(m.status), i64::from(m.sensitivity.rank()),
                    m.valid_from.map(|d| d.epoch_ms), m.valid_to.map(|d| d.epoch_ms),
                    c.subject, c.predicate, c.condition, m.provenance.source.reference,
                    m.updated_at.epoch_ms, etag, length, body, kind_name(m.kind), rid
                ])
            })
            .map_err(|e| conflict_or_backend(e, &what()))?;
            for sql in [
                "DELETE FROM postings WHERE rid = ?",
                "DELETE FROM derived_from WHERE rid = ?",
            ] {
                tx.prepare_cached(sql)
                    .and_then(|mut st| st.execute([rid]))
                    .map_err(backend_err)?;
            }
            rid
        }
    };
    write_postings(tx, m, rid, &uniq)?;
    let mut der = tx
        .prepare_cached("INSERT OR IGNORE INTO derived_from (event, rid) VALUES (?, ?)")
        .map_err(backend_err)?;
    for ev in &m.provenance.source_event_ids {
        der.execute(params![ev, rid]).map_err(backend_err)?;
    }
    Ok(rid)
}

/// The postings of one memory, one prepared single-row insert each. (Eight
/// rows per statement, with the memory's columns bound once, measured 3.5x
/// more CPU per commit in `engram-bench`: a statement that may write
/// several rows inside a savepoint opens a statement journal.)
fn write_postings(
    tx: &rusqlite::Savepoint,
    m: &Memory,
    rid: i64,
    uniq: &[(&str, i64)],
) -> Result<(), StoreError> {
    let mut ins = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO postings (term, tenant, rid, user, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, tf)
             VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        )
        .map_err(backend_err)?;
    let (kind, status, sens) = (
        kind_name(m.kind),
        status_name(m.status),
        i64::from(m.sensitivity.rank()),
    );
    let (vf, vt) = (
        m.valid_from.map(|d| d.epoch_ms),
        m.valid_to.map(|d| d.epoch_ms),
    );
    for (term, tf) in uniq {
        ins.execute(params![
            term,
            m.scope.tenant,
            rid,
            m.scope.user,
            m.scope.project,
            m.scope.thread,
            m.scope.agent,
            kind,
            status,
            sens,
            vf,
            vt,
            tf
        ])
        .map_err(backend_err)?;
    }
    Ok(())
}

/// Rows of alias `a` within `scope`: every dimension it sets is equal.
fn within_clause(a: &str, scope: &Scope) -> (String, Vec<Box<dyn ToSql>>) {
    let mut sql = format!("{a}.tenant = ?");
    let mut args: Vec<Box<dyn ToSql>> = vec![Box::new(scope.tenant.clone())];
    for (col, val) in [
        ("user", &scope.user),
        ("project", &scope.project),
        ("thread", &scope.thread),
        ("agent", &scope.agent),
    ] {
        if let Some(v) = val {
            sql.push_str(&format!(" AND {a}.{col} = ?"));
            args.push(Box::new(v.clone()));
        }
    }
    (sql, args)
}

fn principal_clause(p: &Principal) -> (String, Vec<Box<dyn ToSql>>) {
    let mut sql = "m.tenant = ?".to_string();
    let mut args: Vec<Box<dyn ToSql>> = vec![Box::new(p.tenant.clone())];
    if let Some(u) = &p.user {
        sql.push_str(" AND m.user = ?");
        args.push(Box::new(u.clone()));
    }
    if let Some(pr) = &p.project {
        sql.push_str(" AND m.project = ?");
        args.push(Box::new(pr.clone()));
    }
    (sql, args)
}

impl Backend for SqliteStore {
    fn find(&mut self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        let (w, mut args) = where_clause(filter);
        args.push(Box::new(limit as i64));
        self.query_stored(
            &format!("{SELECT_STORED} WHERE {w} ORDER BY m.updated_at DESC, m.id, m.revision DESC LIMIT ?"),
            &args,
        )
    }

    fn revisions(&mut self, principal: &Principal, id: &str) -> Result<Vec<Stored>, StoreError> {
        let (w, mut args) = principal_clause(principal);
        args.push(Box::new(id.to_string()));
        self.query_stored(
            &format!("{SELECT_STORED} WHERE {w} AND m.id = ? ORDER BY m.revision"),
            &args,
        )
    }

    fn stats(&mut self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        let at = filter.valid_at;
        if !needs_memory_columns(filter) {
            let asked: Vec<&str> = terms.iter().map(String::as_str).collect();
            let ((documents, average_length), frequencies) =
                self.with_postings(filter, &asked, |d, lists| {
                    let f = lists.iter().map(|l| l.frequency(d, at)).collect();
                    (d.at(at), f)
                })?;
            return Ok(TermStats {
                documents: documents as u64,
                average_length,
                frequencies,
            });
        }
        // Key and source filters need the memory rows: count through them.
        let (w, args) = where_clause(filter);
        let (documents, average_length): (i64, f64) = self
            .conn
            .prepare_cached(&format!(
                "SELECT count(*), ifnull(avg(m.length), 0.0) FROM memories m WHERE {w}"
            ))
            .and_then(|mut s| {
                s.query_row(params_from_iter(args.iter().map(|b| b.as_ref())), |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
            })
            .map_err(backend_err)?;
        let sql = format!("SELECT count(*) FROM postings p JOIN memories m ON m.rid = p.rid WHERE p.term = ? AND {w}");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(backend_err)?;
        let mut frequencies = Vec::with_capacity(terms.len());
        for term in terms {
            let mut a: Vec<&dyn ToSql> = vec![term];
            a.extend(args.iter().map(|b| b.as_ref()));
            let n: i64 = stmt
                .query_row(params_from_iter(a), |r| r.get(0))
                .map_err(backend_err)?;
            frequencies.push(n as u64);
        }
        Ok(TermStats {
            documents: documents as u64,
            average_length,
            frequencies,
        })
    }

    fn search(
        &mut self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        if !needs_memory_columns(filter) {
            return self.search_postings(filter, terms, limit);
        }
        let values = vec!["(?, ?)"; terms.len()].join(", ");
        let mut args: Vec<Box<dyn ToSql>> = Vec::new();
        for t in terms {
            args.push(Box::new(t.term.clone()));
            args.push(Box::new(t.weight));
        }
        let (w, fargs) = where_clause(filter);
        args.extend(fargs);
        let sql = format!(
            "WITH q(term, weight) AS (VALUES {values}),
                  hits AS (SELECT p.rid AS rid, sum(q.weight) AS score FROM q JOIN postings p ON p.term = q.term GROUP BY p.rid)
             SELECT m.body, m.etag, m.length, m.access_count, m.last_access
             FROM hits h JOIN memories m ON m.rid = h.rid
             WHERE {w}
             ORDER BY h.score DESC, m.id, m.revision
             LIMIT ?"
        );
        args.push(Box::new(limit as i64));
        self.query_stored(&sql, &args)
    }

    fn commit(&mut self, principal: &Principal, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        if self.read_only {
            // Usage counts are bookkeeping a read may skip; anything else
            // is a write the caller asked for.
            if ops.iter().all(|op| matches!(op, WriteOp::Touch(_))) {
                self.skipped_touches += ops.len() as u64;
                return Ok(Receipt {
                    sequences: Vec::new(),
                    etags: Vec::new(),
                });
            }
            return Err(read_only_write());
        }
        self.cache.clear();
        // Tombstones are recorded with the id of the key they were made with.
        let key_id = if ops.iter().any(|op| matches!(op, WriteOp::Tombstone(_))) {
            Some(self.fingerprint_secret()?.key_id())
        } else {
            None
        };
        let outer = if self.in_batch { None } else { Some(()) };
        if outer.is_some() {
            self.conn
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(backend_err)?;
        }
        let result = apply_ops(&mut self.conn, principal, ops, key_id.as_deref());
        if outer.is_none() {
            // Inside a batch: the erasure completes when the batch commits.
            if let Ok((_, erased)) = &result {
                self.erasure_due |= erased;
            }
            return result.map(|(receipt, _)| receipt);
        }
        let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
        self.conn.execute_batch(end).map_err(backend_err)?;
        let (receipt, erased) = result?;
        if erased {
            self.finish_erasure()?;
        }
        Ok(receipt)
    }

    fn tombstones(&mut self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT user, project, fingerprint, length, kind, created_at, offset_min FROM tombstones
                 WHERE tenant = ? AND (user IS NULL OR user = ?) AND (project IS NULL OR project = ?)
                 ORDER BY created_at, fingerprint, user, project",
            )
            .map_err(backend_err)?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.user, scope.project], |r| {
                Ok(Tombstone {
                    scope: Scope {
                        tenant: scope.tenant.clone(),
                        user: r.get(0)?,
                        project: r.get(1)?,
                        thread: None,
                        agent: None,
                    },
                    fingerprint: r.get(2)?,
                    length: r.get(3)?,
                    kind: r.get(4)?,
                    created_at: Datetime {
                        epoch_ms: r.get(5)?,
                        offset_minutes: r.get(6)?,
                    },
                })
            })
            .map_err(backend_err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend_err)
    }

    fn fingerprint_secret(&mut self) -> Result<FingerprintSecret, StoreError> {
        let recorded = self.recorded_key_id()?;
        self.key.resolve(recorded.as_deref())
    }

    fn count_events(
        &mut self,
        scope: &Scope,
        kind: &str,
        since: Datetime,
    ) -> Result<u64, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT count(*) FROM events WHERE tenant = ? AND user IS ? AND project IS ? AND thread IS ? AND agent IS ?
                 AND kind = ? AND at >= ?",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![scope.tenant, scope.user, scope.project, scope.thread, scope.agent, kind, since.epoch_ms],
                    |r| r.get::<_, i64>(0),
                )
            })
            .map(|n| n as u64)
            .map_err(backend_err)
    }

    fn session_log(
        &mut self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError> {
        // The primary key (tenant, session, seq) finds the session's rows.
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT user, project, thread, agent, payload, at FROM events
                 WHERE tenant = ?1 AND session = ?2 AND kind = ?3
                   AND (user IS NULL OR user = ?4) AND (project IS NULL OR project = ?5)
                   AND (thread IS NULL OR thread = ?6) AND (agent IS NULL OR agent = ?7)
                 ORDER BY seq",
            )
            .map_err(backend_err)?;
        let rows = stmt
            .query_map(
                params![
                    scope.tenant,
                    session,
                    kind,
                    scope.user,
                    scope.project,
                    scope.thread,
                    scope.agent
                ],
                |r| {
                    Ok(Event {
                        session: session.to_string(),
                        scope: Scope {
                            tenant: scope.tenant.clone(),
                            user: r.get(0)?,
                            project: r.get(1)?,
                            thread: r.get(2)?,
                            agent: r.get(3)?,
                        },
                        kind: kind.to_string(),
                        payload: r.get(4)?,
                        // The table keeps the instant, not its offset.
                        at: Datetime {
                            epoch_ms: r.get(5)?,
                            offset_minutes: 0,
                        },
                    })
                },
            )
            .map_err(backend_err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend_err)
    }

    fn records_read(&self) -> u64 {
        self.reads
    }

    fn tenants_of(&mut self, id: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT tenant FROM memories WHERE id = ? ORDER BY tenant")
            .map_err(backend_err)?;
        let rows = stmt.query_map([id], |r| r.get(0)).map_err(backend_err)?;
        rows.collect::<Result<Vec<String>, _>>()
            .map_err(backend_err)
    }

    fn begin_batch(&mut self) -> Result<(), StoreError> {
        self.cache.clear();
        // Read-only: one read transaction (a consistent snapshot); a write
        // inside it is refused by `commit`.
        self.conn
            .execute_batch(if self.read_only {
                "BEGIN DEFERRED"
            } else {
                "BEGIN IMMEDIATE"
            })
            .map_err(backend_err)?;
        self.in_batch = true;
        Ok(())
    }

    fn in_batch(&self) -> bool {
        self.in_batch
    }

    fn finish_batch(&mut self, ok: bool) -> Result<(), StoreError> {
        self.cache.clear();
        if !self.in_batch {
            return Ok(());
        }
        self.in_batch = false;
        let erased = std::mem::take(&mut self.erasure_due);
        self.conn
            .execute_batch(if ok { "COMMIT" } else { "ROLLBACK" })
            .map_err(backend_err)?;
        if ok && erased {
            self.finish_erasure()?;
        }
        Ok(())
    }
}

/// Apply every op inside one savepoint: all or nothing. Also says whether
/// anything was erased (the caller then checkpoints after the commit); the
/// erasure marker is written in the same savepoint, so it commits with it.
fn apply_ops(
    conn: &mut Connection,
    principal: &Principal,
    ops: &[WriteOp],
    key_id: Option<&str>,
) -> Result<(Receipt, bool), StoreError> {
    let sp = conn.savepoint().map_err(backend_err)?;
    let erases = ops.iter().any(|op| match op {
        WriteOp::Erase(_) => true,
        WriteOp::ScrubEvents(s) => !s.fragment.is_empty(),
        _ => false,
    });
    if let Some(id) = key_id {
        // The first tombstone records the key; a later one made with
        // another key fails (another host with another key file).
        sp.execute(
            "INSERT INTO fingerprint_key (id, key_id) VALUES (1, ?) ON CONFLICT (id) DO NOTHING",
            [id],
        )
        .map_err(backend_err)?;
        let recorded: String = sp
            .query_row("SELECT key_id FROM fingerprint_key WHERE id = 1", [], |r| {
                r.get(0)
            })
            .map_err(backend_err)?;
        if recorded != id {
            return Err(StoreError::Backend(format!(
                "this store's tombstones were made with fingerprint key id {recorded}, not this host's {id}: every host of a store needs the same key file (docs/durability.md)"
            )));
        }
    }
    if erases {
        sp.execute("INSERT OR IGNORE INTO erasure_pending (id) VALUES (1)", [])
            .map_err(backend_err)?;
    }
    let mut receipt = Receipt {
        sequences: Vec::new(),
        etags: Vec::new(),
    };
    for op in ops {
        match op {
            WriteOp::Insert(ins) => {
                write_row(&sp, &ins.memory, &ins.index_terms, 1, None)?;
                receipt.etags.push(1);
            }
            WriteOp::Update(up) => {
                let m = &up.memory;
                // The stored row must lie within the principal too, not only
                // the new body: a user-pinned guest may not take over another
                // user's record by claiming it in its own scope.
                let (w, mut args) = principal_clause(principal);
                let s = &m.scope;
                args.extend([
                    Box::new(m.id.clone()) as Box<dyn ToSql>,
                    Box::new(m.revision),
                    Box::new(s.tenant.clone()),
                    Box::new(s.user.clone()),
                    Box::new(s.project.clone()),
                    Box::new(s.thread.clone()),
                    Box::new(s.agent.clone()),
                ]);
                // …and in the very scope the update names: a revision never
                // moves to another scope.
                let cur: Option<(i64, i64)> = sp
                    .prepare_cached(&format!("SELECT m.rid, m.etag FROM memories m WHERE {w} AND m.id = ? AND m.revision = ? AND m.tenant = ? AND m.user IS ? AND m.project IS ? AND m.thread IS ? AND m.agent IS ?"))
                    .and_then(|mut st| {
                        st.query_row(
                            params_from_iter(args.iter().map(|b| b.as_ref())),
                            |r| Ok((r.get(0)?, r.get(1)?)),
                        )
                        .optional()
                    })
                    .map_err(backend_err)?;
                let Some((rid, etag)) = cur else {
                    return Err(StoreError::Conflict(format!(
                        "{} revision {} does not exist",
                        m.id, m.revision
                    )));
                };
                if etag as u64 != up.expected_etag {
                    return Err(StoreError::Conflict(format!(
                        "{} revision {} was changed by another writer (etag {etag}, expected {})",
                        m.id, m.revision, up.expected_etag
                    )));
                }
                write_row(&sp, m, &up.index_terms, etag + 1, Some(rid))?;
                receipt.etags.push(etag as u64 + 1);
            }
            WriteOp::Erase(id) => {
                let (w, mut args) = principal_clause(principal);
                args.push(Box::new(id.clone()));
                sp.execute(
                    &format!("DELETE FROM memories WHERE rid IN (SELECT m.rid FROM memories m WHERE {w} AND m.id = ?)"),
                    params_from_iter(args.iter().map(|b| b.as_ref())),
                )
                .map_err(backend_err)?;
            }
            WriteOp::ScrubEvents(scrub) => {
                if !scrub.fragment.is_empty() {
                    // Events within the scrub's scope, which lies within the
                    // principal (`ScopedStore` checked it): never another
                    // user's or tenant's.
                    let (w, mut args) = within_clause("e", &scrub.scope);
                    args.insert(0, Box::new(scrub.fragment.clone()));
                    args.push(Box::new(scrub.fragment.clone()));
                    sp.execute(
                        &format!("UPDATE events AS e SET payload = replace(payload, ?, '[erased]') WHERE {w} AND instr(payload, ?) > 0"),
                        params_from_iter(args.iter().map(|b| b.as_ref())),
                    )
                    .map_err(backend_err)?;
                }
            }
            WriteOp::Tombstone(t) => {
                sp.execute(
                    "INSERT OR IGNORE INTO tombstones (tenant, user, project, fingerprint, length, kind, created_at, offset_min) VALUES (?,?,?,?,?,?,?,?)",
                    params![t.scope.tenant, t.scope.user, t.scope.project, t.fingerprint, t.length, t.kind, t.created_at.epoch_ms, t.created_at.offset_minutes],
                )
                .map_err(backend_err)?;
            }
            WriteOp::Append(e) => {
                // Prepared once per connection: a remembered batch appends
                // one event per candidate.
                let seq: i64 = sp
                    .prepare_cached(
                        "SELECT ifnull(max(seq), 0) + 1 FROM events WHERE tenant = ? AND session = ?",
                    )
                    .and_then(|mut st| {
                        st.query_row(params![e.scope.tenant, e.session], |r| r.get(0))
                    })
                    .map_err(backend_err)?;
                sp.prepare_cached(
                    "INSERT INTO events (tenant, session, seq, user, project, thread, agent, kind, at, payload) VALUES (?,?,?,?,?,?,?,?,?,?)",
                )
                .and_then(|mut st| {
                    st.execute(params![e.scope.tenant, e.session, seq, e.scope.user, e.scope.project, e.scope.thread, e.scope.agent, e.kind, e.at.epoch_ms, e.payload])
                })
                .map_err(backend_err)?;
                receipt.sequences.push(seq as u64);
            }
            WriteOp::Touch(a) => {
                let r = &a.memory;
                let (w, mut args) = principal_clause(principal);
                args.insert(0, Box::new(a.at.epoch_ms) as Box<dyn ToSql>);
                args.extend([
                    Box::new(r.id.clone()) as Box<dyn ToSql>,
                    Box::new(r.revision),
                ]);
                sp.execute(
                    &format!("UPDATE memories SET access_count = access_count + 1, last_access = ? WHERE rid IN (SELECT m.rid FROM memories m WHERE {w} AND m.id = ? AND m.revision = ?)"),
                    params_from_iter(args.iter().map(|b| b.as_ref())),
                )
                .map_err(backend_err)?;
            }
        }
    }
    sp.commit().map_err(backend_err)?;
    Ok((receipt, erases))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_to_the_latest_schema_and_reopens() {
        let dir = std::env::temp_dir().join(format!("engram-sqlite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.db");
        let _ = std::fs::remove_file(&path);
        let s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap() as usize, MIGRATIONS.len());
        drop(s);
        let s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap() as usize, MIGRATIONS.len());
    }

    /// A read-only open never migrates (a clear error instead), reads,
    /// skips usage counts, refuses any other write, and leaves the file as
    /// it was.
    #[test]
    fn a_read_only_open_reads_skips_touches_and_never_migrates() {
        let dir = std::env::temp_dir().join(format!("engram-sqlite-ro-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ro.db");
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(beside(&path, suffix));
        }
        let read_only = SqliteOptions {
            read_only: true,
            ..SqliteOptions::default()
        };
        let version = |path: &Path| {
            Connection::open(path)
                .unwrap()
                .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
                .unwrap()
        };
        // A database an older engram wrote (schema version 3).
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
        for sql in &MIGRATIONS[..3] {
            conn.execute_batch(sql).unwrap();
        }
        conn.execute_batch("PRAGMA user_version = 3").unwrap();
        drop(conn);
        let Err(StoreError::Backend(m)) = SqliteStore::open_with(&path, read_only) else {
            panic!("an old schema opened read-only");
        };
        assert!(
            m.contains(&path.display().to_string())
                && m.contains("version 3")
                && m.contains("open it once with write access"),
            "{m}"
        );
        assert_eq!(version(&path), 3, "a read-only open migrated");

        drop(SqliteStore::open(&path).unwrap());
        let bytes = std::fs::read(&path).unwrap();
        let mut s = SqliteStore::open_with(&path, read_only).unwrap();
        assert!(s.is_read_only());
        assert_eq!(s.schema_version().unwrap() as usize, MIGRATIONS.len());
        let principal = Principal {
            tenant: "t".into(),
            user: None,
            project: None,
        };
        let at = Datetime {
            epoch_ms: 0,
            offset_minutes: 0,
        };
        let touch = WriteOp::Touch(crate::bindings::Access {
            memory: crate::bindings::MemoryRef {
                id: "m-1".into(),
                revision: 1,
            },
            at,
        });
        s.begin_batch().unwrap();
        s.commit(&principal, &[touch.clone(), touch]).unwrap();
        s.finish_batch(true).unwrap();
        assert_eq!(s.skipped_touches(), 2);
        let Err(StoreError::Backend(m)) = s.commit(&principal, &[WriteOp::Erase("m-1".into())])
        else {
            panic!("a read-only store wrote");
        };
        assert!(m.contains("read-only"), "{m}");
        assert_eq!(s.tenants_of("m-1").unwrap(), Vec::<String>::new());
        drop(s);
        assert!(std::fs::read(&path).unwrap() == bytes, "the file changed");
    }

    /// (group key, documents, summed length), ordered by key.
    type Groups = Vec<(String, i64, i64)>;

    /// `scope_documents` next to a direct count of the unbounded rows, by
    /// group (groups emptied by later writes left out).
    fn kept_and_counted(conn: &Connection) -> (Groups, Groups) {
        let rows = |sql: &str| -> Groups {
            let mut st = conn.prepare(sql).unwrap();
            let v = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            v
        };
        (
            rows("SELECT key, documents, length FROM scope_documents WHERE documents <> 0 ORDER BY key"),
            rows(
                "SELECT json_array(tenant, user, project, thread, agent, kind, status, sensitivity) AS k, count(*), sum(length)
                 FROM memories WHERE valid_from IS NULL AND valid_to IS NULL GROUP BY k ORDER BY k",
            ),
        )
    }

    #[test]
    fn scope_documents_are_backfilled_and_follow_every_write() {
        let conn = Connection::open_in_memory().unwrap();
        for sql in &MIGRATIONS[..4] {
            conn.execute_batch(sql).unwrap();
        }
        let insert = |id: &str, user: Option<&str>, valid_to: Option<i64>, length: i64| {
            conn.execute(
                "INSERT INTO memories (id, revision, tenant, user, kind, status, sensitivity, valid_to, updated_at, etag, length, body)
                 VALUES (?, 1, 't', ?, 'semantic', 'active', 1, ?, 0, 1, ?, '{}')",
                params![id, user, valid_to, length],
            )
            .unwrap();
        };
        insert("a", None, None, 5);
        insert("b", Some("u"), None, 7);
        insert("c", Some(""), None, 2);
        insert("d", Some("u"), Some(10), 3);
        // Rows written before migration 5 are counted by it.
        conn.execute_batch(MIGRATIONS[4]).unwrap();
        let (kept, counted) = kept_and_counted(&conn);
        assert_eq!(kept, counted);
        assert_eq!(
            kept.len(),
            3,
            "no user, user u and the empty user apart: {kept:?}"
        );
        // Then every kind of write keeps them.
        for sql in [
            "INSERT INTO memories (id, revision, tenant, user, kind, status, sensitivity, updated_at, etag, length, body)
             VALUES ('e', 1, 't', 'u', 'episodic', 'active', 2, 0, 1, 11, '{}')",
            "UPDATE memories SET status = 'superseded' WHERE id = 'a'",
            "UPDATE memories SET valid_to = 20 WHERE id = 'b'",
            "UPDATE memories SET valid_to = NULL WHERE id = 'd'",
            "UPDATE memories SET length = 9, sensitivity = 3 WHERE id = 'e'",
            "UPDATE memories SET access_count = access_count + 1",
            "DELETE FROM memories WHERE id = 'c'",
        ] {
            conn.execute(sql, []).unwrap();
            let (kept, counted) = kept_and_counted(&conn);
            assert_eq!(kept, counted, "after {sql}");
        }
    }

    fn pragma(s: &SqliteStore, name: &str) -> i64 {
        s.conn
            .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn durability_sets_synchronous_and_deletes_are_always_secure() {
        let dir = std::env::temp_dir().join(format!("engram-sqlite-d-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (durability, synchronous) in [(Durability::Normal, 1), (Durability::Full, 2)] {
            let path = dir.join(format!("{}.db", durability.name()));
            let opts = SqliteOptions {
                durability,
                ..SqliteOptions::default()
            };
            let s = SqliteStore::open_with(&path, opts).unwrap();
            assert_eq!(pragma(&s, "synchronous"), synchronous, "{durability:?}");
            assert_eq!(pragma(&s, "secure_delete"), 1);
            assert_eq!(durability.name().parse::<Durability>(), Ok(durability));
        }
        let err = "fsync".parse::<Durability>().unwrap_err();
        assert!(
            err.contains("'fsync'") && err.contains("normal or full"),
            "{err}"
        );
    }
}
