//! After the kind is decided (rules, model, the caller's hint): what the
//! gates read about it — steps from an untrusted source are data for
//! review, a persistence cue marks it stable, a procedure drawn from one
//! success goes to review — and a health condition with an ask, which is a
//! personal fact (consent step), not a procedure.

use crate::types::Reason;
use crate::types::{Candidate, CandidateKind, SourceKind};
use crate::write::classify::scan::Scan;
use crate::write::classify::signals::Signals;
use crate::write::detect::secrets::Family;
use engram_contract::reason::ReasonCode;

/// The kind as stored, with the signals the gates read set.
pub(crate) fn settle(
    c: &Candidate,
    kind: CandidateKind,
    untrusted: bool,
    s: &Scan,
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
) -> CandidateKind {
    if kind == CandidateKind::Procedural && untrusted && signals.injection.is_none() {
        let why = Reason::new(
            ReasonCode::KindUntrustedSteps,
            &[crate::core::model::source_label(c.source.kind)],
        );
        signals.untrusted_steps = Some(why.text.clone());
        reasons.push(why);
    }
    // "记住我对花粉过敏，出门前提醒我…": a health condition with an ask is
    // a fact about the person that needs consent, not an agent procedure.
    let kind = if kind == CandidateKind::Procedural
        && !s.explicit.is_empty()
        && signals.personal.iter().any(|f| f.family == Family::Health)
    {
        reasons.push(Reason::new(ReasonCode::KindHealthAsk, &[]));
        CandidateKind::Semantic
    } else {
        kind
    };
    if !s.persist.is_empty() && matches!(kind, CandidateKind::Semantic | CandidateKind::Procedural)
    {
        signals.persistence = s.persist.first().map(|h| h.cue.to_string());
    }
    if kind == CandidateKind::Procedural {
        if let Some(h) = s.single_success.first() {
            if s.multi_evidence.is_empty() {
                signals.single_success = Some(h.cue.to_string());
            }
        } else if !s.success.is_empty()
            && s.multi_evidence.is_empty()
            && !s.past.is_empty()
            && c.source.kind != SourceKind::System
        {
            // "解决了 … 记为经验": a rule drawn from one success.
            signals.single_success = s.success.first().map(|h| h.cue.to_string());
        }
    }
    kind
}
