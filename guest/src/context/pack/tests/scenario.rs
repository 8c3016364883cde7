//! The demo release scenario (seed 000) packed end to end.

use super::*;

#[test]
fn the_release_scenario_packs() {
    let w = World {
        store: MemStore::for_tenant("acme"),
        clock: FixedClock(crate::testing::demo::release_now()),
        policy: Policy::default(),
    };
    let req = crate::testing::demo::seed_release_scenario(&w.ctx()).expect("seeded");
    let p = w.pack(&req).expect("packed");
    check_manifest(&p);
    println!("{}", p.text);
    // The long tool result is compressed to its one-line summary.
    let tool = p
        .compressed
        .iter()
        .find(|c| c.reference == "tool-901")
        .expect("tool result compressed");
    assert!(
        tool.summary.contains("idx_orders_created_at 已存在"),
        "{}",
        tool.summary
    );
    // Facts, past events and procedures, labelled.
    let facts = section_body(&p.text, "## Facts");
    assert!(facts.contains("[semantic · 2026-07-15 · system-of-record] \"payment-service 的生产环境使用 PostgreSQL 14。\""), "{facts}");
    assert!(facts.contains("conflict: disagrees with"), "{facts}");
    let events = section_body(&p.text, "## Past events");
    assert!(events.contains("[episodic · 2026-08-31 · tool-output] \"2026-08-31，payment-service 发布到 staging 时，迁移脚本 V42"), "{events}");
    assert!(section_body(&p.text, "## Procedures")
        .contains("[procedural · 2026-06-20 · system-of-record"));
    // The old architecture document is superseded; the injected note is data.
    assert!(p.dropped.iter().any(|d| d.reason == DropReason::Superseded));
    assert!(!p.text.contains("MySQL"));
    assert_eq!(
        p.text
            .lines()
            .filter(|l| l.starts_with("## System policy"))
            .count(),
        1
    );
    assert!(p
        .text
        .contains("[user · original request] 把 payment-service 发布到生产。"));
    // The estimate against a real tokenizer, on the packed text itself.
    let bpe = tiktoken_rs::cl100k_base().expect("cl100k_base ships with tiktoken-rs");
    let real = bpe.encode_ordinary(&p.text).len() as f64;
    println!(
        "estimate {} / cl100k {real} / budget {}",
        p.tokens, p.budget
    );
    assert!((p.tokens as f64 - real).abs() / real <= 0.12);
}
