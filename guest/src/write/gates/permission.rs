//! The permission gate: may this principal write this scope, may this
//! source write instructions, is the scope's write rate exceeded, does the
//! memory remove a safety guard (then it goes to review)?

use crate::core::model::scope_denial;
use crate::types::Reason;
use crate::write::gates::check::{Check, Context};
use crate::write::gates::effect::Effect;
use engram_contract::reason::ReasonCode;

pub fn check(ctx: &Context) -> Check {
    let input = ctx.input;
    let sig = ctx.signals();
    let policy = ctx.policy();
    let label = ctx.label;
    if let Some(why) = scope_denial(input.principal, &input.candidate.scope) {
        return Check::fail(
            Effect::Reject,
            Reason::new(ReasonCode::GatePermissionScope, &[&why]),
        );
    }
    if let Some(why) = &sig.injection {
        return Check::fail(
            Effect::Reject,
            Reason::new(
                ReasonCode::GatePermissionUntrustedInstruction,
                &[label, why],
            ),
        );
    }
    if ctx.storable && input.recent_writes >= policy.rate_limit_writes {
        return Check::fail(
            Effect::Reject,
            Reason::new(
                ReasonCode::GatePermissionRateLimit,
                &[
                    &input.recent_writes.to_string(),
                    &policy.rate_limit_window_minutes.to_string(),
                    &policy.rate_limit_writes.to_string(),
                ],
            ),
        );
    }
    if let (true, false, Some(guard)) = (ctx.storable, ctx.trust.inferred, &sig.risk_lowering) {
        return Check::fail(
            Effect::Review,
            Reason::new(ReasonCode::GatePermissionRemovesGuard, &[guard]),
        );
    }
    Check::pass(Reason::new(
        ReasonCode::GatePermissionOk,
        &[
            &input.principal.tenant,
            &input.recent_writes.to_string(),
            &policy.rate_limit_writes.to_string(),
        ],
    ))
}
