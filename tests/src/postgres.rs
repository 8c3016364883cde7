//! A throwaway PostgreSQL server for the tests: Debian's `postgresql`
//! package (installed if missing), a cluster initialised in a temporary
//! directory, run as an unprivileged user (`postgres` when the tests run
//! as root: initdb refuses root), listening only on a Unix socket in that
//! directory, and stopped and removed on drop. Panics, saying why, when the
//! server cannot start: the PostgreSQL tests fail, never skip.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::provision;

static CLUSTERS: AtomicUsize = AtomicUsize::new(0);
const PORT: u16 = 5432;

pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
}

/// The newest `/usr/lib/postgresql/*/bin` that has `initdb`.
fn server_bin() -> PathBuf {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let v: u32 = e.file_name().to_str()?.parse().ok()?;
                    let bin = e.path().join("bin");
                    bin.join("initdb").exists().then_some((v, bin))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    match found.pop() {
        Some((_, bin)) => bin,
        None => panic!(
            "the postgresql package is installed but no /usr/lib/postgresql/*/bin/initdb exists"
        ),
    }
}

impl Cluster {
    /// Install (if needed), initialise and start a private server.
    pub fn start() -> Cluster {
        provision::debian(&["postgresql"]);
        let bin = server_bin();
        let as_postgres = provision::is_root();
        let n = CLUSTERS.fetch_add(1, Ordering::SeqCst);
        // The server runs as `postgres` when we are root: its directory must
        // be reachable by that user, which a root-only $TMPDIR is not.
        let base = if as_postgres {
            PathBuf::from("/tmp")
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("engram-pg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the cluster directory");
        let cluster = Cluster {
            dir,
            bin,
            as_postgres,
        };
        if as_postgres {
            provision::run(
                Command::new("chown")
                    .args(["-R", "postgres:postgres"])
                    .arg(&cluster.dir),
                "chown the cluster directory to postgres",
            );
        }
        let data = cluster.dir.join("data");
        cluster.server_tool(
            "initdb",
            &[
                "-D",
                path(&data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
        );
        let options = format!(
            "-k {} -c listen_addresses='' -p {PORT} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
            path(&cluster.dir)
        );
        let log = cluster.dir.join("server.log");
        cluster.server_tool(
            "pg_ctl",
            &[
                "-D",
                path(&data),
                "-l",
                path(&log),
                "-w",
                "-t",
                "60",
                "-o",
                &options,
                "start",
            ],
        );
        cluster
    }

    /// Run a server program, as `postgres` when we are root.
    fn server_tool(&self, program: &str, args: &[&str]) {
        let exe = self.bin.join(program);
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        cmd.args(args).current_dir(&self.dir);
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
        if !out.status.success() {
            let log = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
            panic!(
                "PostgreSQL {program} failed ({}): {}{}\nserver log:\n{log}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// The socket directory.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of database `db` on this server.
    pub fn url(&self, db: &str) -> String {
        let socket = path(&self.dir).replace('/', "%2F");
        format!("postgres://postgres@{socket}:{PORT}/{db}")
    }

    /// Create database `name` and return its URL.
    pub fn create_database(&self, name: &str) -> String {
        self.psql("postgres", &format!("CREATE DATABASE \"{name}\""));
        self.url(name)
    }

    /// Run SQL in database `db` with psql; its unaligned, tuples-only output.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        self.try_psql(db, sql)
            .unwrap_or_else(|e| panic!("psql failed on {sql}: {e}"))
    }

    /// `psql`, with the server's error message when the SQL fails.
    pub fn try_psql(&self, db: &str, sql: &str) -> Result<String, String> {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-U",
                "postgres",
            ])
            .arg("-h")
            .arg(&self.dir)
            .args(["-p", &PORT.to_string(), "-d", db, "-c", sql])
            .output()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }

    /// The server's data directory (tests look at the table files).
    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let exe = self.bin.join("pg_ctl");
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let _ = cmd
            .args(["-D", path(&data), "-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}
