//! What a kind rule reads (`Evidence`) and the trait every rule implements
//! (`KindRule`): decide the kind, with its reason, or pass to the next rule;
//! and the decisions several rules share (`task_state`, `not_memory`).

use crate::core::config::WritePolicy;
use crate::types::Datetime;
use crate::types::Reason;
use crate::types::{Candidate, CandidateKind};
use crate::write::classify::origin::Origin;
use crate::write::classify::scan::Scan;
use crate::write::classify::signals::Signals;

/// The event reading of a text (`event::score`): its score, whether it has
/// a time anchor, and why.
pub(crate) type EventReading = (f64, bool, String);

/// Everything a kind rule reads.
pub(crate) struct Evidence<'a> {
    pub(crate) c: &'a Candidate,
    pub(crate) s: &'a Scan,
    pub(crate) wp: &'a WritePolicy,
    pub(crate) origin: &'a Origin,
    pub(crate) event: &'a EventReading,
    /// When it was said (the candidate's, else the classification's time).
    pub(crate) observed: Datetime,
    /// The folded, masked text the scan's byte offsets refer to.
    pub(crate) folded: &'a str,
}

impl Evidence<'_> {
    /// No task-scope cue, no persistence cue, no procedure evidence.
    pub(crate) fn nothing_else(&self) -> bool {
        let s = self.s;
        s.task.is_empty() && s.persist.is_empty() && s.procedure.score == 0.0
    }
}

/// A kind decision: the kind and whether its evidence is strong enough to
/// overrule a caller's hint.
pub(crate) type Decided = (CandidateKind, bool);

/// One rule of the ordered list (`kind::RULES`).
pub(crate) trait KindRule: Sync {
    /// The kind this rule decides — its reason pushed, the signals it sets
    /// set — or `None` to leave the text to the next rule.
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided>;
}

/// Task state: `reason` recorded, `scope` noted as the words that make it
/// the current task's, the kind `working` (`strong`: whether it overrules
/// a caller's hint).
pub(crate) fn task_state(
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
    reason: Reason,
    scope: String,
    strong: bool,
) -> Option<Decided> {
    reasons.push(reason);
    signals.task_scope = Some(scope);
    Some((CandidateKind::Working, strong))
}

/// Not memory by its structure: `why` recorded as the reason and as the
/// value gate's finding, `structure` named as the structural decision no
/// model may overrule; the kind `none`, strong.
pub(crate) fn not_memory(
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
    structure: &str,
    why: Reason,
) -> Option<Decided> {
    signals.structural = Some(structure.into());
    signals.no_value = Some(why.text.clone());
    reasons.push(why);
    Some((CandidateKind::None, true))
}
