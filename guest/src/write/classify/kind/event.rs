//! Rules for events: a state reported by its system or tool (an
//! observation at the time it was read), an event with a time anchor, an
//! event without a stated time; and the event reading of a text they share
//! with the other rules (`score`).

use crate::analysis::cues::quoted;
use crate::analysis::timeexpr::Precision;
use crate::core::model::source_label;
use crate::types::Reason;
use crate::types::{Candidate, CandidateKind, SourceKind};
use crate::write::classify::kind::rule::{Decided, EventReading, Evidence, KindRule};
use crate::write::classify::scan::Scan;
use crate::write::classify::signals::Signals;
use engram_contract::reason::ReasonCode;

/// "订单状态：已退款", "Order ord_991 payment status: unpaid" from a tool
/// or a system of record: an observed state, kept as an event of when it
/// was read (seed 000 风险五: 历史状态作为事件保留; a current state is
/// re-read from its system, never frozen into a fact).
pub(crate) struct ObservedStatus;

impl KindRule for ObservedStatus {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let (c, s) = (e.c, e.s);
        let status_line = s
            .task_soft
            .iter()
            .find(|h| h.cue.ends_with([':', '：']) && h.cue != "progress:" && h.cue != "进度：");
        let from_its_system =
            matches!(c.source.kind, SourceKind::System | SourceKind::Tool) && s.persist.is_empty();
        let h = status_line.filter(|_| from_its_system)?;
        reasons.push(Reason::new(
            ReasonCode::KindObservedStatus,
            &[source_label(c.source.kind), h.cue],
        ));
        signals.structural = Some("an observed status".into());
        Some((CandidateKind::Episodic, true))
    }
}

/// An event with a time anchor and enough evidence (an outcome, a completed
/// action, a measured result…).
pub(crate) struct AnchoredEvent;

impl KindRule for AnchoredEvent {
    fn decide(&self, e: &Evidence, reasons: &mut Vec<Reason>, _: &mut Signals) -> Option<Decided> {
        let (score, anchored, why) = e.event;
        let min = e.wp.episode_min_score;
        if !(*score >= min && *anchored) {
            return None;
        }
        reasons.push(Reason::new(ReasonCode::KindEvent, &[why]));
        Some((CandidateKind::Episodic, *score >= min + 0.5))
    }
}

/// A completed action with an outcome and nothing standing or recurring
/// about it: an event, even without a stated time.
pub(crate) struct UnanchoredEvent;

impl KindRule for UnanchoredEvent {
    fn decide(&self, e: &Evidence, reasons: &mut Vec<Reason>, _: &mut Signals) -> Option<Decided> {
        let s = e.s;
        let (score, anchored, why) = e.event;
        let unanchored_event = !anchored
            && !s.outcomes.is_empty()
            && !s.past.is_empty()
            && s.standing.is_empty()
            && s.recurrence.is_empty()
            && s.persist.is_empty()
            && *score >= e.wp.episode_min_score - 1.0;
        if !unanchored_event {
            return None;
        }
        reasons.push(Reason::new(ReasonCode::KindUndatedEvent, &[why]));
        Some((CandidateKind::Episodic, false))
    }
}

/// (score, has a time anchor, why) of the event reading of a text.
pub(crate) fn score(c: &Candidate, s: &Scan) -> EventReading {
    let observed = c.observed_at;
    let mut score: f64 = 0.0;
    let mut why = Vec::new();
    let anchor = s
        .anchors
        .iter()
        .find(|a| observed.is_none_or(|o| !a.is_future(o)));
    let anchored = anchor.is_some() || c.occurred_at.is_some() || !s.past_refs.is_empty();
    if let Some(a) = anchor {
        score += match (a.relative, a.precision) {
            (true, Precision::Year) => 1.0,
            (true, _) => 2.5,
            (false, Precision::Day | Precision::Instant | Precision::Week) => 2.0,
            (false, Precision::Month) => 2.0,
            (false, Precision::Year) => 1.0,
        };
        why.push(format!("time '{}'", a.expression));
    } else if c.occurred_at.is_some() {
        score += 2.0;
        why.push("occurred_at given".into());
    } else if let Some(h) = s.past_refs.first() {
        // "上次…" already says it happened.
        score += 3.0;
        why.push(format!("past occasion '{}'", h.cue));
    }
    // "前天的评审会上…": an occasion on a past day took place.
    // The whole period must be over: "这周" is not yet past, "上周" is.
    let past_day = anchor.is_some_and(|a| {
        observed.is_some_and(|o| {
            let days = crate::core::time::local_day(o) - crate::core::time::local_day(a.at);
            a.is_past(o)
                && match a.precision {
                    Precision::Week => days >= 7,
                    Precision::Month => days >= 31,
                    Precision::Year => false,
                    _ => true,
                }
        })
    });
    if s.outcomes.is_empty() && (past_day || !s.past_refs.is_empty()) {
        if let Some(h) = s.occasions.first() {
            score += 1.25;
            why.push(format!("occasion '{}'", h.cue));
        }
    }
    if !s.outcomes.is_empty() {
        score += 1.25 + if s.outcomes.len() > 1 { 0.5 } else { 0.0 };
        why.push(format!("outcome {}", quoted(&s.outcomes)));
    }
    if s.metrics > 0 {
        score += 1.0;
        why.push("measured result".into());
    }
    if !s.past.is_empty() {
        score += 1.0;
        why.push(format!(
            "completed action '{}'",
            s.past.first().map(String::as_str).unwrap_or("")
        ));
    }
    if s.dated && anchor.is_some_and(|a| observed.is_none_or(|o| a.is_past(o))) {
        score += 1.0;
        why.push("a date given as the time of something".into());
    }
    let implied = anchor.is_none() && c.occurred_at.is_none() && !s.past_refs.is_empty();
    let occasion = past_day && !s.occasions.is_empty();
    if s.outcomes.is_empty()
        && s.past.is_empty()
        && s.metrics == 0
        && !s.dated
        && !implied
        && !occasion
    {
        // A date alone is not an event.
        score = score.min(2.0);
    }
    score -= 1.5 * s.standing.len().min(2) as f64;
    // After a completed action, "平时"/"usual" compares; it is no schedule.
    let per = if s.past.is_empty() { 1.5 } else { 1.0 };
    score -= per * s.recurrence.len().min(2) as f64;
    if !s.persist.is_empty() {
        score -= 2.0;
    }
    (score, anchored, why.join(", "))
}
