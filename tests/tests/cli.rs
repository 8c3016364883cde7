//! The `engram` command line (SPEC §4), run in-process.

use engram_tests::{cli, pending_candidates, temp_db};
use serde_json::{json, Value};

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

/// `engram review` approves one pending memory and rejects another in one
/// transaction; `list` shows the approval as a new active revision with the
/// reviewer as its source and the rejection as retracted; a bad line names
/// its line and field and writes nothing.
#[test]
fn review_approves_one_pending_memory_and_rejects_another() {
    let db = temp_db("review");
    let principal = [
        "--db", &db, "--now", NOW, "--tenant", "acme", "--user", "u1",
    ];
    let with = |cmd: &'static str| [&[cmd][..], &principal[..]].concat();
    let input: Vec<String> = pending_candidates("acme", "u1")
        .iter()
        .map(Value::to_string)
        .collect();
    let decisions = lines(&cli(&with("remember"), &input.join("\n")).expect("remember"));
    let ids: Vec<&str> = decisions
        .iter()
        .map(|d| {
            assert_eq!(d["disposition"], "pending", "{d}");
            d["memory_id"].as_str().expect("memory id")
        })
        .collect();
    let (approved, rejected) = (ids[0], ids[1]);
    let statuses = |db: &str| -> Vec<(String, String, u64)> {
        let mut v: Vec<_> =
            lines(&cli(&["list", "--db", db, "--tenant", "acme"], "").expect("list"))
                .iter()
                .map(|m| {
                    (
                        m["id"].as_str().unwrap_or_default().to_string(),
                        m["status"].as_str().unwrap_or_default().to_string(),
                        m["revision"].as_u64().unwrap_or_default(),
                    )
                })
                .collect();
        v.sort();
        v
    };
    let before = statuses(&db);
    assert!(before.iter().all(|(_, s, _)| s == "pending"), "{before:?}");

    // A verdict on a revision that does not exist fails the whole input,
    // naming its line; the first line's approval is rolled back.
    let bad = format!(
        "{}\n{}\n",
        json!({"id": approved, "revision": 1, "verdict": "approve"}),
        json!({"id": rejected, "revision": 7, "verdict": "reject"})
    );
    let err = cli(&with("review"), &bad).expect_err("an unknown revision");
    assert_ne!(err.code, 0);
    assert!(
        err.message.starts_with("line 2: not found") && err.message.contains("revision 7"),
        "{}",
        err.message
    );
    let err = cli(
        &with("review"),
        &json!({"id": approved, "revision": 1, "verdict": "maybe"}).to_string(),
    )
    .expect_err("an unknown verdict");
    assert!(
        err.message.contains("line 1: field `verdict`"),
        "{}",
        err.message
    );
    assert_eq!(statuses(&db), before, "a failed review wrote nothing");

    let verdicts = format!(
        "{}\n\n{}\n",
        json!({"id": approved, "revision": 1, "verdict": "approve", "reference": "cli:u1"}),
        json!({"id": rejected, "revision": 1, "verdict": "reject"})
    );
    let out = lines(&cli(&with("review"), &verdicts).expect("review"));
    assert_eq!(out.len(), 2, "one outcome per verdict: {out:?}");
    assert_eq!(out[0]["verdict"], "approve");
    assert_eq!(out[0]["reviewed"], json!({"id": approved, "revision": 1}));
    assert_eq!(
        out[0]["approved_as"],
        json!({"id": approved, "revision": 2})
    );
    assert_eq!(out[1]["verdict"], "reject");
    assert_eq!(out[1]["approved_as"], Value::Null);
    assert_eq!(out[1]["reason"]["code"], "review.rejected", "{}", out[1]);
    assert!(
        out[1]["reason"]["text"]
            .as_str()
            .unwrap_or("")
            .contains("retracted"),
        "{}",
        out[1]
    );

    let mut want = vec![
        (approved.to_string(), "active".to_string(), 2),
        (rejected.to_string(), "retracted".to_string(), 1),
    ];
    want.sort();
    assert_eq!(statuses(&db), want);
    let history = lines(&cli(&["history", "--db", &db, "--id", approved], "").expect("history"));
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(history[0]["status"], "superseded");
    assert_eq!(
        history[1]["source"]["ref"], "cli:u1",
        "the reviewer is the source"
    );

    // Without --tenant the memory's own tenant acts; a reviewed revision
    // cannot be reviewed again.
    let again = json!({"id": rejected, "revision": 1, "verdict": "approve"}).to_string();
    let err = cli(&["review", "--db", &db, "--now", NOW], &again).expect_err("not pending");
    assert!(
        err.message.contains("line 1: field `revision`") && err.message.contains("retracted"),
        "{}",
        err.message
    );
    let unknown = json!({"id": "m-nope", "revision": 1, "verdict": "approve"}).to_string();
    let err = cli(&["review", "--db", &db, "--now", NOW], &unknown).expect_err("unknown id");
    assert!(
        err.message
            .contains("line 1: field `id`: no memory with id 'm-nope'"),
        "{}",
        err.message
    );
}

/// A read command on a database that does not exist says so, naming the
/// path, and creates nothing (a mistyped `--db` must not look like an empty
/// memory); once a write has created it, the same command answers.
#[test]
fn read_commands_never_create_a_database() {
    let db = temp_db("never-created");
    let reads: [(&[&str], &str); 5] = [
        (
            &["recall"],
            r#"{"query":"怎么称呼我？","scope":{"tenant":"acme"}}"#,
        ),
        (
            &["pack"],
            r#"{"budget":200,"scope":{"tenant":"acme"},"query":"x"}"#,
        ),
        (&["list", "--tenant", "acme"], ""),
        (&["history", "--id", "m-1", "--tenant", "acme"], ""),
        (
            &["operations", "get"],
            r#"{"operation_id":"op_1","scope":{"tenant":"acme"}}"#,
        ),
    ];
    for (cmd, stdin) in reads {
        let mut args = cmd.to_vec();
        args.extend(["--db", &db, "--now", NOW]);
        let err = cli(&args, stdin).expect_err("a missing database is refused");
        assert_eq!(err.code, 1, "{cmd:?}: {}", err.message);
        assert!(
            err.message.contains(&db) && err.message.contains("never creates"),
            "{cmd:?}: {}",
            err.message
        );
        assert!(!std::path::Path::new(&db).exists(), "{cmd:?} created {db}");
    }
    cli(
        &["remember", "--db", &db, "--now", NOW],
        r#"{"text":"以后请叫我林工","scope":{"tenant":"acme"},"source":{"kind":"user","ref":"e1"}}"#,
    )
    .expect("remember creates it");
    let out = cli(
        &["recall", "--db", &db, "--now", NOW],
        r#"{"query":"怎么称呼我？","scope":{"tenant":"acme"}}"#,
    )
    .expect("recall reads it");
    assert!(out.contains("林工"), "{out}");
}

fn chmod(path: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Every read command on `db` with `extra` flags: recall finds the name,
/// pack packs it, list and history show it, operations get finds the
/// record.
fn every_read_answers(db: &str, extra: &[&str], id: &str) {
    let run = |cmd: &[&str], stdin: &str| {
        let mut args = cmd.to_vec();
        args.extend(["--db", db, "--now", NOW]);
        args.extend(extra);
        cli(&args, stdin).unwrap_or_else(|f| panic!("{cmd:?} {extra:?}: {}", f.message))
    };
    let recalled = lines(&run(
        &["recall"],
        r#"{"query":"怎么称呼我？","scope":{"tenant":"acme","user":"u42"}}"#,
    ));
    assert_eq!(
        recalled[0]["results"][0]["text"], "以后请叫我林工",
        "{recalled:?}"
    );
    let packed = run(
        &["pack"],
        r#"{"budget":200,"scope":{"tenant":"acme","user":"u42"},"query":"怎么称呼我？"}"#,
    );
    assert!(packed.contains("林工"), "{packed}");
    let listed = lines(&run(&["list", "--tenant", "acme"], ""));
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        listed[0]["access_count"], 0,
        "a read-only recall counted a use"
    );
    let history = run(&["history", "--id", id, "--tenant", "acme"], "");
    assert!(history.contains("林工"), "{history}");
    let op = lines(&run(
        &["operations", "get"],
        r#"{"operation_id":"op_1","scope":{"tenant":"acme"}}"#,
    ));
    assert_eq!(op[0]["found"], true, "{op:?}");
}

/// A database the process may not write is still read (issue 32, item 4):
/// with `--read-only`, and on its own when the file's permission bits deny
/// writing (`chmod 444`, which binds root too). Usage counts are skipped,
/// the file's bytes do not change, and a write fails naming the file.
#[test]
fn read_commands_read_a_read_only_database() {
    let db = temp_db("read-only");
    let decided = lines(
        &cli(
            &["remember", "--db", &db, "--now", NOW],
            r#"{"text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"user","ref":"e1"}}"#,
        )
        .expect("remember"),
    );
    let id = decided[0]["memory_id"]
        .as_str()
        .expect("stored")
        .to_string();
    cli(
        &["operations", "record", "--db", &db, "--now", NOW],
        r#"{"operation_id":"op_1","scope":{"tenant":"acme"},"tool":"deploy","status":"succeeded"}"#,
    )
    .expect("record");
    let bytes = std::fs::read(&db).expect("db");
    let write = r#"{"text":"以后请叫我王工","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"user","ref":"e2"}}"#;

    // The flag, on a file that could be written.
    every_read_answers(&db, &["--read-only"], &id);
    let err = cli(
        &["remember", "--db", &db, "--now", NOW, "--read-only"],
        write,
    )
    .expect_err("a write to a read-only open fails");
    assert_eq!(err.code, 1, "{}", err.message);
    assert!(
        err.message.contains(&db) && err.message.contains("read-only"),
        "{}",
        err.message
    );
    assert!(
        std::fs::read(&db).expect("db") == bytes,
        "--read-only wrote"
    );

    // The permission bits, without the flag.
    chmod(&db, 0o444);
    every_read_answers(&db, &[], &id);
    let err = cli(&["remember", "--db", &db, "--now", NOW], write)
        .expect_err("a write to a 0444 file fails");
    assert!(
        err.message.contains(&db) && err.message.contains("read-only"),
        "{}",
        err.message
    );
    assert!(
        std::fs::read(&db).expect("db") == bytes,
        "a 0444 file was written"
    );

    // Writable again, it is written, and reads count their use again.
    chmod(&db, 0o644);
    cli(&["remember", "--db", &db, "--now", NOW], write).expect("writable again");
    cli(
        &["recall", "--db", &db, "--now", NOW],
        r#"{"query":"怎么称呼我？","scope":{"tenant":"acme","user":"u42"}}"#,
    )
    .expect("recall");
    let listed = lines(&cli(&["list", "--db", &db, "--tenant", "acme"], "").expect("list"));
    assert!(
        listed.iter().any(|m| m["access_count"] == 1),
        "a writable recall counts its use: {listed:?}"
    );
}
