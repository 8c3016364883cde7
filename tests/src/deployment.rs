//! One Engram deployment under test — a SQLite file or a database on a
//! throwaway PostgreSQL server, with its fingerprint key file — and the
//! three ways a principal reaches it as a separate process: the CLI,
//! `engram serve` (HTTP) and `engram mcp` (JSON-RPC on stdio). Used by the
//! hostile-tenant suite (`tests/hostile_tenant.rs`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::postgres::Cluster;

/// Where the deployment keeps its memories.
pub enum Db {
    Sqlite(String),
    Postgres {
        /// Kept running while the deployment lives.
        cluster: Cluster,
        name: String,
        url: String,
    },
}

pub struct Deployment {
    pub db: Db,
    /// The fingerprint key file every process of the deployment is given.
    pub key: String,
    /// The `engram` executable (`CARGO_BIN_EXE_engram-cli` of the test).
    pub exe: String,
    /// `--now` of every call.
    pub now: String,
}

impl Deployment {
    pub fn sqlite(name: &str, exe: &str, now: &str) -> Self {
        let path = crate::temp_db(name);
        let key = format!("{path}.key");
        let _ = std::fs::remove_file(&key);
        Deployment {
            db: Db::Sqlite(path),
            key,
            exe: exe.into(),
            now: now.into(),
        }
    }

    pub fn postgres(name: &str, exe: &str, now: &str) -> Self {
        let cluster = Cluster::start();
        let url = cluster.create_database(name);
        let key = format!("{}.key", crate::temp_db(&format!("{name}-pg")));
        let _ = std::fs::remove_file(&key);
        Deployment {
            db: Db::Postgres {
                cluster,
                name: name.into(),
                url,
            },
            key,
            exe: exe.into(),
            now: now.into(),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self.db {
            Db::Sqlite(_) => "sqlite",
            Db::Postgres { .. } => "postgres",
        }
    }

    pub fn url(&self) -> &str {
        match &self.db {
            Db::Sqlite(p) => p,
            Db::Postgres { url, .. } => url,
        }
    }

    /// `--db`, `--now` and `--fingerprint-key`, which every command takes.
    pub fn common_args(&self) -> Vec<String> {
        [
            "--db",
            self.url(),
            "--now",
            &self.now,
            "--fingerprint-key",
            &self.key,
        ]
        .map(String::from)
        .to_vec()
    }

    /// `engram ARGS` as a process with `stdin`: stdout, or stderr on failure.
    pub fn cli(&self, args: &[&str], stdin: &str) -> Result<String, String> {
        let mut child = crate::engram_command(&self.exe)
            .args(args)
            .args(self.common_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start engram");
        let mut input = child.stdin.take().expect("stdin");
        let text = stdin.to_string();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(text.as_bytes());
        });
        let out = child.wait_with_output().expect("engram ends");
        let _ = writer.join();
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }

    /// Every stored row of `tenant` (and `user`, if given), one sorted line
    /// each, from every table that holds a principal's data: equal dumps
    /// mean nothing of theirs changed.
    pub fn dump(&self, tenant: &str, user: Option<&str>) -> String {
        let quote = |s: &str| s.replace('\'', "''");
        match &self.db {
            Db::Sqlite(path) => {
                let mut cond = format!("tenant = '{}'", quote(tenant));
                if let Some(u) = user {
                    cond.push_str(&format!(" AND user = '{}'", quote(u)));
                }
                let derived =
                    format!("rid IN (SELECT rid FROM memories WHERE {cond}) AND event IS NOT NULL");
                format!(
                    "{}\n{}",
                    crate::dump_where(path, &cond),
                    crate::dump_where(path, &derived)
                )
            }
            Db::Postgres { cluster, name, .. } => {
                let mut cond = format!("t.tenant = '{}'", quote(tenant));
                if let Some(u) = user {
                    cond.push_str(&format!(" AND t.user_id = '{}'", quote(u)));
                }
                let mut out = Vec::new();
                for table in ["memories", "postings", "events", "tombstones"] {
                    out.push(cluster.psql(
                        name,
                        &format!(
                            "SELECT '{table}: ' || t::text FROM {table} t WHERE {cond} ORDER BY 1"
                        ),
                    ));
                }
                out.push(cluster.psql(
                    name,
                    &format!(
                        "SELECT 'derived_from: ' || d::text FROM derived_from d WHERE d.rid IN (SELECT t.rid FROM memories t WHERE {cond}) ORDER BY 1"
                    ),
                ));
                out.join("\n")
            }
        }
    }
}

/// A running `engram serve` of a deployment, stopped when dropped.
pub struct Http {
    child: Child,
    pub base: String,
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Http {
    /// Start `engram serve` on a free loopback port with the key file `keys`.
    pub fn start(d: &Deployment, keys: &str) -> Http {
        let mut child = crate::engram_command(&d.exe)
            .args(["serve", "--listen", "127.0.0.1:0", "--keys", keys])
            .args(d.common_args())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start engram serve");
        let base = listening(&mut child);
        Http { child, base }
    }

    /// One request: its status and body.
    pub fn call(&self, method: &str, path: &str, key: &str, body: Option<&Value>) -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let url = format!("{}{path}", self.base);
        let auth = format!("Bearer {key}");
        let mut resp = if method == "GET" {
            agent
                .get(&url)
                .header("Authorization", &auth)
                .call()
                .expect("GET")
        } else {
            agent
                .post(&url)
                .header("Authorization", &auth)
                .header("Content-Type", "application/json")
                .send(&body.map(Value::to_string).unwrap_or_default())
                .expect("POST")
        };
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .expect("read body");
        (status, text)
    }
}

impl Http {
    /// A POST of `body` exactly as given, with its content type: its
    /// status and body.
    pub fn post_raw(&self, path: &str, key: &str, content_type: &str, body: &str) -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let mut resp = agent
            .post(&format!("{}{path}", self.base))
            .header("Authorization", &format!("Bearer {key}"))
            .header("Content-Type", content_type)
            .send(body)
            .expect("POST");
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string().expect("read body");
        (status, text)
    }
}

/// The address a spawned `engram serve` (stderr piped) printed it listens
/// on; its stderr is drained from then on, so it never blocks on the pipe.
pub fn listening(child: &mut Child) -> String {
    let stderr = child.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    let base = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("engram serve exited before listening"))
            .expect("read stderr");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap_or("").to_string();
        }
        assert!(Instant::now() < deadline, "no listening line");
    };
    std::thread::spawn(move || for _ in lines {});
    base
}

/// `engram keys add` for a principal: the new key.
pub fn add_key(d: &Deployment, keys: &str, tenant: &str, user: Option<&str>) -> String {
    let mut args = vec!["keys", "add", "--keys", keys, "--tenant", tenant];
    if let Some(u) = user {
        args.extend(["--user", u]);
    }
    let out = crate::engram_command(&d.exe)
        .args(&args)
        .output()
        .expect("run engram keys add");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A running `engram mcp` for one principal, spoken to over JSON-RPC.
pub struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mcp {
    /// Start `engram mcp --tenant T [--user U]` and initialise the session.
    pub fn start(d: &Deployment, tenant: &str, user: Option<&str>) -> Mcp {
        let mut cmd: Command = crate::engram_command(&d.exe);
        cmd.args(["mcp", "--tenant", tenant]);
        if let Some(u) = user {
            cmd.args(["--user", u]);
        }
        let mut child = cmd
            .args(d.common_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start engram mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut m = Mcp {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        m.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "hostile-tenant", "version": "1"}}),
        );
        m.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        m
    }

    fn send(&mut self, v: &Value) {
        let mut line = v.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .expect("write to engram mcp");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read engram mcp");
            assert!(n > 0, "engram mcp closed its output");
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// The tools the server lists (`tools/list`): each with its name,
    /// description and input schema.
    pub fn list_tools(&mut self) -> Vec<Value> {
        let v = self.request("tools/list", json!({}));
        v["result"]["tools"].as_array().cloned().unwrap_or_default()
    }

    /// Call a tool: whether it reported an error, and everything it answered.
    pub fn tool(&mut self, name: &str, arguments: Value) -> (bool, String) {
        let v = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let is_error = v["result"]["isError"] == json!(true) || v.get("error").is_some();
        let answer = v
            .get("result")
            .or(v.get("error"))
            .cloned()
            .unwrap_or(Value::Null);
        (is_error, answer.to_string())
    }
}
