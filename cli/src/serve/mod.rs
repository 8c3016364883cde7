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
//! [`ServeState::with_engram`](state::ServeState::with_engram) (reads) or [`ServeState::with_engram_tx`](state::ServeState::with_engram_tx)
//! (writes, one transaction) for `authed.principal`.

pub mod auth;
pub mod codec;
pub mod error;
pub mod keys;
pub mod limits;
pub mod routes;
pub mod state;

use std::net::SocketAddr;
use std::path::Path;

use axum::Router;
use clap::Args;

use self::keys::KeyRing;
use self::limits::{LimitArgs, Limits};
pub use self::state::ServeState;
use crate::failure::Failure;
use crate::flags::Flags;

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

/// Every route: the API and the inspector page; every error a JSON body.
pub fn router(state: ServeState) -> Router {
    Router::new()
        .merge(routes::api())
        .merge(crate::inspector::routes())
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
    if state.read_only() {
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
    let Some(file) = state.keys_file() else {
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
