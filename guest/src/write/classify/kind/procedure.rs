//! Rules for procedures: steps, conditions with directives, guards and
//! recovery strategies; a rule drawn from a single success (a procedure
//! under review).

use crate::types::CandidateKind;
use crate::types::Reason;
use crate::write::classify::kind::rule::{Decided, Evidence, KindRule};
use crate::write::classify::signals::Signals;
use engram_contract::reason::ReasonCode;

/// Enough procedure evidence, unless a dated event outweighs it. An
/// unanchored "event" does not outweigh a procedure. Ordered steps with no
/// completed action instruct; a time inside them ("清理 7 天前的日志")
/// qualifies a step, it dates no event.
pub(crate) struct Steps;

impl KindRule for Steps {
    fn decide(&self, e: &Evidence, reasons: &mut Vec<Reason>, _: &mut Signals) -> Option<Decided> {
        let (s, wp) = (e.s, e.wp);
        let proc = &s.procedure;
        let instructs =
            (proc.has_steps && s.past.is_empty() && s.past_refs.is_empty()) || proc.headed;
        let (score, anchored, _) = e.event;
        let procedure = proc.score >= wp.procedure_min_score
            && (proc.score >= *score || !anchored || !s.persist.is_empty() || instructs);
        if !procedure {
            return None;
        }
        reasons.push(Reason::new(
            ReasonCode::KindProcedure,
            &[&proc.why.join("; ")],
        ));
        Some((
            CandidateKind::Procedural,
            proc.score >= wp.procedure_strong_score,
        ))
    }
}

/// A rule drawn from one success ("就试过这一次，以后先这么试"): a
/// procedure under review, however it is phrased.
pub(crate) struct SingleSuccessLesson;

impl KindRule for SingleSuccessLesson {
    fn decide(&self, e: &Evidence, reasons: &mut Vec<Reason>, _: &mut Signals) -> Option<Decided> {
        let s = e.s;
        let h = s.single_success.first()?;
        let generalised = !s.persist.is_empty() || s.procedure.score > 0.0 || !s.reuse.is_empty();
        if !generalised {
            return None;
        }
        reasons.push(Reason::new(ReasonCode::KindSingleSuccessLesson, &[h.cue]));
        Some((CandidateKind::Procedural, false))
    }
}
