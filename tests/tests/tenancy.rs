//! Tenancy and erasure inside one deployment (issue 25), one test per
//! finding, through the CLI on a database file: a user's forget blocks and
//! scrubs only that user; a tombstone gives the file alone nothing to test
//! guesses against; the owner may state erased content again (re-derivation
//! stays blocked, a secret stays rejected); ids are per tenant, and no
//! message confirms another tenant's id; an old file migrates.

use engram_host::backend::Backend;
use engram_host::bindings as w;
use engram_host::fingerprint::FingerprintSecret;
use engram_host::sqlite::SqliteStore;
use engram_tests::*;
use serde_json::{json, Value};

const T0: &str = "2026-08-01T10:00:00+08:00";
const T1: &str = "2026-08-02T10:00:00+08:00";
const T2: &str = "2026-08-03T10:00:00+08:00";

fn lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// `engram CMD` on `db` at `now` as `--tenant T [--user U]`.
fn as_principal(
    db: &str,
    now: &str,
    tenant: &str,
    user: Option<&str>,
    cmd: &[&str],
    input: &str,
) -> Result<String, engram_cli::cli::Failure> {
    let mut args: Vec<&str> = cmd.to_vec();
    args.extend(["--db", db, "--now", now, "--tenant", tenant]);
    if let Some(u) = user {
        args.extend(["--user", u]);
    }
    cli(&args, input)
}

fn candidate(tenant: &str, user: &str, text: &str, kind: &str, reference: &str) -> String {
    json!({"text": text, "scope": {"tenant": tenant, "user": user},
           "source": {"kind": kind, "ref": reference}})
    .to_string()
}

fn remember(db: &str, now: &str, tenant: &str, user: &str, c: &str) -> Value {
    let out = as_principal(db, now, tenant, Some(user), &["remember"], c)
        .unwrap_or_else(|e| panic!("remember: {}", e.message));
    lines(&out).remove(0)
}

fn forget_text(db: &str, now: &str, tenant: &str, user: &str, text: &str) -> Value {
    let sel = json!({"scope": {"tenant": tenant, "user": user}, "text": text}).to_string();
    let out = as_principal(db, now, tenant, Some(user), &["forget"], &sel)
        .unwrap_or_else(|e| panic!("forget: {}", e.message));
    lines(&out).remove(0)
}

fn listed(db: &str, tenant: &str, user: &str) -> String {
    as_principal(db, T2, tenant, Some(user), &["list"], "").expect("list")
}

/// The texts of a decision's reasons, one per line.
fn reasons(d: &Value) -> String {
    d["reasons"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_active(d: &Value) {
    assert_eq!(d["disposition"], "active", "{d}");
}

#[test]
fn one_users_forget_never_blocks_or_reveals_to_another_user() {
    let db = temp_db("tenancy-forget-scope");
    for (user, r) in [("u1", "evt-u1"), ("u2", "evt-u2")] {
        let text = format!("The release codename {user} was told is BLUEFOX, keep it quiet");
        assert_active(&remember(
            &db,
            T0,
            "acme",
            user,
            &candidate("acme", user, &text, "user", r),
        ));
    }
    let report = forget_text(&db, T1, "acme", "u1", "BLUEFOX");
    assert_eq!(
        report["deleted"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    assert!(!listed(&db, "acme", "u1").contains("BLUEFOX"));
    assert!(
        listed(&db, "acme", "u2").contains("BLUEFOX"),
        "u2's survives"
    );
    // u2 goes on remembering the word, from any source, and is told nothing.
    for (kind, r) in [("user", "evt-u2b"), ("tool", "tool-run-3")] {
        let c = json!({"text": "From now on the release codename is BLUEFOX",
                       "scope": {"tenant": "acme", "user": "u2"}, "source": {"kind": kind, "ref": r},
                       "kind_hint": "semantic", "subject": "project:release",
                       "predicate": "codename", "object": "BLUEFOX"});
        let d = remember(&db, T2, "acme", "u2", &c.to_string());
        assert_ne!(d["disposition"], "rejected", "{d}");
        assert_eq!(d["gates"]["sensitivity"]["pass"], true, "{d}");
        let why = reasons(&d);
        assert!(
            !why.contains("tombstone") && !why.contains("erased"),
            "u2 learns of u1's erasure: {why}"
        );
    }
    // Nor does the tenant-wide view see a tenant-wide tombstone.
    let d: Value = lines(
        &as_principal(
            &db,
            T2,
            "acme",
            None,
            &["classify"],
            &json!({"text": "BLUEFOX is the codename", "scope": {"tenant": "acme"},
                    "source": {"kind": "system", "ref": "cmdb-1"}})
            .to_string(),
        )
        .expect("classify"),
    )
    .remove(0);
    assert!(!reasons(&d).contains("tombstone"), "{d}");
}

/// 64-bit FNV-1a, the unkeyed hash tombstones were before.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn hmac_hex(key: &[u8], text: &str) -> String {
    use hmac::{KeyInit, Mac};
    let mut m = hmac::Hmac::<sha2_11::Sha256>::new_from_slice(key).expect("any key length");
    m.update(text.as_bytes());
    hex(&m.finalize().into_bytes())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(text.as_bytes()))
}

fn tombstone_rows(db: &str) -> Vec<(Option<String>, String, i64, String)> {
    let conn = rusqlite::Connection::open(db).expect("open");
    let mut st = conn
        .prepare("SELECT user, fingerprint, length, kind FROM tombstones ORDER BY fingerprint")
        .expect("tombstones table");
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("query")
        .collect::<Result<Vec<_>, _>>()
        .expect("rows");
    rows
}

#[test]
fn a_tombstone_gives_the_database_file_alone_nothing_to_test_guesses_against() {
    let db = temp_db("tenancy-keyed");
    assert_active(&remember(
        &db,
        T0,
        "acme",
        "u1",
        &candidate(
            "acme",
            "u1",
            "The vault codename is BLUEFOX",
            "user",
            "evt-1",
        ),
    ));
    forget_text(&db, T1, "acme", "u1", "BLUEFOX");
    let rows = tombstone_rows(&db);
    let fragment = rows
        .iter()
        .find(|r| r.3 == "text" && r.2 == 7)
        .expect("a tombstone of the 7-character fragment")
        .clone();
    assert_eq!(fragment.0.as_deref(), Some("u1"), "owned by u1");
    // Neither the old unkeyed hash nor a plain SHA-256 of the fragment is
    // anywhere in the database's files: nothing to hash guesses against.
    for guess in [format!("{:016x}", fnv1a(b"bluefox")), sha256_hex("bluefox")] {
        assert_ne!(fragment.1, guess);
        assert_eq!(files_holding(&db, &guess), Vec::<String>::new(), "{guess}");
    }
    // It is an HMAC-SHA-256 under u1's key, derived from the secret in the
    // key file beside the database, which the database does not hold.
    let key_file = format!("{db}.key");
    let key_text = std::fs::read_to_string(&key_file).expect("the key file beside the database");
    assert!(files_holding(&db, key_text.trim()).is_empty());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "readable by its owner only");
    }
    let secret = FingerprintSecret::from_hex(&key_text).expect("a key");
    let owner = w::Scope {
        tenant: "acme".into(),
        user: Some("u1".into()),
        project: None,
        thread: None,
        agent: None,
    };
    assert_eq!(fragment.1, hmac_hex(&secret.derive(&owner), "bluefox"));
    // Without the key the erased content is not silently let back in: the
    // host refuses, naming the file.
    let moved = format!("{db}.key.moved");
    std::fs::rename(&key_file, &moved).expect("move the key away");
    let err = as_principal(
        &db,
        T2,
        "acme",
        Some("u1"),
        &["remember"],
        &candidate("acme", "u1", "BLUEFOX again", "tool", "t-1"),
    )
    .expect_err("no key, no decision");
    assert!(
        err.message.contains("missing") && err.message.contains(".key"),
        "{}",
        err.message
    );
    assert!(!std::path::Path::new(&key_file).exists(), "not replaced");
    std::fs::rename(&moved, &key_file).expect("restore the key");
    let d = remember(
        &db,
        T2,
        "acme",
        "u1",
        &candidate("acme", "u1", "BLUEFOX again", "tool", "t-1"),
    );
    assert_eq!(d["disposition"], "rejected", "{d}");
}

#[test]
fn the_owner_may_state_erased_content_again_but_nothing_re_derives_it() {
    let db = temp_db("tenancy-restate");
    let at = |now: &str, text: &str, kind: &str, r: &str, observed: Option<&str>| {
        let mut c: Value = serde_json::from_str(&candidate("acme", "u1", text, kind, r)).unwrap();
        if let Some(o) = observed {
            c["observed_at"] = json!(o);
        }
        remember(&db, now, "acme", "u1", &c.to_string())
    };
    assert_active(&at(
        T0,
        "I moved to Ulaanbaatar last spring",
        "user",
        "msg-1",
        Some(T0),
    ));
    forget_text(&db, T1, "acme", "u1", "Ulaanbaatar");
    // Re-derivation stays blocked: the old message replayed, a summary an
    // agent made of it, a document, a message that only quotes one.
    for (text, kind, r, observed, why) in [
        (
            "I moved to Ulaanbaatar last spring",
            "user",
            "msg-1",
            None,
            "source",
        ),
        (
            "I moved to Ulaanbaatar last spring",
            "user",
            "msg-1b",
            Some(T0),
            "observed before",
        ),
        (
            "The user lives in Ulaanbaatar",
            "agent",
            "summary-7",
            None,
            "re-derives",
        ),
        (
            "Employee address: Ulaanbaatar",
            "document",
            "hr.pdf",
            None,
            "re-derives",
        ),
        (
            "Here is the ticket text: the customer lives in Ulaanbaatar",
            "user",
            "msg-5",
            None,
            "quoted",
        ),
    ] {
        let d = at(T2, text, kind, r, observed);
        assert_eq!(d["disposition"], "rejected", "{text}: {d}");
        assert!(
            reasons(&d).contains("tombstone") && reasons(&d).contains(why),
            "{text}: {why}: {d}"
        );
    }
    // A new explicit statement by the same user is admitted, and says so.
    let d = at(
        T2,
        "I live in Ulaanbaatar again now",
        "user",
        "msg-9",
        Some(T2),
    );
    assert_active(&d);
    assert!(reasons(&d).contains("re-statement"), "{d}");
    assert!(listed(&db, "acme", "u1").contains("Ulaanbaatar again"));
    // A secret is still rejected by the sensitivity gate.
    forget_text(&db, T2, "acme", "u1", "Hunter2-Ulaan!");
    let d = at(
        T2,
        "my password is Hunter2-Ulaan!",
        "user",
        "msg-10",
        Some(T2),
    );
    assert_eq!(d["disposition"], "rejected", "{d}");
    assert!(reasons(&d).contains("secret"), "{d}");
    // An import never brings it back.
    let rec = json!({"external_id": "old:1", "kind": "episodic", "text": "moved to Ulaanbaatar",
                     "scope": {"tenant": "acme", "user": "u1"}, "source": {"kind": "user", "ref": "x"}});
    let e = as_principal(&db, T2, "acme", Some("u1"), &["import"], &rec.to_string())
        .expect_err("import of erased content");
    assert!(e.message.contains("tombstone"), "{}", e.message);
}

#[test]
fn a_user_pinned_forget_scrubs_only_that_users_events() {
    let db = temp_db("tenancy-scrub");
    for user in ["u1", "u2"] {
        let d = remember(
            &db,
            T0,
            "acme",
            user,
            &candidate(
                "acme",
                user,
                "这次先别动 BLUEFOX 那台机器",
                "user",
                &format!("evt-{user}"),
            ),
        );
        assert_eq!(d["disposition"], "working", "{d}");
    }
    forget_text(&db, T1, "acme", "u1", "BLUEFOX");
    let conn = rusqlite::Connection::open(&db).expect("open");
    let payload = |user: &str| -> String {
        conn.query_row(
            "SELECT payload FROM events WHERE kind = 'task-state' AND user = ?",
            [user],
            |r| r.get(0),
        )
        .expect("a task-state event")
    };
    assert!(!payload("u1").contains("BLUEFOX"), "{}", payload("u1"));
    assert!(payload("u2").contains("BLUEFOX"), "u2's event was scrubbed");
}

/// The message with the asked id replaced, to compare two answers.
fn without(message: &str, id: &str) -> String {
    message.replace(id, "<id>")
}

#[test]
fn ids_are_per_tenant_and_no_message_confirms_another_tenants_id() {
    let db = temp_db("tenancy-ids");
    let d = remember(
        &db,
        T0,
        "acme",
        "u1",
        &json!({"text": "I prefer green tea", "scope": {"tenant": "acme", "user": "u1"},
                "source": {"kind": "user", "ref": "e1"}, "kind_hint": "semantic",
                "subject": "user:u1", "predicate": "drink", "object": "green tea"})
        .to_string(),
    );
    let id = d["memory_id"].as_str().expect("stored").to_string();
    let absent = "m-00000000deadbeef";
    // Another tenant asking for it gets the answer an absent id gets.
    for cmd in [&["history", "--id"][..], &["forget"][..]] {
        let ask = |x: &str| {
            let mut args = cmd.to_vec();
            let input = if cmd[0] == "history" {
                args.push(x);
                String::new()
            } else {
                json!({ "memory_id": x }).to_string()
            };
            as_principal(&db, T1, "globex", None, &args, &input)
                .expect_err("not globex's")
                .message
        };
        assert_eq!(without(&ask(&id), &id), without(&ask(absent), absent));
    }
    // Another tenant may hold the same id (a hostile guest or host choosing
    // it): no conflict, nothing revealed, acme's memory untouched.
    let mut store = SqliteStore::open(std::path::Path::new(&db)).expect("open");
    let mut theirs = store
        .revisions(&principal("acme"), &id)
        .expect("revisions")
        .remove(0)
        .memory;
    theirs.scope = scope("globex", None);
    theirs.text = "globex's own record".into();
    store
        .commit(
            &principal("globex"),
            &[w::WriteOp::Insert(w::Insert {
                memory: theirs,
                index_terms: vec!["globex".into()],
            })],
        )
        .expect("the same id in another tenant is another memory");
    drop(store);
    let acme = as_principal(&db, T1, "acme", None, &["history", "--id", &id], "").expect("history");
    assert!(
        acme.contains("green tea") && !acme.contains("globex"),
        "{acme}"
    );
    // The operator (no --tenant) is asked to say which.
    let e = cli(&["history", "--db", &db, "--id", &id], "").expect_err("two tenants");
    assert!(
        e.message.contains("acme, globex") && e.message.contains("--tenant"),
        "{}",
        e.message
    );
    // --user without --tenant would widen the run: refused.
    let e = cli(&["list", "--db", &db, "--user", "u1"], "").expect_err("--user alone");
    assert!(e.message.contains("--tenant"), "{}", e.message);
}

#[test]
fn a_file_of_schema_5_migrates_keeping_memories_and_dropping_unkeyed_tombstones() {
    let db = temp_db("tenancy-migrate");
    {
        let conn = rusqlite::Connection::open(&db).expect("create");
        for sql in [
            include_str!("../../host/schema/0001-init.sql"),
            include_str!("../../host/schema/0002-filter-index.sql"),
            include_str!("../../host/schema/0003-term-counts.sql"),
            include_str!("../../host/schema/0004-erasure-marker.sql"),
            include_str!("../../host/schema/0005-scope-documents.sql"),
        ] {
            conn.execute_batch(sql).expect("old migration");
        }
        conn.execute_batch("PRAGMA user_version = 5")
            .expect("version");
    }
    // Written by the old schema: one memory, one unkeyed tombstone.
    let d = {
        // The current host migrates on open, so write the rows by hand.
        let conn = rusqlite::Connection::open(&db).expect("open");
        conn.execute(
            "INSERT INTO memories (id, revision, tenant, user, kind, status, sensitivity, updated_at, etag, length, body)
             VALUES ('m-old', 1, 'acme', 'u1', 'episodic', 'active', 1, 0, 1, 1, ?)",
            [old_body()],
        )
        .expect("old memory");
        conn.execute(
            "INSERT INTO postings (term, tenant, rid, user, kind, status, sensitivity) VALUES ('harbour', 'acme', 1, 'u1', 'episodic', 'active', 1)",
            [],
        )
        .expect("old posting");
        conn.execute(
            "INSERT INTO tombstones VALUES ('acme', '00112233aabbccdd', 7, 'text', 0, 0)",
            [],
        )
        .expect("old tombstone");
        conn.query_row("SELECT count(*) FROM memories", [], |r| r.get::<_, i64>(0))
            .expect("count")
    };
    assert_eq!(d, 1);
    let store = SqliteStore::open(std::path::Path::new(&db)).expect("migrate");
    assert_eq!(store.schema_version().expect("version"), 6);
    drop(store);
    assert_eq!(integrity(&db), "ok");
    let history = as_principal(&db, T1, "acme", None, &["history", "--id", "m-old"], "")
        .expect("the old memory survives");
    assert!(history.contains("harbour"), "{history}");
    assert!(listed(&db, "acme", "u1").contains("harbour"));
    let conn = rusqlite::Connection::open(&db).expect("open");
    let postings: i64 = conn
        .query_row("SELECT count(*) FROM postings WHERE rid = 1", [], |r| {
            r.get(0)
        })
        .expect("postings");
    assert_eq!(postings, 1, "postings kept");
    assert!(tombstone_rows(&db).is_empty(), "unkeyed tombstones dropped");
    assert_eq!(
        files_holding(&db, "00112233aabbccdd"),
        Vec::<String>::new(),
        "and zeroed"
    );
}

/// A stored episodic memory as the old host wrote it (the row body is the
/// contract's memory envelope).
fn old_body() -> String {
    let mut m = engram_tests::store_conformance::memory("old", scope("acme", Some("u1")), 0);
    m.id = "m-old".into();
    m.text = "We met at the harbour".into();
    engram_contract::body::encode(&m)
}
