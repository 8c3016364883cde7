//! The flags of the `engram` commands (where the database is, whose
//! principal, the clock, the limits), and how they open an `Engram`.
//!
//! Each command takes only the groups it uses (`commands.rs`): a group is
//! a clap `Args` struct, and the groups a command was given fill a
//! [`Flags`], the defaults standing for the rest.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::failure::Failure;
use engram_host::runtime::Limits;
use engram_host::{Engram, Options};

/// Every flag's value, as the commands read them: what a command was not
/// given (it does not take that flag) is the default.
#[derive(Debug, Clone)]
pub struct Flags {
    pub db: String,
    pub now: Option<String>,
    pub tenant: Option<String>,
    pub user: Option<String>,
    pub project: Option<String>,
    pub fingerprint_key: Option<PathBuf>,
    pub component: Option<PathBuf>,
    pub timeout_secs: u64,
    pub memory_mb: usize,
    pub durability: engram_host::sqlite::Durability,
    pub busy_timeout_ms: u64,
    pub read_only: bool,
}

impl Default for Flags {
    fn default() -> Self {
        Flags {
            db: DEFAULT_DB.to_string(),
            now: None,
            tenant: None,
            user: None,
            project: None,
            fingerprint_key: None,
            component: None,
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            memory_mb: DEFAULT_MEMORY_MB,
            durability: engram_host::sqlite::Durability::Normal,
            busy_timeout_ms: DEFAULT_BUSY_TIMEOUT_MS,
            read_only: false,
        }
    }
}

const DEFAULT_DB: &str = "engram.db";
const DEFAULT_TIMEOUT_SECS: u64 = 120;
const DEFAULT_MEMORY_MB: usize = 1024;
const DEFAULT_BUSY_TIMEOUT_MS: u64 = 30_000;

/// The database a command opens, and how.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Database")]
pub struct DbFlags {
    /// SQLite database file, `:memory:`, or a PostgreSQL server:
    /// `postgres://user@host:port/db` (docs/postgres.md).
    #[arg(long, default_value = DEFAULT_DB, value_name = "PATH|URL")]
    pub db: String,
    /// What a returned write survives: `normal` (a killed process; a power
    /// loss may lose the last commits, never corrupts) or `full` (a power
    /// loss too; an fsync per commit). See docs/durability.md.
    #[arg(long, default_value = "normal")]
    pub durability: engram_host::sqlite::Durability,
    /// How long to wait for another process's write lock on the database
    /// before failing with a "database is locked" error, in milliseconds.
    #[arg(long, default_value_t = DEFAULT_BUSY_TIMEOUT_MS, value_name = "MS")]
    pub busy_timeout_ms: u64,
    /// The fingerprint key file: the secret tombstones are keyed with,
    /// kept out of the database. Default: `<db>.key` beside a SQLite file
    /// (created 0600 on first use); PostgreSQL needs one (the same file on
    /// every host). See docs/durability.md.
    #[arg(long, value_name = "FILE")]
    pub fingerprint_key: Option<PathBuf>,
    /// Open the SQLite database read-only: reads work, nothing is written
    /// (usage counts are not recorded; a writing command fails). Implied
    /// when the file or its directory is not writable.
    #[arg(long)]
    pub read_only: bool,
}

/// Whose principal a command acts for.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Principal")]
pub struct PrincipalFlags {
    /// Act only for this tenant (the store refuses any other scope).
    /// Without it, each input line acts for the tenant of its own scope.
    #[arg(long)]
    pub tenant: Option<String>,
    /// With --tenant: act only for this user.
    #[arg(long)]
    pub user: Option<String>,
    /// With --tenant: act only for this project.
    #[arg(long)]
    pub project: Option<String>,
}

/// The policy component and its per-call limits.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Policy component")]
pub struct EngineFlags {
    /// Load this component (.wasm) instead of the embedded one.
    #[arg(long, value_name = "FILE")]
    pub component: Option<PathBuf>,
    /// Time limit of one policy call, in seconds.
    #[arg(long, default_value_t = DEFAULT_TIMEOUT_SECS, value_name = "SECS")]
    pub timeout_secs: u64,
    /// Memory limit of the policy component, in MiB.
    #[arg(long, default_value_t = DEFAULT_MEMORY_MB, value_name = "MIB")]
    pub memory_mb: usize,
}

/// The clock the policy reads.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Policy component")]
pub struct ClockFlags {
    /// Fix the clock at this RFC 3339 instant, for reproducible runs
    /// (e.g. 2026-09-01T10:00:00+08:00).
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
}

impl DbFlags {
    pub fn apply(&self, f: &mut Flags) {
        f.db = self.db.clone();
        f.durability = self.durability;
        f.busy_timeout_ms = self.busy_timeout_ms;
        f.fingerprint_key = self.fingerprint_key.clone();
        f.read_only = self.read_only;
    }
}

impl PrincipalFlags {
    pub fn apply(&self, f: &mut Flags) {
        f.tenant = self.tenant.clone();
        f.user = self.user.clone();
        f.project = self.project.clone();
    }
}

impl EngineFlags {
    pub fn apply(&self, f: &mut Flags) {
        f.component = self.component.clone();
        f.timeout_secs = self.timeout_secs;
        f.memory_mb = self.memory_mb;
    }
}

impl ClockFlags {
    pub fn apply(&self, f: &mut Flags) {
        f.now = self.now.clone();
    }
}

impl Flags {
    /// The per-call limits of the policy component.
    pub fn limits(&self) -> Limits {
        Limits {
            timeout: Duration::from_secs(self.timeout_secs.max(1)),
            memory_bytes: self.memory_mb.max(16) << 20,
        }
    }

    /// Open `db` (a SQLite file or `:memory:`) with these flags.
    pub fn open(&self, db: &str) -> Result<Engram, Failure> {
        Ok(Engram::open(db, self.options()?)?)
    }

    /// The library's options these flags stand for.
    pub fn options(&self) -> Result<Options, Failure> {
        if self.tenant.is_none() && (self.user.is_some() || self.project.is_some()) {
            // Without --tenant the CLI acts for whole tenants: a --user or
            // --project alone would be silently ignored, widening the run.
            return Err(Failure::input(
                "--user and --project narrow a --tenant principal: pass --tenant too",
            ));
        }
        let now = match &self.now {
            Some(s) => Some(
                engram_host::clock::parse(s).map_err(|e| Failure::input(format!("--now: {e}")))?,
            ),
            None => None,
        };
        Ok(Options {
            component: self.component.clone(),
            limits: self.limits(),
            now,
            sqlite: engram_host::sqlite::SqliteOptions {
                durability: self.durability,
                busy_timeout: Duration::from_millis(self.busy_timeout_ms),
                read_only: self.read_only || !writable(&self.db),
            },
            fingerprint_key: self.fingerprint_key.clone(),
        })
    }
}

/// Whether `db`, an existing SQLite file, can be written: its permission
/// bits grant writing to someone (so `chmod 444` reads as read-only even
/// for root), and `access(2)` lets this process write the file and create
/// the `-wal`/`-shm` files beside it. Anything else (`:memory:`,
/// PostgreSQL, a file not created yet) counts as writable.
pub fn writable(db: &str) -> bool {
    use std::os::unix::ffi::OsStrExt;
    if db == ":memory:" || engram_host::postgres::is_postgres_url(db) {
        return true;
    }
    let path = std::path::Path::new(db);
    let Ok(meta) = std::fs::metadata(path) else {
        return true;
    };
    if meta.permissions().readonly() {
        return false;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let can_write = |p: &std::path::Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            // SAFETY: a NUL-terminated path that lives across the call.
            .map(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
            .unwrap_or(true)
    };
    can_write(path) && can_write(dir)
}
