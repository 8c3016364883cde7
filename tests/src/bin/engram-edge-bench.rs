//! `engram-edge-bench`: the edge component measured beside `engram serve`
//! (docs/edge.md, "Measured"). Reports the component's size and the size
//! of each part, its compile and instantiate time on wasmtime, and, at each
//! store size, request p50/p95 for remember (one candidate) and recall
//! (one query, k = 10) through the HTTP API: the edge component on the
//! wasmtime runner with the SQLite-backed `wasi:keyvalue` host, next to
//! `engram serve` on SQLite, one client, loopback only, same workload
//! (`engram-bench`'s synthetic corpus, seeded through `POST /v1/import`).
//!
//! ```sh
//! cargo run --release -p engram-tests --bin engram-edge-bench -- [--sizes 1000,10000] [--requests 200] [--json]
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use engram_bench::workload;
use engram_contract::wire;
use engram_tests::edge::kv_host::KvDb;
use engram_tests::edge::runner::{self, EdgeServer};
use engram_tests::edge::scenario::{self, Keys, Target};
use engram_tests::edge::serve_process::ServeProcess;
use serde_json::{json, Value};

struct Args {
    sizes: Vec<u64>,
    requests: u64,
    json: bool,
}

fn args() -> Args {
    let mut a = Args {
        sizes: vec![1_000, 10_000],
        requests: 200,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--sizes" => {
                a.sizes = it
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|s| s.trim().parse().ok())
                    .collect()
            }
            "--requests" => a.requests = it.next().and_then(|s| s.parse().ok()).unwrap_or(200),
            "--json" => a.json = true,
            other => {
                eprintln!(
                    "engram-edge-bench: unknown argument {other} (--sizes N,M --requests N --json)"
                );
                std::process::exit(2);
            }
        }
    }
    a
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn summary(mut ms: Vec<f64>) -> Value {
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    json!({"n": ms.len(), "p50_ms": round(percentile(&ms, 0.5)), "p95_ms": round(percentile(&ms, 0.95))})
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `engram-bench`'s import record `i` as an import line.
fn import_line(i: u64) -> Value {
    let r = workload::import_record(7, i);
    let mut v = serde_json::to_value(wire::CandidateIn::from(r.candidate)).unwrap_or_default();
    v["external_id"] = json!(r.external_id);
    v["kind"] = json!(r.kind.name());
    v
}

/// Seed `n` records through `POST /v1/import` in batches.
fn seed(base: &str, key: &str, n: u64) -> Duration {
    let a = scenario::agent();
    let t = Instant::now();
    let mut i = 0;
    while i < n {
        let end = (i + 500).min(n);
        let batch: Vec<Value> = (i..end).map(import_line).collect();
        let (s, v) = scenario::send(
            &a,
            "POST",
            &format!("{base}/v1/import"),
            Some(key),
            Some(&Value::Array(batch).to_string()),
        );
        assert_eq!(s, 200, "seeding failed: {v}");
        i = end;
    }
    t.elapsed()
}

/// Time single-item remember and recall requests, one at a time.
fn measure(base: &str, key: &str, requests: u64) -> (Value, Value) {
    let a = scenario::agent();
    let (mut remember, mut recall) = (Vec::new(), Vec::new());
    for i in 0..requests {
        let mut c = workload::candidate(7, 1_000_000 + i);
        c.scope = workload::scope(workload::TENANT, workload::USER);
        let body = json!([wire::CandidateIn::from(c)]).to_string();
        let t = Instant::now();
        let (s, v) = scenario::send(
            &a,
            "POST",
            &format!("{base}/v1/remember"),
            Some(key),
            Some(&body),
        );
        remember.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(s, 200, "remember: {v}");
        let body = json!([wire::QueryIn::from(workload::query(7, i))]).to_string();
        let t = Instant::now();
        let (s, v) = scenario::send(
            &a,
            "POST",
            &format!("{base}/v1/recall"),
            Some(key),
            Some(&body),
        );
        recall.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(s, 200, "recall: {v}");
    }
    (summary(remember), summary(recall))
}

/// Median instantiation of the pre-linked component, µs.
fn instantiate_us(component: &[u8]) -> (f64, f64) {
    let engine = runner::engine();
    let prepared = runner::prepare(&engine, component);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let db = KvDb::open(std::path::Path::new(":memory:"));
    let mut us: Vec<f64> = rt.block_on(async {
        let mut out = Vec::new();
        for _ in 0..200 {
            let mut store = runner::request_store(&prepared.pre, &db, &[]);
            let t = Instant::now();
            let _ = prepared
                .pre
                .instantiate_async(&mut store)
                .await
                .expect("instantiate");
            out.push(t.elapsed().as_secs_f64() * 1e6);
        }
        out
    });
    us.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    (prepared.compile.as_secs_f64() * 1e3, percentile(&us, 0.5))
}

fn main() {
    let args = args();
    let dir = std::env::temp_dir().join(format!("engram-edge-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let keys = Keys::for_scenario(
        &json!({"principal": {"tenant": workload::TENANT}, "steps": []}),
        &[],
    );
    let key = keys
        .key_for(&json!({"tenant": workload::TENANT}))
        .to_string();
    let key_file = dir.join("keys.jsonl");
    std::fs::write(&key_file, keys.file()).expect("write the key file");
    let serve_exe = std::env::current_exe()
        .expect("this binary's path")
        .with_file_name("engram-cli");
    let (compile_ms, inst_us) = instantiate_us(engram_edge::EDGE_COMPONENT);
    let mut sizes = Vec::new();
    for &n in &args.sizes {
        eprintln!("engram-edge-bench: {n} memories…");
        let db = KvDb::open(&dir.join(format!("edge-{n}.db")));
        let edge = EdgeServer::start(
            engram_edge::EDGE_COMPONENT,
            Arc::clone(&db),
            vec![
                ("ENGRAM_KEYS".into(), keys.file()),
                (
                    engram_tests::edge::SECRET_VAR.into(),
                    engram_tests::edge::FINGERPRINT_SECRET.into(),
                ),
            ],
        );
        edge.set_env("ENGRAM_NOW", workload::NOW);
        let base = format!("http://{}", edge.addr);
        let edge_seed = seed(&base, &key, n);
        let (edge_remember, edge_recall) = measure(&base, &key, args.requests);
        let kv_keys = db.keys("default").len();
        drop(edge);
        let mut srv = ServeProcess::new(
            &serve_exe.display().to_string(),
            &dir.join(format!("serve-{n}.db")).display().to_string(),
            &key_file,
            &["--rate-per-sec", "1000000", "--rate-burst", "1000000"],
        );
        srv.set_now(workload::NOW);
        let sbase = srv.base();
        let serve_seed = seed(&sbase, &key, n);
        let (serve_remember, serve_recall) = measure(&sbase, &key, args.requests);
        sizes.push(json!({
            "memories": n,
            "edge": {"seed_s": round(edge_seed.as_secs_f64()), "remember": edge_remember, "recall": edge_recall, "kv_keys": kv_keys},
            "serve": {"seed_s": round(serve_seed.as_secs_f64()), "remember": serve_remember, "recall": serve_recall},
        }));
    }
    let report = json!({
        "component_bytes": engram_edge::EDGE_COMPONENT.len(),
        "parts_bytes": {
            "policy": engram_edge::POLICY_COMPONENT.len(),
            "kv_store": engram_edge::KV_STORE_COMPONENT.len(),
            "http": engram_edge::HTTP_COMPONENT.len(),
        },
        "compile_ms": round(compile_ms),
        "instantiate_us_p50": round(inst_us),
        "requests_per_size": args.requests,
        "sizes": sizes,
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    });
    let _ = std::fs::remove_dir_all(&dir);
    if args.json {
        println!("{report}");
        return;
    }
    println!(
        "edge component {} B (policy {} B, kv-store {} B, http {} B); compile {:.0} ms; instantiate p50 {:.1} µs",
        report["component_bytes"], report["parts_bytes"]["policy"], report["parts_bytes"]["kv_store"],
        report["parts_bytes"]["http"], compile_ms, inst_us
    );
    println!("| memories | host | remember p50 / p95 ms | recall p50 / p95 ms | seed s |");
    println!("| ---: | --- | --- | --- | ---: |");
    for s in report["sizes"].as_array().into_iter().flatten() {
        for host in ["edge", "serve"] {
            let h = &s[host];
            println!(
                "| {} | {} | {} / {} | {} / {} | {} |",
                s["memories"],
                host,
                h["remember"]["p50_ms"],
                h["remember"]["p95_ms"],
                h["recall"]["p50_ms"],
                h["recall"]["p95_ms"],
                h["seed_s"]
            );
        }
    }
}
