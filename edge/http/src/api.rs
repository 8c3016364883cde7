//! The routes of `engram serve` (SPEC §4.1, docs/serve.md) over the
//! policy's JSON contract: each endpoint authenticates the key, reads the
//! body as serve does (a JSON array, or JSON Lines), refuses any scope
//! outside the key's principal before anything runs (403, nothing
//! written), opens the store for that principal and hands the body to
//! `json.call`. The answers are the contract's output lines, as a JSON
//! array or JSON Lines.

use serde_json::{json, Map, Value};

use engram_contract::item;
use engram_contract::route::{self, ListQuery};

use crate::auth::{authenticate, own_scope, scope_json, Principal};
use crate::batch::{body_text, named, read_batch};
use crate::config::Config;
use crate::error::{from_policy, ApiError};

/// An HTTP request as the handler needs it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub method: String,
    /// The path, without the query.
    pub path: String,
    pub query: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// An answer: status, content type, body, and `Retry-After` when limited.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    pub retry_after: Option<u64>,
}

pub const JSON: &str = "application/json";
pub const NDJSON: &str = "application/x-ndjson";

impl Response {
    pub fn json(status: u16, value: &Value) -> Self {
        Response {
            status,
            content_type: JSON,
            body: value.to_string(),
            retry_after: None,
        }
    }
}

/// An error of the policy's `json.call` (the WIT `error` variant).
pub use engram_contract::types::Error as PolicyError;

/// What the handler calls: the store's session and the policy's contract.
pub trait Engine {
    fn open(&self, principal: &Principal) -> Result<(), String>;
    fn close(&self);
    fn call(&self, operation: &str, input: &str) -> Result<String, PolicyError>;
}

/// Handle one request.
pub fn handle(config: &Config, engine: &dyn Engine, req: &Request) -> Response {
    match route(config, engine, req) {
        Ok(r) => r,
        Err(e) => e.response(),
    }
}

fn route(config: &Config, engine: &dyn Engine, req: &Request) -> Result<Response, ApiError> {
    let path = req.path.as_str();
    let method = req.method.as_str();
    if path == "/healthz" {
        return only(method, "GET").map(|_| Response::json(200, &json!({"status": "ok"})));
    }
    if !path.starts_with("/v1/") {
        return Err(ApiError::new(404, format!("no route for {method} {path}")));
    }
    // Known route and method first (as serve's router), then the key.
    let op = match (method, path) {
        ("GET", "/v1/info") => Route::Info,
        ("POST", "/v1/classify") => Route::Batch("classify"),
        ("POST", "/v1/remember") => Route::Batch("remember"),
        ("POST", "/v1/import") => Route::Batch("import"),
        ("POST", "/v1/recall") => Route::Batch("recall"),
        ("POST", "/v1/review") => Route::Batch("review"),
        ("POST", "/v1/operations/record") => Route::Batch("record-operations"),
        ("POST", "/v1/operations/get") => Route::Batch("get-operations"),
        ("POST", "/v1/forget") => Route::Forget,
        ("POST", "/v1/pack") => Route::Pack,
        ("POST", "/v1/sweep") => Route::Sweep,
        ("GET", "/v1/memories") => Route::List,
        ("GET", p) if history_id(p).is_some() => Route::History,
        // The router's own answers, worded as `engram serve` words them.
        (_, p) if known(p) => {
            let allowed = if p == "/v1/info" || p == "/v1/memories" || history_id(p).is_some() {
                "GET"
            } else {
                "POST"
            };
            return Err(ApiError::new(
                405,
                format!("{method} is not allowed on {p} (allowed: {allowed})"),
            ));
        }
        _ => {
            return Err(ApiError::new(
                404,
                format!("no such endpoint: {method} {path} (docs/serve.md)"),
            ))
        }
    };
    let principal = authenticate(config, req.header("authorization"))?;
    engine.open(&principal).map_err(ApiError::internal)?;
    let answer = run(config, engine, req, &principal, op);
    engine.close();
    answer
}

fn only(method: &str, wanted: &str) -> Result<(), ApiError> {
    if method == wanted {
        Ok(())
    } else {
        Err(ApiError::new(405, format!("{method} is not allowed here")))
    }
}

fn known(path: &str) -> bool {
    matches!(
        path,
        "/v1/info"
            | "/v1/classify"
            | "/v1/remember"
            | "/v1/import"
            | "/v1/recall"
            | "/v1/review"
            | "/v1/operations/record"
            | "/v1/operations/get"
            | "/v1/forget"
            | "/v1/pack"
            | "/v1/sweep"
            | "/v1/memories"
    ) || history_id(path).is_some()
}

/// `/v1/memories/{id}/history` → the (percent-decoded) id.
fn history_id(path: &str) -> Option<String> {
    let id = path
        .strip_prefix("/v1/memories/")?
        .strip_suffix("/history")?;
    (!id.is_empty() && !id.contains('/')).then(|| percent_decode(id, false))
}

/// `%XX` decoded (and `+` as a space in a query, as form encoding has it).
fn percent_decode(s: &str, plus_is_space: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let hex = |b: u8| (b as char).to_digit(16);
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if plus_is_space && bytes[i] == b'+' {
            b' '
        } else {
            bytes[i]
        });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

enum Route {
    Info,
    Batch(&'static str),
    Forget,
    Pack,
    Sweep,
    List,
    History,
}

fn run(
    config: &Config,
    engine: &dyn Engine,
    req: &Request,
    principal: &Principal,
    op: Route,
) -> Result<Response, ApiError> {
    let ndjson_out = wants_ndjson(req);
    match op {
        Route::Info => {
            let out = engine.call("info", "{}").map_err(|e| named(e, |_| None))?;
            let mut info: Map<String, Value> = first_object(&out)?;
            info.insert("host".into(), json!("engram-edge (wasi:http)"));
            Ok(Response::json(200, &Value::Object(info)))
        }
        Route::Batch(operation) => {
            let text = body_text(config, req)?;
            let batch = read_batch(operation, config, req, &text)?;
            for item in &batch.items {
                if let Some(scope) = &item.scope {
                    principal.check(scope, &batch.form.label(item.index))?;
                }
            }
            if batch.items.is_empty() {
                return Ok(respond(String::new(), ndjson_out));
            }
            let form = batch.form;
            let out = engine
                .call(operation, batch.text)
                .map_err(|e| named(e, |i| Some(form.label(i))))?;
            Ok(respond(out, ndjson_out))
        }
        Route::Forget => forget(config, engine, req, principal, ndjson_out),
        Route::Pack => {
            let text = body_text(config, req)?;
            engram_contract::ops::check("pack", &text)
                .map_err(|e| named(e, |_| Some("pack request".into())))?;
            if let Some(scope) = route::object_scope(&text) {
                principal.check(&scope, "pack request")?;
            }
            let out = engine
                .call("pack", &text)
                .map_err(|e| named(e, |_| Some("pack request".into())))?;
            Ok(respond_one(&out))
        }
        Route::Sweep => {
            let text = body_text(config, req)?;
            let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            let (input, scope) = if compact.is_empty() || compact == "{}" {
                let own = own_scope(principal);
                (json!({ "scope": scope_json(&own) }).to_string(), Some(own))
            } else {
                (text.clone(), route::object_scope(&text))
            };
            engram_contract::ops::check("sweep", &input)
                .map_err(|e| named(e, |_| Some("sweep request".into())))?;
            if let Some(scope) = &scope {
                principal.check(scope, "sweep request")?;
            }
            let out = engine
                .call("sweep", &input)
                .map_err(|e| named(e, |_| Some("sweep request".into())))?;
            Ok(respond_one(&out))
        }
        Route::List => {
            let query = list_query(&req.query, principal)?;
            principal.check(&query.scope, "query")?;
            let out = engine.call("list", &query.input()).map_err(from_policy)?;
            Ok(respond(out, ndjson_out))
        }
        Route::History => {
            let id = history_id(&req.path).unwrap_or_default();
            let out = engine
                .call("history", &json!({ "id": id }).to_string())
                .map_err(from_policy)?;
            if out.trim().is_empty() {
                return Err(ApiError::new(
                    404,
                    format!("no memory with id '{id}' in this key's scope"),
                ));
            }
            Ok(respond(out, ndjson_out))
        }
    }
}

/// Forget: one report per selector, as serve answers; each selector is its
/// own call and commit here (serve runs them in one transaction, which a
/// key-value store has no way to span), and an error names its item and
/// stops the batch.
fn forget(
    config: &Config,
    engine: &dyn Engine,
    req: &Request,
    principal: &Principal,
    ndjson_out: bool,
) -> Result<Response, ApiError> {
    let text = body_text(config, req)?;
    let batch = read_batch("forget", config, req, &text)?;
    for item in &batch.items {
        if let Some(scope) = &item.scope {
            principal.check(scope, &batch.form.label(item.index))?;
        }
    }
    let mut lines = String::new();
    for item in &batch.items {
        let label = batch.form.label(item.index);
        let selector = route::rejoin(batch.form, [item.text]);
        let out = engine.call("forget", &selector).map_err(|e| match e {
            // The call held this one selector: its item 0.
            e if item::about_item(&e).is_some() => named(e, |_| Some(label.clone())),
            other => {
                let mut a = from_policy(other);
                a.message = format!("{label}: {}", a.message);
                a
            }
        })?;
        lines.push_str(&out);
    }
    Ok(respond(lines, ndjson_out))
}

/// `?tenant=&user=&project=&thread=&agent=&status=` (read as serve reads
/// it, `route::ListQuery`): an absent tenant, user or project is the key's own.
fn list_query(query: &str, principal: &Principal) -> Result<ListQuery, ApiError> {
    let params = query.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(name, true), percent_decode(value, true))
    });
    ListQuery::read(own_scope(principal), params).map_err(ApiError::bad_request)
}

fn wants_ndjson(req: &Request) -> bool {
    let is =
        |h: Option<&str>| h.is_some_and(|v| v.contains(NDJSON) || v.contains("application/jsonl"));
    is(req.header("accept")) || is(req.header("content-type"))
}

/// The component's single output line, as serve answers it.
fn respond_one(lines: &str) -> Response {
    Response {
        status: 200,
        content_type: JSON,
        body: lines.trim_end().to_string(),
        retry_after: None,
    }
}

/// The contract's output lines as serve answers them.
fn respond(lines: String, ndjson: bool) -> Response {
    if ndjson {
        return Response {
            status: 200,
            content_type: NDJSON,
            body: lines,
            retry_after: None,
        };
    }
    let body = route::rejoin(engram_contract::Form::Array, lines.lines());
    Response {
        status: 200,
        content_type: JSON,
        body,
        retry_after: None,
    }
}

fn first_object(lines: &str) -> Result<Map<String, Value>, ApiError> {
    let line = lines.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match serde_json::from_str(line) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(ApiError::internal(format!(
            "the policy answered something other than one JSON object: {line:.200}"
        ))),
    }
}
