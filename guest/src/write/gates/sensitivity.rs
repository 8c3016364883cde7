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

use crate::lifecycle::tombstone::Verdict;
use crate::types::{CandidateKind, Reason, Sensitivity};
use crate::write::gates::check::{list, Check, Context};
use crate::write::gates::effect::Effect;
use engram_contract::reason::ReasonCode;

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
        if f.sensitivity().rank() > sensitivity.rank() {
            sensitivity = f.sensitivity();
        }
    }
    sensitivity
}

/// Admitting erased content again is always said among the reasons,
/// whatever else decides.
pub fn restated(ctx: &Context) -> Option<Reason> {
    match ctx.input.erasure {
        Verdict::Restated(erased) => {
            Some(Reason::new(ReasonCode::GateSensitivityRestatement, &[erased]).in_decision())
        }
        _ => None,
    }
}

pub fn check(ctx: &Context) -> Check {
    let sig = ctx.signals();
    if !sig.secrets.is_empty() {
        let found = list(sig.secrets.iter().map(|f| f.describe()));
        return Check::fail(
            Effect::Reject,
            Reason::new(ReasonCode::GateSensitivitySecret, &[&found]),
        );
    }
    if let Some(why) = ctx.input.erasure.blocked() {
        return Check::fail(Effect::Reject, why.clone());
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
                    Reason::new(
                        ReasonCode::GateSensitivityPersonalWithoutAsk,
                        &[&described()],
                    ),
                );
            }
            Some(ask) if ctx.storable => {
                return Check::fail(
                    Effect::Review,
                    Reason::new(
                        ReasonCode::GateSensitivityPersonalWithAsk,
                        &[&described(), ask],
                    ),
                );
            }
            _ => {
                return Check::pass(Reason::new(
                    ReasonCode::GateSensitivityPersonalTaskState,
                    &[&described()],
                ))
            }
        }
    }
    if let Verdict::Restated(erased) = ctx.input.erasure {
        return Check::pass(Reason::new(ReasonCode::GateSensitivityRestated, &[erased]));
    }
    if !sig.personal.is_empty() {
        let found = list(sig.personal.iter().map(|f| f.describe()));
        return Check::pass(Reason::new(
            ReasonCode::GateSensitivityContactData,
            &[&found],
        ));
    }
    Check::pass(Reason::new(ReasonCode::GateSensitivityClear, &[]))
}
