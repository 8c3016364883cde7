//! The model stage: the learned heads (`write::model`) read one set of
//! features — hashed n-grams, the source, the rules' kind and the scan's
//! signals — and decide the kind (within the margins the rules allow) and
//! sensitive data in ordinary words.

use crate::core::config::WritePolicy;
use crate::core::model::candidate_kind_name;
use crate::types::Candidate;
use crate::types::CandidateKind;
use crate::types::Reason;
use crate::write::classify::analysis::Analysis;
use crate::write::classify::kind::rule::EventReading;
use crate::write::classify::scan::Scan;
use crate::write::classify::signals::Signals;
use crate::write::classify::signals::UnsureReading;
use crate::write::model;
use crate::write::model::Features;
use engram_contract::reason::ReasonCode;

pub(crate) fn features(c: &Candidate, a: &Analysis, buckets: u32) -> Features {
    Features::of(
        buckets,
        &a.folded,
        crate::core::model::source_label(c.source.kind),
        candidate_kind_name(a.rule_kind),
        &a.model_signals,
    )
}

/// A model decision at least this far ahead of the runner-up (in logits)
/// may overrule a caller's kind hint, like strong rule evidence.
const MODEL_STRONG_MARGIN: f64 = 2.0;

/// How far ahead of the runner-up (in logits) the model must be to overrule
/// the rules: where their evidence is weak, and where it is strong (a
/// task-scope cue, a chit-chat match, ordered steps…). Below that the model
/// is unsure and the rules stand. (Chosen by cross-validation and the
/// development sets, never the test split.)
const MODEL_OVER_WEAK_RULES: f64 = 1.0;

const MODEL_OVER_STRONG_RULES: f64 = 1.5;

/// On an untrusted source (a document, a tool's output), the lead (in
/// logits) the model must have, agreeing with the rules, for a kept kind to
/// be stored active. Below it — or when the model leans another way
/// without the lead to overrule — the text is kept pending
/// (`Signals::unsure_untrusted`, the confidence gate): safety on untrusted
/// text never rests on a thin margin.
const UNTRUSTED_ACTIVE_MARGIN: f64 = 1.0;

/// Marks untrusted text whose kept kind rests on an unsure learned reading.
/// A caller that states the whole key (subject, predicate and object) gave
/// the structure itself: the kind does not rest on the model's reading.
fn unsure_untrusted(a: &mut Analysis, kept: CandidateKind, d: &model::Decision, stated_key: bool) {
    let sure = stated_key || (d.kind == kept && d.margin >= UNTRUSTED_ACTIVE_MARGIN);
    if a.untrusted && storable(kept) && !sure {
        a.signals.unsure_untrusted = Some(UnsureReading {
            leans: d.kind,
            margin: d.margin,
            needed: UNTRUSTED_ACTIVE_MARGIN,
        });
    }
}

/// A kind stored as lasting memory.
fn storable(k: CandidateKind) -> bool {
    matches!(
        k,
        CandidateKind::Semantic | CandidateKind::Episodic | CandidateKind::Procedural
    )
}

/// The learned model decides the kind (and so the value: `none` keeps
/// nothing) from the text and the rule scan. Above it stay, as hard rules:
/// injections and untrusted instructions (which set `signals.injection`),
/// untrusted text the rules found nothing to keep in, and strong rule
/// evidence unless the model is a logit ahead. Its top features go into the
/// reasons either way.
/// Whether the caller stated the whole key (subject, predicate and object):
/// an extraction someone already made, which the model's reading of the
/// words (unfamiliar names look like nothing) must not discard.
pub(crate) fn stated_key(c: &Candidate) -> bool {
    [&c.subject, &c.predicate, &c.object]
        .iter()
        .all(|v| v.as_deref().is_some_and(|x| !x.trim().is_empty()))
}

pub(crate) fn learned_kind(
    f: &Features,
    stated_key: bool,
    a: &mut Analysis,
) -> (CandidateKind, bool) {
    if a.signals.injection.is_some() {
        return a.decided;
    }
    if let Some(rule) = a.signals.structural.clone() {
        let d = model::decide(f);
        if d.kind != a.decided.0 {
            a.reasons
                .push(leaning(ReasonCode::ModelStructural, &d, &rule));
        }
        return a.decided;
    }
    // An explicit task-scope cue ("这次", "for now", "just this once") is
    // the definition of working memory (SPEC §3.1): a hard rule, like an
    // injection; the model is still shown in the reasons.
    let task_cue = a.rule_kind == CandidateKind::Working && !a.s.task.is_empty();
    let d = model::decide(f);
    if task_cue && d.kind != a.rule_kind {
        a.reasons.push(leaning(ReasonCode::ModelTaskCue, &d, ""));
        return a.decided;
    }
    if d.kind == a.rule_kind {
        a.reasons.push(leaning(ReasonCode::ModelAgrees, &d, ""));
        unsure_untrusted(a, d.kind, &d, stated_key);
        return (d.kind, a.decided.1 || d.margin >= MODEL_STRONG_MARGIN);
    }
    // Text from an untrusted carrier (a document, a tool's output) is kept
    // only on the rules' positive evidence: the model may keep less of it,
    // never more (it can carry an injection no detector names).
    if a.untrusted && !storable(a.rule_kind) && storable(d.kind) {
        a.reasons.push(leaning(ReasonCode::ModelUntrusted, &d, ""));
        return a.decided;
    }
    // A fact the rules found, keyed by a trusted caller, is kept: the model
    // may say what kind it is, not that it is worth nothing.
    if stated_key && !a.untrusted && storable(a.rule_kind) && d.kind == CandidateKind::None {
        a.reasons.push(leaning(ReasonCode::ModelStatedKey, &d, ""));
        return a.decided;
    }
    let needed = if a.decided.1 {
        MODEL_OVER_STRONG_RULES
    } else {
        MODEL_OVER_WEAK_RULES
    };
    if d.margin < needed {
        a.reasons
            .push(leaning(ReasonCode::ModelShortMargin, &d, ""));
        unsure_untrusted(a, a.decided.0, &d, stated_key);
        return a.decided;
    }
    a.reasons.push(leaning(
        ReasonCode::ModelOverrules,
        &d,
        candidate_kind_name(a.rule_kind),
    ));
    let signals = &mut a.signals;
    match d.kind {
        CandidateKind::None => {
            signals.task_scope = None;
            signals.no_value = Some(format!(
                "the model finds nothing to keep ({})",
                d.describe()
            ));
        }
        CandidateKind::Working => {
            signals.no_value = None;
            signals.task_scope = d.top.first().map(|(n, _)| n.clone());
        }
        _ => {
            signals.no_value = None;
            signals.task_scope = None;
        }
    }
    unsure_untrusted(a, d.kind, &d, stated_key);
    (d.kind, d.margin >= MODEL_STRONG_MARGIN)
}

/// The model's reading as a reason of `code` (a `model.…` code): its kind,
/// margin and top features, and `other` (the structural rule, or the
/// rules' kind) where the code's template has a slot for it.
fn leaning(code: ReasonCode, d: &model::Decision, other: &str) -> Reason {
    let kind = candidate_kind_name(d.kind);
    let margin = format!("{:.1}", d.margin);
    let features = d.describe();
    let values: Vec<&str> = code
        .slots()
        .iter()
        .map(|slot| match *slot {
            "kind" => kind,
            "margin" => margin.as_str(),
            "features" => features.as_str(),
            _ => other,
        })
        .collect();
    Reason::new(code, &values)
}

/// Sensitive personal data said in ordinary words ("我对芒果过敏", "my
/// take-home is about 4k"): the learned head (`model::sensitive`) adds a
/// personal-data finding that the sensitivity gate treats like the
/// detectors' (rejected without an explicit ask, pending with one). It
/// guards lasting memory: task state and text with nothing to keep are
/// left to the detectors, and a family the detectors already found is not
/// reported twice.
pub(crate) fn learned_personal(
    f: &Features,
    kind: CandidateKind,
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
) {
    let lasting = matches!(
        kind,
        CandidateKind::Semantic | CandidateKind::Episodic | CandidateKind::Procedural
    );
    if !lasting || signals.injection.is_some() {
        return;
    }
    let Some(found) = model::sensitive::detect(f) else {
        return;
    };
    if signals.personal.iter().any(|p| p.family == found.family) {
        return;
    }
    reasons.push(Reason::new(
        ReasonCode::ModelSensitiveData,
        &[&found.describe()],
    ));
    signals.personal.push(found);
}

/// The rule scan's structural signals, as named model features.
pub(crate) fn model_signals(
    c: &Candidate,
    s: &Scan,
    sig: &Signals,
    wp: &WritePolicy,
    event: &EventReading,
) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut on = |b: bool, name: &'static str| {
        if b {
            out.push(name);
        }
    };
    on(!s.persist.is_empty(), "persistence");
    on(!s.deferrals.is_empty(), "deferral");
    on(!s.task.is_empty(), "task-scope");
    on(!s.task_soft.is_empty(), "soft-task-scope");
    on(!s.task_traps.is_empty(), "task-trap");
    on(!s.explicit.is_empty(), "explicit-ask");
    on(!s.chitchat.is_empty(), "chitchat");
    on(s.residue <= 1, "little-residue");
    on(s.units < 4, "very-short");
    on((4..12).contains(&s.units), "short");
    on(s.units >= 40, "long");
    on(s.question, "question");
    on(!s.anchors.is_empty(), "time-anchor");
    on(!s.outcomes.is_empty(), "outcome");
    on(!s.past.is_empty(), "past-tense");
    on(!s.standing.is_empty(), "standing-state");
    on(!s.recurrence.is_empty(), "recurrence");
    on(s.procedure.score > 0.0, "procedure-cue");
    on(
        s.procedure.score >= wp.procedure_min_score,
        "procedure-score",
    );
    on(
        s.procedure.score >= wp.procedure_strong_score,
        "procedure-strong",
    );
    on(s.procedure.has_steps, "ordered-steps");
    on(!s.procedure.conditions.is_empty(), "condition");
    on(!s.procedure.guards.is_empty(), "guard");
    on(!s.procedure.recovery.is_empty(), "recovery");
    on(s.procedure.headed, "rule-heading");
    on(!s.single_success.is_empty(), "single-success");
    on(!s.multi_evidence.is_empty(), "multi-evidence");
    on(!s.risk_lowering.is_empty(), "risk-lowering");
    on(!s.hedges.is_empty(), "hedge");
    on(!s.failure.is_empty(), "failure");
    on(!s.success.is_empty(), "success");
    on(s.instruction.is_instruction(), "instruction-like");
    on(s.metrics > 0, "metric");
    on(s.metrics > 2, "metrics");
    on(s.request.is_some(), "request");
    on(!s.deixis.is_empty(), "deixis");
    on(!s.immediacy.is_empty(), "immediacy");
    on(!s.quantifiers.is_empty(), "quantifier");
    on(s.predicate, "known-predicate");
    on(!s.past_refs.is_empty(), "past-reference");
    on(!s.occasions.is_empty(), "occasion");
    on(!s.reuse.is_empty(), "reuse");
    on(s.near_plan.is_some(), "near-plan");
    on(s.dated, "dated");
    on(!s.task_deixis.is_empty(), "task-deixis");
    on(!s.facts.is_empty(), "fact-verb");
    on(!s.relations.is_empty(), "relation");
    on(!s.preferences.is_empty(), "preference");
    on(s.progress.is_some(), "progress");
    on(s.sentences > 1, "several-sentences");
    on(s.key_value, "key-value");
    on(s.schedule.is_some(), "schedule");
    on(!sig.secrets.is_empty(), "secret");
    on(!sig.personal.is_empty(), "personal-data");
    let (epi, anchored, _) = event;
    on(*epi > 0.0, "event-cue");
    on(*epi >= wp.episode_min_score, "event-score");
    on(*anchored, "event-anchored");
    on(c.occurred_at.is_some(), "occurred-at-given");
    out
}
