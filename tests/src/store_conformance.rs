//! The store conformance suite: what every `Backend` must do, as
//! `wit/store.wit` documents it, checked through the Rust store trait. Each
//! check takes a store and a tenant of its own (so the checks can share one
//! database), and panics with what differed. `tests/tests/store_conformance.rs`
//! runs it against SQLite (in memory and on file) and PostgreSQL.

use engram_host::backend::Backend;
use engram_host::bindings as w;

/// A check: a store and a tenant of its own.
pub type Check = fn(&mut dyn Backend, &str);

/// A filter case: its name, how it changes the base filter, what it finds.
type FilterCase = (&'static str, Box<dyn Fn(&mut w::Filter)>, Vec<&'static str>);

/// Every check, by name, in the order `run_all` runs them.
pub const CHECKS: &[(&str, Check)] = &[
    ("filters", filters),
    ("scope matches", scope_matches),
    (
        "search reads only the asked postings",
        search_reads_only_asked_postings,
    ),
    ("term statistics", term_statistics),
    ("atomic commit and compare-and-swap", atomic_commit_and_cas),
    ("one active revision per key", one_active_revision_per_key),
    ("tombstones", tombstones),
    ("event log", event_log),
    ("erasure and scrubbing", erasure_and_scrubbing),
    ("revisions and owner", revisions_and_owner),
    ("batches and savepoints", batches_and_savepoints),
    (
        "tombstones belong to their owner",
        tombstones_belong_to_their_owner,
    ),
    ("ids are per tenant", ids_are_per_tenant),
    (
        "updates and touches stay within the principal",
        updates_and_touches_stay_within_the_principal,
    ),
    (
        "the fingerprint key is recorded",
        fingerprint_key_is_recorded,
    ),
    ("a session's log", session_log),
];

/// Run every check on `store`, each under tenant `{prefix}-{n}`.
pub fn run_all(store: &mut dyn Backend, prefix: &str) {
    for (i, (name, check)) in CHECKS.iter().enumerate() {
        eprintln!("store conformance: {name}");
        check(store, &format!("{prefix}-{i}"));
    }
}

fn at(ms: i64) -> w::Datetime {
    w::Datetime {
        epoch_ms: ms,
        offset_minutes: 0,
    }
}

fn scope(tenant: &str, user: Option<&str>, project: Option<&str>) -> w::Scope {
    w::Scope {
        tenant: tenant.into(),
        user: user.map(Into::into),
        project: project.map(Into::into),
        thread: None,
        agent: None,
    }
}

fn principal(tenant: &str) -> w::Principal {
    w::Principal {
        tenant: tenant.into(),
        user: None,
        project: None,
    }
}

/// The stored id of memory `id` of tenant `t`: ids are unique across the
/// whole store, and the checks share one.
fn mid(t: &str, id: &str) -> String {
    format!("{t}:{id}")
}

/// An episodic memory with the given id (under its tenant) and scope,
/// updated at `ms`.
pub fn memory(id: &str, scope: w::Scope, ms: i64) -> w::Memory {
    w::Memory {
        id: mid(&scope.tenant, id),
        revision: 1,
        kind: w::MemoryKind::Episodic,
        scope,
        text: format!("text of {id}"),
        payload: w::Payload::Episodic(w::EpisodicPayload {
            occurred_at: None,
            time_expression: None,
            actors: Vec::new(),
            context: Vec::new(),
            actions: Vec::new(),
            outcome: None,
            success: None,
        }),
        provenance: w::Provenance {
            source: w::Source {
                kind: w::SourceKind::User,
                reference: Some(format!("src-{id}")),
            },
            source_event_ids: Vec::new(),
            external_id: None,
            thread: None,
            extractor_version: "t".into(),
            policy_version: "t".into(),
        },
        confidence: 0.9,
        sensitivity: w::Sensitivity::Internal,
        observed_at: at(ms),
        valid_from: None,
        valid_to: None,
        status: w::Status::Active,
        supersedes: None,
        superseded_by: None,
        created_at: at(ms),
        updated_at: at(ms),
        retention: w::Retention::Standard,
        access_count: 0,
        last_accessed: None,
        entities: Vec::new(),
        embedding: None,
    }
}

/// A semantic memory with key (subject, predicate, condition).
fn fact(id: &str, scope: w::Scope, ms: i64, key: (&str, &str, Option<&str>)) -> w::Memory {
    let mut m = memory(id, scope, ms);
    m.kind = w::MemoryKind::Semantic;
    m.payload = w::Payload::Semantic(w::SemanticPayload {
        subject: key.0.into(),
        predicate: key.1.into(),
        object: format!("object of {id}"),
        condition: key.2.map(Into::into),
    });
    m
}

fn insert(m: w::Memory, terms: &[&str]) -> w::WriteOp {
    w::WriteOp::Insert(w::Insert {
        memory: m,
        index_terms: terms.iter().map(|t| t.to_string()).collect(),
    })
}

fn commit(store: &mut dyn Backend, tenant: &str, ops: Vec<w::WriteOp>) -> w::Receipt {
    store
        .commit(&principal(tenant), &ops)
        .unwrap_or_else(|e| panic!("commit failed: {e:?}"))
}

fn filter(scope: w::Scope, how: w::ScopeMatch) -> w::Filter {
    w::Filter {
        scope,
        scope_match: how,
        kinds: Vec::new(),
        statuses: Vec::new(),
        valid_at: None,
        sensitivity_max: None,
        subject: None,
        predicate: None,
        condition: None,
        source_ref: None,
        exclude_archived: false,
    }
}

fn ids(found: &[w::Stored]) -> Vec<String> {
    found
        .iter()
        .map(|s| {
            let id = s
                .memory
                .id
                .split_once(':')
                .map_or(s.memory.id.as_str(), |p| p.1);
            format!("{id}#{}", s.memory.revision)
        })
        .collect()
}

fn find(store: &mut dyn Backend, f: &w::Filter) -> Vec<String> {
    ids(&store.find(f, 100).expect("find"))
}

/// Every pushed-down filter selects exactly the records it names, newest
/// first (ties by id).
pub fn filters(store: &mut dyn Backend, t: &str) {
    let s = scope(t, None, None);
    let mut a = fact("a", s.clone(), 1_000, ("svc", "uses", None));
    a.sensitivity = w::Sensitivity::Public;
    let mut b = fact("b", s.clone(), 2_000, ("svc", "uses", Some("in prod")));
    b.sensitivity = w::Sensitivity::Sensitive;
    let mut c = memory("c", s.clone(), 3_000);
    c.valid_from = Some(at(100));
    c.valid_to = Some(at(200));
    c.provenance.source_event_ids = vec!["evt-9".into()];
    let mut d = memory("d", s.clone(), 3_000);
    d.status = w::Status::Archived;
    let mut e = memory("e", s.clone(), 500);
    e.kind = w::MemoryKind::Procedural;
    e.payload = w::Payload::Procedural(w::ProceduralPayload {
        goal: "g".into(),
        preconditions: Vec::new(),
        steps: Vec::new(),
        guards: Vec::new(),
        recovery: Vec::new(),
        authority: None,
    });
    e.status = w::Status::Superseded;
    commit(
        store,
        t,
        [a, b, c, d, e]
            .into_iter()
            .map(|m| insert(m, &["x"]))
            .collect(),
    );
    let all = filter(s.clone(), w::ScopeMatch::Exact);
    assert_eq!(find(store, &all), ["c#1", "d#1", "b#1", "a#1", "e#1"]);
    let cases: Vec<FilterCase> = vec![
        (
            "kinds",
            Box::new(|f| f.kinds = vec![w::MemoryKind::Semantic]),
            vec!["b#1", "a#1"],
        ),
        (
            "statuses",
            Box::new(|f| f.statuses = vec![w::Status::Archived, w::Status::Superseded]),
            vec!["d#1", "e#1"],
        ),
        (
            "exclude archived",
            Box::new(|f| f.exclude_archived = true),
            vec!["c#1", "b#1", "a#1", "e#1"],
        ),
        (
            "valid at, inside",
            Box::new(|f| f.valid_at = Some(at(150))),
            vec!["c#1", "d#1", "b#1", "a#1", "e#1"],
        ),
        (
            "valid at, after the end",
            Box::new(|f| f.valid_at = Some(at(200))),
            vec!["d#1", "b#1", "a#1", "e#1"],
        ),
        (
            "valid at, before the start",
            Box::new(|f| f.valid_at = Some(at(99))),
            vec!["d#1", "b#1", "a#1", "e#1"],
        ),
        (
            "sensitivity",
            Box::new(|f| f.sensitivity_max = Some(w::Sensitivity::Public)),
            vec!["a#1"],
        ),
        (
            "subject",
            Box::new(|f| f.subject = Some("svc".into())),
            vec!["b#1", "a#1"],
        ),
        (
            "predicate",
            Box::new(|f| f.predicate = Some("owns".into())),
            vec![],
        ),
        (
            "no condition",
            Box::new(|f| f.condition = Some(None)),
            vec!["a#1"],
        ),
        (
            "a condition",
            Box::new(|f| f.condition = Some(Some("in prod".into()))),
            vec!["b#1"],
        ),
        (
            "source ref",
            Box::new(|f| f.source_ref = Some("src-a".into())),
            vec!["a#1"],
        ),
        (
            "source event",
            Box::new(|f| f.source_ref = Some("evt-9".into())),
            vec!["c#1"],
        ),
    ];
    for (name, set, want) in cases {
        let mut f = all.clone();
        set(&mut f);
        assert_eq!(find(store, &f), want, "filter: {name}");
    }
    // The limit keeps the newest.
    assert_eq!(ids(&store.find(&all, 2).expect("find")), ["c#1", "d#1"]);
}

/// `exact`, `visible` and `within` over tenant, user and project.
pub fn scope_matches(store: &mut dyn Backend, t: &str) {
    let rows = [
        ("tenant-wide", scope(t, None, None)),
        ("u1", scope(t, Some("u1"), None)),
        ("u1-p1", scope(t, Some("u1"), Some("p1"))),
        ("u2", scope(t, Some("u2"), None)),
        ("p1", scope(t, None, Some("p1"))),
    ];
    let ops = rows
        .iter()
        .enumerate()
        .map(|(i, (id, s))| insert(memory(id, s.clone(), 1_000 + i as i64), &["x"]))
        .collect();
    commit(store, t, ops);
    let other = format!("{t}-other");
    commit(
        store,
        &other,
        vec![insert(
            memory("elsewhere", scope(&other, None, None), 9_000),
            &["x"],
        )],
    );
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let cases = [
        (
            scope(t, Some("u1"), None),
            w::ScopeMatch::Exact,
            vec!["u1#1"],
        ),
        (
            scope(t, None, None),
            w::ScopeMatch::Exact,
            vec!["tenant-wide#1"],
        ),
        (
            scope(t, Some("u1"), None),
            w::ScopeMatch::Visible,
            vec!["tenant-wide#1", "u1#1"],
        ),
        (
            scope(t, Some("u1"), Some("p1")),
            w::ScopeMatch::Visible,
            vec!["p1#1", "tenant-wide#1", "u1#1", "u1-p1#1"],
        ),
        (
            scope(t, Some("u1"), None),
            w::ScopeMatch::Within,
            vec!["u1#1", "u1-p1#1"],
        ),
        (
            scope(t, None, None),
            w::ScopeMatch::Within,
            vec!["p1#1", "tenant-wide#1", "u1#1", "u1-p1#1", "u2#1"],
        ),
        (
            scope(t, None, Some("p1")),
            w::ScopeMatch::Within,
            vec!["p1#1", "u1-p1#1"],
        ),
    ];
    for (s, how, want) in cases {
        let got = sorted(find(store, &filter(s.clone(), how)));
        assert_eq!(got, want, "{how:?} of {s:?}");
    }
}

/// Search sums the weights of the matched terms, returns the best
/// `limit` with how often each asked term occurs, and hands out only
/// records that carry an asked term: a scope of many records costs
/// nothing when the asked terms are rare.
pub fn search_reads_only_asked_postings(store: &mut dyn Backend, t: &str) {
    let s = scope(t, None, None);
    let mut ops: Vec<w::WriteOp> = (0..300)
        .map(|i| {
            insert(
                memory(&format!("bulk-{i:03}"), s.clone(), 1_000 + i),
                &["common", "filler"],
            )
        })
        .collect();
    ops.push(insert(memory("one", s.clone(), 5_000), &["rare", "common"]));
    ops.push(insert(
        memory("two", s.clone(), 5_001),
        &["rare", "rare", "scarce"],
    ));
    ops.push(insert(memory("three", s.clone(), 5_002), &["scarce"]));
    let mut hidden = memory("hidden", scope(t, Some("u9"), None), 5_003);
    hidden.status = w::Status::Active;
    ops.push(insert(hidden, &["rare", "scarce"]));
    commit(store, t, ops);
    let f = filter(s.clone(), w::ScopeMatch::Exact);
    let terms = vec![
        w::WeightedTerm {
            term: "rare".into(),
            weight: 2.0,
        },
        w::WeightedTerm {
            term: "scarce".into(),
            weight: 1.5,
        },
    ];
    let before = store.records_read();
    let found = store.search(&f, &terms, 10).expect("search");
    let read = store.records_read() - before;
    assert_eq!(
        ids(&found),
        ["two#1", "one#1", "three#1"],
        "ranked by summed weight"
    );
    assert_eq!(read, 3, "only records carrying an asked term are read");
    assert_eq!(found[0].frequencies, [2, 1], "two: rare twice, scarce once");
    assert_eq!(found[1].frequencies, [1, 0]);
    assert_eq!(found[0].length, 3, "length counts repeats");
    // The limit keeps the best.
    let top = store.search(&f, &terms, 1).expect("search");
    assert_eq!(ids(&top), ["two#1"]);
    // A term nobody has reads nothing.
    let before = store.records_read();
    let none = [w::WeightedTerm {
        term: "absent".into(),
        weight: 1.0,
    }];
    assert!(store.search(&f, &none, 10).expect("search").is_empty());
    assert_eq!(store.records_read(), before);
    // Memory-column filters apply to search too.
    let mut keyed = f.clone();
    keyed.source_ref = Some("src-one".into());
    assert_eq!(
        ids(&store.search(&keyed, &terms, 10).expect("search")),
        ["one#1"]
    );
}

/// Documents, mean length and per-term document counts under a filter,
/// validity included.
pub fn term_statistics(store: &mut dyn Backend, t: &str) {
    let s = scope(t, None, None);
    let mut bounded = memory("bounded", s.clone(), 1);
    bounded.valid_to = Some(at(1_000));
    commit(
        store,
        t,
        vec![
            insert(memory("a", s.clone(), 1), &["alpha", "beta"]),
            insert(
                memory("b", s.clone(), 2),
                &["alpha", "alpha", "gamma", "delta"],
            ),
            insert(bounded, &["alpha"]),
            insert(memory("u", scope(t, Some("u1"), None), 3), &["alpha"]),
        ],
    );
    let terms: Vec<String> = ["alpha", "gamma", "zeta"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut f = filter(s.clone(), w::ScopeMatch::Exact);
    let st = store.stats(&f, &terms).expect("stats");
    assert_eq!(st.documents, 3);
    assert!(
        (st.average_length - 7.0 / 3.0).abs() < 1e-12,
        "{}",
        st.average_length
    );
    assert_eq!(st.frequencies, [3, 1, 0]);
    f.valid_at = Some(at(2_000));
    let st = store.stats(&f, &terms).expect("stats");
    assert_eq!((st.documents, st.frequencies.clone()), (2, vec![2, 1, 0]));
    assert!((st.average_length - 3.0).abs() < 1e-12);
    let within = filter(s.clone(), w::ScopeMatch::Within);
    assert_eq!(
        store.stats(&within, &terms).expect("stats").frequencies,
        [4, 1, 0]
    );
    let mut keyed = filter(s, w::ScopeMatch::Within);
    keyed.source_ref = Some("src-b".into());
    let st = store.stats(&keyed, &terms).expect("stats");
    assert_eq!((st.documents, st.frequencies), (1, vec![1, 1, 0]));
}

/// A commit applies every op or none; an update applies only on the etag
/// it expects and bumps it.
pub fn atomic_commit_and_cas(store: &mut dyn Backend, t: &str) {
    let s = scope(t, None, None);
    let r = commit(store, t, vec![insert(memory("m", s.clone(), 1), &["x"])]);
    assert_eq!(r.etags, [1]);
    // The second insert collides: the first must not stay.
    let e = store
        .commit(
            &principal(t),
            &[
                insert(memory("fresh", s.clone(), 2), &["x"]),
                insert(memory("m", s.clone(), 3), &["x"]),
            ],
        )
        .expect_err("duplicate (id, revision)");
    assert!(matches!(e, w::StoreError::Conflict(_)), "{e:?}");
    let all = filter(s.clone(), w::ScopeMatch::Exact);
    assert_eq!(
        find(store, &all),
        ["m#1"],
        "nothing of a failed commit stays"
    );
    let stored = store.find(&all, 1).expect("find").remove(0);
    let mut changed = stored.memory.clone();
    changed.text = "changed".into();
    let update = |etag| {
        w::WriteOp::Update(w::Update {
            memory: changed.clone(),
            index_terms: vec!["y".into()],
            expected_etag: etag,
        })
    };
    let e = store
        .commit(&principal(t), &[update(stored.etag + 1)])
        .expect_err("stale etag");
    assert!(matches!(e, w::StoreError::Conflict(_)), "{e:?}");
    let r = commit(store, t, vec![update(stored.etag)]);
    assert_eq!(r.etags, [stored.etag + 1]);
    let again = store
        .commit(&principal(t), &[update(stored.etag)])
        .expect_err("the old etag is stale now");
    assert!(matches!(again, w::StoreError::Conflict(_)), "{again:?}");
    let now = store.find(&all, 1).expect("find").remove(0);
    assert_eq!(
        (now.memory.text.as_str(), now.etag),
        ("changed", stored.etag + 1)
    );
    // The index terms were replaced.
    let y = [w::WeightedTerm {
        term: "y".into(),
        weight: 1.0,
    }];
    let x = [w::WeightedTerm {
        term: "x".into(),
        weight: 1.0,
    }];
    assert_eq!(ids(&store.search(&all, &y, 5).expect("search")), ["m#1"]);
    assert!(store.search(&all, &x, 5).expect("search").is_empty());
}

/// The store refuses a second active revision of one semantic key, in
/// one commit or across commits; other statuses, conditions or scopes are
/// other keys.
pub fn one_active_revision_per_key(store: &mut dyn Backend, t: &str) {
    let s = scope(t, Some("u1"), None);
    let key = ("user:u1", "colour", None);
    commit(store, t, vec![insert(fact("k", s.clone(), 1, key), &["c"])]);
    let mut second = fact("k", s.clone(), 2, key);
    second.revision = 2;
    let e = store
        .commit(&principal(t), &[insert(second.clone(), &["c"])])
        .expect_err("second active revision");
    assert!(matches!(e, w::StoreError::Conflict(_)), "{e:?}");
    // Superseding in one commit (old revision updated first) is allowed.
    let all = filter(s.clone(), w::ScopeMatch::Exact);
    let old = store.find(&all, 1).expect("find").remove(0);
    let mut retired = old.memory.clone();
    retired.status = w::Status::Superseded;
    commit(
        store,
        t,
        vec![
            w::WriteOp::Update(w::Update {
                memory: retired,
                index_terms: vec!["c".into()],
                expected_etag: old.etag,
            }),
            insert(second, &["c"]),
        ],
    );
    let mut active = all.clone();
    active.statuses = vec![w::Status::Active];
    assert_eq!(find(store, &active), ["k#2"]);
    // Another condition, another user, or a pending revision: other keys.
    let mut pending = fact("p", s.clone(), 3, key);
    pending.status = w::Status::Pending;
    commit(
        store,
        t,
        vec![
            insert(
                fact("cond", s.clone(), 3, ("user:u1", "colour", Some("at work"))),
                &["c"],
            ),
            insert(fact("u2", scope(t, Some("u2"), None), 3, key), &["c"]),
            insert(pending, &["c"]),
        ],
    );
}

fn stone(owner: w::Scope, f: &str, ms: i64) -> w::WriteOp {
    w::WriteOp::Tombstone(w::Tombstone {
        scope: owner,
        fingerprint: f.into(),
        length: 12,
        kind: "text".into(),
        created_at: w::Datetime {
            epoch_ms: ms,
            offset_minutes: 480,
        },
    })
}

/// Tombstones are kept once per (owner, fingerprint, length), in creation
/// order, per tenant.
pub fn tombstones(store: &mut dyn Backend, t: &str) {
    let s = scope(t, None, None);
    commit(
        store,
        t,
        vec![
            stone(s.clone(), "bb", 2),
            stone(s.clone(), "aa", 1),
            stone(s.clone(), "bb", 3),
        ],
    );
    let got = store.tombstones(&s).expect("tombstones");
    let seen: Vec<(String, i64, i32)> = got
        .iter()
        .map(|s| {
            (
                s.fingerprint.clone(),
                s.created_at.epoch_ms,
                s.created_at.offset_minutes,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("aa".to_string(), 1, 480), ("bb".to_string(), 2, 480)]
    );
    assert!(got.iter().all(|x| x.scope == s), "{got:?}");
    assert!(store
        .tombstones(&scope(&format!("{t}-none"), None, None))
        .expect("tombstones")
        .is_empty());
}

/// A tombstone applies where its owner's content was visible: to its
/// owner and everything narrower, never to another user or project; the
/// same fingerprint under two owners is two tombstones.
pub fn tombstones_belong_to_their_owner(store: &mut dyn Backend, t: &str) {
    let wide = scope(t, None, None);
    let u1 = scope(t, Some("u1"), None);
    let u1p = scope(t, Some("u1"), Some("p1"));
    let u2 = scope(t, Some("u2"), None);
    let empty_user = scope(t, Some(""), None);
    commit(
        store,
        t,
        vec![
            stone(wide.clone(), "wide", 1),
            stone(u1.clone(), "u1", 2),
            stone(u1p.clone(), "u1p", 3),
            stone(u2.clone(), "u2", 4),
            stone(u2.clone(), "u1", 5),
            stone(empty_user.clone(), "empty", 6),
        ],
    );
    let seen = |store: &mut dyn Backend, s: &w::Scope| -> Vec<String> {
        store
            .tombstones(s)
            .expect("tombstones")
            .into_iter()
            .map(|x| {
                format!(
                    "{}@{}",
                    x.fingerprint,
                    x.scope.user.as_deref().unwrap_or("-")
                )
            })
            .collect()
    };
    assert_eq!(seen(store, &wide), ["wide@-"]);
    assert_eq!(seen(store, &u1), ["wide@-", "u1@u1"]);
    assert_eq!(seen(store, &u1p), ["wide@-", "u1@u1", "u1p@u1"]);
    assert_eq!(seen(store, &u2), ["wide@-", "u2@u2", "u1@u2"]);
    assert_eq!(seen(store, &empty_user), ["wide@-", "empty@"]);
    // The thread and agent of the asking scope do not narrow it.
    let mut threaded = u1.clone();
    threaded.thread = Some("t9".into());
    assert_eq!(seen(store, &threaded), ["wide@-", "u1@u1"]);
    // Another tenant sees none of them.
    assert!(seen(store, &scope(&format!("{t}-x"), Some("u1"), None)).is_empty());
}

/// Appends get per-session sequences; counts filter by exact scope, kind
/// and time.
pub fn event_log(store: &mut dyn Backend, t: &str) {
    let ev = |session: &str, s: w::Scope, kind: &str, ms: i64| {
        w::WriteOp::Append(w::Event {
            session: session.into(),
            scope: s,
            kind: kind.into(),
            payload: format!("{kind} at {ms}"),
            at: at(ms),
        })
    };
    let s = scope(t, Some("u1"), None);
    let r = commit(
        store,
        t,
        vec![
            ev("s1", s.clone(), "decision", 10),
            ev("s1", s.clone(), "decision", 20),
            ev("s2", s.clone(), "forget", 30),
        ],
    );
    assert_eq!(r.sequences, [1, 2, 1]);
    let r = commit(
        store,
        t,
        vec![ev("s1", scope(t, None, None), "decision", 40)],
    );
    assert_eq!(r.sequences, [3]);
    let count = |store: &mut dyn Backend, s: &w::Scope, kind: &str, since: i64| {
        store.count_events(s, kind, at(since)).expect("count")
    };
    assert_eq!(count(store, &s, "decision", 0), 2);
    assert_eq!(count(store, &s, "decision", 15), 1);
    assert_eq!(count(store, &s, "forget", 0), 1);
    assert_eq!(count(store, &scope(t, None, None), "decision", 0), 1);
    assert_eq!(count(store, &scope(t, Some("u2"), None), "decision", 0), 0);
}

/// Erase removes every revision of a memory with its index terms, only
/// within the principal; scrubbing replaces a fragment in the tenant's
/// event payloads only.
pub fn erasure_and_scrubbing(store: &mut dyn Backend, t: &str) {
    let u1 = scope(t, Some("u1"), None);
    let u2 = scope(t, Some("u2"), None);
    let mut r2 = memory("gone", u1.clone(), 2);
    r2.revision = 2;
    r2.status = w::Status::Superseded;
    let other = format!("{t}-other");
    let event = |s: w::Scope, payload: &str| {
        w::WriteOp::Append(w::Event {
            session: "s".into(),
            scope: s,
            kind: "decision".into(),
            payload: payload.into(),
            at: at(1),
        })
    };
    commit(
        store,
        t,
        vec![
            insert(memory("gone", u1.clone(), 1), &["secret"]),
            insert(r2, &["secret"]),
            insert(memory("kept", u2.clone(), 3), &["secret"]),
            event(u1.clone(), "said hunter2 twice: hunter2"),
        ],
    );
    commit(
        store,
        &other,
        vec![event(scope(&other, None, None), "hunter2 elsewhere")],
    );
    // A principal pinned to u2 cannot erase u1's memory.
    let u2_only = w::Principal {
        tenant: t.into(),
        user: Some("u2".into()),
        project: None,
    };
    store
        .commit(&u2_only, &[w::WriteOp::Erase(mid(t, "gone"))])
        .expect("erase outside the principal is a no-op");
    let within = filter(scope(t, None, None), w::ScopeMatch::Within);
    assert_eq!(find(store, &within).len(), 3);
    // A scrub reaches only the events within its scope: u2's stay.
    commit(store, t, vec![event(u2.clone(), "u2 also said hunter2")]);
    commit(
        store,
        t,
        vec![
            w::WriteOp::Erase(mid(t, "gone")),
            w::WriteOp::ScrubEvents(w::Scrub {
                scope: u1.clone(),
                fragment: "hunter2".into(),
            }),
        ],
    );
    assert_eq!(find(store, &within), ["kept#1"]);
    let secret = [w::WeightedTerm {
        term: "secret".into(),
        weight: 1.0,
    }];
    assert_eq!(
        ids(&store.search(&within, &secret, 10).expect("search")),
        ["kept#1"]
    );
    let st = store
        .stats(&within, &["secret".to_string()])
        .expect("stats");
    assert_eq!((st.documents, st.frequencies), (1, vec![1]));
    assert!(store
        .revisions(&principal(t), &mid(t, "gone"))
        .expect("revisions")
        .is_empty());
    // The scrubbed payload still counts as an event; the other tenant's is untouched.
    assert_eq!(
        store.count_events(&u1, "decision", at(0)).expect("count"),
        1
    );
    assert!(store
        .tenants_of(&mid(t, "gone"))
        .expect("owners")
        .is_empty());
}

/// Revisions oldest first, within the principal; the owner of an id.
pub fn revisions_and_owner(store: &mut dyn Backend, t: &str) {
    let u1 = scope(t, Some("u1"), None);
    let mut r2 = memory("r", u1.clone(), 2);
    r2.revision = 2;
    commit(
        store,
        t,
        vec![insert(r2, &["x"]), insert(memory("r", u1, 1), &["x"])],
    );
    let revs = store
        .revisions(&principal(t), &mid(t, "r"))
        .expect("revisions");
    assert_eq!(ids(&revs), ["r#1", "r#2"]);
    let stranger = w::Principal {
        tenant: t.into(),
        user: Some("u2".into()),
        project: None,
    };
    assert!(store
        .revisions(&stranger, &mid(t, "r"))
        .expect("revisions")
        .is_empty());
    assert!(store
        .revisions(&principal(&format!("{t}-x")), &mid(t, "r"))
        .expect("revisions")
        .is_empty());
    assert_eq!(store.tenants_of(&mid(t, "r")).expect("owners"), [t]);
}

/// The same id (and revision) in two tenants is two memories: inserting
/// one never conflicts with the other's, and every op by id reaches only
/// the principal's tenant.
pub fn ids_are_per_tenant(store: &mut dyn Backend, t: &str) {
    let other = format!("{t}-b");
    let shared = "m-shared".to_string();
    let mut a = memory("x", scope(t, None, None), 1);
    a.id = shared.clone();
    a.text = "tenant a's text".into();
    let mut b = memory("x", scope(&other, None, None), 2);
    b.id = shared.clone();
    b.text = "tenant b's text".into();
    commit(store, t, vec![insert(a, &["x"])]);
    commit(store, &other, vec![insert(b.clone(), &["x"])]);
    let texts = |store: &mut dyn Backend, tenant: &str| -> Vec<String> {
        store
            .revisions(&principal(tenant), &shared)
            .expect("revisions")
            .into_iter()
            .map(|s| s.memory.text)
            .collect()
    };
    assert_eq!(texts(store, t), ["tenant a's text"]);
    assert_eq!(texts(store, &other), ["tenant b's text"]);
    let mut owners = vec![t.to_string(), other.clone()];
    owners.sort();
    assert_eq!(store.tenants_of(&shared).expect("owners"), owners);
    // A second revision 1 in the same tenant still conflicts.
    let e = store
        .commit(&principal(&other), &[insert(b, &["x"])])
        .expect_err("duplicate within a tenant");
    assert!(matches!(e, w::StoreError::Conflict(_)), "{e:?}");
    // Erase, touch and update by id act in the principal's tenant only.
    commit(
        store,
        t,
        vec![
            w::WriteOp::Touch(w::Access {
                memory: w::MemoryRef {
                    id: shared.clone(),
                    revision: 1,
                },
                at: w::Datetime {
                    epoch_ms: 5,
                    offset_minutes: 0,
                },
            }),
            w::WriteOp::Erase(shared.clone()),
        ],
    );
    assert!(texts(store, t).is_empty());
    let kept = store
        .revisions(&principal(&other), &shared)
        .expect("revisions");
    assert_eq!(kept.len(), 1);
    assert_eq!(
        (kept[0].memory.access_count, kept[0].etag),
        (0, 1),
        "the other tenant's record was not touched"
    );
}

/// An update reaches only a record of the principal in the scope the
/// update names (a revision never moves to another scope or user); a touch
/// only the principal's records.
pub fn updates_and_touches_stay_within_the_principal(store: &mut dyn Backend, t: &str) {
    let u1 = scope(t, Some("u1"), None);
    commit(store, t, vec![insert(memory("own", u1.clone(), 1), &["x"])]);
    let stored = store
        .revisions(&principal(t), &mid(t, "own"))
        .expect("revisions")
        .remove(0);
    let update = |m: w::Memory| {
        [w::WriteOp::Update(w::Update {
            memory: m,
            index_terms: vec!["y".into()],
            expected_etag: stored.etag,
        })]
    };
    let pinned = |user: &str| w::Principal {
        tenant: t.into(),
        user: Some(user.into()),
        project: None,
    };
    // Moved to u2 by a tenant-wide principal, or to the tenant itself.
    for to in [scope(t, Some("u2"), None), scope(t, None, None)] {
        let mut moved = stored.memory.clone();
        moved.scope = to.clone();
        let e = store
            .commit(&principal(t), &update(moved))
            .expect_err("a revision never changes scope");
        assert!(
            matches!(&e, w::StoreError::Conflict(m) if m.contains("does not exist")),
            "{e:?}"
        );
    }
    // Claimed by u2 in u1's own scope.
    let e = store
        .commit(&pinned("u2"), &update(stored.memory.clone()))
        .expect_err("another user's record");
    assert!(
        matches!(&e, w::StoreError::Conflict(m) if m.contains("does not exist")),
        "{e:?}"
    );
    // A touch by u2 counts nothing; by u1 it counts.
    let touch = [w::WriteOp::Touch(w::Access {
        memory: w::MemoryRef {
            id: mid(t, "own"),
            revision: 1,
        },
        at: w::Datetime {
            epoch_ms: 5,
            offset_minutes: 0,
        },
    })];
    store.commit(&pinned("u2"), &touch).expect("a no-op");
    store.commit(&pinned("u1"), &touch).expect("touch");
    let now = store
        .revisions(&principal(t), &mid(t, "own"))
        .expect("revisions")
        .remove(0);
    assert_eq!(now.memory.access_count, 1);
    assert_eq!(now.memory.last_accessed.map(|d| d.epoch_ms), Some(5));
    assert_eq!(
        (now.etag, now.memory.text),
        (stored.etag, stored.memory.text)
    );
}

/// The store records which fingerprint key its tombstones were made with;
/// the secret it hands out stays the same.
pub fn fingerprint_key_is_recorded(store: &mut dyn Backend, t: &str) {
    let first = store.fingerprint_secret().expect("secret");
    commit(store, t, vec![stone(scope(t, None, None), "k", 1)]);
    let again = store.fingerprint_secret().expect("secret");
    assert_eq!(first.key_id(), again.key_id());
    let owner = scope(t, Some("u1"), None);
    assert_eq!(first.derive(&owner), again.derive(&owner));
    assert_ne!(
        first.derive(&owner),
        first.derive(&scope(t, Some("u2"), None))
    );
}

/// Inside a batch each commit is a savepoint: a failed one leaves the
/// batch usable; rolling the batch back drops everything in it.
pub fn batches_and_savepoints(store: &mut dyn Backend, t: &str) {
    let s = scope(t, None, None);
    let all = filter(s.clone(), w::ScopeMatch::Exact);
    store.begin_batch().expect("begin");
    assert!(store.in_batch());
    commit(store, t, vec![insert(memory("a", s.clone(), 1), &["x"])]);
    let e = store
        .commit(
            &principal(t),
            &[
                insert(memory("b", s.clone(), 2), &["x"]),
                insert(memory("a", s.clone(), 3), &["x"]),
            ],
        )
        .expect_err("duplicate");
    assert!(matches!(e, w::StoreError::Conflict(_)), "{e:?}");
    commit(store, t, vec![insert(memory("c", s.clone(), 4), &["x"])]);
    assert_eq!(
        find(store, &all),
        ["c#1", "a#1"],
        "the batch sees its own writes"
    );
    store.finish_batch(true).expect("commit");
    assert!(!store.in_batch());
    assert_eq!(find(store, &all), ["c#1", "a#1"]);
    store.begin_batch().expect("begin");
    commit(store, t, vec![insert(memory("d", s.clone(), 5), &["x"])]);
    store.finish_batch(false).expect("roll back");
    assert_eq!(
        find(store, &all),
        ["c#1", "a#1"],
        "a rolled-back batch leaves nothing"
    );
}

/// Two stores on one database (two processes, or two hosts): what one
/// commits, the other's next read sees, whatever it cached before.
pub fn second_store_sees_commits(a: &mut dyn Backend, b: &mut dyn Backend, t: &str) {
    let s = scope(t, None, None);
    let f = filter(s.clone(), w::ScopeMatch::Exact);
    let terms = [w::WeightedTerm {
        term: "shared".into(),
        weight: 1.0,
    }];
    let asked = ["shared".to_string()];
    commit(
        a,
        t,
        vec![insert(memory("first", s.clone(), 1), &["shared"])],
    );
    assert_eq!(ids(&b.search(&f, &terms, 10).expect("search")), ["first#1"]);
    assert_eq!(b.stats(&f, &asked).expect("stats").frequencies, [1]);
    commit(
        a,
        t,
        vec![insert(memory("second", s.clone(), 2), &["shared", "x"])],
    );
    let found = ids(&b.search(&f, &terms, 10).expect("search"));
    assert_eq!(found, ["first#1", "second#1"], "b sees a's second commit");
    let st = b.stats(&f, &asked).expect("stats");
    assert_eq!((st.documents, st.frequencies), (2, vec![2]));
    commit(a, t, vec![w::WriteOp::Erase(mid(t, "first"))]);
    assert_eq!(
        ids(&b.search(&f, &terms, 10).expect("search")),
        ["second#1"]
    );
    assert_eq!(b.stats(&f, &asked).expect("stats").documents, 1);
}

/// `session-log`: the events of one session and kind whose scope is
/// visible from the asked scope (every dimension unset or equal), oldest
/// first by sequence (not by instant), never another tenant's; each with
/// its own scope, session and kind.
pub fn session_log(store: &mut dyn Backend, t: &str) {
    let ev = |session: &str, s: &w::Scope, kind: &str, payload: &str, ms: i64| {
        w::WriteOp::Append(w::Event {
            session: session.into(),
            scope: s.clone(),
            kind: kind.into(),
            payload: payload.into(),
            at: at(ms),
        })
    };
    let u1 = scope(t, Some("u1"), None);
    let u2 = scope(t, Some("u2"), None);
    let wide = scope(t, None, None);
    let threaded = w::Scope {
        thread: Some("th".into()),
        ..u1.clone()
    };
    commit(
        store,
        t,
        vec![
            ev("op:a", &u1, "operation", "first", 10),
            ev("op:b", &u1, "operation", "another session", 11),
            ev("op:a", &u2, "operation", "u2's", 12),
            ev("op:a", &wide, "operation", "tenant-wide", 13),
            ev("op:a", &u1, "decision", "another kind", 14),
            ev("op:a", &threaded, "operation", "in a thread", 15),
        ],
    );
    // Later in the log, earlier in time: the log's order is the sequence.
    commit(store, t, vec![ev("op:a", &u1, "operation", "second", 5)]);
    let other = format!("{t}-x");
    commit(
        store,
        &other,
        vec![ev(
            "op:a",
            &scope(&other, Some("u1"), None),
            "operation",
            "another tenant's",
            1,
        )],
    );
    let log = |store: &mut dyn Backend, s: &w::Scope| -> Vec<String> {
        store
            .session_log(s, "op:a", "operation")
            .expect("session log")
            .into_iter()
            .map(|e| {
                assert_eq!((e.session.as_str(), e.kind.as_str()), ("op:a", "operation"));
                format!("{}@{}", e.payload, e.at.epoch_ms)
            })
            .collect()
    };
    assert_eq!(log(store, &u1), ["first@10", "tenant-wide@13", "second@5"]);
    assert_eq!(
        log(store, &threaded),
        ["first@10", "tenant-wide@13", "in a thread@15", "second@5"]
    );
    assert_eq!(log(store, &wide), ["tenant-wide@13"]);
    assert_eq!(log(store, &u2), ["u2's@12", "tenant-wide@13"]);
    assert_eq!(
        log(store, &scope(t, Some("u1"), Some("p"))),
        ["first@10", "tenant-wide@13", "second@5"]
    );
    assert_eq!(log(store, &scope(t, Some("u3"), None)), ["tenant-wide@13"]);
    // Each event comes back with its own scope.
    let scopes: Vec<Option<String>> = store
        .session_log(&threaded, "op:a", "operation")
        .expect("log")
        .into_iter()
        .map(|e| {
            assert_eq!(e.scope.tenant, t);
            e.scope.thread.or(e.scope.user)
        })
        .collect();
    assert_eq!(
        scopes,
        [
            Some("u1".into()),
            None,
            Some("th".into()),
            Some("u1".into())
        ]
    );
    assert!(store
        .session_log(&u1, "op:none", "operation")
        .expect("log")
        .is_empty());
    assert!(store
        .session_log(&u1, "op:a", "nothing")
        .expect("log")
        .is_empty());
    assert_eq!(
        log(store, &scope(&other, Some("u1"), None)),
        ["another tenant's@1"]
    );
}
