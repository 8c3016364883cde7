//! A hostile component (`tests/hostile-guest/`, built by this package's
//! build script) in place of the policy: it reads other tenants through the
//! store, writes into them, loops, allocates without bound, sends oversized
//! store calls and stale etags. The host must stay up, answer each attack
//! with a clear typed error (denied, deadline, memory limit, conflict,
//! limit) or a harmless empty answer, and keep the store intact: integrity
//! ok and the other tenant's (and other user's) rows byte for byte unchanged.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use engram_host::bindings as w;
use engram_host::runtime::{Limits, RuntimeError};
use engram_host::{Engram, Error, Options};
use engram_tests::*;

/// The deadline of the runaway-loop attack; the others get `SLOW`, which
/// building a million terms or half a GiB needs on a loaded machine.
const TIMEOUT: Duration = Duration::from_millis(500);
const SLOW: Duration = Duration::from_secs(60);
const MEMORY: usize = 512 << 20;

const SECRET_B: &str = "tenant B roadmap: acquire the northern rival in March";
const SECRET_U2: &str = "u2 private note about the salary review";

/// The planted database: tenant-b's secret, a second user's note in
/// tenant-a, and one record of the attacker's own. Returns the path and the
/// ids of the foreign records.
struct Planted {
    db: String,
    id_b: String,
    id_u2: String,
}

fn plant(name: &str) -> Planted {
    let db = temp_db(name);
    let mut e = Engram::open(
        &db,
        Options {
            now: Some(fixed_now()),
            ..Options::default()
        },
    )
    .expect("open with the real policy");
    let mut ids = Vec::new();
    for (tenant, user, text) in [
        ("tenant-b", "u1", SECRET_B),
        ("tenant-a", "u2", SECRET_U2),
        ("tenant-a", "u1", "u1 likes the quiet office on Fridays"),
    ] {
        let r = e
            .import(
                principal(tenant),
                vec![episode(tenant, user, &format!("{tenant}-{user}"), text)],
            )
            .expect("plant");
        ids.push(r[0].memory_id.clone());
    }
    // An event in tenant-b that carries the secret word (for the scrub attack).
    e.remember(
        principal("tenant-b"),
        vec![candidate(
            "tenant-b",
            Some("u1"),
            "From now on I prefer the roadmap review on Mondays",
            w::SourceKind::User,
        )],
    )
    .expect("remember in tenant-b");
    Planted {
        db,
        id_b: ids[0].clone(),
        id_u2: ids[1].clone(),
    }
}

fn hostile(db: &str, timeout: Duration) -> Engram {
    Engram::open(
        db,
        Options {
            component: Some(PathBuf::from(env!("ENGRAM_HOSTILE_GUEST_WASM"))),
            now: Some(fixed_now()),
            limits: Limits {
                timeout,
                memory_bytes: MEMORY,
            },
            ..Options::default()
        },
    )
    .expect("the host loads the hostile component")
}

/// One attack, as a `classify` call whose candidate names it.
/// The texts of a decision's reasons: what the hostile guest reports.
fn texts(d: &w::Decision) -> Vec<&str> {
    d.reasons.iter().map(|r| r.text.as_str()).collect()
}

fn attack(
    e: &mut Engram,
    p: &w::Principal,
    name: &str,
    args: &[(&str, &str)],
) -> Result<Vec<w::Decision>, Error> {
    let mut c = candidate(&p.tenant, p.user.as_deref(), name, w::SourceKind::Agent);
    c.entities = args
        .iter()
        .map(|(k, v)| w::Entry {
            key: k.to_string(),
            value: v.to_string(),
        })
        .collect();
    e.classify(p.clone(), vec![c])
}

fn pinned_u1() -> w::Principal {
    w::Principal {
        tenant: "tenant-a".into(),
        user: Some("u1".into()),
        project: None,
    }
}

/// Rows of tenant-b, and of tenant-a's second user.
fn foreign(db: &str) -> String {
    dump_where(db, "tenant = 'tenant-b'") + &dump_where(db, "tenant = 'tenant-a' AND user = 'u2'")
}

fn denied(r: Result<Vec<w::Decision>, Error>) -> String {
    match r {
        Err(Error::Policy(w::Error::PermissionDenied(m))) => m,
        other => panic!("expected a denial, got {other:?}"),
    }
}

#[test]
fn reads_and_writes_outside_the_principal_are_denied_or_find_nothing() {
    let planted = plant("hostile-foreign");
    let db = &planted.db;
    let before = foreign(db);
    let mut e = hostile(db, SLOW);
    let a = principal("tenant-a");
    let foreign_tenant = [("tenant", "tenant-b"), ("secret", "roadmap")];
    for name in [
        "find-foreign",
        "search-foreign",
        "stats-foreign",
        "count-events-foreign",
        "session-log-foreign",
        "insert-foreign",
        "append-foreign",
    ] {
        let m = denied(attack(&mut e, &a, name, &foreign_tenant));
        assert!(
            m.contains("tenant-a") && m.contains("tenant-b"),
            "{name}: the denial names both tenants: {m}"
        );
    }
    // Another user's operation records, for a principal pinned to u1.
    let m = denied(attack(
        &mut e,
        &pinned_u1(),
        "session-log-foreign",
        &[("user", "u2")],
    ));
    assert!(m.contains("u2") && m.contains("u1"), "session-log: {m}");
    // By id: another tenant's record, and (pinned to u1) another user's.
    for (p, id) in [(a.clone(), &planted.id_b), (pinned_u1(), &planted.id_u2)] {
        let id = id.as_str();
        let got = attack(&mut e, &p, "revisions-foreign", &[("id", id)]).expect("revisions");
        assert_eq!(
            texts(&got[0]),
            vec!["revisions: 0 records"],
            "{p:?} read {id}"
        );
        for name in ["erase-foreign", "touch-foreign"] {
            attack(&mut e, &p, name, &[("id", id)]).expect("a no-op, not an error");
        }
        match attack(&mut e, &p, "update-foreign", &[("id", id)]) {
            Err(Error::Policy(w::Error::Conflict(m))) => assert!(m.contains(id), "{m}"),
            other => panic!("{p:?} overwrote {id}: {other:?}"),
        }
    }
    attack(&mut e, &a, "scrub-foreign", &[("secret", "roadmap")]).expect("scrub own tenant");
    // Erasure machinery outside the principal: no scrub, tombstone,
    // tombstone list or fingerprint key of another tenant, and (pinned to
    // u1) of another user; no tombstone or scrub for the whole tenant
    // either, which would block or scrub every user.
    for name in [
        "scrub-foreign",
        "tombstone-foreign",
        "tombstones-foreign",
        "key-foreign",
    ] {
        let m = denied(attack(&mut e, &a, name, &foreign_tenant));
        assert!(m.contains("tenant-b"), "{name}: {m}");
        let m = denied(attack(
            &mut e,
            &pinned_u1(),
            name,
            &[("user", "u2"), ("secret", "roadmap")],
        ));
        assert!(m.contains("u2") && m.contains("u1"), "{name}: {m}");
    }
    for name in ["scrub-foreign", "tombstone-foreign", "tombstones-foreign"] {
        let m = denied(attack(&mut e, &pinned_u1(), name, &[("secret", "roadmap")]));
        assert!(m.contains("user"), "{name}: {m}");
    }
    // The key of content u1 can see (tenant-wide) is handed out; its own too.
    let got = attack(&mut e, &pinned_u1(), "key-foreign", &[]).expect("tenant-wide key");
    assert_eq!(texts(&got[0]), ["key: 32 bytes"]);
    let got = attack(&mut e, &pinned_u1(), "key-foreign", &[("user", "u1")]).expect("own key");
    assert_eq!(texts(&got[0]), ["key: 32 bytes"]);
    // A user-pinned principal cannot reach a tenant-wide or other-user scope.
    let m = denied(attack(
        &mut e,
        &pinned_u1(),
        "find-foreign",
        &[("tenant", "tenant-a")],
    ));
    assert!(m.contains("user"), "{m}");
    drop(e);
    assert_eq!(integrity(db), "ok");
    assert!(
        foreign(db) == before,
        "the hostile guest changed another tenant's or user's rows"
    );
}

#[test]
fn runaway_loops_allocation_and_panics_are_stopped_and_the_host_carries_on() {
    let planted = plant("hostile-runaway");
    let db = &planted.db;
    let before = dump(db);
    let mut e = hostile(db, TIMEOUT);
    let a = principal("tenant-a");

    let t = Instant::now();
    let r = attack(&mut e, &a, "loop", &[]);
    assert!(
        matches!(r, Err(Error::Runtime(RuntimeError::Timeout(_)))),
        "{r:?}"
    );
    assert!(
        t.elapsed() < TIMEOUT * 10,
        "stopped late: {:?}",
        t.elapsed()
    );
    let msg = r.unwrap_err().to_string();
    assert!(msg.contains("time limit"), "{msg}");

    drop(e);
    let mut e = hostile(db, SLOW);
    let r = attack(&mut e, &a, "alloc", &[]);
    match r {
        Err(Error::Runtime(RuntimeError::OutOfMemory(mib))) => assert_eq!(mib, MEMORY >> 20),
        other => panic!("expected the memory limit, got {other:?}"),
    }
    let r = attack(&mut e, &a, "panic", &[]);
    assert!(
        matches!(r, Err(Error::Runtime(RuntimeError::Trap(_)))),
        "{r:?}"
    );
    // The host is still up: the next call on the same Engram is served.
    let got = attack(&mut e, &pinned_u1(), "huge-limit", &[]).expect("served after the traps");
    assert!(texts(&got[0])[0].starts_with("huge-limit: "), "{got:?}");
    assert!(
        !texts(&got[0])
            .iter()
            .any(|r| r.contains(SECRET_B) || r.contains(SECRET_U2)),
        "{got:?}"
    );
    drop(e);
    assert_eq!(integrity(db), "ok");
    assert!(dump(db) == before, "a stopped call left writes behind");
}

#[test]
fn oversized_store_calls_and_stale_etags_are_refused_with_their_limit() {
    let planted = plant("hostile-sizes");
    let db = &planted.db;
    let before = dump(db);
    let mut e = hostile(db, SLOW);
    let a = pinned_u1();
    for (name, limit) in [
        ("huge-terms", engram_host::backend::MAX_TERMS_PER_CALL),
        (
            "giant-insert",
            engram_host::backend::MAX_TEXT_BYTES_PER_RECORD,
        ),
        ("many-ops", engram_host::backend::MAX_OPS_PER_COMMIT),
    ] {
        let t = Instant::now();
        match attack(&mut e, &a, name, &[]) {
            Err(Error::Policy(w::Error::InvalidInput(f))) => assert!(
                f.message.contains(&limit.to_string()) && f.message.contains("limit"),
                "{name}: the refusal names the limit: {}",
                f.message
            ),
            other => panic!("{name}: expected a refusal, got {other:?}"),
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{name}: {:?}",
            t.elapsed()
        );
    }
    match attack(&mut e, &a, "huge-copy", &[]) {
        Err(Error::Runtime(RuntimeError::TooMuchData(mib))) => {
            assert_eq!(mib, engram_host::runtime::MAX_BYTES_PER_STORE_CALL >> 20)
        }
        other => panic!("huge-copy: expected the copy limit, got {other:?}"),
    }
    match attack(&mut e, &a, "stale-etag", &[]) {
        Err(Error::Policy(w::Error::Conflict(m))) => assert!(m.contains("etag"), "{m}"),
        other => panic!("expected a conflict, got {other:?}"),
    }
    drop(e);
    assert_eq!(integrity(db), "ok");
    assert!(dump(db) == before, "a refused call wrote");
    // The real policy still reads the store afterwards.
    let mut real = Engram::open(
        db,
        Options {
            now: Some(fixed_now()),
            ..Options::default()
        },
    )
    .expect("reopen with the real policy");
    let listed = real
        .list(principal("tenant-b"), scope("tenant-b", None), Vec::new())
        .expect("list tenant-b");
    assert!(listed.iter().any(|m| m.text == SECRET_B), "{listed:?}");
}
