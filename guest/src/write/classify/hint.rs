//! A caller's `kind_hint`, validated against the text (SPEC §2): accepted,
//! or overruled with a reason when the text contradicts it.

use crate::analysis::cues::quoted;
use crate::core::config::WritePolicy;
use crate::core::model::candidate_kind_name;
use crate::types::Candidate;
use crate::types::CandidateKind;
use crate::types::Reason;
use crate::write::classify::scan::Scan;
use crate::write::classify::signals::Signals;
use engram_contract::reason::ReasonCode;

/// Validate the caller's hint against the text and decide.
pub(crate) fn apply_hint(
    c: &Candidate,
    text_kind: CandidateKind,
    strong: bool,
    s: &Scan,
    wp: &WritePolicy,
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
) -> CandidateKind {
    let spo = c.subject.is_some() || c.predicate.is_some() || c.object.is_some();
    let Some(hint) = c.kind_hint else {
        if spo && text_kind == CandidateKind::Semantic {
            reasons.push(Reason::new(ReasonCode::HintKeyGiven, &[]));
        } else if spo && text_kind != CandidateKind::Semantic {
            reasons.push(Reason::new(
                ReasonCode::HintKeyIgnored,
                &[candidate_kind_name(text_kind)],
            ));
        }
        return text_kind;
    };
    let h = candidate_kind_name(hint);
    if hint == text_kind {
        reasons.push(Reason::new(ReasonCode::HintAgrees, &[h]));
        return hint;
    }
    // The text has the last word on noise, injections and task scope.
    // `cues`: the words the overruling names, for the codes whose sentence
    // quotes them.
    let overrule =
        |code: ReasonCode, cues: &str, reasons: &mut Vec<Reason>, signals: &mut Signals| {
            let kind = candidate_kind_name(text_kind);
            reasons.push(Reason::new(
                code,
                &match code.slots() {
                    [_, "cues", _] => vec![h, cues, kind],
                    _ => vec![h, kind],
                },
            ));
            signals.hint_overruled = true;
            text_kind
        };
    if signals.injection.is_some() {
        return overrule(ReasonCode::HintOverruledInjection, "", reasons, signals);
    }
    match (hint, text_kind) {
        (_, CandidateKind::None) if strong => {
            overrule(ReasonCode::HintOverruledNothingToKeep, "", reasons, signals)
        }
        (CandidateKind::None, _) => {
            reasons.push(Reason::new(ReasonCode::HintAccepted, &[h]));
            hint
        }
        (CandidateKind::Working, _) => {
            let bound = !s.task.is_empty()
                || !s.task_soft.is_empty()
                || s.request.is_some()
                || s.near_plan.is_some();
            if !bound {
                overrule(ReasonCode::HintOverruledNotTaskBound, "", reasons, signals)
            } else if !s.persist.is_empty() && s.task.is_empty() && s.task_soft.is_empty() {
                overrule(
                    ReasonCode::HintOverruledPersistence,
                    &quoted(&s.persist),
                    reasons,
                    signals,
                )
            } else {
                reasons.push(Reason::new(ReasonCode::HintAccepted, &[h]));
                hint
            }
        }
        (_, CandidateKind::Working) if strong => {
            overrule(ReasonCode::HintOverruledTaskScope, "", reasons, signals)
        }
        (CandidateKind::Semantic, CandidateKind::Episodic)
            if strong || !s.anchors.is_empty() || c.occurred_at.is_some() =>
        {
            overrule(ReasonCode::HintOverruledDatedEvent, "", reasons, signals)
        }
        (CandidateKind::Semantic, CandidateKind::Procedural)
            if strong || s.procedure.has_steps || !s.procedure.conditions.is_empty() =>
        {
            overrule(ReasonCode::HintOverruledSteps, "", reasons, signals)
        }
        (CandidateKind::Procedural, _) if s.procedure.score < 1.0 => {
            overrule(ReasonCode::HintOverruledNoSteps, "", reasons, signals)
        }
        (CandidateKind::Episodic, _)
            if s.anchors.is_empty() && c.occurred_at.is_none() && s.outcomes.is_empty() =>
        {
            overrule(
                ReasonCode::HintOverruledNoTimeOrOutcome,
                "",
                reasons,
                signals,
            )
        }
        (CandidateKind::Episodic, _) if !s.standing.is_empty() || !s.recurrence.is_empty() => {
            overrule(
                ReasonCode::HintOverruledStandingFact,
                &quoted(&[s.standing.clone(), s.recurrence.clone()].concat()),
                reasons,
                signals,
            )
        }
        _ => {
            let _ = wp;
            reasons.push(Reason::new(
                ReasonCode::HintAcceptedOverText,
                &[h, candidate_kind_name(text_kind)],
            ));
            hint
        }
    }
}
