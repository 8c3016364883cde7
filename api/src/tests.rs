//! Routing, authentication, limits and transactions against a recording
//! policy. (The real policy and store behind them, through both adapters:
//! `tests/tests/api_conformance.rs`.)

use std::time::Duration;

use engram_contract::types::{Error as PolicyError, FieldError};
use serde_json::{json, Value};

use crate::*;

#[derive(Default)]
struct Recorder {
    calls: Vec<(String, String)>,
    principals: Vec<Principal>,
    answer: Option<Result<String, CallError>>,
    /// `begin`, `commit` and `rollback`, in order.
    transactions: Vec<&'static str>,
}

impl Policy for Recorder {
    fn call(&mut self, p: &Principal, op: &str, input: &str) -> Result<String, CallError> {
        self.calls.push((op.into(), input.into()));
        self.principals.push(p.clone());
        self.answer
            .clone()
            .unwrap_or_else(|| Ok("{\"ok\":1}\n{\"ok\":2}\n".into()))
    }
    fn begin(&mut self) -> Result<(), CallError> {
        self.transactions.push("begin");
        Ok(())
    }
    fn finish(&mut self, commit: bool) -> Result<(), CallError> {
        self.transactions
            .push(if commit { "commit" } else { "rollback" });
        Ok(())
    }
}

fn keys() -> KeyRing {
    let text = [
        json!({"sha256": key_hash("ek_acme"), "tenant": "acme"}),
        json!({"sha256": key_hash("ek_u42"), "tenant": "acme", "user": "u42", "project": null}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    KeyRing::parse(&text, "ENGRAM_KEYS").expect("keys")
}

fn limits() -> Limits {
    let mut l = Limits::new(ENVIRONMENT);
    l.max_items = 3;
    l.max_body_bytes = 4096;
    l
}

/// Run `req` through the API with fresh keys and limits.
fn handle(policy: &mut Recorder, req: &Request) -> Response {
    let (k, l) = (keys(), limits());
    Api {
        keys: &k,
        limits: &l,
    }
    .handle(policy, req, Duration::ZERO)
}

fn post(path: &str, key: Option<&str>, body: &str) -> Request {
    let r = Request::new("POST", path).with_body(body);
    match key {
        Some(k) => r.with_header("authorization", &format!("Bearer {k}")),
        None => r,
    }
}

fn get(target: &str, key: &str) -> Request {
    Request::new("GET", target).with_header("Authorization", &format!("Bearer {key}"))
}

fn error_of(r: &Response) -> (String, u64) {
    let v: Value = serde_json::from_str(&r.body).expect("a JSON error");
    (
        v["error"].as_str().unwrap_or_default().to_string(),
        v["status"].as_u64().unwrap_or_default(),
    )
}

#[test]
fn keys_are_checked_before_anything_runs() {
    let mut e = Recorder::default();
    let body = r#"[{"text":"x","scope":{"tenant":"acme"},"source":{"kind":"user"}}]"#;
    for (key, want) in [
        (None, "missing `Authorization: Bearer KEY` header"),
        (Some("ek_wrong"), "unknown API key"),
    ] {
        let r = handle(&mut e, &post("/v1/remember", key, body));
        assert_eq!(error_of(&r), (want.to_string(), 401));
    }
    let bad = post("/v1/remember", None, body).with_header("authorization", "Basic abc");
    assert_eq!(
        error_of(&handle(&mut e, &bad)).0,
        "the Authorization header must be `Bearer KEY`"
    );
    assert!(e.calls.is_empty());
    assert_eq!(handle(&mut e, &post("/healthz", None, "")).status, 405);
    let h = handle(&mut e, &Request::new("GET", "/healthz"));
    assert_eq!((h.status, h.body.as_str()), (200, r#"{"status":"ok"}"#));
    let head = handle(&mut e, &Request::new("HEAD", "/healthz"));
    assert_eq!((head.status, head.body.as_str()), (200, ""));
}

#[test]
fn a_scope_outside_the_key_is_refused_naming_the_dimension() {
    let mut e = Recorder::default();
    let body = r#"[{"text":"a","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"user"}},
                   {"text":"b","scope":{"tenant":"acme","user":"u7"},"source":{"kind":"user"}}]"#;
    let r = handle(&mut e, &post("/v1/remember", Some("ek_u42"), body));
    assert_eq!(
        error_of(&r),
        (
            "item 2: permission denied: user 'u7' is outside this store handle's user 'u42'".into(),
            403
        )
    );
    let other = r#"{"budget":100,"scope":{"tenant":"globex"},"query":"q"}"#;
    let r = handle(&mut e, &post("/v1/pack", Some("ek_acme"), other));
    assert_eq!(
        error_of(&r).0,
        "pack request: permission denied: tenant 'globex' is outside this store handle's tenant 'acme'"
    );
    let r = handle(&mut e, &get("/v1/memories?user=u7", "ek_u42"));
    assert_eq!(r.status, 403);
    let r = handle(
        &mut e,
        &post("/v1/sweep", Some("ek_u42"), r#"{"tenant":"acme"}"#),
    );
    assert_eq!(
        error_of(&r).0,
        "sweep request: permission denied: a scope without a user is outside this store handle's user 'u42'"
    );
    assert!(
        e.calls.is_empty() && e.transactions.is_empty(),
        "nothing ran"
    );
}

#[test]
fn a_batch_goes_to_the_policy_whole_and_writes_in_one_transaction() {
    let mut e = Recorder::default();
    let body = r#"[{"text":"a","scope":{"tenant":"acme"},"source":{"kind":"user"}}]"#;
    let r = handle(&mut e, &post("/v1/remember", Some("ek_acme"), body));
    assert_eq!((r.status, r.body.as_str()), (200, r#"[{"ok":1},{"ok":2}]"#));
    assert_eq!(e.calls[0], ("remember".into(), body.into()));
    assert_eq!(e.principals[0].tenant, "acme");
    assert_eq!(e.transactions, ["begin", "commit"]);
    let nd = post(
        "/v1/recall",
        Some("ek_acme"),
        "{\"query\":\"q\",\"scope\":{\"tenant\":\"acme\"}}\n",
    )
    .with_header("content-type", "application/x-ndjson");
    let r = handle(&mut e, &nd);
    assert_eq!(r.content_type, NDJSON);
    assert_eq!(r.body, "{\"ok\":1}\n{\"ok\":2}\n");
    assert_eq!(e.transactions.len(), 2, "a read opens no transaction");
    let empty = handle(&mut e, &post("/v1/classify", Some("ek_acme"), "[]"));
    assert_eq!(empty.body, "[]");
    assert_eq!(e.calls.len(), 2, "an empty batch calls nothing");
    e.answer = Some(Err(PolicyError::Conflict("lost".into()).into()));
    let r = handle(&mut e, &post("/v1/remember", Some("ek_acme"), body));
    assert_eq!(error_of(&r), ("conflict: lost".into(), 409));
    assert_eq!(e.transactions[2..], ["begin", "rollback"]);
}

#[test]
fn field_errors_name_the_item_or_line() {
    let mut e = Recorder::default();
    let body = r#"[{"text":"a","scope":{"tenant":"acme"},"source":{"kind":"user"}},{"text":"b","scope":{"tenant":"acme"}}]"#;
    let r = handle(&mut e, &post("/v1/remember", Some("ek_acme"), body));
    assert_eq!(
        error_of(&r),
        // The contract's own reading refuses the item before the policy runs.
        ("item 2: field `source`: required, but missing".into(), 400)
    );
    let nd = post(
        "/v1/remember",
        Some("ek_acme"),
        "{\"text\":\"a\",\"scope\":{\"tenant\":\"acme\"}}\n\n{}\n",
    )
    .with_header("content-type", "application/x-ndjson");
    assert_eq!(
        error_of(&handle(&mut e, &nd)).0,
        "line 1: field `source`: required, but missing"
    );
    let r = handle(&mut e, &post("/v1/remember", Some("ek_acme"), "{not json"));
    assert_eq!(r.status, 400);
    assert!(error_of(&r).0.starts_with("request body: "), "{}", r.body);
    e.answer = Some(Err(PolicyError::InvalidInput(FieldError {
        index: Some(0),
        field: "text".into(),
        message: "too long".into(),
    })
    .into()));
    let valid = r#"[{"text":"a","scope":{"tenant":"acme"},"source":{"kind":"user"}}]"#;
    let r = handle(&mut e, &post("/v1/remember", Some("ek_acme"), valid));
    assert_eq!(error_of(&r), ("item 1: field `text`: too long".into(), 400));
    assert!(e.calls.len() == 1, "only the valid batch ran");
}

/// A review item that is not found is named (404), and a not-found error
/// about no item keeps its text.
#[test]
fn a_review_item_not_found_is_named_with_its_status() {
    let mut e = Recorder {
        answer: Some(Err(engram_contract::item::not_found(
            1,
            "no pending revision 1 of memory 'm-9'",
        )
        .into())),
        ..Recorder::default()
    };
    let body = r#"[{"id":"m-1","revision":1,"verdict":"approve"},{"id":"m-9","revision":1,"verdict":"reject"}]"#;
    let r = handle(&mut e, &post("/v1/review", Some("ek_acme"), body));
    assert_eq!(
        error_of(&r),
        (
            "item 2: not found: no pending revision 1 of memory 'm-9'".into(),
            404
        )
    );
    e.answer = Some(Err(PolicyError::NotFound("nothing".into()).into()));
    let r = handle(&mut e, &post("/v1/review", Some("ek_acme"), body));
    assert_eq!(error_of(&r), ("not found: nothing".into(), 404));
}

#[test]
fn limits_are_named_with_their_setting() {
    let mut e = Recorder::default();
    let four = format!("[{}]", ["{}"; 4].join(","));
    let r = handle(&mut e, &post("/v1/classify", Some("ek_acme"), &four));
    assert_eq!(
        error_of(&r),
        (
            "batch: 4 items is over the limit of 3 items per request (ENGRAM_MAX_ITEMS)".into(),
            413
        )
    );
    let big = "x".repeat(5000);
    let r = handle(&mut e, &post("/v1/classify", Some("ek_acme"), &big));
    assert_eq!(
        error_of(&r),
        (
            "request body: over the limit of 4096 bytes (ENGRAM_MAX_BODY_BYTES)".into(),
            413
        )
    );
    let declared =
        post("/v1/classify", Some("ek_acme"), "[]").with_header("content-length", "5000");
    assert_eq!(
        error_of(&handle(&mut e, &declared)).0,
        "request body: 5000 bytes is over the limit of 4096 bytes (ENGRAM_MAX_BODY_BYTES)"
    );
    assert!(e.calls.is_empty());
}

#[test]
fn a_key_over_its_rate_is_refused_before_its_body_is_read() {
    let mut e = Recorder::default();
    let k = keys();
    let mut l = limits();
    l.rate = Some(RateLimiter::new(1, 2, "--rate-per-sec, --rate-burst"));
    let api = Api {
        keys: &k,
        limits: &l,
    };
    let t = Duration::from_secs(5);
    let list = get("/v1/memories", "ek_acme");
    assert_eq!(api.handle(&mut e, &list, t).status, 200);
    assert_eq!(api.handle(&mut e, &list, t).status, 200);
    let r = api.handle(&mut e, &post("/v1/classify", Some("ek_acme"), "{bad"), t);
    assert_eq!((r.status, r.retry_after), (429, Some(1)));
    assert!(error_of(&r).0.contains("--rate-per-sec"), "{}", r.body);
    assert_eq!(
        api.handle(&mut e, &list, t + Duration::from_secs(1)).status,
        200
    );
    let mine = get("/v1/memories", "ek_u42");
    assert_eq!(
        api.handle(&mut e, &mine, t).status,
        200,
        "each key its own rate"
    );
}

#[test]
fn list_history_sweep_and_forget_build_the_contracts_inputs() {
    let mut e = Recorder::default();
    handle(
        &mut e,
        &get("/v1/memories?status=active,pending&thread=t%207", "ek_u42"),
    );
    let (op, input) = e.calls[0].clone();
    assert_eq!(op, "list");
    let v: Value = serde_json::from_str(&input).unwrap();
    assert_eq!(v["scope"]["user"], "u42");
    assert_eq!(v["scope"]["thread"], "t 7");
    assert_eq!(v["statuses"], json!(["active", "pending"]));
    let r = handle(&mut e, &get("/v1/memories?status=alive", "ek_acme"));
    assert_eq!(r.status, 400);
    e.answer = Some(Ok(String::new()));
    let r = handle(&mut e, &get("/v1/memories/m-1/history", "ek_acme"));
    assert_eq!(
        error_of(&r),
        ("no memory with id 'm-1' in this key's scope".into(), 404)
    );
    e.answer = Some(Ok("{\"expired\":0}\n".into()));
    let r = handle(&mut e, &post("/v1/sweep", Some("ek_u42"), ""));
    assert_eq!(r.body, "{\"expired\":0}");
    let (_, input) = e.calls.last().cloned().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&input).unwrap()["scope"]["user"],
        "u42"
    );
    e.answer = Some(Ok("{\"deleted\":[]}\n".into()));
    e.transactions.clear();
    let sel = r#"[{"memory_id":"m-1"},{"scope":{"tenant":"acme"},"text":"x"}]"#;
    let r = handle(&mut e, &post("/v1/forget", Some("ek_acme"), sel));
    assert_eq!(r.body, r#"[{"deleted":[]},{"deleted":[]}]"#);
    let forgets = e.calls.iter().filter(|c| c.0 == "forget").count();
    assert_eq!(forgets, 2, "one call per selector, one report each");
    assert_eq!(
        e.transactions,
        ["begin", "commit"],
        "all in one transaction"
    );
    e.answer = Some(Err(PolicyError::Store("disk full".into()).into()));
    let r = handle(&mut e, &post("/v1/forget", Some("ek_acme"), sel));
    assert_eq!(error_of(&r), ("item 1: store: disk full".into(), 500));
    assert_eq!(
        handle(&mut e, &post("/v1/nowhere", Some("ek_acme"), "")).status,
        404
    );
    assert_eq!(handle(&mut e, &get("/v1/remember", "ek_acme")).status, 405);
}

/// The execution-record routes go to their operations whole, after every
/// scope is checked against the key (a scope outside it is a 403 and
/// nothing runs).
#[test]
fn operation_records_go_to_their_operations_after_the_scope_check() {
    let mut e = Recorder::default();
    let record = r#"[{"operation_id":"op_891","scope":{"tenant":"acme","user":"u42"},"tool":"issue_refund","status":"submitted"}]"#;
    let r = handle(
        &mut e,
        &post("/v1/operations/record", Some("ek_u42"), record),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let lookup = r#"[{"operation_id":"op_891","scope":{"tenant":"acme","user":"u42"}}]"#;
    let r = handle(&mut e, &post("/v1/operations/get", Some("ek_u42"), lookup));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        e.calls,
        [
            ("record-operations".to_string(), record.to_string()),
            ("get-operations".to_string(), lookup.to_string())
        ]
    );
    let theirs = r#"[{"operation_id":"op_891","scope":{"tenant":"acme","user":"u7"}}]"#;
    let r = handle(&mut e, &post("/v1/operations/get", Some("ek_u42"), theirs));
    assert_eq!(
        error_of(&r),
        (
            "item 1: permission denied: user 'u7' is outside this store handle's user 'u42'".into(),
            403
        )
    );
    assert_eq!(e.calls.len(), 2, "nothing more ran");
}

#[test]
fn info_is_the_policys_object_and_a_broken_answer_is_a_500() {
    let mut e = Recorder {
        answer: Some(Ok("{\"policy_version\":\"p\"}\n".into())),
        ..Recorder::default()
    };
    let r = handle(&mut e, &get("/v1/info", "ek_acme"));
    assert_eq!(
        (r.status, r.body.as_str()),
        (200, "{\"policy_version\":\"p\"}")
    );
    e.answer = Some(Ok("[]\n".into()));
    let r = handle(&mut e, &get("/v1/info", "ek_acme"));
    assert_eq!(r.status, 500);
}
