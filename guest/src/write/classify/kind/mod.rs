//! The kind stage: the kind the text alone supports, by ordered rules —
//! one concept per file, each rule a `KindRule` (`rule.rs`) that decides
//! the kind with its reason or leaves the text to the next. `RULES` is the
//! order, written once as data: the first rule that decides wins, and when
//! none does the text is a standing fact if it shows evidence of one
//! (`fact.rs`), else nothing to keep.
//!
//! In words, in order:
//!
//! 1. where the text comes from (`carried.rs`): text from an untrusted
//!    carrier — a document or tool output, or a document, ticket, email or
//!    page quoted in a message — that addresses the assistant is a prompt
//!    injection (`none`; the permission gate rejects it and names the
//!    marker family); so is an order in carried text; a reasoning trace, a
//!    raw payload, an inference carrying instructions are not memory;
//! 2. acknowledgements, chit-chat, filler (`noise.rs`) are `none`;
//! 3. task scope makes it `working` (`task.rs`): task-scope cues ("这次",
//!    "for now"), a deictic with a task object ("这个会话里", "for this one
//!    script"), a request bounded in time ("接下来一小时", "until Friday",
//!    "今天只用中文") or to the object at hand ("这个版本先…", "in these
//!    charts"), decided by structure, an activity in progress, progress and status lines ("3/8
//!    个模块", "Step 2 of 5 done"), a request about something at hand, a
//!    plan for the day at hand; soft cues ("先别") yield to a procedure or
//!    a persistence cue, traps ("只验证过这一次") do not count; a status
//!    read from its system is an observation (`event.rs`), a bare question
//!    states nothing (`noise.rs`);
//! 4. an inference's summary and a standing choice of a value are facts by
//!    their structure (`choice.rs`);
//! 5. ordered steps, conditions with directives, guards and recovery
//!    strategies make it `procedural` (`procedure.rs`); a rule drawn from
//!    one success is a procedure under review;
//! 6. a time anchor ("上周二", "2026-03-31", "two weeks ago") with an
//!    outcome or a completed action makes it `episodic` (`event.rs`);
//!    standing-state, recurrence, persistence cues and the start date of a
//!    standing rule ("从 6 月 1 日起") argue against;
//! 7. `semantic` needs positive evidence of a fact (`fact.rs`) — a copula
//!    or attribute verb, a relation, a preference, a persistence cue or an
//!    explicit ask, a standing state or habit, a measured value, caller
//!    structure. Without it the text is `none` and the value gate says why.
//!
//! A new rule is one file (or one struct in the file of its concept) and
//! one entry in `RULES`.

pub(crate) mod carried;
pub(crate) mod choice;
pub(crate) mod event;
pub(crate) mod fact;
pub(crate) mod noise;
pub(crate) mod procedure;
pub(crate) mod rule;
pub(crate) mod task;

use crate::types::Reason;
use crate::write::classify::signals::Signals;
pub(crate) use rule::Evidence;
use rule::{Decided, KindRule};

/// The kind rules, in the order they are asked.
pub(crate) const RULES: &[&dyn KindRule] = &[
    &carried::Injection,
    &carried::CarriedOrder,
    &carried::Trace,
    &carried::RawData,
    &carried::InferredInstruction,
    &noise::Chitchat,
    &noise::TooShort,
    &task::TaskCue,
    &task::TaskDeixis,
    &task::TimeBound,
    &task::ObjectBound,
    &task::Ongoing,
    &task::Progress,
    &event::ObservedStatus,
    &task::SoftTaskCue,
    &task::RequestAtHand,
    &task::NearPlan,
    &noise::BareQuestion,
    &choice::InferredSummary,
    &choice::InferredAboutUser,
    &choice::StandingChoice,
    &procedure::Steps,
    &procedure::SingleSuccessLesson,
    &event::AnchoredEvent,
    &event::UnanchoredEvent,
];

/// The kind the text alone supports, and whether the evidence is strong
/// enough to overrule a caller's hint.
pub(crate) fn text_kind(e: &Evidence, reasons: &mut Vec<Reason>, signals: &mut Signals) -> Decided {
    RULES
        .iter()
        .find_map(|rule| rule.decide(e, reasons, signals))
        .unwrap_or_else(|| fact::standing_fact(e, reasons, signals))
}
