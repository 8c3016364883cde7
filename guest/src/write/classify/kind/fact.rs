//! When no rule decides: a standing fact or preference, if the text shows
//! positive evidence of one; otherwise nothing to keep — `semantic` is
//! never the fallback.

use crate::analysis::cues::{quoted, Hit};
use crate::types::Reason;
use crate::types::{Candidate, CandidateKind};
use crate::write::classify::kind::rule::{Decided, Evidence};
use crate::write::classify::scan::{first_anchor, Scan};
use crate::write::classify::signals::Signals;
use engram_contract::reason::ReasonCode;

/// A standing fact or preference, with what shows it; `none` without
/// positive evidence: without an attribute, preference, relation or ask, a
/// statement is not a fact to keep ("that is hilarious", "今天好累").
pub(crate) fn standing_fact(
    e: &Evidence,
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
) -> Decided {
    let (c, s) = (e.c, e.s);
    let (score, anchored, _) = e.event;
    let mut why = Vec::new();
    if let Some(h) = s.persist.first() {
        why.push(format!("persistence cue '{}'", h.cue));
    }
    if !s.standing.is_empty() {
        why.push(format!("standing state {}", quoted(&s.standing)));
    }
    if !s.recurrence.is_empty() {
        why.push(format!("habit or schedule {}", quoted(&s.recurrence)));
    }
    if *score > 0.0 && !anchored {
        why.push("no time anchor for an event".into());
    } else if *anchored {
        why.push("dated, but states a standing fact rather than an event".into());
    }
    let Some(evidence) = fact_evidence(c, s, e.origin.inferred, signals) else {
        let why = Reason::new(ReasonCode::KindNoLastingValue, &[]);
        signals.no_value = Some(why.text.clone());
        reasons.push(why);
        return (CandidateKind::None, false);
    };
    why.push(evidence);
    reasons.push(Reason::new(ReasonCode::KindFact, &[&why.join("; ")]));
    (CandidateKind::Semantic, !s.persist.is_empty())
}

/// What shows that a statement is a fact worth keeping: a persistence cue
/// or an explicit ask, a standing state or habit, a known predicate, a
/// copula or attribute verb, a relation between people, a preference, a
/// measured value, caller-given structure, detected data, or a hedged
/// inference ("the user seems to…").
fn fact_evidence(c: &Candidate, s: &Scan, inferred: bool, signals: &Signals) -> Option<String> {
    let first = |hits: &[Hit], what: &str| hits.first().map(|h| format!("{what} '{}'", h.cue));
    first(&s.persist, "persistence")
        .or_else(|| first(&s.explicit, "asked to keep"))
        // "Call me Wang.": a sentence shaped like an attribute and its value.
        .or_else(|| {
            crate::write::key::structural(c.text.trim())
                .map(|k| format!("states an attribute ('{}')", k.predicate))
        })
        // "In this project, push all documentation straight to main": a
        // speaker's order over every case of something is a standing rule.
        .or_else(|| {
            (!inferred && s.request.is_some())
                .then(|| s.quantifiers.first())
                .flatten()
                .map(|h| format!("a standing rule for every case ('{}')", h.cue))
        })
        .or_else(|| first(&s.standing, "standing state"))
        .or_else(|| first(&s.recurrence, "habit"))
        .or_else(|| s.schedule.as_ref().map(|t| format!("schedule '{t}'")))
        .or_else(|| s.predicate.then(|| "a known predicate".to_string()))
        .or_else(|| first(&s.preferences, "preference"))
        .or_else(|| first(&s.facts, "attribute"))
        .or_else(|| first(&s.relations, "relation"))
        .or_else(|| (s.metrics > 0).then(|| "a measured value".to_string()))
        .or_else(|| s.key_value.then(|| "a key with its value".to_string()))
        .or_else(|| first_anchor(s).map(|a| format!("dated plan or event ('{a}')")))
        .or_else(|| {
            (c.subject.is_some() || c.predicate.is_some() || c.object.is_some())
                .then(|| "subject/predicate/object given".to_string())
        })
        .or_else(|| {
            (c.kind_hint == Some(CandidateKind::Semantic))
                .then(|| "the caller states it as a fact (kind hint)".to_string())
        })
        .or_else(|| {
            (!signals.secrets.is_empty() || !signals.personal.is_empty())
                .then(|| "states a value (detected data)".to_string())
        })
        .or_else(|| {
            (inferred && !s.hedges.is_empty())
                .then(|| "a hedged inference about the subject".to_string())
        })
}
