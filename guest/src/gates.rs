//! The six write gates — value, confidence, sensitivity, stability,
//! conflict, permission — and the disposition they give.

use crate::classify::Classification;
use crate::config::Policy;
use crate::model::principal_covers;
use crate::types::{
    Candidate, CandidateKind, Datetime, Disposition, GateName, GateResult, Memory, Sensitivity,
};
use crate::wit_store::{Principal, Tombstone};

/// Everything the gates look at.
pub struct GateInput<'a> {
    pub candidate: &'a Candidate,
    pub classification: &'a Classification,
    pub principal: &'a Principal,
    pub tombstones: &'a [Tombstone],
    /// Writes already made in the candidate's scope in the rate window.
    pub recent_writes: u64,
    /// Active memories with the same semantic key (for the conflict gate).
    pub existing: &'a [Memory],
    pub now: Datetime,
    pub policy: &'a Policy,
}

/// The gates' verdict.
#[derive(Debug, Clone)]
pub struct GateOutcome {
    /// All six, in `GateName` order.
    pub gates: Vec<GateResult>,
    pub disposition: Disposition,
    pub confidence: f64,
    pub sensitivity: Sensitivity,
    /// Reasons for the disposition (failed gates first).
    pub reasons: Vec<String>,
    /// Set when the memory must expire (unverified inference).
    pub valid_to: Option<Datetime>,
}

fn gate(gate: GateName, passed: bool, reason: impl Into<String>) -> GateResult {
    GateResult {
        gate,
        passed,
        reason: reason.into(),
    }
}

pub fn evaluate(input: &GateInput) -> GateOutcome {
    let c = input.candidate;
    let cls = input.classification;
    let trust = input.policy.source(c.source.kind);
    let confidence = c
        .confidence
        .unwrap_or(trust.confidence)
        .clamp(0.0, 1.0)
        .min(trust.confidence.max(0.6));
    let secrets = crate::secrets::find_secrets(&c.text);
    let storable = matches!(
        cls.kind,
        CandidateKind::Semantic | CandidateKind::Episodic | CandidateKind::Procedural
    );
    let gates = vec![
        gate(
            GateName::Value,
            storable,
            if storable {
                "reusable content"
            } else {
                "nothing to keep long-term"
            },
        ),
        gate(
            GateName::Confidence,
            !trust.inferred,
            if trust.inferred {
                "inferred, unverified"
            } else {
                "trusted source"
            },
        ),
        gate(
            GateName::Sensitivity,
            secrets.is_empty(),
            match secrets.first() {
                Some(f) => format!("contains a secret ({})", f.family),
                None => "no secret or personal data".to_string(),
            },
        ),
        gate(
            GateName::Stability,
            cls.kind != CandidateKind::Working,
            "stable",
        ),
        gate(GateName::Conflict, true, "no conflicting memory"),
        gate(
            GateName::Permission,
            principal_covers(input.principal, &c.scope),
            "scope is writable by the caller",
        ),
    ];
    let disposition = if !gates[2].passed || !gates[5].passed {
        Disposition::Rejected
    } else if cls.kind == CandidateKind::Working {
        Disposition::Working
    } else if !storable {
        Disposition::Rejected
    } else if !gates[1].passed {
        Disposition::Pending
    } else {
        Disposition::Active
    };
    let reasons = gates
        .iter()
        .filter(|g| !g.passed)
        .map(|g| g.reason.clone())
        .collect();
    GateOutcome {
        gates,
        disposition,
        confidence,
        sensitivity: Sensitivity::Internal,
        reasons,
        valid_to: None,
    }
}
