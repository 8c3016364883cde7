//! The `engram` command line (SPEC §4), run in-process.

use engram_tests::{cli, temp_db};
use serde_json::Value;

const NOW: &str = "2026-08-01T10:00:00+08:00";

fn lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn a_bad_line_names_line_and_field_exits_non_zero_and_writes_nothing() {
    let db = temp_db("bad-line");
    let input = concat!(
        r#"{"external_id":"a","kind":"episodic","text":"first good line","scope":{"tenant":"t"},"source":{"kind":"user"}}"#,
        "\n",
        "\n",
        r#"{"external_id":"b","kind":"episodic","text":"bad","scope":{},"source":{"kind":"user"}}"#,
        "\n",
    );
    let err = cli(&["import", "--db", &db, "--now", NOW], input).expect_err("must fail");
    assert_ne!(err.code, 0);
    assert!(err.message.contains("line 3"), "{}", err.message);
    assert!(err.message.contains("scope"), "{}", err.message);
    let listed = cli(&["list", "--db", &db, "--tenant", "t"], "").expect("list");
    assert!(listed.trim().is_empty(), "half-written: {listed}");
}

#[test]
fn a_policy_error_rolls_back_the_whole_input() {
    let db = temp_db("rollback");
    let input = concat!(
        r#"{"external_id":"a","kind":"episodic","text":"good line","scope":{"tenant":"t"},"source":{"kind":"user"}}"#,
        "\n",
        r#"{"external_id":"b","kind":"episodic","text":"   ","scope":{"tenant":"t"},"source":{"kind":"user"}}"#,
        "\n",
    );
    let err = cli(&["import", "--db", &db, "--now", NOW], input).expect_err("must fail");
    assert!(
        err.message.contains("line 2") && err.message.contains("text"),
        "{}",
        err.message
    );
    assert!(cli(&["list", "--db", &db, "--tenant", "t"], "")
        .unwrap()
        .trim()
        .is_empty());
}

#[test]
fn import_recall_list_history_round_trip() {
    let db = temp_db("round-trip");
    let input = concat!(
        r#"{"external_id":"D1:1","kind":"episodic","text":"Caroline: I went to the LGBTQ support group yesterday","scope":{"tenant":"locomo","user":"conv-1"},"source":{"kind":"user","ref":"s1"},"occurred_at":"2023-05-08T13:56:00Z","entities":{"speaker":"Caroline"}}"#,
        "\n",
        r#"{"external_id":"D1:2","kind":"episodic","text":"Melanie: I painted a sunrise last week","scope":{"tenant":"locomo","user":"conv-1"},"source":{"kind":"user","ref":"s1"},"occurred_at":"2023-05-08T13:57:00Z","entities":{"speaker":"Melanie"}}"#,
        "\n",
    );
    let out = lines(&cli(&["import", "--db", &db, "--now", NOW], input).expect("import"));
    assert_eq!(out.len(), 2);
    assert_eq!(out[0]["external_id"], "D1:1");
    let id = out[0]["id"].as_str().expect("id").to_string();

    let q = r#"{"id":"q1","query":"When did Caroline go to the support group?","scope":{"tenant":"locomo","user":"conv-1"},"k":5,"as_of":"2023-06-01T00:00:00Z"}"#;
    let res = lines(&cli(&["recall", "--db", &db, "--now", NOW], q).expect("recall"));
    assert_eq!(res[0]["id"], "q1");
    let first = &res[0]["results"][0];
    assert_eq!(first["external_id"], "D1:1");
    for key in [
        "memory_id",
        "kind",
        "text",
        "score",
        "features",
        "admission",
    ] {
        assert!(!first[key].is_null(), "missing {key}");
    }
    assert_eq!(first["admission"]["admit"], true);

    let hist = lines(&cli(&["history", "--db", &db, "--id", &id], "").expect("history"));
    assert_eq!(hist.len(), 1);
    assert_eq!(hist[0]["source"]["ref"], "s1");
    let listed = lines(
        &cli(
            &[
                "list", "--db", &db, "--tenant", "locomo", "--user", "conv-1",
            ],
            "",
        )
        .expect("list"),
    );
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|m| m["status"] == "active"));
}

#[test]
fn classify_emits_the_decision_line_of_the_contract() {
    let db = temp_db("classify");
    let input = r#"{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","project":null,"thread":"t7"},"source":{"kind":"user","ref":"evt-1001"},"observed_at":"2026-08-01T10:00:00+08:00"}"#;
    let out = lines(&cli(&["classify", "--db", &db, "--now", NOW], input).expect("classify"));
    let d = &out[0];
    assert_eq!(d["id"], "c1");
    for key in ["kind", "disposition", "reasons", "gates", "action"] {
        assert!(!d[key].is_null(), "missing {key}");
    }
    for gate in [
        "value",
        "confidence",
        "sensitivity",
        "stability",
        "conflict",
        "permission",
    ] {
        assert!(d["gates"][gate]["pass"].is_boolean(), "gate {gate}");
    }
    assert_eq!(d["action"], "none");
}

#[test]
fn info_lists_imports_and_exports() {
    let out = cli(&["info"], "").expect("info");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["wit_package"], "engram:memory@0.1.0");
    assert!(v["component"]["bytes"].as_u64().unwrap() > 1000);
    assert!(v["imports"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i.as_str().unwrap().starts_with("engram:memory/store")));
}

#[test]
fn a_bad_now_is_a_clear_error() {
    let err =
        cli(&["recall", "--db", ":memory:", "--now", "yesterday"], "").expect_err("bad --now");
    assert!(err.message.contains("--now"), "{}", err.message);
}
