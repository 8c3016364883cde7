//! The wasm glue: the exports (`store`, `clock`, `session`) over
//! `KvStore`, and `Kv` over the imported `wasi:keyvalue` bucket.

use std::cell::RefCell;

use crate::bindings::exports::engram::edge::session;
use crate::bindings::exports::engram::memory::store::{
    Event, Filter, Principal, Receipt, StoreError, Stored, TermStats, Tombstone, WeightedTerm,
    WriteOp,
};
use crate::bindings::exports::engram::memory::{clock, store as wit};
use crate::bindings::wasi::keyvalue0_2_0_draft2::{atomics, batch, store as kv};
use crate::clock::Clock;
use crate::kv::{Kv, KvError};
use crate::store::KvStore;
use crate::types::{Datetime, Scope};

/// The bucket the `wasi:keyvalue` runtime opened for us.
pub struct Bucket(kv::Bucket);

fn kv_error(e: kv::Error) -> KvError {
    match e {
        kv::Error::NoSuchStore => "no such store".to_string(),
        kv::Error::AccessDenied => "access denied".to_string(),
        kv::Error::Other(m) => m,
    }
}

impl Kv for Bucket {
    type Cas = atomics::Cas;

    fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, KvError> {
        let found = batch::get_many(&self.0, keys).map_err(kv_error)?;
        // One entry per asked key (draft2 as Spin implements it); matched
        // by name in case a runtime reorders them.
        let mut by_key: std::collections::BTreeMap<String, Option<Vec<u8>>> =
            found.into_iter().collect();
        Ok(keys.iter().map(|k| by_key.remove(k).flatten()).collect())
    }

    fn set_many(&self, entries: Vec<(String, Vec<u8>)>) -> Result<(), KvError> {
        batch::set_many(&self.0, &entries).map_err(kv_error)
    }

    fn delete_many(&self, keys: &[String]) -> Result<(), KvError> {
        if keys.is_empty() {
            return Ok(());
        }
        batch::delete_many(&self.0, keys).map_err(kv_error)
    }

    fn cas_read(&self, key: &str) -> Result<(Option<Vec<u8>>, Self::Cas), KvError> {
        let cas = atomics::Cas::new(&self.0, key).map_err(kv_error)?;
        let current = cas.current().map_err(kv_error)?;
        Ok((current, cas))
    }

    fn cas_swap(&self, cas: Self::Cas, value: Vec<u8>) -> Result<bool, KvError> {
        match atomics::swap(cas, &value) {
            Ok(()) => Ok(true),
            Err(atomics::CasError::CasFailed(_)) => Ok(false),
            Err(atomics::CasError::StoreError(e)) => Err(kv_error(e)),
        }
    }
}

/// An environment variable as the runtime gives it now (std caches the
/// environment at first use; a long-lived instance, as jco's, must see
/// changes between requests).
fn var(name: &str) -> Option<String> {
    wasip2::cli::environment::get_environment()
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

struct State {
    store: KvStore<Bucket>,
    clock: Clock,
}

thread_local! {
    /// Opened by `session::open`; one instance serves one request at a time.
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

fn closed() -> StoreError {
    StoreError::Denied("the store is not open for any principal".to_string())
}

fn with<R>(f: impl FnOnce(&KvStore<Bucket>) -> Result<R, StoreError>) -> Result<R, StoreError> {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(st) => f(&st.store),
        None => Err(closed()),
    })
}

struct Component;

impl session::Guest for Component {
    fn open(principal: Principal) -> Result<(), String> {
        let env = var;
        let clock = Clock::from_env(
            env("ENGRAM_NOW").as_deref(),
            env("ENGRAM_UTC_OFFSET_MINUTES").as_deref(),
        )?;
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            if s.is_none() {
                let name = env("ENGRAM_KV_BUCKET").unwrap_or_else(|| "default".to_string());
                let bucket = kv::open(&name)
                    .map_err(|e| format!("opening key-value bucket '{name}': {}", kv_error(e)))?;
                *s = Some(State {
                    store: KvStore::new(Bucket(bucket), wall_ms),
                    clock,
                });
            }
            let st = s.as_mut().expect("opened above");
            st.clock = clock;
            st.store.set_secret(crate::secret::from_env(
                env(crate::secret::SECRET_VAR).as_deref(),
            ));
            st.store.open(principal);
            Ok(())
        })
    }

    fn close() {
        STATE.with(|s| {
            if let Some(st) = s.borrow().as_ref() {
                st.store.close();
            }
        })
    }
}

impl clock::Guest for Component {
    fn now() -> Datetime {
        let c = STATE.with(|s| s.borrow().as_ref().map(|st| st.clock));
        c.unwrap_or(Clock::Wall { offset_minutes: 0 })
            .now(wall_ms())
    }
}

impl wit::Guest for Component {
    fn current_principal() -> Principal {
        STATE.with(|s| match s.borrow().as_ref() {
            Some(st) => st.store.current_principal(),
            None => Principal {
                tenant: String::new(),
                user: None,
                project: None,
            },
        })
    }
    fn find(filter: Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        with(|s| s.find(&filter, limit))
    }
    fn revisions(id: String) -> Result<Vec<Stored>, StoreError> {
        with(|s| s.revisions(&id))
    }
    fn stats(filter: Filter, terms: Vec<String>) -> Result<TermStats, StoreError> {
        with(|s| s.stats(&filter, &terms))
    }
    fn search(
        filter: Filter,
        terms: Vec<WeightedTerm>,
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        with(|s| s.search(&filter, &terms, limit))
    }
    fn commit(ops: Vec<WriteOp>) -> Result<Receipt, StoreError> {
        with(|s| s.commit(&ops))
    }
    fn tombstones(scope: Scope) -> Result<Vec<Tombstone>, StoreError> {
        with(|s| s.tombstones(&scope))
    }
    fn fingerprint_key(scope: Scope) -> Result<Vec<u8>, StoreError> {
        with(|s| s.fingerprint_key(&scope))
    }
    fn count_events(scope: Scope, kind: String, since: Datetime) -> Result<u64, StoreError> {
        with(|s| s.count_events(&scope, &kind, since))
    }
    fn session_log(scope: Scope, session: String, kind: String) -> Result<Vec<Event>, StoreError> {
        with(|s| s.session_log(&scope, &session, &kind))
    }
}

crate::bindings::export!(Component with_types_in crate::bindings);
