//! Capability scoping and fault isolation: a store handle is opened for one
//! principal and refuses anything outside it; a trapping or runaway guest
//! becomes a typed error and leaves the store intact and usable.

use std::time::Duration;

use engram_host::bindings as w;
use engram_host::runtime::{Limits, RuntimeError};
use engram_host::{Error, Options};
use engram_tests::*;

#[test]
fn a_guest_asking_for_another_tenants_data_gets_an_error_not_data() {
    let mut e = engram();
    e.import(
        principal("tenant-b"),
        vec![episode(
            "tenant-b",
            "u1",
            "B:1",
            "tenant B secret roadmap for Q3",
        )],
    )
    .expect("import b");
    // Opened for tenant A, the guest asks about tenant B's scope.
    let r = e.recall(
        principal("tenant-a"),
        vec![query("tenant-b", Some("u1"), "roadmap", 5)],
    );
    match r {
        Err(Error::Policy(w::Error::PermissionDenied(m))) => assert!(m.contains("tenant-b"), "{m}"),
        other => panic!("expected permission-denied, got {other:?}"),
    }
    // The same request as tenant B sees its own data.
    let ok = e
        .recall(
            principal("tenant-b"),
            vec![query("tenant-b", Some("u1"), "roadmap", 5)],
        )
        .expect("recall b");
    assert_eq!(ok[0].results.len(), 1);
}

#[test]
fn writes_outside_the_principal_are_refused() {
    let mut e = engram();
    let c = candidate(
        "tenant-b",
        Some("u1"),
        "From now on call me Dr. B",
        w::SourceKind::User,
    );
    match e.remember(principal("tenant-a"), vec![c]) {
        Ok(d) => assert_eq!(d[0].disposition, w::Disposition::Rejected, "{d:?}"),
        Err(Error::Policy(w::Error::PermissionDenied(_))) => {}
        Err(other) => panic!("unexpected {other}"),
    }
    assert!(e
        .list(principal("tenant-b"), scope("tenant-b", Some("u1")), vec![])
        .unwrap()
        .is_empty());
}

#[test]
fn a_user_pinned_principal_cannot_read_another_user() {
    let mut e = engram();
    e.import(
        principal("acme"),
        vec![episode("acme", "u2", "X:1", "u2 private note about salary")],
    )
    .unwrap();
    let pinned = w::Principal {
        tenant: "acme".into(),
        user: Some("u1".into()),
        project: None,
    };
    let r = e.recall(pinned, vec![query("acme", Some("u2"), "salary", 5)]);
    assert!(
        matches!(r, Err(Error::Policy(w::Error::PermissionDenied(_)))),
        "{r:?}"
    );
}

fn many(n: usize) -> Vec<w::ImportRecord> {
    (0..n)
        .map(|i| {
            episode(
                "acme",
                "u1",
                &format!("E:{i}"),
                &format!(
                    "event number {i} about service-{} and host-{}",
                    i % 97,
                    i % 13
                ),
            )
        })
        .collect()
}

#[test]
fn a_runaway_call_hits_its_deadline_and_the_store_stays_intact() {
    let mut e = engram_with(Options {
        now: Some(fixed_now()),
        limits: Limits {
            timeout: Duration::from_millis(50),
            ..Limits::default()
        },
        ..Options::default()
    });
    let r = e.import(principal("acme"), many(10_000));
    assert!(
        matches!(r, Err(Error::Runtime(RuntimeError::Timeout(_)))),
        "{:?}",
        r.as_ref().err()
    );
    // Nothing half-written, and the next call (a fresh Store) works.
    assert!(e
        .list(principal("acme"), scope("acme", Some("u1")), vec![])
        .unwrap()
        .is_empty());
    e.import(principal("acme"), many(3))
        .expect("small import after the timeout");
    assert_eq!(
        e.list(principal("acme"), scope("acme", Some("u1")), vec![])
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn a_guest_out_of_memory_is_a_typed_error_and_the_store_stays_intact() {
    let mut e = engram_with(Options {
        now: Some(fixed_now()),
        limits: Limits {
            memory_bytes: 4 << 20,
            ..Limits::default()
        },
        ..Options::default()
    });
    e.import(principal("acme"), many(5))
        .expect("small import fits");
    let r = e.import(principal("acme"), many(40_000));
    match r {
        Err(Error::Runtime(RuntimeError::OutOfMemory(_) | RuntimeError::Trap(_))) => {}
        other => panic!("expected a memory trap, got {:?}", other.err()),
    }
    assert_eq!(
        e.list(principal("acme"), scope("acme", Some("u1")), vec![])
            .unwrap()
            .len(),
        5
    );
    e.import(principal("acme"), many(2))
        .expect("usable after the trap");
}
