//! The edge component (docs/edge.md): the store adapter passes the store
//! conformance suite on a persistent `wasi:keyvalue` host; the composed
//! component serves `engram serve`'s HTTP API under wasmtime's own
//! `wasi:http` (as `wasmtime serve` runs it), under the `wasmtime serve`
//! CLI, and in Node through jco, with the conformance scenario's outputs
//! equal to the Rust host's.

use std::sync::Arc;

use engram_tests::edge::kv_host::KvDb;
use engram_tests::edge::store_adapter::KvComponentStore;
use engram_tests::edge::{FINGERPRINT_SECRET, SECRET_VAR};
use engram_tests::store_conformance::{second_store_sees_commits, CHECKS};

fn engine() -> wasmtime::Engine {
    wasmtime::Engine::default()
}

/// Every check of the suite but "batches and savepoints": outer
/// transactions across calls are the Rust host's `Backend` feature
/// (`begin_batch`), not part of `wit/store.wit`, which the adapter
/// implements; each of its commits is atomic on its own.
#[test]
fn the_kv_store_adapter_conforms() {
    let engine = engine();
    let db = KvDb::open(std::path::Path::new(":memory:"));
    let mut store =
        KvComponentStore::new(&engine, engram_edge::KV_STORE_COMPONENT, Arc::clone(&db));
    let mut ran = 0;
    for (i, (name, check)) in CHECKS.iter().enumerate() {
        if *name == "batches and savepoints" {
            continue;
        }
        eprintln!("edge store conformance: {name}");
        check(&mut store, &format!("kv-{i}"));
        ran += 1;
    }
    assert_eq!(ran, CHECKS.len() - 1);
    let mut other =
        KvComponentStore::new(&engine, engram_edge::KV_STORE_COMPONENT, Arc::clone(&db));
    second_store_sees_commits(&mut store, &mut other, "kv-two");
}

/// The component derives the very keys the Rust host derives from the same
/// secret, refuses without one, and refuses another secret once the bucket
/// recorded the first one's id; a user's key is never handed to another.
#[test]
fn the_kv_store_adapter_derives_the_hosts_keys_and_refuses_another_secret() {
    use engram_host::backend::Backend;
    use engram_host::bindings as w;
    let engine = engine();
    let db = KvDb::open(std::path::Path::new(":memory:"));
    let ann = w::Principal {
        tenant: "acme".into(),
        user: Some("ann".into()),
        project: None,
    };
    let scope = |user: &str| w::Scope {
        tenant: "acme".into(),
        user: Some(user.into()),
        project: None,
        thread: None,
        agent: None,
    };
    let mut none = KvComponentStore::new(&engine, engram_edge::KV_STORE_COMPONENT, Arc::clone(&db))
        .with_secret(None);
    match none.fingerprint_key(&ann, &scope("ann")) {
        Err(w::StoreError::Backend(m)) => assert!(m.contains(SECRET_VAR), "{m}"),
        r => panic!("a key without a secret: {r:?}"),
    }
    let mut store =
        KvComponentStore::new(&engine, engram_edge::KV_STORE_COMPONENT, Arc::clone(&db));
    let key = store.fingerprint_key(&ann, &scope("ann")).expect("the key");
    let host = store
        .fingerprint_secret()
        .expect("the secret")
        .derive(&scope("ann"));
    assert_eq!(key, host.to_vec());
    assert!(matches!(
        store.fingerprint_key(&ann, &scope("bob")),
        Err(w::StoreError::Denied(_))
    ));
    let mut other =
        KvComponentStore::new(&engine, engram_edge::KV_STORE_COMPONENT, Arc::clone(&db))
            .with_secret(Some("ffffffffffffffffffffffffffffffff"));
    assert_ne!(FINGERPRINT_SECRET, "ffffffffffffffffffffffffffffffff");
    match other.fingerprint_key(&ann, &scope("ann")) {
        Err(w::StoreError::Backend(m)) => assert!(m.contains("key id"), "{m}"),
        r => panic!("another secret was accepted: {r:?}"),
    }
}

// ---------------------------------------------------------------- the component

/// The composition imports only standard interfaces and embeds the very
/// policy component the Rust host runs.
#[test]
fn imports_only_standard_interfaces_and_embeds_the_policy_unchanged() {
    let imports = engram_edge::compose::imports_of(engram_edge::EDGE_COMPONENT).expect("imports");
    let exports = engram_edge::compose::exports_of(engram_edge::EDGE_COMPONENT).expect("exports");
    eprintln!("edge imports: {imports:?}\nedge exports: {exports:?}");
    assert!(!imports.is_empty());
    for i in &imports {
        assert!(i.starts_with("wasi:"), "a non-standard import: {i}");
        for banned in ["wasi:sockets", "wasi:http/outgoing-handler"] {
            assert!(
                !i.starts_with(banned),
                "{i} grants a capability the edge never needs"
            );
        }
    }
    for needed in [
        "wasi:keyvalue/store@0.2.0-draft2",
        "wasi:keyvalue/atomics@0.2.0-draft2",
        "wasi:http/types@",
    ] {
        assert!(
            imports.iter().any(|i| i.starts_with(needed)),
            "{needed} is not imported"
        );
    }
    assert_eq!(exports.len(), 1);
    assert!(exports[0].starts_with("wasi:http/incoming-handler@0.2."));
    assert_eq!(
        engram_edge::POLICY_COMPONENT,
        engram_host::runtime::EMBEDDED_COMPONENT,
        "the edge composes the host's policy component, not a rebuild of it"
    );
    let whole = engram_edge::EDGE_COMPONENT;
    let policy = engram_edge::POLICY_COMPONENT;
    assert!(
        whole.windows(policy.len()).any(|w| w == policy),
        "the policy's bytes appear unchanged inside the composition"
    );
}

// ---------------------------------------------------------------- over HTTP

use engram_tests::edge::runner::EdgeServer;
use engram_tests::edge::scenario::{self, Answer, Keys, Target};
use engram_tests::edge::serve_process::ServeProcess;
use serde_json::{json, Value};

fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn work_dir(name: &str) -> std::path::PathBuf {
    engram_tests::fresh_dir(env!("CARGO_TARGET_TMPDIR"), "engram-edge", name)
}

fn the_scenario() -> Value {
    let text = std::fs::read_to_string(repo_root().join("tests/conformance/scenario.json"))
        .expect("read the conformance scenario");
    serde_json::from_str(&text).expect("the scenario is JSON")
}

/// The edge component on the wasmtime runner, as a scenario target.
struct Runner(EdgeServer);

impl Target for Runner {
    fn base(&self) -> String {
        format!("http://{}", self.0.addr)
    }
    fn set_now(&mut self, now: &str) {
        self.0.set_env("ENGRAM_NOW", now);
    }
}

fn runner(keys: &Keys, db: Arc<KvDb>) -> Runner {
    Runner(EdgeServer::start(
        engram_edge::EDGE_COMPONENT,
        db,
        vec![
            ("ENGRAM_KEYS".into(), keys.file()),
            (SECRET_VAR.into(), FINGERPRINT_SECRET.into()),
        ],
    ))
}

/// `engram serve` on a fresh database with the same keys.
fn serve(dir: &std::path::Path, keys: &Keys) -> ServeProcess {
    let key_file = dir.join("keys.jsonl");
    std::fs::write(&key_file, keys.file()).expect("write the key file");
    ServeProcess::new(
        env!("CARGO_BIN_EXE_engram-cli"),
        &dir.join("serve.db").display().to_string(),
        &key_file,
        &["--rate-per-sec", "100000", "--rate-burst", "100000"],
    )
}

fn assert_same(edge: &[Answer], serve: &[Answer], what: &str) {
    if let Some(d) = scenario::first_difference(edge, serve) {
        panic!("{what} differs from engram serve: {d}");
    }
}

/// The conformance scenario through the HTTP API: the edge component on
/// wasmtime's wasi:http with a persistent key-value store answers every
/// step exactly as `engram serve` on SQLite (statuses, decisions,
/// rankings with their scores, packed text, reports, errors).
#[test]
fn the_scenario_over_http_equals_engram_serve() {
    let dir = work_dir("scenario");
    let sc = the_scenario();
    let keys = Keys::for_scenario(&sc, &[]);
    let db = KvDb::open(&dir.join("edge-kv.db"));
    let mut edge = runner(&keys, Arc::clone(&db));
    let edge_answers = scenario::run(&mut edge, &sc, &keys);
    let mut srv = serve(&dir, &keys);
    let serve_answers = scenario::run(&mut srv, &sc, &keys);
    let _ = std::fs::write(
        dir.join("answers.json"),
        serde_json::to_string_pretty(&json!({
            "edge": edge_answers.iter().map(|a| json!({"name": a.name, "status": a.status, "body": a.body})).collect::<Vec<_>>(),
            "serve": serve_answers.iter().map(|a| json!({"name": a.name, "status": a.status, "body": a.body})).collect::<Vec<_>>(),
        }))
        .unwrap_or_default(),
    );
    assert_eq!(
        edge_answers.len(),
        sc["steps"].as_array().map_or(0, Vec::len)
    );
    assert!(
        edge_answers.iter().filter(|a| a.status == 200).count() >= 25,
        "most steps succeed: {:?}",
        edge_answers
            .iter()
            .map(|a| (a.name.as_str(), a.status))
            .collect::<Vec<_>>()
    );
    assert_same(
        &edge_answers,
        &serve_answers,
        "the edge component on wasmtime",
    );
    // The store persists across requests and a restart of the runner.
    drop(edge);
    let mut again = runner(&keys, db);
    again.set_now("2026-08-10T10:00:00+08:00");
    let (status, listed) = scenario::send(
        &scenario::agent(),
        "GET",
        &format!("{}/v1/memories?tenant=acme", again.base()),
        Some(keys.key_for(&json!({"tenant": "acme"}))),
        None,
    );
    let last_list = edge_answers
        .iter()
        .find(|a| a.name.starts_with("list: everything visible tenant-wide"))
        .expect("the scenario lists");
    assert_eq!((status, &listed), (200, &last_list.body));
}

fn candidate(text: &str, user: Option<&str>) -> Value {
    json!({"text": text, "scope": {"tenant": "acme", "user": user}, "source": {"kind": "user", "ref": "evt-1"}})
}

/// 401 without or with an unknown key, 403 naming the dimension for a
/// scope outside the key, 400 naming the item and field, 413 over a limit:
/// and after every refusal the key-value store holds exactly what it held.
#[test]
fn refusals_are_serves_and_write_nothing() {
    let dir = work_dir("refusals");
    let u42 = json!({"tenant": "acme", "user": "u42"});
    let keys = Keys::for_scenario(
        &json!({"principal": {"tenant": "acme"}, "steps": []}),
        std::slice::from_ref(&u42),
    );
    let db = KvDb::open(&dir.join("kv.db"));
    let mut edge = runner(&keys, Arc::clone(&db));
    edge.0.set_env("ENGRAM_MAX_ITEMS", "3");
    edge.set_now("2026-08-01T10:00:00+08:00");
    let a = scenario::agent();
    let url = |p: &str| format!("{}{p}", edge.base());
    let ok = json!([candidate("以后请叫我林工", Some("u42"))]).to_string();
    let (s, _) = scenario::send(
        &a,
        "POST",
        &url("/v1/remember"),
        Some(keys.key_for(&u42)),
        Some(&ok),
    );
    assert_eq!(s, 200);
    let refund = |status: &str, user: &str| {
        json!([{"operation_id": "op_891", "scope": {"tenant": "acme", "user": user},
            "tool": "issue_refund", "status": status}])
        .to_string()
    };
    for status in ["submitted", "succeeded"] {
        let (s, v) = scenario::send(
            &a,
            "POST",
            &url("/v1/operations/record"),
            Some(keys.key_for(&u42)),
            Some(&refund(status, "u42")),
        );
        assert_eq!(s, 200, "{v}");
    }
    let before = db.entries("default");
    assert!(!before.is_empty());
    let refusals: Vec<(Option<&str>, &str, String, u16, &str)> = vec![
        (None, "/v1/remember", ok.clone(), 401, "missing `Authorization: Bearer KEY` header"),
        (Some("ek_nobody"), "/v1/recall", "[]".into(), 401, "unknown API key"),
        (
            Some(keys.key_for(&u42)),
            "/v1/remember",
            json!([candidate("a", Some("u42")), candidate("b", Some("u7"))]).to_string(),
            403,
            "item 2: permission denied: user 'u7' is outside this store handle's user 'u42'",
        ),
        (
            Some(keys.key_for(&u42)),
            "/v1/forget",
            json!([{"scope": {"tenant": "globex"}, "text": "林工"}]).to_string(),
            403,
            "item 1: permission denied: tenant 'globex' is outside this store handle's tenant 'acme'",
        ),
        (
            Some(keys.key_for(&u42)),
            "/v1/remember",
            json!([candidate("fine", Some("u42")), {"text": "no scope or source"}]).to_string(),
            400,
            "item 2: ",
        ),
        (
            Some(keys.key_for(&u42)),
            "/v1/operations/record",
            refund("failed", "u42"),
            400,
            "item 1: field `status`: operation op_891 already succeeded; a final status does not change",
        ),
        (
            Some(keys.key_for(&u42)),
            "/v1/operations/record",
            refund("submitted", "u7"),
            403,
            "item 1: permission denied: user 'u7' is outside this store handle's user 'u42'",
        ),
        (
            Some(keys.key_for(&u42)),
            "/v1/remember",
            json!([candidate("1", Some("u42")), candidate("2", Some("u42")), candidate("3", Some("u42")), candidate("4", Some("u42"))]).to_string(),
            413,
            "batch: 4 items is over the limit of 3 items per request (ENGRAM_MAX_ITEMS)",
        ),
    ];
    for (key, path, body, status, message) in refusals {
        let (s, v) = scenario::send(&a, "POST", &url(path), key, Some(&body));
        assert_eq!(s, status, "{path}: {v}");
        let text = v["error"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(message),
            "{path}: {text:?} does not start with {message:?}"
        );
        assert_eq!(v["status"], json!(status));
        assert_eq!(
            db.entries("default"),
            before,
            "{path} ({status}) wrote nothing"
        );
    }
    // A field error names the field, as serve names it.
    let (s, v) = scenario::send(
        &a,
        "POST",
        &url("/v1/remember"),
        Some(keys.key_for(&u42)),
        Some(&json!([{"text": "x", "scope": {"tenant": "acme", "user": "u42"}}]).to_string()),
    );
    assert_eq!(s, 400);
    assert!(
        v["error"].as_str().unwrap_or_default().contains("`source`"),
        "{v}"
    );
    assert_eq!(db.entries("default"), before);
}

/// The tests of racing writers take turns: each saturates the cores on its
/// own, and a reader that finishes others' pending commits is bounded by a
/// number of attempts, not by time.
static RACES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Writers in parallel on one tenant: every distinct memory is stored, and
/// racing supersessions of one fact each leave a revision (none lost) with
/// exactly one active.
#[test]
fn concurrent_writers_lose_no_update() {
    let _turn = RACES.lock().unwrap_or_else(|e| e.into_inner());
    let dir = work_dir("concurrent");
    let keys = Keys::for_scenario(&json!({"principal": {"tenant": "acme"}, "steps": []}), &[]);
    let db = KvDb::open(&dir.join("kv.db"));
    let mut edge = runner(&keys, Arc::clone(&db));
    edge.set_now("2026-08-01T10:00:00+08:00");
    let base = edge.base();
    let key = keys.key_for(&json!({"tenant": "acme"})).to_string();
    let writers: Vec<_> = (0..6)
        .map(|w| {
            let (base, key) = (base.clone(), key.clone());
            std::thread::spawn(move || {
                let a = scenario::agent();
                let mut ids = Vec::new();
                for i in 0..4 {
                    let c = json!([{
                        "text": format!("2026-07-{:02} 的发布 {w}-{i} 因超时失败，已回滚。", 10 + i),
                        "scope": {"tenant": "acme"},
                        "source": {"kind": "tool", "ref": format!("evt-{w}-{i}")},
                    }]);
                    let (s, v) = scenario::send(&a, "POST", &format!("{base}/v1/remember"), Some(&key), Some(&c.to_string()));
                    assert_eq!(s, 200, "{v}");
                    ids.push(v[0]["memory_id"].as_str().unwrap_or_default().to_string());
                    let fact = json!([{
                        "text": format!("payment-service 使用 PostgreSQL {}", 10 + w * 4 + i),
                        "scope": {"tenant": "acme"},
                        // Revisions of one CMDB record: one source chain, so a
                        // later revision supersedes (two unrelated systems
                        // disagreeing at the same moment would be a conflict).
                        "source": {"kind": "system", "ref": format!("cmdb:payment-service#rev-{w}-{i}")},
                        "subject": "payment-service", "predicate": "uses", "object": format!("PostgreSQL {}", 10 + w * 4 + i),
                    }]);
                    let (s, v) = scenario::send(&a, "POST", &format!("{base}/v1/remember"), Some(&key), Some(&fact.to_string()));
                    assert_eq!(s, 200, "{v}");
                }
                ids
            })
        })
        .collect();
    let mut episodes: Vec<String> = writers
        .into_iter()
        .flat_map(|t| t.join().expect("a writer"))
        .collect();
    episodes.sort();
    episodes.dedup();
    assert_eq!(episodes.len(), 24, "24 distinct episodes: {episodes:?}");
    let a = scenario::agent();
    let (s, listed) = scenario::send(
        &a,
        "GET",
        &format!("{base}/v1/memories?tenant=acme"),
        Some(&key),
        None,
    );
    assert_eq!(s, 200);
    let listed = listed.as_array().cloned().unwrap_or_default();
    for id in &episodes {
        assert!(listed.iter().any(|m| m["id"] == json!(id)), "{id} was lost");
    }
    let fact_id = listed
        .iter()
        .find(|m| {
            m["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("payment-service"))
        })
        .and_then(|m| m["id"].as_str())
        .expect("the fact is listed")
        .to_string();
    let (s, history) = scenario::send(
        &a,
        "GET",
        &format!("{base}/v1/memories/{fact_id}/history"),
        Some(&key),
        None,
    );
    assert_eq!(s, 200);
    let revs = history.as_array().cloned().unwrap_or_default();
    assert_eq!(
        revs.len(),
        24,
        "every supersession left its revision: {}",
        revs.len()
    );
    let active = revs
        .iter()
        .filter(|r| r["status"] == json!("active"))
        .count();
    assert_eq!(
        active,
        1,
        "exactly one active revision: {:?}",
        revs.iter()
            .map(|r| format!("{}#{} {}", r["text"], r["revision"], r["status"]))
            .collect::<Vec<_>>()
    );
    let lost = db
        .counters
        .lost_swaps
        .load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("concurrent writers: {lost} compare-and-swaps lost and retried");
}

/// Writers in parallel recording one operation: the edge store serialises
/// nothing, so the policy's read of the operation's log and its append
/// are held together by the store (an append to a session that gained
/// events since it was read is a conflict, and the policy reads again):
/// exactly one writer creates the record and one moves it to its final
/// status; every other one is answered as a duplicate or refused.
#[test]
fn concurrent_records_of_one_operation_keep_one_history() {
    let _turn = RACES.lock().unwrap_or_else(|e| e.into_inner());
    let dir = work_dir("concurrent-operations");
    let keys = Keys::for_scenario(&json!({"principal": {"tenant": "acme"}, "steps": []}), &[]);
    let db = KvDb::open(&dir.join("kv.db"));
    let mut edge = runner(&keys, Arc::clone(&db));
    edge.set_now("2026-08-05T14:18:22+08:00");
    let base = edge.base();
    let key = keys.key_for(&json!({"tenant": "acme"})).to_string();
    let record = |status: &str, result: Option<String>| {
        json!([{"operation_id": "op_race", "scope": {"tenant": "acme"}, "tool": "issue_refund",
            "status": status, "idempotency_key": "payment-42", "result_ref": result}])
        .to_string()
    };
    let race = |body: Vec<String>| -> Vec<(u16, Value)> {
        let threads: Vec<_> = body
            .into_iter()
            .map(|b| {
                let (base, key) = (base.clone(), key.clone());
                std::thread::spawn(move || {
                    scenario::send(
                        &scenario::agent(),
                        "POST",
                        &format!("{base}/v1/operations/record"),
                        Some(&key),
                        Some(&b),
                    )
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("a writer"))
            .collect()
    };
    let submitted = race((0..6).map(|_| record("submitted", None)).collect());
    let actions: Vec<String> = submitted
        .iter()
        .map(|(s, v)| {
            assert_eq!(*s, 200, "{v}");
            v[0]["action"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(
        actions.iter().filter(|a| *a == "created").count(),
        1,
        "{actions:?}"
    );
    assert_eq!(
        actions.iter().filter(|a| *a == "duplicate").count(),
        5,
        "{actions:?}"
    );
    let done = race(
        (0..6)
            .map(|w| record("succeeded", Some(format!("artifact://r/{w}"))))
            .collect(),
    );
    let updated = done
        .iter()
        .filter(|(s, v)| *s == 200 && v[0]["action"] == "updated")
        .count();
    assert_eq!(updated, 1, "{done:?}");
    for (s, v) in &done {
        assert!(
            *s == 200
                || (*s == 400
                    && v["error"]
                        .as_str()
                        .is_some_and(|e| e.contains("already succeeded"))),
            "{s} {v}"
        );
    }
    let (s, got) = scenario::send(
        &scenario::agent(),
        "POST",
        &format!("{base}/v1/operations/get"),
        Some(&key),
        Some(&json!([{"operation_id": "op_race", "scope": {"tenant": "acme"}}]).to_string()),
    );
    assert_eq!(s, 200, "{got}");
    assert_eq!(got[0]["revision"], 2, "{got}");
    assert_eq!(
        got[0]["history"]
            .as_array()
            .map(|h| h.iter().map(|x| x["status"].clone()).collect::<Vec<_>>()),
        Some(vec![json!("submitted"), json!("succeeded")])
    );
}

/// The same scenario in Node: the component transpiled by jco, its
/// keyvalue imports on a small JS binding, served by preview2-shim.
#[test]
fn the_scenario_in_node_through_jco_equals_engram_serve() {
    use engram_tests::edge::jco;
    let dir = work_dir("jco");
    let node_dir = jco::provision();
    let module = jco::transpile(&node_dir, engram_edge::EDGE_COMPONENT, "engram-edge");
    let sc = the_scenario();
    let keys = Keys::for_scenario(&sc, &[]);
    let mut edge = jco::JcoServer::start(
        &node_dir,
        &module,
        json!({ "ENGRAM_KEYS": keys.file(), SECRET_VAR: FINGERPRINT_SECRET }),
        &dir.join("kv.log"),
    );
    eprintln!("jco: the component loaded in {:.1} ms", edge.load_ms);
    let jco_answers = scenario::run(&mut edge, &sc, &keys);
    let mut srv = serve(&dir, &keys);
    let serve_answers = scenario::run(&mut srv, &sc, &keys);
    assert_same(
        &jco_answers,
        &serve_answers,
        "the edge component in Node (jco)",
    );
}

/// A smoke run under the `wasmtime serve` CLI itself. Its `-S keyvalue` is
/// the first draft in memory per instance, so the component runs through
/// the draft bridge (`EDGE_FOR_WASMTIME_SERVE`) and one reused instance
/// holds the store; every answer equals the wasmtime runner's on the same
/// requests from an empty store.
#[test]
fn a_smoke_run_under_the_wasmtime_serve_cli() {
    use std::io::{BufRead, BufReader};
    let exe = engram_tests::edge::wasmtime_cli::provision();
    let dir = work_dir("wasmtime-serve");
    let wasm = dir.join("engram-edge-wasmtime-serve.wasm");
    std::fs::write(&wasm, engram_edge::EDGE_FOR_WASMTIME_SERVE).expect("write the component");
    let keys = Keys::for_scenario(&json!({"principal": {"tenant": "acme"}, "steps": []}), &[]);
    let now = "2026-08-01T10:00:00+08:00";
    let mut child = std::process::Command::new(&exe)
        .args([
            "serve",
            "-S",
            "cli",
            "-S",
            "keyvalue",
            "--addr",
            "127.0.0.1:0",
        ])
        .args([
            "--max-instance-reuse-count",
            "1000",
            "--idle-instance-timeout",
            "600s",
        ])
        .arg("--env")
        .arg(format!("ENGRAM_KEYS={}", keys.file()))
        .arg("--env")
        .arg(format!("ENGRAM_NOW={now}"))
        .arg("--env")
        .arg(format!("{SECRET_VAR}={FINGERPRINT_SECRET}"))
        .arg(&wasm)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start wasmtime serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let base = loop {
        let line = lines
            .next()
            .expect("wasmtime serve exited before serving")
            .expect("read stderr");
        if let Some(rest) = line.split("Serving HTTP on ").nth(1) {
            break rest.trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            eprintln!("wasmtime serve: {l}")
        }
    });
    let mut reference = runner(&keys, KvDb::open(std::path::Path::new(":memory:")));
    reference.set_now(now);
    let key = keys.key_for(&json!({"tenant": "acme"}));
    let a = scenario::agent();
    let remember = json!([
        {"id": "c1", "text": "以后请叫我林工", "scope": {"tenant": "acme", "user": "u42"}, "source": {"kind": "user", "ref": "evt-1"}},
        {"id": "c2", "text": "2026-07-31 payment-service 的 V42 迁移因锁等待超时失败，已回滚。", "scope": {"tenant": "acme"}, "source": {"kind": "tool", "ref": "evt-2"}}
    ])
    .to_string();
    let recall =
        json!([{"id": "q1", "query": "为什么上次迁移失败？", "scope": {"tenant": "acme"}, "k": 5}])
            .to_string();
    let requests: Vec<(&str, &str, Option<&str>, Option<&str>)> = vec![
        ("GET", "/healthz", None, None),
        ("POST", "/v1/remember", None, Some(&remember)),
        ("POST", "/v1/remember", Some(key), Some(&remember)),
        ("POST", "/v1/recall", Some(key), Some(&recall)),
        ("GET", "/v1/memories?tenant=acme", Some(key), None),
        (
            "POST",
            "/v1/forget",
            Some(key),
            Some(r#"[{"scope":{"tenant":"globex"},"text":"x"}]"#),
        ),
    ];
    for (method, path, k, body) in requests {
        let got = scenario::send(&a, method, &format!("{base}{path}"), k, body);
        let want = scenario::send(&a, method, &format!("{}{path}", reference.base()), k, body);
        assert_eq!(got, want, "{method} {path} under wasmtime serve");
    }
    let _ = child.kill();
    let _ = child.wait();
}
