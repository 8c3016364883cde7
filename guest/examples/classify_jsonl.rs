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
        .and_then(|s| parse_time(s));
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
        let c = match candidate(&v) {
            Ok(c) => c,
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

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn candidate(v: &Value) -> Result<Candidate, String> {
    let scope = v.get("scope").ok_or("missing scope")?;
    let source = v.get("source").ok_or("missing source")?;
    let kind = match source.get("kind").and_then(Value::as_str) {
        Some("user") => SourceKind::User,
        Some("system") => SourceKind::System,
        Some("document") => SourceKind::Document,
        Some("tool") => SourceKind::Tool,
        Some("behavior") => SourceKind::Behavior,
        Some("agent") => SourceKind::Agent,
        other => return Err(format!("source.kind: {other:?}")),
    };
    let time = |k: &str| -> Result<Option<Datetime>, String> {
        match s(v, k) {
            Some(t) => parse_time(&t)
                .map(Some)
                .ok_or(format!("{k}: not RFC 3339: {t}")),
            None => Ok(None),
        }
    };
    Ok(Candidate {
        id: s(v, "id"),
        text: s(v, "text").ok_or("missing text")?,
        scope: Scope {
            tenant: s(scope, "tenant").ok_or("missing scope.tenant")?,
            user: s(scope, "user"),
            project: s(scope, "project"),
            thread: s(scope, "thread"),
            agent: s(scope, "agent"),
        },
        source: Source {
            kind,
            reference: s(source, "ref"),
        },
        observed_at: time("observed_at")?,
        confidence: v.get("confidence").and_then(Value::as_f64),
        kind_hint: match s(v, "kind_hint").as_deref() {
            Some("semantic") => Some(CandidateKind::Semantic),
            Some("episodic") => Some(CandidateKind::Episodic),
            Some("procedural") => Some(CandidateKind::Procedural),
            Some("working") => Some(CandidateKind::Working),
            Some("none") => Some(CandidateKind::None),
            None => None,
            Some(o) => return Err(format!("kind_hint: {o}")),
        },
        subject: s(v, "subject"),
        predicate: s(v, "predicate"),
        object: s(v, "object"),
        condition: s(v, "condition"),
        occurred_at: time("occurred_at")?,
        valid_from: time("valid_from")?,
        valid_to: time("valid_to")?,
        entities: v
            .get("entities")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, x)| Entry {
                        key: k.clone(),
                        value: x
                            .as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| x.to_string()),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        embedding: v.get("embedding").and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_f64)
                .map(|x| x as f32)
                .collect()
        }),
    })
}

/// RFC 3339: `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
fn parse_time(t: &str) -> Option<Datetime> {
    let b = t.as_bytes();
    let num = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut i = 19;
    let mut ms = 0;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let frac = t.get(start..i)?;
        ms = format!("{frac:0<3}").get(..3)?.parse::<i64>().ok()?;
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let oh = num(i + 1..i + 3)?;
            let om = num(i + 4..i + 6)?;
            let o = (oh * 60 + om) as i32;
            if *sign == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    let days = engram_guest::core::time::days_from_civil(y, mo as u32, d as u32);
    let local = days * 86_400_000 + ((h * 60 + mi) * 60 + sec) * 1000 + ms;
    Some(Datetime {
        epoch_ms: local - offset as i64 * 60_000,
        offset_minutes: offset,
    })
}

fn kind_name(k: CandidateKind) -> &'static str {
    engram_guest::core::model::candidate_kind_name(k)
}

fn decision_json(d: &Decision) -> Value {
    let mut gates = Map::new();
    for g in &d.gates {
        gates.insert(
            engram_guest::write::gates::gate_name(g.gate).to_string(),
            json!({"passed": g.passed, "reason": g.reason}),
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
        "reasons": d.reasons,
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
