//! Engram's host as a library: a [wasmtime](https://wasmtime.dev) embedding
//! of the memory-policy component (embedded in this crate at build time)
//! with its store and clock, so a Rust program runs Engram's policy without
//! a command line, a server or an async runtime.
//!
//! The component decides what a candidate memory is, whether it may be
//! written, how it relates to what is stored, what a query recalls and how
//! a context is packed (docs/SPEC.md); this crate gives it a store
//! ([`sqlite`], the embedded default; PostgreSQL with the `postgres`
//! feature) and a [`clock`], and runs each call in a fresh sandbox with a
//! time and memory limit ([`runtime`]). Every call acts for a
//! [`Principal`](bindings::Principal): the store refuses any scope outside
//! it ([`backend`]).
//!
//! # Examples
//!
//! Remember a preference and recall it in the next conversation, through
//! the JSON contract (SPEC §4: the same JSON Lines as the `engram`
//! program and the HTTP API):
//!
//! ```
//! use engram_host::{tenant_principal, Engram, Options};
//!
//! # fn main() -> Result<(), engram_host::Error> {
//! // The embedded component on a store of this process only.
//! let mut engram = Engram::open(":memory:", Options::default())?;
//! let acme = tenant_principal("acme");
//!
//! let decision = engram.call_json(
//!     acme.clone(),
//!     "remember",
//!     r#"{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}"#,
//! )?;
//! let decision: serde_json::Value = serde_json::from_str(&decision).unwrap();
//! assert_eq!(decision["disposition"], "active");
//! assert_eq!(decision["kind"], "semantic");
//!
//! // Another thread of the same user: the preference belongs to its speaker.
//! let recalled = engram.call_json(
//!     acme,
//!     "recall",
//!     r#"{"id":"q1","query":"怎么称呼我？","scope":{"tenant":"acme","user":"u42","thread":"t2"}}"#,
//! )?;
//! let recalled: serde_json::Value = serde_json::from_str(&recalled).unwrap();
//! let first = &recalled["results"][0];
//! assert!(first["text"].as_str().unwrap().contains("林工"));
//! # Ok(())
//! # }
//! ```
//!
//! The typed calls ([`Engram::remember`], [`Engram::recall`], …) take and
//! return the WIT types of [`bindings`]; [`Engram::open`] takes a SQLite
//! file (created on first use) as the `engram` program's `--db` does.
//!
//! # Features
//!
//! - `postgres`: the PostgreSQL store (the `postgres` module; a
//!   `postgres://…` URL in [`Engram::open`]), with its client, pool and TLS
//!   stack. Off by default; the `engram` program (`engram-cli`) turns it on.

#![deny(missing_docs)]

pub mod backend;
pub mod bindings;
pub mod clock;
pub mod fingerprint;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod postings_cache;
pub mod runtime;
pub mod sqlite;
pub mod store_url;

pub use store_url::is_postgres_url;

use std::path::PathBuf;
use std::sync::Arc;

use backend::Backend;
use bindings as w;
use clock::Clock;
use runtime::{Limits, Runtime, RuntimeError};

/// Everything that can go wrong calling the policy from the host.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The policy rejected the request (typed, from the WIT `error` variant).
    #[error("{}", describe_policy_error(.0))]
    Policy(w::Error),
    /// The component could not run the call (load, time or memory limit, trap).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The store failed (its message).
    #[error("store: {0}")]
    Store(String),
}

/// A one-line, human-readable rendering of the policy's error: the
/// contract's one wording (`engram_contract::message::describe`), the same
/// as `engram serve`'s and the edge handler's.
pub fn describe_policy_error(e: &w::Error) -> String {
    engram_contract::message::describe(e)
}

impl Error {
    /// The input item a policy error is about (its 0-based index in the
    /// call) and the error's text without that index, so a caller can name
    /// the item as its input does ("line 3", "item 3"; `engram_contract::item`).
    pub fn about_item(&self) -> Option<(u32, String)> {
        match self {
            Error::Policy(e) => engram_contract::item::about_item(e),
            _ => None,
        }
    }
}

/// How to open an `Engram`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Load this component instead of the embedded one.
    pub component: Option<PathBuf>,
    /// Time and memory limits of each policy call.
    pub limits: Limits,
    /// Fixed clock; `None` = system time.
    pub now: Option<w::Datetime>,
    /// Durability and busy timeout of a SQLite database.
    pub sqlite: sqlite::SqliteOptions,
    /// The fingerprint key file (the secret tombstone keys are derived
    /// from). `None`: `<db>.key` beside a SQLite file, a key of this
    /// process for `:memory:`, and none for PostgreSQL (forgetting then
    /// fails naming `--fingerprint-key`). See docs/durability.md.
    pub fingerprint_key: Option<PathBuf>,
}

/// The Rust library API: one runtime, one backend, calls scoped per principal.
pub struct Engram {
    // Shared so that a server can run many `Engram`s (one per request, each
    // with its own backend) over one compiled component.
    runtime: Arc<Runtime>,
    backend: Option<Box<dyn Backend>>,
    /// The clock the policy reads; replace it to move a fixed clock.
    pub clock: Clock,
}

macro_rules! policy_call {
    ($self:ident, $principal:expr, |$p:ident, $s:ident| $body:expr) => {{
        let backend = $self
            .backend
            .take()
            .ok_or_else(|| Error::Store("backend lost".into()))?;
        let (backend, r) = $self
            .runtime
            .call(backend, $principal, $self.clock, |$p, $s| $body);
        $self.backend = Some(backend);
        r?.map_err(Error::Policy)
    }};
}

impl Engram {
    /// Open a SQLite database file (created on first use), or a
    /// PostgreSQL server (`postgres://…`, see `postgres`).
    pub fn open(db: &str, opts: Options) -> Result<Self, Error> {
        let backend = open_backend(db, &opts)?;
        Self::with_backend(backend, opts)
    }

    /// Use any backend.
    pub fn with_backend(backend: Box<dyn Backend>, opts: Options) -> Result<Self, Error> {
        let runtime = Runtime::new(opts.component.as_deref(), opts.limits)?;
        Ok(Self::with_runtime(
            Arc::new(runtime),
            backend,
            opts.now.map(Clock::Fixed).unwrap_or(Clock::System),
        ))
    }

    /// An `Engram` over an already loaded runtime (cheap: no compilation),
    /// e.g. one per request of a server sharing one `Runtime`.
    pub fn with_runtime(runtime: Arc<Runtime>, backend: Box<dyn Backend>, clock: Clock) -> Self {
        Engram {
            runtime,
            backend: Some(backend),
            clock,
        }
    }

    /// The runtime, to share with other `Engram`s (`with_runtime`).
    pub fn shared_runtime(&self) -> Arc<Runtime> {
        Arc::clone(&self.runtime)
    }

    /// Give the backend back (e.g. to a connection pool).
    pub fn into_backend(self) -> Option<Box<dyn Backend>> {
        self.backend
    }

    /// The loaded component: what it is (`info`) and how long it took to load.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// Records the backend has handed to the guest so far.
    pub fn records_read(&self) -> u64 {
        self.backend.as_ref().map(|b| b.records_read()).unwrap_or(0)
    }

    /// Run `f` with direct access to the backend (batching, inspection).
    pub fn with_backend_mut<R>(
        &mut self,
        f: impl FnOnce(&mut (dyn Backend + 'static)) -> R,
    ) -> Option<R> {
        self.backend.as_deref_mut().map(f)
    }

    /// Make everything until `finish_batch` one transaction (see `Backend::begin_batch`).
    pub fn begin_batch(&mut self) -> Result<(), Error> {
        self.with_backend_mut(|b| b.begin_batch())
            .unwrap_or(Ok(()))
            .map_err(|e| Error::Store(store_msg(&e)))
    }

    /// Commit (`ok`) or roll back everything since `begin_batch`.
    pub fn finish_batch(&mut self, ok: bool) -> Result<(), Error> {
        self.with_backend_mut(|b| b.finish_batch(ok))
            .unwrap_or(Ok(()))
            .map_err(|e| Error::Store(store_msg(&e)))
    }

    /// Run a writing call under the store's write lock unless a batch
    /// already holds it. On SQLite this serialises writers from their first
    /// read to their commit, so two processes on one key never livelock on
    /// compare-and-swap retries (the guest's CAS retry still guards stores
    /// that cannot lock, e.g. the Node and Python examples). A failed call
    /// rolls back: nothing half-written.
    fn writing<R>(&mut self, call: impl FnOnce(&mut Self) -> Result<R, Error>) -> Result<R, Error> {
        let in_batch = self.backend.as_ref().map(|b| b.in_batch()).unwrap_or(false);
        if in_batch {
            return call(self);
        }
        self.begin_batch()?;
        let r = call(self);
        let end = self.finish_batch(r.is_ok());
        let out = r?;
        end.map(|()| out)
    }

    /// The tenants holding memory `id` (the operator's lookup: see
    /// `Backend::tenants_of`).
    pub fn tenants_of(&mut self, id: &str) -> Result<Vec<String>, Error> {
        self.with_backend_mut(|b| b.tenants_of(id))
            .unwrap_or(Ok(Vec::new()))
            .map_err(|e| Error::Store(store_msg(&e)))
    }

    /// Classify and gate candidates without storing anything: one decision each.
    pub fn classify(
        &mut self,
        principal: w::Principal,
        c: Vec<w::Candidate>,
    ) -> Result<Vec<w::Decision>, Error> {
        policy_call!(self, principal, |p, s| p
            .engram_memory_policy()
            .call_classify(s, &c))
    }
    /// Classify, gate and store candidates, in one transaction: one decision
    /// each, with what was written (created, superseded, duplicate…).
    pub fn remember(
        &mut self,
        principal: w::Principal,
        c: Vec<w::Candidate>,
    ) -> Result<Vec<w::Decision>, Error> {
        self.writing(|this| {
            policy_call!(this, principal, |p, s| p
                .engram_memory_policy()
                .call_remember(s, &c))
        })
    }
    /// Bulk-load records another system already decided (classification
    /// skipped, secrets still gated), in one transaction: one receipt each.
    pub fn import(
        &mut self,
        principal: w::Principal,
        r: Vec<w::ImportRecord>,
    ) -> Result<Vec<w::ImportReceipt>, Error> {
        self.writing(|this| {
            policy_call!(this, principal, |p, s| p
                .engram_memory_policy()
                .call_import_records(s, &r))
        })
    }
    /// Ranked, explained results for each query (hard scope filters first,
    /// then the score; "nothing relevant" rather than the closest guess).
    pub fn recall(
        &mut self,
        principal: w::Principal,
        q: Vec<w::Query>,
    ) -> Result<Vec<w::RecallResult>, Error> {
        policy_call!(self, principal, |p, s| p
            .engram_memory_policy()
            .call_recall(s, &q))
    }
    /// Pack recalled memories and the turn's material into a model's context
    /// under a token budget.
    pub fn pack(
        &mut self,
        principal: w::Principal,
        r: w::PackRequest,
    ) -> Result<w::PackedContext, Error> {
        policy_call!(self, principal, |p, s| p
            .engram_memory_policy()
            .call_pack(s, &r))
    }
    /// Forget what the selectors name (with derived memories cascaded) and
    /// leave tombstones, so a forgotten secret cannot come back.
    pub fn forget(
        &mut self,
        principal: w::Principal,
        sel: Vec<w::ForgetSelector>,
    ) -> Result<w::ForgetReport, Error> {
        self.writing(|this| {
            policy_call!(this, principal, |p, s| p
                .engram_memory_policy()
                .call_forget(s, &sel))
        })
    }
    /// Expire and archive what is due in `scope`.
    pub fn sweep(
        &mut self,
        principal: w::Principal,
        scope: w::Scope,
    ) -> Result<w::SweepReport, Error> {
        self.writing(|this| {
            policy_call!(this, principal, |p, s| p
                .engram_memory_policy()
                .call_sweep(s, &scope))
        })
    }
    /// The revision chain of memory `id`, oldest first.
    pub fn history(&mut self, principal: w::Principal, id: &str) -> Result<Vec<w::Memory>, Error> {
        policy_call!(self, principal, |p, s| p
            .engram_memory_policy()
            .call_history(s, id))
    }
    /// The memories of `scope` with these statuses (all when empty).
    pub fn list(
        &mut self,
        principal: w::Principal,
        scope: w::Scope,
        statuses: Vec<w::Status>,
    ) -> Result<Vec<w::Memory>, Error> {
        policy_call!(self, principal, |p, s| p
            .engram_memory_policy()
            .call_list_memories(s, &scope, &statuses))
    }
    /// Approve or reject pending memories (see `review` in `wit/policy.wit`).
    pub fn review(
        &mut self,
        principal: w::Principal,
        items: Vec<w::ReviewItem>,
    ) -> Result<Vec<w::ReviewOutcome>, Error> {
        self.writing(|this| {
            policy_call!(this, principal, |p, s| p
                .engram_memory_policy()
                .call_review(s, &items))
        })
    }

    /// Record what tool side effects did, by operation id, in one atomic
    /// commit (see `record-operations` in `wit/policy.wit`): each
    /// record's receipt (`created`, `updated` or `duplicate`, with the
    /// operation's revision and status). A changed final status, tool,
    /// idempotency key or scope is refused naming the item and the field,
    /// and nothing is written.
    pub fn record_operations(
        &mut self,
        principal: w::Principal,
        records: Vec<w::OperationRecord>,
    ) -> Result<Vec<w::OperationReceipt>, Error> {
        self.writing(|this| {
            policy_call!(this, principal, |p, s| p
                .engram_memory_policy()
                .call_record_operations(s, &records))
        })
    }
    /// Look operations up by id, exactly (see `get-operations` in
    /// `wit/policy.wit`): each one's latest record, revision and history,
    /// or `found: false` when no record of it is visible from the
    /// lookup's scope.
    pub fn get_operations(
        &mut self,
        principal: w::Principal,
        lookups: Vec<w::OperationLookup>,
    ) -> Result<Vec<w::OperationState>, Error> {
        policy_call!(self, principal, |p, s| p
            .engram_memory_policy()
            .call_get_operations(s, &lookups))
    }

    /// Run an operation of the JSON contract (SPEC §4; the component's
    /// `json` export, `engram_contract::ops`) for `principal` on `input`
    /// and return its JSON Lines. A writing operation runs under the
    /// store's write lock, like `remember`.
    pub fn call_json(
        &mut self,
        principal: w::Principal,
        operation: &str,
        input: &str,
    ) -> Result<String, Error> {
        let run = |this: &mut Self| {
            policy_call!(this, principal, |p, s| p
                .engram_memory_json()
                .call_call(s, operation, input))
        };
        match engram_contract::ops::operation(operation) {
            Some(op) if op.writes => self.writing(run),
            _ => run(self),
        }
    }
    /// The component's package and policy versions.
    pub fn info(&mut self) -> Result<w::PolicyInfo, Error> {
        let principal = w::Principal {
            tenant: String::new(),
            user: None,
            project: None,
        };
        let backend = self
            .backend
            .take()
            .ok_or_else(|| Error::Store("backend lost".into()))?;
        let (backend, r) = self.runtime.call(backend, principal, self.clock, |p, s| {
            p.engram_memory_policy().call_info(s)
        });
        self.backend = Some(backend);
        Ok(r?)
    }
}

/// Open the backend `db` names: a SQLite file, `:memory:`, or a
/// PostgreSQL server (`postgres://…`; the `postgres` feature).
pub fn open_backend(db: &str, opts: &Options) -> Result<Box<dyn Backend>, Error> {
    use fingerprint::KeySource;
    let store_err = |e: w::StoreError| Error::Store(store_msg(&e));
    let key = opts.fingerprint_key.clone().map(KeySource::File);
    Ok(if store_url::is_postgres_url(db) {
        open_postgres(db, key)?
    } else if db == ":memory:" {
        let s = sqlite::SqliteStore::open_in_memory().map_err(store_err)?;
        Box::new(match key {
            Some(k) => s.with_key_source(k),
            None => s,
        })
    } else {
        let s = sqlite::SqliteStore::open_with(std::path::Path::new(db), opts.sqlite)
            .map_err(store_err)?;
        Box::new(match key {
            Some(k) => s.with_key_source(k),
            None => s,
        })
    })
}

/// The PostgreSQL store at `url` (see `postgres`).
#[cfg(feature = "postgres")]
fn open_postgres(
    url: &str,
    key: Option<fingerprint::KeySource>,
) -> Result<Box<dyn Backend>, Error> {
    let key = key.unwrap_or_else(|| fingerprint::KeySource::Unset(postgres::NO_KEY.into()));
    let store =
        postgres::PgStore::open_with_key(url, key).map_err(|e| Error::Store(store_msg(&e)))?;
    Ok(Box::new(store))
}

/// A build without the `postgres` feature refuses a PostgreSQL URL, naming
/// the feature (rather than creating a SQLite file called `postgres:`).
#[cfg(not(feature = "postgres"))]
fn open_postgres(
    _url: &str,
    _key: Option<fingerprint::KeySource>,
) -> Result<Box<dyn Backend>, Error> {
    Err(Error::Store(
        "a postgres:// database needs engram-host built with the `postgres` feature".into(),
    ))
}

/// A principal for a whole tenant.
pub fn tenant_principal(tenant: &str) -> w::Principal {
    w::Principal {
        tenant: tenant.to_string(),
        user: None,
        project: None,
    }
}

/// A store error as one line of text.
pub fn store_msg(e: &w::StoreError) -> String {
    match e {
        w::StoreError::Denied(m) => format!("denied: {m}"),
        w::StoreError::Conflict(m) => format!("conflict: {m}"),
        w::StoreError::Invalid(m) => format!("invalid: {m}"),
        w::StoreError::Backend(m) => m.clone(),
    }
}

#[cfg(all(test, not(feature = "postgres")))]
mod tests {
    use super::{open_backend, Error, Options};

    #[test]
    fn a_postgres_url_without_the_feature_is_refused_naming_it() {
        let Err(Error::Store(message)) =
            open_backend("postgres://engram@localhost/engram", &Options::default())
        else {
            panic!("a postgres:// URL opened without the `postgres` feature");
        };
        assert!(message.contains("`postgres` feature"), "{message}");
        // Nothing was created under the URL's name as a SQLite file.
        assert!(!std::path::Path::new("postgres:").exists());
    }
}
