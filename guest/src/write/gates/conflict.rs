//! The conflict gate before resolution: is there a live memory with this
//! key, and does it say the same? Provisional — it always passes;
//! resolution (`write/resolve.rs`) decides at write time.

use crate::core::model::semantic_key;
use crate::types::{Memory, Payload, Reason};
use crate::write::classify::Classification;
use crate::write::gates::check::{Check, Context};
use engram_contract::reason::ReasonCode;

pub fn check(ctx: &Context) -> Check {
    against(ctx.classification(), ctx.input.existing)
}

/// The gate's answer for this classification against these live memories.
pub fn against(cls: &Classification, existing: &[Memory]) -> Check {
    let Some(current) = existing.iter().max_by_key(|m| m.revision) else {
        return Check::pass(Reason::new(ReasonCode::GateConflictNoLiveMemory, &[]));
    };
    let at = format!("{}#{}", current.id, current.revision);
    let same = match (&cls.payload, &current.payload) {
        (Some(Payload::Semantic(a)), Payload::Semantic(b)) => {
            a.object.trim().to_lowercase() == b.object.trim().to_lowercase()
        }
        (Some(_), _) => semantic_key(current).is_none(),
        (None, _) => false,
    };
    if same {
        Check::pass(Reason::new(ReasonCode::GateConflictDuplicate, &[&at]))
    } else {
        Check::pass(Reason::new(ReasonCode::GateConflictRevises, &[&at]))
    }
}
