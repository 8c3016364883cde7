//! A `wasi:keyvalue@0.2.0-draft2` host (store, atomics, batch) on one SQLite
//! file that every request, instance and thread of a runner shares, so
//! what one request commits the next one reads (wasmtime's own
//! `wasmtime-wasi-keyvalue` keeps an in-memory copy per store: nothing
//! survives a request). Compare-and-swap holds the value a handle read and
//! swaps only if the row still holds it, under the connection's lock.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};
use wasmtime::component::{HasData, Linker, Resource, ResourceTable};

mod generated {
    wasmtime::component::bindgen!({
        path: "../edge/wit/deps/keyvalue",
        world: "wasi:keyvalue/imports",
        with: {
            "wasi:keyvalue/store.bucket": super::BucketHandle,
            "wasi:keyvalue/atomics.cas": super::CasHandle,
        },
    });
}

use generated::wasi::keyvalue::{atomics, batch, store};

/// An opened bucket: its name (every name is its own key space).
pub struct BucketHandle {
    name: String,
}

/// A compare-and-swap handle: the key and the value it read.
pub struct CasHandle {
    bucket: String,
    key: String,
    seen: Option<Vec<u8>>,
}

/// Operations served, for the bench.
#[derive(Debug, Default)]
pub struct Counters {
    pub reads: AtomicU64,
    pub writes: AtomicU64,
    pub swaps: AtomicU64,
    pub lost_swaps: AtomicU64,
}

/// The shared store.
pub struct KvDb {
    conn: Mutex<Connection>,
    pub counters: Counters,
}

impl KvDb {
    /// A store in `path` (created on first use), or in memory for ":memory:".
    pub fn open(path: &Path) -> Arc<KvDb> {
        let conn = if path.as_os_str() == ":memory:" {
            Connection::open_in_memory()
        } else {
            Connection::open(path)
        }
        .unwrap_or_else(|e| panic!("open the key-value file {}: {e}", path.display()));
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS kv (bucket TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                PRIMARY KEY (bucket, key)) WITHOUT ROWID;",
        )
        .expect("create the key-value table");
        Arc::new(KvDb {
            conn: Mutex::new(conn),
            counters: Counters::default(),
        })
    }

    fn with<R>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<R>,
    ) -> Result<R, store::Error> {
        let conn = self
            .conn
            .lock()
            .map_err(|_| store::Error::Other("the key-value store lock is poisoned".into()))?;
        f(&conn).map_err(|e| store::Error::Other(e.to_string()))
    }

    pub fn get(&self, bucket: &str, key: &str) -> Result<Option<Vec<u8>>, store::Error> {
        self.counters.reads.fetch_add(1, Ordering::Relaxed);
        self.with(|c| {
            c.prepare_cached("SELECT value FROM kv WHERE bucket = ? AND key = ?")?
                .query_row(params![bucket, key], |r| r.get(0))
                .optional()
        })
    }

    pub fn set(&self, bucket: &str, key: &str, value: &[u8]) -> Result<(), store::Error> {
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
        self.with(|c| {
            c.prepare_cached("INSERT OR REPLACE INTO kv (bucket, key, value) VALUES (?, ?, ?)")?
                .execute(params![bucket, key, value])
                .map(|_| ())
        })
    }

    pub fn delete(&self, bucket: &str, key: &str) -> Result<(), store::Error> {
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
        self.with(|c| {
            c.prepare_cached("DELETE FROM kv WHERE bucket = ? AND key = ?")?
                .execute(params![bucket, key])
                .map(|_| ())
        })
    }

    /// Every key of `bucket`, sorted.
    pub fn keys(&self, bucket: &str) -> Vec<String> {
        self.entries(bucket).into_iter().map(|(k, _)| k).collect()
    }

    /// Every (key, value) of `bucket`, sorted by key.
    pub fn entries(&self, bucket: &str) -> Vec<(String, Vec<u8>)> {
        self.with(|c| {
            let mut st = c.prepare("SELECT key, value FROM kv WHERE bucket = ? ORDER BY key")?;
            let rows = st.query_map([bucket], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        })
        .unwrap_or_default()
    }

    /// Swap `key` to `value` if it still holds `seen`: atomic under the lock.
    fn swap(
        &self,
        bucket: &str,
        key: &str,
        seen: &Option<Vec<u8>>,
        value: &[u8],
    ) -> Result<bool, store::Error> {
        self.counters.swaps.fetch_add(1, Ordering::Relaxed);
        let ok = self.with(|c| {
            let current: Option<Vec<u8>> = c
                .prepare_cached("SELECT value FROM kv WHERE bucket = ? AND key = ?")?
                .query_row(params![bucket, key], |r| r.get(0))
                .optional()?;
            if current != *seen {
                return Ok(false);
            }
            c.prepare_cached("INSERT OR REPLACE INTO kv (bucket, key, value) VALUES (?, ?, ?)")?
                .execute(params![bucket, key, value])?;
            Ok(true)
        })?;
        if !ok {
            self.counters.lost_swaps.fetch_add(1, Ordering::Relaxed);
        }
        Ok(ok)
    }
}

/// What a store's data lends the bindings: its resource table and the
/// shared database.
pub struct KvView<'a> {
    pub table: &'a mut ResourceTable,
    pub db: &'a KvDb,
}

impl KvView<'_> {
    fn bucket(&self, b: &Resource<BucketHandle>) -> Result<String, store::Error> {
        self.table
            .get(b)
            .map(|b| b.name.clone())
            .map_err(|e| store::Error::Other(e.to_string()))
    }
}

impl store::Host for KvView<'_> {
    fn open(&mut self, identifier: String) -> Result<Resource<BucketHandle>, store::Error> {
        self.table
            .push(BucketHandle { name: identifier })
            .map_err(|e| store::Error::Other(e.to_string()))
    }
}

impl store::HostBucket for KvView<'_> {
    fn get(
        &mut self,
        b: Resource<BucketHandle>,
        key: String,
    ) -> Result<Option<Vec<u8>>, store::Error> {
        let name = self.bucket(&b)?;
        self.db.get(&name, &key)
    }

    fn set(
        &mut self,
        b: Resource<BucketHandle>,
        key: String,
        value: Vec<u8>,
    ) -> Result<(), store::Error> {
        let name = self.bucket(&b)?;
        self.db.set(&name, &key, &value)
    }

    fn delete(&mut self, b: Resource<BucketHandle>, key: String) -> Result<(), store::Error> {
        let name = self.bucket(&b)?;
        self.db.delete(&name, &key)
    }

    fn exists(&mut self, b: Resource<BucketHandle>, key: String) -> Result<bool, store::Error> {
        let name = self.bucket(&b)?;
        Ok(self.db.get(&name, &key)?.is_some())
    }

    fn list_keys(
        &mut self,
        b: Resource<BucketHandle>,
        cursor: Option<String>,
    ) -> Result<store::KeyResponse, store::Error> {
        let name = self.bucket(&b)?;
        // Pages of 1000 keys after the cursor (the last key of the previous page).
        let keys: Vec<String> = self
            .db
            .keys(&name)
            .into_iter()
            .filter(|k| cursor.as_ref().is_none_or(|c| k > c))
            .take(1000)
            .collect();
        let next = (keys.len() == 1000).then(|| keys[999].clone());
        Ok(store::KeyResponse { keys, cursor: next })
    }

    fn drop(&mut self, b: Resource<BucketHandle>) -> wasmtime::Result<()> {
        self.table.delete(b)?;
        Ok(())
    }
}

impl atomics::Host for KvView<'_> {
    fn increment(
        &mut self,
        b: Resource<BucketHandle>,
        key: String,
        delta: i64,
    ) -> Result<i64, store::Error> {
        let name = self.bucket(&b)?;
        loop {
            let seen = self.db.get(&name, &key)?;
            let current = match &seen {
                None => 0,
                Some(v) => std::str::from_utf8(v)
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
                    .ok_or_else(|| store::Error::Other(format!("{key} does not hold a number")))?,
            };
            let next = current
                .checked_add(delta)
                .ok_or_else(|| store::Error::Other("overflow incrementing value".into()))?;
            if self
                .db
                .swap(&name, &key, &seen, next.to_string().as_bytes())?
            {
                return Ok(next);
            }
        }
    }

    fn swap(&mut self, cas: Resource<CasHandle>, value: Vec<u8>) -> Result<(), atomics::CasError> {
        let handle = self
            .table
            .delete(cas)
            .map_err(|e| atomics::CasError::StoreError(store::Error::Other(e.to_string())))?;
        match self
            .db
            .swap(&handle.bucket, &handle.key, &handle.seen, &value)
        {
            Ok(true) => Ok(()),
            Ok(false) => {
                let seen = self
                    .db
                    .get(&handle.bucket, &handle.key)
                    .map_err(atomics::CasError::StoreError)?;
                let fresh = self.table.push(CasHandle { seen, ..handle }).map_err(|e| {
                    atomics::CasError::StoreError(store::Error::Other(e.to_string()))
                })?;
                Err(atomics::CasError::CasFailed(fresh))
            }
            Err(e) => Err(atomics::CasError::StoreError(e)),
        }
    }
}

impl atomics::HostCas for KvView<'_> {
    fn new(
        &mut self,
        b: Resource<BucketHandle>,
        key: String,
    ) -> Result<Resource<CasHandle>, store::Error> {
        let bucket = self.bucket(&b)?;
        let seen = self.db.get(&bucket, &key)?;
        self.table
            .push(CasHandle { bucket, key, seen })
            .map_err(|e| store::Error::Other(e.to_string()))
    }

    fn current(&mut self, cas: Resource<CasHandle>) -> Result<Option<Vec<u8>>, store::Error> {
        self.table
            .get(&cas)
            .map(|c| c.seen.clone())
            .map_err(|e| store::Error::Other(e.to_string()))
    }

    fn drop(&mut self, cas: Resource<CasHandle>) -> wasmtime::Result<()> {
        self.table.delete(cas)?;
        Ok(())
    }
}

impl batch::Host for KvView<'_> {
    fn get_many(
        &mut self,
        b: Resource<BucketHandle>,
        keys: Vec<String>,
    ) -> Result<Vec<(String, Option<Vec<u8>>)>, store::Error> {
        let name = self.bucket(&b)?;
        keys.into_iter()
            .map(|k| {
                let v = self.db.get(&name, &k)?;
                Ok((k, v))
            })
            .collect()
    }

    fn set_many(
        &mut self,
        b: Resource<BucketHandle>,
        entries: Vec<(String, Vec<u8>)>,
    ) -> Result<(), store::Error> {
        let name = self.bucket(&b)?;
        for (k, v) in entries {
            self.db.set(&name, &k, &v)?;
        }
        Ok(())
    }

    fn delete_many(
        &mut self,
        b: Resource<BucketHandle>,
        keys: Vec<String>,
    ) -> Result<(), store::Error> {
        let name = self.bucket(&b)?;
        for k in keys {
            self.db.delete(&name, &k)?;
        }
        Ok(())
    }
}

struct HasKv;

impl HasData for HasKv {
    type Data<'a> = KvView<'a>;
}

/// Add the three interfaces to `linker`, lending each store's `KvView`.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    view: fn(&mut T) -> KvView<'_>,
) -> wasmtime::Result<()> {
    store::add_to_linker::<_, HasKv>(linker, view)?;
    atomics::add_to_linker::<_, HasKv>(linker, view)?;
    batch::add_to_linker::<_, HasKv>(linker, view)?;
    Ok(())
}
