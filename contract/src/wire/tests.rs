use serde::Serialize;

use super::*;
use crate::types as t;

fn dt(epoch_ms: i64) -> t::Datetime {
    t::Datetime {
        epoch_ms,
        offset_minutes: 480,
    }
}

fn scope() -> t::Scope {
    t::Scope {
        tenant: "acme".into(),
        user: Some("u42".into()),
        project: None,
        thread: None,
        agent: None,
    }
}

fn memory(payload: t::Payload) -> t::Memory {
    t::Memory {
        id: "m-1".into(),
        revision: 2,
        kind: t::MemoryKind::Semantic,
        scope: scope(),
        text: "payment-service 使用 PostgreSQL 16".into(),
        payload,
        provenance: t::Provenance {
            source: t::Source {
                kind: t::SourceKind::System,
                reference: Some("cmdb#91".into()),
            },
            source_event_ids: vec!["evt-1".into()],
            external_id: None,
            thread: None,
            extractor_version: "x/1".into(),
            policy_version: "p/1".into(),
        },
        confidence: 0.95,
        sensitivity: t::Sensitivity::Internal,
        observed_at: dt(1_785_000_000_000),
        valid_from: Some(dt(1_785_000_000_250)),
        valid_to: None,
        status: t::Status::Active,
        supersedes: Some(t::MemoryRef {
            id: "m-1".into(),
            revision: 1,
        }),
        superseded_by: None,
        created_at: dt(1_785_000_000_000),
        updated_at: dt(1_785_000_000_000),
        retention: t::Retention::Durable,
        access_count: 3,
        last_accessed: None,
        entities: vec![t::Entry {
            key: "service".into(),
            value: "payment-service".into(),
        }],
        embedding: Some(vec![0.25, -1.0]),
    }
}

fn payloads() -> Vec<t::Payload> {
    vec![
        t::Payload::Semantic(t::SemanticPayload {
            subject: "payment-service".into(),
            predicate: "uses".into(),
            object: "PostgreSQL 16".into(),
            condition: None,
        }),
        t::Payload::Procedural(t::ProceduralPayload {
            goal: "release".into(),
            preconditions: vec![],
            steps: vec![t::ProcedureStep {
                id: "1".into(),
                action: "back up".into(),
                required: true,
                side_effect: false,
            }],
            guards: vec![],
            recovery: vec![],
            authority: None,
        }),
        t::Payload::Episodic(t::EpisodicPayload {
            occurred_at: Some(dt(1_784_900_000_000)),
            time_expression: Some("昨天".into()),
            actors: vec![],
            context: vec![],
            actions: vec![],
            outcome: Some("failed".into()),
            success: Some(false),
        }),
    ]
}

/// Serialized text equals the text of the same value with its object keys
/// sorted (serde_json's `Value` keeps maps sorted).
fn assert_sorted<T: Serialize>(v: &T) {
    let direct = serde_json::to_string(v).unwrap();
    let sorted = serde_json::to_string(&serde_json::to_value(v).unwrap()).unwrap();
    assert_eq!(direct, sorted, "keys out of order");
}

#[test]
fn every_memory_round_trips_through_its_body() {
    for p in payloads() {
        let m = memory(p);
        let body = crate::body::encode(&m);
        assert_eq!(crate::body::decode(&body).unwrap(), m, "{body}");
        assert!(body.contains("\"embedding\":[0.25,-1.0]"), "{body}");
    }
    assert!(crate::body::decode("{\"id\":1}")
        .unwrap_err()
        .starts_with("corrupt memory body"));
}

#[test]
fn outputs_print_sorted_keys() {
    for p in payloads() {
        assert_sorted(&MemoryJson::printed(memory(p)));
    }
    let scored = t::ScoredMemory {
        memory: memory(payloads().remove(0)),
        score: 1.25,
        features: t::Features {
            similarity: 0.5,
            scope: 1.0,
            freshness: 1.0,
            authority: 0.9,
            typefit: 0.0,
            entity: 1.0,
            risk: 0.0,
            embedding: None,
        },
        admission: t::Admission {
            relevance: 0.5,
            scope_ok: true,
            time_ok: true,
            task_applicable: true,
            conflict: false,
            safety_risk: 0.0,
            admit: true,
            reason: None,
        },
    };
    assert_sorted(&RecallOut::from(t::RecallResult {
        abstention: None,
        query_id: Some("q1".into()),
        results: vec![scored.clone()],
        not_admitted: vec![scored],
        candidates_read: 3,
    }));
    assert_sorted(&DecisionOut::from(t::Decision {
        candidate_id: Some("c1".into()),
        kind: t::CandidateKind::Semantic,
        disposition: t::Disposition::Active,
        reasons: vec![t::Reason::new(
            crate::reason::ReasonCode::KindFact,
            &["persistence cue '以后'"],
        )],
        gates: t::GateName::ALL
            .iter()
            .map(|&gate| t::GateResult {
                gate,
                passed: true,
                reason: t::Reason::new(crate::reason::ReasonCode::GateStabilityStable, &[]),
            })
            .collect(),
        memory_id: Some("m-1".into()),
        revision: Some(1),
        action: t::WriteAction::Created,
        confidence: 0.95,
        sensitivity: t::Sensitivity::Personal,
        occurred_at: None,
        time_expression: None,
        policy_version: "p/1".into(),
    }));
    assert_sorted(&PackedOut::from(t::PackedContext {
        text: "x".into(),
        tokens: 1,
        budget: 2,
        sections: vec![t::PackSection {
            name: "Facts".into(),
            tokens: 1,
            items: vec!["m-1#1".into()],
        }],
        dropped: vec![t::DroppedItem {
            reference: "m-1#1".into(),
            reason: t::DropReason::NotAdmitted,
        }],
        compressed: vec![t::CompressedItem {
            reference: "tool-1".into(),
            summary: "done".into(),
        }],
    }));
    assert_sorted(&ReviewOut::from(t::ReviewOutcome {
        reviewed: t::MemoryRef {
            id: "m".into(),
            revision: 1,
        },
        verdict: t::Verdict::Approve,
        approved_as: None,
        superseded: vec![],
        reason: t::Reason::new(
            crate::reason::ReasonCode::ReviewApproved,
            &["m#1", "cli", "m#2"],
        ),
    }));
    assert_sorted(&ReceiptOut::from(t::ImportReceipt {
        external_id: "D1:3".into(),
        memory_id: "m".into(),
    }));
    assert_sorted(&SweepOut::from(t::SweepReport {
        expired: 1,
        archived: 2,
        inferences_expired: 3,
        examined: 4,
    }));
    assert_sorted(&ForgetOut::from(t::ForgetReport {
        deleted: vec![],
        cascaded: vec![],
        tombstones: 1,
    }));
    assert_sorted(&InfoOut {
        package_version: "0.1.0".into(),
        policy_version: "p".into(),
    });
    assert_sorted(&OperationReceiptOut::from(t::OperationReceipt {
        operation_id: "op_891".into(),
        action: t::OperationAction::Created,
        status: t::OperationStatus::Submitted,
        revision: 1,
    }));
    assert_sorted(&OperationStateOut::from(operation_state(true)));
    assert_sorted(&OperationStateOut::from(operation_state(false)));
}

fn operation_record() -> t::OperationRecord {
    t::OperationRecord {
        operation_id: "op_891".into(),
        scope: t::Scope {
            thread: Some("t1".into()),
            ..scope()
        },
        tool: "issue_refund".into(),
        status: t::OperationStatus::Succeeded,
        idempotency_key: Some("payment-42-order-991".into()),
        result_ref: Some("artifact://tool-results/op_891.json".into()),
        result_digest: None,
        detail: None,
        at: Some(dt(1_785_910_702_000)),
    }
}

fn operation_state(found: bool) -> t::OperationState {
    t::OperationState {
        operation_id: "op_891".into(),
        found,
        record: found.then(operation_record),
        revision: found as u32,
        history: if found {
            vec![t::OperationStep {
                status: t::OperationStatus::Succeeded,
                at: dt(1_785_910_702_000),
            }]
        } else {
            vec![]
        },
    }
}

#[test]
fn an_operation_state_prints_the_record_beside_found_revision_and_history() {
    assert_eq!(
        serde_json::to_string(&OperationStateOut::from(operation_state(false))).unwrap(),
        r#"{"found":false,"history":[],"operation_id":"op_891","revision":0}"#
    );
    assert_eq!(
        serde_json::to_string(&OperationStateOut::from(operation_state(true))).unwrap(),
        concat!(
            r#"{"at":"2026-08-05T14:18:22+08:00","detail":null,"found":true,"#,
            r#""history":[{"at":"2026-08-05T14:18:22+08:00","status":"succeeded"}],"#,
            r#""idempotency_key":"payment-42-order-991","operation_id":"op_891","#,
            r#""result_digest":null,"result_ref":"artifact://tool-results/op_891.json","#,
            r#""revision":1,"scope":{"agent":null,"project":null,"tenant":"acme","thread":"t1","user":"u42"},"#,
            r#""status":"succeeded","tool":"issue_refund"}"#
        )
    );
}

#[test]
fn an_operation_event_payload_round_trips_and_reads_leniently() {
    let r = operation_record();
    let payload = operation_payload(&r);
    assert_eq!(
        payload,
        r#"{"at":"2026-08-05T14:18:22+08:00","detail":null,"idempotency_key":"payment-42-order-991","result_digest":null,"result_ref":"artifact://tool-results/op_891.json","status":"succeeded","thread":"t1","tool":"issue_refund"}"#
    );
    let event_scope = t::Scope {
        thread: None,
        ..r.scope.clone()
    };
    // The store may keep only the instant: the payload keeps the offset.
    let utc = dt(1_785_910_702_000);
    let utc = t::Datetime {
        offset_minutes: 0,
        ..utc
    };
    assert_eq!(
        operation_from_event("op_891", &event_scope, utc, &payload),
        r
    );
    // A payload an erasure scrubbed still counts as a record.
    let scrubbed = payload.replace("succeeded", "[erased]");
    let read = operation_from_event("op_891", &event_scope, utc, &scrubbed);
    assert_eq!(read.status, t::OperationStatus::Unknown);
    assert_eq!(read.tool, "issue_refund");
    let broken = operation_from_event("op_891", &event_scope, utc, "not json");
    assert_eq!((broken.tool.as_str(), broken.at), ("", Some(utc)));
}

#[test]
fn enums_are_spelled_as_in_wit() {
    assert_eq!(t::DropReason::NotAdmitted.name(), "not-admitted");
    assert_eq!(
        serde_json::to_string(&t::DropReason::NotAdmitted).unwrap(),
        "\"not-admitted\""
    );
    for s in t::Status::ALL {
        assert_eq!(t::Status::from_name(s.name()), Some(*s));
        assert_eq!(
            serde_json::to_value(s).unwrap(),
            serde_json::Value::String(s.name().into())
        );
    }
    assert_eq!(t::Status::from_name("bogus"), None);
}

#[test]
fn entries_sort_keys_drop_nulls_and_keep_other_values_as_json() {
    let e: Entries = serde_json::from_str(r#"{"b":"x","a":2,"c":null}"#).unwrap();
    assert_eq!(
        e.0.iter()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect::<Vec<_>>(),
        vec![("a", "2"), ("b", "x")]
    );
}

/// Printed numbers are rounded for display (issue 32, item 7): float noise
/// such as 0.07500000000000002 prints as 0.075, in recall's scores and
/// features, a decision's confidence and a printed memory; the row body
/// keeps the exact value, so ranking is unchanged.
#[test]
fn printed_numbers_are_rounded_for_display() {
    let noisy = 0.025 * 3.0;
    assert_eq!(noisy, 0.07500000000000001, "the noise this test is about");
    let mut m = memory(payloads().remove(0));
    m.confidence = noisy;
    let scored = t::ScoredMemory {
        memory: m.clone(),
        score: 1.0 + noisy,
        features: t::Features {
            similarity: 0.1 + 0.2,
            scope: 1.0,
            freshness: 0.9699999999999999,
            authority: noisy,
            typefit: 0.0,
            entity: 1.0,
            risk: -1e-9,
            embedding: Some(noisy),
        },
        admission: t::Admission {
            relevance: 0.07500000000000002,
            scope_ok: true,
            time_ok: true,
            task_applicable: true,
            conflict: false,
            safety_risk: 2.0 / 3.0,
            admit: true,
            reason: None,
        },
    };
    let v = serde_json::to_value(ScoredOut::from(scored)).unwrap();
    assert_eq!(v["score"], 1.075);
    assert_eq!(
        v["features"],
        serde_json::json!({"authority":0.075,"embedding":0.075,"entity":1.0,"freshness":0.97,
            "risk":0.0,"scope":1.0,"similarity":0.3,"typefit":0.0})
    );
    let text = serde_json::to_string(&v["admission"]).unwrap();
    assert!(
        text.contains(r#""relevance":0.075,"#) && text.contains(r#""safety_risk":0.6667,"#),
        "{text}"
    );
    assert!(!serde_json::to_string(&v["features"])
        .unwrap()
        .contains("-0.0"));

    let printed = serde_json::to_string(&MemoryJson::printed(m.clone())).unwrap();
    assert!(printed.contains(r#""confidence":0.075,"#), "{printed}");
    let body = crate::body::encode(&m);
    assert_eq!(
        crate::body::decode(&body).unwrap().confidence,
        noisy,
        "{body}"
    );

    let decision = DecisionOut::from(t::Decision {
        candidate_id: None,
        kind: t::CandidateKind::Semantic,
        disposition: t::Disposition::Active,
        reasons: Vec::new(),
        gates: Vec::new(),
        memory_id: None,
        revision: None,
        action: t::WriteAction::None,
        confidence: 0.07500000000000002,
        sensitivity: t::Sensitivity::Internal,
        occurred_at: None,
        time_expression: None,
        policy_version: "p/1".into(),
    });
    let text = serde_json::to_string(&decision).unwrap();
    assert!(text.contains(r#""confidence":0.075,"#), "{text}");
}

#[test]
fn a_reason_prints_its_code_its_detail_by_slot_name_and_its_text() {
    let r = t::Reason::new(
        crate::reason::ReasonCode::GateConfidenceBelowFloor,
        &["agent-inferred", "0.20", "0.30"],
    );
    let json = serde_json::to_value(super::common::Reason::from(r)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "code": "gate.confidence.below-floor",
            "detail": {"confidence": "0.20", "floor": "0.30", "source": "agent-inferred"},
            "text": "agent-inferred: confidence 0.20 below the floor 0.30",
        })
    );
}
