//! Review of pending memories over the in-memory store: an approved
//! inference becomes an active, user-verified revision that survives the
//! inference expiry and supersedes the value it replaces; a rejection
//! retracts; only pending revisions of the principal's own tenant can be
//! reviewed.

use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::{FixedClock, Store};
use engram_guest::lifecycle::{review, sweep};
use engram_guest::read::recall;
use engram_guest::testing::memstore::MemStore;
use engram_guest::types::*;
use engram_guest::write::remember;

const DAY: i64 = 86_400_000;
/// 2026-08-01T10:00:00+08:00.
const T0: i64 = 1_785_549_600_000;

fn at(days: i64) -> Datetime {
    Datetime {
        epoch_ms: T0 + days * DAY,
        offset_minutes: 480,
    }
}

fn user_scope() -> Scope {
    Scope {
        tenant: "acme".into(),
        user: Some("u42".into()),
        project: None,
        thread: None,
        agent: None,
    }
}

/// A semantic fact about the user's editor, from `source`.
fn editor(object: &str, source: SourceKind, reference: &str) -> Candidate {
    Candidate {
        id: Some(reference.into()),
        text: format!("the user prefers {object} as their editor"),
        scope: user_scope(),
        source: Source {
            kind: source,
            reference: Some(reference.into()),
        },
        observed_at: None,
        confidence: None,
        kind_hint: Some(CandidateKind::Semantic),
        subject: Some("user:u42".into()),
        predicate: Some("preferred_editor".into()),
        object: Some(object.into()),
        condition: None,
        occurred_at: None,
        valid_from: None,
        valid_to: None,
        entities: Vec::new(),
        embedding: None,
    }
}

fn run<T>(store: &dyn Store, now: Datetime, f: impl FnOnce(&Ctx) -> T) -> T {
    let policy = Policy::default();
    let clock = FixedClock(now);
    f(&Ctx {
        store,
        clock: &clock,
        policy: &policy,
    })
}

fn remember_one(store: &MemStore, now: Datetime, c: Candidate) -> Decision {
    run(store, now, |ctx| remember::remember(ctx, &[c]))
        .expect("remember")
        .remove(0)
}

fn item(d: &Decision, verdict: Verdict) -> ReviewItem {
    ReviewItem {
        id: d.memory_id.clone().expect("a stored memory"),
        revision: d.revision.expect("a stored revision"),
        verdict,
        reference: Some("inspector:u42".into()),
    }
}

fn history(store: &MemStore, id: &str) -> Vec<Memory> {
    run(store, at(0), |ctx| sweep::history(ctx, id)).expect("history")
}

fn recalled(store: &MemStore, now: Datetime, text: &str) -> Vec<String> {
    let q = Query {
        id: None,
        text: text.into(),
        scope: user_scope(),
        k: 10,
        as_of: None,
        kinds: Vec::new(),
        entities: Vec::new(),
        embedding: None,
        sensitivity_ceiling: None,
        explain_rejected: false,
    };
    run(store, now, |ctx| recall::recall(ctx, &[q]))
        .expect("recall")
        .remove(0)
        .results
        .into_iter()
        .map(|s| s.memory.text)
        .collect()
}

#[test]
fn an_approved_inference_is_active_user_verified_and_outlives_the_inference_expiry() {
    let store = MemStore::for_tenant("acme");
    let d = remember_one(&store, at(0), editor("vim", SourceKind::Behavior, "evt-7"));
    assert_eq!(d.disposition, Disposition::Pending);
    assert!(recalled(&store, at(1), "which editor does the user prefer").is_empty());

    let out = run(&store, at(1), |ctx| {
        review::review(ctx, &[item(&d, Verdict::Approve)])
    })
    .expect("review");
    let approved = out[0]
        .approved_as
        .clone()
        .expect("an approval writes a revision");
    assert_eq!(approved.revision, 2);
    assert!(
        out[0].reason.text.contains("approved by inspector:u42"),
        "{}",
        out[0].reason.text
    );

    let revs = history(&store, &approved.id);
    assert_eq!(revs.len(), 2, "never an in-place edit");
    assert_eq!(revs[0].status, Status::Superseded);
    assert_eq!(revs[0].superseded_by.as_ref(), Some(&approved));
    assert_eq!(revs[0].provenance.source.kind, SourceKind::Behavior);
    let v = &revs[1];
    assert_eq!(v.status, Status::Active);
    assert_eq!(v.provenance.source.kind, SourceKind::User);
    assert!(v.provenance.source_event_ids.contains(&"evt-7".to_string()));
    assert!(v.confidence >= 0.95, "confidence {}", v.confidence);
    assert_eq!(v.valid_to, None, "the inference expiry ends when verified");

    // A sweep past the week an unverified inference lives keeps it.
    let swept = run(&store, at(9), |ctx| sweep::sweep(ctx, &user_scope())).expect("sweep");
    assert_eq!(swept.inferences_expired, 0);
    assert_eq!(
        recalled(&store, at(9), "which editor does the user prefer"),
        vec!["the user prefers vim as their editor".to_string()]
    );
}

#[test]
fn an_unreviewed_inference_still_expires_after_a_week() {
    let store = MemStore::for_tenant("acme");
    remember_one(&store, at(0), editor("vim", SourceKind::Agent, "evt-8"));
    let swept = run(&store, at(9), |ctx| sweep::sweep(ctx, &user_scope())).expect("sweep");
    assert_eq!(swept.inferences_expired, 1);
}

#[test]
fn approving_supersedes_the_live_value_of_the_same_key() {
    let store = MemStore::for_tenant("acme");
    let stated = remember_one(&store, at(0), editor("emacs", SourceKind::User, "evt-1"));
    assert_eq!(stated.disposition, Disposition::Active);
    let inferred = remember_one(&store, at(1), editor("vim", SourceKind::Agent, "evt-2"));
    assert_eq!(inferred.disposition, Disposition::Pending);
    assert_eq!(inferred.memory_id, stated.memory_id, "one key, one memory");

    let out = run(&store, at(2), |ctx| {
        review::review(ctx, &[item(&inferred, Verdict::Approve)])
    })
    .expect("review");
    let id = stated.memory_id.clone().expect("id");
    assert_eq!(
        out[0].superseded,
        vec![MemoryRef {
            id: id.clone(),
            revision: 1
        }]
    );
    let revs = history(&store, &id);
    let active: Vec<&Memory> = revs.iter().filter(|m| m.status == Status::Active).collect();
    assert_eq!(active.len(), 1, "one active revision per key");
    assert_eq!(active[0].revision, 3);
    assert_eq!(
        revs[0].valid_to,
        Some(at(2)),
        "the old value ends at approval"
    );
    assert_eq!(revs[0].superseded_by.as_ref().map(|r| r.revision), Some(3));
}

#[test]
fn a_rejected_memory_is_retracted_and_never_recalled() {
    let store = MemStore::for_tenant("acme");
    let d = remember_one(&store, at(0), editor("nano", SourceKind::Behavior, "evt-3"));
    let out = run(&store, at(1), |ctx| {
        review::review(ctx, &[item(&d, Verdict::Reject)])
    })
    .expect("review");
    assert_eq!(out[0].approved_as, None);
    let revs = history(&store, d.memory_id.as_deref().expect("id"));
    assert_eq!(revs.len(), 1);
    assert_eq!(revs[0].status, Status::Retracted);
    assert!(recalled(&store, at(1), "which editor does the user prefer").is_empty());
}

#[test]
fn only_pending_revisions_of_the_principals_tenant_are_reviewed() {
    let store = MemStore::for_tenant("acme");
    let active = remember_one(&store, at(0), editor("emacs", SourceKind::User, "evt-1"));
    let err = run(&store, at(1), |ctx| {
        review::review(ctx, &[item(&active, Verdict::Approve)])
    })
    .expect_err("an active revision is not reviewable");
    match err {
        Error::InvalidInput(f) => {
            assert_eq!((f.index, f.field.as_str()), (Some(0), "revision"));
            assert!(f.message.contains("is active"), "{}", f.message);
        }
        other => panic!("expected invalid-input, got {other:?}"),
    }

    let pending = remember_one(&store, at(0), editor("vim", SourceKind::Agent, "evt-2"));
    let other_tenant = MemStore::for_tenant("globex");
    let err = run(&other_tenant, at(1), |ctx| {
        review::review(ctx, &[item(&pending, Verdict::Approve)])
    })
    .expect_err("another tenant's memory is invisible");
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");

    // All or nothing: a bad second item leaves the first unreviewed.
    let mut twice = item(&pending, Verdict::Reject);
    twice.revision = 99;
    let err = run(&store, at(1), |ctx| {
        review::review(
            ctx,
            &[
                item(&pending, Verdict::Approve),
                ReviewItem {
                    id: "m-missing".into(),
                    ..twice
                },
            ],
        )
    })
    .expect_err("a missing revision fails the call");
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    let revs = history(&store, pending.memory_id.as_deref().expect("id"));
    assert!(revs.iter().any(|m| m.status == Status::Pending));
}
