//! The stability gate: does it hold beyond the current task? Task state
//! fails it and is kept for the task only.

use crate::types::{CandidateKind, Reason, SourceKind};
use crate::write::gates::check::{Check, Context};
use crate::write::gates::effect::Effect;
use engram_contract::reason::ReasonCode;

pub fn check(ctx: &Context) -> Check {
    let sig = ctx.signals();
    match ctx.kind() {
        CandidateKind::Working => Check::fail(
            Effect::TaskState,
            match &sig.task_scope {
                Some(cue) => Reason::new(ReasonCode::GateStabilityTaskScopeCue, &[cue]),
                None => Reason::new(ReasonCode::GateStabilityTaskOnly, &[]),
            },
        ),
        // A tool's or a system's report is an observation at the time it
        // was read (SPEC 3.1): say so, since it must not be read back as a
        // standing fact.
        CandidateKind::Episodic
            if matches!(
                ctx.candidate().source.kind,
                SourceKind::Tool | SourceKind::System
            ) =>
        {
            Check::pass(Reason::new(
                ReasonCode::GateStabilityObservedReport,
                &[ctx.label],
            ))
        }
        CandidateKind::Episodic => {
            Check::pass(Reason::new(ReasonCode::GateStabilityPastEvent, &[]))
        }
        CandidateKind::Semantic | CandidateKind::Procedural => {
            Check::pass(match &sig.persistence {
                Some(cue) => Reason::new(ReasonCode::GateStabilityPersistenceCue, &[cue]),
                None => Reason::new(ReasonCode::GateStabilityStable, &[]),
            })
        }
        CandidateKind::None => {
            Check::pass(Reason::new(ReasonCode::GateStabilityNothingToKeep, &[]))
        }
    }
}
