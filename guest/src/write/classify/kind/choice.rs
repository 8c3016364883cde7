//! Rules for facts decided by their structure before any procedure or
//! event reading: an inference's summary of a conversation, a standing
//! choice of a kind of value.

use crate::analysis::cues::{find_any, fold};
use crate::core::config::CUES;
use crate::types::CandidateKind;
use crate::types::Reason;
use crate::write::classify::kind::rule::{Decided, Evidence, KindRule};
use crate::write::classify::signals::Signals;
use crate::write::classify::text::clip;
use engram_contract::reason::ReasonCode;

/// An agent's summary of a conversation ("Conversation summary: the user
/// has already paid…", "摘要：…"): an inference about what was said, kept
/// as a fact for review, never task state or a procedure.
pub(crate) struct InferredSummary;

impl KindRule for InferredSummary {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        if !e.origin.inferred {
            return None;
        }
        let folded = fold(e.c.text.trim());
        let hits = crate::vocab::cues_in(&folded, CUES.summary);
        let h = hits.first()?;
        reasons.push(Reason::new(ReasonCode::KindInferredSummary, &[h.cue]));
        signals.structural = Some("a summary by an inference".into());
        Some((CandidateKind::Semantic, true))
    }
}

/// An agent's description of the user in the third person with a
/// preference, a habit or a standing state ("The user prefers PR
/// descriptions that lead with the conclusion", "用户习惯晚上看邮件"): a
/// behavioural inference about the person, kept as a fact for review and
/// never the task's data — the subject says so, not a model margin (a
/// retrain on a few more lines flipped one to task state).
pub(crate) struct InferredAboutUser;

impl KindRule for InferredAboutUser {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        if !e.origin.inferred {
            return None;
        }
        let s = e.s;
        let (what, cue) = [
            (&s.preferences, "preference"),
            (&s.recurrence, "habit"),
            (&s.standing, "standing state"),
        ]
        .into_iter()
        .find_map(|(hits, what)| hits.first().map(|h| (what, h.cue)))?;
        let folded = e.folded;
        let subject = crate::vocab::cues_in(folded, CUES.user_referents)
            .into_iter()
            .filter(|h| h.start == 0)
            .max_by_key(|h| h.end)?;
        reasons.push(Reason::new(
            ReasonCode::KindInferredAboutUser,
            &[subject.cue, what, cue],
        ));
        signals.structural = Some("an inference about the user".into());
        Some((CandidateKind::Semantic, true))
    }
}

/// A standing choice of a kind of value ("我以后写知识图谱时，优先使用
/// Markdown", "以后回答我时请用中文"): a preference, even when it is said
/// with a condition and a directive, as long as nothing in it acts on the
/// world (seed 002 §7.22: a document-format preference). An inference
/// needs the evidence of repetition ("picked Markdown in each of their
/// last three exports": a behavioural preference, for review).
pub(crate) struct StandingChoice;

impl KindRule for StandingChoice {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let (c, s, wp) = (e.c, e.s, e.wp);
        let evidence = if e.origin.inferred {
            !s.quantifiers.is_empty() || !s.multi_evidence.is_empty() || !s.recurrence.is_empty()
        } else {
            !s.persist.is_empty() || !s.preferences.is_empty()
        };
        if e.origin.untrusted || !evidence {
            return None;
        }
        let k = crate::write::key::structural(c.text.trim())?;
        let g = wp.wildcard_max_gap_chars;
        let folded = fold(c.text.trim());
        if !find_any(&folded, wp.cues.side_effect, g).is_empty() {
            return None;
        }
        reasons.push(Reason::new(
            ReasonCode::KindStandingChoice,
            &[&k.predicate, &clip(&k.object, 40)],
        ));
        signals.structural = Some("a standing choice of a value".into());
        Some((CandidateKind::Semantic, true))
    }
}
