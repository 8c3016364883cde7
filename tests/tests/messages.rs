//! User-facing messages: a denial names the dimension and both values, a
//! refusal names the limit and its value, and no message shows Rust debug
//! formatting (`Some(..)`, escaped quotes, struct dumps).

use engram_tests::{cli, temp_db};
use serde_json::Value;

const NOW: &str = "2026-08-01T10:00:00+08:00";

fn assert_plain(message: &str) {
    for debug in ["Some(", "None", "\\\"", "{ ", "Error::", "StoreError"] {
        assert!(
            !message.contains(debug),
            "debug output {debug:?} in: {message}"
        );
    }
}

fn candidate(user: &str, text: &str) -> String {
    serde_json::json!({
        "text": text,
        "scope": {"tenant": "acme", "user": user},
        "source": {"kind": "user", "ref": "evt-m1"},
    })
    .to_string()
}

#[test]
fn a_write_for_another_user_names_the_user_dimension_and_both_values() {
    let db = temp_db("msg-user");
    let out = cli(
        &[
            "remember", "--db", &db, "--now", NOW, "--tenant", "acme", "--user", "u2",
        ],
        &candidate("u1", "I prefer tea over coffee in the morning."),
    )
    .expect("a refused write is a decision, not a failure");
    let decision: Value = serde_json::from_str(out.trim()).expect("one decision");
    assert_eq!(decision["disposition"], "rejected", "{decision}");
    assert_eq!(
        decision["gates"]["permission"]["reason"]["code"], "gate.permission.scope",
        "{decision}"
    );
    let reason = decision["gates"]["permission"]["reason"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("permission reason in {decision}"));
    assert!(
        reason.contains("user 'u1' is outside this principal's user 'u2'"),
        "{reason}"
    );
    assert_plain(reason);

    let record = serde_json::json!({
        "external_id": "x1", "kind": "episodic", "text": "Met the auditors on Monday.",
        "scope": {"tenant": "acme", "user": "u1"}, "source": {"kind": "user"},
    });
    let err = cli(
        &[
            "import", "--db", &db, "--now", NOW, "--tenant", "acme", "--user", "u2",
        ],
        &record.to_string(),
    )
    .expect_err("an import outside the principal fails");
    assert!(
        err.message
            .contains("user 'u1' is outside this principal's user 'u2'"),
        "{}",
        err.message
    );
    assert_plain(&err.message);
}

#[test]
fn a_read_for_another_tenant_names_the_tenant_and_both_values() {
    let db = temp_db("msg-tenant");
    // The database exists (read commands never create one).
    cli(&["remember", "--db", &db, "--now", NOW], "").expect("create the database");
    let query = serde_json::json!({"query": "tea", "scope": {"tenant": "globex"}});
    let err = cli(
        &["recall", "--db", &db, "--now", NOW, "--tenant", "acme"],
        &query.to_string(),
    )
    .expect_err("a recall outside the principal fails");
    assert!(
        err.message.contains("'globex'") && err.message.contains("'acme'"),
        "{}",
        err.message
    );
    assert_plain(&err.message);
}

#[test]
fn an_oversized_text_names_the_limit_and_its_value() {
    let db = temp_db("msg-limit");
    let err = cli(
        &["remember", "--db", &db, "--now", NOW],
        &format!(
            "{}\n{}",
            candidate("u1", "short and fine"),
            candidate("u1", &"长".repeat(20_001))
        ),
    )
    .expect_err("over the text limit");
    assert!(err.message.contains("line 2"), "{}", err.message);
    assert!(
        err.message.contains("max_text_chars = 20000"),
        "{}",
        err.message
    );
    assert_plain(&err.message);
    let listed = cli(&["list", "--db", &db, "--tenant", "acme"], "").expect("list");
    assert!(listed.trim().is_empty(), "nothing written: {listed}");
}

#[test]
fn bad_bytes_and_wrong_shapes_name_the_line_in_plain_words() {
    let db = temp_db("msg-bytes");
    let mut input = candidate("u1", "fine first line").into_bytes();
    input.extend_from_slice(b"\n{\"text\":\"\xff\xfe\"}\n");
    let err = engram_tests::cli_bytes(&["remember", "--db", &db, "--now", NOW], &input)
        .expect_err("invalid UTF-8");
    assert!(
        err.message.contains("line 2") && err.message.contains("UTF-8"),
        "{}",
        err.message
    );
    let err = cli(&["recall", "--db", &db], "null").expect_err("null is no query");
    assert!(
        err.message.contains("line 1") && err.message.contains("a JSON object"),
        "{}",
        err.message
    );
    assert_plain(&err.message);
    assert!(!err.message.contains("QueryIn"), "{}", err.message);
    let err = cli(&["history", "--db", &db, "--id", "m-nope"], "").expect_err("unknown id");
    assert!(err.message.contains("'m-nope'"), "{}", err.message);
    assert_plain(&err.message);
}
