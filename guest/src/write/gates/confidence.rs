//! The confidence gate: the caller's confidence, capped by the source's
//! trust and lowered by hedges; below the floor it is rejected; an
//! unverified inference, steps from an untrusted source, a procedure
//! generalised from a single success or a confidence below the active
//! threshold go to review.

use crate::core::time::{add_ms, MS_PER_DAY};
use crate::types::{CandidateKind, Datetime};
use crate::write::gates::check::{Check, Context, GateInput};
use crate::write::gates::effect::Effect;

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
    let (label, confidence, storable) = (ctx.label, ctx.confidence, ctx.storable);
    let hedge = || {
        sig.hedge
            .as_ref()
            .map(|h| format!(" (hedged '{h}')"))
            .unwrap_or_default()
    };
    if storable && confidence < wp.reject_below_confidence {
        return Check::fail(
            Effect::Reject,
            format!(
                "{label}: confidence {confidence:.2} below the floor {:.2}",
                wp.reject_below_confidence
            ),
        );
    }
    if ctx.trust.inferred {
        let hedge = hedge();
        return Check::fail(
            Effect::Review,
            format!(
                "{label}: confidence {confidence:.2}{hedge}, unverified inference; pending until verified, expires in {ttl} days"
            ),
        );
    }
    if let (true, Some(why)) = (storable, &sig.untrusted_steps) {
        return Check::fail(Effect::Review, format!("{why}: pending review"));
    }
    if let (true, Some(cue)) = (ctx.kind() == CandidateKind::Procedural, &sig.single_success) {
        return Check::fail(
            Effect::Review,
            format!("procedure generalised from a single success ('{cue}'): pending review"),
        );
    }
    if storable && confidence < wp.active_min_confidence {
        return Check::fail(
            Effect::Review,
            format!(
                "{label}: confidence {confidence:.2} below {:.2}: pending review",
                wp.active_min_confidence
            ),
        );
    }
    Check::pass(format!("{label}: confidence {confidence:.2}{}", hedge()))
}
