//! One component, every runtime, installed as a user installs it. The same
//! `engram-memory.wasm` runs in the Rust host, in the npm package
//! (`packages/npm`: `npm pack`, then `npm install` of the tarball into a
//! project of its own), in the Python wheel (`packages/python`: built, then
//! installed into a fresh virtualenv) and in a browser page
//! (`packages/browser`, built from the npm package's sources, in headless
//! Chromium); the shared scenario `tests/conformance/scenario.json` must
//! give identical normalised output everywhere (decisions, rankings and
//! scores, packed text, forget/sweep reports, listed memories, errors). Any
//! divergence is a bug in a host. The packages' README examples run from
//! the installed packages and must print what their READMEs say.
//!
//! This test provisions what it needs from the registries: jco and esbuild
//! (`npm ci --ignore-scripts` in packages/npm), the tarball's dependencies
//! (better-sqlite3, compiled on the first install), setuptools and wasmtime
//! from PyPI, Debian's Chromium and playwright-core. Node ≥ 20 and Python
//! ≥ 3.9 must be on PATH: without them the test fails and says so, it never
//! passes silently.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use engram_host::bindings as w;
use engram_host::clock::Clock;
use engram_host::{Engram, Error, Options};
use engram_tests::provision::{self, major_minor, run, version_of, DirLock};
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
    // A PostgreSQL store needs a fingerprint key file named.
    let key = engram_host::postgres::is_postgres_url(db)
        .then(|| work_dir().join(format!("{}.key", content_key(db.as_bytes()))));
    if let Some(k) = &key {
        let _ = std::fs::remove_file(k);
    }
    let mut engram = Engram::open(
        db,
        Options {
            component: Some(wasm.to_path_buf()),
            now: Some(now),
            fingerprint_key: key,
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
        // Each step is the contract's operation on the step's JSON, as
        // every host runs it: the output lines as values.
        let (operation, input) = match op {
            "remember" | "classify" => (op, s["candidates"].clone()),
            "import" => ("import", s["records"].clone()),
            "recall" => ("recall", s["queries"].clone()),
            "pack" => ("pack", s["request"].clone()),
            "forget" => ("forget", s["selectors"].clone()),
            "sweep" => ("sweep", json!({"scope": s["scope"]})),
            "list" => (
                "list",
                json!({"scope": s["scope"], "statuses": s.get("statuses").cloned().unwrap_or(json!([]))}),
            ),
            "review" => ("review", s["items"].clone()),
            "record-operations" => ("record-operations", s["records"].clone()),
            "get-operations" => ("get-operations", s["lookups"].clone()),
            "history" => ("history", json!({"id": s["id"]})),
            other => panic!("scenario: unknown op {other:?}"),
        };
        let result: Result<Value, Error> =
            engram
                .call_json(p, operation, &input.to_string())
                .map(|text| {
                    let lines: Vec<Value> = text
                        .lines()
                        .map(|l| serde_json::from_str(l).expect("the component prints JSON lines"))
                        .collect();
                    match operation {
                        "pack" | "forget" | "sweep" => {
                            lines.into_iter().next().unwrap_or(Value::Null)
                        }
                        _ => Value::Array(lines),
                    }
                });
        if let Ok(Value::Array(items)) = &result {
            for item in items {
                match op {
                    "remember" => {
                        if let (Some(c), Some(m)) =
                            (item["id"].as_str(), item["memory_id"].as_str())
                        {
                            ids.insert(c.to_string(), m.to_string());
                        }
                    }
                    "import" => {
                        if let (Some(x), Some(m)) =
                            (item["external_id"].as_str(), item["memory_id"].as_str())
                        {
                            ids.insert(x.to_string(), m.to_string());
                        }
                    }
                    _ => {}
                }
            }
        }
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

// ---------------------------------------------------------------- the packages

/// The shipped example of a package README — the code block after
/// `<!-- example -->` — and the output the README says it prints (the
/// `text` block after it).
fn readme_example(readme: &Path, lang: &str) -> (String, String) {
    let text = std::fs::read_to_string(readme)
        .unwrap_or_else(|e| panic!("read {}: {e}", readme.display()));
    let after = text
        .split_once("<!-- example -->")
        .unwrap_or_else(|| panic!("{} has no <!-- example --> marker", readme.display()))
        .1;
    let block = |s: &str, fence: &str| -> (String, usize) {
        let open = format!("```{fence}\n");
        let start = s
            .find(&open)
            .unwrap_or_else(|| panic!("{}: no ```{fence} block", readme.display()))
            + open.len();
        let len = s[start..]
            .find("\n```")
            .unwrap_or_else(|| panic!("{}: unterminated ```{fence} block", readme.display()));
        (s[start..start + len + 1].to_string(), start + len + 4)
    };
    let (code, end) = block(after, lang);
    let (output, _) = block(&after[end..], "text");
    (code, output)
}

/// `program` run in a network namespace of its own (`unshare -n`: no
/// interface but a downed loopback), so it cannot reach anything: what runs
/// there runs offline.
fn offline(program: &Path) -> Command {
    let mut c = Command::new("unshare");
    c.args(["-n", "--"]).arg(program);
    c
}

/// Write a README's example to `file`, run it with `cmd`, and require
/// exactly the output the README shows.
fn assert_readme_example_runs(
    what: &str,
    readme: &Path,
    lang: &str,
    file: &Path,
    cmd: &mut Command,
) {
    let (code, expected) = readme_example(readme, lang);
    std::fs::write(file, code).unwrap_or_else(|e| panic!("write {}: {e}", file.display()));
    let out = run(cmd, &format!("the {what} README example"));
    let got = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        got,
        expected,
        "the {what} README example ({}) prints something else than the README says",
        readme.display()
    );
}

fn check_node() {
    let version = version_of("node").unwrap_or_else(|e| {
        panic!("the package tests need Node.js ≥ 20 on PATH: {e}. Install Node 20+ (with npm) and rerun.")
    });
    match major_minor(&version) {
        Some((major, _)) if major >= 20 => {}
        _ => panic!("the package tests need Node.js ≥ 20, found {version:?}"),
    }
    version_of("npm").unwrap_or_else(|e| panic!("the package tests need npm on PATH: {e}"));
}

/// packages/npm with its build tools installed (`npm ci --ignore-scripts`:
/// jco and esbuild; better-sqlite3 is compiled where the tarball is
/// installed, not here) and `npm run build` done for the component under
/// test: gen/ and schema/ are ready to pack or bundle.
fn npm_package_built() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        check_node();
        let dir = repo_root().join("packages/npm");
        let _lock = DirLock::acquire(dir.join(".install.lock"));
        let tools_load = || {
            Command::new("node")
                .current_dir(&dir)
                .args([
                    "--input-type=module",
                    "-e",
                    "await import('@bytecodealliance/jco'); await import('esbuild');",
                ])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        };
        if !dev_dependencies_current(&dir) || !tools_load() {
            let t = Instant::now();
            eprintln!("hosts: npm ci --ignore-scripts in {}…", dir.display());
            run(
                Command::new("npm").current_dir(&dir).args([
                    "ci",
                    "--ignore-scripts",
                    "--no-audit",
                    "--no-fund",
                ]),
                "npm ci in packages/npm",
            );
            eprintln!("hosts: npm ci took {:.1?}", t.elapsed());
        }
        run(
            Command::new("node")
                .current_dir(&dir)
                .arg("scripts/build.js")
                .arg(&shared().wasm),
            "npm run build in packages/npm",
        );
        dir
    })
}

/// Installed versions of the lock file's direct dependencies match it.
fn dev_dependencies_current(dir: &Path) -> bool {
    let Some(lock) = std::fs::read_to_string(dir.join("package-lock.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return false;
    };
    // Runtime dependencies too: a package.json that gained one (as the
    // fingerprint's @noble/hashes) must reinstall an older node_modules.
    let root = &lock["packages"][""];
    let direct = ["dependencies", "devDependencies"]
        .iter()
        .filter_map(|k| root[*k].as_object())
        .flat_map(|m| m.keys())
        .collect::<Vec<_>>();
    if direct.is_empty() {
        return false;
    }
    direct.into_iter().all(|name| {
        let want = &lock["packages"][format!("node_modules/{name}")]["version"];
        let have =
            std::fs::read_to_string(dir.join("node_modules").join(name).join("package.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .map(|v| v["version"].clone());
        !want.is_null() && have.as_ref() == Some(want)
    })
}

/// A short content key for file names (changes when the bytes change).
fn content_key(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// Start provisioning every package host at once, each on a thread of its
/// own: the npm install (which compiles better-sqlite3 on a fresh machine),
/// the wheel and its virtualenv, and the browser build and run then overlap
/// instead of queueing behind the test threads. A thread whose
/// provisioning fails leaves its `OnceLock` empty; the test that needs it
/// runs the provisioning again and reports the failure itself.
fn start_provisioning() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(|| {
            node_host();
        });
        std::thread::spawn(|| {
            python_host();
        });
        std::thread::spawn(|| {
            browser_run();
        });
    });
}

struct NodeHost {
    /// The project the tarball is installed into.
    project: PathBuf,
    /// `project/node_modules/engram-memory`.
    package: PathBuf,
}

/// `npm pack` of packages/npm, installed with `npm install TARBALL` into a
/// project of its own. The project lives in the provisioning cache so that
/// better-sqlite3, compiled on the first install (2–4 minutes: no prebuilt
/// binary is reachable), is reused; the tarball itself is reinstalled
/// whenever its contents change.
fn node_host() -> &'static NodeHost {
    static NODE: OnceLock<NodeHost> = OnceLock::new();
    start_provisioning();
    NODE.get_or_init(|| {
        let dir = npm_package_built();
        let packs = work_dir().join("npm-pack");
        let _ = std::fs::remove_dir_all(&packs);
        std::fs::create_dir_all(&packs).expect("create the npm pack directory");
        let out = run(
            Command::new("npm")
                .current_dir(dir)
                .args(["pack", "--silent", "--pack-destination"])
                .arg(&packs),
            "npm pack in packages/npm",
        );
        let name = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap_or_default()
            .trim()
            .to_string();
        let tarball = packs.join(&name);
        let bytes = std::fs::read(&tarball)
            .unwrap_or_else(|e| panic!("npm pack wrote no {}: {e}", tarball.display()));
        eprintln!("hosts: npm pack → {name}, {} bytes", bytes.len());
        let _ = std::fs::write(
            work_dir().join("npm-tarball-bytes"),
            bytes.len().to_string(),
        );

        let project = provision::cache_dir().join("npm-install-project");
        std::fs::create_dir_all(&project).expect("create the npm install project");
        let _lock = DirLock::acquire(provision::cache_dir().join("npm-install-project.lock"));
        // The name carries the contents' key, so npm sees a new dependency
        // whenever the tarball changed.
        let local = format!("engram-memory-{}.tgz", content_key(&bytes));
        for e in std::fs::read_dir(&project)
            .expect("list the npm project")
            .flatten()
        {
            let n = e.file_name().to_string_lossy().to_string();
            if n.ends_with(".tgz") && n != local {
                let _ = std::fs::remove_file(e.path());
            }
        }
        std::fs::write(project.join(&local), &bytes).expect("copy the tarball");
        if !project.join("package.json").exists() {
            std::fs::write(
                project.join("package.json"),
                "{\"name\":\"engram-install-test\",\"private\":true,\"type\":\"module\"}\n",
            )
            .expect("write package.json");
        }
        let t = Instant::now();
        eprintln!(
            "hosts: npm install ./{local} in {} (compiles better-sqlite3 the first time)…",
            project.display()
        );
        run(
            Command::new("npm")
                .current_dir(&project)
                .args(["install", "--no-audit", "--no-fund"])
                .arg(format!("./{local}"))
                .env("npm_config_jobs", "max"),
            "npm install of the engram-memory tarball",
        );
        eprintln!("hosts: npm install took {:.1?}", t.elapsed());
        let package = project.join("node_modules/engram-memory");
        NodeHost { project, package }
    })
}

fn node_conformance(store: &str) -> Value {
    let node = node_host();
    let out = work_dir().join(format!("node-{}.json", store.replace([':', '/'], "_")));
    let t = Instant::now();
    run(
        Command::new("node")
            .current_dir(&node.project)
            .arg(node.package.join("bin/engram-conformance.js"))
            .arg("--scenario")
            .arg(&shared().scenario_path)
            .args(["--store", store])
            .arg("--out")
            .arg(&out),
        &format!("the Node conformance run on the installed tarball (--store {store})"),
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
    /// The interpreter of a fresh virtualenv with the wheel installed.
    python: PathBuf,
}

impl PythonHost {
    fn command(&self, cwd: &Path) -> Command {
        let mut c = Command::new(&self.python);
        c.current_dir(cwd)
            .env("ENGRAM_CACHE_DIR", work_dir().join("cache"))
            .env("PYTHONDONTWRITEBYTECODE", "1");
        c
    }
}

/// The wheel built by packages/python/build_wheel.py, installed into a
/// fresh virtualenv (recreated whenever the wheel changes).
fn python_host() -> &'static PythonHost {
    static PYTHON: OnceLock<PythonHost> = OnceLock::new();
    start_provisioning();
    PYTHON.get_or_init(|| {
        let dist = work_dir().join("wheel");
        let _ = std::fs::remove_dir_all(&dist);
        let t = Instant::now();
        let _lock = python_source_lock();
        let out = run(
            Command::new("python3")
                .arg(repo_root().join("packages/python/build_wheel.py"))
                .arg("--component")
                .arg(&shared().wasm)
                .arg("--out")
                .arg(&dist),
            "building the wheel (packages/python/build_wheel.py)",
        );
        let wheel = PathBuf::from(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .last()
                .unwrap_or_default()
                .trim(),
        );
        let bytes = std::fs::read(&wheel)
            .unwrap_or_else(|e| panic!("build_wheel.py wrote no {}: {e}", wheel.display()));
        eprintln!(
            "hosts: built {} ({} bytes) in {:.1?}",
            wheel.display(),
            bytes.len(),
            t.elapsed()
        );
        let _ = std::fs::write(work_dir().join("wheel-bytes"), bytes.len().to_string());
        let requirements = format!(
            "# wheel contents {}\n{}\n",
            content_key(&bytes),
            wheel.display()
        );
        let python = provision::python_venv("engram-wheel-venv", &requirements);
        PythonHost { python }
    })
}

/// Builds in packages/python write its src/engram_memory/ and build/: one
/// at a time.
fn python_source_lock() -> DirLock {
    DirLock::acquire(provision::cache_dir().join("python-source-tree.lock"))
}

fn python_conformance(store: &str) -> Value {
    let py = python_host();
    let out = work_dir().join(format!("python-{}.json", store.replace([':', '/'], "_")));
    let t = Instant::now();
    run(
        py.command(&work_dir())
            .args(["-m", "engram_memory.conformance", "--scenario"])
            .arg(&shared().scenario_path)
            .args(["--store", store])
            .arg("--out")
            .arg(&out),
        &format!("the Python conformance run on the installed wheel (--store {store})"),
    );
    eprintln!(
        "hosts: python ({store}) ran the scenario in {:.2?}",
        t.elapsed()
    );
    serde_json::from_str(&std::fs::read_to_string(&out).expect("read the Python output"))
        .expect("the Python output is JSON")
}

// ---------------------------------------------------------------- the browser

/// The page (packages/browser/build.js) driven in headless Chromium by
/// packages/browser/test/run.js: the demo, offline reload, transfer size,
/// time to first call, and the scenario on both browser stores.
fn browser_run() -> &'static Value {
    static RUN: OnceLock<Value> = OnceLock::new();
    start_provisioning();
    RUN.get_or_init(|| {
        let chromium = provision::chromium();
        let playwright = provision::playwright_core();
        let npm = npm_package_built();
        let dist = work_dir().join("browser-dist");
        run(
            Command::new("node")
                .current_dir(npm)
                .arg(repo_root().join("packages/browser/build.js"))
                .arg(&dist),
            "building the browser page (packages/browser/build.js)",
        );
        let out = work_dir().join("browser.json");
        let t = Instant::now();
        let result = run(
            Command::new("node")
                .arg(repo_root().join("packages/browser/test/run.js"))
                .arg("--dist")
                .arg(&dist)
                .arg("--chromium")
                .arg(&chromium)
                .arg("--playwright")
                .arg(playwright.join("node_modules/playwright-core"))
                .arg("--scenario")
                .arg(&shared().scenario_path)
                .arg("--out")
                .arg(&out),
            "the browser page in Chromium (packages/browser/test/run.js)",
        );
        eprint!("hosts: {}", String::from_utf8_lossy(&result.stdout));
        eprintln!("hosts: the browser run took {:.1?}", t.elapsed());
        serde_json::from_str(&std::fs::read_to_string(&out).expect("read the browser output"))
            .expect("the browser output is JSON")
    })
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

/// Every host ran the very component this test embeds.
fn assert_component(host: &str, output: &Value) {
    use sha2::{Digest, Sha256};
    let want: String = Sha256::digest(engram_host::runtime::EMBEDDED_COMPONENT)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        output["component_sha256"].as_str(),
        Some(want.as_str()),
        "{host} ran another component than the one under test"
    );
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

/// The tenancy checks every package store passes (`store-checks.js`,
/// `store_checks.py`), the Rust suite's counterparts.
const STORE_CHECKS: [&str; 6] = [
    "ids are per tenant",
    "updates and touches stay within the principal",
    "scrubs stay within their scope",
    "tombstones belong to their owner",
    "a session's log shows what its scope can see",
    "the fingerprint key is derived as every host derives it",
];

fn assert_store_checks(host: &str, output: &Value) {
    assert_eq!(
        output["store_checks"],
        json!(STORE_CHECKS),
        "{host}: the store checks it passed"
    );
}

#[test]
fn node_package_matches_the_rust_host_with_its_memory_store() {
    let out = node_conformance("memory");
    assert_component("Node (installed tarball)", &out);
    assert_same_as_rust("Node (installed tarball, MemoryStore)", &out);
    assert_store_checks("Node (MemoryStore)", &out);
}

#[test]
fn node_package_matches_the_rust_host_with_its_sqlite_store() {
    assert_same_as_rust("Node (installed tarball, SqliteStore)", &node_on_sqlite().0);
    assert_store_checks("Node (SqliteStore)", &node_on_sqlite().0);
}

#[test]
fn python_package_matches_the_rust_host() {
    let out = &python_on_sqlite().0;
    assert_component("Python (installed wheel)", out);
    assert_same_as_rust("Python (installed wheel, SqliteStore)", out);
    assert_store_checks("Python (SqliteStore)", out);
}

#[test]
fn browser_page_matches_the_rust_host_with_both_stores() {
    let report = browser_run();
    for store in ["memory", "indexeddb"] {
        let out = &report["conformance"][store];
        assert_component(&format!("Chromium ({store})"), out);
        assert_same_as_rust(&format!("Chromium (the page, {store} store)"), out);
        assert_store_checks(&format!("Chromium ({store})"), out);
    }
    // What IndexedDB persisted, read back by a new store, is what the
    // scenario's last tenant-wide list showed.
    const STEP: &str = "list: everything visible tenant-wide";
    let rust = shared().rust["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|x| x["name"] == STEP))
        .expect("the scenario lists the tenant");
    let mut diffs = Vec::new();
    differences(
        &rust["ok"],
        &report["conformance"]["indexeddb"]["reopened"][STEP],
        "",
        &mut diffs,
    );
    assert!(
        diffs.is_empty(),
        "IndexedDB reopened differs from the Rust host's {STEP:?}:\n  {}",
        diffs.join("\n  ")
    );
}

/// The page's whole transfer (everything it loads) stays small enough for
/// a web page, and the first call comes within a few seconds even cold.
/// The figures are printed (and documented in docs/packages.md).
#[test]
fn browser_page_transfer_size_and_first_call() {
    let report = browser_run();
    let total = &report["transfer"]["total"];
    let brotli = total["brotli"].as_u64().expect("brotli total");
    let gzip = total["gzip"].as_u64().expect("gzip total");
    let cold = report["first_call_ms"]["cold"]
        .as_f64()
        .expect("cold first call");
    let offline = report["first_call_ms"]["offline_reload"]
        .as_f64()
        .expect("offline first call");
    eprintln!(
        "hosts: browser transfer {} B raw, {gzip} B gzip, {brotli} B brotli; first call {cold:.0} ms cold, {offline:.0} ms offline reload",
        total["bytes"]
    );
    // Raised from 600 KB / 800 KB when the component gained the JSON
    // contract, the sensitive-data and injection heads and keyed
    // tombstones (616,412 B brotli, 811,188 B gzip measured at that merge);
    // then from 650 KB / 850 KB with issue 31's execution records and
    // write and read rules (component +179 KB, attributed in
    // docs/packages.md; 663,925 B brotli, 878,875 B gzip measured); then
    // from 700 KB / 920 KB with issue 33's typed reasons and issue 35's
    // structural write rules and secret prefixes (component 2,172,295 →
    // 2,266,700 B; 704,305 B brotli, 934,937 B gzip measured).
    assert!(
        brotli < 730_000 && gzip < 960_000,
        "the page transfers {brotli} B with brotli, {gzip} B with gzip: over the 730 KB / 960 KB budget"
    );
    assert!(
        cold < 10_000.0 && offline < 10_000.0,
        "time to first call {cold:.0} ms cold, {offline:.0} ms offline: over 10 s"
    );
}

/// The npm README's example, from the installed tarball, with no network.
#[test]
fn npm_readme_example_runs_offline_from_the_installed_tarball() {
    let node = node_host();
    let file = node.project.join("example.mjs");
    assert_readme_example_runs(
        "npm",
        &repo_root().join("packages/npm/README.md"),
        "js",
        &file,
        offline(Path::new("node"))
            .current_dir(&node.project)
            .arg(&file),
    );
}

/// The Python README's example, from the installed wheel, with no network.
#[test]
fn python_readme_example_runs_offline_from_the_installed_wheel() {
    let py = python_host();
    let dir = work_dir().join("python-example");
    std::fs::create_dir_all(&dir).expect("create the example directory");
    let file = dir.join("example.py");
    assert_readme_example_runs(
        "Python",
        &repo_root().join("packages/python/README.md"),
        "python",
        &file,
        offline(&py.python)
            .current_dir(&dir)
            .env("ENGRAM_CACHE_DIR", work_dir().join("cache"))
            .arg(&file),
    );
}

/// What a Python user types, `pip install packages/python` and `pip wheel
/// packages/python`, goes through the package's in-tree build backend: the
/// wheel carries the component cargo built (target/engram-memory.wasm) and
/// the migrations, and the installed package runs its README example
/// offline. The package copied out of the clone, without a component,
/// fails naming build_wheel.py rather than building a wheel without one.
#[test]
fn pip_wheel_and_pip_install_of_the_source_tree_carry_the_component() {
    let package = repo_root().join("packages/python");
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf();
    let built = std::fs::read(target_dir.join("engram-memory.wasm"))
        .expect("cargo build wrote target/engram-memory.wasm");
    let pip = |python: &Path| {
        let mut c = Command::new(python);
        c.args(["-m", "pip", "--disable-pip-version-check"])
            .env_remove("ENGRAM_WHEEL_COMPONENT")
            .env("PYTHONDONTWRITEBYTECODE", "1");
        c
    };
    // wasmtime comes from the index once; the package under test is
    // (re)installed from the source tree below.
    let python = provision::python_venv("engram-pip-source-venv", "wasmtime==48.0.0\n");

    let wheels = work_dir().join("pip-wheel");
    let _ = std::fs::remove_dir_all(&wheels);
    {
        let _lock = python_source_lock();
        run(
            pip(&python)
                .args(["wheel", "--no-deps", "-q", "-w"])
                .arg(&wheels)
                .arg(&package),
            "pip wheel packages/python",
        );
        run(
            pip(&python)
                .args(["install", "--no-deps", "--force-reinstall", "-q"])
                .arg(&package),
            "pip install packages/python",
        );
    }
    let wheel = std::fs::read_dir(&wheels)
        .expect("list the wheel directory")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("pip wheel wrote a wheel");
    let listing = run(
        Command::new(&python)
            .arg("-c")
            .arg(
                "import hashlib, sys, zipfile\n\
             z = zipfile.ZipFile(sys.argv[1])\n\
             for n in sorted(z.namelist()):\n\
             \x20   print(n, hashlib.sha256(z.read(n)).hexdigest())",
            )
            .arg(&wheel),
        "list the wheel",
    );
    let listing = String::from_utf8_lossy(&listing.stdout);
    use sha2::Digest;
    let want = format!(
        "engram_memory/engram-memory.wasm {}",
        hex(&sha2::Sha256::digest(&built))
    );
    assert!(
        listing.lines().any(|l| l == want),
        "{} carries target/engram-memory.wasm:\n{listing}",
        wheel.display()
    );
    for sql in std::fs::read_dir(repo_root().join("host/schema"))
        .expect("list host/schema")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "sql"))
    {
        let name = format!(
            "engram_memory/schema/{} ",
            sql.file_name().to_string_lossy()
        );
        assert!(
            listing.lines().any(|l| l.starts_with(&name)),
            "the wheel carries {name}:\n{listing}"
        );
    }

    let dir = work_dir().join("pip-install-example");
    std::fs::create_dir_all(&dir).expect("create the example directory");
    let file = dir.join("example.py");
    assert_readme_example_runs(
        "Python (pip install packages/python)",
        &package.join("README.md"),
        "python",
        &file,
        offline(&python)
            .current_dir(&dir)
            .env("ENGRAM_CACHE_DIR", work_dir().join("cache"))
            .arg(&file),
    );

    // The package's sources outside any clone, with no component in them.
    let outside =
        std::env::temp_dir().join(format!("engram-python-outside-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    copy_sources(&package, &outside);
    let out = pip(&python)
        .args(["wheel", "--no-deps", "-w"])
        .arg(outside.join("dist"))
        .arg(&outside)
        .output()
        .expect("run pip wheel");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&outside);
    assert!(
        !out.status.success(),
        "a wheel without the component was built:\n{said}"
    );
    assert!(
        said.contains("no engram-memory.wasm") && said.contains("packages/python/build_wheel.py"),
        "the failure names build_wheel.py:\n{said}"
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Copy a package's sources: everything but what a build copies in or
/// leaves behind (the component, the migrations, build outputs, caches).
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for e in std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("list {}: {e}", from.display()))
        .flatten()
    {
        let name = e.file_name().to_string_lossy().to_string();
        let skip = [
            "engram-memory.wasm",
            "schema",
            "build",
            "dist",
            "__pycache__",
        ];
        if skip.contains(&name.as_str()) || name.ends_with(".egg-info") {
            continue;
        }
        let path = e.path();
        if path.is_dir() {
            copy_sources(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name))
                .unwrap_or_else(|e| panic!("copy {}: {e}", path.display()));
        }
    }
}

/// The Node and Python SQLite stores use the Rust host's schema and row
/// format: the Rust host opens the files they wrote and lists the same
/// memories they listed at the end of the scenario.
#[test]
fn sqlite_files_written_by_node_and_python_open_in_the_rust_host() {
    const STEP: &str = "list: everything visible tenant-wide";
    let scenario = &shared().scenario;
    let scope = scenario["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|x| x["name"] == STEP))
        .expect("the scenario lists the tenant")["scope"]
        .clone();
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
            .call_json(
                principal_of(&scenario["principal"]),
                "list",
                &json!({"scope": scope}).to_string(),
            )
            .unwrap_or_else(|e| panic!("the Rust host cannot list the database {host} wrote: {e}"));
        let ours = normalise(Value::Array(
            memories
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect(),
        ));
        // The tombstones they wrote, with the key file beside the database,
        // still recognise the erased content here: the keys are derived
        // alike in every host.
        let document = json!({"text": "The handbook says the locker word is TEALHERON",
                "scope": {"tenant": "acme", "user": "u1"},
                "source": {"kind": "document", "ref": "handbook-p9"}});
        let decision: Value = engram
            .call_json(
                principal_of(&json!({"tenant": "acme", "user": "u1"})),
                "classify",
                &document.to_string(),
            )
            .map(|line| serde_json::from_str(&line).expect("a decision line"))
            .unwrap_or_else(|e| panic!("classify on the database {host} wrote: {e}"));
        let reasons = decision["reasons"].as_array().cloned().unwrap_or_default();
        assert!(
            reasons
                .iter()
                .any(|r| r["text"].as_str().is_some_and(|r| r.contains("tombstone"))),
            "{host}'s tombstones do not match in the Rust host: {reasons:?}"
        );
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

/// The package's unit tests, run inside the installed tarball (their
/// `../src/` imports resolve to the installed sources).
#[test]
fn node_package_unit_tests_pass() {
    let node = node_host();
    let tests = node.package.join("test");
    std::fs::create_dir_all(&tests).expect("create the test directory");
    for e in std::fs::read_dir(repo_root().join("packages/npm/test"))
        .expect("list packages/npm/test")
        .flatten()
    {
        std::fs::copy(e.path(), tests.join(e.file_name())).expect("copy a test file");
    }
    let t = Instant::now();
    run(
        Command::new("node")
            .current_dir(&node.package)
            .args(["--test", "test/"]),
        "the npm package's unit tests (node --test) in the installed tarball",
    );
    eprintln!("hosts: node --test took {:.1?}", t.elapsed());
}

/// The package's unit tests against the installed wheel.
#[test]
fn python_package_unit_tests_pass() {
    let py = python_host();
    let t = Instant::now();
    run(
        py.command(&repo_root().join("packages/python"))
            .args(["-m", "unittest", "discover", "-s", "tests", "-t", "."]),
        "the Python package's unit tests (python -m unittest) against the installed wheel",
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
        "remember",
        "classify",
        "import",
        "recall",
        "pack",
        "forget",
        "sweep",
        "list",
        "history",
        "review",
        "record-operations",
        "get-operations",
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

// ---------------------------------------------------------------- bad input

/// The cases of tests/bad-input/cases.json (the CLI, HTTP and MCP run them
/// in tests/bad_input.rs) through a package: every one refused, naming
/// its field in the case's words, and nothing written.
fn assert_bad_input_refused(host: &str, report: &Value) {
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("tests/bad-input/cases.json"))
            .expect("read cases.json"),
    )
    .expect("cases.json is JSON");
    let cases = cases["cases"].as_array().expect("cases");
    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), cases.len(), "{host}: {report}");
    for (case, got) in cases.iter().zip(results) {
        let name = case["name"].as_str().unwrap_or_default();
        let message = got["message"].as_str().unwrap_or_default();
        assert_eq!(
            got["refused"],
            json!(true),
            "{host}, case '{name}' is refused"
        );
        let field = case["field"].as_str().unwrap_or_default();
        if !field.is_empty() {
            assert!(
                message.contains(&format!("field `{field}`")),
                "{host}, '{name}': {message}"
            );
        }
        let expected = case["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{host}, '{name}': {message}");
    }
    assert_eq!(report["before"], report["after"], "{host}: nothing written");
}

#[test]
fn node_package_refuses_bad_input_as_the_cli_does() {
    let node = node_host();
    let out = work_dir().join("node-bad-input.json");
    let script = node.project.join("bad-input.mjs");
    std::fs::copy(repo_root().join("tests/bad-input/node.mjs"), &script)
        .expect("copy the bad-input script");
    run(
        Command::new("node")
            .current_dir(&node.project)
            .arg(&script)
            .arg(repo_root().join("tests/bad-input/cases.json"))
            .arg(&out),
        "the bad-input cases through the installed npm package",
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("read the report"))
            .expect("the report is JSON");
    assert_bad_input_refused("node", &report);
}

#[test]
fn python_package_refuses_bad_input_as_the_cli_does() {
    let py = python_host();
    let out = run(
        py.command(&work_dir())
            .arg(repo_root().join("tests/bad-input/python.py"))
            .arg(repo_root().join("tests/bad-input/cases.json")),
        "the bad-input cases through the installed Python wheel",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_bad_input_refused("python", &report);
}
