//! Recall at scale reads a bounded number of records, not the whole scope.

use engram_host::bindings as w;
use engram_tests::*;

const N: usize = 100_000;

fn record(i: usize) -> w::ImportRecord {
    let services = [
        "payment-service",
        "order-service",
        "user-service",
        "search-api",
        "billing",
    ];
    let zh = ["发布失败", "延迟升高", "数据库迁移", "回滚成功", "告警恢复"];
    let en = [
        "deploy failed",
        "latency spike",
        "schema migration",
        "rollback done",
        "alert resolved",
    ];
    let text = format!(
        "{} {} on host-{} build {} {}",
        services[i % services.len()],
        en[(i / 5) % en.len()],
        i % 997,
        i,
        zh[(i / 25) % zh.len()]
    );
    episode("scale", "u1", &format!("S:{i}"), &text)
}

#[test]
fn recall_over_100k_memories_reads_a_bounded_candidate_set() {
    let mut e = engram();
    for chunk in (0..N).collect::<Vec<_>>().chunks(10_000) {
        e.import(
            principal("scale"),
            chunk.iter().map(|&i| record(i)).collect(),
        )
        .expect("import");
    }
    let before = e.records_read();
    let q = query(
        "scale",
        Some("u1"),
        "why did the payment-service deploy fail on host-42? 发布失败",
        10,
    );
    let r = e.recall(principal("scale"), vec![q]).expect("recall");
    let read = e.records_read() - before;
    assert_eq!(r[0].results.len(), 10);
    assert!(read as usize <= 2_000, "recall read {read} records of {N}");
    assert_eq!(
        read, r[0].candidates_read as u64,
        "the guest's count matches the store's"
    );
    let top = &r[0].results[0];
    assert!(
        top.memory.text.contains("host-42 "),
        "top result: {}",
        top.memory.text
    );
}
