//! One component, three runtimes. The same `engram-memory.wasm` runs in the
//! Rust host, in the Node host (`examples/node`, jco) and in the Python host
//! (`examples/python`, the `wasmtime` package); the shared scenario
//! `tests/conformance/scenario.json` must give identical normalised output
//! in all three (decisions, rankings and scores, packed text, forget/sweep
//! reports, listed memories, errors). Any divergence is a bug in a host.
//!
//! This test provisions what it needs from the registries: `npm ci` in
//! `examples/node` (skipped when `node_modules` already matches
//! `package-lock.json`), a virtualenv under the target directory with
//! `examples/python/requirements.txt`, and the jco transpile of the
//! component. Node ≥ 20 and Python ≥ 3.9 must be on PATH: without them the
//! test fails and says so, it never passes silently.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use engram_host::bindings as w;
use engram_host::clock::Clock;
use engram_host::{wire, Engram, Error, Options};
use engram_tests::provision::{major_minor, run, version_of, DirLock};
use serde_json::{json, Value};

// ---------------------------------------------------------------- layout

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Scratch space for this test under the target directory.
fn work_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("engram-hosts");
    std::fs::create_dir_all(&dir).expect("create the hosts test directory");
    dir
}

struct Shared {
    /// The component every host runs: the one this test binary embeds,
    /// written out once, so a rebuild of target/engram-memory.wasm while the
    /// test runs cannot make the hosts compare different components.
    wasm: PathBuf,
    scenario_path: PathBuf,
    scenario: Value,
    /// The Rust host's normalised output.
    rust: Value,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let work = work_dir();
        let wasm = work.join("engram-memory.wasm");
        let bytes = engram_host::runtime::EMBEDDED_COMPONENT;
        if std::fs::read(&wasm).ok().as_deref() != Some(bytes) {
            let tmp = work.join(format!("engram-memory.wasm.tmp{}", std::process::id()));
            std::fs::write(&tmp, bytes).expect("write the component");
            std::fs::rename(&tmp, &wasm).expect("move the component into place");
        }
        let scenario_path = repo_root().join("tests/conformance/scenario.json");
        let text = std::fs::read_to_string(&scenario_path).expect("read the conformance scenario");
        let scenario: Value = serde_json::from_str(&text).expect("the scenario is JSON");
        let t = Instant::now();
        let rust = run_rust(&scenario, &wasm);
        eprintln!("hosts: rust ran the scenario in {:.2?}", t.elapsed());
        // Kept beside the other hosts' outputs for inspecting a divergence.
        let _ = std::fs::write(work.join("rust.json"), format!("{rust:#}\n"));
        Shared {
            wasm,
            scenario_path,
            scenario,
            rust,
        }
    })
}

// ---------------------------------------------------------------- the Rust host

/// Round every non-integer number to 6 decimals: `floor(x·1e6 + 0.5) / 1e6`,
/// the same IEEE operations the Node and Python runners use.
fn normalise(v: Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if x.fract() == 0.0 {
                Value::Number(n)
            } else {
                json!((x * 1e6 + 0.5).floor() / 1e6)
            }
        }
        Value::Array(a) => Value::Array(a.into_iter().map(normalise).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, normalise(v))).collect()),
        other => other,
    }
}

/// Replace "$ID" in `id`/`memory_id` fields with the memory id an earlier
/// step gave ID.
fn resolve_ids(v: &Value, ids: &HashMap<String, String>) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(|x| resolve_ids(x, ids)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let resolved = match x.as_str() {
                        Some(s) if (k == "id" || k == "memory_id") && s.starts_with('$') => {
                            Value::String(
                                ids.get(&s[1..]).cloned().unwrap_or_else(|| s.to_string()),
                            )
                        }
                        _ => resolve_ids(x, ids),
                    };
                    (k.clone(), resolved)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A scenario field as a wire type, or a panic naming it.
macro_rules! parse {
    ($v:expr, $what:expr) => {
        serde_json::from_value(($v).clone())
            .unwrap_or_else(|e| panic!("scenario: bad {}: {e}", $what))
    };
}

fn principal_of(v: &Value) -> w::Principal {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    w::Principal {
        tenant: s("tenant").expect("scenario principal has a tenant"),
        user: s("user"),
        project: s("project"),
    }
}

fn instant(v: &Value) -> w::Datetime {
    engram_host::clock::parse(v.as_str().expect("an RFC 3339 string")).expect("a valid instant")
}

fn error_json(e: &w::Error) -> Value {
    let (kind, message, field, index) = match e {
        w::Error::InvalidInput(f) => (
            "invalid-input",
            f.message.clone(),
            Some(f.field.clone()),
            f.index,
        ),
        w::Error::Unsupported(m) => ("unsupported", m.clone(), None, None),
        w::Error::NotFound(m) => ("not-found", m.clone(), None, None),
        w::Error::PermissionDenied(m) => ("permission-denied", m.clone(), None, None),
        w::Error::Conflict(m) => ("conflict", m.clone(), None, None),
        w::Error::Store(m) => ("store", m.clone(), None, None),
        w::Error::LimitExceeded(m) => ("limit-exceeded", m.clone(), None, None),
    };
    json!({"kind": kind, "message": message, "field": field, "index": index})
}

/// Run the scenario on the Rust host (SQLite in memory) and normalise.
fn run_rust(scenario: &Value, wasm: &Path) -> Value {
    run_rust_on(scenario, wasm, ":memory:")
}

/// The scenario through the Rust host on the store `db` names.
fn run_rust_on(scenario: &Value, wasm: &Path, db: &str) -> Value {
    let now = instant(&scenario["now"]);
    let mut engram = Engram::open(
        db,
        Options {
            component: Some(wasm.to_path_buf()),
            now: Some(now),
            ..Options::default()
        },
    )
    .expect("open the Rust host");
    let mut ids: HashMap<String, String> = HashMap::new();
    let mut steps = Vec::new();
    for step in scenario["steps"].as_array().expect("scenario steps") {
        engram.clock = Clock::Fixed(step.get("now").map(instant).unwrap_or(now));
        let p = principal_of(step.get("principal").unwrap_or(&scenario["principal"]));
        let s = resolve_ids(step, &ids);
        let op = step["op"].as_str().expect("step op");
        let result: Result<Value, Error> = match op {
            "remember" | "classify" => {
                let cands: Vec<wire::CandidateIn> = parse!(&s["candidates"], "candidates");
                let cands = cands.into_iter().map(Into::into).collect();
                let r = if op == "remember" {
                    engram.remember(p, cands)
                } else {
                    engram.classify(p, cands)
                };
                r.map(|ds| {
                    if op == "remember" {
                        for d in &ds {
                            if let (Some(c), Some(m)) = (&d.candidate_id, &d.memory_id) {
                                ids.insert(c.clone(), m.clone());
                            }
                        }
                    }
                    Value::Array(ds.iter().map(wire::decision_json).collect())
                })
            }
            "import" => {
                let recs: Vec<wire::ImportIn> = parse!(&s["records"], "records");
                engram
                    .import(p, recs.into_iter().map(Into::into).collect())
                    .map(|rs| {
                        for r in &rs {
                            ids.insert(r.external_id.clone(), r.memory_id.clone());
                        }
                        Value::Array(
                            rs.iter()
                                .map(|r| json!({"external_id": r.external_id, "memory_id": r.memory_id}))
                                .collect(),
                        )
                    })
            }
            "recall" => {
                let qs: Vec<wire::QueryIn> = parse!(&s["queries"], "queries");
                engram
                    .recall(p, qs.into_iter().map(Into::into).collect())
                    .map(|rs| Value::Array(rs.iter().map(wire::recall_json).collect()))
            }
            "pack" => {
                let req: wire::PackIn = parse!(&s["request"], "pack request");
                engram.pack(p, req.into()).map(|x| wire::packed_json(&x))
            }
            "forget" => {
                let sels: Vec<wire::ForgetIn> = parse!(&s["selectors"], "selectors");
                let sels = sels
                    .into_iter()
                    .map(|f| {
                        f.selector()
                            .unwrap_or_else(|e| panic!("scenario: bad selector: {e:?}"))
                    })
                    .collect();
                engram.forget(p, sels).map(|r| wire::forget_json(&r))
            }
            "sweep" => {
                let scope: wire::Scope = parse!(&s["scope"], "scope");
                engram.sweep(p, scope.into()).map(|r| wire::sweep_json(&r))
            }
            "list" => {
                let scope: wire::Scope = parse!(&s["scope"], "scope");
                let statuses: Vec<wire::Status> = s
                    .get("statuses")
                    .map(|v| parse!(v, "statuses"))
                    .unwrap_or_default();
                engram
                    .list(
                        p,
                        scope.into(),
                        statuses.into_iter().map(Into::into).collect(),
                    )
                    .map(|ms| Value::Array(ms.iter().map(wire::memory_json).collect()))
            }
            "history" => {
                let id = s["id"].as_str().expect("history id");
                engram
                    .history(p, id)
                    .map(|ms| Value::Array(ms.iter().map(wire::memory_json).collect()))
            }
            other => panic!("scenario: unknown op {other:?}"),
        };
        let mut entry = json!({"name": step["name"], "op": op});
        match result {
            Ok(v) => entry["ok"] = normalise(v),
            Err(Error::Policy(e)) => entry["error"] = error_json(&e),
            Err(e) => panic!("the Rust host failed on step {:?}: {e}", step["name"]),
        }
        steps.push(entry);
    }
    json!({"host": "rust", "steps": steps})
}

// ---------------------------------------------------------------- comparison

/// Every difference between two normalised outputs, as `path: a != b`
/// (numbers compared by value, so `1` equals `1.0`).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x.as_f64() != y.as_f64() {
                out.push(format!("{path}: {x} != {y}"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => differences(u, v, &p, out),
                    (u, v) => out.push(format!("{p}: {} != {}", short(u), short(v))),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(format!("{path}: {} items != {} items", x.len(), y.len()));
            }
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                differences(u, v, &format!("{path}[{i}]"), out);
            }
        }
        _ if a == b => {}
        _ => out.push(format!("{path}: {} != {}", short(Some(a)), short(Some(b)))),
    }
}

fn short(v: Option<&Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 160 {
                format!("{}…", s.chars().take(160).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// Compare a host's steps with the Rust host's, step by step, naming the step.
fn assert_same_as_rust(host: &str, output: &Value) {
    let rust = &shared().rust["steps"];
    let theirs = &output["steps"];
    let (Some(r), Some(t)) = (rust.as_array(), theirs.as_array()) else {
        panic!("{host}: no steps in its output: {}", short(Some(output)));
    };
    let mut report = Vec::new();
    if r.len() != t.len() {
        report.push(format!("{} steps in Rust, {} in {host}", r.len(), t.len()));
    }
    for (i, (a, b)) in r.iter().zip(t).enumerate() {
        let mut diffs = Vec::new();
        differences(a, b, "", &mut diffs);
        if !diffs.is_empty() {
            report.push(format!(
                "step {i} ({}): {} difference(s), Rust != {host}:\n      {}",
                a["name"].as_str().unwrap_or("?"),
                diffs.len(),
                diffs
                    .iter()
                    .take(12)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n      ")
            ));
        }
    }
    assert!(
        report.is_empty(),
        "the {host} host diverges from the Rust host on {}:\n  {}",
        shared().scenario_path.display(),
        report.join("\n  ")
    );
}

// ---------------------------------------------------------------- Node

struct NodeHost {
    dir: PathBuf,
    bindings: PathBuf,
}

/// Installed versions of the lock file's direct dependencies match it, and
/// the native SQLite module loads in this Node.
fn node_modules_current(dir: &Path) -> bool {
    let Ok(lock) = std::fs::read_to_string(dir.join("package-lock.json")) else {
        return false;
    };
    let Ok(lock) = serde_json::from_str::<Value>(&lock) else {
        return false;
    };
    let root = &lock["packages"][""];
    let direct = ["dependencies", "devDependencies"]
        .iter()
        .filter_map(|k| root[*k].as_object())
        .flat_map(|m| m.keys().cloned())
        .collect::<Vec<_>>();
    for name in &direct {
        let want = &lock["packages"][format!("node_modules/{name}")]["version"];
        let have =
            std::fs::read_to_string(dir.join("node_modules").join(name).join("package.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .map(|v| v["version"].clone());
        if have.as_ref() != Some(want) || want.is_null() {
            return false;
        }
    }
    Command::new("node")
        .current_dir(dir)
        .args([
            "--input-type=module",
            "-e",
            "const { default: D } = await import('better-sqlite3'); new D(':memory:').close(); await import('@bytecodealliance/jco');",
        ])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn node_host() -> &'static NodeHost {
    static NODE: OnceLock<NodeHost> = OnceLock::new();
    NODE.get_or_init(|| {
        let version = version_of("node").unwrap_or_else(|e| {
            panic!("the Node host test needs Node.js ≥ 20 on PATH: {e}. Install Node 20+ (with npm) and rerun.")
        });
        match major_minor(&version) {
            Some((major, _)) if major >= 20 => {}
            _ => panic!("the Node host test needs Node.js ≥ 20, found {version:?}"),
        }
        version_of("npm").unwrap_or_else(|e| panic!("the Node host test needs npm on PATH: {e}"));
        let dir = repo_root().join("examples/node");
        {
            let _lock = DirLock::acquire(dir.join(".install.lock"));
            if !node_modules_current(&dir) {
                let t = Instant::now();
                eprintln!("hosts: npm ci in {} (compiles better-sqlite3 when no prebuilt binary is reachable)…", dir.display());
                run(
                    Command::new("npm")
                        .current_dir(&dir)
                        .args(["ci", "--no-audit", "--no-fund"])
                        .env("npm_config_jobs", "max"),
                    "npm ci in examples/node",
                );
                eprintln!("hosts: npm ci took {:.1?}", t.elapsed());
            }
        }
        let bindings = work_dir().join("node-gen");
        let t = Instant::now();
        run(
            Command::new("node")
                .current_dir(&dir)
                .arg("src/transpile.js")
                .arg(&shared().wasm)
                .arg(&bindings),
            "jco transpile of the component",
        );
        eprintln!("hosts: jco transpile (or up-to-date check) took {:.1?}", t.elapsed());
        NodeHost { dir, bindings }
    })
}

fn node_conformance(store: &str) -> Value {
    let node = node_host();
    let out = work_dir().join(format!("node-{}.json", store.replace([':', '/'], "_")));
    let t = Instant::now();
    run(
        Command::new("node")
            .current_dir(&node.dir)
            .arg("conformance.js")
            .arg("--scenario")
            .arg(&shared().scenario_path)
            .arg("--bindings")
            .arg(&node.bindings)
            .args(["--store", store])
            .arg("--out")
            .arg(&out),
        &format!("the Node conformance run (--store {store})"),
    );
    eprintln!(
        "hosts: node ({store}) ran the scenario in {:.2?}",
        t.elapsed()
    );
    serde_json::from_str(&std::fs::read_to_string(&out).expect("read the Node output"))
        .expect("the Node output is JSON")
}

// ---------------------------------------------------------------- Python

struct PythonHost {
    python: PathBuf,
    /// Set as PYTHONPATH when the packages went to a target directory
    /// instead of a virtualenv.
    pythonpath: Option<PathBuf>,
    dir: PathBuf,
}

impl PythonHost {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.python);
        c.current_dir(&self.dir)
            .env("ENGRAM_CACHE_DIR", work_dir().join("cache"))
            .env("PYTHONDONTWRITEBYTECODE", "1");
        if let Some(p) = &self.pythonpath {
            c.env("PYTHONPATH", p);
        }
        c
    }
}

fn python_host() -> &'static PythonHost {
    static PYTHON: OnceLock<PythonHost> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let version = version_of("python3").unwrap_or_else(|e| {
            panic!("the Python host test needs Python ≥ 3.9 (with pip) on PATH as `python3`: {e}")
        });
        match major_minor(&version) {
            Some((3, minor)) if minor >= 9 => {}
            _ => panic!("the Python host test needs Python ≥ 3.9, found {version:?}"),
        }
        let dir = repo_root().join("examples/python");
        let requirements = dir.join("requirements.txt");
        let wanted =
            std::fs::read_to_string(&requirements).expect("read examples/python/requirements.txt");
        let work = work_dir();
        let _lock = DirLock::acquire(work.join("python.lock"));
        let venv = work.join("venv");
        let stamp = venv.join("engram-requirements.txt");
        let venv_python = venv.join("bin/python");
        let current = |python: &Path, pythonpath: Option<&Path>| {
            let mut c = Command::new(python);
            if let Some(p) = pythonpath {
                c.env("PYTHONPATH", p);
            }
            c.args(["-c", "import wasmtime.component"])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        };
        if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str())
            && current(&venv_python, None)
        {
            return PythonHost {
                python: venv_python,
                pythonpath: None,
                dir,
            };
        }
        let t = Instant::now();
        let _ = std::fs::remove_dir_all(&venv);
        let made_venv = Command::new("python3")
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
            && venv_python.exists();
        let host = if made_venv {
            eprintln!(
                "hosts: pip install -r {} into {}…",
                requirements.display(),
                venv.display()
            );
            run(
                Command::new(&venv_python)
                    .args([
                        "-m",
                        "pip",
                        "install",
                        "--disable-pip-version-check",
                        "-q",
                        "-r",
                    ])
                    .arg(&requirements),
                "pip install into the test virtualenv",
            );
            PythonHost {
                python: venv_python,
                pythonpath: None,
                dir,
            }
        } else {
            // No venv module (e.g. Debian without python3-venv): install
            // into a plain directory under target/ and point PYTHONPATH at it.
            let site = work.join("site-packages");
            eprintln!(
                "hosts: python3 -m venv failed; pip install --target {}…",
                site.display()
            );
            let _ = std::fs::remove_dir_all(&site);
            run(
                Command::new("python3")
                    .args([
                        "-m",
                        "pip",
                        "install",
                        "--disable-pip-version-check",
                        "-q",
                        "--target",
                    ])
                    .arg(&site)
                    .arg("-r")
                    .arg(&requirements),
                "pip install --target",
            );
            PythonHost {
                python: PathBuf::from("python3"),
                pythonpath: Some(site),
                dir,
            }
        };
        assert!(
            current(&host.python, host.pythonpath.as_deref()),
            "the wasmtime package does not import after installing {}",
            requirements.display()
        );
        if host.pythonpath.is_none() {
            std::fs::write(&stamp, &wanted).expect("write the requirements stamp");
        }
        eprintln!("hosts: Python environment ready in {:.1?}", t.elapsed());
        host
    })
}

fn python_conformance(store: &str) -> Value {
    let py = python_host();
    let out = work_dir().join(format!("python-{}.json", store.replace([':', '/'], "_")));
    let t = Instant::now();
    run(
        py.command()
            .arg("conformance.py")
            .arg("--scenario")
            .arg(&shared().scenario_path)
            .arg("--component")
            .arg(&shared().wasm)
            .args(["--store", store])
            .arg("--out")
            .arg(&out),
        &format!("the Python conformance run (--store {store})"),
    );
    eprintln!(
        "hosts: python ({store}) ran the scenario in {:.2?}",
        t.elapsed()
    );
    serde_json::from_str(&std::fs::read_to_string(&out).expect("read the Python output"))
        .expect("the Python output is JSON")
}

// ---------------------------------------------------------------- tests

/// A fresh database file for one host's run.
fn fresh_db(name: &str) -> PathBuf {
    let db = work_dir().join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    db
}

/// The Node host's run on a SQLite file: (output, file).
fn node_on_sqlite() -> &'static (Value, PathBuf) {
    static RUN: OnceLock<(Value, PathBuf)> = OnceLock::new();
    RUN.get_or_init(|| {
        let db = fresh_db("node.db");
        (node_conformance(&format!("sqlite:{}", db.display())), db)
    })
}

/// The Python host's run on a SQLite file: (output, file).
fn python_on_sqlite() -> &'static (Value, PathBuf) {
    static RUN: OnceLock<(Value, PathBuf)> = OnceLock::new();
    RUN.get_or_init(|| {
        let db = fresh_db("python.db");
        (python_conformance(&format!("sqlite:{}", db.display())), db)
    })
}

/// The Rust host on PostgreSQL (a throwaway server) gives the outputs it
/// gives on SQLite: the store is interchangeable.
#[test]
fn rust_host_on_postgres_matches_the_rust_host_on_sqlite() {
    let cluster = engram_tests::postgres::Cluster::start();
    let url = cluster.create_database("scenario");
    let shared = shared();
    let on_pg = run_rust_on(&shared.scenario, &shared.wasm, &url);
    assert_same_as_rust("Rust on PostgreSQL", &on_pg);
}

#[test]
fn node_host_matches_the_rust_host_with_its_memory_store() {
    assert_same_as_rust("Node (MemoryStore)", &node_conformance("memory"));
}

#[test]
fn node_host_matches_the_rust_host_with_its_sqlite_store() {
    assert_same_as_rust("Node (SqliteStore)", &node_on_sqlite().0);
}

#[test]
fn python_host_matches_the_rust_host() {
    assert_same_as_rust("Python (SqliteStore)", &python_on_sqlite().0);
}

/// The Node and Python SQLite stores use the Rust host's schema and row
/// format: the Rust host opens the files they wrote and lists the same
/// memories they listed at the end of the scenario.
#[test]
fn sqlite_files_written_by_node_and_python_open_in_the_rust_host() {
    const STEP: &str = "list: everything visible tenant-wide";
    let scenario = &shared().scenario;
    let scope: wire::Scope = parse!(
        &scenario["steps"]
            .as_array()
            .and_then(|s| s.iter().find(|x| x["name"] == STEP))
            .expect("the scenario lists the tenant")["scope"],
        "scope"
    );
    for (host, (output, db)) in [("Node", node_on_sqlite()), ("Python", python_on_sqlite())] {
        let listed = output["steps"]
            .as_array()
            .and_then(|s| s.iter().find(|x| x["name"] == STEP))
            .unwrap_or_else(|| panic!("{host} output has no {STEP:?} step"));
        let mut engram = Engram::open(
            &db.display().to_string(),
            Options {
                component: Some(shared().wasm.clone()),
                now: Some(instant(&scenario["now"])),
                ..Options::default()
            },
        )
        .unwrap_or_else(|e| panic!("the Rust host cannot open the database {host} wrote: {e}"));
        let memories = engram
            .list(
                principal_of(&scenario["principal"]),
                scope.clone().into(),
                Vec::new(),
            )
            .unwrap_or_else(|e| panic!("the Rust host cannot list the database {host} wrote: {e}"));
        let ours = normalise(Value::Array(
            memories.iter().map(wire::memory_json).collect(),
        ));
        let mut diffs = Vec::new();
        differences(&ours, &listed["ok"], "", &mut diffs);
        assert!(
            diffs.is_empty(),
            "the Rust host reads {} (written by {host}) differently from {host}:\n  {}",
            db.display(),
            diffs
                .iter()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n  ")
        );
    }
}

#[test]
fn node_host_unit_tests_pass() {
    let node = node_host();
    let t = Instant::now();
    run(
        Command::new("node")
            .current_dir(&node.dir)
            .args(["--test", "test/"])
            .env("ENGRAM_BINDINGS", &node.bindings)
            .env("ENGRAM_COMPONENT", &shared().wasm),
        "the Node host's unit tests (node --test)",
    );
    eprintln!("hosts: node --test took {:.1?}", t.elapsed());
}

#[test]
fn python_host_unit_tests_pass() {
    let py = python_host();
    let t = Instant::now();
    run(
        py.command()
            .args(["-m", "unittest", "discover", "-s", "tests", "-t", "."])
            .env("ENGRAM_COMPONENT", &shared().wasm),
        "the Python host's unit tests (python -m unittest)",
    );
    eprintln!("hosts: python -m unittest took {:.1?}", t.elapsed());
}

#[test]
fn the_scenario_exercises_every_export() {
    let ops: Vec<&str> = shared().scenario["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["op"].as_str())
        .collect();
    for op in [
        "remember", "classify", "import", "recall", "pack", "forget", "sweep", "list", "history",
    ] {
        assert!(
            ops.contains(&op),
            "the conformance scenario has no {op} step"
        );
    }
    // Most steps should produce output rather than errors, or the
    // comparison proves little.
    let ok = shared().rust["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s.get("ok").is_some())
        .count();
    assert!(
        ok * 2 > ops.len(),
        "only {ok} of {} scenario steps succeed on the Rust host",
        ops.len()
    );
}
