//! An episode's payload: when it occurred (resolved from the text's time
//! expression or given), its actions, outcome and actors.

use crate::analysis::cues::Hit;
use crate::analysis::timeexpr::Precision;
use crate::types::Candidate;
use crate::types::Datetime;
use crate::types::EpisodicPayload;
use crate::types::Reason;
use crate::write::classify::scan::Scan;
use crate::write::classify::text::clauses;
use crate::write::classify::text::clip;
use engram_contract::reason::ReasonCode;

pub(crate) fn episodic_payload(
    c: &Candidate,
    text: &str,
    s: &Scan,
    observed: Datetime,
    reasons: &mut Vec<Reason>,
) -> EpisodicPayload {
    let anchor = s
        .anchors
        .iter()
        .find(|a| !a.is_future(observed))
        .or_else(|| s.anchors.first());
    let (occurred_at, time_expression) = match (c.occurred_at, anchor) {
        (Some(t), _) => {
            reasons.push(Reason::new(
                ReasonCode::PayloadOccurredAtGiven,
                &[&crate::core::time::rfc3339(t)],
            ));
            (Some(t), None)
        }
        (None, Some(a)) => {
            let expr = text
                .get(a.start..a.end)
                .unwrap_or(&a.expression)
                .trim()
                .to_string();
            let at = match a.precision {
                Precision::Instant => crate::core::time::rfc3339(a.at),
                _ => crate::core::time::date_string(a.at),
            };
            reasons.push(Reason::new(
                ReasonCode::PayloadOccurredAtResolved,
                &[
                    &at,
                    &expr,
                    &crate::core::time::date_string(observed),
                    &offset_label(observed.offset_minutes),
                ],
            ));
            (Some(a.at), Some(expr))
        }
        (None, None) => match s.past_refs.first().and_then(|h| text.get(h.start..h.end)) {
            Some(words) => {
                reasons.push(Reason::new(ReasonCode::PayloadRelativePast, &[words]));
                (Some(observed), Some(words.to_string()))
            }
            None => {
                reasons.push(Reason::new(ReasonCode::PayloadNoTime, &[]));
                (Some(observed), None)
            }
        },
    };
    let clauses = clauses(text);
    let has = |hits: &[Hit], (a, b): (usize, usize)| hits.iter().any(|h| h.start < b && a < h.end);
    let actions: Vec<String> = clauses
        .iter()
        .filter(|r| has(&s.outcomes, **r))
        .filter_map(|(a, b)| text.get(*a..*b))
        .map(|t| clip(t, 160))
        .take(4)
        .collect();
    let outcome = clauses
        .iter()
        .rev()
        .find(|r| has(&s.failure, **r) || has(&s.success, **r))
        .and_then(|(a, b)| text.get(*a..*b))
        .map(|t| clip(t, 160));
    // The outcome is what the event came to: the last of its failure and
    // success words ("…导致超时，扩容后恢复" recovered; "…成功，随后又超时"
    // failed), not whichever list has a word.
    let last = |hits: &[Hit]| hits.iter().map(|h| h.start).max();
    let success = match (last(&s.failure), last(&s.success)) {
        (Some(f), Some(ok)) => Some(ok > f),
        (Some(_), None) => Some(false),
        (None, Some(_)) => Some(true),
        (None, None) => None,
    };
    let actors = c
        .entities
        .iter()
        .filter(|e| {
            matches!(
                e.key.as_str(),
                "person" | "actor" | "user" | "customer" | "owner" | "team" | "agent"
            )
        })
        .map(|e| e.value.clone())
        .collect();
    EpisodicPayload {
        occurred_at,
        time_expression,
        actors,
        context: c.entities.clone(),
        actions,
        outcome,
        success,
    }
}

fn offset_label(minutes: i32) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    format!("{sign}{:02}:{:02}", minutes.abs() / 60, minutes.abs() % 60)
}
