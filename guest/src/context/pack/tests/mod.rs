//! Tests of context packing (`pack/`): the fixtures here, the tests by
//! behaviour in the modules below.

mod budget;
mod property;
mod scenario;
mod sections;

use super::text::quote;
use super::*;
use crate::analysis::tokens::tokens_of;
use crate::core::config::Policy;
use crate::core::store::FixedClock;
use crate::testing::demo::cst;
use crate::testing::memstore::MemStore;
use crate::types::{
    Datetime, DropReason, MemoryKind, MemoryRef, Message, Payload, RecallOptions, Scope,
    SemanticPayload, Snippet, Source, SourceKind, Status,
};

fn now() -> Datetime {
    cst(2026, 9, 1, 10, 0)
}

fn scope() -> Scope {
    Scope {
        tenant: "t1".into(),
        user: Some("u1".into()),
        project: Some("payment-service".into()),
        thread: None,
        agent: None,
    }
}

/// A memory built directly (not through `remember`), so these tests depend
/// on packing and recall only.
fn memory(id: &str, kind: MemoryKind, text: &str, source: SourceKind, at: Datetime) -> Memory {
    let mut m = crate::testing::test_fixtures::memory(id, kind, text, scope(), at);
    m.provenance.source = Source {
        kind: source,
        reference: Some(format!("ref-{id}")),
    };
    m.provenance.source_event_ids = vec![format!("ref-{id}")];
    m
}

fn insert(store: &MemStore, memories: Vec<Memory>) {
    crate::testing::test_fixtures::insert(store, memories)
}

fn with_key(mut m: Memory, subject: &str, predicate: &str, object: &str) -> Memory {
    m.payload = Payload::Semantic(SemanticPayload {
        subject: subject.into(),
        predicate: predicate.into(),
        object: object.into(),
        condition: None,
    });
    m
}

fn msg(role: Role, text: &str) -> Message {
    Message {
        reference: None,
        role,
        text: text.into(),
        priority: None,
    }
}

fn snippet(reference: &str, text: &str) -> Snippet {
    Snippet {
        reference: reference.into(),
        text: text.into(),
    }
}

fn request(budget: u32) -> PackRequest {
    PackRequest {
        budget,
        scope: scope(),
        query: String::new(),
        system: "You are the release assistant. Only act with side effects after human approval."
            .into(),
        state: Vec::new(),
        messages: Vec::new(),
        knowledge: Vec::new(),
        artifacts: Vec::new(),
        recall: RecallOptions {
            k: 10,
            as_of: None,
            kinds: Vec::new(),
        },
    }
}

struct World {
    store: MemStore,
    clock: FixedClock,
    policy: Policy,
}

impl World {
    fn new() -> World {
        World {
            store: MemStore::for_tenant("t1"),
            clock: FixedClock(now()),
            policy: Policy::default(),
        }
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            store: &self.store,
            clock: &self.clock,
            policy: &self.policy,
        }
    }

    fn pack(&self, r: &PackRequest) -> Result<PackedContext, Error> {
        pack(&self.ctx(), r)
    }
}

/// The body of a section: the lines after its heading, up to the next one.
fn section_body<'a>(text: &'a str, heading_prefix: &str) -> &'a str {
    let Some(start) = text.find(heading_prefix) else {
        return "";
    };
    let rest = &text[start..];
    let body_start = rest.find('\n').map_or(rest.len(), |i| i + 1);
    let body = &rest[body_start..];
    match body.find("\n## ") {
        Some(end) => &body[..end + 1],
        None => body,
    }
}

fn all_refs(p: &PackedContext) -> Vec<String> {
    p.sections
        .iter()
        .flat_map(|s| s.items.iter().cloned())
        .collect()
}

fn dropped_as(p: &PackedContext, reference: &str) -> Option<DropReason> {
    p.dropped
        .iter()
        .find(|d| d.reference == reference)
        .map(|d| d.reason)
}

fn check_manifest(p: &PackedContext) {
    assert!(p.tokens <= p.budget, "{} > {}", p.tokens, p.budget);
    assert_eq!(
        p.tokens,
        count(&p.text),
        "manifest tokens are the text's count"
    );
    let sum: u32 = p.sections.iter().map(|s| s.tokens).sum();
    assert_eq!(sum, p.tokens, "section tokens add up");
    // Only the packer's headings start a line with "## ", one per section,
    // and each section's tokens are its own text's (no correction needed).
    let starts: Vec<usize> = std::iter::once(0)
        .chain(p.text.match_indices("\n## ").map(|(i, _)| i + 1))
        .filter(|&i| p.text[i..].starts_with("## "))
        .collect();
    assert_eq!(starts.len(), p.sections.len(), "one heading per section");
    let mut cumulative = 0;
    let mut counted = 0;
    for (k, s) in p.sections.iter().enumerate() {
        let end = starts.get(k + 1).map_or(p.text.len(), |e| e - 1);
        cumulative += measure(&p.text[starts[k]..end]);
        assert_eq!(
            s.tokens,
            tokens_of(cumulative) - counted,
            "section {}",
            s.name
        );
        counted = tokens_of(cumulative);
    }
    let included = all_refs(p);
    for c in &p.compressed {
        assert!(
            included.contains(&c.reference),
            "compressed {} is included",
            c.reference
        );
    }
    for d in &p.dropped {
        assert!(
            !included.contains(&d.reference),
            "dropped {} is not included",
            d.reference
        );
    }
}

const TOOL_RESULT: &str = "查询 order-service P99 延迟，结果为 840ms，异常。
window=2026-08-31T20:00:00+08:00..21:00 p50=120ms p90=610ms p99=840ms qps=12400 errors=0.37%
ord-01 p99=210ms ord-02 p99=230ms ord-03 p99=1900ms ord-04 p99=220ms ord-05 p99=240ms ord-06 p99=250ms
slowest endpoints: POST /orders 1900ms, GET /orders/{id} 880ms, POST /refunds 760ms, GET /health 12ms
connection pool: active=50 idle=0 waiting=37 max=50 timeouts=412 in the last hour";

fn busy_request(budget: u32) -> PackRequest {
    let mut r = request(budget);
    r.state = vec![crate::types::Entry {
        key: "task".into(),
        value: "排查 order-service 超时".into(),
    }];
    r.messages = vec![
        msg(
            Role::User,
            "order-service 又超时了，帮我查一下 P99 延迟和原因。",
        ),
        msg(
            Role::Assistant,
            "好的，我先查询 order-service 的 P99 延迟。",
        ),
        Message {
            reference: Some("tool-1".into()),
            ..msg(Role::Tool, TOOL_RESULT)
        },
        msg(Role::User, "看起来是 ord-03 的问题，上次是怎么处理的？"),
    ];
    r.knowledge = vec![snippet(
        "kb:hikari",
        "HikariCP 连接池打满时，请求会在 getConnection 上等待直到 connectionTimeout（默认 30 秒），表现为 P99 延迟飙升。",
    )];
    r.artifacts = vec![snippet(
        "report.md",
        "Incident report draft: order-service latency spike on ord-03, connection pool exhausted, mitigation pending.",
    )];
    r
}

fn busy_world() -> World {
    let w = World::new();
    insert(
        &w.store,
        vec![
            memory(
                "m-episode",
                MemoryKind::Episodic,
                "7 月 12 日 order-service 因为连接池打满导致超时，扩容至 6 副本后恢复。",
                SourceKind::Tool,
                cst(2026, 7, 12, 15, 0),
            ),
            memory(
                "m-fact",
                MemoryKind::Semantic,
                "order-service 使用 HikariCP，最大连接数 50。",
                SourceKind::System,
                cst(2026, 5, 3, 9, 0),
            ),
            memory(
                "m-proc",
                MemoryKind::Procedural,
                "order-service 超时排查：先看连接池指标，再看慢查询，最后按需扩容副本。",
                SourceKind::User,
                cst(2026, 6, 1, 9, 0),
            ),
        ],
    );
    w
}
