//! A native stand-in for `engram classify` / `engram remember` over the
//! in-memory store, for developing the classifier without the host:
//!
//! ```text
//! cargo run --example classify_jsonl -- classify < candidates.jsonl
//! python3 score_classify.py run DEV.jsonl --engram "target/debug/examples/classify_jsonl"
//! ```
//!
//! Reads candidate lines (SPEC §4), writes one decision line per candidate.
//! Each candidate is decided against a store opened for its own tenant.
//! `remember` stores them (one store per tenant, kept for the whole run).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::FixedClock;
use engram_guest::testing::memstore::MemStore;
use engram_guest::types::*;
use serde_json::{json, Map, Value};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let remember = args.iter().any(|a| a == "remember");
    let now = args
        .iter()
        .position(|a| a == "--now")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| engram_guest::core::time::parse_rfc3339(s));
    let stdin = std::io::stdin();
    let policy = Policy::default();
    let mut stores: BTreeMap<String, MemStore> = BTreeMap::new();
    let mut out = std::io::stdout().lock();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.expect("read stdin");
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("line {}: {e}", n + 1);
                std::process::exit(2);
            }
        };
        let c: Candidate = match serde_json::from_value::<engram_contract::wire::CandidateIn>(v) {
            Ok(c) => c.into(),
            Err(e) => {
                eprintln!("line {}: {e}", n + 1);
                std::process::exit(2);
            }
        };
        let clock_now = now.or(c.observed_at).unwrap_or(Datetime {
            epoch_ms: 0,
            offset_minutes: 0,
        });
        let store = stores
            .entry(c.scope.tenant.clone())
            .or_insert_with(|| MemStore::for_tenant(&c.scope.tenant));
        let clock = FixedClock(clock_now);
        let ctx = Ctx {
            store,
            clock: &clock,
            policy: &policy,
        };
        let result = if remember {
            engram_guest::write::remember::remember(&ctx, std::slice::from_ref(&c))
        } else {
            engram_guest::write::remember::classify(&ctx, std::slice::from_ref(&c))
        };
        match result {
            Ok(ds) => {
                for d in ds {
                    writeln!(out, "{}", decision_json(&d)).expect("write stdout");
                }
            }
            Err(e) => {
                eprintln!("line {}: {e:?}", n + 1);
                std::process::exit(1);
            }
        }
    }
}

fn kind_name(k: CandidateKind) -> &'static str {
    engram_guest::core::model::candidate_kind_name(k)
}

fn decision_json(d: &Decision) -> Value {
    let mut gates = Map::new();
    for g in &d.gates {
        gates.insert(
            g.gate.name().to_string(),
            json!({"passed": g.passed, "reason": g.reason.text}),
        );
    }
    json!({
        "id": d.candidate_id,
        "kind": kind_name(d.kind),
        "disposition": match d.disposition {
            Disposition::Active => "active",
            Disposition::Pending => "pending",
            Disposition::Working => "working",
            Disposition::Rejected => "rejected",
        },
        "reasons": d.reasons.iter().map(|r| r.text.as_str()).collect::<Vec<_>>(),
        "gates": gates,
        "memory_id": d.memory_id,
        "revision": d.revision,
        "action": match d.action {
            WriteAction::Created => "created",
            WriteAction::Superseded => "superseded",
            WriteAction::Duplicate => "duplicate",
            WriteAction::Conflicted => "conflicted",
            WriteAction::None => "none",
        },
        "confidence": d.confidence,
        "sensitivity": format!("{:?}", d.sensitivity).to_lowercase(),
        "occurred_at": d.occurred_at.map(engram_guest::core::time::rfc3339),
        "time_expression": d.time_expression,
        "policy_version": d.policy_version,
    })
}
