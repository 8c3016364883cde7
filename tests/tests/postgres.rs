//! `engram --db postgres://…` end to end, on a throwaway server this test
//! starts (it fails, never skips, when the server cannot start): every
//! command gives the same answers as on SQLite, and several processes
//! writing one tenant at once lose no decision, never leave two active
//! revisions of one key, and never show a reader half a commit.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use engram_tests::postgres::Cluster;
use engram_tests::*;
use serde_json::Value;

const NOW: &str = "2026-08-01T10:00:00+08:00";

fn json_lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The fingerprint key file every store of this test uses (a PostgreSQL
/// store needs one named: docs/durability.md).
fn key() -> String {
    format!("{}.key", temp_db("pg-fingerprint"))
}

/// One command on both stores; the outputs must be identical.
fn both(sqlite: &str, pg: &str, args: &[&str], stdin: &str) -> String {
    let key = key();
    let run = |db: &str| {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--db", db, "--now", NOW, "--fingerprint-key", &key]);
        cli(&a, stdin).unwrap_or_else(|e| panic!("engram {args:?} on {db}: {}", e.message))
    };
    let (on_sqlite, on_pg) = (run(sqlite), run(pg));
    assert_eq!(
        on_sqlite, on_pg,
        "engram {args:?}: SQLite and PostgreSQL differ"
    );
    on_pg
}

#[test]
fn every_command_answers_on_postgres_as_on_sqlite() {
    let cluster = Cluster::start();
    let pg = cluster.create_database("commands");
    let sqlite = temp_db("pg-commands");
    let imported = both(
        &sqlite,
        &pg,
        &["import"],
        concat!(
            r#"{"external_id":"D1:1","kind":"episodic","text":"Ana: I ran the Lisbon half marathon yesterday in 1:52","scope":{"tenant":"t","user":"u1"},"source":{"kind":"user","ref":"s1"},"occurred_at":"2026-07-20T09:00:00Z"}"#,
            "\n",
            r#"{"external_id":"D1:2","kind":"episodic","text":"Ben: we repainted the kitchen green last weekend","scope":{"tenant":"t","user":"u1"},"source":{"kind":"user","ref":"s1"},"occurred_at":"2026-07-21T09:00:00Z"}"#,
            "\n"
        ),
    );
    let id = json_lines(&imported)[0]["id"]
        .as_str()
        .expect("an id")
        .to_string();
    let decided = both(
        &sqlite,
        &pg,
        &["remember"],
        concat!(
            r#"{"id":"c1","text":"From now on call me Captain Ana","scope":{"tenant":"t","user":"u1"},"source":{"kind":"user","ref":"e1"},"kind_hint":"semantic","subject":"user:u1","predicate":"preferred_name","object":"Captain Ana"}"#,
            "\n",
            r#"{"id":"c2","text":"Actually, call me Dr Ana from now on","scope":{"tenant":"t","user":"u1"},"source":{"kind":"user","ref":"e2"},"kind_hint":"semantic","subject":"user:u1","predicate":"preferred_name","object":"Dr Ana"}"#,
            "\n",
            r#"{"id":"c3","text":"my password is hunter2-very-secret","scope":{"tenant":"t","user":"u1"},"source":{"kind":"user","ref":"e3"}}"#,
            "\n"
        ),
    );
    let d = json_lines(&decided);
    assert_eq!(d[1]["action"], "superseded", "{decided}");
    assert_eq!(d[2]["disposition"], "rejected", "{decided}");
    let recalled = both(
        &sqlite,
        &pg,
        &["recall"],
        r#"{"id":"q1","query":"When did Ana run the half marathon?","scope":{"tenant":"t","user":"u1"},"k":5}"#,
    );
    assert!(recalled.contains("Lisbon"), "{recalled}");
    let packed = both(
        &sqlite,
        &pg,
        &["pack"],
        r#"{"budget":300,"scope":{"tenant":"t","user":"u1"},"query":"what should I call the user?"}"#,
    );
    assert!(packed.contains("Dr Ana"), "{packed}");
    assert_eq!(
        json_lines(&both(&sqlite, &pg, &["history", "--id", &id], "")).len(),
        1
    );
    let listed = both(&sqlite, &pg, &["list", "--tenant", "t"], "");
    assert_eq!(json_lines(&listed).len(), 3, "active memories: {listed}");
    let forgot = both(
        &sqlite,
        &pg,
        &["forget"],
        r#"{"scope":{"tenant":"t","user":"u1"},"text":"kitchen green"}"#,
    );
    assert!(forgot.contains("deleted"), "{forgot}");
    both(&sqlite, &pg, &["sweep", "--tenant", "t"], "");
    let after = both(&sqlite, &pg, &["list", "--tenant", "t"], "");
    assert!(!after.contains("kitchen"), "{after}");
    // The erasure's vacuum ran: no marker left, no dead tuple of the row.
    assert_eq!(
        cluster.psql("commands", "SELECT count(*) FROM erasure_pending"),
        "0"
    );
    assert_eq!(
        cluster.psql(
            "commands",
            "SELECT count(*) FROM events WHERE payload LIKE '%kitchen green%'"
        ),
        "0"
    );
}

/// Candidates of writer `w`, invocation `b`: semantic facts on keys every
/// writer shares (supersessions race), and events of its own.
fn candidates(w: usize, b: usize, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let tag = format!("w{w}-b{b}");
        let line = if i % 2 == 0 {
            let key = i % 5;
            format!(
                r#"{{"text":"The owner of service s{key} is now team {tag}-{i}","scope":{{"tenant":"fleet","user":"u"}},"source":{{"kind":"system","ref":"{tag}"}},"kind_hint":"semantic","subject":"service:s{key}","predicate":"owner","object":"team {tag}-{i}"}}"#
            )
        } else {
            format!(
                r#"{{"text":"Yesterday host {tag}-{i} finished the nightly backup of volume {i} in {} minutes","scope":{{"tenant":"fleet","user":"u"}},"source":{{"kind":"system","ref":"{tag}"}}}}"#,
                10 + i
            )
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}

fn engram_process(args: &[&str], db: &str, input: String) -> Output {
    engram_process_at(args, db, NOW, input)
}

fn engram_process_at(args: &[&str], db: &str, now: &str, input: String) -> Output {
    let mut child = engram_bin!()
        .args(args)
        .args(["--db", db, "--now", now, "--fingerprint-key", &key()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start engram");
    let mut stdin = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    child.wait_with_output().expect("engram ends")
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Memories per source tag, as one `list` sees them.
fn tags_seen(list: &str) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for m in json_lines(list) {
        let tag = m["source"]["ref"].as_str().unwrap_or("").to_string();
        *seen.entry(tag).or_insert(0) += 1;
    }
    seen
}

#[test]
fn four_writers_into_one_tenant_lose_nothing() {
    const WRITERS: usize = 4;
    const RUNS: usize = 8;
    const PER_RUN: usize = 25; // 200 candidates per writer
    let cluster = Cluster::start();
    let db = cluster.create_database("fleet");
    // Create the schema before the writers race.
    ok(
        engram_process(&["list", "--tenant", "fleet"], &db, String::new()),
        "list",
    );
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (db, done) = (db.clone(), done.clone());
        std::thread::spawn(move || {
            let mut views = Vec::new();
            while !done.load(Ordering::SeqCst) {
                let mut args = vec!["list", "--tenant", "fleet"];
                for s in [
                    "pending",
                    "active",
                    "superseded",
                    "retracted",
                    "expired",
                    "conflicted",
                    "archived",
                ] {
                    args.extend(["--status", s]);
                }
                let out = engram_process(&args, &db, String::new());
                views.push(tags_seen(&ok(out, "list")));
            }
            views
        })
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                (0..RUNS)
                    .map(|b| {
                        // Run b of every writer in minute b: 100 writes a
                        // minute, under the scope's write-rate limit.
                        let now = format!("2026-08-01T10:{b:02}:00+08:00");
                        let out =
                            engram_process_at(&["remember"], &db, &now, candidates(w, b, PER_RUN));
                        (format!("w{w}-b{b}"), ok(out, "remember"))
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let outputs: Vec<(String, String)> = writers
        .into_iter()
        .flat_map(|h| h.join().expect("writer"))
        .collect();
    done.store(true, Ordering::SeqCst);
    let views = reader.join().expect("reader");

    // Every decision is accounted for: each created or superseding
    // decision wrote one revision, a duplicate none, and every memory id
    // answered exists.
    let mut ids = BTreeSet::new();
    let mut revisions_written = 0;
    let mut per_tag = BTreeMap::new();
    for (tag, out) in &outputs {
        let lines = json_lines(out);
        assert_eq!(lines.len(), PER_RUN, "{tag}: one decision per candidate");
        for d in &lines {
            assert_eq!(d["disposition"], "active", "{tag}: {d}");
            let action = d["action"].as_str().unwrap_or("");
            assert!(
                ["created", "superseded", "duplicate"].contains(&action),
                "{d}"
            );
            if action != "duplicate" {
                revisions_written += 1;
                *per_tag.entry(tag.clone()).or_insert(0) += 1;
            }
            ids.insert(d["memory_id"].as_str().expect("memory id").to_string());
        }
    }
    let stored: usize = cluster
        .psql(
            "fleet",
            "SELECT count(*) FROM memories WHERE tenant = 'fleet'",
        )
        .parse()
        .expect("a count");
    assert_eq!(stored, revisions_written, "revisions stored vs decided");
    let id_list = ids
        .iter()
        .map(|i| format!("'{i}'"))
        .collect::<Vec<_>>()
        .join(",");
    let found: usize = cluster
        .psql(
            "fleet",
            &format!("SELECT count(DISTINCT id) FROM memories WHERE id IN ({id_list})"),
        )
        .parse()
        .expect("a count");
    assert_eq!(found, ids.len(), "every answered memory id is stored");
    // At most one active revision per key, and exactly one per raced key.
    let doubled = cluster.psql(
        "fleet",
        "SELECT subject, count(*) FROM memories WHERE status = 'active' AND kind = 'semantic'
         GROUP BY tenant, user_id, project, thread, agent, subject, predicate, condition HAVING count(*) > 1",
    );
    assert_eq!(doubled, "", "two active revisions of one key");
    assert_eq!(
        cluster.psql(
            "fleet",
            "SELECT count(*) FROM memories WHERE status = 'active' AND kind = 'semantic'"
        ),
        "5"
    );
    // No reader saw part of a commit: a run's memories appear all at once.
    assert!(views.len() >= 2, "the reader ran {} times", views.len());
    for view in &views {
        for (tag, n) in view {
            assert_eq!(Some(n), per_tag.get(tag), "a reader saw part of {tag}");
        }
    }
    eprintln!(
        "{} runs, {revisions_written} revisions, {} memory ids, {} reader views",
        outputs.len(),
        ids.len(),
        views.len()
    );
}

/// The files under the database's directory that contain `needle`.
fn table_files_holding(cluster: &Cluster, db: &str, needle: &str) -> Vec<String> {
    let oid = cluster.psql(
        "postgres",
        &format!("SELECT oid FROM pg_database WHERE datname = '{db}'"),
    );
    let dir = cluster.data_dir().join("base").join(oid);
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(&dir)
        .expect("the database directory")
        .flatten()
    {
        let bytes = std::fs::read(entry.path()).unwrap_or_default();
        if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
            hits.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    hits
}

#[test]
fn forget_then_vacuum_leaves_no_table_file_holding_the_text() {
    let cluster = Cluster::start();
    let db = cluster.create_database("erasure");
    let fact = "Quillon Ashgrove keeps the spare key under the blue planter";
    let remembered = cli(
        &["remember", "--db", &db, "--now", NOW],
        &format!(
            r#"{{"text":"{fact}","scope":{{"tenant":"t","user":"u1"}},"source":{{"kind":"user","ref":"e1"}},"kind_hint":"semantic","subject":"user:u1","predicate":"spare_key_place","object":"under the blue planter"}}"#
        ),
    )
    .expect("remember");
    assert!(remembered.contains("\"active\""), "{remembered}");
    cluster.psql("erasure", "CHECKPOINT");
    assert!(
        !table_files_holding(&cluster, "erasure", "Quillon Ashgrove").is_empty(),
        "the fixture must be in the table files before it is forgotten"
    );
    let forgot = cli(
        &[
            "forget",
            "--db",
            &db,
            "--now",
            NOW,
            "--fingerprint-key",
            &key(),
        ],
        r#"{"scope":{"tenant":"t","user":"u1"},"text":"Quillon Ashgrove"}"#,
    )
    .expect("forget");
    assert!(forgot.contains("deleted"), "{forgot}");
    // The forget's own VACUUM removed the dead tuples from the heap and
    // indexes; the bytes may still sit in freed page space until reused.
    cluster.psql("erasure", "CHECKPOINT");
    let after_forget = table_files_holding(&cluster, "erasure", "Quillon Ashgrove");
    eprintln!("after forget's vacuum, files still holding the bytes: {after_forget:?}");
    let report = cli(&["vacuum", "--db", &db], "").expect("vacuum");
    let v: Value = serde_json::from_str(report.trim()).expect("a JSON report");
    assert_eq!(v["checkpointed"], true, "{report}");
    assert!(v["bytes_before"].as_i64().unwrap_or(0) > 0, "{report}");
    assert_eq!(
        table_files_holding(&cluster, "erasure", "Quillon Ashgrove"),
        Vec::<String>::new(),
        "after engram vacuum no table file holds the erased text"
    );
    // The store still works afterwards.
    let listed = cli(&["list", "--db", &db, "--tenant", "t"], "").expect("list");
    assert!(!listed.contains("Quillon"), "{listed}");
    let sqlite = cli(&["vacuum", "--db", &temp_db("not-pg")], "").expect_err("sqlite");
    assert!(sqlite.message.contains("PostgreSQL"), "{}", sqlite.message);
}
