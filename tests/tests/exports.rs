//! Every exported function, through the real component in wasmtime, with
//! its error paths.

use engram_host::bindings as w;
use engram_host::Error;
use engram_tests::*;

fn policy_error(r: Result<impl std::fmt::Debug, Error>) -> w::Error {
    match r {
        Err(Error::Policy(e)) => e,
        other => panic!("expected a policy error, got {other:?}"),
    }
}

#[test]
fn classify_decides_without_storing() {
    let mut e = engram();
    let c = candidate(
        "acme",
        Some("u1"),
        "From now on always answer in English.",
        w::SourceKind::User,
    );
    let d = e.classify(principal("acme"), vec![c]).expect("classify");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].gates.len(), 6, "all six gates are reported");
    assert_eq!(d[0].action, w::WriteAction::None);
    let listed = e
        .list(principal("acme"), scope("acme", Some("u1")), vec![])
        .expect("list");
    assert!(listed.is_empty(), "classify stored something: {listed:?}");
}

#[test]
fn remember_stores_and_history_and_list_show_it() {
    let mut e = engram();
    let mut c = candidate(
        "acme",
        Some("u1"),
        "payment-service uses PostgreSQL 16",
        w::SourceKind::System,
    );
    c.subject = Some("service:payment-service".into());
    c.predicate = Some("database".into());
    c.object = Some("PostgreSQL 16".into());
    c.kind_hint = Some(w::CandidateKind::Semantic);
    let d = e
        .remember(principal("acme"), vec![c.clone()])
        .expect("remember");
    assert_eq!(d[0].disposition, w::Disposition::Active, "{:?}", d[0]);
    let id = d[0].memory_id.clone().expect("stored");
    let hist = e.history(principal("acme"), &id).expect("history");
    assert_eq!(hist.len(), 1);
    assert_eq!(hist[0].provenance.source.kind, w::SourceKind::System);
    let listed = e
        .list(
            principal("acme"),
            scope("acme", Some("u1")),
            vec![w::Status::Active],
        )
        .expect("list");
    assert_eq!(listed.len(), 1);
    // The same candidate again is not a second memory.
    let again = e
        .remember(principal("acme"), vec![c])
        .expect("remember again");
    assert_eq!(again[0].memory_id.as_deref(), Some(id.as_str()));
    let listed = e
        .list(principal("acme"), scope("acme", Some("u1")), vec![])
        .expect("list");
    assert_eq!(listed.len(), 1, "{listed:?}");
}

#[test]
fn import_then_recall_finds_the_record() {
    let mut e = engram();
    let recs = vec![
        episode(
            "acme",
            "u1",
            "D1:1",
            "The V42 migration of payment-service failed on 2026-07-30 with a lock timeout",
        ),
        episode(
            "acme",
            "u1",
            "D1:2",
            "We had lunch at the noodle place near the office",
        ),
        episode(
            "acme",
            "u2",
            "D2:1",
            "The V42 migration is someone else's story",
        ),
    ];
    let receipts = e.import(principal("acme"), recs).expect("import");
    assert_eq!(receipts.len(), 3);
    assert_eq!(receipts[0].external_id, "D1:1");
    let r = e
        .recall(
            principal("acme"),
            vec![query(
                "acme",
                Some("u1"),
                "why did the V42 migration fail?",
                5,
            )],
        )
        .expect("recall");
    let ids: Vec<_> = r[0]
        .results
        .iter()
        .filter_map(|s| s.memory.provenance.external_id.clone())
        .collect();
    assert_eq!(ids.first().map(String::as_str), Some("D1:1"), "{ids:?}");
    assert!(
        !ids.contains(&"D2:1".to_string()),
        "another user's memory leaked: {ids:?}"
    );
    let first = &r[0].results[0];
    assert!(first.admission.admit && first.admission.scope_ok);
    assert!(first.features.similarity > 0.0);
}

#[test]
fn invalid_input_names_the_item_and_field_and_writes_nothing() {
    let mut e = engram();
    let good = candidate(
        "acme",
        Some("u1"),
        "Remember that the staging cluster is in Frankfurt",
        w::SourceKind::User,
    );
    let bad = candidate("acme", Some("u1"), "   ", w::SourceKind::User);
    match policy_error(e.remember(principal("acme"), vec![good, bad])) {
        w::Error::InvalidInput(f) => {
            assert_eq!(f.index, Some(1));
            assert_eq!(f.field, "text");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(e
        .list(principal("acme"), scope("acme", Some("u1")), vec![])
        .unwrap()
        .is_empty());
}

#[test]
fn unknown_history_id_is_not_found() {
    let mut e = engram();
    assert!(matches!(
        policy_error(e.history(principal("acme"), "m-nope")),
        w::Error::NotFound(_)
    ));
}

#[test]
fn pack_forget_and_sweep_answer_without_trapping() {
    let mut e = engram();
    let req = w::PackRequest {
        budget: 400,
        scope: scope("acme", Some("u1")),
        query: "release payment-service".into(),
        system: "You are a release assistant.".into(),
        state: vec![],
        messages: vec![w::Message {
            reference: None,
            role: w::Role::User,
            text: "Release payment-service today".into(),
            priority: None,
        }],
        knowledge: vec![],
        artifacts: vec![],
        recall: w::RecallOptions {
            k: 5,
            as_of: None,
            kinds: vec![],
        },
    };
    match e.pack(principal("acme"), req) {
        Ok(p) => assert!(p.tokens <= p.budget),
        Err(Error::Policy(w::Error::Unsupported(_))) => {}
        Err(other) => panic!("pack failed: {other}"),
    }
    match e.forget(
        principal("acme"),
        vec![w::ForgetSelector::MemoryId("m-nope".into())],
    ) {
        Ok(r) => assert!(r.deleted.is_empty()),
        Err(Error::Policy(w::Error::Unsupported(_) | w::Error::NotFound(_))) => {}
        Err(other) => panic!("forget failed: {other}"),
    }
    match e.sweep(principal("acme"), scope("acme", None)) {
        Ok(r) => assert_eq!(r.expired, 0),
        Err(Error::Policy(w::Error::Unsupported(_))) => {}
        Err(other) => panic!("sweep failed: {other}"),
    }
}
