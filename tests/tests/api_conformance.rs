//! The HTTP API's conformance suite (`tests/api/cases.json`): every route,
//! auth failures, scope denials (nothing written), limits and bad input,
//! run in order through both adapters of `engram-api` — the edge component
//! on wasmtime's `wasi:http` with a `wasi:keyvalue` store, and `engram
//! serve` on SQLite — which must answer every case with the same status
//! and body (normalised only where the file says), and as the case expects.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use engram_tests::edge::kv_host::KvDb;
use engram_tests::edge::runner::EdgeServer;
use engram_tests::edge::scenario::{first_difference, Answer, Keys};
use engram_tests::edge::serve_process::ServeProcess;
use engram_tests::edge::{FINGERPRINT_SECRET, SECRET_VAR};
use serde_json::{json, Value};

fn cases() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("api/cases.json");
    let text = std::fs::read_to_string(&path).expect("read tests/api/cases.json");
    serde_json::from_str(&text).expect("tests/api/cases.json is JSON")
}

fn work_dir(name: &str) -> std::path::PathBuf {
    engram_tests::fresh_dir(env!("CARGO_TARGET_TMPDIR"), "engram-api", name)
}

/// A key per principal of the file's `keys`, by the principal's name.
struct NamedKeys {
    keys: Keys,
    principals: HashMap<String, Value>,
}

impl NamedKeys {
    fn new(c: &Value) -> Self {
        let principals: HashMap<String, Value> = c["keys"]
            .as_object()
            .expect("keys")
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let all: Vec<Value> = principals.values().cloned().collect();
        let keys = Keys::for_scenario(&json!({"principal": all[0], "steps": []}), &all);
        NamedKeys { keys, principals }
    }

    fn key(&self, name: &str) -> &str {
        let p = self
            .principals
            .get(name)
            .unwrap_or_else(|| panic!("no key named {name}"));
        self.keys.key_for(p)
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// One request as a case describes it: its status and body (JSON, or the
/// text as a JSON string; an empty body as `null`).
struct Sent {
    status: u16,
    body: Value,
}

fn send(
    agent: &ureq::Agent,
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Option<String>,
) -> Sent {
    let url = format!("{base}{path}");
    let resp = match method {
        "GET" | "HEAD" => {
            let mut r = if method == "GET" {
                agent.get(&url)
            } else {
                agent.head(&url)
            };
            for (n, v) in headers {
                r = r.header(*n, v);
            }
            r.call()
        }
        "POST" => {
            let mut r = agent.post(&url);
            for (n, v) in headers {
                r = r.header(*n, v);
            }
            r.send(body.unwrap_or_default())
        }
        other => panic!("a case with method {other}"),
    };
    let mut resp = resp.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Sent { status, body }
}

/// `$NAME` → the memory id candidate NAME got.
fn resolve(text: &str, ids: &HashMap<String, String>) -> String {
    let mut out = text.to_string();
    let mut names: Vec<&String> = ids.keys().collect();
    // Longest first: `$name2` before `$name`.
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    for n in names {
        out = out.replace(&format!("${n}"), &ids[n]);
    }
    out
}

/// Candidate ids → memory ids from a remember answer (an array, or JSON
/// Lines as text).
fn remember_ids(body: &Value, ids: &mut HashMap<String, String>) {
    let decisions: Vec<Value> = match body {
        Value::Array(a) => a.clone(),
        Value::String(s) => s
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        _ => return,
    };
    for d in decisions {
        if let (Some(c), Some(m)) = (d["id"].as_str(), d["memory_id"].as_str()) {
            ids.insert(c.to_string(), m.to_string());
        }
    }
}

/// What may differ between hosts: the host's own part of /v1/info, and the
/// name of the setting a limit is changed by.
fn normalise(c: &Value, path: &str, status: u16, mut body: Value) -> Value {
    if path == "/v1/info" && status == 200 {
        if let Value::Object(m) = &body {
            let keep: Vec<&str> = c["normalise"]["info_keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            body = Value::Object(
                m.iter()
                    .filter(|(k, _)| keep.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
        }
    }
    if let Some(text) = body["error"].as_str() {
        let mut text = text.to_string();
        for pair in c["normalise"]["settings"].as_array().into_iter().flatten() {
            let (flag, var) = (pair[0].as_str(), pair[1].as_str());
            if let (Some(flag), Some(var)) = (flag, var) {
                text = text.replace(&format!("({var})"), &format!("({flag})"));
            }
        }
        body["error"] = json!(text);
    }
    body
}

/// Every case on the server at `base`; the answers, each checked against
/// its case's expectation.
fn run(c: &Value, keys: &NamedKeys, base: &str, host: &str) -> Vec<Answer> {
    let agent = agent();
    let mut ids = HashMap::new();
    let mut answers = Vec::new();
    let listing = |agent: &ureq::Agent| {
        let h = [("Authorization", format!("Bearer {}", keys.key("acme")))];
        send(agent, base, "GET", "/v1/memories?tenant=acme", &h, None).body
    };
    for case in c["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().unwrap_or("?").to_string();
        let method = case["method"].as_str().unwrap_or("GET");
        let path = resolve(case["path"].as_str().unwrap_or("/"), &ids);
        let mut headers: Vec<(&str, String)> = Vec::new();
        if let Some(k) = case["key"].as_str() {
            headers.push(("Authorization", format!("Bearer {}", keys.key(k))));
        }
        if let Some(a) = case["authorization"].as_str() {
            headers.push(("Authorization", a.to_string()));
        }
        if let Some(a) = case["accept"].as_str() {
            headers.push(("Accept", a.to_string()));
        }
        let body = case.get("body").map(|b| {
            let mut text = match b {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if let Some(n) = case["pad_to"].as_u64() {
                while text.len() < n as usize {
                    text.push(' ');
                }
            }
            resolve(&text, &ids)
        });
        if method == "POST" {
            let ct = case["content_type"].as_str().unwrap_or("application/json");
            headers.push(("Content-Type", ct.to_string()));
        }
        let before = (case["writes"] == json!(false)).then(|| listing(&agent));
        let sent = send(&agent, base, method, &path, &headers, body);
        if let Some(before) = before {
            assert_eq!(
                listing(&agent),
                before,
                "{host}: case '{name}' wrote nothing"
            );
        }
        let expect = &case["expect"];
        assert_eq!(
            Some(u64::from(sent.status)),
            expect["status"].as_u64(),
            "{host}: case '{name}': {}",
            sent.body
        );
        if let Some(prefix) = expect["error"].as_str() {
            let text = sent.body["error"].as_str().unwrap_or_default();
            assert!(
                text.starts_with(prefix),
                "{host}: case '{name}': {text:?} does not start with {prefix:?}"
            );
            assert_eq!(sent.body["status"], json!(sent.status), "{host}: {name}");
        }
        if method == "HEAD" {
            assert_eq!(sent.body, Value::Null, "{host}: a HEAD answer has no body");
        }
        if sent.status == 200 && path == "/v1/remember" {
            remember_ids(&sent.body, &mut ids);
        }
        answers.push(Answer {
            name,
            status: sent.status,
            body: normalise(c, &path, sent.status, sent.body),
        });
    }
    answers
}

fn limit(c: &Value, name: &str) -> String {
    c["limits"][name].as_u64().expect("a limit").to_string()
}

/// Every case through the edge component and through `engram serve`: the
/// same statuses and bodies.
#[test]
fn every_case_answers_alike_on_the_edge_and_on_serve() {
    let c = cases();
    let now = c["now"].as_str().expect("now");
    let keys = NamedKeys::new(&c);
    let dir = work_dir("cases");

    let db = KvDb::open(&dir.join("edge-kv.db"));
    let edge = EdgeServer::start(
        engram_edge::EDGE_COMPONENT,
        Arc::clone(&db),
        vec![
            ("ENGRAM_KEYS".into(), keys.keys.file()),
            (SECRET_VAR.into(), FINGERPRINT_SECRET.into()),
            ("ENGRAM_NOW".into(), now.into()),
            ("ENGRAM_MAX_BODY_BYTES".into(), limit(&c, "max_body_bytes")),
            ("ENGRAM_MAX_ITEMS".into(), limit(&c, "max_items")),
        ],
    );
    let edge_answers = run(&c, &keys, &format!("http://{}", edge.addr), "edge");

    let key_file = dir.join("keys.jsonl");
    std::fs::write(&key_file, keys.keys.file()).expect("write the key file");
    let (body, items) = (limit(&c, "max_body_bytes"), limit(&c, "max_items"));
    let mut serve = ServeProcess::new(
        env!("CARGO_BIN_EXE_engram-cli"),
        &dir.join("serve.db").display().to_string(),
        &key_file,
        &[
            "--max-body-bytes",
            &body,
            "--max-items",
            &items,
            "--rate-per-sec",
            "100000",
            "--rate-burst",
            "100000",
        ],
    );
    serve.start(now);
    let base = engram_tests::edge::scenario::Target::base(&serve);
    let serve_answers = run(&c, &keys, &base, "engram serve");

    let _ = std::fs::write(
        dir.join("answers.json"),
        serde_json::to_string_pretty(&json!({
            "edge": edge_answers.iter().map(|a| json!({"name": a.name, "status": a.status, "body": a.body})).collect::<Vec<_>>(),
            "serve": serve_answers.iter().map(|a| json!({"name": a.name, "status": a.status, "body": a.body})).collect::<Vec<_>>(),
        }))
        .unwrap_or_default(),
    );
    if let Some(d) = first_difference(&edge_answers, &serve_answers) {
        panic!("the edge differs from engram serve: {d}");
    }
}

/// A key over its rate: `engram serve` answers 429 naming its flags (the
/// edge keeps no count between requests: the file's `rate.about`).
#[test]
fn a_key_over_its_rate_is_refused_by_serve() {
    let c = cases();
    let rate = &c["rate"];
    let keys = NamedKeys::new(&c);
    let dir = work_dir("rate");
    let key_file = dir.join("keys.jsonl");
    std::fs::write(&key_file, keys.keys.file()).expect("write the key file");
    let (per_sec, burst) = (rate["per_sec"].to_string(), rate["burst"].to_string());
    let mut serve = ServeProcess::new(
        env!("CARGO_BIN_EXE_engram-cli"),
        &dir.join("serve.db").display().to_string(),
        &key_file,
        &["--rate-per-sec", &per_sec, "--rate-burst", &burst],
    );
    serve.start(c["now"].as_str().expect("now"));
    let base = engram_tests::edge::scenario::Target::base(&serve);
    let agent = agent();
    let h = [("Authorization", format!("Bearer {}", keys.key("acme")))];
    let answers: Vec<Sent> = (0..rate["requests"].as_u64().expect("requests"))
        .map(|_| send(&agent, &base, "GET", "/v1/memories", &h, None))
        .collect();
    let last = answers.last().expect("requests were sent");
    assert!(
        answers[..answers.len() - 1].iter().all(|s| s.status == 200),
        "the burst passes"
    );
    assert_eq!(
        Some(u64::from(last.status)),
        rate["expect"]["status"].as_u64()
    );
    let text = last.body["error"].as_str().unwrap_or_default();
    let prefix = rate["expect"]["error"].as_str().expect("an error");
    assert!(text.starts_with(prefix), "{text:?}");
}
