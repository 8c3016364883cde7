//! Hard filters (scope, pending, sensitivity, kinds), conflicted memories,
//! as-of reads and duplicates set aside.

use super::*;

#[test]
fn hard_filters_scope_pending_sensitivity_and_kinds() {
    let store = MemStore::for_tenant("acme");
    let mut other = mem("other", MemoryKind::Semantic, "deploy window is friday", 1);
    other.scope = scope("u2");
    let mut tenant_wide = mem("wide", MemoryKind::Semantic, "deploy freeze in december", 1);
    tenant_wide.scope.user = None;
    let mut pending = mem("pending", MemoryKind::Semantic, "deploy on sundays", 1);
    pending.status = Status::Pending;
    let mut secret = mem(
        "secret",
        MemoryKind::Semantic,
        "deploy key holder is Bob",
        1,
    );
    secret.sensitivity = Sensitivity::Sensitive;
    let proc_ = mem(
        "proc",
        MemoryKind::Procedural,
        "deploy: back up, migrate, approve",
        1,
    );
    put(&store, vec![other, tenant_wide, pending, secret, proc_]);
    let r = run(&store, &Policy::default(), &query("deploy"));
    assert_eq!(ids(&r), vec!["proc", "wide"]);
    let mut q = query("deploy");
    q.sensitivity_ceiling = Some(Sensitivity::Sensitive);
    q.kinds = vec![MemoryKind::Semantic];
    let r = run(&store, &Policy::default(), &q);
    let mut got = ids(&r);
    got.sort();
    assert_eq!(got, vec!["secret", "wide"]);
    let risk = |id: &str| {
        r.results
            .iter()
            .find(|s| s.memory.id == id)
            .map(|s| s.features.risk)
    };
    assert!(risk("secret") > risk("wide"));
    // Narrower scope scores higher on `scope`.
    let scope_of = |id: &str| {
        r.results
            .iter()
            .find(|s| s.memory.id == id)
            .map(|s| s.features.scope)
    };
    assert_eq!(
        (scope_of("secret"), scope_of("wide")),
        (Some(1.0), Some(0.0))
    );
}

#[test]
fn conflicted_memories_are_returned_marked() {
    let store = MemStore::for_tenant("acme");
    let mut a = mem(
        "db",
        MemoryKind::Semantic,
        "payment-service uses PostgreSQL",
        1,
    );
    a.status = Status::Conflicted;
    let mut b = a.clone();
    b.revision = 2;
    b.text = "payment-service uses MySQL".into();
    put(&store, vec![a, b]);
    let r = run(
        &store,
        &Policy::default(),
        &query("what database does payment-service use"),
    );
    assert_eq!(r.results.len(), 2);
    assert!(r
        .results
        .iter()
        .all(|s| s.admission.conflict && s.admission.admit));
    assert!(r.results.iter().all(|s| s.features.risk >= 0.5));
}

#[test]
fn as_of_reads_the_revision_in_force_then() {
    let store = MemStore::for_tenant("acme");
    // r1 written 100 days ago, superseded 10 days ago by r2.
    let mut r1 = mem(
        "tz",
        MemoryKind::Semantic,
        "time zone is Europe/Berlin",
        100,
    );
    r1.status = Status::Superseded;
    r1.updated_at = dt(NOW - 10 * DAY);
    r1.superseded_by = Some(MemoryRef {
        id: "tz".into(),
        revision: 2,
    });
    let mut r2 = mem("tz", MemoryKind::Semantic, "time zone is Asia/Shanghai", 10);
    r2.revision = 2;
    r2.supersedes = Some(MemoryRef {
        id: "tz".into(),
        revision: 1,
    });
    put(&store, vec![r1.clone(), r2.clone()]);
    let text = |r: &RecallResult| -> Vec<String> {
        r.results.iter().map(|s| s.memory.text.clone()).collect()
    };
    // Now: only the current revision.
    let r = run(&store, &Policy::default(), &query("time zone"));
    assert_eq!(text(&r), vec!["time zone is Asia/Shanghai"]);
    // 50 days ago: the old revision was in force, the new one did not exist.
    let mut q = query("time zone");
    q.as_of = Some(dt(NOW - 50 * DAY));
    q.explain_rejected = true;
    let r = run(&store, &Policy::default(), &q);
    assert_eq!(text(&r), vec!["time zone is Europe/Berlin"]);
    assert_eq!(r.not_admitted.len(), 1);
    assert!(!r.not_admitted[0].admission.time_ok);
    assert_eq!(
        r.not_admitted[0]
            .admission
            .reason
            .as_ref()
            .map(|r| r.text.as_str()),
        Some("not in force at the as-of instant")
    );
    // 5 days ago: the new one.
    q.as_of = Some(dt(NOW - 5 * DAY));
    assert_eq!(
        text(&run(&store, &Policy::default(), &q)),
        vec!["time zone is Asia/Shanghai"]
    );
    // The rule itself, including explicit validity.
    assert!(in_force_at(&r1, dt(NOW - 50 * DAY)) && !in_force_at(&r1, dt(NOW - 5 * DAY)));
    let mut bounded = r1.clone();
    bounded.valid_to = Some(dt(NOW - 60 * DAY));
    assert!(!in_force_at(&bounded, dt(NOW - 50 * DAY)));
    let mut pending = r2;
    pending.status = Status::Pending;
    assert!(!in_force_at(&pending, dt(NOW)));
}

#[test]
fn duplicates_are_set_aside_with_a_reason() {
    let store = MemStore::for_tenant("acme");
    put(
        &store,
        vec![
            mem("a", MemoryKind::Episodic, "Bart got a new bike", 3),
            mem("b", MemoryKind::Episodic, "Bart got a new  BIKE", 3),
        ],
    );
    let mut q = query("bike");
    q.explain_rejected = true;
    let r = run(&store, &Policy::default(), &q);
    assert_eq!(ids(&r), vec!["a"]);
    assert_eq!(
        r.not_admitted[0]
            .admission
            .reason
            .as_ref()
            .map(|r| r.text.as_str()),
        Some("duplicate of a")
    );
}
