//! Native recall harness: loads CLI-shaped `import.jsonl` into the in-memory
//! store, runs `queries.jsonl` through `recall::recall`, and writes the
//! CLI-shaped output (`{"id","results":[{"external_id",…}]}`) so the bench
//! scorers can score it without building the host.
//!
//! usage: cargo run --release --example recall_bench -- IMPORT QUERIES OUT

use std::io::{BufRead, BufReader, Write};
use std::time::Instant;

use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::FixedClock;
use engram_guest::testing::memstore::MemStore;
use engram_guest::types::{
    Candidate, Datetime, ImportRecord, MemoryKind, Query, Scope, Source, SourceKind,
};
use serde_json::Value;

fn parse_datetime(s: &str) -> Option<Datetime> {
    // YYYY-MM-DDTHH:MM:SS(.fff)?(Z|±HH:MM)?
    let b = s.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(|x| x.parse::<i64>().ok());
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (mut h, mut mi, mut se) = (0, 0, 0);
    let mut rest = "";
    if b.len() >= 19 {
        h = num(11..13)?;
        mi = num(14..16)?;
        se = num(17..19)?;
        rest = &s[19..];
    }
    let rest = rest.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let off: i64 = if rest.is_empty() || rest == "Z" {
        0
    } else {
        let sign = if rest.starts_with('-') { -1 } else { 1 };
        let hh: i64 = rest.get(1..3)?.parse().ok()?;
        let mm: i64 = rest.get(4..6).and_then(|x| x.parse().ok()).unwrap_or(0);
        sign * (hh * 60 + mm)
    };
    let days = engram_guest::core::time::days_from_civil(y, mo as u32, d as u32);
    let local = days * 86_400_000 + (h * 3600 + mi * 60 + se) * 1000;
    Some(Datetime {
        epoch_ms: local - off * 60_000,
        offset_minutes: off as i32,
    })
}

/// A JSON object's members as entries, as the contract reads them.
fn entries(v: Option<&Value>) -> Vec<engram_guest::types::Entry> {
    v.cloned()
        .and_then(|v| serde_json::from_value::<engram_contract::wire::Entries>(v).ok())
        .map(|e| e.0)
        .unwrap_or_default()
}

fn opt_str(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(|x| x.as_str()).map(str::to_string)
}

fn scope(v: &Value) -> Scope {
    Scope {
        tenant: opt_str(v, "tenant").unwrap_or_default(),
        user: opt_str(v, "user"),
        project: opt_str(v, "project"),
        thread: opt_str(v, "thread"),
        agent: opt_str(v, "agent"),
    }
}

fn kind(s: &str) -> MemoryKind {
    match s {
        "semantic" => MemoryKind::Semantic,
        "procedural" => MemoryKind::Procedural,
        _ => MemoryKind::Episodic,
    }
}

fn record(v: &Value) -> ImportRecord {
    let src = v.get("source").cloned().unwrap_or(Value::Null);
    ImportRecord {
        external_id: opt_str(v, "external_id").unwrap_or_default(),
        kind: kind(&opt_str(v, "kind").unwrap_or_default()),
        candidate: Candidate {
            id: None,
            text: opt_str(v, "text").unwrap_or_default(),
            scope: scope(v.get("scope").unwrap_or(&Value::Null)),
            source: Source {
                kind: SourceKind::User,
                reference: opt_str(&src, "ref"),
            },
            observed_at: opt_str(v, "observed_at").and_then(|s| parse_datetime(&s)),
            confidence: None,
            kind_hint: None,
            subject: opt_str(v, "subject"),
            predicate: opt_str(v, "predicate"),
            object: opt_str(v, "object"),
            condition: opt_str(v, "condition"),
            occurred_at: opt_str(v, "occurred_at").and_then(|s| parse_datetime(&s)),
            valid_from: None,
            valid_to: None,
            entities: entries(v.get("entities")),
            embedding: None,
        },
    }
}

fn query(v: &Value) -> Query {
    Query {
        id: opt_str(v, "id"),
        text: opt_str(v, "query").unwrap_or_default(),
        scope: scope(v.get("scope").unwrap_or(&Value::Null)),
        k: v.get("k").and_then(|x| x.as_u64()).unwrap_or(10) as u32,
        as_of: opt_str(v, "as_of").and_then(|s| parse_datetime(&s)),
        kinds: Vec::new(),
        entities: entries(v.get("entities")),
        embedding: None,
        sensitivity_ceiling: None,
        explain_rejected: false,
    }
}

fn read_jsonl(path: &str) -> Vec<Value> {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    BufReader::new(f)
        .lines()
        .map_while(Result::ok)
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(&l).expect("json"))
        .collect()
}

/// Experiment knobs: `TUNE="entity=0.1 freshness=0"` overrides rank weights.
fn tune(p: &mut Policy) {
    let Ok(spec) = std::env::var("TUNE") else {
        return;
    };
    for kv in spec.split_whitespace() {
        let Some((k, v)) = kv.split_once('=') else {
            continue;
        };
        let x: f64 = v.parse().expect("number");
        let r = &mut p.rank;
        match k {
            "similarity" => r.similarity = x,
            "scope" => r.scope = x,
            "freshness" => r.freshness = x,
            "authority" => r.authority = x,
            "typefit" => r.typefit = x,
            "entity" => r.entity = x,
            "mentioned" => r.entity_mentioned = x,
            "risk" => r.risk = x,
            "k1" => r.bm25_k1 = x,
            "b" => r.bm25_b = x,
            "k3" => r.query_k3 = x,
            "uni" => r.cjk_unigram = x,
            "agent" => r.agent_turn = x,
            "probes" => r.entity_probe_limit = x as usize,
            "named_time" => r.named_time = x,
            "context" => r.context = x,
            "expand" => r.context_expand = x as usize,
            "limit" => p.recall_candidate_limit = x as u32,
            "half_life" => {
                for d in p.decay.iter_mut() {
                    if d.half_life_days.is_some() {
                        d.half_life_days = Some(x);
                    }
                }
            }
            _ => panic!("unknown knob {k}"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: recall_bench IMPORT QUERIES OUT");
        std::process::exit(2);
    }
    let records: Vec<ImportRecord> = read_jsonl(&args[1]).iter().map(record).collect();
    let queries: Vec<Query> = read_jsonl(&args[2]).iter().map(query).collect();
    let tenant = records
        .first()
        .map(|r| r.candidate.scope.tenant.clone())
        .unwrap_or_default();
    let store = MemStore::for_tenant(&tenant);
    let clock = FixedClock(parse_datetime("2026-01-01T00:00:00Z").expect("now"));
    let mut policy = Policy::default();
    tune(&mut policy);
    let ctx = Ctx {
        store: &store,
        clock: &clock,
        policy: &policy,
    };
    let t0 = Instant::now();
    let receipts = engram_guest::write::remember::import_records(&ctx, &records).expect("import");
    let t1 = Instant::now();
    let results = engram_guest::read::recall::recall(&ctx, &queries).expect("recall");
    let t2 = Instant::now();
    let mut out = std::fs::File::create(&args[3]).expect("out");
    let mut read = 0u64;
    for r in &results {
        read += r.candidates_read as u64;
        let items: Vec<Value> = r
            .results
            .iter()
            .map(|s| {
                serde_json::json!({
                    "external_id": s.memory.provenance.external_id,
                    "score": s.score,
                })
            })
            .collect();
        let line = serde_json::json!({"id": r.query_id, "results": items});
        writeln!(out, "{line}").expect("write");
    }
    eprintln!(
        "imported {} in {:.2}s; {} queries in {:.2}s ({:.2} ms/query, {:.0} candidates/query)",
        receipts.len(),
        (t1 - t0).as_secs_f64(),
        queries.len(),
        (t2 - t1).as_secs_f64(),
        1000.0 * (t2 - t1).as_secs_f64() / queries.len().max(1) as f64,
        read as f64 / queries.len().max(1) as f64
    );
}
