//! The value gate: is there anything reusable to keep? A lasting kind
//! passes, task state passes for the task, anything else is rejected with
//! what was missing.

use crate::core::model::candidate_kind_name;
use crate::types::{CandidateKind, Reason};
use crate::write::gates::check::{Check, Context};
use crate::write::gates::effect::Effect;
use engram_contract::reason::ReasonCode;

pub fn check(ctx: &Context) -> Check {
    let cls = ctx.classification();
    let sig = ctx.signals();
    if ctx.storable {
        let kind = candidate_kind_name(cls.kind);
        return Check::pass(match &sig.explicit_ask {
            Some(a) => Reason::new(ReasonCode::GateValueReusableAsked, &[kind, a]),
            None => Reason::new(ReasonCode::GateValueReusable, &[kind]),
        });
    }
    if cls.kind == CandidateKind::Working {
        return Check::pass(Reason::new(ReasonCode::GateValueTaskState, &[]));
    }
    Check::fail(
        Effect::Reject,
        match (&sig.injection, &sig.no_value, cls.reasons.first()) {
            (Some(_), _, _) => Reason::new(ReasonCode::GateValueUntrustedInstruction, &[]),
            (None, Some(why), _) => {
                Reason::new(ReasonCode::GateValueNothingReusableBecause, &[why])
            }
            (None, None, Some(r)) => {
                Reason::new(ReasonCode::GateValueNothingReusableAfter, &[&r.text])
            }
            (None, None, None) => Reason::new(ReasonCode::GateValueNothingReusable, &[]),
        },
    )
}
