//! The commit protocol on an in-memory bucket: atomic visibility, no lost
//! update between two writers of one tenant, a crashed commit finished by
//! the next reader, erasure reaching every key. (What every store must do
//! is the store conformance suite, run on the built component by
//! `tests/tests/edge.rs`.)

use std::cell::Cell;

use crate::bindings::exports::engram::memory::store::{
    Event, Filter, Insert, Principal, ScopeMatch, Scrub, StoreError, Stored, Tombstone, Update,
    WeightedTerm, WriteOp,
};
use crate::kv::{Kv, MemKv};
use crate::layout::Layout;
use crate::model::{CommitRecord, Head};
use crate::store::KvStore;
use crate::types::*;

thread_local! {
    static WALL: Cell<i64> = const { Cell::new(1_000_000) };
}

fn wall() -> i64 {
    WALL.with(Cell::get)
}

fn advance(ms: i64) {
    WALL.with(|w| w.set(w.get() + ms));
}

fn at(ms: i64) -> Datetime {
    Datetime {
        epoch_ms: ms,
        offset_minutes: 0,
    }
}

fn scope(t: &str) -> Scope {
    Scope {
        tenant: t.into(),
        user: None,
        project: None,
        thread: None,
        agent: None,
    }
}

fn principal(t: &str) -> Principal {
    Principal {
        tenant: t.into(),
        user: None,
        project: None,
    }
}

fn store(kv: &MemKv, t: &str) -> KvStore<MemKv> {
    let s = KvStore::new(kv.clone(), wall);
    s.open(principal(t));
    s
}

fn memory(id: &str, rev: u32, text: &str, key: Option<(&str, &str)>) -> Memory {
    let payload = match key {
        Some((s, p)) => Payload::Semantic(SemanticPayload {
            subject: s.into(),
            predicate: p.into(),
            object: text.into(),
            condition: None,
        }),
        None => Payload::Episodic(EpisodicPayload {
            occurred_at: Some(at(1)),
            time_expression: None,
            actors: vec![],
            context: vec![],
            actions: vec![],
            outcome: Some(text.into()),
            success: Some(true),
        }),
    };
    Memory {
        id: id.into(),
        revision: rev,
        kind: if key.is_some() {
            MemoryKind::Semantic
        } else {
            MemoryKind::Episodic
        },
        scope: scope("t"),
        text: text.into(),
        payload,
        provenance: Provenance {
            source: Source {
                kind: SourceKind::User,
                reference: Some(format!("evt-{id}")),
            },
            source_event_ids: vec![],
            external_id: None,
            thread: None,
            extractor_version: "x".into(),
            policy_version: "p".into(),
        },
        confidence: 0.9,
        sensitivity: Sensitivity::Internal,
        observed_at: at(1),
        valid_from: None,
        valid_to: None,
        status: Status::Active,
        supersedes: None,
        superseded_by: None,
        created_at: at(1),
        updated_at: at(rev as i64),
        retention: Retention::Standard,
        access_count: 0,
        last_accessed: None,
        entities: vec![],
        embedding: None,
    }
}

fn insert(m: Memory) -> WriteOp {
    let terms = m.text.split_whitespace().map(str::to_string).collect();
    WriteOp::Insert(Insert {
        memory: m,
        index_terms: terms,
    })
}

fn all(t: &str) -> Filter {
    Filter {
        scope: scope(t),
        scope_match: ScopeMatch::Within,
        kinds: vec![],
        statuses: vec![],
        valid_at: None,
        sensitivity_max: None,
        subject: None,
        predicate: None,
        condition: None,
        source_ref: None,
        exclude_archived: false,
    }
}

fn ids(found: &[Stored]) -> Vec<String> {
    found
        .iter()
        .map(|s| format!("{}#{}", s.memory.id, s.memory.revision))
        .collect()
}

fn search(s: &KvStore<MemKv>, term: &str) -> Vec<String> {
    let terms = [WeightedTerm {
        term: term.into(),
        weight: 1.0,
    }];
    ids(&s.search(&all("t"), &terms, 10).expect("search"))
}

#[test]
fn a_commit_is_read_back_through_every_index() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    let r = s
        .commit(&[
            insert(memory("a", 1, "alpha beta", None)),
            insert(memory("b", 1, "alpha alpha gamma", None)),
        ])
        .expect("commit");
    assert_eq!(r.etags, [1, 1]);
    // Equal update times: by id.
    assert_eq!(ids(&s.find(&all("t"), 10).unwrap()), ["a#1", "b#1"]);
    assert_eq!(search(&s, "gamma"), ["b#1"]);
    let st = s
        .stats(&all("t"), &["alpha".into(), "zeta".into()])
        .unwrap();
    assert_eq!((st.documents, st.frequencies), (2, vec![2, 0]));
    assert!((st.average_length - 2.5).abs() < 1e-12);
    assert_eq!(ids(&s.revisions("a").unwrap()), ["a#1"]);
    let head: Head =
        serde_json::from_slice(&kv.get(&Layout::new("t").head()).unwrap().unwrap()).unwrap();
    assert_eq!(
        head,
        Head {
            v: 1,
            pending: None
        }
    );
    assert!(
        !kv.keys().iter().any(|k| k.contains("/commit/")),
        "the commit record is gone once applied"
    );
}

#[test]
fn another_tenant_sees_nothing_and_an_unopened_store_is_denied() {
    let kv = MemKv::default();
    store(&kv, "t")
        .commit(&[insert(memory("a", 1, "alpha", None))])
        .unwrap();
    let other = store(&kv, "u");
    assert!(matches!(
        other.find(&all("t"), 10),
        Err(StoreError::Denied(_))
    ));
    assert!(other.revisions("a").unwrap().is_empty());
    let closed = KvStore::new(kv.clone(), wall);
    assert!(matches!(closed.revisions("a"), Err(StoreError::Denied(_))));
    assert!(matches!(
        other.commit(&[insert(memory("z", 1, "zeta", None))]),
        Err(StoreError::Denied(_))
    ));
}

/// Two writers of one tenant: the second plans on a head the first has
/// moved past, loses the swap, plans again and keeps both writes.
#[test]
fn concurrent_writers_of_one_tenant_lose_no_update() {
    let kv = MemKv::default();
    let a = store(&kv, "t");
    let b = store(&kv, "t");
    a.commit(&[insert(memory("seed", 1, "seed", None))])
        .unwrap();
    let fired = std::rc::Rc::new(Cell::new(false));
    let f = fired.clone();
    let b_kv = kv.clone();
    *kv.before_swap.borrow_mut() = Some(Box::new(move |key: &str| {
        if key.ends_with("/head") && !f.get() {
            f.set(true);
            // Writer b commits between a's read of the head and a's swap.
            let hook = b_kv.before_swap.borrow_mut().take();
            let b = store(&b_kv, "t");
            b.commit(&[insert(memory("from-b", 1, "shared bee", None))])
                .expect("b commits");
            *b_kv.before_swap.borrow_mut() = hook;
        }
    }));
    a.commit(&[insert(memory("from-a", 1, "shared ay", None))])
        .expect("a commits after planning again");
    *kv.before_swap.borrow_mut() = None;
    assert!(fired.get());
    assert_eq!(search(&b, "shared"), ["from-a#1", "from-b#1"]);
    let st = b.stats(&all("t"), &["shared".into()]).unwrap();
    assert_eq!((st.documents, st.frequencies), (3, vec![2]));
    // Both wrote revision 1 of one id: the second is a conflict, not a lost update.
    let c1 = store(&kv, "t");
    c1.commit(&[insert(memory("same", 1, "first", None))])
        .unwrap();
    let e = store(&kv, "t")
        .commit(&[insert(memory("same", 1, "second", None))])
        .unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    assert_eq!(c1.revisions("same").unwrap()[0].memory.text, "first");
}

/// A writer that dies after its swap leaves a pending head and its record:
/// the next reader applies it before reading.
#[test]
fn a_commit_left_half_applied_is_finished_by_the_next_reader() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    s.commit(&[insert(memory("a", 1, "alpha", None))]).unwrap();
    // Plan a commit on a scratch copy of the bucket to get its record.
    let scratch = MemKv::default();
    *scratch.data.borrow_mut() = kv.data.borrow().clone();
    store(&scratch, "t")
        .commit(&[insert(memory("b", 1, "beta", None))])
        .unwrap();
    let layout = Layout::new("t");
    let writes: Vec<(String, Option<String>)> = scratch
        .data
        .borrow()
        .iter()
        .filter(|(k, v)| kv.data.borrow().get(*k) != Some(*v) && !k.ends_with("/head"))
        .map(|(k, v)| (k.clone(), Some(String::from_utf8(v.clone()).unwrap())))
        .collect();
    assert!(!writes.is_empty());
    let record = CommitRecord {
        v: 2,
        at: wall(),
        writes: writes.clone(),
    };
    let rkey = layout.commit(2, 7);
    // Crash: the record and the pending head were written, one key applied.
    kv.set_many(vec![
        (rkey.clone(), serde_json::to_vec(&record).unwrap()),
        (
            layout.head(),
            serde_json::to_vec(&Head {
                v: 2,
                pending: Some(rkey.clone()),
            })
            .unwrap(),
        ),
        (
            writes[0].0.clone(),
            writes[0].1.clone().unwrap().into_bytes(),
        ),
    ])
    .unwrap();
    let reader = store(&kv, "t");
    assert_eq!(search(&reader, "beta"), ["b#1"]);
    assert_eq!(ids(&reader.find(&all("t"), 10).unwrap()), ["a#1", "b#1"]);
    assert!(kv.get(&rkey).unwrap().is_none(), "record removed");
    let head: Head = serde_json::from_slice(&kv.get(&layout.head()).unwrap().unwrap()).unwrap();
    assert_eq!(head.pending, None);
}

/// An erased memory's text is in no value afterwards; the markers left in
/// its keys hold no content and are collected ten minutes on.
#[test]
fn erasure_reaches_every_key() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    s.commit(&[
        insert(memory("gone", 1, "hunter2 password", None)),
        insert(memory("kept", 1, "other words", None)),
        WriteOp::Append(Event {
            session: "s".into(),
            scope: scope("t"),
            kind: "decision".into(),
            payload: "said hunter2".into(),
            at: at(5),
        }),
    ])
    .unwrap();
    s.commit(&[
        WriteOp::Erase("gone".into()),
        WriteOp::ScrubEvents(Scrub {
            scope: scope("t"),
            fragment: "hunter2".into(),
        }),
    ])
    .unwrap();
    let holding = |needle: &str| -> Vec<String> {
        kv.data
            .borrow()
            .iter()
            .filter(|(k, v)| k.contains(needle) || String::from_utf8_lossy(v).contains(needle))
            .map(|(k, _)| k.clone())
            .collect()
    };
    assert!(holding("hunter2").is_empty(), "{:?}", holding("hunter2"));
    assert!(holding("password").is_empty());
    assert!(s.revisions("gone").unwrap().is_empty());
    assert!(search(&s, "hunter2").is_empty());
    let markers = holding("\"gone\":true");
    assert!(!markers.is_empty());
    // Ten minutes later the next commit deletes the markers for good.
    advance(10 * 60_000);
    s.commit(&[insert(memory("later", 1, "later", None))])
        .unwrap();
    assert!(
        holding("\"gone\":true").is_empty(),
        "{:?}",
        holding("\"gone\":true")
    );
    assert_eq!(search(&s, "other"), ["kept#1"]);
}

#[test]
fn one_active_revision_per_semantic_key() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    s.commit(&[insert(memory("k", 1, "blue", Some(("user:u1", "colour"))))])
        .unwrap();
    let e = s
        .commit(&[insert(memory("k2", 1, "red", Some(("user:u1", "colour"))))])
        .unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    let old = s.revisions("k").unwrap().remove(0);
    let mut retired = old.memory.clone();
    retired.status = Status::Superseded;
    s.commit(&[
        WriteOp::Update(Update {
            memory: retired,
            index_terms: vec!["blue".into()],
            expected_etag: old.etag,
        }),
        insert(memory("k2", 1, "red", Some(("user:u1", "colour")))),
    ])
    .unwrap();
    let stale = s.commit(&[WriteOp::Update(Update {
        memory: old.memory.clone(),
        index_terms: vec![],
        expected_etag: old.etag,
    })]);
    assert!(matches!(stale, Err(StoreError::Conflict(_))));
    assert_eq!(s.revisions("k").unwrap()[0].etag, 2);
}

#[test]
fn events_count_by_scope_kind_and_instant() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    let ev = |kind: &str, ms: i64| {
        WriteOp::Append(Event {
            session: "s1".into(),
            scope: scope("t"),
            kind: kind.into(),
            payload: String::new(),
            at: at(ms),
        })
    };
    let r = s
        .commit(&[
            ev("write", 59_000),
            ev("write", 61_000),
            ev("write", 130_000),
            ev("forget", 1),
        ])
        .unwrap();
    assert_eq!(r.sequences, [1, 2, 3, 4]);
    let count = |kind: &str, since: i64| s.count_events(&scope("t"), kind, at(since)).unwrap();
    assert_eq!(count("write", 0), 3);
    assert_eq!(count("write", 60_000), 2);
    assert_eq!(count("write", 61_001), 1);
    assert_eq!(count("forget", 0), 1);
    assert_eq!(count("write", 200_000), 0);
    let r = s.commit(&[ev("write", 1)]).unwrap();
    assert_eq!(r.sequences, [5]);
}

fn op_event(session: &str, scope: Scope, kind: &str, payload: &str, ms: i64) -> WriteOp {
    WriteOp::Append(Event {
        session: session.into(),
        scope,
        kind: kind.into(),
        payload: payload.into(),
        at: at(ms),
    })
}

#[test]
fn a_session_log_reads_one_session_visible_from_a_scope_in_order() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    let u1 = user_scope("t", "u1");
    s.commit(&[
        op_event("op:1", u1.clone(), "operation", "a", 5),
        op_event("op:2", u1.clone(), "operation", "other session", 6),
        op_event("op:1", user_scope("t", "u2"), "operation", "u2's", 7),
        op_event("op:1", scope("t"), "operation", "tenant-wide", 8),
        op_event("op:1", u1.clone(), "decision", "another kind", 9),
    ])
    .unwrap();
    s.commit(&[op_event("op:1", u1.clone(), "operation", "b", 10)])
        .unwrap();
    let payloads = |s: &KvStore<MemKv>, scope: &Scope| -> Vec<String> {
        s.session_log(scope, "op:1", "operation")
            .unwrap()
            .into_iter()
            .map(|e| e.payload)
            .collect()
    };
    assert_eq!(payloads(&s, &u1), ["a", "tenant-wide", "b"]);
    assert_eq!(payloads(&s, &scope("t")), ["tenant-wide"]);
    // Outside the principal: denied, like every call.
    let pinned = KvStore::new(kv.clone(), wall);
    pinned.open(Principal {
        user: Some("u2".into()),
        ..principal("t")
    });
    assert!(matches!(
        pinned.session_log(&u1, "op:1", "operation"),
        Err(StoreError::Denied(_))
    ));
    assert_eq!(
        payloads(&pinned, &user_scope("t", "u2")),
        ["u2's", "tenant-wide"]
    );

    // A bucket written before the session index existed: its events are
    // found by reading their chunks.
    let l = Layout::new("t");
    let meta = String::from_utf8(kv.get(&l.events_meta()).unwrap().unwrap()).unwrap();
    let legacy = meta.replace(",\"indexed_from\":0", "");
    assert_ne!(legacy, meta);
    kv.set_many(vec![(l.events_meta(), legacy.into_bytes())])
        .unwrap();
    kv.set_many(vec![(
        l.session_index("op:1"),
        br#"{"v":1,"sessions":{}}"#.to_vec(),
    )])
    .unwrap();
    assert_eq!(payloads(&s, &u1), ["a", "tenant-wide", "b"]);
    // Appends from now on are indexed; both halves are read.
    s.commit(&[op_event("op:1", u1.clone(), "operation", "c", 11)])
        .unwrap();
    assert_eq!(payloads(&s, &u1), ["a", "tenant-wide", "b", "c"]);
}

#[test]
fn an_append_to_a_session_that_changed_since_it_was_read_conflicts() {
    let kv = MemKv::default();
    let a = store(&kv, "t");
    let b = store(&kv, "t");
    let ev = |payload: &str| op_event("op:9", scope("t"), "operation", payload, 1);
    a.commit(&[ev("first")]).unwrap();
    assert_eq!(
        a.session_log(&scope("t"), "op:9", "operation")
            .unwrap()
            .len(),
        1
    );
    // Another instance records the same operation meanwhile.
    b.commit(&[ev("b's")]).unwrap();
    assert!(matches!(
        a.commit(&[ev("a's")]),
        Err(StoreError::Conflict(_))
    ));
    // Read again, then the append goes through; other sessions never wait.
    a.commit(&[op_event("op:10", scope("t"), "operation", "x", 1)])
        .unwrap();
    assert_eq!(
        a.session_log(&scope("t"), "op:9", "operation")
            .unwrap()
            .len(),
        2
    );
    let r = a.commit(&[ev("a's"), ev("a's again")]).unwrap();
    assert_eq!(r.sequences, [3, 4]);
}

#[test]
fn commit_records_of_two_instances_are_named_by_their_content() {
    // Two fresh instances (one per request) committing at one version in
    // the same millisecond: the names differ unless the write sets do not.
    let kv = MemKv::default();
    let (a, b) = (store(&kv, "t"), store(&kv, "t"));
    let record = |value: &str| CommitRecord {
        v: 7,
        at: wall(),
        writes: vec![("engram/t/events/meta".into(), Some(value.into()))],
    };
    let name =
        |s: &KvStore<MemKv>, r: &CommitRecord| s.next_nonce(r, &crate::view::encode(r).unwrap());
    assert_ne!(
        name(&a, &record("{\"v\":7,\"a\":1}")),
        name(&b, &record("{\"v\":7,\"b\":1}"))
    );
    let (c, d) = (store(&kv, "t"), store(&kv, "t"));
    assert_eq!(name(&c, &record("same")), name(&d, &record("same")));
}

const SECRET: &str = "000102030405060708090a0b0c0d0e0f";

fn user_scope(t: &str, user: &str) -> Scope {
    Scope {
        user: Some(user.into()),
        ..scope(t)
    }
}

fn tombstone(owner: Scope, fingerprint: &str) -> WriteOp {
    WriteOp::Tombstone(Tombstone {
        scope: owner,
        fingerprint: fingerprint.into(),
        length: 4,
        kind: "text".into(),
        created_at: at(7),
    })
}

#[test]
fn erasure_refuses_without_a_secret_and_with_another_one() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    // No secret: no key, no tombstone, nothing written.
    assert!(
        matches!(s.fingerprint_key(&scope("t")), Err(StoreError::Backend(m)) if m.contains("ENGRAM_FINGERPRINT_SECRET"))
    );
    assert!(matches!(
        s.commit(&[tombstone(scope("t"), "aa")]),
        Err(StoreError::Backend(_))
    ));
    assert!(kv.data.borrow().is_empty());
    // The secret: the key every host derives, and its id in the bucket.
    s.set_secret(crate::secret::from_env(Some(SECRET)));
    let key = s.fingerprint_key(&scope("t")).unwrap();
    let owner = engram_contract::types::Scope {
        tenant: "t".into(),
        user: None,
        project: None,
        thread: None,
        agent: None,
    };
    let secret = hex::decode(SECRET).unwrap();
    assert_eq!(
        key,
        engram_contract::owner::derive_key(&secret, &owner).to_vec()
    );
    s.commit(&[tombstone(scope("t"), "aa")]).unwrap();
    // Another secret on the same bucket is refused, with both key ids.
    let other = store(&kv, "t");
    other.set_secret(crate::secret::from_env(Some(
        "ffeeddccbbaa99887766554433221100",
    )));
    match other.fingerprint_key(&scope("t")) {
        Err(StoreError::Backend(m)) => {
            assert!(m.contains(&engram_contract::owner::key_id(&secret)), "{m}")
        }
        r => panic!("another secret was accepted: {r:?}"),
    }
    assert!(other.commit(&[tombstone(scope("t"), "bb")]).is_err());
    assert_eq!(s.tombstones(&scope("t")).unwrap().len(), 1);
    // Too short or not hex: refused with the variable named.
    assert!(crate::secret::from_env(Some("abcd")).is_err());
    assert!(crate::secret::from_env(Some("not hex")).is_err());
}

#[test]
fn tombstones_and_keys_stay_with_their_owner() {
    let kv = MemKv::default();
    let admin = store(&kv, "t");
    admin.set_secret(crate::secret::from_env(Some(SECRET)));
    admin
        .commit(&[
            tombstone(user_scope("t", "ann"), "ann"),
            tombstone(user_scope("t", "bob"), "bob"),
            tombstone(scope("t"), "all"),
        ])
        .unwrap();
    let fps =
        |list: Vec<Tombstone>| -> Vec<String> { list.into_iter().map(|t| t.fingerprint).collect() };
    assert_eq!(
        fps(admin.tombstones(&user_scope("t", "ann")).unwrap()),
        ["all", "ann"]
    );
    assert_eq!(fps(admin.tombstones(&scope("t")).unwrap()), ["all"]);
    let ann = KvStore::new(kv.clone(), wall);
    ann.set_secret(crate::secret::from_env(Some(SECRET)));
    ann.open(Principal {
        user: Some("ann".into()),
        ..principal("t")
    });
    // Ann never sees Bob's tombstones or key, nor writes one for him.
    assert!(matches!(
        ann.tombstones(&user_scope("t", "bob")),
        Err(StoreError::Denied(_))
    ));
    assert!(matches!(
        ann.fingerprint_key(&user_scope("t", "bob")),
        Err(StoreError::Denied(_))
    ));
    assert!(ann.fingerprint_key(&scope("t")).is_ok());
    assert!(matches!(
        ann.commit(&[tombstone(user_scope("t", "bob"), "x")]),
        Err(StoreError::Denied(_))
    ));
    assert!(matches!(
        ann.commit(&[tombstone(
            Scope {
                thread: Some("th".into()),
                ..user_scope("t", "ann")
            },
            "x"
        )]),
        Err(StoreError::Invalid(_))
    ));
}

#[test]
fn a_scrub_stays_within_its_scope_and_an_update_keeps_its_scope() {
    let kv = MemKv::default();
    let s = store(&kv, "t");
    let event = |user: &str| {
        WriteOp::Append(Event {
            session: "s".into(),
            scope: user_scope("t", user),
            kind: "decision".into(),
            payload: "said hunter2".into(),
            at: at(5),
        })
    };
    s.commit(&[
        event("ann"),
        event("bob"),
        insert(memory("m", 1, "kept words", None)),
    ])
    .unwrap();
    s.commit(&[WriteOp::ScrubEvents(Scrub {
        scope: user_scope("t", "ann"),
        fragment: "hunter2".into(),
    })])
    .unwrap();
    let payloads: Vec<String> = kv
        .data
        .borrow()
        .iter()
        .filter(|(k, _)| k.contains("/events/0"))
        .map(|(_, v)| String::from_utf8_lossy(v).to_string())
        .collect();
    assert_eq!(payloads.len(), 1);
    assert_eq!(
        payloads[0].matches("[erased]").count(),
        1,
        "{}",
        payloads[0]
    );
    assert_eq!(payloads[0].matches("hunter2").count(), 1, "{}", payloads[0]);
    // An update naming another scope than the stored revision's: a conflict.
    let mut moved = memory("m", 1, "kept words", None);
    moved.scope = user_scope("t", "ann");
    let r = s.commit(&[WriteOp::Update(Update {
        memory: moved,
        index_terms: vec![],
        expected_etag: 1,
    })]);
    assert!(matches!(r, Err(StoreError::Conflict(_))), "{r:?}");
}

#[test]
fn sensitivity_ranks_are_the_contracts() {
    let ours = [
        Sensitivity::Public,
        Sensitivity::Internal,
        Sensitivity::Personal,
        Sensitivity::Sensitive,
    ];
    let ranks: Vec<u8> = ours
        .iter()
        .map(|s| crate::filter::sensitivity_rank(*s))
        .collect();
    let contract: Vec<u8> = engram_contract::types::Sensitivity::ALL
        .iter()
        .map(|s| s.rank())
        .collect();
    assert_eq!(ranks, contract);
}
