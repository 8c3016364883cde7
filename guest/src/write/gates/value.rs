//! The value gate: is there anything reusable to keep? A lasting kind
//! passes, task state passes for the task, anything else is rejected with
//! what was missing.

use crate::core::model::candidate_kind_name;
use crate::types::CandidateKind;
use crate::write::gates::check::{Check, Context};
use crate::write::gates::effect::Effect;

pub fn check(ctx: &Context) -> Check {
    let cls = ctx.classification();
    let sig = ctx.signals();
    if ctx.storable {
        let kind = candidate_kind_name(cls.kind);
        return Check::pass(match &sig.explicit_ask {
            Some(a) => format!("reusable {kind} memory; the speaker asked to keep it ('{a}')"),
            None => format!("reusable {kind} memory"),
        });
    }
    if cls.kind == CandidateKind::Working {
        return Check::pass("useful for the current task only: kept in task state");
    }
    Check::fail(
        Effect::Reject,
        match (&sig.injection, &sig.no_value, cls.reasons.first()) {
            (Some(_), _, _) => {
                "instruction-like content from an untrusted carrier is not memory".to_string()
            }
            (None, Some(why), _) => format!("nothing reusable: {why}"),
            (None, None, Some(r)) => format!("nothing reusable ({r})"),
            (None, None, None) => "nothing reusable".to_string(),
        },
    )
}
