//! Budget, precedence, compression and the parts never dropped.

use super::*;

#[test]
fn everything_fits_when_the_budget_allows() {
    let w = busy_world();
    let p = w.pack(&busy_request(10_000)).expect("packed");
    check_manifest(&p);
    assert!(p.compressed.is_empty());
    assert!(p.dropped.is_empty(), "{:?}", p.dropped);
    let names: Vec<&str> = p.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "system",
            "state",
            "conversation",
            "facts",
            "events",
            "procedures",
            "knowledge",
            "artifacts"
        ]
    );
    // The text follows the same order.
    let pos: Vec<usize> = [
        "## System policy",
        "## Current task state",
        "## Recent conversation",
        "## Facts",
        "## Past events",
        "## Procedures",
        "## Knowledge",
        "## Artifact summaries",
    ]
    .iter()
    .map(|h| p.text.find(h).unwrap_or_else(|| panic!("{h} missing")))
    .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}");
    assert!(p.text.contains("(current date: 2026-09-01)"));
}

#[test]
fn compresses_before_dropping() {
    let w = busy_world();
    let full = w.pack(&busy_request(10_000)).expect("packed");
    // A little pressure: something is compressed, nothing is dropped.
    let p = w.pack(&busy_request(full.tokens - 20)).expect("packed");
    check_manifest(&p);
    assert!(p.dropped.is_empty(), "{:?}", p.dropped);
    assert!(!p.compressed.is_empty());
    assert_eq!(all_refs(&p), all_refs(&full), "every item is still there");
    // The tool result (priority 30, and the biggest win) keeps a one-line
    // summary with its key figures, so the agent knows it was done.
    let mut budget = full.tokens;
    let tool = loop {
        budget -= 10;
        let p = w.pack(&busy_request(budget)).expect("packed");
        check_manifest(&p);
        if let Some(c) = p.compressed.iter().find(|c| c.reference == "tool-1") {
            assert!(
                p.dropped.is_empty(),
                "compressed before anything is dropped"
            );
            break (p.clone(), c.summary.clone());
        }
    };
    let (p, summary) = tool;
    assert!(
        summary.starts_with("查询 order-service P99 延迟，结果为 840ms，异常。"),
        "{summary}"
    );
    assert!(
        summary.contains("key figures:") && summary.contains("p90=610ms"),
        "{summary}"
    );
    assert!(!summary.contains('\n'));
    assert!(p.text.contains(&format!("[tool · compressed] {summary}\n")));
    assert!(!p.text.contains("slowest endpoints"));
}

#[test]
fn lowest_priority_gives_way_first_and_memories_do_not_outrank_conversation() {
    let w = busy_world();
    let full = w.pack(&busy_request(10_000)).expect("packed");
    let mut seen_drop_order: Vec<String> = Vec::new();
    let mut budget = full.tokens;
    while budget > 40 {
        budget -= 5;
        let Ok(p) = w.pack(&busy_request(budget)) else {
            break;
        };
        check_manifest(&p);
        for d in &p.dropped {
            assert_eq!(d.reason, DropReason::Budget);
            if !seen_drop_order.contains(&d.reference) {
                seen_drop_order.push(d.reference.clone());
            }
        }
        // Whenever a conversation message is dropped, no memory, knowledge
        // or artifact is left in full.
        let conversation_dropped = p
            .dropped
            .iter()
            .any(|d| d.reference.starts_with("message:") || d.reference == "tool-1");
        if conversation_dropped {
            for s in &p.sections {
                if ["facts", "events", "procedures", "knowledge", "artifacts"]
                    .contains(&s.name.as_str())
                {
                    for r in &s.items {
                        assert!(
                            p.compressed.iter().any(|c| &c.reference == r),
                            "{r} kept in full while a message is dropped"
                        );
                    }
                }
            }
        }
    }
    // The first things to go: the artifact, then knowledge, then memories;
    // conversation only after them.
    assert_eq!(
        seen_drop_order.first().map(String::as_str),
        Some("report.md")
    );
    let pos = |r: &str| seen_drop_order.iter().position(|x| x == r);
    let kb = pos("kb:hikari").expect("knowledge dropped at some budget");
    let mem = ["m-fact#1", "m-episode#1", "m-proc#1"]
        .iter()
        .filter_map(|r| pos(r))
        .min()
        .expect("a memory dropped at some budget");
    let conv = ["message:1", "tool-1", "message:3"]
        .iter()
        .filter_map(|r| pos(r))
        .min()
        .expect("a message dropped at some budget");
    assert!(kb < conv && mem < conv, "{seen_drop_order:?}");
}

#[test]
fn the_system_policy_and_original_request_are_never_dropped() {
    let w = busy_world();
    let r = busy_request(0);
    // Find the smallest budget that packs.
    let mut lo = 1u32;
    let mut hi = 10_000u32;
    while lo < hi {
        let mid = (lo + hi) / 2;
        match w.pack(&PackRequest {
            budget: mid,
            ..r.clone()
        }) {
            Ok(_) => hi = mid,
            Err(Error::LimitExceeded(_)) => lo = mid + 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    let p = w
        .pack(&PackRequest {
            budget: lo,
            ..r.clone()
        })
        .expect("packs at the smallest budget");
    check_manifest(&p);
    assert!(p.text.contains(&r.system), "system policy in full");
    assert!(
        p.text.contains(
            "[user · original request] order-service 又超时了，帮我查一下 P99 延迟和原因。"
        ),
        "{}",
        p.text
    );
    assert!(!p
        .dropped
        .iter()
        .any(|d| d.reference == "message:0" || d.reference == "system"));
    assert!(!p.compressed.iter().any(|c| c.reference == "message:0"));
    // One token less: a clear error naming the budget.
    match w.pack(&PackRequest {
        budget: lo - 1,
        ..r.clone()
    }) {
        Err(Error::LimitExceeded(m)) => {
            assert!(m.contains("never dropped"), "{m}");
            assert!(m.contains(&format!("budget of {}", lo - 1)), "{m}");
            assert!(m.contains("message:0"), "{m}");
        }
        other => panic!("expected limit-exceeded, got {other:?}"),
    }
}

#[test]
fn the_original_request_rule() {
    let cfg = crate::core::config::PackPolicy::default();
    let mut r = request(100);
    r.messages = vec![
        msg(Role::System, "s"),
        msg(Role::Assistant, "a"),
        msg(Role::User, "first"),
        msg(Role::Tool, "t"),
        msg(Role::User, "second"),
    ];
    assert_eq!(message_priorities(&cfg, &r), vec![100, 50, 90, 30, 70]);
    // The caller marks the original request: the default rule steps aside.
    r.messages[4].priority = Some(95);
    assert_eq!(message_priorities(&cfg, &r), vec![100, 50, 70, 30, 95]);
    // An explicit low priority on the first user message is respected.
    r.messages[4].priority = None;
    r.messages[2].priority = Some(60);
    assert_eq!(message_priorities(&cfg, &r), vec![100, 50, 60, 30, 70]);
}

#[test]
fn invalid_requests_are_rejected() {
    let w = World::new();
    let mut r = request(0);
    assert!(matches!(w.pack(&r), Err(Error::InvalidInput(f)) if f.field == "budget"));
    r.budget = 100;
    r.scope.tenant = " ".into();
    assert!(matches!(w.pack(&r), Err(Error::InvalidInput(f)) if f.field == "scope.tenant"));
}
