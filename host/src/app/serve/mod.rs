//! `engram serve`: the CLI's contract (SPEC §4, §4.1) over HTTP/JSON.
//!
//! One `Runtime` (compiled component, `InstancePre`) is shared by every
//! request; each request gets a fresh wasmtime `Store` (as a CLI call does)
//! and a SQLite connection from a small pool, on tokio's blocking pool so
//! requests run in parallel across cores. Every request runs with the
//! principal of its API key (`auth`), so a key for one tenant can never
//! reach another's memory. The key file is read again when it changes
//! (`watch_keys` looks at it twice a second: `engram keys add` and `engram
//! keys revoke` take effect without a signal) and on SIGHUP; a file that
//! does not load keeps the keys in force, one that holds no key refuses
//! every key. Ctrl-C or SIGTERM stops accepting connections and waits for
//! requests in flight, writes included, to finish. Every error, axum's own
//! 404 and 405 included, is a JSON body (`error::json_errors`).
//!
//! For other modules adding routes (the inspector): take an
//! [`auth::Authed`] argument and `State<ServeState>`, check every scope
//! from the request with [`auth::Authed::check`], and run policy calls with
//! [`ServeState::with_engram`] (reads) or [`ServeState::with_engram_tx`]
//! (writes, one transaction) for `authed.principal`.

pub mod auth;
pub mod codec;
pub mod error;
pub mod keys;
pub mod limits;
pub mod routes;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use axum::Router;
use clap::Args;

use self::error::ApiError;
use self::keys::KeyRing;
use self::limits::{LimitArgs, Limits};
use crate::app::failure::Failure;
use crate::app::flags::Flags;
use crate::backend::Backend;
use crate::clock::Clock;
use crate::runtime::Runtime;
use crate::{Engram, Options};

/// Idle SQLite connections kept for reuse (each keeps its recall cache).
const POOL_SIZE: usize = 16;
/// Policy calls running at once. Each holds one instance of the pooling
/// allocator (64 in all, `runtime::engine_config`); more requests wait.
const MAX_CONCURRENT_CALLS: usize = 32;

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on (port 0: any free port, printed on stderr).
    #[arg(long, default_value = "127.0.0.1:8077")]
    pub listen: String,
    /// The API key file (`engram keys add`). Read again when it changes
    /// (`engram keys add`/`revoke` take effect within a second) and on SIGHUP.
    #[arg(long, value_name = "FILE")]
    pub keys: std::path::PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
}

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
            None => Ok(crate::open_backend(&self.db, &self.options)?),
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

/// Every route: the API and the inspector page; every error a JSON body.
pub fn router(state: ServeState) -> Router {
    Router::new()
        .merge(routes::api())
        .merge(crate::app::inspector::routes())
        .layer(axum::middleware::from_fn(error::json_errors))
        .with_state(state)
}

/// A key file with at least one key.
fn load_ring(file: &Path) -> Result<KeyRing, Failure> {
    let keys = KeyRing::load(file)?;
    if keys.is_empty() {
        return Err(Failure::input(format!(
            "serve: the keys file {} has no keys (add one with `engram keys add`)",
            file.display()
        )));
    }
    Ok(keys)
}

/// `engram serve`.
pub fn run(flags: &Flags, args: &ServeArgs) -> Result<(), Failure> {
    let keys = load_ring(&args.keys)?;
    let state = ServeState::open_with_file(
        flags,
        keys,
        Some(args.keys.clone()),
        Limits::new(args.limits.clone()),
    )?;
    if state.shared.options.sqlite.read_only {
        eprintln!(
            "engram serve: {} is read-only: serving reads; writes are refused and usage counts not recorded",
            flags.db
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(MAX_CONCURRENT_CALLS)
        .build()
        .map_err(|e| Failure::input(format!("serve: starting the async runtime: {e}")))?;
    rt.block_on(serve(state, &args.listen))?;
    // Dropping the runtime waits for blocking tasks still running: a write
    // whose client went away is still committed or rolled back whole.
    drop(rt);
    eprintln!("engram serve: stopped");
    Ok(())
}

async fn serve(state: ServeState, listen: &str) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| Failure::input(format!("serve: cannot listen on {listen}: {e}")))?;
    let addr: SocketAddr = listener
        .local_addr()
        .map_err(|e| Failure::input(format!("serve: {e}")))?;
    eprintln!(
        "engram serve: listening on http://{addr} ({} keys)",
        state.keys().len()
    );
    #[cfg(unix)]
    {
        let reload_state = state.clone();
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
            Ok(mut hup) => {
                tokio::spawn(async move {
                    while hup.recv().await.is_some() {
                        match reload_state.reload_keys() {
                            Ok(n) => eprintln!("engram serve: reloaded the key file ({n} keys)"),
                            Err(f) => {
                                eprintln!("engram serve: kept the keys in force: {}", f.message)
                            }
                        }
                    }
                });
            }
            Err(e) => eprintln!("engram serve: SIGHUP will not reload keys: {e}"),
        }
    }
    tokio::spawn(watch_keys(state.clone()));
    let tidy_state = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every.tick().await;
            tidy_state.limits().tidy();
        }
    });
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|e| Failure::input(format!("serve: {e}")))
}

/// How often `watch_keys` looks at the key file.
const KEYS_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// What identifies one version of a file: a rename over it (`keys revoke`)
/// changes its inode, an append (`keys add`) its length and mtime.
fn file_stamp(file: &Path) -> Option<(u64, u64, std::time::SystemTime, u64)> {
    let m = std::fs::metadata(file).ok()?;
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0, 0);
    Some((dev, ino, m.modified().ok()?, m.len()))
}

/// Reload the keys whenever the key file changes (`engram keys add`,
/// `engram keys revoke`, an edit): looked at every `KEYS_POLL`, so a change
/// is in force within a second, with no signal to send. A file that is
/// missing or does not load keeps the keys in force and says why, once
/// per change.
async fn watch_keys(state: ServeState) {
    let Some(file) = state.shared.keys_file.clone() else {
        return;
    };
    // The first look reloads (quietly): the file may have changed since
    // the server read it at start.
    let mut seen = None;
    let mut first = true;
    let mut every = tokio::time::interval(KEYS_POLL);
    loop {
        every.tick().await;
        let now = file_stamp(&file);
        if now == seen && !first {
            continue;
        }
        seen = now;
        let quiet = std::mem::take(&mut first);
        match state.reload_keys() {
            Ok(_) if quiet => {}
            Ok(n) => eprintln!(
                "engram serve: the key file changed; reloaded it ({n} keys{})",
                if n == 0 {
                    ": every request is refused"
                } else {
                    ""
                }
            ),
            Err(f) => eprintln!("engram serve: kept the keys in force: {}", f.message),
        }
    }
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    eprintln!("engram serve: shutting down, finishing requests in flight");
}
