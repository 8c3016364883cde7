//! The policy's reasons are the contract's vocabulary
//! (`contract/reasons.txt`): every code is emitted somewhere in the policy
//! or marked reserved, and every reason the policy gives on the project's
//! own labelled candidates is a known code whose text is the one its
//! detail renders (a gate's, in a decision's reasons, after its gate's
//! name).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use engram_contract::reason::{render, render_in_decision, ReasonCode};
use engram_guest::contract::Operations;
use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::FixedClock;
use engram_guest::testing::memstore::MemStore;
use serde_json::Value;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("guest/src is readable")
        .flatten()
    {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.ends_with("tests") {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && !name.contains("tests") {
            out.push(path);
        }
    }
}

#[test]
fn every_code_is_emitted_by_the_policy_or_reserved() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let text: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("a source file"))
        .collect();
    for code in ReasonCode::ALL {
        let named = text.contains(&format!("ReasonCode::{code:?}"));
        if code.reserved() {
            assert!(!named, "{code} is marked reserved but the policy emits it");
        } else {
            assert!(
                named,
                "{code} is emitted nowhere in guest/src: use it, or mark it `reserved` in contract/reasons.txt"
            );
        }
    }
}

/// The code of a printed reason, checked to be the vocabulary's and to
/// render to its text (`in_decision`: as a decision's reasons say it).
fn checked(reason: &Value, in_decision: bool) -> ReasonCode {
    let code = reason["code"].as_str().unwrap_or_default();
    let code = ReasonCode::parse(code).unwrap_or_else(|| panic!("unknown code in {reason}"));
    let detail = reason["detail"].as_object().expect("a detail object");
    assert_eq!(
        detail.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        code.slots().iter().copied().collect::<BTreeSet<_>>(),
        "{reason}"
    );
    let values: Vec<&str> = code
        .slots()
        .iter()
        .map(|s| detail[*s].as_str().unwrap_or_default())
        .collect();
    let text = if in_decision {
        render_in_decision(code, &values)
    } else {
        render(code, &values)
    };
    assert_eq!(reason["text"], text, "{reason}");
    code
}

const CANDIDATE: &[&str] = &[
    "id",
    "text",
    "scope",
    "source",
    "observed_at",
    "confidence",
    "kind_hint",
    "subject",
    "predicate",
    "object",
    "condition",
    "occurred_at",
    "valid_from",
    "valid_to",
    "entities",
    "embedding",
];

#[test]
fn every_reason_given_on_the_labelled_candidates_renders_from_its_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut input = String::new();
    for entry in std::fs::read_dir(&dir).expect("testdata").flatten() {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !(name.ends_with(".jsonl")
            && (name.starts_with("classify-") || name.starts_with("gate-")))
        {
            continue;
        }
        for line in std::fs::read_to_string(&path).expect("a data file").lines() {
            let Ok(mut v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            // The candidate's own fields (the files add labels beside them).
            if let Some(o) = v.as_object_mut() {
                o.retain(|k, _| CANDIDATE.contains(&k.as_str()));
            }
            v["scope"]["tenant"] = "acme".into();
            input.push_str(&v.to_string());
            input.push('\n');
        }
    }
    let store = MemStore::for_tenant("acme");
    let clock = FixedClock(engram_contract::time::parse("2026-09-01T10:00:00+08:00").unwrap());
    let policy = Policy::default();
    let ctx = Ctx {
        store: &store,
        clock: &clock,
        policy: &policy,
    };
    let mut seen = BTreeSet::new();
    let out = engram_contract::call(&Operations(&ctx), "remember", &input).expect("remember");
    let mut decisions = 0;
    for line in out.lines() {
        let d: Value = serde_json::from_str(line).expect("a decision line");
        decisions += 1;
        for r in d["reasons"].as_array().expect("reasons") {
            seen.insert(checked(r, true));
        }
        for (gate, verdict) in d["gates"].as_object().expect("gates") {
            let code = checked(&verdict["reason"], false);
            assert!(
                code.gate() == Some(gate.as_str())
                    || (gate == "conflict" && code.stage() == "resolve"),
                "the {gate} gate gave {code}"
            );
            seen.insert(code);
        }
    }
    assert!(decisions > 1000, "{decisions} decisions");
    // The labelled candidates reach most of the write path's vocabulary.
    let write_codes = ReasonCode::ALL
        .iter()
        .filter(|c| !matches!(c.stage(), "admission" | "review"))
        .count();
    assert!(
        seen.len() * 2 > write_codes,
        "only {} of {write_codes} codes seen: {seen:?}",
        seen.len()
    );
}
