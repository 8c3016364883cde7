//! The sensitivity gate: secrets, erased content, personal data — and the
//! memory's sensitivity.
//!
//! A secret or credential is rejected whatever the source; so is content a
//! tombstone blocks. The rule for sensitive personal data (ID numbers,
//! cards, bank accounts, health conditions): without an explicit ask from
//! the user ("remember my…", "记住我…") it is `rejected`, whatever the kind
//! — task state too; with one it is stored `pending` and unredacted, with
//! sensitivity `sensitive`: redacting would destroy the value the user
//! asked to keep, `pending` is the consent step (a person confirms it
//! before any use), and `sensitive` is above recall's default ceiling, so
//! it is never recalled unless a caller raises the ceiling. Contact data
//! (phone numbers) follows the same rule for lasting memory but may stay
//! in task state, redacted.

use crate::core::model::sensitivity_rank;
use crate::lifecycle::tombstone::Verdict;
use crate::types::{CandidateKind, Sensitivity};
use crate::write::gates::check::{list, Check, Context};
use crate::write::gates::effect::Effect;

/// The memory's sensitivity: personal in a user's scope, internal
/// otherwise, raised by the personal data found; `sensitive` with a secret.
pub fn level(ctx: &Context) -> Sensitivity {
    let sig = ctx.signals();
    if !sig.secrets.is_empty() {
        return Sensitivity::Sensitive;
    }
    let mut sensitivity = if ctx.candidate().scope.user.is_some() {
        Sensitivity::Personal
    } else {
        Sensitivity::Internal
    };
    for f in &sig.personal {
        if sensitivity_rank(f.sensitivity()) > sensitivity_rank(sensitivity) {
            sensitivity = f.sensitivity();
        }
    }
    sensitivity
}

/// Admitting erased content again is always said among the reasons,
/// whatever else decides.
pub fn restated(ctx: &Context) -> Option<String> {
    match ctx.input.erasure {
        Verdict::Restated(why) => Some(format!("sensitivity gate: {why}")),
        _ => None,
    }
}

pub fn check(ctx: &Context) -> Check {
    let sig = ctx.signals();
    if !sig.secrets.is_empty() {
        return Check::fail(
            Effect::Reject,
            format!(
                "secret: {} — never stored, whatever the source",
                list(sig.secrets.iter().map(|f| f.describe()))
            ),
        );
    }
    if let Some(why) = ctx.input.erasure.blocked() {
        return Check::fail(Effect::Reject, why);
    }
    let gated: Vec<_> = sig.personal.iter().filter(|f| f.gated()).collect();
    let described = || list(gated.iter().map(|f| f.describe()));
    if !gated.is_empty() {
        let sensitive_data = gated
            .iter()
            .any(|f| f.sensitivity() == Sensitivity::Sensitive);
        let working = ctx.kind() == CandidateKind::Working;
        match &sig.explicit_ask {
            None if ctx.storable || (working && sensitive_data) => {
                return Check::fail(
                    Effect::Reject,
                    format!(
                        "personal data: {} without an explicit ask to remember",
                        described()
                    ),
                );
            }
            Some(ask) if ctx.storable => {
                return Check::fail(
                    Effect::Review,
                    format!(
                        "personal data: {} with an explicit ask ('{ask}'): pending review, stored unredacted as sensitive (never recalled by default)",
                        described()
                    ),
                );
            }
            _ => {
                return Check::pass(format!(
                    "personal data: {}: task state only, stored redacted",
                    described()
                ))
            }
        }
    }
    if let Verdict::Restated(why) = ctx.input.erasure {
        return Check::pass(format!("no secrets; {why}"));
    }
    if !sig.personal.is_empty() {
        return Check::pass(format!(
            "no secrets; personal contact data ({}) raises sensitivity to personal",
            list(sig.personal.iter().map(|f| f.describe()))
        ));
    }
    Check::pass("no secrets or sensitive personal data")
}
