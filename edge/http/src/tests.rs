//! Routing, authentication and limits against a recording engine. (The
//! real policy and store behind them: `tests/tests/edge.rs`.)

use std::cell::RefCell;

use serde_json::{json, Value};

use crate::api::{handle, Engine, PolicyError, Request};
use crate::auth::{key_hash, Principal};
use crate::config::Config;
use engram_contract::types::FieldError;

#[derive(Default)]
struct Recorder {
    calls: RefCell<Vec<(String, String)>>,
    opened: RefCell<Vec<Principal>>,
    answer: RefCell<Option<Result<String, PolicyError>>>,
}

impl Engine for Recorder {
    fn open(&self, p: &Principal) -> Result<(), String> {
        self.opened.borrow_mut().push(p.clone());
        Ok(())
    }
    fn close(&self) {}
    fn call(&self, op: &str, input: &str) -> Result<String, PolicyError> {
        self.calls.borrow_mut().push((op.into(), input.into()));
        self.answer
            .borrow()
            .clone()
            .unwrap_or_else(|| Ok("{\"ok\":1}\n{\"ok\":2}\n".into()))
    }
}

fn config() -> Config {
    let keys = [
        json!({"sha256": key_hash("ek_acme"), "tenant": "acme"}),
        json!({"sha256": key_hash("ek_u42"), "tenant": "acme", "user": "u42", "project": null}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    let mut c = Config::from_vars(|k| (k == "ENGRAM_KEYS").then(|| keys.clone())).unwrap();
    c.max_items = 3;
    c.max_body_bytes = 4096;
    c
}

fn post(path: &str, key: Option<&str>, body: &str) -> Request {
    let mut headers = vec![];
    if let Some(k) = key {
        headers.push(("authorization".to_string(), format!("Bearer {k}")));
    }
    Request {
        method: "POST".into(),
        path: path.into(),
        query: String::new(),
        headers,
        body: body.as_bytes().to_vec(),
    }
}

fn get(target: &str, key: &str) -> Request {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Request {
        method: "GET".into(),
        path: path.into(),
        query: query.into(),
        headers: vec![("authorization".into(), format!("Bearer {key}"))],
        body: vec![],
    }
}

fn error_of(body: &str) -> (String, u64) {
    let v: Value = serde_json::from_str(body).unwrap();
    (
        v["error"].as_str().unwrap().to_string(),
        v["status"].as_u64().unwrap(),
    )
}

#[test]
fn keys_are_checked_before_anything_runs() {
    let e = Recorder::default();
    let c = config();
    let body = r#"[{"text":"x","scope":{"tenant":"acme"},"source":{"kind":"user"}}]"#;
    for (key, want) in [
        (None, "missing `Authorization: Bearer KEY` header"),
        (Some("ek_wrong"), "unknown API key"),
    ] {
        let r = handle(&c, &e, &post("/v1/remember", key, body));
        assert_eq!(r.status, 401);
        assert_eq!(error_of(&r.body), (want.to_string(), 401));
    }
    let mut bad = post("/v1/remember", None, body);
    bad.headers
        .push(("authorization".into(), "Basic abc".into()));
    assert_eq!(
        error_of(&handle(&c, &e, &bad).body).0,
        "the Authorization header must be `Bearer KEY`"
    );
    assert!(e.calls.borrow().is_empty());
    let ok = handle(&c, &e, &post("/healthz", None, ""));
    assert_eq!(ok.status, 405);
    let mut h = get("/healthz", "");
    h.headers.clear();
    assert_eq!(handle(&c, &e, &h).body, r#"{"status":"ok"}"#);
}

#[test]
fn a_scope_outside_the_key_is_refused_naming_the_dimension() {
    let e = Recorder::default();
    let c = config();
    let body = r#"[{"text":"a","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"user"}},
                   {"text":"b","scope":{"tenant":"acme","user":"u7"},"source":{"kind":"user"}}]"#;
    let r = handle(&c, &e, &post("/v1/remember", Some("ek_u42"), body));
    assert_eq!(r.status, 403);
    assert_eq!(
        error_of(&r.body).0,
        "item 2: permission denied: user 'u7' is outside this store handle's user 'u42'"
    );
    assert!(e.calls.borrow().is_empty(), "nothing ran");
    let other = r#"{"budget":100,"scope":{"tenant":"globex"},"query":"q"}"#;
    let r = handle(&c, &e, &post("/v1/pack", Some("ek_acme"), other));
    assert_eq!(
        error_of(&r.body).0,
        "pack request: permission denied: tenant 'globex' is outside this store handle's tenant 'acme'"
    );
    let r = handle(&c, &e, &get("/v1/memories?user=u7", "ek_u42"));
    assert_eq!(r.status, 403);
    assert!(e.calls.borrow().is_empty());
}

#[test]
fn a_batch_goes_to_the_contract_whole_and_comes_back_as_serve_answers() {
    let e = Recorder::default();
    let c = config();
    let body = r#"[{"text":"a","scope":{"tenant":"acme"},"source":{"kind":"user"}}]"#;
    let r = handle(&c, &e, &post("/v1/remember", Some("ek_acme"), body));
    assert_eq!((r.status, r.body.as_str()), (200, r#"[{"ok":1},{"ok":2}]"#));
    assert_eq!(e.calls.borrow()[0], ("remember".into(), body.into()));
    assert_eq!(e.opened.borrow()[0].tenant, "acme");
    let mut nd = post(
        "/v1/recall",
        Some("ek_acme"),
        "{\"query\":\"q\",\"scope\":{\"tenant\":\"acme\"}}\n",
    );
    nd.headers
        .push(("content-type".into(), "application/x-ndjson".into()));
    let r = handle(&c, &e, &nd);
    assert_eq!(r.content_type, "application/x-ndjson");
    assert_eq!(r.body, "{\"ok\":1}\n{\"ok\":2}\n");
    let empty = handle(&c, &e, &post("/v1/classify", Some("ek_acme"), "[]"));
    assert_eq!(empty.body, "[]");
    assert_eq!(e.calls.borrow().len(), 2, "an empty batch calls nothing");
}

#[test]
fn field_errors_name_the_item_or_line() {
    let e = Recorder::default();
    let c = config();
    *e.answer.borrow_mut() = Some(Err(PolicyError::InvalidInput(FieldError {
        index: Some(1),
        field: "source".into(),
        message: "missing field `source`".into(),
    })));
    let body = r#"[{"text":"a","scope":{"tenant":"acme"},"source":{"kind":"user"}},{"text":"b","scope":{"tenant":"acme"}}]"#;
    let r = handle(&c, &e, &post("/v1/remember", Some("ek_acme"), body));
    assert_eq!(
        error_of(&r.body),
        // The contract's own reading refuses the item before the engine runs.
        ("item 2: field `source`: required, but missing".into(), 400)
    );
    let mut nd = post(
        "/v1/remember",
        Some("ek_acme"),
        "{\"text\":\"a\",\"scope\":{\"tenant\":\"acme\"}}\n\n{}\n",
    );
    nd.headers
        .push(("content-type".into(), "application/x-ndjson".into()));
    *e.answer.borrow_mut() = Some(Err(PolicyError::InvalidInput(FieldError {
        index: Some(2),
        field: String::new(),
        message: "missing field `text`".into(),
    })));
    assert_eq!(
        error_of(&handle(&c, &e, &nd).body).0,
        "line 1: field `source`: required, but missing"
    );
    let r = handle(&c, &e, &post("/v1/remember", Some("ek_acme"), "{not json"));
    assert_eq!(r.status, 400);
    assert!(
        error_of(&r.body).0.starts_with("request body: "),
        "{}",
        r.body
    );
    let r = handle(&c, &e, &post("/v1/remember", Some("ek_acme"), "{}"));
    assert!(error_of(&r.body).0.contains("expected a JSON array"));
    *e.answer.borrow_mut() = Some(Err(PolicyError::Conflict("lost".into())));
    let valid = r#"[{"text":"a","scope":{"tenant":"acme"},"source":{"kind":"user"}}]"#;
    let r = handle(&c, &e, &post("/v1/remember", Some("ek_acme"), valid));
    assert_eq!(error_of(&r.body), ("conflict: lost".into(), 409));
}

/// A review item that is not found is named as serve names it (404), and
/// a not-found error about no item keeps its text.
#[test]
fn a_review_item_not_found_is_named_with_its_status() {
    let e = Recorder::default();
    let c = config();
    *e.answer.borrow_mut() = Some(Err(engram_contract::item::not_found(
        1,
        "no pending revision 1 of memory 'm-9'",
    )));
    let body = r#"[{"id":"m-1","revision":1,"verdict":"approve"},{"id":"m-9","revision":1,"verdict":"reject"}]"#;
    let r = handle(&c, &e, &post("/v1/review", Some("ek_acme"), body));
    assert_eq!(
        error_of(&r.body),
        (
            "item 2: not found: no pending revision 1 of memory 'm-9'".into(),
            404
        )
    );
    assert_eq!(e.calls.borrow()[0].0, "review");
    *e.answer.borrow_mut() = Some(Err(PolicyError::NotFound("nothing".into())));
    let r = handle(&c, &e, &post("/v1/review", Some("ek_acme"), body));
    assert_eq!(error_of(&r.body), ("not found: nothing".into(), 404));
}

#[test]
fn limits_are_named_with_their_variable() {
    let e = Recorder::default();
    let c = config();
    let four = format!("[{}]", ["{}"; 4].join(","));
    let r = handle(&c, &e, &post("/v1/classify", Some("ek_acme"), &four));
    assert_eq!(
        error_of(&r.body),
        (
            "batch: 4 items is over the limit of 3 items per request (ENGRAM_MAX_ITEMS)".into(),
            413
        )
    );
    let big = "x".repeat(5000);
    let r = handle(&c, &e, &post("/v1/classify", Some("ek_acme"), &big));
    assert_eq!(
        error_of(&r.body),
        (
            "request body: over the limit of 4096 bytes (ENGRAM_MAX_BODY_BYTES)".into(),
            413
        )
    );
    let mut declared = post("/v1/classify", Some("ek_acme"), "[]");
    declared
        .headers
        .push(("content-length".into(), "5000".into()));
    assert_eq!(
        error_of(&handle(&c, &e, &declared).body).0,
        "request body: 5000 bytes is over the limit of 4096 bytes (ENGRAM_MAX_BODY_BYTES)"
    );
    assert!(e.calls.borrow().is_empty());
}

#[test]
fn list_history_sweep_and_forget_build_the_contracts_inputs() {
    let e = Recorder::default();
    let c = config();
    handle(
        &c,
        &e,
        &get("/v1/memories?status=active,pending&thread=t%207", "ek_u42"),
    );
    let (op, input) = e.calls.borrow()[0].clone();
    assert_eq!(op, "list");
    let v: Value = serde_json::from_str(&input).unwrap();
    assert_eq!(v["scope"]["user"], "u42");
    assert_eq!(v["scope"]["thread"], "t 7");
    assert_eq!(v["statuses"], json!(["active", "pending"]));
    let r = handle(&c, &e, &get("/v1/memories?status=alive", "ek_acme"));
    assert_eq!(r.status, 400);
    *e.answer.borrow_mut() = Some(Ok(String::new()));
    let r = handle(&c, &e, &get("/v1/memories/m-1/history", "ek_acme"));
    assert_eq!(
        error_of(&r.body),
        ("no memory with id 'm-1' in this key's scope".into(), 404)
    );
    *e.answer.borrow_mut() = Some(Ok("{\"expired\":0}\n".into()));
    let r = handle(&c, &e, &post("/v1/sweep", Some("ek_u42"), ""));
    assert_eq!(r.body, "{\"expired\":0}");
    let (_, input) = e.calls.borrow().last().cloned().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&input).unwrap()["scope"]["user"],
        "u42"
    );
    *e.answer.borrow_mut() = Some(Ok("{\"deleted\":[]}\n".into()));
    let sel = r#"[{"memory_id":"m-1"},{"scope":{"tenant":"acme"},"text":"x"}]"#;
    let r = handle(&c, &e, &post("/v1/forget", Some("ek_acme"), sel));
    assert_eq!(r.body, r#"[{"deleted":[]},{"deleted":[]}]"#);
    let forgets = e.calls.borrow().iter().filter(|c| c.0 == "forget").count();
    assert_eq!(forgets, 2, "one call per selector, one report each");
    let r = handle(&c, &e, &post("/v1/nowhere", Some("ek_acme"), ""));
    assert_eq!(r.status, 404);
    let r = handle(&c, &e, &get("/v1/remember", "ek_acme"));
    assert_eq!(r.status, 405);
}

/// The execution-record routes go to their operations whole, after every
/// scope is checked against the key (a scope outside it is a 403 and
/// nothing runs); a wrong method is serve's 405.
#[test]
fn operation_records_go_to_their_operations_after_the_scope_check() {
    let e = Recorder::default();
    let c = config();
    let record = r#"[{"operation_id":"op_891","scope":{"tenant":"acme","user":"u42"},"tool":"issue_refund","status":"submitted"}]"#;
    let r = handle(
        &c,
        &e,
        &post("/v1/operations/record", Some("ek_u42"), record),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let lookup = r#"[{"operation_id":"op_891","scope":{"tenant":"acme","user":"u42"}}]"#;
    let r = handle(&c, &e, &post("/v1/operations/get", Some("ek_u42"), lookup));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        *e.calls.borrow(),
        [
            ("record-operations".to_string(), record.to_string()),
            ("get-operations".to_string(), lookup.to_string())
        ]
    );
    let theirs = r#"[{"operation_id":"op_891","scope":{"tenant":"acme","user":"u7"}}]"#;
    let r = handle(&c, &e, &post("/v1/operations/get", Some("ek_u42"), theirs));
    assert_eq!(r.status, 403);
    assert_eq!(
        error_of(&r.body).0,
        "item 1: permission denied: user 'u7' is outside this store handle's user 'u42'"
    );
    let r = handle(&c, &e, &get("/v1/operations/record", "ek_u42"));
    assert_eq!(r.status, 405, "{}", r.body);
    assert_eq!(e.calls.borrow().len(), 2, "nothing more ran");
}
