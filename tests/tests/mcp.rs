//! `engram mcp` through a real MCP client from another ecosystem: the
//! Python `mcp` package (in a provisioned virtualenv) spawns the server,
//! lists its nine tools and calls each one; the remember → recall → forget
//! → recall round trip must match what the CLI does on the same input,
//! review_memories approves one pending memory and rejects another, and
//! record_operation / get_operation record a tool's side effect by its
//! operation id and look it up exactly, within the server's principal.

use std::process::Command;

use engram_tests::provision::{python_venv, run};
use engram_tests::*;
use serde_json::{json, Value};

const NOW: &str = "2026-08-01T10:00:00+08:00";
/// The MCP client library, pinned.
const REQUIREMENTS: &str = "mcp==1.30.0\n";

/// Run tests/mcp/client.py against `engram mcp` and return its report.
fn mcp_session(db: &str) -> Value {
    let python = python_venv("mcp", REQUIREMENTS);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/mcp/client.py");
    let exe = env!("CARGO_BIN_EXE_engram-cli");
    let cache = std::env::temp_dir().join("engram-tests-cache");
    let out = run(
        Command::new(python)
            .args([script, exe, db, "acme", "u1", "--now", NOW])
            .env("ENGRAM_CACHE_DIR", cache),
        "the Python MCP client session",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn an_mcp_client_lists_nine_tools_and_a_round_trip_matches_the_cli() {
    // Another user of the tenant records an operation in the same database
    // first: the server, bound to u1, never finds it.
    let session_db = temp_db("mcp-session");
    let theirs = json!({"operation_id": "op_u2", "scope": {"tenant": "acme", "user": "u2"},
        "tool": "issue_refund", "status": "succeeded"});
    cli(
        &["operations", "record", "--db", &session_db, "--now", NOW],
        &theirs.to_string(),
    )
    .expect("u2's operation");
    let report = mcp_session(&session_db);
    assert_eq!(report["server"], "engram");

    let tools = report["tools"].as_object().expect("tools");
    let mut names: Vec<&str> = tools.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "forget",
            "get_operation",
            "list_memories",
            "memory_history",
            "pack_context",
            "recall",
            "record_operation",
            "remember",
            "review_memories"
        ]
    );
    for (name, t) in tools {
        let description = t["description"].as_str().unwrap_or("");
        assert!(
            description.len() > 60,
            "{name}: a description a model can act on"
        );
        assert_eq!(t["schema"]["type"], "object", "{name}: {}", t["schema"]);
    }
    // The schemas are the contract's, with the principal's scope taken out.
    assert_eq!(tools["recall"]["schema"]["required"], json!(["query"]));
    assert_eq!(tools["remember"]["schema"]["required"], json!(["text"]));
    assert_eq!(tools["memory_history"]["schema"]["required"], json!(["id"]));
    let scope = &tools["remember"]["schema"]["properties"]["scope"]["properties"];
    assert!(
        scope.get("tenant").is_none() && scope.get("thread").is_some(),
        "{scope}"
    );
    assert_eq!(
        tools["review_memories"]["schema"]["required"],
        json!(["items"])
    );
    assert_eq!(
        tools["record_operation"]["schema"]["required"],
        json!(["operation_id", "tool", "status"])
    );
    assert_eq!(
        tools["get_operation"]["schema"]["required"],
        json!(["operation_id"])
    );

    // The same steps through the CLI, on a database of its own.
    let db = temp_db("mcp-cli");
    let principal = [
        "--db", &db, "--now", NOW, "--tenant", "acme", "--user", "u1",
    ];
    let with = |cmd: &'static str| [&[cmd][..], &principal[..]].concat();
    let candidate = json!({
        "text": "I prefer green tea in the morning.",
        "scope": {"tenant": "acme", "user": "u1"},
        "source": {"kind": "user", "ref": "evt-1"},
        "kind_hint": "semantic", "subject": "user:u1", "predicate": "morning_drink", "object": "green tea",
    });
    let cli_decision: Value = serde_json::from_str(
        cli(&with("remember"), &candidate.to_string())
            .expect("remember")
            .trim(),
    )
    .expect("decision");
    let query = json!({"query": "what does the user drink in the morning",
                       "scope": {"tenant": "acme", "user": "u1"}, "explain": true});
    let cli_recall: Value = serde_json::from_str(
        cli(&with("recall"), &query.to_string())
            .expect("recall")
            .trim(),
    )
    .expect("recall");

    let remembered = &report["remember"];
    assert_eq!(remembered["is_error"], false, "{remembered}");
    for field in [
        "kind",
        "disposition",
        "action",
        "reasons",
        "gates",
        "confidence",
        "sensitivity",
    ] {
        assert_eq!(
            remembered["data"][field], cli_decision[field],
            "remember {field}"
        );
    }
    let id = remembered["data"]["memory_id"].as_str().expect("memory id");

    let before = &report["recall_before"]["data"]["results"];
    let cli_before = &cli_recall["results"];
    assert_eq!(
        before.as_array().map(Vec::len),
        cli_before.as_array().map(Vec::len)
    );
    assert_eq!(before[0]["memory_id"], id);
    for field in ["text", "kind", "score", "features", "admission"] {
        assert_eq!(
            before[0][field], cli_before[0][field],
            "recall {field}: the explanation too"
        );
    }

    let listed = &report["list"]["data"]["items"];
    assert_eq!(listed[0]["id"], id, "{listed}");
    assert_eq!(report["history"]["data"]["items"][0]["id"], id);
    let packed = report["pack"]["data"]["text"].as_str().unwrap_or("");
    assert!(packed.contains("green tea"), "{packed}");

    let cli_id = cli_decision["memory_id"].as_str().expect("cli memory id");
    let cli_forget: Value = serde_json::from_str(
        cli(&with("forget"), &json!({"memory_id": cli_id}).to_string())
            .expect("forget")
            .trim(),
    )
    .expect("forget report");
    assert_eq!(report["forget"]["data"]["deleted"], json!([id]));
    assert_eq!(
        report["forget"]["data"]["tombstones"],
        cli_forget["tombstones"]
    );
    let cli_after: Value = serde_json::from_str(
        cli(&with("recall"), &query.to_string())
            .expect("recall")
            .trim(),
    )
    .expect("recall");
    assert_eq!(report["recall_after"]["data"]["results"], json!([]));
    assert_eq!(cli_after["results"], json!([]));

    // A call the policy cannot act on is a tool error the model can read.
    assert_eq!(report["bad_call"]["is_error"], true);
    assert!(
        report["bad_call"]["data"]
            .as_str()
            .unwrap_or("")
            .contains("memory_id"),
        "{}",
        report["bad_call"]
    );

    // Review: two inferences wait; one is approved, the other rejected.
    for d in report["pending"].as_array().expect("two remembers") {
        assert_eq!(d["data"]["disposition"], "pending", "{d}");
    }
    let waiting = report["list_pending"]["data"]["items"]
        .as_array()
        .expect("pending memories");
    assert_eq!(waiting.len(), 2, "{}", report["list_pending"]);
    assert_eq!(report["bad_review"]["is_error"], true);
    assert!(
        report["bad_review"]["data"]
            .as_str()
            .unwrap_or("")
            .contains("verdict"),
        "a bad verdict is named: {}",
        report["bad_review"]
    );
    let review = &report["review"];
    assert_eq!(review["is_error"], false, "{review}");
    let outcomes = review["data"]["items"].as_array().expect("outcomes");
    assert_eq!(outcomes.len(), 2, "{review}");
    let verdicts: Vec<&str> = outcomes
        .iter()
        .map(|o| o["verdict"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(verdicts, ["approve", "reject"]);
    let approved = outcomes[0]["reviewed"]["id"].as_str().expect("id");
    let rejected = outcomes[1]["reviewed"]["id"].as_str().expect("id");
    assert_eq!(outcomes[0]["approved_as"]["revision"], 2, "{review}");
    let after = report["list_after_review"]["data"]["items"]
        .as_array()
        .expect("listed");
    let status_of = |id: &str| {
        after
            .iter()
            .find(|m| m["id"] == id)
            .map(|m| (m["status"].clone(), m["revision"].clone()))
    };
    assert_eq!(status_of(approved), Some((json!("active"), json!(2))));
    assert_eq!(status_of(rejected), Some((json!("retracted"), json!(1))));
    let approved_memory = after
        .iter()
        .find(|m| m["id"] == approved)
        .expect("approved");
    assert_eq!(approved_memory["source"]["ref"], "mcp:u1");

    // Execution records: created, a duplicate, updated; a changed final
    // status is a tool error naming the field; the lookup is exact and
    // stays within the server's principal; recall never returns a record.
    let receipt = |step: &str| {
        let r = &report[step];
        assert_eq!(r["is_error"], false, "{step}: {r}");
        (
            r["data"]["action"].clone(),
            r["data"]["revision"].clone(),
            r["data"]["status"].clone(),
        )
    };
    assert_eq!(
        receipt("op_submitted"),
        (json!("created"), json!(1), json!("submitted"))
    );
    assert_eq!(
        receipt("op_duplicate"),
        (json!("duplicate"), json!(1), json!("submitted"))
    );
    assert_eq!(
        receipt("op_succeeded"),
        (json!("updated"), json!(2), json!("succeeded"))
    );
    assert_eq!(report["op_refused"]["is_error"], true);
    assert_eq!(
        report["op_refused"]["data"],
        "field `status`: operation op_891 already succeeded; a final status does not change"
    );
    let got = &report["op_get"]["data"];
    assert_eq!(
        (&got["found"], &got["revision"], &got["status"]),
        (&json!(true), &json!(2), &json!("succeeded"))
    );
    assert_eq!(
        got["scope"],
        json!({"agent": null, "project": null, "tenant": "acme", "thread": "t1", "user": "u1"})
    );
    assert_eq!(got["result_ref"], "artifact://tool-results/op_891.json");
    assert_eq!(got["idempotency_key"], "payment-42-order-991");
    for step in ["op_get_other_user", "op_get_unknown"] {
        assert_eq!(
            report[step]["data"]["found"], false,
            "{step}: {}",
            report[step]
        );
    }
    assert_eq!(report["op_recall"]["data"]["results"], json!([]));

    // `remember` without a `source` is the agent speaking, never the user:
    // an unverified inference, held pending.
    let unsourced = &report["remember_unsourced"];
    assert_eq!(unsourced["is_error"], false, "{unsourced}");
    assert_eq!(unsourced["data"]["disposition"], "pending", "{unsourced}");
    assert!(
        unsourced["data"]["reasons"]
            .to_string()
            .contains("unverified inference"),
        "{unsourced}"
    );
    let pending = report["list_unsourced"]["data"]["items"]
        .as_array()
        .expect("pending memories");
    let stored = pending
        .iter()
        .find(|m| m["text"] == "The user's favourite airline is KLM")
        .unwrap_or_else(|| panic!("the unsourced memory is pending: {pending:?}"));
    assert_eq!(stored["source"]["kind"], "agent", "{stored}");
}

/// The `remember` tool says what `source` defaults to and what each source
/// kind means for trust, in its description and in its schema, with the
/// text the contract's schema gives each kind (`wit/types.wit`).
#[test]
fn the_remember_tool_defaults_source_to_the_agent_and_explains_each_kind() {
    let report = mcp_session(&temp_db("mcp-source"));
    let remember = &report["tools"]["remember"];
    let schema = &remember["schema"];
    let source = &schema["properties"]["source"];
    assert_eq!(source["default"], json!({"kind": "agent"}), "{source}");
    assert!(
        !schema["required"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("source"))),
        "{schema}"
    );
    let kinds = source["properties"]["kind"]["oneOf"]
        .as_array()
        .expect("source.kind: one of the kinds");
    let names: Vec<&str> = kinds.iter().filter_map(|k| k["const"].as_str()).collect();
    assert_eq!(
        names,
        ["user", "system", "document", "tool", "behavior", "agent"]
    );
    let description = remember["description"].as_str().unwrap_or("");
    let source_description = source["description"].as_str().unwrap_or("");
    for text in [description, source_description] {
        assert!(text.contains(r#"{"kind":"agent"}"#), "{text}");
        for k in kinds {
            // Each kind with its own description, on one line.
            let said: Vec<&str> = k["description"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            let expected = format!(
                "`{}`: {}",
                k["const"].as_str().unwrap_or(""),
                said.join(" ")
            );
            let expected = expected.trim_end_matches('.');
            assert!(said.len() > 5, "{k}: a description that says something");
            assert!(text.contains(expected), "{expected} in {text}");
        }
    }
    for (kind, words) in [
        ("user", "user's own words"),
        ("agent", "pending"),
        ("tool", "untrusted for instructions"),
        ("document", "untrusted for instructions"),
        ("system", "system of record"),
        ("behavior", "behaviour"),
    ] {
        let k = kinds.iter().find(|k| k["const"] == kind).expect("the kind");
        let said: Vec<&str> = k["description"]
            .as_str()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        assert!(said.join(" ").contains(words), "{kind}: {k}");
    }
}
