//! Erasure reaches the bytes: after `engram forget`, the forgotten text is in
//! none of the database's files (the database, its WAL, its shared-memory
//! file), whichever selector named it, including superseded revisions and
//! the event log; and a crash between the erasing commit and its checkpoint
//! is finished by the next open before anything else.

use engram_tests::{cli, files_holding, temp_db};
use serde_json::Value;

const NOW: &str = "2026-08-01T10:00:00+08:00";

fn lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn remember(db: &str, lines_in: &[String]) -> Vec<Value> {
    let out = cli(
        &["remember", "--db", db, "--now", NOW],
        &lines_in.join("\n"),
    )
    .unwrap_or_else(|e| panic!("remember: {}", e.message));
    lines(&out)
}

/// The fixtures must really be stored, or erasing them proves nothing.
fn assert_stored(decisions: &[Value]) {
    for d in decisions {
        assert_eq!(d["disposition"], "active", "fixture not stored: {d}");
    }
}

fn candidate(text: &str, source_ref: &str) -> String {
    serde_json::json!({
        "text": text,
        "scope": {"tenant": "acme", "user": "u1"},
        "source": {"kind": "user", "ref": source_ref},
    })
    .to_string()
}

/// The fragments each case erases, and one memory that must stay.
const KEPT: &str = "Ingrid prefers the window seat on long flights";

#[test]
fn forget_by_text_leaves_the_fragment_in_no_file() {
    let db = temp_db("erase-text");
    let secret_ish = "Quillon Ashgrove moved to Ulaanbaatar";
    let decisions = remember(
        &db,
        &[
            candidate(&format!("{secret_ish} last spring."), "evt-text-1"),
            candidate(KEPT, "evt-kept"),
        ],
    );
    assert_stored(&decisions);
    assert!(
        !files_holding(&db, "Quillon Ashgrove").is_empty(),
        "the fixture must be stored before it is forgotten"
    );
    let sel =
        serde_json::json!({"scope": {"tenant": "acme", "user": "u1"}, "text": "Quillon Ashgrove"});
    let report = cli(&["forget", "--db", &db, "--now", NOW], &sel.to_string())
        .unwrap_or_else(|e| panic!("forget: {}", e.message));
    assert!(report.contains("deleted"), "{report}");
    for needle in ["Quillon Ashgrove", "Ulaanbaatar"] {
        assert_eq!(files_holding(&db, needle), Vec::<String>::new(), "{needle}");
    }
    // What was not forgotten is still there, and readable.
    assert!(!files_holding(&db, "window seat").is_empty());
    let listed = cli(&["list", "--db", &db, "--tenant", "acme"], "").expect("list");
    assert!(listed.contains("window seat") && !listed.contains("Ashgrove"));
}

#[test]
fn forget_by_id_erases_every_revision_and_by_source_every_memory_of_it() {
    let db = temp_db("erase-id-source");
    // Two revisions of one key: the first is superseded by the second.
    let first = serde_json::json!({
        "text": "Brisco Tamarind works at Velloran Labs",
        "scope": {"tenant": "acme", "user": "u1"},
        "source": {"kind": "user", "ref": "evt-id-1"},
        "subject": "Brisco Tamarind", "predicate": "employer", "object": "Velloran Labs",
    });
    let second = serde_json::json!({
        "text": "Brisco Tamarind works at Oxmoor Dynamics",
        "scope": {"tenant": "acme", "user": "u1"},
        "source": {"kind": "user", "ref": "evt-id-2"},
        "subject": "Brisco Tamarind", "predicate": "employer", "object": "Oxmoor Dynamics",
    });
    let d1 = remember(&db, &[first.to_string()]);
    let d2 = remember(&db, &[second.to_string()]);
    let id = d1[0]["memory_id"].as_str().expect("stored").to_string();
    assert_eq!(d2[0]["memory_id"].as_str(), Some(id.as_str()), "{d2:?}");
    let history = lines(&cli(&["history", "--db", &db, "--id", &id], "").expect("history"));
    assert_eq!(history.len(), 2, "two revisions before the forget");

    // A memory from a source event, to be forgotten by that source.
    remember(
        &db,
        &[
            candidate(
                "Corvina Leaside plays the theremin on Sundays.",
                "evt-src-9",
            ),
            candidate(KEPT, "evt-kept"),
        ],
    );

    let selectors = [
        serde_json::json!({"memory_id": id}).to_string(),
        serde_json::json!({"scope": {"tenant": "acme", "user": "u1"}, "source_ref": "evt-src-9"})
            .to_string(),
    ];
    cli(
        &["forget", "--db", &db, "--now", NOW],
        &selectors.join("\n"),
    )
    .unwrap_or_else(|e| panic!("forget: {}", e.message));
    for needle in ["Velloran", "Oxmoor", "Corvina Leaside", "theremin"] {
        assert_eq!(files_holding(&db, needle), Vec::<String>::new(), "{needle}");
    }
    assert!(!files_holding(&db, "window seat").is_empty());
}

/// A crash after the erasing commit and before its checkpoint: the old page
/// images stay in the database file until the next open, which scrubs them
/// before it answers anything.
#[test]
fn an_interrupted_erasure_is_finished_by_the_next_open() {
    let db = temp_db("erase-interrupted");
    let decisions = remember(
        &db,
        &[
            candidate("Dorrit Halvane lives in Tromsø.", "evt-crash-1"),
            candidate(KEPT, "evt-kept"),
        ],
    );
    assert_stored(&decisions);

    // A reader holding an old snapshot keeps the checkpoint from completing.
    let reader = rusqlite::Connection::open(&db).expect("open reader");
    reader.execute_batch("BEGIN").expect("begin");
    let _: i64 = reader
        .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
        .expect("read");
    let sel = serde_json::json!({"scope": {"tenant": "acme"}, "text": "Dorrit Halvane"});
    let err = cli(
        &[
            "forget",
            "--db",
            &db,
            "--now",
            NOW,
            "--busy-timeout-ms",
            "200",
        ],
        &sel.to_string(),
    )
    .expect_err("the checkpoint cannot complete while the reader holds its snapshot");
    assert!(
        err.message.contains("erased") && err.message.contains("write-ahead log"),
        "{}",
        err.message
    );
    reader.execute_batch("COMMIT").expect("end read");
    let pending: i64 = reader
        .query_row("SELECT count(*) FROM erasure_pending", [], |r| r.get(0))
        .expect("marker");
    assert_eq!(pending, 1, "the marker commits with the erasure");
    // The erasure is committed: no reader sees the memory any more…
    let gone: i64 = reader
        .query_row(
            "SELECT count(*) FROM memories WHERE body LIKE '%Halvane%'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(gone, 0);
    // …but its old page images are still on disk. Leaking the connection
    // stands in for a crashed process: it never closes, so SQLite's
    // checkpoint-on-close never runs.
    assert!(!files_holding(&db, "Dorrit Halvane").is_empty());
    std::mem::forget(reader);

    // Any command opens the store; opening finishes the erasure first.
    cli(&["list", "--db", &db, "--tenant", "acme"], "").expect("list");
    assert_eq!(files_holding(&db, "Dorrit Halvane"), Vec::<String>::new());
    let check = rusqlite::Connection::open(&db).expect("open");
    let pending: i64 = check
        .query_row("SELECT count(*) FROM erasure_pending", [], |r| r.get(0))
        .expect("marker");
    assert_eq!(
        pending, 0,
        "the marker is cleared once the WAL is truncated"
    );
    let ok: String = check
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity");
    assert_eq!(ok, "ok");
}
