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

/// The store's term counts rank exactly as the guest's own analysis: the
/// same database with its counts erased (as rows written before the store
/// kept them) recalls the same results with the same scores.
#[test]
fn counted_and_uncounted_postings_rank_alike() {
    let db = temp_db("store-cache-counts");
    let mut e = open(&db);
    let texts = [
        "The deploy of billing-service failed: the disk on db-7 was full; the deploy was retried twice",
        "billing-service uses PostgreSQL 16 on db-7 and db-8",
        "上次 billing-service 发布失败，因为 db-7 磁盘满了，发布被回滚",
        "When a deploy fails on a full disk, clean /var/log first, then retry the deploy",
        "Caroline moved the billing-service on-call rotation to Mondays",
    ];
    let records: Vec<w::ImportRecord> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| episode("acme", "u1", &format!("x{i}"), t))
        .collect();
    e.import(principal("acme"), records).expect("import");
    let queries = [
        "why did the billing-service deploy fail",
        "billing-service 发布为什么失败",
        "what database does billing-service use",
        "who is on call for billing-service",
    ];
    let recall_all = |e: &mut Engram| -> Vec<Vec<(String, f64)>> {
        queries
            .iter()
            .map(|t| {
                let r = e
                    .recall(principal("acme"), vec![query("acme", Some("u1"), t, 10)])
                    .expect("recall");
                r[0].results
                    .iter()
                    .map(|s| (s.memory.id.clone(), s.score))
                    .collect()
            })
            .collect()
    };
    let counted = recall_all(&mut e);
    assert!(counted.iter().all(|r| !r.is_empty()));
    drop(e);
    let conn = rusqlite::Connection::open(&db).expect("open db");
    let n = conn
        .execute("UPDATE postings SET tf = NULL", [])
        .expect("erase counts");
    assert!(n > 0);
    drop(conn);
    let mut e = open(&db);
    assert_eq!(recall_all(&mut e), counted);
}
