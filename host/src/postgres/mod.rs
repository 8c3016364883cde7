//! The PostgreSQL store: the same data model, filters and semantics as the
//! SQLite store (`crate::sqlite`), for many `engram` processes on many hosts
//! sharing one server. Schema migrations live in `host/schema/postgres/`.
//!
//! Concurrency (docs/postgres.md): transactions run at READ COMMITTED, and
//! every writing transaction first takes a transaction-scoped advisory lock
//! on each tenant it touches, so writers of one tenant are serialised from
//! their first read to their commit (what `BEGIN IMMEDIATE` does for a
//! SQLite file, but per tenant), while writers of different tenants run in
//! parallel. Because each statement of a READ COMMITTED transaction sees
//! every commit that preceded it, a writer that got the lock reads the
//! latest state: no lost update. The database itself enforces one active
//! revision per semantic key with a unique partial index and every etag
//! compare-and-swap with a row lock, whatever the writer. Locks are taken
//! in a global order (a tenant's key must be above every key held, else
//! only tried), so two writers never wait on each other in a cycle.
//!
//! Erasure: deleted rows stay in the table files as dead tuples until
//! VACUUM. An erasing commit writes a marker in its transaction; after it
//! commits the store vacuums the touched tables and clears the marker (a
//! store that opens and finds the marker does it). `vacuum_full` rewrites
//! the tables for the operator (`engram vacuum`).

mod cached;
mod columns;
mod connect;
mod sql;
mod write;

use std::collections::HashMap;

use postgres::{Client, Row};
use sha2::{Digest, Sha256};

pub use crate::store_url::is_postgres_url;
use columns::{db_err, key_columns, kind_name, status_name};
use connect::{Conn, Pool};
use sql::{exact_scope, filter_clause, needs_memory_columns, principal_clause, within_scope, Args};

use crate::backend::Backend;
use crate::bindings::{
    Datetime, Event, Filter, Memory, Principal, Receipt, Scope, StoreError, Stored, TermStats,
    Tombstone, WeightedTerm, WriteOp,
};
use crate::fingerprint::{FingerprintSecret, KeyHolder, KeySource};
use crate::postings_cache::PostingsCache;

/// Migrations in order; the `engram_schema` table records how many ran.
const MIGRATIONS: &[&str] = &[
    include_str!("../../schema/postgres/0001-init.sql"),
    include_str!("../../schema/postgres/0002-tenant-versions.sql"),
    include_str!("../../schema/postgres/0003-tenant-ids-and-owned-tombstones.sql"),
];

/// Advisory lock key serialising migrations across processes.
const MIGRATION_LOCK: i64 = 0x656e_6772_616d_0001;

/// Tables whose dead tuples can hold erased content.
const ERASABLE_TABLES: &str = "memories, postings, derived_from, events";

const SELECT_STORED: &str =
    "SELECT m.body, m.etag, m.length, m.access_count, m.last_access FROM memories m";

fn backend_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// The advisory lock key of a tenant: a stable 64-bit hash (two tenants
/// sharing a key only share a lock).
fn tenant_key(tenant: &str) -> i64 {
    let digest = Sha256::digest(tenant.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(b)
}

/// An open outer transaction and the tenant locks it holds.
struct Batch {
    conn: Conn,
    locked: Vec<i64>,
}

/// The PostgreSQL store: a connection pool on one server (and schema),
/// shared by every tenant, with the SQLite store's semantics.
pub struct PgStore {
    pool: Pool,
    /// The schema the URL asked for, if any.
    schema: Option<String>,
    batch: Option<Batch>,
    reads: u64,
    /// Term statistics and postings kept while the tenant is unchanged
    /// (`cached`).
    cache: PostingsCache,
    /// A commit inside the batch erased content: vacuum once it commits.
    erasure_due: bool,
    /// Where the fingerprint secret comes from (`--fingerprint-key`).
    key: KeyHolder,
}

/// Why a PostgreSQL store without a key file cannot fingerprint.
pub const NO_KEY: &str = "this PostgreSQL store has no fingerprint key: pass --fingerprint-key FILE (created 0600 on first use; every host of the store needs the same file, docs/durability.md)";

/// What `vacuum_full` did.
#[derive(Debug, Clone)]
pub struct VacuumReport {
    /// The tables' size before, bytes.
    pub bytes_before: i64,
    /// The tables' size after, bytes.
    pub bytes_after: i64,
    /// CHECKPOINT needs superuser or `pg_checkpoint`; false without.
    pub checkpointed: bool,
}

impl PgStore {
    /// Connect to the server `url` names (`postgres://…`, see `connect`),
    /// creating or migrating the schema as needed.
    /// Without a fingerprint key, forgetting (and checking candidates
    /// against tombstones, once there are any) fails naming the flag: see
    /// `open_with_key`.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with_key(url, KeySource::Unset(NO_KEY.into()))
    }

    /// Connect with the fingerprint secret taken from `key`.
    pub fn open_with_key(url: &str, key: KeySource) -> Result<Self, StoreError> {
        let (pool, schema) = connect::pool(url).map_err(StoreError::Backend)?;
        let mut store = PgStore {
            pool,
            schema,
            batch: None,
            reads: 0,
            cache: PostingsCache::default(),
            erasure_due: false,
            key: KeyHolder::new(key),
        };
        store.migrate()?;
        if store.erasure_pending()? {
            store.finish_erasure()?;
        }
        Ok(store)
    }

    /// Another store on the same connection pool (one per thread).
    pub fn handle(&self) -> PgStore {
        PgStore {
            pool: self.pool.clone(),
            schema: self.schema.clone(),
            batch: None,
            reads: 0,
            cache: PostingsCache::default(),
            erasure_due: false,
            key: self.key.clone(),
        }
    }

    fn conn(&self) -> Result<Conn, StoreError> {
        self.pool
            .get()
            .map_err(|e| StoreError::Backend(format!("no connection to PostgreSQL: {e}")))
    }

    /// The schema version this database is at.
    pub fn schema_version(&mut self) -> Result<u32, StoreError> {
        let mut c = self.conn()?;
        Self::version_on(&mut *c)
    }

    fn version_on(c: &mut impl postgres::GenericClient) -> Result<u32, StoreError> {
        let exists: bool = c
            .query_one("SELECT to_regclass('engram_schema') IS NOT NULL", &[])
            .map_err(|e| db_err(e, "reading the schema version"))?
            .get(0);
        if !exists {
            return Ok(0);
        }
        let v: Option<i64> = c
            .query_one("SELECT max(version) FROM engram_schema", &[])
            .map_err(|e| db_err(e, "reading the schema version"))?
            .get(0);
        Ok(v.unwrap_or(0) as u32)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let mut c = self.conn()?;
        if Self::version_on(&mut *c)? as usize == MIGRATIONS.len() {
            return Ok(());
        }
        let mut tx = c.transaction().map_err(backend_err)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .map_err(|e| db_err(e, "locking for migration"))?;
        if let Some(name) = &self.schema {
            // A plain name (checked by `connect`): safe to splice.
            tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {name}"))
                .map_err(|e| db_err(e, &format!("creating schema {name}")))?;
        }
        tx.batch_execute("CREATE TABLE IF NOT EXISTS engram_schema (version bigint PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            .map_err(|e| db_err(e, "creating engram_schema"))?;
        let at = Self::version_on(&mut tx)? as usize;
        if at > MIGRATIONS.len() {
            return Err(StoreError::Backend(format!(
                "database schema version {at} is newer than this engram ({}); upgrade engram",
                MIGRATIONS.len()
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(at) {
            tx.batch_execute(sql)
                .map_err(|e| db_err(e, &format!("migration {}", i + 1)))?;
            tx.execute(
                "INSERT INTO engram_schema (version) VALUES ($1)",
                &[&(i as i64 + 1)],
            )
            .map_err(backend_err)?;
        }
        tx.commit().map_err(|e| db_err(e, "committing migrations"))
    }

    /// An erasing commit whose vacuum has not completed yet.
    pub fn erasure_pending(&mut self) -> Result<bool, StoreError> {
        let mut c = self.conn()?;
        let n: i64 = c
            .query_one("SELECT count(*) FROM erasure_pending", &[])
            .map_err(backend_err)?
            .get(0);
        Ok(n > 0)
    }

    /// Vacuum the tables an erasure touched, so the deleted rows' dead
    /// tuples are removed from the heap and indexes (unless a transaction
    /// older than the erasure still runs somewhere on the server: then the
    /// next vacuum removes them), then clear the marker.
    fn finish_erasure(&mut self) -> Result<(), StoreError> {
        let mut c = self.conn()?;
        c.batch_execute(&format!("VACUUM {ERASABLE_TABLES}"))
            .map_err(|e| db_err(e, "vacuum after erasure"))?;
        c.batch_execute("DELETE FROM erasure_pending")
            .map_err(|e| db_err(e, "clearing the erasure marker"))
    }

    /// The operator's erasure: rewrite every table that can hold erased
    /// content into new files (`VACUUM FULL`; the old files are removed),
    /// then checkpoint. Takes an exclusive lock on each table while it is
    /// rewritten: every writer and reader of the server waits.
    pub fn vacuum_full(&mut self) -> Result<VacuumReport, StoreError> {
        let mut c = self.conn()?;
        let size = "SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
                    WHERE c.relname IN ('memories', 'postings', 'derived_from', 'events', 'tombstones')
                      AND c.relnamespace = current_schema()::regnamespace";
        let before: Option<i64> = c.query_one(size, &[]).map_err(backend_err)?.get(0);
        c.batch_execute(&format!("VACUUM FULL {ERASABLE_TABLES}, tombstones"))
            .map_err(|e| db_err(e, "VACUUM FULL"))?;
        // CHECKPOINT needs superuser or pg_checkpoint: reported, not required.
        let checkpointed = c.batch_execute("CHECKPOINT").is_ok();
        c.batch_execute("DELETE FROM erasure_pending")
            .map_err(backend_err)?;
        let after: Option<i64> = c.query_one(size, &[]).map_err(backend_err)?.get(0);
        Ok(VacuumReport {
            bytes_before: before.unwrap_or(0),
            bytes_after: after.unwrap_or(0),
            checkpointed,
        })
    }

    /// Drop the schema the URL named, with every table in it (scratch
    /// stores: `engram-bench`). Refused without a `schema` in the URL.
    pub fn drop_schema(&mut self) -> Result<(), StoreError> {
        let Some(name) = self.schema.clone() else {
            return Err(StoreError::Invalid(
                "the URL names no schema to drop".into(),
            ));
        };
        let mut c = self.conn()?;
        c.batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
            .map_err(|e| db_err(e, &format!("dropping schema {name}")))
    }

    /// Run `f` on the batch's connection (after taking `tenant`'s lock),
    /// or on a pooled connection in autocommit.
    fn on_conn<R>(
        &mut self,
        tenant: &str,
        f: impl FnOnce(&mut Client) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        if self.batch.is_some() {
            self.lock_in_batch(&[tenant])?;
            let batch = self
                .batch
                .as_mut()
                .ok_or_else(|| backend_err("batch lost"))?;
            return f(&mut batch.conn);
        }
        let mut c = self.conn()?;
        f(&mut c)
    }

    /// Take the batch's locks on `tenants` it does not hold yet. A lock
    /// whose key is above every key held is waited for; any other is only
    /// tried, and if another writer holds it the call fails with a
    /// `conflict` to retry: waiting could close a cycle (deadlock).
    fn lock_in_batch(&mut self, tenants: &[&str]) -> Result<(), StoreError> {
        let Some(batch) = self.batch.as_mut() else {
            return Ok(());
        };
        let mut wanted: Vec<(i64, &str)> = tenants.iter().map(|t| (tenant_key(t), *t)).collect();
        wanted.sort_unstable();
        wanted.dedup();
        for (key, tenant) in wanted {
            if batch.locked.contains(&key) {
                continue;
            }
            let above_all = batch.locked.iter().all(|held| *held < key);
            if above_all {
                batch
                    .conn
                    .execute("SELECT pg_advisory_xact_lock($1)", &[&key])
                    .map_err(|e| db_err(e, &format!("locking tenant '{tenant}'")))?;
            } else {
                let got: bool = batch
                    .conn
                    .query_one("SELECT pg_try_advisory_xact_lock($1)", &[&key])
                    .map_err(|e| db_err(e, &format!("locking tenant '{tenant}'")))?
                    .get(0);
                if !got {
                    return Err(StoreError::Conflict(format!(
                        "another writer holds tenant '{tenant}' and this transaction already holds other tenants; retry"
                    )));
                }
            }
            batch.locked.push(key);
        }
        Ok(())
    }

    fn query_stored(
        &mut self,
        tenant: &str,
        sql: &str,
        args: &Args,
    ) -> Result<Vec<Stored>, StoreError> {
        let rows = self.on_conn(tenant, |c| {
            c.query(sql, &args.refs())
                .map_err(|e| db_err(e, "reading memories"))
        })?;
        let out = rows
            .iter()
            .map(row_to_stored)
            .collect::<Result<Vec<_>, _>>()?;
        self.reads += out.len() as u64;
        Ok(out)
    }
}

fn row_to_stored(r: &Row) -> Result<Stored, StoreError> {
    let body: String = r.get(0);
    let etag: i64 = r.get(1);
    let length: i64 = r.get(2);
    let access: i64 = r.get(3);
    let last: Option<i64> = r.get(4);
    let mut memory = engram_contract::body::decode(&body).map_err(StoreError::Backend)?;
    memory.access_count = access.clamp(0, u32::MAX as i64) as u32;
    if let Some(ms) = last {
        memory.last_accessed = Some(Datetime {
            epoch_ms: ms,
            offset_minutes: 0,
        });
    }
    Ok(Stored {
        memory,
        etag: etag as u64,
        length: length.clamp(0, u32::MAX as i64) as u32,
        frequencies: Vec::new(),
    })
}

/// How often each asked term occurs in a record, aligned with the asked
/// terms, from the positions and counts of its matched postings; empty
/// when a posting predates the counts (the guest then analyses the text,
/// with the same result).
fn frequencies(terms: usize, ords: &[i64], tfs: &[Option<i64>]) -> Vec<u32> {
    let mut counts = vec![0u32; terms];
    for (ord, tf) in ords.iter().zip(tfs) {
        let (Some(slot), Some(tf)) = (
            usize::try_from(*ord).ok().and_then(|i| counts.get_mut(i)),
            tf,
        ) else {
            return Vec::new();
        };
        *slot = (*tf).clamp(0, u32::MAX as i64) as u32;
    }
    counts
}

impl Backend for PgStore {
    fn find(&mut self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        let mut args = Args::default();
        let w = filter_clause(&mut args, "m", filter);
        let l = args.arg(limit as i64);
        self.query_stored(
            &filter.scope.tenant,
            &format!("{SELECT_STORED} WHERE {w} ORDER BY m.updated_at DESC, m.id, m.revision DESC LIMIT {l}"),
            &args,
        )
    }

    fn revisions(&mut self, principal: &Principal, id: &str) -> Result<Vec<Stored>, StoreError> {
        let mut args = Args::default();
        let w = principal_clause(&mut args, principal);
        let i = args.arg(id.to_string());
        self.query_stored(
            &principal.tenant,
            &format!("{SELECT_STORED} WHERE {w} AND m.id = {i} ORDER BY m.revision"),
            &args,
        )
    }

    fn stats(&mut self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        if !needs_memory_columns(filter) {
            return self.cached_stats(filter, terms);
        }
        // Key and source filters need the memory rows: count through them.
        let mut dargs = Args::default();
        let dw = filter_clause(&mut dargs, "m", filter);
        let documents_sql = format!(
            "SELECT count(*), coalesce(sum(m.length), 0)::bigint FROM memories m WHERE {dw}"
        );
        // Term counts from the asked terms' postings only, filtered inside
        // the postings unless the filter needs memory columns.
        let mut pargs = Args::default();
        let tenant = pargs.arg(filter.scope.tenant.clone());
        let asked = pargs.arg(terms.to_vec());
        let (join, pw) = if needs_memory_columns(filter) {
            (
                "JOIN memories m ON m.rid = p.rid",
                filter_clause(&mut pargs, "m", filter),
            )
        } else {
            ("", filter_clause(&mut pargs, "p", filter))
        };
        // A counting subquery per asked term: an index range each, never a
        // scan of the tenant, whatever the planner's statistics say.
        let terms_sql = format!(
            "SELECT q.term, (SELECT count(*) FROM postings p {join}
                             WHERE p.tenant = {tenant} AND p.term = q.term AND {pw})
             FROM unnest({asked}::text[]) AS q(term)"
        );
        let (documents, total, counted) = self.on_conn(&filter.scope.tenant, |c| {
            let row = c
                .query_one(&documents_sql, &dargs.refs())
                .map_err(|e| db_err(e, "counting documents"))?;
            let counted: HashMap<String, i64> = if terms.is_empty() {
                HashMap::new()
            } else {
                c.query(&terms_sql, &pargs.refs())
                    .map_err(|e| db_err(e, "counting postings"))?
                    .iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            };
            Ok((row.get::<_, i64>(0), row.get::<_, i64>(1), counted))
        })?;
        let average_length = if documents > 0 {
            total as f64 / documents as f64
        } else {
            0.0
        };
        Ok(TermStats {
            documents: documents as u64,
            average_length,
            frequencies: terms
                .iter()
                .map(|t| counted.get(t).copied().unwrap_or(0) as u64)
                .collect(),
        })
    }

    /// The `limit` records with the highest summed weight of matched terms
    /// (ties: lower row id, i.e. written earlier, as in SQLite), read from
    /// the asked terms' postings only. The weights are summed in the order
    /// the terms were asked, as the SQLite store sums them, so equal
    /// scores tie the same way on both stores.
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
            return self.cached_search(filter, terms, limit);
        }
        let mut args = Args::default();
        let names = args.arg(terms.iter().map(|t| t.term.clone()).collect::<Vec<_>>());
        let weights = args.arg(terms.iter().map(|t| t.weight).collect::<Vec<f64>>());
        let order = args.arg((0..terms.len() as i64).collect::<Vec<i64>>());
        let tenant = args.arg(filter.scope.tenant.clone());
        let (join, w) = if needs_memory_columns(filter) {
            (
                "JOIN memories m ON m.rid = p.rid",
                filter_clause(&mut args, "m", filter),
            )
        } else {
            ("", filter_clause(&mut args, "p", filter))
        };
        let l = args.arg(limit as i64);
        // One index lookup per asked term (LATERAL, fenced by OFFSET 0 so
        // the planner cannot turn it into a scan of the tenant's postings
        // when its statistics are stale); the matched terms' positions and
        // counts come back with each winner.
        let sql = format!(
            "WITH q(term, weight, ord) AS (SELECT * FROM unnest({names}::text[], {weights}::float8[], {order}::int8[])),
                  hits AS (SELECT x.rid, sum(x.weight ORDER BY x.ord) AS score,
                                  array_agg(x.ord ORDER BY x.ord) AS ords, array_agg(x.tf ORDER BY x.ord) AS tfs
                           FROM q CROSS JOIN LATERAL (
                               SELECT p.rid, p.tf, q.weight, q.ord FROM postings p {join}
                               WHERE p.tenant = {tenant} AND p.term = q.term AND {w} OFFSET 0) x
                           GROUP BY x.rid ORDER BY score DESC, x.rid LIMIT {l})
             SELECT m.body, m.etag, m.length, m.access_count, m.last_access, h.score, h.ords, h.tfs
             FROM hits h JOIN memories m ON m.rid = h.rid"
        );
        let rows = self.on_conn(&filter.scope.tenant, |c| {
            c.query(&sql, &args.refs())
                .map_err(|e| db_err(e, "searching postings"))
        })?;
        let mut out: Vec<(f64, Stored)> = Vec::with_capacity(rows.len());
        for row in &rows {
            let mut stored = row_to_stored(row)?;
            let (ords, tfs): (Vec<i64>, Vec<Option<i64>>) = (row.get(6), row.get(7));
            stored.frequencies = frequencies(terms.len(), &ords, &tfs);
            out.push((row.get(5), stored));
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

    fn commit(&mut self, principal: &Principal, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        self.cache.clear();
        // Tombstones are recorded with the id of the key they were made with.
        let key_id = if ops.iter().any(|op| matches!(op, WriteOp::Tombstone(_))) {
            Some(self.fingerprint_secret()?.key_id())
        } else {
            None
        };
        let key_id = key_id.as_deref();
        let mut tenants: Vec<&str> = vec![principal.tenant.as_str()];
        tenants.extend(ops.iter().filter_map(|op| match op {
            WriteOp::Insert(i) => Some(i.memory.scope.tenant.as_str()),
            WriteOp::Update(u) => Some(u.memory.scope.tenant.as_str()),
            WriteOp::Append(e) => Some(e.scope.tenant.as_str()),
            _ => None,
        }));
        if self.batch.is_some() {
            self.lock_in_batch(&tenants)?;
            let batch = self
                .batch
                .as_mut()
                .ok_or_else(|| backend_err("batch lost"))?;
            let c = &mut batch.conn;
            c.batch_execute("SAVEPOINT engram_commit")
                .map_err(backend_err)?;
            let result = apply_ops(c, principal, ops, key_id);
            let end = if result.is_ok() {
                "RELEASE SAVEPOINT engram_commit"
            } else {
                "ROLLBACK TO SAVEPOINT engram_commit; RELEASE SAVEPOINT engram_commit"
            };
            c.batch_execute(end).map_err(backend_err)?;
            let (receipt, erased) = result?;
            self.erasure_due |= erased;
            return Ok(receipt);
        }
        let mut c = self.conn()?;
        c.batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            .map_err(backend_err)?;
        // Sorted keys: every writer waits in the same order, so no cycle.
        let mut keys: Vec<i64> = tenants.iter().map(|t| tenant_key(t)).collect();
        keys.sort_unstable();
        keys.dedup();
        let result = keys
            .iter()
            .try_for_each(|key| {
                c.execute("SELECT pg_advisory_xact_lock($1)", &[key])
                    .map(|_| ())
                    .map_err(|e| db_err(e, "locking the tenant"))
            })
            .and_then(|()| apply_ops(&mut c, principal, ops, key_id));
        let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
        c.batch_execute(end).map_err(|e| db_err(e, "committing"))?;
        drop(c);
        let (receipt, erased) = result?;
        if erased {
            self.finish_erasure()?;
        }
        Ok(receipt)
    }

    fn tombstones(&mut self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        let rows = self.on_conn(&scope.tenant, |c| {
            c.query(
                "SELECT user_id, project, fingerprint, length, kind, created_at, offset_min FROM tombstones
                 WHERE tenant = $1 AND (user_id IS NULL OR user_id = $2) AND (project IS NULL OR project = $3)
                 ORDER BY created_at, fingerprint, user_id, project",
                &[&scope.tenant, &scope.user, &scope.project],
            )
            .map_err(|e| db_err(e, "reading tombstones"))
        })?;
        Ok(rows
            .iter()
            .map(|r| Tombstone {
                scope: Scope {
                    tenant: scope.tenant.clone(),
                    user: r.get(0),
                    project: r.get(1),
                    thread: None,
                    agent: None,
                },
                fingerprint: r.get(2),
                length: r.get::<_, i64>(3).clamp(0, u32::MAX as i64) as u32,
                kind: r.get(4),
                created_at: Datetime {
                    epoch_ms: r.get(5),
                    offset_minutes: r.get::<_, i64>(6) as i32,
                },
            })
            .collect())
    }

    fn fingerprint_secret(&mut self) -> Result<FingerprintSecret, StoreError> {
        let mut c = self.conn()?;
        let recorded: Option<String> = c
            .query_opt("SELECT key_id FROM fingerprint_key WHERE id = 1", &[])
            .map_err(|e| db_err(e, "reading the fingerprint key id"))?
            .map(|r| r.get(0));
        drop(c);
        self.key.resolve(recorded.as_deref())
    }

    fn count_events(
        &mut self,
        scope: &Scope,
        kind: &str,
        since: Datetime,
    ) -> Result<u64, StoreError> {
        let mut args = Args::default();
        let w = exact_scope(&mut args, "e", scope);
        let k = args.arg(kind.to_string());
        let s = args.arg(since.epoch_ms);
        let sql =
            format!("SELECT count(*) FROM events e WHERE {w} AND e.kind = {k} AND e.at >= {s}");
        let n: i64 = self.on_conn(&scope.tenant, |c| {
            c.query_one(&sql, &args.refs())
                .map(|r| r.get(0))
                .map_err(|e| db_err(e, "counting events"))
        })?;
        Ok(n as u64)
    }

    fn session_log(
        &mut self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError> {
        // The primary key (tenant, session, seq) finds the session's rows;
        // an event is visible when each dimension is unset or equal.
        let sql = "SELECT user_id, project, thread, agent, payload, at FROM events
             WHERE tenant = $1 AND session = $2 AND kind = $3
               AND (user_id IS NULL OR user_id = $4) AND (project IS NULL OR project = $5)
               AND (thread IS NULL OR thread = $6) AND (agent IS NULL OR agent = $7)
             ORDER BY seq";
        let rows = self.on_conn(&scope.tenant, |c| {
            c.query(
                sql,
                &[
                    &scope.tenant,
                    &session,
                    &kind,
                    &scope.user,
                    &scope.project,
                    &scope.thread,
                    &scope.agent,
                ],
            )
            .map_err(|e| db_err(e, "reading a session's events"))
        })?;
        Ok(rows
            .iter()
            .map(|r| Event {
                session: session.to_string(),
                scope: Scope {
                    tenant: scope.tenant.clone(),
                    user: r.get(0),
                    project: r.get(1),
                    thread: r.get(2),
                    agent: r.get(3),
                },
                kind: kind.to_string(),
                payload: r.get(4),
                // The table keeps the instant, not its offset.
                at: Datetime {
                    epoch_ms: r.get(5),
                    offset_minutes: 0,
                },
            })
            .collect())
    }

    fn records_read(&self) -> u64 {
        self.reads
    }

    fn tenants_of(&mut self, id: &str) -> Result<Vec<String>, StoreError> {
        let mut c = self.conn()?;
        let rows = c
            .query(
                "SELECT DISTINCT tenant FROM memories WHERE id = $1 ORDER BY tenant",
                &[&id],
            )
            .map_err(|e| db_err(e, "finding the tenants of an id"))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn begin_batch(&mut self) -> Result<(), StoreError> {
        self.cache.clear();
        if self.batch.is_some() {
            return Ok(());
        }
        let mut conn = self.conn()?;
        conn.batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            .map_err(backend_err)?;
        self.batch = Some(Batch {
            conn,
            locked: Vec::new(),
        });
        Ok(())
    }

    fn in_batch(&self) -> bool {
        self.batch.is_some()
    }

    fn finish_batch(&mut self, ok: bool) -> Result<(), StoreError> {
        self.cache.clear();
        let Some(mut batch) = self.batch.take() else {
            return Ok(());
        };
        let erased = std::mem::take(&mut self.erasure_due);
        batch
            .conn
            .batch_execute(if ok { "COMMIT" } else { "ROLLBACK" })
            .map_err(|e| db_err(e, "committing"))?;
        drop(batch);
        if ok && erased {
            self.finish_erasure()?;
        }
        Ok(())
    }
}

/// Apply every op in order on `c` (inside the caller's transaction or
/// savepoint); says whether anything was erased. The erasure marker is
/// written in the same transaction, so it commits with the erasure.
fn apply_ops(
    c: &mut Client,
    principal: &Principal,
    ops: &[WriteOp],
    key_id: Option<&str>,
) -> Result<(Receipt, bool), StoreError> {
    let erases = ops.iter().any(|op| match op {
        WriteOp::Erase(_) => true,
        WriteOp::ScrubEvents(s) => !s.fragment.is_empty(),
        _ => false,
    });
    if let Some(id) = key_id {
        // The first tombstone records the key; one made with another key
        // fails (another host with another key file).
        // Two statements: under READ COMMITTED the second sees a row another
        // writer committed while the first waited on it.
        c.execute(
            "INSERT INTO fingerprint_key (id, key_id) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
            &[&id],
        )
        .map_err(|e| db_err(e, "recording the fingerprint key id"))?;
        let recorded: String = c
            .query_one("SELECT key_id FROM fingerprint_key WHERE id = 1", &[])
            .map_err(|e| db_err(e, "reading the fingerprint key id"))?
            .get(0);
        if recorded != id {
            return Err(StoreError::Backend(format!(
                "this store's tombstones were made with fingerprint key id {recorded}, not this host's {id}: every host of a store needs the same key file (docs/durability.md)"
            )));
        }
    }
    if erases {
        c.execute(
            "INSERT INTO erasure_pending (id) VALUES (1) ON CONFLICT DO NOTHING",
            &[],
        )
        .map_err(backend_err)?;
    }
    let mut receipt = Receipt {
        sequences: Vec::new(),
        etags: Vec::new(),
    };
    let mut rest = ops;
    while let Some((op, tail)) = rest.split_first() {
        // A run of consecutive inserts goes in together (`write`).
        let run: Vec<&crate::bindings::Insert> = rest
            .iter()
            .map_while(|op| match op {
                WriteOp::Insert(ins) => Some(ins),
                _ => None,
            })
            .collect();
        if !run.is_empty() {
            write::insert_many(c, &run)?;
            receipt.etags.extend(std::iter::repeat_n(1, run.len()));
            rest = &rest[run.len()..];
            continue;
        }
        rest = tail;
        match op {
            WriteOp::Insert(_) => {}
            WriteOp::Update(up) => receipt.etags.push(update(c, principal, up)?),
            WriteOp::Erase(id) => {
                let mut args = Args::default();
                let w = principal_clause(&mut args, principal);
                let i = args.arg(id.clone());
                c.execute(
                    &format!("DELETE FROM memories m WHERE {w} AND m.id = {i}"),
                    &args.refs(),
                )
                .map_err(|e| db_err(e, "erasing"))?;
            }
            WriteOp::ScrubEvents(scrub) => {
                if !scrub.fragment.is_empty() {
                    // Events within the scrub's scope, which lies within the
                    // principal (`ScopedStore` checked it).
                    let mut args = Args::default();
                    let f = args.arg(scrub.fragment.clone());
                    let w = within_scope(&mut args, "e", &scrub.scope);
                    c.execute(
                        &format!("UPDATE events e SET payload = replace(e.payload, {f}, '[erased]') WHERE {w} AND strpos(e.payload, {f}) > 0"),
                        &args.refs(),
                    )
                    .map_err(|e| db_err(e, "scrubbing events"))?;
                }
            }
            WriteOp::Tombstone(t) => {
                let s = &t.scope;
                c.execute(
                    "INSERT INTO tombstones (tenant, user_id, project, fingerprint, length, kind, created_at, offset_min)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
                    &[&s.tenant, &s.user, &s.project, &t.fingerprint, &(t.length as i64), &t.kind, &t.created_at.epoch_ms, &(t.created_at.offset_minutes as i64)],
                )
                .map_err(|e| db_err(e, "writing a tombstone"))?;
            }
            WriteOp::Append(e) => receipt.sequences.push(append_event(c, e)?),
            WriteOp::Touch(a) => {
                let r = &a.memory;
                let mut args = Args::default();
                let at = args.arg(a.at.epoch_ms);
                let w = principal_clause(&mut args, principal);
                let i = args.arg(r.id.clone());
                let v = args.arg(r.revision as i64);
                c.execute(
                    &format!("UPDATE memories m SET access_count = access_count + 1, last_access = {at} WHERE {w} AND m.id = {i} AND m.revision = {v}"),
                    &args.refs(),
                )
                .map_err(|e| db_err(e, "counting an access"))?;
            }
        }
    }
    bump_versions(c, principal, ops)?;
    Ok((receipt, erases))
}

/// Bump the change counter of every tenant `ops` wrote, which readers'
/// caches compare against (`cached`).
fn bump_versions(c: &mut Client, principal: &Principal, ops: &[WriteOp]) -> Result<(), StoreError> {
    let mut written: Vec<&str> = vec![principal.tenant.as_str()];
    for op in ops {
        match op {
            WriteOp::Insert(i) => written.push(&i.memory.scope.tenant),
            WriteOp::Update(u) => written.push(&u.memory.scope.tenant),
            WriteOp::Append(e) => written.push(&e.scope.tenant),
            _ => {}
        }
    }
    written.sort_unstable();
    written.dedup();
    if !ops.is_empty() {
        c.execute(
            "INSERT INTO tenant_versions (tenant, version) SELECT t, 1 FROM unnest($1::text[]) AS t
             ON CONFLICT (tenant) DO UPDATE SET version = tenant_versions.version + 1",
            &[&written],
        )
        .map_err(|e| db_err(e, "bumping the tenant's version"))?;
    }
    Ok(())
}

/// Append an event to its session's log; returns its sequence number.
/// Sequences are per (tenant, session); the tenant lock the transaction
/// holds makes max+1 safe.
fn append_event(c: &mut Client, e: &crate::bindings::Event) -> Result<u64, StoreError> {
    let seq: i64 = c
        .query_one(
            "SELECT coalesce(max(seq), 0) + 1 FROM events WHERE tenant = $1 AND session = $2",
            &[&e.scope.tenant, &e.session],
        )
        .map_err(|e| db_err(e, "appending an event"))?
        .get(0);
    let s = &e.scope;
    c.execute(
        "INSERT INTO events (tenant, session, seq, user_id, project, thread, agent, kind, at, payload)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        &[&s.tenant, &e.session, &seq, &s.user, &s.project, &s.thread, &s.agent, &e.kind, &e.at.epoch_ms, &e.payload],
    )
    .map_err(|e| db_err(e, "appending an event"))?;
    Ok(seq as u64)
}

/// Compare-and-swap: the stored row (within the principal: a user-pinned
/// guest may not take over another user's record) is locked, its etag
/// checked, then rewritten with the etag bumped.
fn update(
    c: &mut Client,
    principal: &Principal,
    up: &crate::bindings::Update,
) -> Result<u64, StoreError> {
    let m = &up.memory;
    let mut args = Args::default();
    let w = principal_clause(&mut args, principal);
    let i = args.arg(m.id.clone());
    let v = args.arg(m.revision as i64);
    // …and in the very scope the update names: a revision never moves.
    let same = exact_scope(&mut args, "m", &m.scope);
    let cur = c
        .query_opt(
            &format!("SELECT m.rid, m.etag FROM memories m WHERE {w} AND m.id = {i} AND m.revision = {v} AND {same} FOR UPDATE"),
            &args.refs(),
        )
        .map_err(|e| db_err(e, "reading for update"))?;
    let Some(row) = cur else {
        return Err(StoreError::Conflict(format!(
            "{} revision {} does not exist",
            m.id, m.revision
        )));
    };
    let (rid, etag): (i64, i64) = (row.get(0), row.get(1));
    if etag as u64 != up.expected_etag {
        return Err(StoreError::Conflict(format!(
            "{} revision {} was changed by another writer (etag {etag}, expected {})",
            m.id, m.revision, up.expected_etag
        )));
    }
    rewrite_row(c, m, &up.index_terms, etag + 1, rid)?;
    Ok(etag as u64 + 1)
}

/// Rewrite revision `rid` with its postings (one per distinct term, with
/// its count; the length counts repeats) and the events it was derived from.
fn rewrite_row(
    c: &mut Client,
    m: &Memory,
    terms: &[String],
    etag: i64,
    rid: i64,
) -> Result<(), StoreError> {
    let body = engram_contract::body::encode(m);
    let (subject, predicate, condition) = key_columns(m);
    let what = format!("{} revision {}", m.id, m.revision);
    let mut uniq: std::collections::BTreeMap<&str, i64> = std::collections::BTreeMap::new();
    for t in terms {
        *uniq.entry(t.as_str()).or_default() += 1;
    }
    let length = terms.len() as i64;
    let (kind, status, sens) = (
        kind_name(m),
        status_name(m),
        i64::from(m.sensitivity.rank()),
    );
    let (vf, vt) = (
        m.valid_from.map(|d| d.epoch_ms),
        m.valid_to.map(|d| d.epoch_ms),
    );
    let source = m.provenance.source.reference.clone();
    let s = &m.scope;
    c.execute(
        "UPDATE memories SET status = $1, sensitivity = $2, valid_from = $3, valid_to = $4, subject = $5,
            predicate = $6, condition = $7, source_ref = $8, updated_at = $9, etag = $10, length = $11,
            body = $12, kind = $13
         WHERE rid = $14",
        &[
            &status, &sens, &vf, &vt, &subject, &predicate, &condition, &source,
            &m.updated_at.epoch_ms, &etag, &length, &body, &kind, &rid,
        ],
    )
    .map_err(|e| db_err(e, &what))?;
    c.execute("DELETE FROM postings WHERE rid = $1", &[&rid])
        .map_err(backend_err)?;
    c.execute("DELETE FROM derived_from WHERE rid = $1", &[&rid])
        .map_err(backend_err)?;
    let names: Vec<&str> = uniq.keys().copied().collect();
    let counts: Vec<i64> = uniq.values().copied().collect();
    c.execute(
        "INSERT INTO postings (tenant, term, rid, user_id, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, tf)
         SELECT $1, u.term, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, u.tf
         FROM unnest($12::text[], $13::int8[]) AS u(term, tf)
         ON CONFLICT DO NOTHING",
        &[&s.tenant, &rid, &s.user, &s.project, &s.thread, &s.agent, &kind, &status, &sens, &vf, &vt, &names, &counts],
    )
    .map_err(|e| db_err(e, "writing postings"))?;
    if !m.provenance.source_event_ids.is_empty() {
        c.execute(
            "INSERT INTO derived_from (event, rid) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING",
            &[&m.provenance.source_event_ids, &rid],
        )
        .map_err(|e| db_err(e, "writing sources"))?;
    }
    Ok(())
}
