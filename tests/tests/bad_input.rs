//! Bad input is refused alike by every transport (issue 32): each case of
//! `tests/bad-input/cases.json` goes through the CLI, `engram serve` and
//! `engram mcp` (the npm and Python packages run the same cases in
//! `tests/hosts.rs`); each refusal names the case's field and says what is
//! wrong in JSON terms, and nothing is written.

use engram_tests::deployment::{add_key, Deployment, Http, Mcp};
use serde_json::Value;

const NOW: &str = "2026-08-01T10:00:00+08:00";

struct Case {
    name: String,
    op: String,
    input: String,
    tool: Option<(String, Value)>,
    field: String,
    message: String,
}

fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bad-input/cases.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("read cases"))
        .expect("cases.json is JSON");
    let text = |c: &Value, k: &str| c[k].as_str().unwrap_or_default().to_string();
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| Case {
            name: text(c, "name"),
            op: text(c, "op"),
            input: text(c, "input"),
            tool: c["tool"]
                .as_str()
                .map(|t| (t.to_string(), c["args"].clone())),
            field: text(c, "field"),
            message: text(c, "message"),
        })
        .collect()
}

/// The refusal names the field (in backticks) and says the case's message,
/// in words a person reads: no Rust type names.
fn assert_refusal(transport: &str, case: &Case, text: &str) {
    let at = format!("{transport}, case '{}': {text}", case.name);
    if !case.field.is_empty() {
        assert!(text.contains(&format!("field `{}`", case.field)), "{at}");
    }
    assert!(text.contains(&case.message), "{at}");
    for rust in [
        "u32",
        "f64",
        "struct ",
        "ident",
        "EOF",
        "Some(",
        "InvalidInput",
    ] {
        assert!(!text.contains(rust), "{at}: shows `{rust}`");
    }
}

/// A deployment holding one memory of acme/u42, so the read commands have
/// a database and "nothing written" is a dump that stays the same.
fn deployment(name: &str) -> Deployment {
    let d = Deployment::sqlite(name, env!("CARGO_BIN_EXE_engram-cli"), NOW);
    let seed = r#"{"text":"The build server is ci-7","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"system"}}"#;
    d.cli(&["remember"], seed).expect("seed memory");
    d
}

#[test]
fn the_cli_refuses_every_bad_input_naming_the_line_and_field() {
    let d = deployment("bad-input-cli");
    let before = d.dump("acme", None);
    let mut ran = 0;
    for case in cases() {
        let args: &[&str] = match case.op.as_str() {
            // `engram list` takes flags, not JSON.
            "list" => continue,
            op => &[op],
        };
        let refusal = d
            .cli(args, &format!("{}\n", case.input))
            .expect_err(&format!("case '{}' is refused", case.name));
        assert_refusal("cli", &case, &refusal);
        let label = if case.op == "pack" {
            "pack request"
        } else {
            "line 1"
        };
        assert!(
            refusal.contains(label),
            "cli, case '{}': {refusal}",
            case.name
        );
        ran += 1;
    }
    assert!(ran >= 10, "{ran} cases");
    assert_eq!(d.dump("acme", None), before, "nothing was written");
}

#[test]
fn engram_serve_refuses_every_bad_input_with_400_and_writes_nothing() {
    let d = deployment("bad-input-http");
    let keys = engram_tests::temp_db("bad-input-keys");
    let key = add_key(&d, &keys, "acme", Some("u42"));
    let http = Http::start(&d, &keys);
    let before = d.dump("acme", None);
    for case in cases() {
        if case.op == "list" {
            continue; // GET /v1/memories takes query parameters
        }
        let content_type = if case.op == "pack" {
            "application/json"
        } else {
            "application/x-ndjson"
        };
        let (status, body) =
            http.post_raw(&format!("/v1/{}", case.op), &key, content_type, &case.input);
        assert_eq!(status, 400, "case '{}': {body}", case.name);
        let message = serde_json::from_str::<Value>(&body).expect("a JSON error")["error"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert_refusal("http", &case, &message);
    }
    // curl -d @batch.ndjson strips the newlines and sends a form type:
    // refused as a whole, never read as one memory.
    let two = &cases()[0].input;
    let (status, body) = http.post_raw(
        "/v1/remember",
        &key,
        "application/x-www-form-urlencoded",
        two,
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(d.dump("acme", None), before, "nothing was written");
}

#[test]
fn engram_mcp_refuses_every_bad_argument_naming_the_field() {
    let d = deployment("bad-input-mcp");
    let mut mcp = Mcp::start(&d, "acme", Some("u42"));
    let before = d.dump("acme", None);
    let mut ran = 0;
    for case in cases() {
        let Some((tool, args)) = &case.tool else {
            continue; // raw text MCP arguments cannot carry
        };
        let (is_error, answer) = mcp.tool(tool, args.clone());
        assert!(is_error, "case '{}' is refused: {answer}", case.name);
        let text = serde_json::from_str::<Value>(&answer).expect("a JSON answer")["content"][0]
            ["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert_refusal("mcp", &case, &text);
        ran += 1;
    }
    assert!(ran >= 8, "{ran} cases");
    assert_eq!(d.dump("acme", None), before, "nothing was written");
}
