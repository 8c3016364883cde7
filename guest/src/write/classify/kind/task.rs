//! Rules for task state: a task-scope cue, a deictic with a task object, an
//! activity in progress, a progress line, a soft task-scope cue, a request
//! about something at hand, a plan for the day at hand; a request bounded
//! in time or to the object at hand.

use crate::analysis::cues::fold;
use crate::analysis::cues::Hit;
use crate::analysis::timeexpr::{Precision, Resolved};
use crate::core::time::{civil_from_days, local_day};
use crate::types::Reason;
use crate::write::classify::kind::rule::{task_state, Decided, Evidence, KindRule};
use crate::write::classify::signals::Signals;
use crate::write::classify::text::clause_span;
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

/// "Only for today, answer in English", "接下来一小时别给我发通知", "暂时
/// 把日志调成 debug，今晚提醒我改回来", "until Friday, route the alerts to
/// me": what is said for a stretch of time that ends ahead (`Scan::bounds`)
/// or for the day, week or month at hand (a relative time expression) is
/// the task's, whatever words say it — seed 000: "这次发布先不要执行数据
/// 库迁移" is no lasting "用户不允许数据库迁移". Decided by structure: the
/// model does not overrule it. A recurrence, a persistence cue, an open
/// start ("from now on", "从今天起"), a completed action or an outcome (a
/// dated report: "today I deployed v2") and a question make it something
/// else.
pub(crate) struct TimeBound;

impl KindRule for TimeBound {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let s = e.s;
        if !bounded_applies(e) {
            return None;
        }
        let observed = e.observed;
        let today = local_day(observed);
        let at_hand = |a: &&Resolved| {
            let day = local_day(a.at);
            a.relative
                && match a.precision {
                    // Today or tomorrow, not a moment already past.
                    Precision::Day => (0..=1).contains(&(day - today)),
                    Precision::Instant => {
                        (0..=1).contains(&(day - today)) && a.at.epoch_ms > observed.epoch_ms
                    }
                    // The week or month it is said in.
                    Precision::Week => day <= today && today < day + 7,
                    Precision::Month => {
                        let (y, m, _) = civil_from_days(day);
                        let (ty, tm, _) = civil_from_days(today);
                        (y, m) == (ty, tm)
                    }
                    Precision::Year => false,
                }
        };
        // A stretch ahead bounds whatever is said in it; the day, week or
        // month at hand bounds a request ("今天好累啊" asks nothing).
        let f = e.folded;
        let bound = s.bounds.first().or_else(|| {
            s.anchors
                .iter()
                .find(at_hand)
                .filter(|a| asks(e, f, a.start))
        })?;
        // "写周报前先拉一下本周完成的单子": a condition makes it a routine,
        // unless the condition is the bound itself ("until Friday, …").
        let rule_condition = s
            .procedure
            .conditions
            .iter()
            .any(|&(a, b)| !(a <= bound.start && bound.end <= b));
        if rule_condition || precondition(s, f, bound.start) {
            return None;
        }
        signals.structural = Some("a time bound".into());
        task_state(
            reasons,
            signals,
            Reason::new(ReasonCode::KindTimeBound, &[&bound.expression]),
            bound.expression.clone(),
            true,
        )
    }
}

/// "Ship this release first, the feature later", "这个版本先不做导出",
/// "use metric units in these charts", "当前这个文档里，代码示例用
/// Python": a request whose object is picked out by a demonstrative —
/// "this X first", a preposition before "this"/"these"/"current", a
/// "now" word before 这… — is for the object at hand, not a lasting
/// preference. Needs a request (or "先"/"first", which orders the task),
/// and no conditions of a rule; decided by structure.
pub(crate) struct ObjectBound;

impl KindRule for ObjectBound {
    fn decide(
        &self,
        e: &Evidence,
        reasons: &mut Vec<Reason>,
        signals: &mut Signals,
    ) -> Option<Decided> {
        let s = e.s;
        if !bounded_applies(e) || !s.quantifiers.is_empty() || !s.procedure.conditions.is_empty() {
            return None;
        }
        let f = e.folded;
        let demonstrative =
            |h: &Hit| h.cue.starts_with('这') || ["this", "these", "current"].contains(&h.cue);
        let now_word =
            |h: &Hit| ["当前", "目前", "眼下", "现在", "current", "now"].contains(&h.cue);
        let found = s.deixis.iter().filter(|h| demonstrative(h)).find(|d| {
            let (a, b) = clause_span(f, d.start);
            let before = f.get(a..d.start).unwrap_or("");
            let after = f.get(d.end..b).unwrap_or("");
            // "这个版本先…", "ship this release first".
            let first = after
                .char_indices()
                .take_while(|(i, _)| *i <= 12)
                .any(|(i, ch)| ch == '先' && !after[i..].starts_with("先生"))
                || after
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w == "first");
            // "in these charts", "for this deck", "in the current document".
            let before = before.trim_end();
            let before = before.strip_suffix("the").unwrap_or(before);
            let preposition = before
                .trim_end()
                .rsplit(|c: char| !c.is_ascii_alphanumeric())
                .next()
                .is_some_and(|w| {
                    ["in", "for", "on", "within", "inside", "throughout"].contains(&w)
                });
            // "当前这个文档里", "我们现在做的这几页".
            let now = s
                .deixis
                .iter()
                .chain(&s.immediacy)
                .any(|n| now_word(n) && n.start >= a && n.end <= d.start)
                && !after.contains('是');
            first || (s.request.is_some() && preposition) || now
        })?;
        let cue = found.cue;
        signals.structural = Some("an object bound".into());
        task_state(
            reasons,
            signals,
            Reason::new(ReasonCode::KindObjectBound, &[cue]),
            cue.to_string(),
            true,
        )
    }
}

/// What a bounded request must not be: untrusted or inferred text, a
/// recurrence or schedule, a persistence cue or the start of a standing
/// rule, a completed action or an outcome, a question.
fn bounded_applies(e: &Evidence) -> bool {
    let s = e.s;
    !e.origin.untrusted
        && !e.origin.inferred
        && s.persist.is_empty()
        && s.recurrence.is_empty()
        && s.schedule.is_none()
        && s.standing.is_empty()
        && s.past.is_empty()
        && s.outcomes.is_empty()
        && !s.dated
        && !s.question
}

/// Does the text ask for something: a request or an imperative, a
/// task-scope cue, an ask to remind; in Chinese, a directive modal in the
/// sentence of the time at `at` — 别 ("别放"), 只 ("只用"), 先 ("先发"),
/// 不要 — not their compounds (特别, 只是, 先生).
fn asks(e: &Evidence, f: &str, at: usize) -> bool {
    let s = e.s;
    if s.request.is_some()
        || !s.task.is_empty()
        || !s.task_soft.is_empty()
        || !s.explicit.is_empty()
    {
        return true;
    }
    let (a, b) = sentence_span(f, at);
    let chars: Vec<char> = f.get(a..b).unwrap_or("").chars().collect();
    chars.iter().enumerate().any(|(i, ch)| {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let verb_next = next.is_some_and(crate::analysis::text::is_cjk);
        match ch {
            '别' => verb_next && !prev.is_some_and(|p| "特区分类级识告性差个辨派鉴".contains(p)),
            '只' => verb_next && !next.is_some_and(|n| "是有要能好不".contains(n)),
            '先' => {
                verb_next
                    && !next.is_some_and(|n| "生前后进锋例天".contains(n))
                    && !prev.is_some_and(|p| "首事原预优领祖率抢争".contains(p))
            }
            '要' => prev == Some('不') && verb_next,
            _ => false,
        }
    })
}

/// The sentence around byte `at` (sentences end at `。！？!?；;` or a line
/// break).
fn sentence_span(f: &str, at: usize) -> (usize, usize) {
    let end_of = |c: char| matches!(c, '。' | '！' | '？' | '!' | '?' | '；' | ';' | '\n');
    let a = f
        .get(..at)
        .and_then(|x| {
            x.rfind(end_of)
                .map(|i| i + x[i..].chars().next().map_or(1, char::len_utf8))
        })
        .unwrap_or(0);
    let b = f
        .get(at..)
        .and_then(|x| x.find(end_of).map(|i| at + i))
        .unwrap_or(f.len());
    (a, b)
}

/// "写周报前先拉一下本周完成的单子": an occasion with 前 ("before …")
/// that is no time, followed by what to do then, is the precondition of a
/// routine; the time in it names the occasion's material, not a bound.
fn precondition(s: &crate::write::classify::scan::Scan, f: &str, at: usize) -> bool {
    let (a, b) = sentence_span(f, at);
    let Some(sentence) = f.get(a..b) else {
        return false;
    };
    let in_time = |i: usize| {
        s.anchors
            .iter()
            .chain(&s.bounds)
            .any(|t| t.start <= a + i && a + i < t.end)
    };
    let chars: Vec<(usize, char)> = sentence.char_indices().collect();
    chars.iter().enumerate().any(|(k, &(i, ch))| {
        let prev = k.checked_sub(1).and_then(|j| chars.get(j)).map(|x| x.1);
        let next = chars.get(k + 1).map(|x| x.1);
        ch == '前'
            && !in_time(i)
            && prev.is_some_and(|p| {
                crate::analysis::text::is_cjk(p) && !"目提之以面当眼从".contains(p)
            })
            && next.is_some_and(|n| "先要都，,".contains(n))
    })
}
