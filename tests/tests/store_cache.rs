//! The SQLite store keeps term statistics, postings and decoded records
//! between recalls (`host/src/postings_cache.rs`). What it serves must
//! always be what the database holds now: another connection's commit, this
//! connection's own writes and the validity instant of each query must all
//! show in the very next recall.

use engram_host::bindings as w;
use engram_host::{Engram, Options};
use engram_tests::*;

fn open(db: &str) -> Engram {
    Engram::open(
        db,
        Options {
            now: Some(fixed_now()),
            ..Options::default()
        },
    )
    .expect("open")
}

fn found(e: &mut Engram, q: w::Query) -> Vec<String> {
    let r = e.recall(principal("acme"), vec![q]).expect("recall");
    let mut ids: Vec<String> = r[0]
        .results
        .iter()
        .filter_map(|s| s.memory.provenance.external_id.clone())
        .collect();
    ids.sort();
    ids
}

fn deploy_query() -> w::Query {
    query("acme", Some("u1"), "billing-service deploy", 10)
}

#[test]
fn recall_sees_other_connections_and_own_writes_at_once() {
    let db = temp_db("store-cache");
    let mut a = open(&db);
    let mut b = open(&db);
    a.import(
        principal("acme"),
        vec![episode(
            "acme",
            "u1",
            "x1",
            "The deploy of billing-service failed on a full disk",
        )],
    )
    .expect("import");
    assert_eq!(found(&mut a, deploy_query()), vec!["x1"]);

    // Another connection (another process, as far as SQLite knows) commits.
    let x2 = b
        .import(
            principal("acme"),
            vec![episode(
                "acme",
                "u1",
                "x2",
                "billing-service deploy succeeded after the disk was cleaned",
            )],
        )
        .expect("import")
        .remove(0)
        .memory_id;
    assert_eq!(found(&mut a, deploy_query()), vec!["x1", "x2"]);

    // This connection writes.
    a.import(
        principal("acme"),
        vec![episode(
            "acme",
            "u1",
            "x3",
            "billing-service deploy was rolled back by the on-call engineer",
        )],
    )
    .expect("import");
    assert_eq!(found(&mut a, deploy_query()), vec!["x1", "x2", "x3"]);

    // The other connection forgets one: gone from the next recall here.
    let report = b
        .forget(
            principal("acme"),
            vec![w::ForgetSelector::MemoryId(x2.clone())],
        )
        .expect("forget");
    assert_eq!(report.deleted, vec![x2]);
    assert_eq!(found(&mut a, deploy_query()), vec!["x1", "x3"]);
}

#[test]
fn validity_is_judged_at_each_query_instant() {
    let db = temp_db("store-cache-validity");
    let mut e = open(&db);
    let day = 86_400_000;
    let mut later = episode(
        "acme",
        "u1",
        "future",
        "billing-service deploy freeze for the audit",
    );
    later.candidate.valid_from = Some(w::Datetime {
        epoch_ms: fixed_now().epoch_ms + 10 * day,
        offset_minutes: 480,
    });
    let now = episode(
        "acme",
        "u1",
        "now",
        "billing-service deploy pipeline moved to the new runners",
    );
    e.import(principal("acme"), vec![later, now])
        .expect("import");

    // Same connection, nothing written between: the second and third
    // recalls are served from the cache at other instants.
    assert_eq!(found(&mut e, deploy_query()), vec!["now"]);
    let mut q = deploy_query();
    q.as_of = Some(w::Datetime {
        epoch_ms: fixed_now().epoch_ms + 11 * day,
        offset_minutes: 480,
    });
    assert_eq!(found(&mut e, q), vec!["future", "now"]);
    assert_eq!(found(&mut e, deploy_query()), vec!["now"]);
}
