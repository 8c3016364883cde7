//! What the query's context brings up: entities, a named period, and the
//! turn before an answer.

use super::*;

#[test]
fn entities_explicit_and_named_in_the_text() {
    let store = MemStore::for_tenant("acme");
    let tag = |mut m: Memory, k: &str, v: &str| {
        m.entities.push(Entry {
            key: k.into(),
            value: v.into(),
        });
        m
    };
    put(
        &store,
        vec![
            tag(
                mem(
                    "o",
                    MemoryKind::Episodic,
                    "timeout after deploy, rolled back",
                    2,
                ),
                "service",
                "order-service",
            ),
            tag(
                mem(
                    "p",
                    MemoryKind::Episodic,
                    "timeout after deploy, rolled back",
                    2,
                ),
                "service",
                "payment-service",
            ),
            tag(
                mem("c", MemoryKind::Episodic, "I went to a support group", 2),
                "speaker",
                "Caroline",
            ),
            tag(
                mem("m", MemoryKind::Episodic, "I went to a support group", 2),
                "speaker",
                "Melanie",
            ),
        ],
    );
    let mut q = query("timeout after deploy");
    q.entities = vec![Entry {
        key: "service".into(),
        value: "payment-service".into(),
    }];
    let r = run(&store, &Policy::default(), &q);
    assert_eq!(ids(&r)[..2], ["p", "o"]);
    assert_eq!(r.results[0].features.entity, 1.0);
    assert_eq!(r.results[1].features.entity, 0.0);
    // A name in the text matches the entity it tags.
    let r = run(
        &store,
        &Policy::default(),
        &query("When did Melanie go to the support group?"),
    );
    assert_eq!(ids(&r)[..2], ["m", "c"]);
    // A lowercase common word is not taken for a name.
    let r = run(
        &store,
        &Policy::default(),
        &query("when did melanie go to the support group?"),
    );
    assert_eq!(r.results[0].features.entity, 0.0);
}

#[test]
fn a_named_period_brings_memories_from_then_up() {
    let store = MemStore::for_tenant("acme");
    let day = |y, m, d| dt(crate::core::time::days_from_civil(y, m, d) * DAY + 3_600_000);
    let mut a = mem(
        "may",
        MemoryKind::Episodic,
        "we talked about the painting class",
        0,
    );
    let mut b = mem(
        "june",
        MemoryKind::Episodic,
        "we talked about the painting class",
        0,
    );
    for (m, at) in [(&mut a, day(2025, 5, 8)), (&mut b, day(2025, 6, 20))] {
        if let Payload::Episodic(e) = &mut m.payload {
            e.occurred_at = Some(at);
        }
    }
    put(&store, vec![a, b]);
    let r = run(
        &store,
        &Policy::default(),
        &query("What did we say about painting on 8 May, 2025?"),
    );
    assert_eq!(ids(&r), vec!["may", "june"]);
    assert_eq!(r.results[0].features.freshness, 1.0);
    let r = run(
        &store,
        &Policy::default(),
        &query("the painting class in June 2025"),
    );
    assert_eq!(ids(&r), vec!["june", "may"]);
    assert_eq!(
        named_periods("on 8 May 2025", dt(NOW)),
        vec![(
            day(2025, 5, 8).epoch_ms - 3_600_000,
            day(2025, 5, 9).epoch_ms - 3_600_000
        )]
    );
    assert!(named_periods("every Monday", dt(NOW)).is_empty());
}

#[test]
fn an_answer_is_found_through_the_turn_before_it() {
    let store = MemStore::for_tenant("acme");
    // Turns of one conversation (same event time, consecutive references);
    // the answer shares no word with the question.
    let turn = |n: u32, text: &str| {
        let mut m = mem(&format!("t{n}"), MemoryKind::Episodic, text, 30);
        m.provenance.source.reference = Some(format!("conv-1:D3:{n}"));
        m
    };
    let mut filler: Vec<Memory> = (0..30)
        .map(|i| {
            let mut m = mem(
                &format!("f{i}"),
                MemoryKind::Episodic,
                "teammates were there too",
                i + 40,
            );
            m.provenance.source.reference = Some(format!("conv-1:D{}:1", i + 10));
            m
        })
        .collect();
    filler.push(turn(
        1,
        "Did your teammates sign the basketball for a reason?",
    ));
    filler.push(turn(2, "Yes! To show our friendship and appreciation."));
    filler.push(turn(3, "Lovely. See you next week."));
    put(&store, filler);
    let mut policy = Policy {
        recall_candidate_limit: 5,
        ..Policy::default()
    };
    let q = query("Why did the teammates sign the basketball?");
    let r = run(&store, &policy, &q);
    assert_eq!(
        ids(&r)[..2],
        ["t1", "t2"],
        "the answer follows its question"
    );
    policy.rank.context = 0.0;
    let r = run(&store, &policy, &q);
    assert!(!ids(&r).contains(&"t2"));
    assert_eq!(
        neighbour_refs(&mem("x", MemoryKind::Episodic, "x", 0)),
        Vec::<String>::new()
    );
    let mut padded = mem("x", MemoryKind::Episodic, "x", 0);
    padded.provenance.source.reference = Some("evt-0100".into());
    assert_eq!(neighbour_refs(&padded), vec!["evt-0099", "evt-0101"]);
}
