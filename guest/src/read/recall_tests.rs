//! Behaviour of recall over the in-memory store: filters, as-of reads,
//! features, the admission gate, determinism and bounded reads at scale.

use super::*;
use crate::core::config::Policy;
use crate::core::store::{FixedClock, Store};
use crate::testing::memstore::MemStore;
use crate::types::{Entry, MemoryKind, MemoryRef, Payload, Scope};
use crate::wit_store::WriteOp;

const DAY: i64 = crate::core::time::MS_PER_DAY;
/// 2026-01-01T00:00:00Z.
const NOW: i64 = 20_454 * DAY;

fn dt(ms: i64) -> Datetime {
    Datetime {
        epoch_ms: ms,
        offset_minutes: 0,
    }
}

fn scope(user: &str) -> Scope {
    Scope {
        tenant: "acme".into(),
        user: Some(user.into()),
        project: None,
        thread: None,
        agent: None,
    }
}

/// An active memory of user `u1`, happened/observed `days_ago` before NOW.
fn mem(id: &str, kind: MemoryKind, text: &str, days_ago: i64) -> Memory {
    let mut m = crate::testing::test_fixtures::memory(
        id,
        kind,
        text,
        scope("u1"),
        dt(NOW - days_ago * DAY),
    );
    if kind == MemoryKind::Semantic {
        m.payload = crate::testing::test_fixtures::semantic("user:u1", id, text);
    }
    m.provenance.source.reference = Some(format!("src/{id}"));
    m.provenance.external_id = Some(id.into());
    m
}

fn put(store: &MemStore, memories: Vec<Memory>) {
    crate::testing::test_fixtures::insert(store, memories)
}

fn query(text: &str) -> Query {
    Query {
        id: Some("q".into()),
        text: text.into(),
        scope: scope("u1"),
        k: 10,
        as_of: None,
        kinds: Vec::new(),
        entities: Vec::new(),
        embedding: None,
        sensitivity_ceiling: None,
        explain_rejected: false,
    }
}

fn run(store: &MemStore, policy: &Policy, q: &Query) -> RecallResult {
    let clock = FixedClock(dt(NOW));
    let ctx = Ctx {
        store,
        clock: &clock,
        policy,
    };
    recall(&ctx, std::slice::from_ref(q))
        .expect("recall")
        .remove(0)
}

/// A result with its memories' usage counts cleared (a recall counts its
/// use, so consecutive recalls differ in nothing else).
fn without_usage(mut r: RecallResult) -> RecallResult {
    for s in r.results.iter_mut().chain(r.not_admitted.iter_mut()) {
        s.memory.access_count = 0;
        s.memory.last_accessed = None;
    }
    r
}

fn ids(r: &RecallResult) -> Vec<&str> {
    r.results.iter().map(|s| s.memory.id.as_str()).collect()
}

#[test]
fn lexical_match_ranks_first_and_explains_itself() {
    let store = MemStore::for_tenant("acme");
    put(
        &store,
        vec![
            mem(
                "a",
                MemoryKind::Episodic,
                "The V42 migration failed on staging",
                3,
            ),
            mem("b", MemoryKind::Episodic, "Lunch was great today", 3),
            mem("c", MemoryKind::Episodic, "Staging was slow", 3),
        ],
    );
    let r = run(
        &store,
        &Policy::default(),
        &query("why did the V42 migration fail on staging?"),
    );
    assert_eq!(ids(&r), vec!["a", "c"]);
    let top = &r.results[0];
    assert!((top.features.similarity - 1.0).abs() < 1e-9);
    assert!(top.features.similarity > r.results[1].features.similarity);
    assert!(top.admission.admit && top.admission.scope_ok && top.admission.time_ok);
    assert!(top.admission.relevance > 0.5);
    assert_eq!(
        top.features.typefit, 1.0,
        "why did … fail asks for an episode"
    );
    assert!(r.candidates_read >= 2);
}

#[test]
fn chinese_queries_match_through_bigrams_and_characters() {
    let store = MemStore::for_tenant("acme");
    put(
        &store,
        vec![
            mem(
                "draw",
                MemoryKind::Episodic,
                "Lisa在学校的绘画比赛中获得第一名",
                5,
            ),
            mem("swim", MemoryKind::Episodic, "Lisa去游泳馆学游泳", 5),
        ],
    );
    // 画画 shares the character 画 with 绘画, and 比赛 as a bigram.
    let r = run(
        &store,
        &Policy::default(),
        &query("我喜欢画画，下周还有比赛"),
    );
    assert_eq!(ids(&r)[0], "draw");
}

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
        r.not_admitted[0].admission.reason.as_deref(),
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
fn typefit_follows_the_query_intent() {
    let store = MemStore::for_tenant("acme");
    put(
        &store,
        vec![
            mem(
                "p",
                MemoryKind::Procedural,
                "refund an order: check status then refund",
                1,
            ),
            mem(
                "e",
                MemoryKind::Episodic,
                "refund an order: check status then refund",
                1,
            ),
        ],
    );
    let r = run(
        &store,
        &Policy::default(),
        &query("how do I refund an order?"),
    );
    assert_eq!(ids(&r), vec!["p", "e"]);
    let r = run(
        &store,
        &Policy::default(),
        &query("上次 refund an order 怎么回事"),
    );
    assert_eq!(ids(&r), vec!["e", "p"]);
}

#[test]
fn failed_episodes_are_kept_but_down_weighted() {
    let store = MemStore::for_tenant("acme");
    let mut failed = mem("f", MemoryKind::Episodic, "restarted order-service pods", 2);
    if let Payload::Episodic(e) = &mut failed.payload {
        e.success = Some(false);
    }
    // The same words about another moment: another memory, not a duplicate.
    let mut ok = mem("s", MemoryKind::Episodic, "restarted order-service pods", 2);
    if let Payload::Episodic(e) = &mut ok.payload {
        e.occurred_at = e.occurred_at.map(|t| dt(t.epoch_ms + 1));
    }
    put(&store, vec![failed, ok]);
    let q = query("restart order-service");
    let r = run(&store, &Policy::default(), &q);
    assert_eq!(ids(&r), vec!["s", "f"]);
    let mut neutral = Policy::default();
    neutral.rank.failed_episode = 1.0;
    let n = run(&store, &neutral, &q);
    let score = |r: &RecallResult| {
        r.results
            .iter()
            .find(|s| s.memory.id == "f")
            .map(|s| s.score)
    };
    let ratio = score(&r).unwrap_or(0.0) / score(&n).unwrap_or(1.0);
    assert!((ratio - 0.85).abs() < 1e-9, "ratio {ratio}");
}

#[test]
fn episodes_decay_and_facts_do_not() {
    let store = MemStore::for_tenant("acme");
    put(
        &store,
        vec![
            mem("old", MemoryKind::Episodic, "checkout latency spike", 62),
            mem("new", MemoryKind::Episodic, "checkout latency spike", 1),
            mem(
                "fact",
                MemoryKind::Semantic,
                "checkout latency budget 200ms",
                400,
            ),
        ],
    );
    let r = run(&store, &Policy::default(), &query("checkout latency spike"));
    assert_eq!(ids(&r)[..2], ["new", "old"]);
    let f = |id: &str| {
        r.results
            .iter()
            .find(|s| s.memory.id == id)
            .map(|s| s.features.freshness)
    };
    assert!(
        (f("old").unwrap_or(0.0) - 0.25).abs() < 0.01,
        "two half-lives"
    );
    assert_eq!(f("fact"), Some(1.0));
    // Freshness never swamps similarity: a stale exact match beats a fresh
    // weak one.
    let store = MemStore::for_tenant("acme");
    put(
        &store,
        vec![
            mem(
                "exact",
                MemoryKind::Episodic,
                "kafka consumer lag on billing topic",
                900,
            ),
            mem("weak", MemoryKind::Episodic, "billing dashboard moved", 0),
        ],
    );
    let r = run(
        &store,
        &Policy::default(),
        &query("kafka consumer lag billing"),
    );
    assert_eq!(ids(&r)[0], "exact");
}

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

#[test]
fn embeddings_fuse_with_the_lexical_signal() {
    let store = MemStore::for_tenant("acme");
    let mut a = mem("a", MemoryKind::Semantic, "prefers tea in the morning", 1);
    a.embedding = Some(vec![1.0, 0.0, 0.0]);
    let mut b = mem("b", MemoryKind::Semantic, "likes hiking", 1);
    b.embedding = Some(vec![0.0, 1.0, 0.0]);
    put(&store, vec![a, b]);
    let mut q = query("what hot drink suits me");
    q.embedding = Some(vec![0.9, 0.1, 0.0]);
    let r = run(&store, &Policy::default(), &q);
    assert_eq!(ids(&r)[0], "a", "found by embedding alone");
    assert!(r.results[0].features.embedding.unwrap_or(0.0) > 0.9);
    let mut bad = q.clone();
    bad.embedding = Some(vec![f32::NAN]);
    let clock = FixedClock(dt(NOW));
    let policy = Policy::default();
    let ctx = Ctx {
        store: &store,
        clock: &clock,
        policy: &policy,
    };
    assert!(matches!(recall(&ctx, &[bad]), Err(Error::InvalidInput(_))));
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
        r.not_admitted[0].admission.reason.as_deref(),
        Some("duplicate of a")
    );
}

#[test]
fn output_is_deterministic_and_ties_break_by_id() {
    let store = MemStore::for_tenant("acme");
    put(
        &store,
        (0..20)
            .map(|i| {
                mem(
                    &format!("m{:02}", 19 - i),
                    MemoryKind::Semantic,
                    &format!("cache ttl {i}"),
                    1,
                )
            })
            .collect(),
    );
    let q = query("cache ttl");
    let a = run(&store, &Policy::default(), &q);
    let b = run(&store, &Policy::default(), &q);
    // The first recall counted its use of what it returned; nothing else
    // about the answer changes.
    assert!(b.results.iter().all(|s| s.memory.access_count == 1));
    assert_eq!(without_usage(a.clone()), without_usage(b));
    let got = ids(&a);
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(got, sorted, "equal scores come in id order");
}

#[test]
fn odd_input_never_panics() {
    let store = MemStore::for_tenant("acme");
    put(&store, vec![mem("a", MemoryKind::Episodic, "ok", 1)]);
    for text in [
        "",
        "   ",
        "the of and",
        "？？？",
        "\u{0}\u{FFFF}\u{10FFFF}",
        "𠀀𠀁𠀂",
        "a:b:c:d-e_f/g.h",
        "99999999999999999999999999 on 31 February 2023",
        &"长".repeat(5000),
    ] {
        let mut q = query(text);
        q.k = 0;
        let r = run(&store, &Policy::default(), &q);
        assert!(r.results.len() <= DEFAULT_K as usize);
    }
    let mut q = query("ok");
    q.scope.tenant = " ".into();
    let clock = FixedClock(dt(NOW));
    let policy = Policy::default();
    let ctx = Ctx {
        store: &store,
        clock: &clock,
        policy: &policy,
    };
    assert!(matches!(recall(&ctx, &[q]), Err(Error::InvalidInput(_))));
}

/// One scope, 100k memories: recall reads what the store hands back for
/// the asked terms, bounded by the candidate limit and the neighbour reads,
/// never the scope.
#[test]
fn recall_reads_a_bounded_number_of_candidates_at_100k() {
    const N: usize = 100_000;
    let words = [
        "deploy", "rollback", "latency", "cache", "invoice", "refund", "login", "search", "upload",
        "billing", "queue", "index", "backup", "alert", "token", "report",
    ];
    let store = MemStore::for_tenant("acme");
    let memories: Vec<Memory> = (0..N)
        .map(|i| {
            let text = format!(
                "{} {} {} on host-{}",
                words[i % 16],
                words[(i / 16) % 16],
                words[(i / 256) % 16],
                i % 1000
            );
            let mut m = mem(
                &format!("m{i:06}"),
                MemoryKind::Episodic,
                &text,
                (i % 365) as i64,
            );
            m.provenance.source.reference = Some(format!("evt-{i}"));
            m
        })
        .collect();
    let mut needle = mem(
        "needle",
        MemoryKind::Episodic,
        "kafka rebalance storm on host-42",
        3,
    );
    needle.provenance.source.reference = Some("evt-needle".into());
    let mut all = memories;
    all.push(needle);
    put(&store, all);
    let policy = Policy::default();
    let bound = policy.recall_candidate_limit as u64 + 2 * policy.rank.context_expand as u64;
    for text in ["kafka rebalance storm", "deploy rollback latency", "cache"] {
        let before = *store.reads.borrow();
        let r = run(&store, &policy, &query(text));
        let read = *store.reads.borrow() - before;
        assert_eq!(read, r.candidates_read as u64);
        assert!(read <= bound, "{text}: read {read} > {bound}");
        assert!(!r.results.is_empty());
        if text.starts_with("kafka") {
            assert_eq!(r.results[0].memory.id, "needle");
        }
    }
}

/// The store as it was before it counted terms: `search` returns no
/// frequencies, so the ranker analyses every candidate itself.
struct Uncounted<'a>(&'a MemStore);

impl Store for Uncounted<'_> {
    fn principal(&self) -> crate::wit_store::Principal {
        self.0.principal()
    }
    fn find(&self, f: &Filter, limit: u32) -> Result<Vec<Stored>, crate::wit_store::StoreError> {
        self.0.find(f, limit)
    }
    fn revisions(&self, id: &str) -> Result<Vec<Stored>, crate::wit_store::StoreError> {
        self.0.revisions(id)
    }
    fn stats(
        &self,
        f: &Filter,
        terms: &[String],
    ) -> Result<crate::wit_store::TermStats, crate::wit_store::StoreError> {
        self.0.stats(f, terms)
    }
    fn search(
        &self,
        f: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, crate::wit_store::StoreError> {
        let mut out = self.0.search(f, terms, limit)?;
        for s in &mut out {
            s.frequencies.clear();
        }
        Ok(out)
    }
    fn commit(
        &self,
        ops: &[WriteOp],
    ) -> Result<crate::wit_store::Receipt, crate::wit_store::StoreError> {
        self.0.commit(ops)
    }
    fn tombstones(
        &self,
        scope: &Scope,
    ) -> Result<Vec<crate::wit_store::Tombstone>, crate::wit_store::StoreError> {
        self.0.tombstones(scope)
    }
    fn fingerprint_key(&self, scope: &Scope) -> Result<Vec<u8>, crate::wit_store::StoreError> {
        self.0.fingerprint_key(scope)
    }
    fn count_events(
        &self,
        scope: &Scope,
        kind: &str,
        since: Datetime,
    ) -> Result<u64, crate::wit_store::StoreError> {
        self.0.count_events(scope, kind, since)
    }
    fn session_log(
        &self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<crate::wit_store::Event>, crate::wit_store::StoreError> {
        self.0.session_log(scope, session, kind)
    }
}

#[test]
fn term_counts_from_the_store_rank_exactly_as_analysis_does() {
    let store = MemStore::for_tenant("acme");
    let mut corpus = vec![
        mem("a", MemoryKind::Episodic, "The deploy of payment-service failed: the disk on db-7 was full, the deploy was retried", 3),
        mem("b", MemoryKind::Semantic, "payment-service uses PostgreSQL 16 on db-7", 20),
        mem("c", MemoryKind::Procedural, "When a deploy fails on a full disk, first clean /var/log, then retry the deploy", 9),
        mem("d", MemoryKind::Episodic, "上次 payment-service 发布失败，因为 db-7 磁盘满了", 5),
        mem("e", MemoryKind::Semantic, "用户喜欢用中文沟通，回答要简短", 40),
        mem("f", MemoryKind::Episodic, "Caroline went to the LGBTQ support group and felt accepted", 60),
    ];
    corpus[0].entities = vec![Entry {
        key: "service".into(),
        value: "payment-service".into(),
    }];
    for (i, m) in corpus.iter_mut().enumerate() {
        m.provenance.source.reference = Some(format!("conv-1:D1:{}", i + 1));
    }
    put(&store, corpus);
    let policy = Policy::default();
    let clock = FixedClock(dt(NOW));
    let counted = Ctx {
        store: &store,
        clock: &clock,
        policy: &policy,
    };
    let uncounted_store = Uncounted(&store);
    let uncounted = Ctx {
        store: &uncounted_store,
        clock: &clock,
        policy: &policy,
    };
    let mut queries: Vec<Query> = [
        "Why did the payment-service deploy fail?",
        "payment-service 发布为什么失败？",
        "what database does payment-service use",
        "how to fix a full disk during a deploy",
        "What did Caroline do at the support group?",
        "用户喜欢什么语言",
    ]
    .iter()
    .map(|t| query(t))
    .collect();
    queries[0].entities = vec![Entry {
        key: "service".into(),
        value: "payment-service".into(),
    }];
    queries[1].explain_rejected = true;
    for q in &queries {
        // The counted path is the one taken.
        let f = recall_filter(q, dt(NOW), dt(NOW));
        let found = store
            .search(
                &f,
                &[WeightedTerm {
                    term: "deploy".into(),
                    weight: 1.0,
                }],
                10,
            )
            .expect("search");
        assert!(found.iter().all(|s| s.frequencies.len() == 1));
        let a = recall(&counted, std::slice::from_ref(q)).expect("recall");
        let b = recall(&uncounted, std::slice::from_ref(q)).expect("recall");
        assert!(!a[0].results.is_empty(), "{}", q.text);
        assert_eq!(
            a.into_iter().map(without_usage).collect::<Vec<_>>(),
            b.into_iter().map(without_usage).collect::<Vec<_>>(),
            "{}",
            q.text
        );
    }
}
