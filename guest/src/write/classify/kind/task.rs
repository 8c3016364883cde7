//! Rules for task state: a task-scope cue, a deictic with a task object, an
//! activity in progress, a progress line, a soft task-scope cue, a request
//! about something at hand, a plan for the day at hand.

use crate::analysis::cues::fold;
use crate::types::Reason;
use crate::write::classify::kind::rule::{task_state, Decided, Evidence, KindRule};
use crate::write::classify::signals::Signals;
use engram_contract::reason::ReasonCode;

/// An explicit task-scope cue ("这次", "for now").
pub(crate) struct TaskCue;

impl KindRule for TaskCue {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let h = e.s.task.first()?;
        task_cue(h.cue, reasons, signals, true)
    }
}

/// "这个会话里先用英文", "for this one script": a deictic and a task
/// object, unless a persistence cue makes it a standing rule.
pub(crate) struct TaskDeixis;

impl KindRule for TaskDeixis {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let h = e.s.task_deixis.first().filter(|_| e.s.persist.is_empty())?;
        task_state(
            reasons,
            signals,
            Reason::new(ReasonCode::KindTaskDeixis, &[h.cue]),
            h.cue.to_string(),
            true,
        )
    }
}

/// "We're currently discussing the launch plan for project alpha",
/// "用户正在讨论项目 alpha": an activity in progress is where the task is
/// now, not a lasting fact about the speaker (seed 000 风险四: thread
/// state never becomes a global "用户当前负责项目 alpha").
pub(crate) struct Ongoing;

impl KindRule for Ongoing {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let (c, s) = (e.c, e.s);
        let p = ongoing(&fold(c.text.trim()))?;
        let applies = s.persist.is_empty()
            && s.recurrence.is_empty()
            && s.explicit.is_empty()
            && s.anchors.is_empty()
            && crate::write::key::structural(c.text.trim()).is_none();
        if !applies {
            return None;
        }
        signals.structural = Some("an activity in progress".into());
        task_state(
            reasons,
            signals,
            Reason::new(ReasonCode::KindInProgress, &[&p]),
            p,
            true,
        )
    }
}

/// "Step 3 of 6 finished", "上传进度 64%", "Indexing documents…": a
/// progress line is task state, unless it is a dated report.
pub(crate) struct Progress;

impl KindRule for Progress {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let s = e.s;
        let undated = s.anchors.is_empty() && e.c.occurred_at.is_none();
        let p = s
            .progress
            .as_ref()
            .filter(|_| undated && s.persist.is_empty())?;
        task_state(
            reasons,
            signals,
            Reason::new(ReasonCode::KindProgressLine, &[p]),
            p.clone(),
            true,
        )
    }
}

/// A soft task-scope cue ("先别"): it yields to a strong procedure, a
/// persistence cue or an event.
pub(crate) struct SoftTaskCue;

impl KindRule for SoftTaskCue {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let (s, wp) = (e.s, e.wp);
        let h = s.task_soft.first()?;
        if s.procedure.score >= wp.procedure_strong_score
            || !s.persist.is_empty()
            || e.event.0 >= wp.episode_min_score
        {
            return None;
        }
        task_cue(h.cue, reasons, signals, false)
    }
}

/// A request about something at hand ("先把这份报告翻成英文", "can you
/// draft the reply before the call"), with nothing that generalises it.
/// An agent's "我马上帮你查一下" offers, and a request inside a document
/// or tool output is the author's, not the user's: only a speaker's
/// request asks.
pub(crate) struct RequestAtHand;

impl KindRule for RequestAtHand {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let (s, wp) = (e.s, e.wp);
        let r = s
            .request
            .as_ref()
            .filter(|_| !e.origin.inferred && !e.origin.untrusted)?;
        let h = s.deixis.first().or(s.immediacy.first())?;
        let applies = s.persist.is_empty()
            && s.quantifiers.is_empty()
            && s.explicit.is_empty()
            && !s.predicate
            && s.procedure.conditions.is_empty()
            // "Proofread the paragraph above and fix typos": steps on
            // the thing at hand are still one task.
            && (!s.procedure.has_steps
                || (!s.deixis.is_empty() && s.procedure.score < wp.procedure_strong_score))
            && e.event.0 < wp.episode_min_score;
        if !applies {
            return None;
        }
        task_state(
            reasons,
            signals,
            Reason::new(ReasonCode::KindRequestAtHand, &[r, h.cue]),
            h.cue.to_string(),
            false,
        )
    }
}

/// "The team lunch is at noon today": a plan for the day at hand.
pub(crate) struct NearPlan;

impl KindRule for NearPlan {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let s = e.s;
        let when = s.near_plan.as_ref()?;
        if !(s.past.is_empty()
            && s.outcomes.is_empty()
            && s.persist.is_empty()
            && s.procedure.conditions.is_empty())
        {
            return None;
        }
        task_state(
            reasons,
            signals,
            Reason::new(ReasonCode::KindPlanForToday, &[when]),
            when.clone(),
            true,
        )
    }
}

/// A task-scope cue's decision (`TaskCue` strong, `SoftTaskCue` not).
fn task_cue(
    cue: &str,
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
    strong: bool,
) -> Option<Decided> {
    task_state(
        reasons,
        signals,
        Reason::new(ReasonCode::KindTaskScopeCue, &[cue]),
        cue.to_string(),
        strong,
    )
}

/// An activity the speaker is in the middle of: Chinese 正在 (or 目前在 /
/// 现在在 before a verb), English first-person progressive with a "now"
/// adverb ("we're currently discussing", "I'm working on … right now").
/// Returns the words that say so.
fn ongoing(folded: &str) -> Option<String> {
    for m in ["正在", "目前在", "现在在", "眼下在", "当前在"] {
        if folded.contains(m) {
            return Some(m.to_string());
        }
    }
    let now = ["currently", "right now", "at the moment", "at present"]
        .iter()
        .find(|w| folded.contains(*w))?;
    let words: Vec<&str> = folded
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let first_person = ["we're", "we", "i'm", "i", "we’re", "i’m", "us"];
    let progressive = words.windows(4).any(|w| {
        first_person.contains(&w[0])
            && (w[1..].iter().take(3).any(|x| {
                x.len() > 4
                    && x.ends_with("ing")
                    && !["thing", "nothing", "something", "morning", "evening"].contains(x)
            }))
            && (w[0].ends_with("'re")
                || w[0].ends_with("'m")
                || ["are", "am"].contains(&w[1])
                || w[0].ends_with("re")
                || w[0] == "i'm")
    });
    progressive.then(|| now.to_string())
}
