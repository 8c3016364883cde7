//! The six write gates — value, confidence, sensitivity, stability,
//! conflict, permission (seed 003 "六道门", seed 000 §五, seed 002 §7.9 and
//! §7.21) — and the disposition they give:
//!
//! - `rejected`: a secret or credential (whatever the source), erased
//!   content (a tombstone), gated personal data without an explicit ask,
//!   a prompt injection (text from an untrusted carrier — document, tool
//!   output, or a document quoted in a message — that addresses the
//!   assistant; rejected rather than quarantined, see `injection`), a scope the caller
//!   may not write, the scope's write-rate limit, confidence below the floor,
//!   or nothing worth keeping;
//! - `working`: valid only for the current task (kept in task state);
//! - `pending`: stored for review, never used for decisions — inferences
//!   (behaviour, agent; they also expire unless verified), low confidence,
//!   steps from an untrusted source that are not an injection (data, not
//!   instructions),
//!   a procedure generalised from a single success, personal data the user
//!   explicitly asked to keep, a rule that removes a safety guard;
//! - `active` otherwise.
//!
//! The rule for sensitive personal data (ID numbers, cards, bank accounts,
//! health conditions) is the sensitivity gate's (`sensitivity.rs`).
//!
//! One file per gate, each a typed check (`check::Check`: passed, the
//! effect it asks of the disposition, its reason); `GATES` runs them in
//! `GateName` order and `effect::fold` folds their effects once, by the
//! precedence written in `effect::PRECEDENCE`.

pub mod check;
pub mod confidence;
pub mod conflict;
pub mod effect;
pub mod permission;
pub mod sensitivity;
pub mod stability;
pub mod value;

use crate::core::model::source_label;
use crate::types::{
    CandidateKind, Datetime, Disposition, GateName, GateResult, Reason, Sensitivity,
};
pub use check::GateInput;
use check::{Check, Context};

/// A gate's check: what it answers for a candidate.
pub type GateCheck = fn(&Context) -> Check;

/// The six gates, in `GateName` order, each with its check.
pub const GATES: [(GateName, GateCheck); 6] = [
    (GateName::Value, value::check),
    (GateName::Confidence, confidence::check),
    (GateName::Sensitivity, sensitivity::check),
    (GateName::Stability, stability::check),
    (GateName::Conflict, conflict::check),
    (GateName::Permission, permission::check),
];

/// The gates' verdict.
#[derive(Debug, Clone)]
pub struct GateOutcome {
    /// All six, in `GateName` order.
    pub gates: Vec<GateResult>,
    pub disposition: Disposition,
    pub confidence: f64,
    pub sensitivity: Sensitivity,
    /// Reasons for the disposition (failed gates, in gate order), each
    /// said with its gate's name.
    pub reasons: Vec<Reason>,
    /// Set when the memory must expire (unverified inference).
    pub valid_to: Option<Datetime>,
}

pub fn evaluate(input: &GateInput) -> GateOutcome {
    let source = input.candidate.source.kind;
    let ctx = Context {
        input,
        confidence: confidence::score(input),
        trust: input.policy.source(source),
        label: source_label(source),
        storable: matches!(
            input.classification.kind,
            CandidateKind::Semantic | CandidateKind::Episodic | CandidateKind::Procedural
        ),
    };
    let checks: Vec<(GateName, Check)> = GATES.iter().map(|(g, check)| (*g, check(&ctx))).collect();
    let disposition = effect::fold(checks.iter().map(|(_, c)| c.effect));
    let mut reasons: Vec<Reason> = checks
        .iter()
        .filter(|(_, c)| !c.passed)
        .map(|(_, c)| c.reason.in_decision())
        .collect();
    reasons.extend(sensitivity::restated(&ctx));
    GateOutcome {
        gates: checks
            .into_iter()
            .map(|(gate, c)| GateResult {
                gate,
                passed: c.passed,
                reason: c.reason,
            })
            .collect(),
        disposition,
        confidence: ctx.confidence,
        sensitivity: sensitivity::level(&ctx),
        reasons,
        valid_to: confidence::expiry(&ctx),
    }
}

#[cfg(test)]
mod tests;
