//! The confidence gate: the caller's confidence, capped by the source's
//! trust and lowered by hedges; below the floor it is rejected; an
//! unverified inference, steps from an untrusted source, a procedure
//! generalised from a single success, untrusted text kept on an unsure
//! learned reading, a confidence below the active threshold or a
//! second-hand claim (hearsay) go to review.

use crate::core::time::{add_ms, MS_PER_DAY};
use crate::types::{CandidateKind, Datetime, Reason};
use crate::write::gates::check::{Check, Context, GateInput};
use crate::write::gates::effect::Effect;
use engram_contract::reason::ReasonCode;

/// The candidate's confidence: the caller's, capped by the source's trust;
/// hedges lower it.
pub fn score(input: &GateInput) -> f64 {
    let c = input.candidate;
    let trust = input.policy.source(c.source.kind);
    let mut confidence = c
        .confidence
        .filter(|x| x.is_finite())
        .unwrap_or(trust.confidence)
        .clamp(0.0, 1.0)
        .min(trust.confidence);
    if input.classification.signals.hedge.is_some() {
        confidence = (confidence - input.policy.write.hedge_penalty).max(0.0);
    }
    confidence
}

/// When an unverified inference expires.
pub fn expiry(ctx: &Context) -> Option<Datetime> {
    let ttl = ctx.policy().inference_ttl_days;
    (ctx.trust.inferred && ctx.storable)
        .then(|| add_ms(ctx.input.now, ttl.saturating_mul(MS_PER_DAY)))
}

pub fn check(ctx: &Context) -> Check {
    let sig = ctx.signals();
    let wp = &ctx.policy().write;
    let ttl = ctx.policy().inference_ttl_days;
    let (label, storable) = (ctx.label, ctx.storable);
    let confidence = format!("{:.2}", ctx.confidence);
    if storable && ctx.confidence < wp.reject_below_confidence {
        let floor = format!("{:.2}", wp.reject_below_confidence);
        return Check::fail(
            Effect::Reject,
            Reason::new(
                ReasonCode::GateConfidenceBelowFloor,
                &[label, &confidence, &floor],
            ),
        );
    }
    if ctx.trust.inferred {
        let days = ttl.to_string();
        return Check::fail(
            Effect::Review,
            match &sig.hedge {
                Some(h) => Reason::new(
                    ReasonCode::GateConfidenceInferenceHedged,
                    &[label, &confidence, h, &days],
                ),
                None => Reason::new(
                    ReasonCode::GateConfidenceInference,
                    &[label, &confidence, &days],
                ),
            },
        );
    }
    if storable && sig.untrusted_steps.is_some() {
        return Check::fail(
            Effect::Review,
            Reason::new(ReasonCode::GateConfidenceUntrustedSteps, &[label]),
        );
    }
    // Untrusted text kept on an unsure learned reading: never active on a
    // margin (SPEC 3.2).
    if let (true, Some(u)) = (storable, &sig.unsure_untrusted) {
        let margin = format!("{:.1}", u.margin);
        let needed = format!("{:.1}", u.needed);
        return Check::fail(
            Effect::Review,
            Reason::new(
                ReasonCode::GateConfidenceUnsureUntrusted,
                &[
                    label,
                    crate::core::model::candidate_kind_name(u.leans),
                    &margin,
                    &needed,
                ],
            ),
        );
    }
    if let (true, Some(cue)) = (ctx.kind() == CandidateKind::Procedural, &sig.single_success) {
        return Check::fail(
            Effect::Review,
            Reason::new(ReasonCode::GateConfidenceSingleSuccess, &[cue]),
        );
    }
    if storable && ctx.confidence < wp.active_min_confidence {
        let threshold = format!("{:.2}", wp.active_min_confidence);
        return Check::fail(
            Effect::Review,
            Reason::new(
                ReasonCode::GateConfidenceBelowActive,
                &[label, &confidence, &threshold],
            ),
        );
    }
    // What the speaker only heard is not evidence of itself (SPEC 3.2:
    // written when evidenced): kept for review until it is confirmed.
    if let (true, Some(cue)) = (storable, ctx.cue(wp.cues.hearsay)) {
        return Check::fail(
            Effect::Review,
            Reason::new(ReasonCode::GateConfidenceHearsay, &[cue]),
        );
    }
    Check::pass(match &sig.hedge {
        Some(h) => Reason::new(ReasonCode::GateConfidenceOkHedged, &[label, &confidence, h]),
        None => Reason::new(ReasonCode::GateConfidenceOk, &[label, &confidence]),
    })
}
