//! `engram serve` through real HTTP requests: a spawned server on a free
//! loopback port, every endpoint, 401 without a key, 403 naming the
//! dimension for a scope outside the key's principal (and nothing
//! written), the limits named, graceful shutdown.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use engram_tests::*;
use serde_json::{json, Value};

const NOW: &str = "2026-08-01T10:00:00+08:00";

/// A running `engram serve`, stopped (SIGTERM) when dropped.
struct Server {
    child: Child,
    base: String,
    db: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `engram keys add` as a separate process: the key is all of stdout.
fn add_key(keys: &str, principal: &[&str]) -> String {
    let out = engram_bin!()
        .args(["keys", "add", "--keys", keys])
        .args(principal)
        .output()
        .expect("run engram keys add");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8 key");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "keys add prints the key and nothing else: {text:?}"
    );
    lines[0].to_string()
}

/// Start `engram serve` on port 0 and read the address it printed.
fn start(name: &str, keys: &str, extra: &[&str]) -> Server {
    let db = temp_db(name);
    let mut child = engram_bin!()
        .args([
            "serve",
            "--db",
            &db,
            "--now",
            NOW,
            "--listen",
            "127.0.0.1:0",
            "--keys",
            keys,
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start engram serve");
    let base = engram_tests::deployment::listening(&mut child);
    Server { child, base, db }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// A response: status, content type and body.
struct Reply {
    status: u16,
    content_type: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
    fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

fn call(method: &str, url: &str, key: Option<&str>, ctype: &str, body: &str) -> Reply {
    let a = agent();
    let mut resp = if method == "GET" {
        let mut r = a.get(url);
        if let Some(k) = key {
            r = r.header("Authorization", &format!("Bearer {k}"));
        }
        r.call().expect("GET")
    } else {
        let mut r = a.post(url).header("Content-Type", ctype);
        if let Some(k) = key {
            r = r.header("Authorization", &format!("Bearer {k}"));
        }
        r.send(body).expect("POST")
    };
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = resp
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .expect("read body");
    Reply {
        status,
        content_type,
        body,
    }
}

fn post(s: &Server, path: &str, key: Option<&str>, body: &Value) -> Reply {
    call(
        "POST",
        &format!("{}{path}", s.base),
        key,
        "application/json",
        &body.to_string(),
    )
}

fn get(s: &Server, path: &str, key: Option<&str>) -> Reply {
    call("GET", &format!("{}{path}", s.base), key, "", "")
}

fn candidate(tenant: &str, user: &str, text: &str, reference: &str) -> Value {
    json!({"text": text, "scope": {"tenant": tenant, "user": user},
           "source": {"kind": "user", "ref": reference},
           "kind_hint": "semantic", "subject": format!("user:{user}"),
           "predicate": "drink", "object": "tea"})
}

fn keys_file(name: &str) -> String {
    let p = temp_db(&format!("{name}-keys"));
    let p = p.trim_end_matches(".db").to_string() + ".keys";
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn every_endpoint_answers_the_cli_objects_for_its_key() {
    let keys = keys_file("serve-all");
    let key = add_key(&keys, &["--tenant", "acme", "--user", "u1"]);
    let file = std::fs::read_to_string(&keys).expect("key file");
    assert!(!file.contains(&key), "the key file keeps only the hash");
    let s = start("serve-all", &keys, &[]);

    let health = get(&s, "/healthz", None);
    assert_eq!(
        (health.status, health.json()["status"].clone()),
        (200, json!("ok"))
    );
    let page = get(&s, "/", None);
    assert_eq!(page.status, 200);
    assert!(
        page.content_type.starts_with("text/html"),
        "{}",
        page.content_type
    );

    let info = get(&s, "/v1/info", Some(&key));
    assert_eq!(info.status, 200, "{}", info.body);
    assert_eq!(info.json()["wit_package"], "engram:memory@0.1.0");

    let c = candidate("acme", "u1", "I prefer tea in the morning.", "evt-1");
    let classified = post(&s, "/v1/classify", Some(&key), &json!([c]));
    assert_eq!(classified.status, 200, "{}", classified.body);
    assert_eq!(
        classified.json()[0]["disposition"],
        "active",
        "{}",
        classified.body
    );
    let listed = get(&s, "/v1/memories", Some(&key));
    assert_eq!(listed.json(), json!([]), "classify stores nothing");

    // The same candidate through the CLI on another database: the same decision.
    let cli_db = temp_db("serve-all-cli");
    let cli_out = cli(
        &[
            "remember", "--db", &cli_db, "--now", NOW, "--tenant", "acme", "--user", "u1",
        ],
        &c.to_string(),
    )
    .expect("cli remember");
    let cli_decision: Value = serde_json::from_str(cli_out.trim()).expect("decision");

    let remembered = post(&s, "/v1/remember", Some(&key), &json!([c]));
    assert_eq!(remembered.status, 200, "{}", remembered.body);
    let d = &remembered.json()[0];
    for field in ["kind", "disposition", "action", "reasons", "gates"] {
        assert_eq!(
            d[field], cli_decision[field],
            "{field}: {d} vs {cli_decision}"
        );
    }
    let id = d["memory_id"].as_str().expect("memory id").to_string();

    // JSON Lines in and out.
    let nd = call(
        "POST",
        &format!("{}/v1/recall", s.base),
        Some(&key),
        "application/x-ndjson",
        &format!(
            "{}\n\n{}\n",
            json!({"id": "q1", "query": "what does the user drink in the morning", "scope": {"tenant": "acme", "user": "u1"}}),
            json!({"id": "q2", "query": "tea", "scope": {"tenant": "acme", "user": "u1"}})
        ),
    );
    assert_eq!(nd.status, 200, "{}", nd.body);
    assert!(nd.content_type.contains("ndjson"), "{}", nd.content_type);
    let lines: Vec<Value> = nd
        .body
        .lines()
        .map(|l| serde_json::from_str(l).expect("line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "q1");
    assert_eq!(
        lines[0]["results"][0]["memory_id"],
        id.as_str(),
        "{}",
        nd.body
    );
    assert!(lines[0]["results"][0]["admission"]["admit"]
        .as_bool()
        .unwrap_or(false));

    let imported = post(
        &s,
        "/v1/import",
        Some(&key),
        &json!([{"external_id": "D1:1", "kind": "episodic", "text": "We shipped release 4.2 on Monday.",
                 "scope": {"tenant": "acme", "user": "u1"}, "source": {"kind": "user", "ref": "D1:1"},
                 "occurred_at": "2026-07-27T09:00:00Z"}]),
    );
    assert_eq!(imported.status, 200, "{}", imported.body);
    assert_eq!(imported.json()[0]["external_id"], "D1:1");

    let packed = post(
        &s,
        "/v1/pack",
        Some(&key),
        &json!({"budget": 300, "scope": {"tenant": "acme", "user": "u1"}, "query": "what to drink",
                "system": "You are helpful.", "messages": [{"role": "user", "text": "Coffee or tea?"}]}),
    );
    assert_eq!(packed.status, 200, "{}", packed.body);
    assert!(
        packed.json()["text"].as_str().unwrap_or("").contains("tea"),
        "{}",
        packed.body
    );

    let swept = post(
        &s,
        "/v1/sweep",
        Some(&key),
        &json!({"scope": {"tenant": "acme", "user": "u1"}}),
    );
    assert_eq!(swept.status, 200, "{}", swept.body);

    let history = get(&s, &format!("/v1/memories/{id}/history"), Some(&key));
    assert_eq!(history.status, 200, "{}", history.body);
    assert_eq!(history.json()[0]["id"], id.as_str());

    let active = get(
        &s,
        "/v1/memories?tenant=acme&user=u1&status=active",
        Some(&key),
    );
    assert_eq!(active.status, 200, "{}", active.body);
    assert_eq!(
        active.json().as_array().map(Vec::len),
        Some(2),
        "{}",
        active.body
    );

    let forgotten = post(&s, "/v1/forget", Some(&key), &json!([{"memory_id": id}]));
    assert_eq!(forgotten.status, 200, "{}", forgotten.body);
    assert_eq!(
        forgotten.json()[0]["deleted"],
        json!([id]),
        "{}",
        forgotten.body
    );
    let after = get(&s, &format!("/v1/memories/{id}/history"), Some(&key));
    assert_eq!(after.status, 404, "{}", after.body);

    // Bad input names the item and the field, as the CLI names the line.
    let bad = post(
        &s,
        "/v1/remember",
        Some(&key),
        &json!([c, {"text": "x", "scope": {"tenant": "acme", "user": "u1"}}]),
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(
        bad.error().contains("item 2") && bad.error().contains("source"),
        "{}",
        bad.body
    );
    drop(s);
}

/// Every endpoint that takes a scope, with a body outside the principal.
fn outside_requests() -> Vec<(&'static str, &'static str, Value)> {
    let b = json!({"tenant": "globex", "user": "u1"});
    vec![
        (
            "POST",
            "/v1/classify",
            json!([candidate("globex", "u1", "I like green tea.", "e1")]),
        ),
        (
            "POST",
            "/v1/remember",
            json!([candidate("globex", "u1", "I like green tea.", "e1")]),
        ),
        (
            "POST",
            "/v1/import",
            json!([{"external_id": "x", "kind": "episodic", "text": "Met the auditors.", "scope": b, "source": {"kind": "user"}}]),
        ),
        ("POST", "/v1/recall", json!([{"query": "tea", "scope": b}])),
        ("POST", "/v1/forget", json!([{"scope": b, "text": "tea"}])),
        (
            "POST",
            "/v1/pack",
            json!({"budget": 100, "scope": b, "query": "tea"}),
        ),
        ("POST", "/v1/sweep", json!({"scope": b})),
        ("GET", "/v1/memories?tenant=globex&user=u1", Value::Null),
        (
            "POST",
            "/v1/operations/record",
            json!([{"operation_id": "op_1", "scope": b, "tool": "issue_refund", "status": "submitted"}]),
        ),
        (
            "POST",
            "/v1/operations/get",
            json!([{"operation_id": "op_1", "scope": b}]),
        ),
    ]
}

#[test]
fn a_key_is_held_to_its_principal_and_a_refusal_writes_nothing() {
    let keys = keys_file("serve-authz");
    let acme = add_key(&keys, &["--tenant", "acme", "--user", "u1"]);
    let globex = add_key(&keys, &["--tenant", "globex", "--user", "u1"]);
    let s = start("serve-authz", &keys, &[]);
    // Something of globex's that acme's key must not reach.
    let g = post(
        &s,
        "/v1/remember",
        Some(&globex),
        &json!([candidate("globex", "u1", "I like green tea.", "e0")]),
    );
    assert_eq!(g.status, 200, "{}", g.body);
    let globex_id = g.json()[0]["memory_id"].as_str().expect("id").to_string();
    let before = dump(&s.db);

    for (method, path, body) in outside_requests() {
        let url = format!("{}{path}", s.base);
        let none = call(method, &url, None, "application/json", &body.to_string());
        assert_eq!(
            none.status, 401,
            "{method} {path} without a key: {}",
            none.body
        );
        let wrong = call(
            method,
            &url,
            Some("ek_not-a-key"),
            "application/json",
            &body.to_string(),
        );
        assert_eq!(
            wrong.status, 401,
            "{method} {path} with a wrong key: {}",
            wrong.body
        );
        let r = call(
            method,
            &url,
            Some(&acme),
            "application/json",
            &body.to_string(),
        );
        assert_eq!(r.status, 403, "{method} {path}: {}", r.body);
        let m = r.error();
        assert!(
            m.contains("tenant 'globex'") && m.contains("tenant 'acme'"),
            "{method} {path}: the denial names the dimension and both values: {m}"
        );
    }
    // The user dimension within the tenant.
    let other_user = post(
        &s,
        "/v1/remember",
        Some(&acme),
        &json!([candidate("acme", "u2", "I like black tea.", "e2")]),
    );
    assert_eq!(other_user.status, 403, "{}", other_user.body);
    assert!(
        other_user.error().contains("user 'u2'") && other_user.error().contains("user 'u1'"),
        "{}",
        other_user.body
    );
    // Ids of another tenant: not visible, not forgettable.
    let h = get(
        &s,
        &format!("/v1/memories/{globex_id}/history"),
        Some(&acme),
    );
    assert_eq!(h.status, 404, "{}", h.body);
    let f = post(
        &s,
        "/v1/forget",
        Some(&acme),
        &json!([{"memory_id": globex_id}]),
    );
    assert!(f.status == 200 || f.status == 404, "{}", f.body);
    if f.status == 200 {
        assert_eq!(f.json()[0]["deleted"], json!([]), "{}", f.body);
    }
    assert_eq!(dump(&s.db), before, "a refused request wrote nothing");
    let still = get(
        &s,
        &format!("/v1/memories/{globex_id}/history"),
        Some(&globex),
    );
    assert_eq!(still.status, 200, "{}", still.body);
}

#[test]
fn limits_are_named_and_shutdown_is_graceful() {
    let keys = keys_file("serve-limits");
    let key = add_key(&keys, &["--tenant", "acme"]);
    let s = start(
        "serve-limits",
        &keys,
        &[
            "--max-body-bytes",
            "4096",
            "--max-items",
            "3",
            "--rate-per-sec",
            "1",
            "--rate-burst",
            "6",
        ],
    );
    let c = candidate("acme", "u1", "I prefer tea in the morning.", "e1");
    let many = post(&s, "/v1/classify", Some(&key), &json!([c, c, c, c]));
    assert_eq!(many.status, 413, "{}", many.body);
    assert!(
        many.error().contains("--max-items") && many.error().contains("4 items"),
        "{}",
        many.body
    );
    let big = post(
        &s,
        "/v1/classify",
        Some(&key),
        &json!([{"text": "x".repeat(5000), "scope": {"tenant": "acme"}, "source": {"kind": "user"}}]),
    );
    assert_eq!(big.status, 413, "{}", big.body);
    assert!(big.error().contains("--max-body-bytes"), "{}", big.body);
    let mut limited = None;
    for _ in 0..10 {
        let r = get(&s, "/v1/memories", Some(&key));
        if r.status == 429 {
            limited = Some(r);
            break;
        }
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let limited = limited.expect("the 7th request within a second is over a burst of 6 at 1/s");
    assert!(
        limited.error().contains("--rate-per-sec"),
        "{}",
        limited.body
    );

    // SIGTERM: the server stops by itself, saying so.
    let mut s = s;
    // SAFETY: kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(s.child.id() as i32, libc::SIGTERM) };
    assert_eq!(rc, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = s.child.try_wait().expect("wait") {
            assert!(status.success(), "exit status {status}");
            break;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_load_generator_runs_bounded_and_counts_no_errors() {
    let dir = std::env::temp_dir().join(format!("engram-tests-load-{}", std::process::id()));
    let out = engram_tests::engram_command(env!("CARGO_BIN_EXE_engram-bench-bin"))
        .args([
            "load-test",
            "--memories",
            "300",
            "--clients",
            "2",
            "--requests",
            "60",
        ])
        .args(["--seconds", "30", "--cli-runs", "1", "--json", "--dir"])
        .arg(&dir)
        .arg("--engram")
        .arg(env!("CARGO_BIN_EXE_engram-cli"))
        .output()
        .expect("run engram-bench load-test");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["requests"], 60, "{report}");
    assert_eq!(report["errors"], 0, "{report}");
    let remember = report["remember"]["requests"].as_u64().unwrap_or(0);
    let recall = report["recall"]["requests"].as_u64().unwrap_or(0);
    assert_eq!(remember + recall, 60, "{report}");
    assert!(
        remember > 0 && recall > remember,
        "a mix, mostly recall: {report}"
    );
    assert!(
        report["recall"]["p99_ms"].as_f64().unwrap_or(0.0) > 0.0,
        "{report}"
    );
    assert!(
        report["cli_per_process_ms"]["recall"]["p50_ms"]
            .as_f64()
            .unwrap_or(0.0)
            > 0.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn hang_up(s: &Server) {
    // SAFETY: kill(2) with the server's own pid and a valid signal.
    let r = unsafe { libc::kill(s.child.id() as libc::pid_t, libc::SIGHUP) };
    assert_eq!(r, 0, "send SIGHUP");
}

/// Poll until `key` gets `status` from GET /v1/info (a reload is async).
fn until_status(s: &Server, key: &str, status: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = get(s, "/v1/info", Some(key)).status;
        if got == status {
            return;
        }
        assert!(Instant::now() < deadline, "still {got}, not {status}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sighup_reloads_the_key_file_so_keys_are_added_and_revoked_without_a_restart() {
    let keys = keys_file("serve-reload");
    let first = add_key(&keys, &["--tenant", "acme"]);
    let s = start("serve-reload", &keys, &[]);
    assert_eq!(get(&s, "/v1/info", Some(&first)).status, 200);
    let second = add_key(&keys, &["--tenant", "globex", "--user", "u1"]);
    hang_up(&s);
    until_status(&s, &second, 200);
    // Revoke the first key: its line leaves the file.
    use sha2::Digest;
    let first_hash: String = sha2::Sha256::digest(first.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let text = std::fs::read_to_string(&keys).expect("key file");
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains(&first_hash)).collect();
    assert_eq!(kept.len(), 1);
    std::fs::write(&keys, kept.join("\n") + "\n").expect("rewrite the key file");
    hang_up(&s);
    until_status(&s, &first, 401);
    assert_eq!(get(&s, "/v1/info", Some(&second)).status, 200);
    // A file that does not load keeps the keys in force.
    std::fs::write(&keys, "not json\n").expect("break the key file");
    hang_up(&s);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(get(&s, "/v1/info", Some(&second)).status, 200);
    assert_eq!(get(&s, "/v1/info", Some(&first)).status, 401);
}

/// `engram keys ARGS` as a separate process: (exit success, stdout, stderr).
fn keys_cmd(args: &[&str]) -> (bool, String, String) {
    let out = engram_bin!()
        .arg("keys")
        .args(args)
        .output()
        .expect("run engram keys");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `key` gets `status` from GET /v1/info within two seconds of now.
fn within_two_seconds(s: &Server, key: &str, status: u16) {
    let start = Instant::now();
    loop {
        let got = get(s, "/v1/info", Some(key)).status;
        if got == status {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "still {got}, not {status}, after {:?}",
            start.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn keys_list_and_revoke_change_a_running_server_without_a_signal() {
    let keys = keys_file("serve-revoke");
    // A line written before keys had labels (no label, no created_at)
    // still loads, and is listed with its id.
    let old_key = format!("ek_{}", "5a".repeat(32));
    use sha2::Digest;
    let old_hash: String = sha2::Sha256::digest(old_key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::fs::write(
        &keys,
        format!("{{\"sha256\":\"{old_hash}\",\"tenant\":\"acme\"}}\n"),
    )
    .expect("an old key file");
    let laptop = add_key(
        &keys,
        &["--tenant", "acme", "--user", "u42", "--label", "laptop"],
    );
    let (ok, _, err) = keys_cmd(&[
        "add", "--keys", &keys, "--tenant", "acme", "--label", "laptop",
    ]);
    assert!(!ok && err.contains("'laptop'"), "a label is unique: {err}");

    let (ok, listed, err) = keys_cmd(&["list", "--keys", &keys]);
    assert!(ok, "{err}");
    let rows: Vec<Value> = listed
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per key"))
        .collect();
    assert_eq!(rows.len(), 2, "{listed}");
    assert_eq!(rows[0]["id"], json!(&old_hash[..12]));
    assert_eq!(rows[0]["label"], Value::Null);
    assert_eq!(rows[0]["tenant"], json!("acme"));
    assert_eq!(rows[1]["label"], json!("laptop"));
    assert_eq!(rows[1]["user"], json!("u42"));
    assert!(rows[1]["created_at"].is_string(), "{listed}");
    assert!(
        !listed.contains(&laptop) && !listed.contains(&old_hash) && !listed.contains("ek_"),
        "keys list shows no secret and no whole hash: {listed}"
    );

    let s = start("serve-revoke", &keys, &[]);
    assert_eq!(get(&s, "/v1/info", Some(&laptop)).status, 200);
    assert_eq!(get(&s, "/v1/info", Some(&old_key)).status, 200);

    // Revoke by label: the next requests with that key are 401.
    let (ok, out, err) = keys_cmd(&["revoke", "--keys", &keys, "laptop"]);
    assert!(ok, "{err}");
    assert!(out.contains("\"label\":\"laptop\""), "{out}");
    within_two_seconds(&s, &laptop, 401);
    assert_eq!(get(&s, "/v1/info", Some(&old_key)).status, 200);
    assert!(!std::fs::read_to_string(&keys)
        .expect("key file")
        .contains("laptop"));

    // Not found: an error naming what was asked for; nothing changes.
    let (ok, _, err) = keys_cmd(&["revoke", "--keys", &keys, "laptop"]);
    assert!(!ok && err.contains("'laptop'"), "{err}");

    // A key added while the server runs works within two seconds.
    let ci = add_key(&keys, &["--tenant", "globex", "--label", "ci-bot"]);
    within_two_seconds(&s, &ci, 200);

    // Revoke by id, the last key of a tenant, then every key: each one is
    // refused at once, and an empty file refuses every key.
    let (ok, _, err) = keys_cmd(&["revoke", "--keys", &keys, &old_hash[..12]]);
    assert!(ok, "{err}");
    within_two_seconds(&s, &old_key, 401);
    let (ok, _, err) = keys_cmd(&["revoke", "--keys", &keys, "ci-bot"]);
    assert!(ok, "{err}");
    within_two_seconds(&s, &ci, 401);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&keys)
            .expect("key file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the rewritten key file stays 0600");
    }
}

#[test]
fn an_unknown_path_and_a_wrong_method_answer_json_errors() {
    let keys = keys_file("serve-json-errors");
    let key = add_key(&keys, &["--tenant", "acme"]);
    let s = start("serve-json-errors", &keys, &[]);
    for (method, path, status, says) in [
        ("GET", "/v1/nope", 404, "no such endpoint: GET /v1/nope"),
        (
            "POST",
            "/nothing/here",
            404,
            "no such endpoint: POST /nothing/here",
        ),
        (
            "GET",
            "/v1/remember",
            405,
            "GET is not allowed on /v1/remember",
        ),
        ("POST", "/healthz", 405, "POST is not allowed on /healthz"),
    ] {
        let r = call(
            method,
            &format!("{}{path}", s.base),
            Some(&key),
            "application/json",
            "[]",
        );
        assert_eq!(r.status, status, "{method} {path}: {}", r.body);
        assert!(
            r.content_type.starts_with("application/json"),
            "{method} {path}: {}",
            r.content_type
        );
        assert_eq!(r.json()["status"], json!(status));
        assert!(r.error().contains(says), "{method} {path}: {}", r.error());
    }
}

/// `POST /v1/review` takes the CLI's review lines: one approval and one
/// rejection in one transaction, seen in `GET /v1/memories`; another
/// tenant's key cannot see (404), let alone review, them.
#[test]
fn review_approves_and_rejects_pending_memories_for_its_key_only() {
    let keys = keys_file("serve-review");
    let acme = add_key(&keys, &["--tenant", "acme", "--user", "u1"]);
    let globex = add_key(&keys, &["--tenant", "globex", "--user", "u1"]);
    let s = start("serve-review", &keys, &[]);
    let r = post(
        &s,
        "/v1/remember",
        Some(&acme),
        &json!(pending_candidates("acme", "u1")),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let ids: Vec<String> = r
        .json()
        .as_array()
        .expect("decisions")
        .iter()
        .map(|d| {
            assert_eq!(d["disposition"], "pending", "{d}");
            d["memory_id"].as_str().expect("id").to_string()
        })
        .collect();
    let verdicts = json!([
        {"id": ids[0], "revision": 1, "verdict": "approve", "reference": "api:u1"},
        {"id": ids[1], "revision": 1, "verdict": "reject"},
    ]);
    let before = dump(&s.db);
    let refused = post(&s, "/v1/review", Some(&globex), &verdicts);
    assert_eq!(refused.status, 404, "{}", refused.body);
    assert!(
        refused.error().starts_with("item 1: not found"),
        "{}",
        refused.body
    );
    let bad = post(
        &s,
        "/v1/review",
        Some(&acme),
        &json!([verdicts[0], {"id": ids[1], "revision": 1}]),
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(
        bad.error().contains("item 2") && bad.error().contains("verdict"),
        "{}",
        bad.body
    );
    assert_eq!(dump(&s.db), before, "a refused review wrote nothing");

    let done = post(&s, "/v1/review", Some(&acme), &verdicts);
    assert_eq!(done.status, 200, "{}", done.body);
    let out = done.json();
    assert_eq!(out[0]["approved_as"], json!({"id": ids[0], "revision": 2}));
    assert_eq!(out[1]["verdict"], "reject");
    let active = get(&s, "/v1/memories?status=active", Some(&acme)).json();
    assert_eq!(active.as_array().map(Vec::len), Some(1), "{active}");
    assert_eq!(active[0]["id"], ids[0].as_str());
    assert_eq!(active[0]["source"]["ref"], "api:u1");
    let retracted = get(&s, "/v1/memories?status=retracted", Some(&acme)).json();
    assert_eq!(retracted[0]["id"], ids[1].as_str(), "{retracted}");
    let pending = get(&s, "/v1/memories?status=pending", Some(&acme)).json();
    assert_eq!(pending, json!([]));
}

/// `POST /v1/operations/record` and `POST /v1/operations/get`: execution
/// records by operation id for the key's principal — created, duplicate,
/// updated, a changed final status refused (400 naming the item and the
/// field, nothing written), a scope outside the key 403 naming the
/// dimension (nothing written), an exact lookup another user's or tenant's
/// key does not see, and no record in recall.
#[test]
fn operations_are_recorded_and_looked_up_for_the_key_only() {
    let keys = keys_file("serve-operations");
    let acme = add_key(&keys, &["--tenant", "acme", "--user", "u1"]);
    let acme_u2 = add_key(&keys, &["--tenant", "acme", "--user", "u2"]);
    let globex = add_key(&keys, &["--tenant", "globex", "--user", "u1"]);
    let s = start("serve-operations", &keys, &[]);
    let refund = |status: &str| {
        json!({"operation_id": "op_891", "scope": {"tenant": "acme", "user": "u1", "thread": "t1"},
            "tool": "issue_refund", "status": status, "idempotency_key": "payment-42-order-991"})
    };
    let record = |key: &str, items: Value| post(&s, "/v1/operations/record", Some(key), &items);
    let r = record(&acme, json!([refund("submitted"), refund("submitted")]));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json(),
        json!([
            {"action": "created", "operation_id": "op_891", "revision": 1, "status": "submitted"},
            {"action": "duplicate", "operation_id": "op_891", "revision": 1, "status": "submitted"}
        ])
    );
    // JSON Lines in, JSON Lines out.
    let mut done = refund("succeeded");
    done["result_digest"] = json!("sha256:9f2c");
    let ndjson = call(
        "POST",
        &format!("{}/v1/operations/record", s.base),
        Some(&acme),
        "application/x-ndjson",
        &format!("{done}\n"),
    );
    assert_eq!(ndjson.status, 200, "{}", ndjson.body);
    assert_eq!(
        ndjson.body,
        "{\"action\":\"updated\",\"operation_id\":\"op_891\",\"revision\":2,\"status\":\"succeeded\"}\n"
    );

    let before = dump(&s.db);
    let mut other = refund("submitted");
    other["operation_id"] = json!("op_892");
    let refused = record(&acme, json!([other, refund("failed")]));
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert_eq!(
        refused.error(),
        "item 2: field `status`: operation op_891 already succeeded; a final status does not change"
    );
    let mut outside = refund("submitted");
    outside["scope"]["user"] = json!("u2");
    let denied = record(&acme, json!([refund("succeeded"), outside]));
    assert_eq!(denied.status, 403, "{}", denied.body);
    assert!(
        denied.error().contains("user 'u2'") && denied.error().contains("user 'u1'"),
        "{}",
        denied.body
    );
    assert_eq!(dump(&s.db), before, "a refused request wrote nothing");

    let lookup = |key: &str, tenant: &str, user: &str| {
        post(
            &s,
            "/v1/operations/get",
            Some(key),
            &json!([{"operation_id": "op_891", "scope": {"tenant": tenant, "user": user}}]),
        )
    };
    let got = lookup(&acme, "acme", "u1");
    assert_eq!(got.status, 200, "{}", got.body);
    let state = &got.json()[0];
    assert_eq!(
        (
            &state["found"],
            &state["revision"],
            &state["status"],
            &state["result_digest"]
        ),
        (
            &json!(true),
            &json!(2),
            &json!("succeeded"),
            &json!("sha256:9f2c")
        )
    );
    assert_eq!(
        state["history"]
            .as_array()
            .map(|h| h.iter().map(|x| x["status"].clone()).collect::<Vec<_>>()),
        Some(vec![json!("submitted"), json!("succeeded")])
    );
    for (key, tenant, user) in [(&acme_u2, "acme", "u2"), (&globex, "globex", "u1")] {
        let other = lookup(key, tenant, user);
        assert_eq!(other.status, 200, "{}", other.body);
        assert_eq!(
            other.json(),
            json!([{"found": false, "history": [], "operation_id": "op_891", "revision": 0}])
        );
    }
    let peek = lookup(&acme_u2, "acme", "u1");
    assert_eq!(peek.status, 403, "{}", peek.body);

    let recalled = post(
        &s,
        "/v1/recall",
        Some(&acme),
        &json!([{"query": "issue_refund op_891 refund succeeded", "scope": {"tenant": "acme", "user": "u1"}, "explain": true}]),
    );
    assert_eq!(recalled.status, 200, "{}", recalled.body);
    assert_eq!(recalled.json()[0]["results"], json!([]));
    assert_eq!(get(&s, "/v1/memories", Some(&acme)).json(), json!([]));
}
