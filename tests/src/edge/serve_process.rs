//! `engram serve` as a separate process for side-by-side runs with the
//! edge component: the same keys, a SQLite database, and a clock fixed per
//! run (`--now`), restarted on the same database when the clock moves.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::scenario::Target;

pub struct ServeProcess {
    exe: String,
    pub db: String,
    keys: PathBuf,
    extra: Vec<String>,
    child: Option<Child>,
    base: String,
}

impl ServeProcess {
    /// A server for `exe` (`CARGO_BIN_EXE_engram-cli`) on `db` with the key
    /// file `keys`; started by the first `set_now`.
    pub fn new(exe: &str, db: &str, keys: &Path, extra: &[&str]) -> Self {
        ServeProcess {
            exe: exe.to_string(),
            db: db.to_string(),
            keys: keys.to_path_buf(),
            extra: extra.iter().map(|s| s.to_string()).collect(),
            child: None,
            base: String::new(),
        }
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// (Re)start at `now` (empty: the system clock).
    pub fn start(&mut self, now: &str) {
        self.stop();
        let mut cmd = crate::engram_command(&self.exe);
        cmd.args([
            "serve",
            "--db",
            &self.db,
            "--listen",
            "127.0.0.1:0",
            "--keys",
        ])
        .arg(&self.keys)
        .args(&self.extra);
        if !now.is_empty() {
            cmd.args(["--now", now]);
        }
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start engram serve");
        let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let deadline = Instant::now() + Duration::from_secs(120);
        self.base = loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("engram serve exited before listening"))
                .expect("read stderr");
            if let Some(rest) = line.split("listening on ").nth(1) {
                break rest.split_whitespace().next().unwrap_or("").to_string();
            }
            assert!(
                Instant::now() < deadline,
                "engram serve printed no listening line"
            );
        };
        std::thread::spawn(move || for _ in lines {});
        self.child = Some(child);
    }
}

impl Target for ServeProcess {
    fn base(&self) -> String {
        self.base.clone()
    }
    fn set_now(&mut self, now: &str) {
        self.start(now);
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        self.stop();
    }
}
