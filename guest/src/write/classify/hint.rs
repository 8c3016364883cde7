//! A caller's `kind_hint`, validated against the text (SPEC §2): accepted,
//! or overruled with a reason when the text contradicts it.

use crate::analysis::cues::quoted;
use crate::core::config::WritePolicy;
use crate::core::model::candidate_kind_name;
use crate::types::Candidate;
use crate::types::CandidateKind;
use crate::write::classify::scan::Scan;
use crate::write::classify::signals::Signals;

/// Validate the caller's hint against the text and decide.
pub(crate) fn apply_hint(
    c: &Candidate,
    text_kind: CandidateKind,
    strong: bool,
    s: &Scan,
    wp: &WritePolicy,
    reasons: &mut Vec<String>,
    signals: &mut Signals,
) -> CandidateKind {
    let spo = c.subject.is_some() || c.predicate.is_some() || c.object.is_some();
    let Some(hint) = c.kind_hint else {
        if spo && text_kind == CandidateKind::Semantic {
            reasons.push("subject/predicate/object given by the caller".into());
        } else if spo && text_kind != CandidateKind::Semantic {
            reasons.push(format!(
                "subject/predicate/object ignored: the text reads as {}",
                candidate_kind_name(text_kind)
            ));
        }
        return text_kind;
    };
    let h = candidate_kind_name(hint);
    if hint == text_kind {
        reasons.push(format!("kind hint {h} agrees with the text"));
        return hint;
    }
    // The text has the last word on noise, injections and task scope.
    let overrule = |why: String, reasons: &mut Vec<String>, signals: &mut Signals| {
        reasons.push(format!(
            "kind hint {h} overruled: {why}; classified {}",
            candidate_kind_name(text_kind)
        ));
        signals.hint_overruled = true;
        text_kind
    };
    if signals.injection.is_some() {
        return overrule(
            "untrusted instruction-like content".into(),
            reasons,
            signals,
        );
    }
    match (hint, text_kind) {
        (_, CandidateKind::None) if strong => {
            overrule("the text carries nothing to keep".into(), reasons, signals)
        }
        (CandidateKind::None, _) => {
            reasons.push(format!("kind hint {h} accepted"));
            hint
        }
        (CandidateKind::Working, _) => {
            let bound = !s.task.is_empty()
                || !s.task_soft.is_empty()
                || s.request.is_some()
                || s.near_plan.is_some();
            if !bound {
                overrule(
                    "nothing in the text limits it to the current task".into(),
                    reasons,
                    signals,
                )
            } else if !s.persist.is_empty() && s.task.is_empty() && s.task_soft.is_empty() {
                overrule(
                    format!(
                        "persistence cue {} says it outlives the task",
                        quoted(&s.persist)
                    ),
                    reasons,
                    signals,
                )
            } else {
                reasons.push(format!("kind hint {h} accepted"));
                hint
            }
        }
        (_, CandidateKind::Working) if strong => overrule(
            "a task-scope cue limits it to the current task".into(),
            reasons,
            signals,
        ),
        (CandidateKind::Semantic, CandidateKind::Episodic)
            if strong || !s.anchors.is_empty() || c.occurred_at.is_some() =>
        {
            overrule(
                "a dated one-off event is never promoted to a general fact".into(),
                reasons,
                signals,
            )
        }
        (CandidateKind::Semantic, CandidateKind::Procedural)
            if strong || s.procedure.has_steps || !s.procedure.conditions.is_empty() =>
        {
            overrule(
                "the text gives ordered or conditional steps".into(),
                reasons,
                signals,
            )
        }
        (CandidateKind::Procedural, _) if s.procedure.score < 1.0 => overrule(
            "a procedure needs a goal and steps, and the text has no steps, conditions or guards"
                .into(),
            reasons,
            signals,
        ),
        (CandidateKind::Episodic, _)
            if s.anchors.is_empty() && c.occurred_at.is_none() && s.outcomes.is_empty() =>
        {
            overrule(
                "an episode needs a time and an outcome, and the text has neither".into(),
                reasons,
                signals,
            )
        }
        (CandidateKind::Episodic, _) if !s.standing.is_empty() || !s.recurrence.is_empty() => {
            overrule(
                format!(
                    "the text states a standing fact ({})",
                    quoted(&[s.standing.clone(), s.recurrence.clone()].concat())
                ),
                reasons,
                signals,
            )
        }
        _ => {
            let _ = wp;
            reasons.push(format!(
                "kind hint {h} accepted (the text alone reads as {})",
                candidate_kind_name(text_kind)
            ));
            hint
        }
    }
}
