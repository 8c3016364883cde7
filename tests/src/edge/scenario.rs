//! The cross-host conformance scenario (`tests/conformance/scenario.json`)
//! as HTTP requests to `engram serve`'s API, for any server that speaks it:
//! the edge component on each runner, and `engram serve` itself. Each step
//! is sent with a key for its principal and the clock at its instant;
//! the answers (status and JSON body) are what the hosts must agree on.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// A server of the API whose clock the scenario can set between steps.
pub trait Target {
    fn base(&self) -> String;
    /// Make the next requests run at `now` (RFC 3339).
    fn set_now(&mut self, now: &str);
}

/// A deterministic key per principal, and the key file lines they make.
pub struct Keys {
    by_principal: Vec<(Value, String)>,
}

fn normal_principal(p: &Value) -> Value {
    json!({
        "tenant": p.get("tenant").cloned().unwrap_or(Value::Null),
        "user": p.get("user").cloned().unwrap_or(Value::Null),
        "project": p.get("project").cloned().unwrap_or(Value::Null),
    })
}

impl Keys {
    /// Keys for every principal the scenario uses, plus `extra`.
    pub fn for_scenario(scenario: &Value, extra: &[Value]) -> Keys {
        let mut principals = vec![normal_principal(&scenario["principal"])];
        for step in scenario["steps"].as_array().into_iter().flatten() {
            if let Some(p) = step.get("principal") {
                principals.push(normal_principal(p));
            }
        }
        principals.extend(extra.iter().map(normal_principal));
        let mut by_principal: Vec<(Value, String)> = Vec::new();
        for p in principals {
            if by_principal.iter().all(|(q, _)| *q != p) {
                let key = format!(
                    "ek_{}",
                    hex::encode(Sha256::digest(p.to_string().as_bytes()))
                );
                by_principal.push((p, key));
            }
        }
        Keys { by_principal }
    }

    pub fn key_for(&self, principal: &Value) -> &str {
        let p = normal_principal(principal);
        self.by_principal
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, k)| k.as_str())
            .unwrap_or_else(|| panic!("no key for {p}"))
    }

    /// The key file (`engram keys add` format): hashes and principals.
    pub fn file(&self) -> String {
        self.by_principal
            .iter()
            .map(|(p, k)| {
                let mut line = p.clone();
                line["sha256"] = json!(hex::encode(Sha256::digest(k.as_bytes())));
                format!("{line}\n")
            })
            .collect()
    }
}

/// One answer: the step, the HTTP status and the body as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub name: String,
    pub status: u16,
    pub body: Value,
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// Send one request; the body as JSON (or the text as a JSON string).
pub fn send(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    key: Option<&str>,
    body: Option<&str>,
) -> (u16, Value) {
    let auth = key.map(|k| format!("Bearer {k}"));
    let mut resp = match body {
        None => {
            let mut r = agent.get(url);
            if let Some(a) = &auth {
                r = r.header("Authorization", a);
            }
            r.call()
        }
        Some(b) => {
            let mut r = agent.post(url).header("Content-Type", "application/json");
            if let Some(a) = &auth {
                r = r.header("Authorization", a);
            }
            r.send(b)
        }
    }
    .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, value)
}

/// "$X" in `id`/`memory_id` fields → the memory id candidate X got.
fn resolve(v: &Value, ids: &HashMap<String, String>) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(|x| resolve(x, ids)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let r = match x.as_str() {
                        Some(s) if (k == "id" || k == "memory_id") && s.starts_with('$') => {
                            Value::String(
                                ids.get(&s[1..]).cloned().unwrap_or_else(|| s.to_string()),
                            )
                        }
                        _ => resolve(x, ids),
                    };
                    (k.clone(), r)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn query_of(step: &Value) -> String {
    let mut q = Vec::new();
    for dim in ["tenant", "user", "project", "thread", "agent"] {
        if let Some(v) = step["scope"].get(dim).and_then(Value::as_str) {
            q.push(format!("{dim}={}", encode(v)));
        }
    }
    let statuses: Vec<&str> = step["statuses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !statuses.is_empty() {
        q.push(format!("status={}", statuses.join(",")));
    }
    q.join("&")
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Run every step on `target`; the answers in order.
pub fn run(target: &mut dyn Target, scenario: &Value, keys: &Keys) -> Vec<Answer> {
    let agent = agent();
    let mut ids: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    let mut current_now = String::new();
    for step in scenario["steps"].as_array().expect("steps") {
        let name = step["name"].as_str().unwrap_or("?").to_string();
        let now = step
            .get("now")
            .or_else(|| scenario.get("now"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if now != current_now {
            target.set_now(&now);
            current_now = now;
        }
        let principal = step.get("principal").unwrap_or(&scenario["principal"]);
        let key = keys.key_for(principal);
        let base = target.base();
        let step = resolve(step, &ids);
        let op = step["op"].as_str().unwrap_or_default();
        let post = |path: &str, body: &Value| {
            send(
                &agent,
                "POST",
                &format!("{base}{path}"),
                Some(key),
                Some(&body.to_string()),
            )
        };
        let (status, body) = match op {
            "remember" | "classify" => post(&format!("/v1/{op}"), &step["candidates"]),
            "import" => post("/v1/import", &step["records"]),
            "recall" => post("/v1/recall", &step["queries"]),
            "pack" => post("/v1/pack", &step["request"]),
            "forget" => post("/v1/forget", &step["selectors"]),
            "review" => post("/v1/review", &step["items"]),
            "record-operations" => post("/v1/operations/record", &step["records"]),
            "get-operations" => post("/v1/operations/get", &step["lookups"]),
            "sweep" => post("/v1/sweep", &json!({"scope": step["scope"]})),
            "list" => send(
                &agent,
                "GET",
                &format!("{base}/v1/memories?{}", query_of(&step)),
                Some(key),
                None,
            ),
            "history" => {
                let id = step["id"].as_str().unwrap_or_default();
                send(
                    &agent,
                    "GET",
                    &format!("{base}/v1/memories/{}/history", encode(id)),
                    Some(key),
                    None,
                )
            }
            other => panic!("scenario step {name}: unknown op {other}"),
        };
        if status == 200 {
            remember_ids(op, &body, &mut ids);
        }
        out.push(Answer { name, status, body });
    }
    out
}

/// Map candidate ids (and import external ids) to the memory ids they got.
fn remember_ids(op: &str, body: &Value, ids: &mut HashMap<String, String>) {
    let Some(items) = body.as_array() else { return };
    match op {
        "remember" => {
            for d in items {
                if let (Some(c), Some(m)) = (d["id"].as_str(), d["memory_id"].as_str()) {
                    ids.insert(c.to_string(), m.to_string());
                }
            }
        }
        "import" => {
            for r in items {
                if let (Some(c), Some(m)) = (r["external_id"].as_str(), r["id"].as_str()) {
                    ids.insert(c.to_string(), m.to_string());
                }
            }
        }
        _ => {}
    }
}

/// The first difference between two answer lists, by step and JSON path.
pub fn first_difference(a: &[Answer], b: &[Answer]) -> Option<String> {
    if a.len() != b.len() {
        return Some(format!("{} steps against {}", a.len(), b.len()));
    }
    for (x, y) in a.iter().zip(b) {
        if x.status != y.status {
            return Some(format!(
                "step '{}': status {} against {} ({} / {})",
                x.name, x.status, y.status, x.body, y.body
            ));
        }
        if let Some(p) = value_difference(&x.body, &y.body, "") {
            return Some(format!("step '{}': {p}", x.name));
        }
    }
    None
}

fn value_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (p, q) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                if let Some(d) = value_difference(p, q, &format!("{path}.{k}")) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} items against {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| value_difference(p, q, &format!("{path}[{i}]")))
        }
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => None,
        _ if a == b => None,
        _ => Some(format!("{path}: {a} against {b}")),
    }
}
