//! Classification of a candidate into semantic, episodic, procedural,
//! working or none, with reasons, from deterministic cues (seed 000 §三,
//! seed 002 §7.6–7.9), in Chinese, English and mixed text:
//!
//! 1. prompt injection (`injection`): text from an untrusted carrier — a
//!    document or tool output, or a document, ticket, email or page quoted
//!    in a message — that addresses the assistant is not memory material
//!    (`none`; the permission gate rejects it and names the marker family);
//! 2. acknowledgements, chit-chat, filler and bare questions are `none`;
//! 3. task scope makes it `working`: task-scope cues ("这次", "for now"),
//!    a deictic with a task object ("这个会话里", "for this one script"),
//!    progress and status lines ("3/8 个模块", "Step 2 of 5 done"), a
//!    request about something at hand; soft cues ("先别") yield to a
//!    procedure or a persistence cue, traps ("只验证过这一次") do not count;
//! 4. ordered steps, conditions with directives, guards and recovery
//!    strategies make it `procedural`; a rule drawn from one success is a
//!    procedure under review;
//! 5. a time anchor ("上周二", "2026-03-31", "two weeks ago") with an
//!    outcome or a completed action makes it `episodic`; standing-state,
//!    recurrence, persistence cues and the start date of a standing rule
//!    ("从 6 月 1 日起") argue against;
//! 6. `semantic` needs positive evidence of a fact — a copula or attribute
//!    verb, a relation, a preference, a persistence cue or an explicit ask, a
//!    standing state or habit, a measured value, caller structure. Without
//!    it the text is `none` and the value gate says why: `semantic` is never
//!    the fallback.
//!
//! A caller's `kind_hint` is validated per kind (SPEC §2) and overruled with
//! a reason when the text contradicts it. Episodes get their time resolved
//! (`timeexpr`), procedures their steps, semantic facts a key.

mod analysis;
mod hint;
mod kind;
mod learned;
mod origin;
mod payload;
mod scan;
mod settle;
mod signals;
mod text;

pub use origin::{carried_text, Carried};
pub use payload::semantic::default_subject;
pub use signals::{Classification, Signals, UnsureReading};

use crate::analysis::cues::quoted;
use crate::core::config::Policy;
use crate::types::Candidate;
use crate::types::CandidateKind;
use crate::types::Datetime;
use crate::types::Reason;
use crate::types::SourceKind;
use crate::write::classify::analysis::Analysis;
use crate::write::classify::hint::apply_hint;
use crate::write::classify::kind::text_kind;
use crate::write::classify::learned::features;
use crate::write::classify::learned::learned_kind;
use crate::write::classify::learned::learned_personal;
use crate::write::classify::learned::model_signals;
use crate::write::classify::learned::stated_key;
use crate::write::classify::origin::masked_fold;
use crate::write::classify::origin::reject_injection;
use crate::write::classify::origin::via_of;
use crate::write::classify::origin::Origin;
use crate::write::classify::payload::build_payload;
use crate::write::classify::scan::scan;
use crate::write::classify::settle::settle;
use crate::write::detect::injection;
use crate::write::detect::injection::Carrier;
use crate::write::model;
use crate::write::model::Features;
use engram_contract::reason::ReasonCode;

pub(crate) fn analyse(c: &Candidate, now: Datetime, policy: &Policy) -> Analysis {
    let wp = &policy.write;
    let observed = c.observed_at.unwrap_or(now);
    let text = c.text.trim();
    let (secrets, personal, folded) = masked_fold(text, wp);
    let s = scan(&folded, observed, wp);
    let trust = policy.source(c.source.kind);
    let untrusted = !trust.may_instruct && !trust.inferred;
    // Where untrusted text is: the whole of a document or tool output, or
    // what a speaker quotes (inferences are judged on their own, below).
    let carrier = if untrusted {
        Some(Carrier::Source)
    } else if trust.inferred {
        None
    } else {
        let spans = injection::quoted_spans(&folded, wp);
        (!spans.is_empty()).then_some(Carrier::Quoted(spans))
    };
    let carried_spans: Vec<(usize, usize)> = match &carrier {
        Some(Carrier::Source) => vec![(0, folded.len())],
        Some(Carrier::Quoted(spans)) => spans.clone(),
        None => Vec::new(),
    };
    let origin = Origin {
        untrusted,
        inferred: trust.inferred,
        injected: carrier
            .as_ref()
            .and_then(|k| injection::detect_rules(text, &folded, k, &s.instruction, wp)),
        order: crate::write::detect::carried::orders(text, &folded, &carried_spans),
        trace: crate::write::detect::carried::trace(&folded, c.source.kind == SourceKind::Agent),
        dump: crate::write::detect::carried::dump(text),
    };

    let mut reasons = Vec::new();
    let mut signals = Signals {
        secrets,
        personal,
        instruction_like: s.instruction.is_instruction(),
        explicit_ask: s.explicit.first().map(|h| h.cue.to_string()),
        hedge: s.hedges.first().map(|h| h.cue.to_string()),
        risk_lowering: s.risk_lowering.first().map(|h| h.cue.to_string()),
        ..Signals::default()
    };
    if !s.deferrals.is_empty() {
        reasons.push(Reason::new(
            ReasonCode::KindDeferral,
            &[&quoted(&s.deferrals)],
        ));
    }
    if !s.task_traps.is_empty() {
        reasons.push(Reason::new(
            ReasonCode::KindPastOccurrence,
            &[&quoted(&s.task_traps)],
        ));
    }

    let event = kind::event::score(c, &s);
    let evidence = kind::Evidence {
        c,
        s: &s,
        wp,
        origin: &origin,
        event: &event,
        observed,
        folded: &folded,
    };
    let (rule_kind, strong) = text_kind(&evidence, &mut reasons, &mut signals);
    let model_signals = model_signals(c, &s, &signals, wp, &event);
    // The learned injection detector reads what the rules let through. It
    // decides the candidate (rejected, like a rule's injection) but is not
    // part of the rules' kind, which the kind model reads as its baseline.
    let mut decided = (rule_kind, strong);
    if origin.injected.is_none() {
        let via = via_of(c, carrier.as_ref());
        if let Some(inj) = carrier
            .as_ref()
            .and_then(|k| injection::detect_learned(text, &folded, k, wp, via))
        {
            reject_injection(c, &origin, &inj, &mut reasons, &mut signals);
            decided = (CandidateKind::None, true);
        }
    }
    Analysis {
        observed,
        folded,
        s,
        untrusted,
        reasons,
        signals,
        rule_kind,
        decided,
        model_signals,
    }
}

/// The kind the ordered rules alone reach (the model's baseline), and
/// whether their evidence is strong.
pub fn rule_kind(c: &Candidate, now: Datetime, policy: &Policy) -> (CandidateKind, bool) {
    let a = analyse(c, now, policy);
    a.decided
}

/// The features the learned model sees for a candidate (training uses this).
pub fn model_features(c: &Candidate, now: Datetime, policy: &Policy, buckets: u32) -> Features {
    let a = analyse(c, now, policy);
    features(c, &a, buckets)
}

/// Classify one candidate. `now` stands in for a missing `observed-at`.
pub fn classify(c: &Candidate, now: Datetime, policy: &Policy) -> Classification {
    let wp = &policy.write;
    let text = c.text.trim();
    let mut a = analyse(c, now, policy);
    // ── The learned decisions (write/model): one set of features, read by
    // the kind head and the sensitive-data head ──────────────────────────
    let f = features(c, &a, model::heads().0.buckets());
    let (text_kind, strong) = learned_kind(&f, stated_key(c), &mut a);
    let Analysis {
        observed,
        folded,
        s,
        untrusted,
        mut reasons,
        mut signals,
        ..
    } = a;
    let kind = apply_hint(c, text_kind, strong, &s, wp, &mut reasons, &mut signals);
    learned_personal(&f, kind, &mut reasons, &mut signals);

    let kind = settle(c, kind, untrusted, &s, &mut reasons, &mut signals);
    let payload = build_payload(c, kind, text, &folded, &s, observed, wp, &mut reasons);
    Classification {
        kind,
        reasons,
        payload,
        explicit_remember: !s.explicit.is_empty(),
        temporary: kind == CandidateKind::Working,
        signals,
        folded,
    }
}

#[cfg(test)]
mod scope_tests;
#[cfg(test)]
mod tests;
