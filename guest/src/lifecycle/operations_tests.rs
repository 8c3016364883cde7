//! Execution records on the in-memory store: created, duplicate, updated,
//! the refusals that keep a record's final status, tool, key and scope,
//! all or nothing, exact lookup from a scope, redaction, and records kept
//! out of recall and list.

use super::*;
use crate::core::config::Policy;
use crate::core::store::FixedClock;
use crate::testing::memstore::MemStore;
use crate::types::{Datetime, Query};
use crate::wit_store::Principal;

/// 2026-08-05T06:18:22Z.
const NOW: i64 = 1_785_910_702_000;

fn at(ms: i64) -> Datetime {
    Datetime {
        epoch_ms: ms,
        offset_minutes: 0,
    }
}

fn scope(tenant: &str, user: Option<&str>, thread: Option<&str>) -> Scope {
    Scope {
        tenant: tenant.into(),
        user: user.map(Into::into),
        project: None,
        thread: thread.map(Into::into),
        agent: None,
    }
}

fn u42() -> Scope {
    scope("acme", Some("u42"), Some("t1"))
}

fn refund(status: OperationStatus) -> OperationRecord {
    OperationRecord {
        operation_id: "op_891".into(),
        scope: u42(),
        tool: "issue_refund".into(),
        status,
        idempotency_key: Some("payment-42-order-991".into()),
        result_ref: None,
        result_digest: None,
        detail: None,
        at: None,
    }
}

fn lookup(id: &str, scope: Scope) -> OperationLookup {
    OperationLookup {
        operation_id: id.into(),
        scope,
    }
}

/// Run `f` in a context over `store` at `ms`.
fn with<T>(store: &MemStore, ms: i64, f: impl FnOnce(&Ctx) -> T) -> T {
    let policy = Policy::default();
    let clock = FixedClock(at(ms));
    let ctx = Ctx {
        store,
        clock: &clock,
        policy: &policy,
    };
    f(&ctx)
}

fn rec(
    store: &MemStore,
    ms: i64,
    records: &[OperationRecord],
) -> Result<Vec<OperationReceipt>, Error> {
    with(store, ms, |ctx| record(ctx, records))
}

fn one(store: &MemStore, ms: i64, r: OperationRecord) -> OperationReceipt {
    rec(store, ms, &[r]).expect("recorded").remove(0)
}

fn state(store: &MemStore, id: &str, scope: Scope) -> OperationState {
    with(store, NOW, |ctx| get(ctx, &[lookup(id, scope)]))
        .expect("looked up")
        .remove(0)
}

fn receipt(action: OperationAction, revision: u32, status: OperationStatus) -> OperationReceipt {
    OperationReceipt {
        operation_id: "op_891".into(),
        action,
        status,
        revision,
    }
}

fn refusal(r: Result<Vec<OperationReceipt>, Error>) -> (Option<u32>, String, String) {
    match r {
        Err(Error::InvalidInput(f)) => (f.index, f.field, f.message),
        other => panic!("expected invalid-input, got {other:?}"),
    }
}

fn operation_events(store: &MemStore) -> usize {
    store
        .events()
        .iter()
        .filter(|(_, _, e)| e.kind == KIND)
        .count()
}

#[test]
fn created_duplicate_updated_and_a_final_status_that_never_changes() {
    use OperationAction::*;
    use OperationStatus::*;
    let store = MemStore::for_tenant("acme");
    assert_eq!(
        one(&store, NOW, refund(Submitted)),
        receipt(Created, 1, Submitted)
    );
    // The same record again, even with another note: nothing appended.
    let mut again = refund(Submitted);
    again.detail = Some("retried after a timeout".into());
    assert_eq!(
        one(&store, NOW + 1, again),
        receipt(Duplicate, 1, Submitted)
    );
    assert_eq!(operation_events(&store), 1);
    assert_eq!(
        one(&store, NOW + 2, refund(Unknown)),
        receipt(Updated, 2, Unknown)
    );
    let mut done = refund(Succeeded);
    done.result_ref = Some("artifact://tool-results/op_891.json".into());
    done.result_digest = Some("sha256:9f2c".into());
    assert_eq!(
        one(&store, NOW + 3, done.clone()),
        receipt(Updated, 3, Succeeded)
    );
    assert_eq!(
        one(&store, NOW + 4, done.clone()),
        receipt(Duplicate, 3, Succeeded)
    );
    // A late replay of an earlier record changes nothing and says where
    // the operation stands.
    assert_eq!(
        one(&store, NOW + 5, refund(Submitted)),
        receipt(Duplicate, 3, Succeeded)
    );
    assert_eq!(operation_events(&store), 3);

    // A final status never changes, nor does a final record's result.
    let (index, field, message) = refusal(rec(&store, NOW + 6, &[refund(Failed)]));
    assert_eq!((index, field.as_str()), (Some(0), "status"));
    assert_eq!(
        message,
        "operation op_891 already succeeded; a final status does not change"
    );
    let mut other = done.clone();
    other.result_digest = Some("sha256:0000".into());
    let (_, field, message) = refusal(rec(&store, NOW + 6, &[other]));
    assert_eq!(field, "result_digest");
    assert!(
        message.contains("already succeeded with result_digest 'sha256:9f2c'"),
        "{message}"
    );
    // A repeated report that leaves its result out keeps the result.
    let mut short = done;
    short.result_ref = None;
    assert_eq!(
        one(&store, NOW + 6, short),
        receipt(Duplicate, 3, Succeeded)
    );
    assert_eq!(operation_events(&store), 3, "nothing written");

    let s = state(&store, "op_891", u42());
    assert!(s.found);
    assert_eq!(s.revision, 3);
    assert_eq!(
        s.history
            .iter()
            .map(|h| (h.status, h.at.epoch_ms - NOW))
            .collect::<Vec<_>>(),
        [(Submitted, 0), (Unknown, 2), (Succeeded, 3)]
    );
    let last = s.record.expect("record");
    assert_eq!(last.status, Succeeded);
    assert_eq!(
        last.result_ref.as_deref(),
        Some("artifact://tool-results/op_891.json")
    );
    assert_eq!(
        last.idempotency_key.as_deref(),
        Some("payment-42-order-991")
    );
    assert_eq!(last.at, Some(at(NOW + 3)));
}

#[test]
fn the_tool_the_idempotency_key_and_the_scope_never_change() {
    use OperationStatus::*;
    let store = MemStore::for_tenant("acme");
    one(&store, NOW, refund(Submitted));
    let mut tool = refund(Succeeded);
    tool.tool = "issue_payment".into();
    let (_, field, message) = refusal(rec(&store, NOW, &[tool]));
    assert_eq!(field, "tool");
    assert!(message.contains("'issue_refund'"), "{message}");
    let mut key = refund(Succeeded);
    key.idempotency_key = Some("payment-42-order-992".into());
    let (_, field, message) = refusal(rec(&store, NOW, &[key]));
    assert_eq!(field, "idempotency_key");
    assert!(message.contains("'payment-42-order-991'"), "{message}");
    // Another thread of the same scope is the same operation.
    let mut elsewhere = refund(Succeeded);
    elsewhere.scope.thread = Some("t2".into());
    assert_eq!(one(&store, NOW, elsewhere).revision, 2);
    assert_eq!(
        state(&store, "op_891", scope("acme", Some("u42"), None))
            .record
            .expect("found")
            .scope
            .thread
            .as_deref(),
        Some("t2"),
        "the thread of the latest record is its provenance"
    );

    // A tenant-wide operation is not updated from a user's scope.
    let mut wide = refund(Submitted);
    wide.operation_id = "op_wide".into();
    wide.scope = scope("acme", None, None);
    one(&store, NOW, wide.clone());
    let mut narrowed = wide;
    narrowed.status = Succeeded;
    narrowed.scope = scope("acme", Some("u42"), None);
    let (_, field, message) = refusal(rec(&store, NOW, &[narrowed]));
    assert_eq!(field, "scope");
    assert!(message.contains("recorded in tenant=acme;"), "{message}");
}

#[test]
fn a_batch_is_all_or_nothing_and_later_items_see_earlier_ones() {
    use OperationAction::*;
    use OperationStatus::*;
    let store = MemStore::for_tenant("acme");
    let got = rec(
        &store,
        NOW,
        &[refund(Submitted), refund(Submitted), refund(Succeeded)],
    )
    .expect("recorded");
    assert_eq!(
        got,
        [
            receipt(Created, 1, Submitted),
            receipt(Duplicate, 1, Submitted),
            receipt(Updated, 2, Succeeded)
        ]
    );
    let mut next = refund(Submitted);
    next.operation_id = "op_892".into();
    let (index, field, _) = refusal(rec(&store, NOW, &[next, refund(Failed)]));
    assert_eq!((index, field.as_str()), (Some(1), "status"));
    assert!(!state(&store, "op_892", u42()).found, "nothing written");
    assert_eq!(operation_events(&store), 2);
}

#[test]
fn a_lookup_is_exact_and_sees_only_its_scope() {
    use OperationStatus::*;
    let store = MemStore::for_tenant("acme");
    one(&store, NOW, refund(Submitted));
    let other_user = state(&store, "op_891", scope("acme", Some("u7"), None));
    assert_eq!(
        other_user,
        OperationState {
            operation_id: "op_891".into(),
            found: false,
            record: None,
            revision: 0,
            history: Vec::new(),
        }
    );
    assert!(!state(&store, "op_89", u42()).found, "never a near match");
    assert!(!state(&store, "OP_891", u42()).found);
    let beta = MemStore::for_tenant("beta");
    assert!(!state(&beta, "op_891", scope("beta", Some("u42"), None)).found);
    // The same id recorded by another user is another operation.
    let mut theirs = refund(Failed);
    theirs.scope = scope("acme", Some("u7"), None);
    assert_eq!(one(&store, NOW, theirs).action, OperationAction::Created);
    assert_eq!(state(&store, "op_891", u42()).revision, 1);
    assert_eq!(
        state(&store, "op_891", u42()).record.expect("own").status,
        Submitted
    );
    // Pinned to u42, another user's scope is denied, as in every call.
    let pinned = store.as_principal(Principal {
        tenant: "acme".into(),
        user: Some("u42".into()),
        project: None,
    });
    let denied = with(&pinned, NOW, |ctx| {
        get(ctx, &[lookup("op_891", scope("acme", Some("u7"), None))])
    });
    assert!(
        matches!(denied, Err(Error::PermissionDenied(_))),
        "{denied:?}"
    );
}

#[test]
fn secrets_are_redacted_before_anything_is_stored() {
    let store = MemStore::for_tenant("acme");
    let mut r = refund(OperationStatus::Failed);
    r.detail = Some("refund API refused key AKIA2E0A8F3B244C9986".into());
    r.result_ref =
        Some("https://pay.example/r?token=ghp_R8x2Kq9Lm4Tz7Wv1Np3Ys6Hd5Fb0Jc2Ug8A".into());
    one(&store, NOW, r);
    for (_, _, e) in store.events() {
        assert!(!e.payload.contains("AKIA2E0A8F3B244C9986"), "{}", e.payload);
        assert!(!e.payload.contains("ghp_R8x2"), "{}", e.payload);
    }
    let got = state(&store, "op_891", u42()).record.expect("found");
    let detail = got.detail.expect("detail");
    assert!(
        detail.starts_with("refund API refused key [REDACTED"),
        "{detail}"
    );
}

#[test]
fn records_are_events_never_memories() {
    let store = MemStore::for_tenant("acme");
    one(&store, NOW, refund(OperationStatus::Succeeded));
    let (session_name, _, e) = store.events().remove(0);
    assert_eq!(session_name, "op:op_891");
    assert_eq!(
        (e.kind.as_str(), e.scope.thread.as_deref()),
        ("operation", None)
    );
    assert_eq!(
        e.payload,
        r#"{"at":"2026-08-05T06:18:22Z","detail":null,"idempotency_key":"payment-42-order-991","result_digest":null,"result_ref":null,"status":"succeeded","thread":"t1","tool":"issue_refund"}"#
    );
    let recalled = with(&store, NOW, |ctx| {
        crate::read::recall::recall(
            ctx,
            &[Query {
                id: None,
                text: "issue_refund op_891 payment-42-order-991 succeeded".into(),
                scope: u42(),
                k: 10,
                as_of: None,
                kinds: Vec::new(),
                entities: Vec::new(),
                embedding: None,
                sensitivity_ceiling: None,
                explain_rejected: true,
            }],
        )
    })
    .expect("recall");
    assert!(recalled[0].results.is_empty() && recalled[0].not_admitted.is_empty());
    let listed = with(&store, NOW, |ctx| {
        crate::lifecycle::sweep::list_memories(ctx, &scope("acme", None, None), &[])
    })
    .expect("list");
    assert!(listed.is_empty());
}

#[test]
fn the_instant_keeps_its_offset_and_bad_items_name_their_field() {
    let store = MemStore::for_tenant("acme");
    let mut r = refund(OperationStatus::Submitted);
    r.at = Some(Datetime {
        epoch_ms: NOW - 1000,
        offset_minutes: 480,
    });
    one(&store, NOW, r);
    let s = state(&store, "op_891", u42());
    assert_eq!(s.history[0].at.offset_minutes, 480);
    assert_eq!(s.record.expect("found").at.expect("at").offset_minutes, 480);

    for (change, field) in [
        (
            Box::new(|r: &mut OperationRecord| r.operation_id = " ".into())
                as Box<dyn Fn(&mut OperationRecord)>,
            "operation_id",
        ),
        (Box::new(|r| r.scope.tenant = String::new()), "scope.tenant"),
        (Box::new(|r| r.tool = String::new()), "tool"),
        (Box::new(|r| r.detail = Some("  ".into())), "detail"),
        (
            Box::new(|r| r.detail = Some("x".repeat(limits::LIMITS.max_text_chars + 1))),
            "detail",
        ),
    ] {
        let mut bad = refund(OperationStatus::Submitted);
        change(&mut bad);
        let (index, got, _) = refusal(rec(&store, NOW, &[refund(OperationStatus::Submitted), bad]));
        assert_eq!((index, got.as_str()), (Some(1), field));
    }
    let bad = with(&store, NOW, |ctx| get(ctx, &[lookup("", u42())]));
    assert!(matches!(bad, Err(Error::InvalidInput(f)) if f.field == "operation_id"));
}

#[test]
fn redaction_follows_the_calls_policy() {
    // A random-looking token is a secret under the default policy and not
    // under one that only takes far longer tokens for random: the call's
    // policy decides what a record keeps.
    let token = "Zx8Qw3Lp9Rt2Vb7NcK4mYd6H";
    let detail = |store: &MemStore, policy: &Policy| {
        let clock = FixedClock(at(NOW));
        let ctx = Ctx {
            store,
            clock: &clock,
            policy,
        };
        let mut r = refund(OperationStatus::Failed);
        r.detail = Some(format!("refund API answered with {token}"));
        record(&ctx, &[r]).expect("recorded");
        get(&ctx, &[lookup("op_891", u42())])
            .expect("looked up")
            .remove(0)
            .record
            .and_then(|r| r.detail)
            .expect("detail")
    };
    let default = Policy::default();
    assert_eq!(
        detail(&MemStore::for_tenant("acme"), &default),
        "refund API answered with [REDACTED:high-entropy-token]"
    );
    let mut loose = Policy::default();
    loose.write.entropy_min_len = 64;
    assert_eq!(
        detail(&MemStore::for_tenant("acme"), &loose),
        format!("refund API answered with {token}")
    );
}
