//! What every request of `engram serve` shares: the compiled component
//! (one `Runtime`), a small pool of store connections, the keys in force
//! and the limits; and how a handler runs policy calls on them.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use engram_host::backend::Backend;
use engram_host::clock::Clock;
use engram_host::runtime::Runtime;
use engram_host::{Engram, Options};

use super::error::ApiError;
use super::keys::KeyRing;
use super::limits::Limits;
use crate::failure::Failure;
use crate::flags::Flags;

/// Idle SQLite connections kept for reuse (each keeps its recall cache).
const POOL_SIZE: usize = 16;
/// The state every handler shares: cheap to clone.
#[derive(Clone)]
pub struct ServeState {
    shared: Arc<Shared>,
}

struct Shared {
    runtime: Arc<Runtime>,
    db: String,
    options: Options,
    clock: Clock,
    idle: Mutex<Vec<Box<dyn Backend>>>,
    /// Replaced whole on reload: a request sees one ring or the other.
    keys: RwLock<Arc<KeyRing>>,
    /// Where the keys are read from (`--keys`), for reloads.
    keys_file: Option<PathBuf>,
    limits: Limits,
}

impl ServeState {
    /// Open the database once (which also loads the component) and keep
    /// the connection as the pool's first.
    pub fn open(flags: &Flags, keys: KeyRing, limits: Limits) -> Result<Self, Failure> {
        Self::open_with_file(flags, keys, None, limits)
    }

    /// `open`, remembering the key file the ring came from (`reload_keys`).
    pub fn open_with_file(
        flags: &Flags,
        keys: KeyRing,
        keys_file: Option<PathBuf>,
        limits: Limits,
    ) -> Result<Self, Failure> {
        if flags.db == ":memory:" {
            return Err(Failure::input(
                "serve: --db :memory: would give every connection its own empty store; give a database file",
            ));
        }
        let options = flags.options()?;
        let engram = Engram::open(&flags.db, options.clone())?;
        let runtime = engram.shared_runtime();
        let clock = engram.clock;
        let idle = engram.into_backend().into_iter().collect();
        Ok(ServeState {
            shared: Arc::new(Shared {
                runtime,
                db: flags.db.clone(),
                options,
                clock,
                idle: Mutex::new(idle),
                keys: RwLock::new(Arc::new(keys)),
                keys_file,
                limits,
            }),
        })
    }

    /// The keys in force.
    pub fn keys(&self) -> Arc<KeyRing> {
        match self.shared.keys.read() {
            Ok(k) => Arc::clone(&k),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Read the key file again and put its keys in force: added keys work
    /// and removed ones are refused from the next request on. A file that
    /// does not load leaves the keys in force as they were, and says why; a
    /// file that loads with no key in it refuses every key (the last key
    /// revoked is revoked).
    pub fn reload_keys(&self) -> Result<usize, Failure> {
        let Some(file) = &self.shared.keys_file else {
            return Err(Failure::input("serve: no key file to reload"));
        };
        let ring = KeyRing::load(file)?;
        let n = ring.len();
        match self.shared.keys.write() {
            Ok(mut k) => *k = Arc::new(ring),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(ring),
        }
        Ok(n)
    }

    /// Where the keys are read from (`--keys`), if from a file.
    pub fn keys_file(&self) -> Option<PathBuf> {
        self.shared.keys_file.clone()
    }

    /// Whether the database was opened read-only (`--read-only`, or a
    /// file this process cannot write).
    pub fn read_only(&self) -> bool {
        self.shared.options.sqlite.read_only
    }

    /// The body, batch and rate limits in force.
    pub fn limits(&self) -> &Limits {
        &self.shared.limits
    }

    /// Run `f` on the blocking pool with an `Engram` of its own (a fresh
    /// wasmtime Store per policy call, a pooled connection). Reads only:
    /// each writing call is its own transaction.
    pub async fn with_engram<R, F>(&self, f: F) -> Result<R, ApiError>
    where
        F: FnOnce(&mut Engram) -> Result<R, ApiError> + Send + 'static,
        R: Send + 'static,
    {
        let shared = Arc::clone(&self.shared);
        tokio::task::spawn_blocking(move || shared.run(f))
            .await
            .map_err(|e| ApiError::internal(format!("the request's worker stopped: {e}")))?
    }

    /// Like `with_engram`, with everything `f` writes in one transaction:
    /// committed if it returns `Ok`, else rolled back (nothing written).
    pub async fn with_engram_tx<R, F>(&self, f: F) -> Result<R, ApiError>
    where
        F: FnOnce(&mut Engram) -> Result<R, ApiError> + Send + 'static,
        R: Send + 'static,
    {
        self.with_engram(move |e| {
            e.begin_batch()?;
            let r = f(e);
            e.finish_batch(r.is_ok())?;
            r
        })
        .await
    }
}

impl Shared {
    fn run<R>(&self, f: impl FnOnce(&mut Engram) -> Result<R, ApiError>) -> Result<R, ApiError> {
        let backend = self.take_backend()?;
        let mut engram = Engram::with_runtime(Arc::clone(&self.runtime), backend, self.clock);
        let r = f(&mut engram);
        if let Some(b) = engram.into_backend() {
            self.give_back(b);
        }
        r
    }

    fn take_backend(&self) -> Result<Box<dyn Backend>, ApiError> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match pooled {
            Some(b) => Ok(b),
            None => Ok(engram_host::open_backend(&self.db, &self.options)?),
        }
    }

    fn give_back(&self, backend: Box<dyn Backend>) {
        // A connection left inside a transaction (a failed rollback) is dropped.
        if backend.in_batch() {
            return;
        }
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < POOL_SIZE {
                idle.push(backend);
            }
        }
    }
}
