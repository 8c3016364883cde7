//! The stability gate: does it hold beyond the current task? Task state
//! fails it and is kept for the task only.

use crate::types::CandidateKind;
use crate::write::gates::check::{Check, Context};
use crate::write::gates::effect::Effect;

pub fn check(ctx: &Context) -> Check {
    let sig = ctx.signals();
    match ctx.kind() {
        CandidateKind::Working => Check::fail(
            Effect::TaskState,
            match &sig.task_scope {
                Some(cue) => format!("task-scope cue '{cue}': valid only for the current task"),
                None => "valid only for the current task".to_string(),
            },
        ),
        CandidateKind::Episodic => Check::pass("a past event: it stays true as history"),
        CandidateKind::Semantic | CandidateKind::Procedural => {
            Check::pass(match &sig.persistence {
                Some(cue) => format!("stable: persistence cue '{cue}'"),
                None => "stable: holds beyond the current task".to_string(),
            })
        }
        CandidateKind::None => Check::pass("nothing to keep"),
    }
}
