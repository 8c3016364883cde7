//! Execution records by operation id (issue 31, seed 004: whether a tool
//! took effect is looked up by its operation id, never guessed by
//! similarity) through the `engram operations` command line and the Rust
//! library, on the real component: record, duplicate, update, a changed
//! final status refused with nothing written, exact lookup that does not
//! cross users or tenants, and records that never reach recall or list.

use engram_host::bindings as w;
use engram_tests::{cli, dump_where, engram, principal, temp_db};
use serde_json::{json, Value};

const NOW: &str = "2026-08-05T14:18:22+08:00";

fn lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn refund(status: &str) -> Value {
    json!({"operation_id": "op_891", "scope": {"tenant": "acme", "user": "u42", "thread": "t1"},
        "tool": "issue_refund", "status": status, "idempotency_key": "payment-42-order-991"})
}

fn jsonl(items: &[Value]) -> String {
    items.iter().map(|v| format!("{v}\n")).collect()
}

fn record(db: &str, items: &[Value]) -> Result<String, engram_cli::cli::Failure> {
    cli(
        &["operations", "record", "--db", db, "--now", NOW],
        &jsonl(items),
    )
}

fn get(db: &str, items: &[Value]) -> Vec<Value> {
    lines(
        &cli(
            &["operations", "get", "--db", db, "--now", NOW],
            &jsonl(items),
        )
        .expect("operations get"),
    )
}

fn lookup(id: &str, scope: Value) -> Value {
    json!({"operation_id": id, "scope": scope})
}

#[test]
fn the_cli_records_by_operation_id_and_looks_up_exactly() {
    let db = temp_db("operations-cli");
    let out = record(&db, &[refund("submitted")]).expect("record");
    assert_eq!(
        out,
        "{\"action\":\"created\",\"operation_id\":\"op_891\",\"revision\":1,\"status\":\"submitted\"}\n"
    );
    // A retry of the same write: a duplicate, nothing appended.
    let mut again = refund("submitted");
    again["detail"] = json!("sent again after a timeout");
    assert_eq!(
        lines(&record(&db, &[again]).expect("duplicate"))[0],
        json!({"action": "duplicate", "operation_id": "op_891", "revision": 1, "status": "submitted"})
    );
    let mut done = refund("succeeded");
    done["result_ref"] = json!("artifact://tool-results/op_891.json");
    done["result_digest"] = json!("sha256:9f2c");
    done["at"] = json!("2026-08-05T06:20:00Z");
    // Another thread of the same user: the same operation.
    done["scope"]["thread"] = json!("t2");
    assert_eq!(
        lines(&record(&db, std::slice::from_ref(&done)).expect("update"))[0],
        json!({"action": "updated", "operation_id": "op_891", "revision": 2, "status": "succeeded"})
    );

    // A final status never changes: the line and the field are named, the
    // exit is non-zero, and nothing of the input is written (one
    // transaction: the good line before it neither).
    let before = dump_where(&db, "1");
    let mut other = refund("submitted");
    other["operation_id"] = json!("op_892");
    let err = record(&db, &[other, refund("failed")]).expect_err("refused");
    assert_ne!(err.code, 0);
    assert_eq!(
        err.message,
        "line 2: field `status`: operation op_891 already succeeded; a final status does not change"
    );
    let mut tool = done.clone();
    tool["tool"] = json!("issue_payment");
    let err = record(&db, &[tool]).expect_err("refused");
    assert!(
        err.message.starts_with(
            "line 1: field `tool`: operation op_891 was recorded for tool 'issue_refund'"
        ),
        "{}",
        err.message
    );
    assert_eq!(dump_where(&db, "1"), before, "nothing written");

    // The lookup: the latest record beside found, revision and history.
    let u42 = json!({"tenant": "acme", "user": "u42"});
    let got = get(
        &db,
        &[lookup("op_891", u42.clone()), lookup("op_892", u42.clone())],
    );
    assert_eq!(
        got[0],
        json!({
            "at": "2026-08-05T06:20:00Z", "detail": null, "found": true,
            "history": [
                {"at": "2026-08-05T14:18:22+08:00", "status": "submitted"},
                {"at": "2026-08-05T06:20:00Z", "status": "succeeded"}
            ],
            "idempotency_key": "payment-42-order-991", "operation_id": "op_891",
            "result_digest": "sha256:9f2c", "result_ref": "artifact://tool-results/op_891.json",
            "revision": 2,
            "scope": {"agent": null, "project": null, "tenant": "acme", "thread": "t2", "user": "u42"},
            "status": "succeeded", "tool": "issue_refund"
        })
    );
    let not_found = "{\"found\":false,\"history\":[],\"operation_id\":\"op_892\",\"revision\":0}";
    assert_eq!(got[1].to_string(), not_found);

    // Another user's and another tenant's lookups find nothing; neither
    // does a near id.
    let elsewhere = get(
        &db,
        &[
            lookup("op_891", json!({"tenant": "acme", "user": "u7"})),
            lookup("op_891", json!({"tenant": "beta", "user": "u42"})),
            lookup("op_89", u42.clone()),
            lookup("op 891", u42.clone()),
        ],
    );
    for s in &elsewhere {
        assert_eq!(
            (&s["found"], &s["revision"]),
            (&json!(false), &json!(0)),
            "{s}"
        );
    }

    // Records are not memories: a recall for the tool, the id or the key
    // returns nothing, and nothing is listed.
    let q = json!({"id": "q", "query": "issue_refund op_891 payment-42-order-991 succeeded refund",
        "scope": {"tenant": "acme", "user": "u42", "thread": "t1"}, "explain": true});
    let recalled =
        lines(&cli(&["recall", "--db", &db, "--now", NOW], &q.to_string()).expect("recall"));
    assert_eq!(recalled[0]["results"], json!([]), "{}", recalled[0]);
    let listed = cli(&["list", "--db", &db, "--tenant", "acme"], "").expect("list");
    assert!(listed.is_empty(), "{listed}");
}

#[test]
fn a_pinned_principal_records_and_reads_only_its_own_operations() {
    let db = temp_db("operations-pinned");
    let pinned = [
        "operations",
        "record",
        "--db",
        &db,
        "--now",
        NOW,
        "--tenant",
        "acme",
        "--user",
        "u42",
    ];
    cli(&pinned, &jsonl(&[refund("submitted")])).expect("own scope");
    let mut theirs = refund("submitted");
    theirs["scope"]["user"] = json!("u7");
    let err = cli(&pinned, &jsonl(&[theirs])).expect_err("another user");
    assert!(
        err.message.contains("u7") && err.message.contains("u42"),
        "{}",
        err.message
    );
    let as_u7: [&str; 10] = [
        "operations",
        "get",
        "--db",
        &db,
        "--now",
        NOW,
        "--tenant",
        "acme",
        "--user",
        "u7",
    ];
    let read = cli(
        &as_u7,
        &lookup("op_891", json!({"tenant": "acme", "user": "u7"})).to_string(),
    )
    .expect("u7 reads its own scope");
    assert_eq!(lines(&read)[0]["found"], json!(false));
    let err = cli(
        &as_u7,
        &lookup("op_891", json!({"tenant": "acme", "user": "u42"})).to_string(),
    )
    .expect_err("u7 may not look in u42's scope");
    assert!(err.message.contains("u42"), "{}", err.message);
    // A bad line is named with its field.
    let err = cli(
        &["operations", "get", "--db", &db, "--now", NOW],
        "\n{\"operation_id\":\"op_891\",\"scope\":{}}\n",
    )
    .expect_err("no tenant");
    assert!(
        err.message.starts_with("line 2: field `scope.tenant`"),
        "{}",
        err.message
    );
}

fn typed(status: w::OperationStatus) -> w::OperationRecord {
    w::OperationRecord {
        operation_id: "deploy-7".into(),
        scope: engram_tests::scope("acme", Some("u42")),
        tool: "production_deploy".into(),
        status,
        idempotency_key: Some("release-2.8".into()),
        result_ref: None,
        result_digest: None,
        detail: None,
        at: None,
    }
}

#[test]
fn the_library_records_and_gets_operations() {
    use w::OperationAction::*;
    use w::OperationStatus::*;
    let mut e = engram();
    let acme = principal("acme");
    let receipts = e
        .record_operations(
            acme.clone(),
            vec![typed(Submitted), typed(Submitted), typed(Unknown)],
        )
        .expect("record");
    assert_eq!(
        receipts
            .iter()
            .map(|r| (r.action, r.revision, r.status))
            .collect::<Vec<_>>(),
        [
            (Created, 1, Submitted),
            (Duplicate, 1, Submitted),
            (Updated, 2, Unknown)
        ]
    );
    // Seed 000 §十一: the deployment's outcome was lost; it is checked, then
    // recorded once known.
    let mut done = typed(Succeeded);
    done.detail = Some("confirmed live by the release dashboard".into());
    assert_eq!(
        e.record_operations(acme.clone(), vec![done])
            .expect("update")[0]
            .revision,
        3
    );
    let refused = e
        .record_operations(acme.clone(), vec![typed(Failed)])
        .expect_err("final");
    match refused {
        engram_host::Error::Policy(w::Error::InvalidInput(f)) => {
            assert_eq!((f.index, f.field.as_str()), (Some(0), "status"))
        }
        other => panic!("{other:?}"),
    }
    let lookup = |id: &str, user: &str| w::OperationLookup {
        operation_id: id.into(),
        scope: engram_tests::scope("acme", Some(user)),
    };
    let got = e
        .get_operations(
            acme.clone(),
            vec![lookup("deploy-7", "u42"), lookup("deploy-7", "u7")],
        )
        .expect("get");
    assert!(got[0].found);
    assert_eq!(got[0].revision, 3);
    assert_eq!(
        got[0].history.iter().map(|h| h.status).collect::<Vec<_>>(),
        [Submitted, Unknown, Succeeded]
    );
    let last = got[0].record.as_ref().expect("record");
    assert_eq!(
        (last.status, last.detail.as_deref()),
        (Succeeded, Some("confirmed live by the release dashboard"))
    );
    assert!(!got[1].found && got[1].record.is_none() && got[1].history.is_empty());
    // A principal of another user cannot look into u42's scope.
    let u7 = w::Principal {
        tenant: "acme".into(),
        user: Some("u7".into()),
        project: None,
    };
    assert!(matches!(
        e.get_operations(u7, vec![lookup("deploy-7", "u42")]),
        Err(engram_host::Error::Policy(w::Error::PermissionDenied(_)))
    ));
    // And the JSON contract answers the same.
    let text = e
        .call_json(
            acme,
            "get-operations",
            "{\"operation_id\":\"deploy-7\",\"scope\":{\"tenant\":\"acme\",\"user\":\"u42\"}}",
        )
        .expect("json");
    let v: Value = serde_json::from_str(text.trim()).expect("one line");
    assert_eq!(
        (v["status"].as_str(), v["revision"].as_u64()),
        (Some("succeeded"), Some(3))
    );
}
