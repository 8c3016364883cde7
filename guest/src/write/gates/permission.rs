//! The permission gate: may this principal write this scope, may this
//! source write instructions, is the scope's write rate exceeded, does the
//! memory remove a safety guard (then it goes to review)?

use crate::core::model::scope_denial;
use crate::write::gates::check::{Check, Context};
use crate::write::gates::effect::Effect;

pub fn check(ctx: &Context) -> Check {
    let input = ctx.input;
    let sig = ctx.signals();
    let policy = ctx.policy();
    let label = ctx.label;
    if let Some(why) = scope_denial(input.principal, &input.candidate.scope) {
        return Check::fail(Effect::Reject, format!("scope: {why}"));
    }
    if let Some(why) = &sig.injection {
        return Check::fail(
            Effect::Reject,
            format!("untrusted text may not write instructions ({label} source): {why}"),
        );
    }
    if ctx.storable && input.recent_writes >= policy.rate_limit_writes {
        return Check::fail(
            Effect::Reject,
            format!(
                "write-rate limit: {} writes in this scope in the last {} min (limit {}), against memory poisoning",
                input.recent_writes, policy.rate_limit_window_minutes, policy.rate_limit_writes
            ),
        );
    }
    if let (true, false, Some(guard)) = (ctx.storable, ctx.trust.inferred, &sig.risk_lowering) {
        return Check::fail(
            Effect::Review,
            format!("removes a safety guard ('{guard}'): high risk, pending review"),
        );
    }
    Check::pass(format!(
        "scope writable by the principal (tenant '{}'); {} of {} writes used in the rate window",
        input.principal.tenant, input.recent_writes, policy.rate_limit_writes
    ))
}
