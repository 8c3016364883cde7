//! Two writers (two connections, as two processes would be) race on one
//! semantic key through the real SQLite store. Each write call holds the
//! store's write lock from its first read to its commit, and the store's
//! compare-and-swap backs that up: no update may be lost, no writer may give
//! up, and there is never more than one active revision. (CI once saw the
//! lock-free version livelock: both writers re-planned five times in
//! lockstep.)

use std::sync::{Arc, Barrier};

use engram_host::bindings as w;
use engram_host::{Engram, Options};
use engram_tests::*;

const ROUNDS: usize = 15;

fn preference(writer: usize, round: usize) -> w::Candidate {
    let mut c = candidate(
        "acme",
        Some("u1"),
        &format!("From now on my favourite colour is colour-{writer}-{round}"),
        w::SourceKind::User,
    );
    c.kind_hint = Some(w::CandidateKind::Semantic);
    c.subject = Some("user:u1".into());
    c.predicate = Some("favourite_colour".into());
    c.object = Some(format!("colour-{writer}-{round}"));
    c.source.reference = Some(format!("evt-{writer}-{round}"));
    c
}

#[test]
fn two_writers_on_one_key_lose_no_update() {
    let db = temp_db("race");
    // Create the schema once before the writers start.
    drop(Engram::open(&db, Options::default()).expect("open"));
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|writer| {
            let db = db.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut e = Engram::open(
                    &db,
                    Options {
                        now: Some(fixed_now()),
                        ..Options::default()
                    },
                )
                .expect("open");
                barrier.wait();
                let mut ids = Vec::new();
                for round in 0..ROUNDS {
                    let d = e
                        .remember(principal("acme"), vec![preference(writer, round)])
                        .expect("remember");
                    assert_eq!(d[0].disposition, w::Disposition::Active, "{:?}", d[0]);
                    ids.push(d[0].memory_id.clone().expect("stored"));
                }
                ids
            })
        })
        .collect();
    let ids: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().expect("writer thread"))
        .collect();
    assert!(
        ids.windows(2).all(|p| p[0] == p[1]),
        "one key, one id: {ids:?}"
    );

    let mut e = Engram::open(
        &db,
        Options {
            now: Some(fixed_now()),
            ..Options::default()
        },
    )
    .expect("open");
    let hist = e.history(principal("acme"), &ids[0]).expect("history");
    let active: Vec<_> = hist
        .iter()
        .filter(|m| m.status == w::Status::Active)
        .collect();
    assert_eq!(
        active.len(),
        1,
        "exactly one active revision: {:?}",
        hist.iter()
            .map(|m| (m.revision, m.status))
            .collect::<Vec<_>>()
    );
    // Every write is in the chain: nothing was lost or overwritten.
    assert_eq!(hist.len(), 2 * ROUNDS, "revisions: {}", hist.len());
    for writer in 0..2 {
        for round in 0..ROUNDS {
            let want = format!("colour-{writer}-{round}");
            assert!(
                hist.iter()
                    .any(|m| matches!(&m.payload, w::Payload::Semantic(p) if p.object == want)),
                "lost update {want}"
            );
        }
    }
    // The chain is linked: each revision after the first supersedes its predecessor.
    for pair in hist.windows(2) {
        assert_eq!(
            pair[1].supersedes.as_ref().map(|r| r.revision),
            Some(pair[0].revision)
        );
    }
}
