//! Versioning, conflicts and forgetting (issue #4), natively over the
//! in-memory store: the seeds' own cases, the compare-and-swap retry under a
//! racing writer, deletion cascades and tombstones, and the sweep.

use std::cell::{Cell, RefCell};

use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::{FixedClock, Store};
use engram_guest::lifecycle::{forget, sweep};
use engram_guest::read::recall;
use engram_guest::testing::memstore::MemStore;
use engram_guest::types::*;
use engram_guest::wit_store::{
    Filter, Principal, Receipt, ScopeMatch, StoreError, Stored, TermStats, Tombstone, WeightedTerm,
    WriteOp,
};
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

fn scope(user: Option<&str>, thread: Option<&str>) -> Scope {
    Scope {
        tenant: "acme".into(),
        user: user.map(str::to_string),
        project: None,
        thread: thread.map(str::to_string),
        agent: None,
    }
}

fn user_scope() -> Scope {
    scope(Some("u42"), None)
}

/// A semantic candidate with an explicit key, so classification cues do not
/// decide what these tests are about.
fn fact(
    text: &str,
    source: SourceKind,
    reference: &str,
    key: (&str, &str, &str),
    condition: Option<&str>,
    observed: Datetime,
) -> Candidate {
    Candidate {
        id: Some(reference.to_string()),
        text: text.into(),
        scope: user_scope(),
        source: Source {
            kind: source,
            reference: Some(reference.into()),
        },
        observed_at: Some(observed),
        confidence: None,
        kind_hint: Some(CandidateKind::Semantic),
        subject: Some(key.0.into()),
        predicate: Some(key.1.into()),
        object: Some(key.2.into()),
        condition: condition.map(str::to_string),
        occurred_at: None,
        valid_from: None,
        valid_to: None,
        entities: Vec::new(),
        embedding: None,
    }
}

fn query(text: &str, as_of: Option<Datetime>) -> Query {
    Query {
        id: Some("q".into()),
        text: text.into(),
        scope: user_scope(),
        k: 10,
        as_of,
        kinds: Vec::new(),
        entities: Vec::new(),
        embedding: None,
        sensitivity_ceiling: None,
        explain_rejected: false,
    }
}

struct Env {
    store: MemStore,
    policy: Policy,
}

impl Env {
    fn new() -> Self {
        Env {
            store: MemStore::for_tenant("acme"),
            policy: Policy::default(),
        }
    }

    fn run<T>(&self, now: Datetime, f: impl FnOnce(&Ctx) -> T) -> T {
        run_on(&self.store, &self.policy, now, f)
    }

    fn remember(&self, now: Datetime, c: Candidate) -> Decision {
        let mut d = self
            .run(now, |ctx| remember::remember(ctx, &[c]))
            .expect("remember");
        d.remove(0)
    }

    fn history(&self, id: &str) -> Vec<Memory> {
        self.run(at(0), |ctx| sweep::history(ctx, id))
            .expect("history")
    }

    fn recall_texts(&self, now: Datetime, q: Query) -> Vec<String> {
        self.run(now, |ctx| recall::recall(ctx, &[q]))
            .expect("recall")
            .remove(0)
            .results
            .into_iter()
            .map(|s| s.memory.text)
            .collect()
    }

    /// Every stored revision in the tenant-wide or user scope, any status.
    fn all(&self) -> Vec<Stored> {
        let mut out = Vec::new();
        for s in [scope(None, None), user_scope()] {
            let f = Filter {
                scope: s,
                scope_match: ScopeMatch::Exact,
                kinds: Vec::new(),
                statuses: Vec::new(),
                valid_at: None,
                sensitivity_max: None,
                subject: None,
                predicate: None,
                condition: None,
                source_ref: None,
                exclude_archived: false,
            };
            out.extend(self.store.find(&f, u32::MAX).expect("find"));
        }
        out
    }

    fn active_count(&self, id: &str) -> usize {
        self.history(id)
            .iter()
            .filter(|m| m.status == Status::Active)
            .count()
    }
}

fn run_on<T>(store: &dyn Store, policy: &Policy, now: Datetime, f: impl FnOnce(&Ctx) -> T) -> T {
    let clock = FixedClock(now);
    f(&Ctx {
        store,
        clock: &clock,
        policy,
    })
}

fn object(m: &Memory) -> &str {
    match &m.payload {
        Payload::Semantic(p) => &p.object,
        _ => "",
    }
}

const NAME: (&str, &str) = ("user:u42", "preferred_name");

// ---------------------------------------------------------------------------
// The seeds' own cases.
// ---------------------------------------------------------------------------

#[test]
fn xiao_wang_to_wang_gong_supersedes_and_history_keeps_both() {
    let env = Env::new();
    let d1 = env.remember(
        at(0),
        fact(
            "以后叫我小王",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "小王"),
            None,
            at(0),
        ),
    );
    assert_eq!(d1.action, WriteAction::Created);
    assert_eq!(d1.revision, Some(1));
    let d2 = env.remember(
        at(30),
        fact(
            "以后请叫我王工",
            SourceKind::User,
            "evt-2",
            (NAME.0, NAME.1, "王工"),
            None,
            at(30),
        ),
    );
    assert_eq!(d2.action, WriteAction::Superseded, "{:?}", d2.reasons);
    assert_eq!(
        d2.memory_id, d1.memory_id,
        "a supersession is a revision of the same id"
    );
    assert_eq!(d2.revision, Some(2));

    let id = d1.memory_id.clone().unwrap();
    let h = env.history(&id);
    assert_eq!(h.len(), 2);
    assert_eq!((object(&h[0]), h[0].status), ("小王", Status::Superseded));
    assert_eq!((object(&h[1]), h[1].status), ("王工", Status::Active));
    assert_eq!(h[0].superseded_by.as_ref().map(|r| r.revision), Some(2));
    assert_eq!(h[1].supersedes.as_ref().map(|r| r.revision), Some(1));
    // Sources travel with every revision.
    assert_eq!(h[0].provenance.source.reference.as_deref(), Some("evt-1"));
    assert_eq!(h[1].provenance.source.reference.as_deref(), Some("evt-2"));
    // Bi-temporal: the old value is valid until the new one was said.
    assert_eq!(h[0].valid_to.map(|t| t.epoch_ms), Some(at(30).epoch_ms));
    assert_eq!(h[1].valid_from.map(|t| t.epoch_ms), Some(at(30).epoch_ms));

    // list shows the current value only, with its status.
    let listed = env
        .run(at(31), |ctx| sweep::list_memories(ctx, &user_scope(), &[]))
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (object(&listed[0]), listed[0].status),
        ("王工", Status::Active)
    );
    let replaced = env
        .run(at(31), |ctx| {
            sweep::list_memories(ctx, &user_scope(), &[Status::Superseded])
        })
        .unwrap();
    assert_eq!(replaced.len(), 1);
    assert_eq!(object(&replaced[0]), "小王");

    // Recall for now sees 王工; as of before the change, 小王.
    let now = env.recall_texts(at(31), query("叫我 小王 王工", None));
    assert_eq!(now, vec!["以后请叫我王工".to_string()]);
    let then = env.recall_texts(at(31), query("叫我 小王 王工", Some(at(10))));
    assert_eq!(then, vec!["以后叫我小王".to_string()]);
}

#[test]
fn wang_gong_at_work_and_xiao_wang_with_friends_coexist() {
    let env = Env::new();
    let work = env.remember(
        at(0),
        fact(
            "在工作场合叫我王工",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "王工"),
            Some("work"),
            at(0),
        ),
    );
    let friends = env.remember(
        at(1),
        fact(
            "朋友群里叫我小王",
            SourceKind::User,
            "evt-2",
            (NAME.0, NAME.1, "小王"),
            Some("friends"),
            at(1),
        ),
    );
    assert_eq!(work.action, WriteAction::Created);
    assert_eq!(
        friends.action,
        WriteAction::Created,
        "{:?}",
        friends.reasons
    );
    assert_ne!(work.memory_id, friends.memory_id);
    let active: Vec<Stored> = env
        .all()
        .into_iter()
        .filter(|s| s.memory.status == Status::Active)
        .collect();
    assert_eq!(active.len(), 2);
    // A third statement in the work condition supersedes only the work one.
    let lin = env.remember(
        at(2),
        fact(
            "工作中改叫我林工",
            SourceKind::User,
            "evt-3",
            (NAME.0, NAME.1, "林工"),
            Some("work"),
            at(2),
        ),
    );
    assert_eq!(lin.action, WriteAction::Superseded);
    assert_eq!(lin.memory_id, work.memory_id);
    assert_eq!(env.active_count(friends.memory_id.as_deref().unwrap()), 1);
}

#[test]
fn postgres_15_to_16_from_the_config_centre_supersedes_and_keeps_the_old_for_audit() {
    let env = Env::new();
    let key = ("service:payment-service", "database_version");
    let pg15 = env.remember(
        at(0),
        fact(
            "payment-service uses PostgreSQL 15",
            SourceKind::System,
            "cmdb-100",
            (key.0, key.1, "PostgreSQL 15"),
            None,
            at(0),
        ),
    );
    let pg16 = env.remember(
        at(40),
        fact(
            "payment-service uses PostgreSQL 16",
            SourceKind::System,
            "cmdb-200",
            (key.0, key.1, "PostgreSQL 16"),
            None,
            at(40),
        ),
    );
    assert_eq!(pg16.action, WriteAction::Superseded, "{:?}", pg16.reasons);
    let id = pg15.memory_id.unwrap();
    let h = env.history(&id);
    assert_eq!(h.len(), 2, "the old fact is kept");
    assert_eq!(h[0].status, Status::Superseded);
    assert_eq!(object(&h[0]), "PostgreSQL 15");
    assert_eq!(h[1].status, Status::Active);

    // A user's claim does not overrule the system of record for a business
    // fact: it is kept pending review, and the active value stays.
    let claim = env.remember(
        at(41),
        fact(
            "payment-service is on PostgreSQL 14",
            SourceKind::User,
            "evt-9",
            (key.0, key.1, "PostgreSQL 14"),
            None,
            at(41),
        ),
    );
    assert_eq!(
        claim.disposition,
        Disposition::Pending,
        "{:?}",
        claim.reasons
    );
    let conflict_gate = claim
        .gates
        .iter()
        .find(|g| g.gate == GateName::Conflict)
        .unwrap();
    assert!(!conflict_gate.passed);
    assert!(
        conflict_gate.reason.text.contains("outranked"),
        "{}",
        conflict_gate.reason.text
    );
    let h = env.history(&id);
    assert_eq!(h.len(), 3);
    let active: Vec<&Memory> = h.iter().filter(|m| m.status == Status::Active).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(object(active[0]), "PostgreSQL 16");

    // As of before the upgrade, recall reads 15.
    let mut q = query("payment-service PostgreSQL", Some(at(20)));
    q.scope = user_scope();
    assert_eq!(
        env.recall_texts(at(50), q),
        vec!["payment-service uses PostgreSQL 15".to_string()]
    );
}

#[test]
fn an_agent_inference_is_overruled_by_a_user_statement() {
    let env = Env::new();
    let key = ("user:u42", "preferred_language");
    let guess = env.remember(
        at(0),
        fact(
            "the user seems to prefer English replies",
            SourceKind::Agent,
            "run-7",
            (key.0, key.1, "English"),
            None,
            at(0),
        ),
    );
    assert_ne!(guess.disposition, Disposition::Rejected);
    let said = env.remember(
        at(1),
        fact(
            "请用中文回复我",
            SourceKind::User,
            "evt-5",
            (key.0, key.1, "中文"),
            None,
            at(1),
        ),
    );
    assert_eq!(said.disposition, Disposition::Active);
    assert_eq!(said.action, WriteAction::Superseded, "{:?}", said.reasons);
    let h = env.history(guess.memory_id.as_deref().unwrap());
    assert_eq!(h.len(), 2);
    assert_eq!(h[0].provenance.source.kind, SourceKind::Agent);
    assert_eq!(h[0].status, Status::Superseded);
    assert_eq!(h[1].provenance.source.kind, SourceKind::User);
    assert_eq!((object(&h[1]), h[1].status), ("中文", Status::Active));

    // And a later inference does not overrule the user.
    let again = env.remember(
        at(2),
        fact(
            "maybe English after all",
            SourceKind::Agent,
            "run-8",
            (key.0, key.1, "English"),
            None,
            at(2),
        ),
    );
    assert_eq!(again.disposition, Disposition::Pending);
    let h = env.history(guess.memory_id.as_deref().unwrap());
    let active: Vec<&Memory> = h.iter().filter(|m| m.status == Status::Active).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(object(active[0]), "中文");
}

#[test]
fn a_leaked_password_is_forgotten_everywhere_and_is_not_re_derived() {
    let env = Env::new();
    let leak = "bluefalcon77";
    let t7 = scope(Some("u42"), Some("t7"));
    // It got into a fact, an episode of the thread, a fact derived from the
    // first one, a working note (event payload), and an unrelated memory.
    let mut c1 = fact(
        "staging 跳板机备注是 BlueFalcon77",
        SourceKind::User,
        "evt-1",
        ("host:staging-jump", "note", "BlueFalcon77"),
        None,
        at(0),
    );
    c1.scope = t7.clone();
    let d1 = env.remember(at(0), c1);
    assert_eq!(d1.disposition, Disposition::Active, "{:?}", d1.reasons);
    let id1 = d1.memory_id.clone().unwrap();

    let mut c2 = fact(
        "2026-08-01 用 bluefalcon77 登上了 staging 跳板机",
        SourceKind::Tool,
        "evt-2",
        ("", "", ""),
        None,
        at(0),
    );
    c2.kind_hint = Some(CandidateKind::Episodic);
    c2.subject = None;
    c2.predicate = None;
    c2.object = None;
    c2.occurred_at = Some(at(0));
    c2.scope = t7.clone();
    let d2 = env.remember(at(0), c2);
    assert_ne!(d2.disposition, Disposition::Rejected, "{:?}", d2.reasons);

    let mut c3 = fact(
        "跳板机有一条人工备注",
        SourceKind::Agent,
        &id1,
        ("host:staging-jump", "has_note", "yes"),
        None,
        at(0),
    );
    c3.source.reference = Some(id1.clone());
    let d3 = env.remember(at(0), c3);
    assert!(d3.memory_id.is_some(), "{:?}", d3.reasons);

    let mut w = fact(
        "这次先别动 bluefalcon77 那台",
        SourceKind::User,
        "evt-3",
        ("", "", ""),
        None,
        at(0),
    );
    w.kind_hint = Some(CandidateKind::Working);
    w.subject = None;
    w.predicate = None;
    w.object = None;
    w.scope = t7.clone();
    env.remember(at(0), w);
    let keep = env.remember(
        at(0),
        fact(
            "以后叫我王工",
            SourceKind::User,
            "evt-4",
            (NAME.0, NAME.1, "王工"),
            None,
            at(0),
        ),
    );

    let report = env
        .run(at(1), |ctx| {
            forget::forget(
                ctx,
                &[ForgetSelector::Text(TextSelector {
                    scope: t7.clone(),
                    text: "BLUEFALCON77".into(),
                })],
            )
        })
        .expect("forget");
    assert!(report.deleted.contains(&id1), "{report:?}");
    assert!(
        report.deleted.contains(d2.memory_id.as_ref().unwrap()),
        "{report:?}"
    );
    assert!(
        report.cascaded.contains(d3.memory_id.as_ref().unwrap()),
        "{report:?}"
    );
    assert!(report.tombstones >= 1);

    // Gone from records and revisions, index terms and event payloads.
    for id in report.deleted.iter().chain(&report.cascaded) {
        assert!(env.store.revisions(id).unwrap().is_empty());
    }
    for s in env.all() {
        assert!(!s.memory.text.to_lowercase().contains(leak));
    }
    let hits = env
        .store
        .search(
            &engram_guest::core::model::filter(&t7, ScopeMatch::Visible),
            &[WeightedTerm {
                term: leak.into(),
                weight: 1.0,
            }],
            100,
        )
        .unwrap();
    assert!(hits.is_empty());
    for (_, _, e) in env.store.events() {
        assert!(!e.payload.to_lowercase().contains(leak), "{}", e.payload);
    }
    // What was not about it stays.
    assert_eq!(env.active_count(keep.memory_id.as_deref().unwrap()), 1);

    // It is not re-derived for its owner (u42), in any thread: not from a
    // tool, not from the erased memory's own source event, not from an
    // import, not from text the user only quotes.
    let mut again = fact(
        "跳板机备注：bluefalcon77（再记一次）",
        SourceKind::Tool,
        "evt-8",
        ("host:staging-jump", "note", "x"),
        None,
        at(2),
    );
    again.scope = scope(Some("u42"), Some("t9"));
    let rejected = |d: &Decision, why: &str| {
        assert_eq!(d.disposition, Disposition::Rejected, "{:?}", d.reasons);
        assert!(
            d.reasons
                .iter()
                .any(|r| r.text.contains("tombstone") && r.text.contains(why)),
            "{why}: {:?}",
            d.reasons
        );
    };
    rejected(&env.remember(at(2), again.clone()), "re-derives");
    let mut replay = again.clone();
    replay.source = Source {
        kind: SourceKind::User,
        reference: Some("evt-1".into()),
    };
    rejected(
        &env.remember(at(2), replay),
        "source the erased content came from",
    );
    let mut old_message = again.clone();
    old_message.source.kind = SourceKind::User;
    old_message.observed_at = Some(at(0));
    rejected(&env.remember(at(2), old_message), "observed before");
    let mut quoted = again.clone();
    quoted.source.kind = SourceKind::User;
    quoted.text = "Here is the ticket text: the jump host note is bluefalcon77".into();
    quoted.object = None;
    rejected(&env.remember(at(2), quoted), "quoted");
    let imported = env.run(at(2), |ctx| {
        remember::import_records(
            ctx,
            &[ImportRecord {
                external_id: "X:1".into(),
                kind: MemoryKind::Semantic,
                candidate: again.clone(),
            }],
        )
    });
    assert!(
        matches!(imported, Err(Error::InvalidInput(_))),
        "{imported:?}"
    );
    assert!(env.store.revisions(&id1).unwrap().is_empty());

    // Another user of the tenant is not blocked, and is told nothing of it.
    let mut other = again.clone();
    other.scope = scope(Some("u7"), None);
    other.source.kind = SourceKind::User;
    let d = env.remember(at(2), other);
    assert_eq!(d.disposition, Disposition::Active, "{:?}", d.reasons);
    assert!(
        !d.reasons
            .iter()
            .any(|r| r.text.contains("tombstone") || r.text.contains("erased")),
        "{:?}",
        d.reasons
    );

    // Its owner may say it again in a new statement of their own: admitted,
    // with a reason saying so.
    let mut restated = again.clone();
    restated.source.kind = SourceKind::User;
    restated.text = "以后 staging 跳板机备注改回 bluefalcon77".into();
    restated.object = Some("bluefalcon77".into());
    let d = env.remember(at(2), restated);
    assert_eq!(d.disposition, Disposition::Active, "{:?}", d.reasons);
    assert!(
        d.reasons.iter().any(|r| r.text.contains("re-statement")),
        "{:?}",
        d.reasons
    );
}

#[test]
fn an_expired_fact_is_not_recalled_now_but_is_as_of_before_its_expiry() {
    let env = Env::new();
    let mut c = fact(
        "order-service 的值班负责人是 alice",
        SourceKind::System,
        "oncall-1",
        ("service:order-service", "oncall_owner", "alice"),
        None,
        at(0),
    );
    c.valid_to = Some(at(10));
    let d = env.remember(at(0), c);
    assert_eq!(d.disposition, Disposition::Active, "{:?}", d.reasons);
    let q = |as_of| query("order-service 值班负责人", as_of);
    assert!(env.recall_texts(at(5), q(None)).len() == 1);
    assert!(env.recall_texts(at(20), q(None)).is_empty());
    assert_eq!(env.recall_texts(at(20), q(Some(at(5)))).len(), 1);
    // The sweep marks it expired; as-of reads still find it.
    let report = env
        .run(at(20), |ctx| sweep::sweep(ctx, &user_scope()))
        .unwrap();
    assert_eq!(report.expired, 1, "{report:?}");
    let h = env.history(d.memory_id.as_deref().unwrap());
    assert_eq!(h[0].status, Status::Expired);
    assert!(env.recall_texts(at(20), q(None)).is_empty());
    assert_eq!(env.recall_texts(at(20), q(Some(at(5)))).len(), 1);
}

// ---------------------------------------------------------------------------
// Concurrent writers: compare-and-swap, retried from a fresh read.
// ---------------------------------------------------------------------------

/// A store whose next commits are each preceded by a rival writer's
/// `remember` through the same underlying store, as if it had committed
/// between our read and our write.
struct Racing<'a> {
    inner: &'a MemStore,
    policy: &'a Policy,
    rivals: RefCell<Vec<(Datetime, Candidate)>>,
    commits: Cell<u32>,
}

impl Store for Racing<'_> {
    fn principal(&self) -> Principal {
        self.inner.principal()
    }
    fn find(&self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        self.inner.find(filter, limit)
    }
    fn revisions(&self, id: &str) -> Result<Vec<Stored>, StoreError> {
        self.inner.revisions(id)
    }
    fn stats(&self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        self.inner.stats(filter, terms)
    }
    fn search(
        &self,
        f: &Filter,
        t: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        self.inner.search(f, t, limit)
    }
    fn commit(&self, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        self.commits.set(self.commits.get() + 1);
        let rival = self.rivals.borrow_mut().pop();
        if let Some((now, c)) = rival {
            run_on(self.inner, self.policy, now, |ctx| {
                remember::remember(ctx, &[c])
            })
            .expect("rival writer");
        }
        self.inner.commit(ops)
    }
    fn tombstones(&self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        self.inner.tombstones(scope)
    }
    fn fingerprint_key(&self, scope: &Scope) -> Result<Vec<u8>, StoreError> {
        self.inner.fingerprint_key(scope)
    }
    fn count_events(&self, scope: &Scope, kind: &str, since: Datetime) -> Result<u64, StoreError> {
        self.inner.count_events(scope, kind, since)
    }
    fn session_log(
        &self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<engram_guest::wit_store::Event>, StoreError> {
        self.inner.session_log(scope, session, kind)
    }
}

#[test]
fn two_writers_on_one_key_lose_no_update_and_never_leave_two_active_revisions() {
    let env = Env::new();
    let base = env.remember(
        at(0),
        fact(
            "叫我小王",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "小王"),
            None,
            at(0),
        ),
    );
    let id = base.memory_id.clone().unwrap();
    // B says 王工 at 10:00 and commits first; A says 林工 at 10:01 but read
    // before B committed.
    let racing = Racing {
        inner: &env.store,
        policy: &env.policy,
        rivals: RefCell::new(vec![(
            at(1),
            fact(
                "叫我王工",
                SourceKind::User,
                "evt-b",
                (NAME.0, NAME.1, "王工"),
                None,
                at(1),
            ),
        )]),
        commits: Cell::new(0),
    };
    let a = run_on(&racing, &env.policy, at(1), |ctx| {
        remember::remember(
            ctx,
            &[fact(
                "改叫我林工",
                SourceKind::User,
                "evt-a",
                (NAME.0, NAME.1, "林工"),
                None,
                at(1),
            )],
        )
    })
    .expect("A retries and commits");
    assert_eq!(
        racing.commits.get(),
        2,
        "the first commit lost its compare-and-swap"
    );
    assert_eq!(a[0].action, WriteAction::Superseded);
    assert_eq!(a[0].revision, Some(3), "A resolved against B's revision");

    let h = env.history(&id);
    let objects: Vec<&str> = h.iter().map(object).collect();
    assert_eq!(objects, vec!["小王", "王工", "林工"], "no update lost");
    assert_eq!(env.active_count(&id), 1);
    assert_eq!(h[1].superseded_by.as_ref().map(|r| r.revision), Some(3));
}

#[test]
fn an_older_statement_that_loses_the_race_is_kept_as_history() {
    let env = Env::new();
    // Both writers create the key: the insert of revision 1 collides.
    let racing = Racing {
        inner: &env.store,
        policy: &env.policy,
        rivals: RefCell::new(vec![(
            at(1),
            fact(
                "叫我王工",
                SourceKind::User,
                "evt-b",
                (NAME.0, NAME.1, "王工"),
                None,
                at(1),
            ),
        )]),
        commits: Cell::new(0),
    };
    let a = run_on(&racing, &env.policy, at(1), |ctx| {
        remember::remember(
            ctx,
            &[fact(
                "叫我林工",
                SourceKind::User,
                "evt-a",
                (NAME.0, NAME.1, "林工"),
                None,
                at(0),
            )],
        )
    })
    .expect("A retries");
    assert_eq!(racing.commits.get(), 2);
    let id = a[0].memory_id.clone().unwrap();
    let h = env.history(&id);
    assert_eq!(h.len(), 2, "no update lost");
    // A was said before B: B stays current, A is history ending at B.
    assert_eq!((object(&h[0]), h[0].status), ("王工", Status::Active));
    assert_eq!((object(&h[1]), h[1].status), ("林工", Status::Expired));
    assert_eq!(h[1].valid_to.map(|t| t.epoch_ms), Some(at(1).epoch_ms));
}

#[test]
fn retries_are_bounded_and_a_lost_batch_writes_nothing() {
    let env = Env::new();
    env.remember(
        at(0),
        fact(
            "叫我小王",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "小王"),
            None,
            at(0),
        ),
    );
    let rivals: Vec<(Datetime, Candidate)> = (0..20)
        .map(|i| {
            let name = format!("名字{i}");
            (
                at(1),
                fact(
                    &format!("叫我{name}"),
                    SourceKind::User,
                    &format!("evt-r{i}"),
                    (NAME.0, NAME.1, &name),
                    None,
                    at(1),
                ),
            )
        })
        .collect();
    let racing = Racing {
        inner: &env.store,
        policy: &env.policy,
        rivals: RefCell::new(rivals),
        commits: Cell::new(0),
    };
    let r = run_on(&racing, &env.policy, at(2), |ctx| {
        remember::remember(
            ctx,
            &[fact(
                "叫我林工",
                SourceKind::User,
                "evt-a",
                (NAME.0, NAME.1, "林工"),
                None,
                at(2),
            )],
        )
    });
    assert!(matches!(r, Err(Error::Conflict(_))), "{r:?}");
    assert_eq!(
        racing.commits.get(),
        env.policy.lifecycle.commit_retries + 1
    );
    assert!(env.all().iter().all(|s| object(&s.memory) != "林工"));
    assert_eq!(
        env.all()
            .iter()
            .filter(|s| s.memory.status == Status::Active)
            .count(),
        1
    );
}

// ---------------------------------------------------------------------------
// Resolution details.
// ---------------------------------------------------------------------------

#[test]
fn one_batch_can_revise_a_key_several_times() {
    let env = Env::new();
    let ds = env
        .run(at(0), |ctx| {
            remember::remember(
                ctx,
                &[
                    fact(
                        "叫我小王",
                        SourceKind::User,
                        "evt-1",
                        (NAME.0, NAME.1, "小王"),
                        None,
                        at(0),
                    ),
                    fact(
                        "叫我王工",
                        SourceKind::User,
                        "evt-2",
                        (NAME.0, NAME.1, "王工"),
                        None,
                        at(1),
                    ),
                    fact(
                        "叫我林工",
                        SourceKind::User,
                        "evt-3",
                        (NAME.0, NAME.1, "林工"),
                        None,
                        at(2),
                    ),
                    fact(
                        "叫我林工",
                        SourceKind::User,
                        "evt-4",
                        (NAME.0, NAME.1, "林工"),
                        None,
                        at(3),
                    ),
                ],
            )
        })
        .unwrap();
    let actions: Vec<WriteAction> = ds.iter().map(|d| d.action).collect();
    assert_eq!(
        actions,
        vec![
            WriteAction::Created,
            WriteAction::Superseded,
            WriteAction::Superseded,
            WriteAction::Duplicate
        ]
    );
    let h = env.history(ds[0].memory_id.as_deref().unwrap());
    assert_eq!(h.len(), 3);
    assert_eq!(h[2].provenance.source_event_ids, vec!["evt-3", "evt-4"]);
    assert_eq!(env.active_count(&h[0].id), 1);
}

#[test]
fn copies_along_one_source_chain_do_not_raise_confidence() {
    let env = Env::new();
    let key = (
        "service:payment-service",
        "database_version",
        "PostgreSQL 16",
    );
    let d = env.remember(
        at(0),
        fact(
            "payment-service uses PostgreSQL 16",
            SourceKind::Document,
            "wiki-1",
            key,
            None,
            at(0),
        ),
    );
    let id = d.memory_id.unwrap();
    let c0 = env.history(&id)[0].confidence;
    // The same document again, and an agent restating it: same chain.
    env.remember(
        at(1),
        fact(
            "payment-service runs PostgreSQL 16",
            SourceKind::Document,
            "wiki-1",
            key,
            None,
            at(1),
        ),
    );
    env.remember(
        at(1),
        fact(
            "payment-service is on PostgreSQL 16",
            SourceKind::Agent,
            "wiki-1",
            key,
            None,
            at(1),
        ),
    );
    let h = env.history(&id);
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].confidence, c0);
    // A second, independent document corroborates it.
    let d = env.remember(
        at(2),
        fact(
            "PostgreSQL 16 for payment-service",
            SourceKind::Document,
            "runbook-3",
            key,
            None,
            at(2),
        ),
    );
    assert_eq!(d.action, WriteAction::Duplicate);
    let h = env.history(&id);
    assert!(h[0].confidence > c0, "{} > {}", h[0].confidence, c0);
    assert!(h[0].confidence <= env.policy.lifecycle.corroboration_cap);
    assert_eq!(
        h[0].provenance.source_event_ids,
        vec!["wiki-1", "runbook-3"]
    );
    // The system of record confirming it makes a new, authoritative revision.
    let d = env.remember(
        at(3),
        fact(
            "payment-service database: PostgreSQL 16",
            SourceKind::System,
            "cmdb-1",
            key,
            None,
            at(3),
        ),
    );
    assert_eq!(d.action, WriteAction::Duplicate);
    assert_eq!(d.revision, Some(2));
    let h = env.history(&id);
    assert_eq!(h[1].provenance.source.kind, SourceKind::System);
    assert_eq!(
        h[1].provenance.source_event_ids,
        vec!["cmdb-1", "wiki-1", "runbook-3"]
    );
    assert_eq!(h[0].status, Status::Superseded);
}

#[test]
fn equal_authority_from_different_sources_is_a_conflict_until_the_system_of_record_decides() {
    let env = Env::new();
    let key = ("service:order-service", "cloud");
    let a = env.remember(
        at(0),
        fact(
            "order-service is deployed on AWS",
            SourceKind::User,
            "evt-1",
            (key.0, key.1, "AWS"),
            None,
            at(0),
        ),
    );
    let b = env.remember(
        at(1),
        fact(
            "order-service is deployed on GCP",
            SourceKind::Tool,
            "kubectl-1",
            (key.0, key.1, "GCP"),
            None,
            at(1),
        ),
    );
    assert_eq!(b.action, WriteAction::Conflicted, "{:?}", b.reasons);
    assert!(
        !b.gates
            .iter()
            .find(|g| g.gate == GateName::Conflict)
            .unwrap()
            .passed
    );
    let id = a.memory_id.unwrap();
    let statuses: Vec<Status> = env.history(&id).iter().map(|m| m.status).collect();
    assert_eq!(statuses, vec![Status::Conflicted, Status::Conflicted]);
    // Both are surfaced, marked, in recall.
    let mut q = query("order-service deployed", None);
    q.k = 5;
    let res = env
        .run(at(2), |ctx| recall::recall(ctx, &[q]))
        .unwrap()
        .remove(0);
    assert_eq!(res.results.len(), 2);
    assert!(res.results.iter().all(|r| r.admission.conflict));
    // The system of record settles it.
    let c = env.remember(
        at(3),
        fact(
            "order-service: GCP",
            SourceKind::System,
            "cmdb-7",
            (key.0, key.1, "GCP"),
            None,
            at(3),
        ),
    );
    assert_eq!(c.revision, Some(3));
    let h = env.history(&id);
    let statuses: Vec<Status> = h.iter().map(|m| m.status).collect();
    assert_eq!(
        statuses,
        vec![Status::Superseded, Status::Superseded, Status::Active]
    );
}

#[test]
fn a_temporary_exception_does_not_supersede_a_standing_preference() {
    let env = Env::new();
    let standing = env.remember(
        at(0),
        fact(
            "Always call me Wang Gong",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "Wang Gong"),
            None,
            at(0),
        ),
    );
    let mut exception = fact(
        "Call me Xiao Wang at the offsite",
        SourceKind::User,
        "evt-2",
        (NAME.0, NAME.1, "Xiao Wang"),
        None,
        at(1),
    );
    exception.valid_to = Some(at(2));
    let d = env.remember(at(1), exception);
    assert_eq!(d.disposition, Disposition::Working, "{:?}", d.reasons);
    assert_eq!(d.action, WriteAction::None);
    let h = env.history(standing.memory_id.as_deref().unwrap());
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].status, Status::Active);
    assert!(env
        .store
        .events()
        .iter()
        .any(|(_, _, e)| e.kind == "task-state" && e.payload.contains("Xiao Wang")));
}

#[test]
fn a_retraction_withdraws_the_value_and_a_past_statement_is_history() {
    let env = Env::new();
    let d = env.remember(
        at(0),
        fact(
            "叫我小王",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "小王"),
            None,
            at(0),
        ),
    );
    let id = d.memory_id.unwrap();
    let r = env.remember(
        at(5),
        fact(
            "别再叫我小王了",
            SourceKind::User,
            "evt-2",
            (NAME.0, NAME.1, "(retracted)"),
            None,
            at(5),
        ),
    );
    assert_eq!(r.memory_id.as_deref(), Some(id.as_str()));
    let h = env.history(&id);
    assert_eq!(h[0].status, Status::Retracted);
    assert_eq!(h[0].valid_to.map(|t| t.epoch_ms), Some(at(5).epoch_ms));
    assert!(env.recall_texts(at(6), query("叫我 小王", None)).is_empty());
    // A new statement afterwards starts a new revision.
    let n = env.remember(
        at(7),
        fact(
            "叫我王工",
            SourceKind::User,
            "evt-3",
            (NAME.0, NAME.1, "王工"),
            None,
            at(7),
        ),
    );
    assert_eq!((n.action, n.revision), (WriteAction::Created, Some(2)));

    // A system statement that already ended is stored as history.
    let key = ("service:billing", "region");
    env.remember(
        at(0),
        fact(
            "billing runs in cn-north",
            SourceKind::System,
            "cmdb-1",
            (key.0, key.1, "cn-north"),
            None,
            at(0),
        ),
    );
    let mut past = fact(
        "billing ran in cn-east",
        SourceKind::System,
        "cmdb-0",
        (key.0, key.1, "cn-east"),
        None,
        at(-30),
    );
    past.valid_to = Some(at(-1));
    let p = env.remember(at(1), past);
    let h = env.history(p.memory_id.as_deref().unwrap());
    assert_eq!(h[0].status, Status::Active);
    assert_eq!((object(&h[1]), h[1].status), ("cn-east", Status::Expired));
}

// ---------------------------------------------------------------------------
// Deletion by id, key and source; cascades.
// ---------------------------------------------------------------------------

#[test]
fn forget_by_source_event_cascades_to_what_was_derived_from_it() {
    let env = Env::new();
    let a = env.remember(
        at(0),
        fact(
            "我住在杭州",
            SourceKind::User,
            "evt-50",
            ("user:u42", "home_city", "杭州"),
            None,
            at(0),
        ),
    );
    let a_id = a.memory_id.unwrap();
    // Derived from the memory (a summary citing it), and from that summary.
    let mut s1 = fact(
        "用户常驻浙江",
        SourceKind::Agent,
        "x",
        ("user:u42", "home_province", "浙江"),
        None,
        at(0),
    );
    s1.source.reference = Some(a_id.clone());
    let s1 = env.remember(at(0), s1);
    let s1_id = s1.memory_id.unwrap();
    let mut s2 = fact(
        "用户在华东",
        SourceKind::Agent,
        "x",
        ("user:u42", "home_region", "华东"),
        None,
        at(0),
    );
    s2.source.reference = Some(s1_id.clone());
    let s2_id = env.remember(at(0), s2).memory_id.unwrap();
    let other = env.remember(
        at(0),
        fact(
            "叫我王工",
            SourceKind::User,
            "evt-51",
            (NAME.0, NAME.1, "王工"),
            None,
            at(0),
        ),
    );

    let report = env
        .run(at(1), |ctx| {
            forget::forget(
                ctx,
                &[ForgetSelector::SourceRef(SourceSelector {
                    scope: user_scope(),
                    source_ref: "evt-50".into(),
                })],
            )
        })
        .unwrap();
    assert_eq!(
        report.cascaded,
        vec![a_id.clone(), s1_id.clone(), s2_id.clone()]
    );
    assert!(report.deleted.is_empty());
    assert!(report.tombstones >= 1);
    for id in [&a_id, &s1_id, &s2_id] {
        assert!(env.store.revisions(id).unwrap().is_empty());
    }
    assert_eq!(env.active_count(other.memory_id.as_deref().unwrap()), 1);
    // The erased source cannot be re-extracted.
    let d = env.remember(
        at(2),
        fact(
            "用户住在杭州市",
            SourceKind::User,
            "evt-50",
            ("user:u42", "home_city", "杭州市"),
            None,
            at(2),
        ),
    );
    assert_eq!(d.disposition, Disposition::Rejected);
    // A forget event records ids only.
    let forget_events: Vec<String> = env
        .store
        .events()
        .into_iter()
        .filter(|(_, _, e)| e.kind == "forget")
        .map(|(_, _, e)| e.payload)
        .collect();
    assert_eq!(forget_events.len(), 1);
    assert!(!forget_events[0].contains("杭州"));
}

#[test]
fn forget_by_key_and_by_id_erase_every_revision() {
    let env = Env::new();
    let d = env.remember(
        at(0),
        fact(
            "叫我小王",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "小王"),
            None,
            at(0),
        ),
    );
    env.remember(
        at(1),
        fact(
            "叫我王工",
            SourceKind::User,
            "evt-2",
            (NAME.0, NAME.1, "王工"),
            None,
            at(1),
        ),
    );
    let id = d.memory_id.unwrap();
    let report = env
        .run(at(2), |ctx| {
            forget::forget(
                ctx,
                &[ForgetSelector::Key(KeySelector {
                    scope: user_scope(),
                    subject: NAME.0.into(),
                    predicate: NAME.1.into(),
                    condition: None,
                })],
            )
        })
        .unwrap();
    assert_eq!(report.deleted, vec![id.clone()]);
    assert_eq!(
        report.tombstones, 4,
        "one per distinct revision text, one per source event it came from"
    );
    let kinds: Vec<String> = env
        .store
        .all_tombstones()
        .into_iter()
        .map(|t| t.kind)
        .collect();
    assert_eq!(kinds, ["key", "origin", "key", "origin"]);
    assert!(env.store.revisions(&id).unwrap().is_empty());
    assert!(matches!(
        env.run(at(2), |ctx| sweep::history(ctx, &id)),
        Err(Error::NotFound(_))
    ));

    let e = env.remember(
        at(3),
        fact(
            "I live in Hangzhou",
            SourceKind::User,
            "evt-3",
            ("user:u42", "home_city", "Hangzhou"),
            None,
            at(3),
        ),
    );
    let eid = e.memory_id.unwrap();
    let report = env
        .run(at(4), |ctx| {
            forget::forget(ctx, &[ForgetSelector::MemoryId(eid.clone())])
        })
        .unwrap();
    assert_eq!(report.deleted, vec![eid.clone()]);
    assert!(env.store.revisions(&eid).unwrap().is_empty());
    // Unknown ids and bad selectors fail and change nothing.
    assert!(matches!(
        env.run(at(4), |ctx| forget::forget(
            ctx,
            &[ForgetSelector::MemoryId("m-nope".into())]
        )),
        Err(Error::NotFound(_))
    ));
    assert!(matches!(
        env.run(at(4), |ctx| forget::forget(
            ctx,
            &[ForgetSelector::Text(TextSelector {
                scope: user_scope(),
                text: " a ".into(),
            })]
        )),
        Err(Error::InvalidInput(_))
    ));
}

// ---------------------------------------------------------------------------
// Sweep.
// ---------------------------------------------------------------------------

#[test]
fn sweep_expires_unverified_inferences_archives_idle_episodes_and_keeps_confirmed_preferences() {
    let env = Env::new();
    let pref = env.remember(
        at(0),
        fact(
            "以后叫我王工",
            SourceKind::User,
            "evt-1",
            (NAME.0, NAME.1, "王工"),
            None,
            at(0),
        ),
    );
    let guess = env.remember(
        at(0),
        fact(
            "user probably works on payments",
            SourceKind::Agent,
            "run-1",
            ("user:u42", "team", "payments"),
            None,
            at(0),
        ),
    );
    let mut ep = fact(
        "2026-08-01 order-service 扩容到 6 副本后恢复",
        SourceKind::Tool,
        "evt-2",
        ("", "", ""),
        None,
        at(0),
    );
    ep.kind_hint = Some(CandidateKind::Episodic);
    ep.subject = None;
    ep.predicate = None;
    ep.object = None;
    ep.occurred_at = Some(at(0));
    let ep = env.remember(at(0), ep);
    assert!(ep.memory_id.is_some(), "{:?}", ep.reasons);

    // After a week the inference is gone; nothing else changed.
    let r = env
        .run(at(8), |ctx| sweep::sweep(ctx, &user_scope()))
        .unwrap();
    assert_eq!(
        (r.inferences_expired, r.expired, r.archived),
        (1, 0, 0),
        "{r:?}"
    );
    assert_eq!(r.examined, 3);
    assert_eq!(
        env.history(guess.memory_id.as_deref().unwrap())[0].status,
        Status::Expired
    );
    // Years later the idle episode is archived (still readable by id); the
    // confirmed preference never decays away.
    let r = env
        .run(at(3 * 365), |ctx| sweep::sweep(ctx, &user_scope()))
        .unwrap();
    assert_eq!(
        (r.inferences_expired, r.expired, r.archived),
        (0, 0, 1),
        "{r:?}"
    );
    let h = env.history(ep.memory_id.as_deref().unwrap());
    assert_eq!(h[0].status, Status::Archived);
    assert_eq!(
        env.history(pref.memory_id.as_deref().unwrap())[0].status,
        Status::Active
    );
    // A second sweep has nothing left to do.
    let r = env
        .run(at(3 * 365), |ctx| sweep::sweep(ctx, &user_scope()))
        .unwrap();
    assert_eq!((r.inferences_expired, r.expired, r.archived), (0, 0, 0));
    // The sweep wrote an audit event with its counts.
    assert!(env.store.events().iter().any(|(_, _, e)| e.kind == "sweep"));
}

#[test]
fn a_verified_inference_does_not_expire() {
    let env = Env::new();
    let key = ("user:u42", "team", "payments");
    let guess = env.remember(
        at(0),
        fact(
            "user probably works on payments",
            SourceKind::Agent,
            "run-1",
            key,
            None,
            at(0),
        ),
    );
    let said = env.remember(
        at(1),
        fact(
            "I work on the payments team",
            SourceKind::User,
            "evt-1",
            key,
            None,
            at(1),
        ),
    );
    assert_eq!(said.disposition, Disposition::Active);
    let r = env
        .run(at(30), |ctx| sweep::sweep(ctx, &user_scope()))
        .unwrap();
    assert_eq!(r.inferences_expired, 0, "{r:?}");
    let h = env.history(guess.memory_id.as_deref().unwrap());
    let active: Vec<&Memory> = h.iter().filter(|m| m.status == Status::Active).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0].provenance.source.kind, SourceKind::User);
    assert!(active[0].valid_to.is_none());
}

#[test]
fn sweep_settles_a_conflict_whose_other_side_expired() {
    let env = Env::new();
    let key = ("service:order-service", "cloud");
    let mut a = fact(
        "order-service is on AWS",
        SourceKind::User,
        "evt-1",
        (key.0, key.1, "AWS"),
        None,
        at(0),
    );
    a.valid_to = Some(at(5));
    let a = env.remember(at(0), a);
    let b = env.remember(
        at(1),
        fact(
            "order-service is on GCP",
            SourceKind::Tool,
            "kubectl-1",
            (key.0, key.1, "GCP"),
            None,
            at(1),
        ),
    );
    assert_eq!(b.action, WriteAction::Conflicted, "{:?}", b.reasons);
    let r = env
        .run(at(6), |ctx| sweep::sweep(ctx, &user_scope()))
        .unwrap();
    assert_eq!(r.expired, 1);
    let h = env.history(a.memory_id.as_deref().unwrap());
    let statuses: Vec<Status> = h.iter().map(|m| m.status).collect();
    assert_eq!(statuses, vec![Status::Expired, Status::Active]);
}

#[test]
fn import_resolves_keys_and_respects_tombstones() {
    let env = Env::new();
    let rec = |ext: &str, object: &str, observed: Datetime| ImportRecord {
        external_id: ext.into(),
        kind: MemoryKind::Semantic,
        candidate: fact(
            &format!("payment-service uses {object}"),
            SourceKind::System,
            ext,
            ("service:payment-service", "database_version", object),
            None,
            observed,
        ),
    };
    let receipts = env
        .run(at(10), |ctx| {
            remember::import_records(
                ctx,
                &[
                    rec("D:1", "PostgreSQL 15", at(0)),
                    rec("D:2", "PostgreSQL 16", at(5)),
                ],
            )
        })
        .unwrap();
    assert_eq!(receipts[0].memory_id, receipts[1].memory_id);
    let h = env.history(&receipts[0].memory_id);
    let statuses: Vec<Status> = h.iter().map(|m| m.status).collect();
    assert_eq!(statuses, vec![Status::Superseded, Status::Active]);
}

// ---------------------------------------------------------------------------
// The store checks uniqueness per statement (a partial unique index in SQL):
// no commit may pass through a state with two active revisions of a key.
// ---------------------------------------------------------------------------

/// Applies each op of a commit as its own commit, so the one-active rule is
/// checked after every op, like a unique index checked per statement.
struct PerStatement<'a>(&'a MemStore);

impl Store for PerStatement<'_> {
    fn principal(&self) -> Principal {
        self.0.principal()
    }
    fn find(&self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        self.0.find(filter, limit)
    }
    fn revisions(&self, id: &str) -> Result<Vec<Stored>, StoreError> {
        self.0.revisions(id)
    }
    fn stats(&self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        self.0.stats(filter, terms)
    }
    fn search(
        &self,
        f: &Filter,
        t: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        self.0.search(f, t, limit)
    }
    fn commit(&self, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        let mut receipt = Receipt {
            sequences: Vec::new(),
            etags: Vec::new(),
        };
        for op in ops {
            let r = self
                .0
                .commit(std::slice::from_ref(op))
                .map_err(|e| match e {
                    // Not a lost race: a broken order. Fail loudly, no retry.
                    StoreError::Conflict(m) => StoreError::Backend(format!("per-statement: {m}")),
                    other => other,
                })?;
            receipt.sequences.extend(r.sequences);
            receipt.etags.extend(r.etags);
        }
        Ok(receipt)
    }
    fn tombstones(&self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        self.0.tombstones(scope)
    }
    fn fingerprint_key(&self, scope: &Scope) -> Result<Vec<u8>, StoreError> {
        self.0.fingerprint_key(scope)
    }
    fn count_events(&self, scope: &Scope, kind: &str, since: Datetime) -> Result<u64, StoreError> {
        self.0.count_events(scope, kind, since)
    }
    fn session_log(
        &self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<engram_guest::wit_store::Event>, StoreError> {
        self.0.session_log(scope, session, kind)
    }
}

#[test]
fn every_write_order_keeps_one_active_revision_per_statement() {
    let env = Env::new();
    let store = PerStatement(&env.store);
    let remember = |now: Datetime, cs: Vec<Candidate>| {
        run_on(&store, &env.policy, now, |ctx| remember::remember(ctx, &cs)).expect("remember")
    };
    let key = ("service:order-service", "cloud");
    // Supersessions inside one batch, a confirmation, a conflict and its
    // resolution, a retraction.
    remember(
        at(0),
        vec![
            fact(
                "叫我小王",
                SourceKind::User,
                "evt-1",
                (NAME.0, NAME.1, "小王"),
                None,
                at(0),
            ),
            fact(
                "叫我王工",
                SourceKind::User,
                "evt-2",
                (NAME.0, NAME.1, "王工"),
                None,
                at(1),
            ),
            fact(
                "叫我林工",
                SourceKind::User,
                "evt-3",
                (NAME.0, NAME.1, "林工"),
                None,
                at(2),
            ),
        ],
    );
    let mut aws = fact(
        "order-service is on AWS",
        SourceKind::User,
        "evt-4",
        (key.0, key.1, "AWS"),
        None,
        at(3),
    );
    aws.valid_to = Some(at(10));
    remember(
        at(3),
        vec![
            aws,
            fact(
                "order-service is on GCP",
                SourceKind::Tool,
                "kubectl-1",
                (key.0, key.1, "GCP"),
                None,
                at(3),
            ),
        ],
    );
    // The sweep expires one side of the conflict and promotes the other.
    let r = run_on(&store, &env.policy, at(11), |ctx| {
        sweep::sweep(ctx, &user_scope())
    })
    .expect("sweep");
    assert_eq!(r.expired, 1);
    let ds = remember(
        at(12),
        vec![
            fact(
                "order-service: GCP",
                SourceKind::System,
                "cmdb-1",
                (key.0, key.1, "GCP"),
                None,
                at(12),
            ),
            fact(
                "别再叫我林工",
                SourceKind::User,
                "evt-5",
                (NAME.0, NAME.1, "(retracted)"),
                None,
                at(12),
            ),
            fact(
                "叫我老林",
                SourceKind::User,
                "evt-6",
                (NAME.0, NAME.1, "老林"),
                None,
                at(13),
            ),
        ],
    );
    assert_eq!(ds[0].action, WriteAction::Duplicate, "{:?}", ds[0].reasons);
    assert_eq!(ds[2].action, WriteAction::Created);
    let active: Vec<String> = env
        .all()
        .into_iter()
        .filter(|s| s.memory.status == Status::Active)
        .map(|s| object(&s.memory).to_string())
        .collect();
    assert_eq!(active.len(), 2, "{active:?}");
    assert!(active.contains(&"GCP".to_string()));
    assert!(active.contains(&"老林".to_string()));
}

#[test]
fn a_fragment_is_found_by_its_index_terms_without_a_scan_and_by_a_scan_in_small_scopes() {
    let mut env = Env::new();
    // No scan: the fragment's own index terms must find it.
    env.policy.lifecycle.forget_scan_limit = 0;
    let mut ids = Vec::new();
    for (i, text) in [
        "db 机房备注 rack-B7 先留着",
        "the staging jump host note is marigold-Alpha.7",
        "nothing secret here",
    ]
    .iter()
    .enumerate()
    {
        let d = env.remember(
            at(0),
            fact(
                text,
                SourceKind::User,
                &format!("evt-{i}"),
                ("host:db", &format!("note{i}"), text),
                None,
                at(0),
            ),
        );
        ids.push(
            d.memory_id
                .clone()
                .unwrap_or_else(|| panic!("{:?}", d.reasons)),
        );
    }
    for (fragment, id) in [("RACK-b7", &ids[0]), ("MARIGOLD-alpha.7", &ids[1])] {
        let report = env
            .run(at(1), |ctx| {
                forget::forget(
                    ctx,
                    &[ForgetSelector::Text(TextSelector {
                        scope: user_scope(),
                        text: fragment.into(),
                    })],
                )
            })
            .unwrap();
        assert_eq!(&report.deleted, &vec![id.clone()], "{fragment}");
    }
    assert_eq!(env.store.revisions(&ids[2]).unwrap().len(), 1);

    // Part of a token is not an index term: small scopes are scanned.
    let d = env.remember(
        at(2),
        fact(
            "vpn 备注 orchidtulip42 记一下",
            SourceKind::User,
            "evt-9",
            ("host:vpn", "note", "orchidtulip42"),
            None,
            at(2),
        ),
    );
    let forget_part = |env: &Env| {
        env.run(at(3), |ctx| {
            forget::forget(
                ctx,
                &[ForgetSelector::Text(TextSelector {
                    scope: user_scope(),
                    text: "dtulip4".into(),
                })],
            )
        })
        .unwrap()
    };
    assert!(forget_part(&env).deleted.is_empty());
    env.policy.lifecycle.forget_scan_limit = 100;
    assert_eq!(forget_part(&env).deleted, vec![d.memory_id.unwrap()]);
}
