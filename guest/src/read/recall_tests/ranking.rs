//! Ranking signals: lexical and Chinese matching, fit to the query's intent,
//! failed and decaying episodes, embeddings, and term counts from the store.

use super::*;
use crate::core::store::Store;

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
