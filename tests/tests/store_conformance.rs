//! The store conformance suite (`engram_tests::store_conformance`) against
//! every store: SQLite in memory, SQLite on file, and PostgreSQL on a
//! throwaway server this test starts (and fails, never skips, without).

use engram_host::backend::Backend;
use engram_host::fingerprint::KeySource;
use engram_host::postgres::PgStore;
use engram_host::sqlite::SqliteStore;
use engram_tests::postgres::Cluster;
use engram_tests::store_conformance::{run_all, second_store_sees_commits};
use engram_tests::temp_db;

#[test]
fn sqlite_in_memory_conforms() {
    let mut store = SqliteStore::open_in_memory().expect("open");
    run_all(&mut store, "mem");
}

#[test]
fn sqlite_on_file_conforms() {
    let db = temp_db("conformance");
    let mut store = SqliteStore::open(std::path::Path::new(&db)).expect("open");
    run_all(&mut store, "file");
    let mut other = SqliteStore::open(std::path::Path::new(&db)).expect("open again");
    second_store_sees_commits(&mut store, &mut other, "file-two");
    // The scrub reached u1's events only; the key file sits beside the
    // database, and the store recorded its id.
    let conn = rusqlite::Connection::open(&db).expect("open");
    let payloads: Vec<String> = conn
        .prepare("SELECT payload FROM events WHERE tenant = 'file-8' ORDER BY user, seq")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("events");
    assert_eq!(
        payloads,
        ["said [erased] twice: [erased]", "u2 also said hunter2"]
    );
    let key = std::path::PathBuf::from(format!("{db}.key"));
    assert!(key.exists(), "{}", key.display());
    let recorded: String = conn
        .query_row("SELECT key_id FROM fingerprint_key", [], |r| r.get(0))
        .expect("key id");
    assert_eq!(
        recorded,
        store.fingerprint_secret().expect("secret").key_id()
    );
}

#[test]
fn postgres_conforms_and_migrates_once() {
    let cluster = Cluster::start();
    let url = cluster.create_database("conformance");
    let key = KeySource::File(std::path::PathBuf::from(format!(
        "{}.key",
        temp_db("pg-conformance")
    )));
    let mut store = PgStore::open_with_key(&url, key.clone()).expect("open PostgreSQL");
    assert_eq!(store.schema_version().expect("version"), 3);
    run_all(&mut store, "pg");
    // A second store on the same server sees the first one's commits, and
    // opening again migrates nothing.
    let mut again = PgStore::open_with_key(&url, key).expect("reopen");
    second_store_sees_commits(&mut store, &mut again, "pg-two");
    assert_eq!(again.schema_version().expect("version"), 3);
    assert_eq!(again.tenants_of("pg-9:r").expect("owners"), ["pg-9"]);
    assert_eq!(
        cluster.psql("conformance", "SELECT count(*) FROM engram_schema"),
        "3"
    );
    // A store without the key file refuses to fingerprint, naming the flag.
    let e = PgStore::open(&url)
        .expect("open without a key")
        .fingerprint_secret()
        .expect_err("no key");
    assert!(format!("{e:?}").contains("--fingerprint-key"), "{e:?}");
    // The erasing commits finished their vacuum; the scrubbed payload
    // keeps no trace of the fragment, in this tenant only.
    assert_eq!(
        cluster.psql("conformance", "SELECT count(*) FROM erasure_pending"),
        "0"
    );
    assert_eq!(
        cluster.psql(
            "conformance",
            "SELECT payload FROM events WHERE tenant = 'pg-8' ORDER BY user_id, seq"
        ),
        "said [erased] twice: [erased]\nu2 also said hunter2"
    );
    assert_eq!(
        cluster.psql(
            "conformance",
            "SELECT payload FROM events WHERE tenant = 'pg-8-other'"
        ),
        "hunter2 elsewhere"
    );
    // The rule of one active revision per key is the database's own.
    let second_active = cluster_insert_second_active(&cluster);
    assert!(
        second_active.contains("memories_one_active_per_key"),
        "{second_active}"
    );
}

/// Try to break the one-active-revision rule with plain SQL, as a writer
/// that is not Engram would: the unique index refuses it.
fn cluster_insert_second_active(cluster: &Cluster) -> String {
    let sql = "INSERT INTO memories (id, revision, tenant, user_id, kind, status, sensitivity, subject, predicate, updated_at, etag, length, body)
               SELECT id || '-copy', revision, tenant, user_id, kind, status, sensitivity, subject, predicate, updated_at, etag, length, body
               FROM memories WHERE status = 'active' AND kind = 'semantic' AND tenant = 'pg-5' LIMIT 1";
    match cluster.try_psql("conformance", sql) {
        Ok(_) => panic!("the second active revision was stored"),
        Err(e) => e,
    }
}

/// Several handles on one pool, one per thread, see one another's commits.
#[test]
fn postgres_handles_share_one_pool() {
    let cluster = Cluster::start();
    let url = cluster.create_database("pool");
    let key = KeySource::File(std::path::PathBuf::from(format!(
        "{}.key",
        temp_db("pg-pool")
    )));
    let store = PgStore::open_with_key(&url, key).expect("open");
    let threads: Vec<_> = (0..3)
        .map(|i| {
            let mut h = store.handle();
            std::thread::spawn(move || {
                engram_tests::store_conformance::tombstones(&mut h, &format!("thread-{i}"));
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    let mut h = store.handle();
    for i in 0..3 {
        let wide = engram_host::bindings::Scope {
            tenant: format!("thread-{i}"),
            user: None,
            project: None,
            thread: None,
            agent: None,
        };
        assert_eq!(h.tombstones(&wide).expect("read").len(), 2);
    }
}
