//! The flags every `engram` command takes (where the database is, whose
//! principal, the clock, the limits), and how they open an `Engram`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::failure::Failure;
use crate::runtime::Limits;
use crate::{Engram, Options};

#[derive(Args, Debug, Clone)]
pub struct Flags {
    /// SQLite database file (created on first use), `:memory:`, or a
    /// PostgreSQL server: `postgres://user@host:port/db` (docs/postgres.md).
    #[arg(long, global = true, default_value = "engram.db")]
    pub db: String,
    /// Fix the clock at this RFC 3339 instant, for reproducible runs.
    #[arg(long, global = true)]
    pub now: Option<String>,
    /// Act only for this tenant (the store refuses any other).
    #[arg(long, global = true)]
    pub tenant: Option<String>,
    /// With --tenant: act only for this user.
    #[arg(long, global = true)]
    pub user: Option<String>,
    /// With --tenant: act only for this project.
    #[arg(long, global = true)]
    pub project: Option<String>,
    /// The fingerprint key file: the secret tombstones are keyed with,
    /// kept out of the database. Default: `<db>.key` beside a SQLite file
    /// (created 0600 on first use); PostgreSQL needs one (the same file on
    /// every host). See docs/durability.md.
    #[arg(long, global = true)]
    pub fingerprint_key: Option<PathBuf>,
    /// Load this component instead of the embedded one.
    #[arg(long, global = true)]
    pub component: Option<PathBuf>,
    /// Time limit of one policy call, in seconds.
    #[arg(long, global = true, default_value_t = 120)]
    pub timeout_secs: u64,
    /// Memory limit of the policy component, in MiB.
    #[arg(long, global = true, default_value_t = 1024)]
    pub memory_mb: usize,
    /// What a returned write survives: `normal` (a killed process; a power
    /// loss may lose the last commits, never corrupts) or `full` (a power
    /// loss too; an fsync per commit). See docs/durability.md.
    #[arg(long, global = true, default_value = "normal")]
    pub durability: crate::sqlite::Durability,
    /// How long to wait for another process's write lock on the database
    /// before failing with a "database is locked" error, in milliseconds.
    #[arg(long, global = true, default_value_t = 30_000)]
    pub busy_timeout_ms: u64,
    /// Open the SQLite database read-only: reads work, nothing is written
    /// (usage counts are not recorded; a writing command fails). Implied
    /// when the file or its directory is not writable.
    #[arg(long, global = true)]
    pub read_only: bool,
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
            Some(s) => {
                Some(crate::clock::parse(s).map_err(|e| Failure::input(format!("--now: {e}")))?)
            }
            None => None,
        };
        Ok(Options {
            component: self.component.clone(),
            limits: self.limits(),
            now,
            sqlite: crate::sqlite::SqliteOptions {
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
    if db == ":memory:" || crate::postgres::is_postgres_url(db) {
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
