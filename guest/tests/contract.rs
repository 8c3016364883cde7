//! The JSON contract (`engram_contract::ops`) over the real policy and the
//! in-memory store: what every host's transport hands the component.

use engram_contract::types::Error;
use engram_guest::contract::Operations;
use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::FixedClock;
use engram_guest::testing::memstore::MemStore;
use serde_json::Value;

struct World {
    store: MemStore,
    clock: FixedClock,
    policy: Policy,
}

impl World {
    fn new() -> Self {
        World {
            store: MemStore::for_tenant("acme"),
            clock: FixedClock(engram_contract::time::parse("2026-08-01T10:00:00+08:00").unwrap()),
            policy: Policy::default(),
        }
    }

    fn call(&self, op: &str, input: &str) -> Result<String, Error> {
        let ctx = Ctx {
            store: &self.store,
            clock: &self.clock,
            policy: &self.policy,
        };
        engram_contract::call(&Operations(&ctx), op, input)
    }

    fn lines(&self, op: &str, input: &str) -> Vec<Value> {
        self.call(op, input)
            .unwrap_or_else(|e| panic!("{op}: {e:?}"))
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    }
}

fn invalid(e: Error) -> (Option<u32>, String, String) {
    match e {
        Error::InvalidInput(f) => (f.index, f.field, f.message),
        other => panic!("invalid input expected, got {other:?}"),
    }
}

const NAME: &str = r#"{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"user","ref":"evt-1001"}}"#;
const DB: &str = r#"{"id":"c2","text":"payment-service 使用 PostgreSQL 15","scope":{"tenant":"acme"},"source":{"kind":"system","ref":"cmdb#88"}}"#;

#[test]
fn remember_list_recall_and_forget_speak_the_cli_lines() {
    let w = World::new();
    let decisions = w.lines("remember", &format!("{NAME}\n\n{DB}\n"));
    assert_eq!(decisions.len(), 2);
    assert_eq!(decisions[0]["id"], "c1");
    assert_eq!(decisions[0]["disposition"], "active");
    assert_eq!(decisions[0]["gates"]["sensitivity"]["pass"], true);
    let id = decisions[1]["memory_id"].as_str().unwrap().to_string();

    let listed = w.lines(
        "list",
        r#"{"scope":{"tenant":"acme"},"statuses":["active"]}"#,
    );
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(listed.iter().all(|m| m.get("embedding").is_none()));

    let recalled = w.lines(
        "recall",
        r#"[{"id":"q1","query":"payment-service 用什么数据库？","scope":{"tenant":"acme"},"k":3}]"#,
    );
    assert_eq!(recalled[0]["id"], "q1");
    assert_eq!(recalled[0]["results"][0]["memory_id"], id.as_str());
    assert!(recalled[0]["results"][0]["admission"]["admit"]
        .as_bool()
        .unwrap());

    let history = w.lines("history", &format!(r#"{{"id":"{id}"}}"#));
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["observed_at"], "2026-08-01T10:00:00+08:00");

    let report = w.lines("forget", &format!(r#"{{"memory_id":"{id}"}}"#));
    assert_eq!(report.len(), 1);
    assert_eq!(report[0]["deleted"][0], id.as_str());
    assert!(matches!(
        w.call("history", &format!(r#"{{"id":"{id}"}}"#)),
        Err(Error::NotFound(_))
    ));
    assert_eq!(w.lines("info", "")[0]["package_version"], "0.1.0");
}

#[test]
fn an_input_error_names_the_line_or_position_and_the_field() {
    let w = World::new();
    let bad = r#"{"text":"x","scope":{"tenant":"acme"},"source":{"kind":"bogus"}}"#;
    let (index, field, message) =
        invalid(w.call("remember", &format!("{NAME}\n\n{bad}")).unwrap_err());
    assert_eq!((index, field.as_str()), (Some(2), "source.kind"));
    assert!(
        message.starts_with("unknown value \"bogus\"; expected one of \"user\""),
        "{message}"
    );
    // A field the operation does not read is refused, named, not ignored.
    let labelled = r#"{"text":"x","scope":{"tenant":"acme"},"source":{"kind":"user"},"label":"l"}"#;
    let (index, field, message) = invalid(w.call("remember", labelled).unwrap_err());
    assert_eq!((index, field.as_str()), (Some(0), "label"));
    assert!(
        message.starts_with("unknown field; the fields here are `id`, `text`"),
        "{message}"
    );

    let (index, field, message) = invalid(
        w.call(
            "recall",
            r#"[{"query":"x","scope":{"tenant":"acme"}}, null]"#,
        )
        .unwrap_err(),
    );
    assert_eq!((index, field.as_str()), (Some(1), ""));
    assert_eq!(message, "expected a JSON object, found null");

    let (index, field, _) = invalid(w.call("pack", r#"{"budget":"many"}"#).unwrap_err());
    assert_eq!((index, field.as_str()), (Some(0), "budget"));
    let (_, field, message) = invalid(
        w.call("forget", r#"{"scope":{"tenant":"acme"},"subject":"s"}"#)
            .unwrap_err(),
    );
    assert_eq!(
        (field.as_str(), message.as_str()),
        ("predicate", "a key selector needs subject and predicate")
    );
    assert!(matches!(w.call("bogus", ""), Err(Error::Unsupported(m)) if m.contains("remember")));
    // Nothing was written by the failed calls.
    assert!(w.lines("list", r#"{"scope":{"tenant":"acme"}}"#).is_empty());
}

#[test]
fn a_policy_error_points_at_the_line_it_is_about() {
    let w = World::new();
    let long = serde_json::json!({
        "text": "长".repeat(20_001),
        "scope": {"tenant": "acme"},
        "source": {"kind": "user"},
    });
    let (index, field, message) = invalid(
        w.call("remember", &format!("{NAME}\n\n\n{long}\n"))
            .unwrap_err(),
    );
    assert_eq!((index, field.as_str()), (Some(3), "text"));
    assert!(message.contains("max_text_chars = 20000"), "{message}");
}

#[test]
fn import_reads_the_head_and_the_candidate_and_answers_both_ids() {
    let w = World::new();
    let receipts = w.lines(
        "import",
        r#"{"external_id":"D1:3","kind":"episodic","text":"Met the auditors on 2026-07-30.","scope":{"tenant":"acme","user":"u1"},"source":{"kind":"user","ref":"D1:3"},"occurred_at":"2026-07-30T09:00:00Z"}"#,
    );
    assert_eq!(receipts[0]["external_id"], "D1:3");
    assert_eq!(receipts[0]["id"], receipts[0]["memory_id"]);
    let (index, field, _) = invalid(
        w.call("import", r#"{"external_id":"x","kind":"semantic","text":"t","scope":{"tenant":"acme"},"source":{}}"#)
            .unwrap_err(),
    );
    assert_eq!((index, field.as_str()), (Some(0), "source.kind"));
}

#[test]
fn sweep_takes_a_wrapped_or_a_bare_scope() {
    let w = World::new();
    let wrapped = w.lines("sweep", r#"{"scope":{"tenant":"acme"}}"#);
    let bare = w.lines("sweep", r#"{"tenant":"acme"}"#);
    assert_eq!(wrapped, bare);
    assert_eq!(wrapped[0]["examined"], 0);
}
