//! Rules for text with nothing to keep: acknowledgements and chit-chat,
//! text too short to carry information, a bare question.

use crate::analysis::cues::quoted;
use crate::types::CandidateKind;
use crate::types::Reason;
use crate::write::classify::kind::rule::{Decided, Evidence, KindRule};
use crate::write::classify::signals::Signals;
use engram_contract::reason::ReasonCode;

/// An acknowledgement or chit-chat, and little else.
pub(crate) struct Chitchat;

impl KindRule for Chitchat {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let s = e.s;
        if s.chitchat.is_empty() || s.residue > e.wp.chitchat_max_residue || !e.nothing_else() {
            return None;
        }
        let why = Reason::new(ReasonCode::KindChitchat, &[&quoted(&s.chitchat)]);
        signals.no_value = Some(why.text.clone());
        reasons.push(why);
        Some((CandidateKind::None, true))
    }
}

/// Fewer content units than the policy's minimum.
pub(crate) struct TooShort;

impl KindRule for TooShort {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        if e.s.units >= e.wp.min_content_units {
            return None;
        }
        let why = Reason::new(ReasonCode::KindTooShort, &[]);
        signals.no_value = Some(why.text.clone());
        reasons.push(why);
        Some((CandidateKind::None, true))
    }
}

/// A question states nothing, whatever it mentions ("这个报错是什么意思？"),
/// unless other sentences around it do. A request phrased as a question
/// ("Can you check whether the venue is free?") is for the task at hand.
pub(crate) struct BareQuestion;

impl KindRule for BareQuestion {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let s = e.s;
        let bare_question = s.question
            && s.explicit.is_empty()
            && ((e.nothing_else() && s.outcomes.is_empty())
                || (s.sentences == 1 && s.persist.is_empty() && s.task.is_empty()));
        if !bare_question {
            return None;
        }
        if let Some(r) = &s.request {
            reasons.push(Reason::new(ReasonCode::KindQuestionRequest, &[r]));
            signals.task_scope = Some(r.clone());
            return Some((CandidateKind::Working, false));
        }
        let why = Reason::new(ReasonCode::KindBareQuestion, &[]);
        signals.no_value = Some(why.text.clone());
        reasons.push(why);
        Some((CandidateKind::None, false))
    }
}
