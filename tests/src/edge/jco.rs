//! The edge component in Node through jco: `jco transpile` with
//! `wasi:keyvalue/*` mapped to a small binding (`tests/edge-jco/keyvalue.js`),
//! served by preview2-shim's `HTTPServer` (`tests/edge-jco/serve.mjs`) on a
//! loopback port; the shape a Workers or Deno deployment takes. Provisioned
//! by the test itself: jco and preview2-shim from npm into the build's
//! scratch directory.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

use super::scenario::Target;
use crate::provision::{cache_dir, major_minor, run, version_of, DirLock};

/// The versions the runner installs (the npm package's, packages/npm).
pub const JCO: &str = "1.35.0";
pub const PREVIEW2_SHIM: &str = "0.26.1";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A directory with jco and preview2-shim installed and the runner's two
/// scripts beside them.
pub fn provision() -> PathBuf {
    let version = version_of("node")
        .unwrap_or_else(|e| panic!("the jco runner needs Node.js ≥ 20 on PATH: {e}"));
    match major_minor(&version) {
        Some((major, _)) if major >= 20 => {}
        _ => panic!("the jco runner needs Node.js ≥ 20, found {version:?}"),
    }
    let dir = cache_dir().join("edge-jco");
    std::fs::create_dir_all(&dir).expect("create the jco directory");
    let _lock = DirLock::acquire(cache_dir().join("edge-jco.lock"));
    let stamp = dir.join("engram-installed.txt");
    let wanted = format!("jco {JCO}, preview2-shim {PREVIEW2_SHIM}\n");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let t = Instant::now();
        eprintln!("provision: npm install @bytecodealliance/jco@{JCO} @bytecodealliance/preview2-shim@{PREVIEW2_SHIM}…");
        std::fs::write(
            dir.join("package.json"),
            "{\"name\":\"engram-edge-jco\",\"private\":true,\"type\":\"module\"}\n",
        )
        .expect("write package.json");
        run(
            Command::new("npm").current_dir(&dir).args([
                "install",
                "--no-audit",
                "--no-fund",
                "--save-exact",
                &format!("@bytecodealliance/jco@{JCO}"),
                &format!("@bytecodealliance/preview2-shim@{PREVIEW2_SHIM}"),
            ]),
            "npm install jco and preview2-shim",
        );
        std::fs::write(&stamp, wanted).expect("write the install stamp");
        eprintln!("provision: jco installed in {:.1?}", t.elapsed());
    }
    for f in ["keyvalue.js", "serve.mjs"] {
        std::fs::copy(repo_root().join("tests/edge-jco").join(f), dir.join(f))
            .unwrap_or_else(|e| panic!("copy {f}: {e}"));
    }
    dir
}

/// Transpile `component` into `dir/<name>/` with the keyvalue mapping;
/// returns the module to import.
pub fn transpile(dir: &Path, component: &[u8], name: &str) -> PathBuf {
    let wasm = dir.join(format!("{name}.wasm"));
    std::fs::write(&wasm, component).expect("write the component");
    let out = dir.join(name);
    let _ = std::fs::remove_dir_all(&out);
    run(
        Command::new(dir.join("node_modules/.bin/jco"))
            .current_dir(dir)
            .arg("transpile")
            .arg(&wasm)
            .arg("-o")
            .arg(&out)
            .args(["--map", "wasi:keyvalue/*=../keyvalue.js#*", "--name", name]),
        "jco transpile",
    );
    out.join(format!("{name}.js"))
}

/// A running Node server of the transpiled component.
pub struct JcoServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    pub port: u16,
    /// Milliseconds Node took to import (instantiate) the component.
    pub load_ms: f64,
    env: Value,
}

impl JcoServer {
    /// Serve `module` with `env`, its store logged to `kv_log`.
    pub fn start(dir: &Path, module: &Path, env: Value, kv_log: &Path) -> JcoServer {
        let mut child = Command::new("node")
            .current_dir(dir)
            .arg("serve.mjs")
            .arg(module)
            .arg(env.to_string())
            .env("ENGRAM_KV_LOG", kv_log)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start node serve.mjs");
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read the port");
        let v: Value = serde_json::from_str(line.trim())
            .unwrap_or_else(|e| panic!("serve.mjs printed {line:?}: {e}"));
        JcoServer {
            child,
            stdin,
            stdout,
            port: v["port"].as_u64().expect("a port") as u16,
            load_ms: v["load_ms"].as_f64().unwrap_or(0.0),
            env,
        }
    }

    /// Replace the component's environment for the next requests.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env[key] = json!(value);
        writeln!(self.stdin, "{}", json!({ "env": self.env })).expect("write to serve.mjs");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read the answer");
        assert!(line.contains("\"ok\""), "serve.mjs answered {line:?}");
    }
}

impl Target for JcoServer {
    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    fn set_now(&mut self, now: &str) {
        self.set_env("ENGRAM_NOW", now);
    }
}

impl Drop for JcoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
