//! The scan stage: every cue family of a folded, masked text in one pass
//! (`Scan`), with the structures built on the hits (task traps, single
//! successes, anchors, schedules, progress lines…).

pub(crate) mod grammar;
pub(crate) mod procedure;
pub(crate) mod shape;

use crate::analysis::cues::find_any;
use crate::analysis::cues::find_groups;
use crate::analysis::cues::longest;
use crate::analysis::cues::sentences;
use crate::analysis::cues::without;
use crate::analysis::cues::Hit;
use crate::analysis::timeexpr;
use crate::analysis::timeexpr::Precision;
use crate::analysis::timeexpr::Resolved;
use crate::core::config::WritePolicy;
use crate::types::Datetime;
use crate::vocab::cues::ScanList;
use crate::write::classify::scan::grammar::adjectival;
use crate::write::classify::scan::grammar::has_completed_aspect;
use crate::write::classify::scan::grammar::open_deferrals;
use crate::write::classify::scan::grammar::past_markers;
use crate::write::classify::scan::procedure::procedure;
use crate::write::classify::scan::procedure::Procedure;
use crate::write::classify::scan::shape::deictic_task;
use crate::write::classify::scan::shape::key_value;
use crate::write::classify::scan::shape::metrics;
use crate::write::classify::scan::shape::progress_line;
use crate::write::classify::scan::shape::request;
use crate::write::classify::scan::shape::residue;
use crate::write::classify::scan::shape::rule_starts;
use crate::write::classify::text::clause_span;
use crate::write::detect::injection;
use crate::write::detect::injection::Instruction;

/// The cue scan of one text.
pub(crate) struct Scan {
    pub(crate) persist: Vec<Hit>,
    pub(crate) deferrals: Vec<Hit>,
    pub(crate) task: Vec<Hit>,
    pub(crate) task_soft: Vec<Hit>,
    pub(crate) task_traps: Vec<Hit>,
    pub(crate) explicit: Vec<Hit>,
    pub(crate) chitchat: Vec<Hit>,
    pub(crate) residue: usize,
    pub(crate) units: usize,
    pub(crate) question: bool,
    pub(crate) anchors: Vec<Resolved>,
    pub(crate) outcomes: Vec<Hit>,
    pub(crate) past: Vec<String>,
    pub(crate) standing: Vec<Hit>,
    pub(crate) recurrence: Vec<Hit>,
    pub(crate) procedure: Procedure,
    pub(crate) single_success: Vec<Hit>,
    pub(crate) multi_evidence: Vec<Hit>,
    pub(crate) risk_lowering: Vec<Hit>,
    pub(crate) hedges: Vec<Hit>,
    pub(crate) failure: Vec<Hit>,
    pub(crate) success: Vec<Hit>,
    pub(crate) instruction: Instruction,
    /// Numbers with units ("1.2%", "20 分钟", "18.4M records").
    pub(crate) metrics: usize,
    /// A clause opens with a request ("帮我", "can you", an imperative).
    pub(crate) request: Option<String>,
    pub(crate) deixis: Vec<Hit>,
    pub(crate) immediacy: Vec<Hit>,
    pub(crate) quantifiers: Vec<Hit>,
    /// A recognised semantic predicate ("叫我", "时区").
    pub(crate) predicate: bool,
    /// Past occasions without a date ("上次", "last sprint").
    pub(crate) past_refs: Vec<Hit>,
    pub(crate) occasions: Vec<Hit>,
    pub(crate) reuse: Vec<Hit>,
    /// "today"/"明天" with no completed action: a plan for the day at hand.
    pub(crate) near_plan: Option<String>,
    /// A date introduced as the time of something ("于 2026-02-03",
    /// "on 2025-11-02", "在 2026-06-09 15:02").
    pub(crate) dated: bool,
    /// A deictic with a task object ("这个会话", "this script").
    pub(crate) task_deixis: Vec<Hit>,
    /// Copulas, attribute, possession and preference verbs (reactions such
    /// as "that is so" removed): evidence of a fact.
    pub(crate) facts: Vec<Hit>,
    pub(crate) relations: Vec<Hit>,
    pub(crate) preferences: Vec<Hit>,
    /// A progress or status line: the word or verb that says so.
    pub(crate) progress: Option<String>,
    /// How many sentences the text has.
    pub(crate) sentences: usize,
    /// A setting with its value ("api_url = …", "timeout: 30").
    pub(crate) key_value: bool,
    /// A recurring time ("每周二", "every Monday"): a schedule.
    pub(crate) schedule: Option<String>,
    /// Stretches from now to a moment ahead ("for the next hour",
    /// "接下来两天", "until Friday", "周五前"): bounds on what is asked.
    pub(crate) bounds: Vec<Resolved>,
}

/// Scan a folded, masked text for every cue family.
// Kept out of line: called once per candidate, and inlining it only
// grows the component.
#[inline(never)]
pub(crate) fn scan(f: &str, observed: Datetime, wp: &WritePolicy) -> Scan {
    let c = wp.cues;
    let g = wp.wildcard_max_gap_chars;
    // The families marked `%scan` (`guest/vocab/cues/`), in one pass.
    let mut groups = find_groups(f, &c.scan_lists(), g);
    let mut all = |l: ScanList| longest(std::mem::take(&mut groups[l as usize]));
    let deferrals = longest({
        // Deferral hits merge with "以后再…" before the longest are kept.
        let mut d = all(ScanList::Deferral);
        d.extend(open_deferrals(f));
        d.sort_by_key(|h| h.start);
        d
    });
    let persist = without(all(ScanList::Persistence), &deferrals);
    let task_traps = all(ScanList::TaskScopeTraps);
    let success = all(ScanList::Success);
    let failure = all(ScanList::Failure);
    let outcomes_here: Vec<Hit> = [success.clone(), failure.clone()].concat();
    let task_all = all(ScanList::TaskScope);
    let task_soft_all = all(ScanList::TaskScopeSoft);
    let task_traps: Vec<Hit> = {
        let mut t = task_traps;
        // "这次是重启 pod 解决的": an occurrence that was resolved, not a task.
        for h in task_all.iter().chain(&task_soft_all) {
            let clause = clause_span(f, h.start);
            if outcomes_here
                .iter()
                .any(|o| o.start >= clause.0 && o.end <= clause.1)
            {
                t.push(h.clone());
            }
        }
        t
    };
    // "这回重装驱动就好了", "fixed it this one time", "这次清了缓存就登上了，
    // 以后…": an occasion of the task-scope kind whose clause reports a
    // success, or (before a persistence cue) a completed action, is one
    // success, not the task at hand.
    let mut single_success = all(ScanList::SingleSuccess);
    for h in task_all.iter().chain(&task_soft_all) {
        let clause = clause_span(f, h.start);
        let succeeded = success
            .iter()
            .any(|o| o.start >= clause.0 && o.end <= clause.1);
        let completed = !persist.is_empty()
            && persist.iter().all(|p| p.start >= clause.1)
            && f.get(clause.0..clause.1).is_some_and(has_completed_aspect);
        if (succeeded || completed) && !single_success.iter().any(|x| x.overlaps(h)) {
            single_success.push(h.clone());
        }
    }
    // "就这一次" (it worked once) is no "这一次" (this task).
    let task_traps: Vec<Hit> = [task_traps, single_success.clone()].concat();
    let task = without(task_all, &task_traps);
    let task_soft = without(without(task_soft_all, &task), &task_traps);
    let chitchat = all(ScanList::Chitchat);
    // Recurring times ("每周二上午") are a schedule, stretches ahead
    // ("接下来一小时", "until Friday") a bound: neither is an event's time.
    let (schedule, times): (Vec<Resolved>, Vec<Resolved>) = timeexpr::find_all(f, observed)
        .into_iter()
        .partition(|r| r.recurring);
    let (bounds, anchors): (Vec<Resolved>, Vec<Resolved>) =
        times.into_iter().partition(|r| r.bound);
    let mut standing = all(ScanList::Standing);
    // "从 6 月 1 日起…", "Starting June 1, …": the start of a standing rule,
    // not the time of an event.
    standing.extend(rule_starts(f, &anchors, &all(ScanList::RuleStart)));
    // "表现一般" ends its clause: a judgement, not "usually".
    let recurrence: Vec<Hit> = all(ScanList::Recurrence)
        .into_iter()
        .filter(|h| {
            h.cue.is_ascii()
                || f.get(h.end..)
                    .and_then(|r| r.chars().next())
                    .is_some_and(|ch| !ch.is_ascii_punctuation() && !"，。；！？、".contains(ch))
        })
        .collect();
    let outcomes: Vec<Hit> = all(ScanList::EventOutcome)
        .into_iter()
        .filter(|h| !(h.cue.is_ascii() && adjectival(f, h.start, h.end)))
        .collect();
    let past_refs = all(ScanList::PastReference);
    let procedure = procedure(f, &deferrals, wp);
    let (residue, units) = residue(f, &chitchat, wp);
    let question = f.trim_end().ends_with(['?', '？']);
    let near_plan = anchors
        .iter()
        .find(|a| {
            let d = crate::core::time::local_day(a.at) - crate::core::time::local_day(observed);
            a.relative
                && (0..=1).contains(&d)
                && matches!(a.precision, Precision::Day | Precision::Instant)
                && !(a.precision == Precision::Instant && a.at.epoch_ms <= observed.epoch_ms)
        })
        .map(|a| a.expression.clone());
    // A report that opens with its calendar date ("2026-08-31，用户在会议中
    // 要求…", "2025-11-02: the nightly job…") dates what it tells, unless
    // the date starts a rule ("2026-03-01 起…").
    let leads_with_date = anchors.iter().any(|a| {
        let after = f.get(a.end..).unwrap_or("").trim_start();
        f.get(..a.start).unwrap_or("").trim().is_empty()
            && !a.relative
            && matches!(a.precision, Precision::Day | Precision::Instant)
            && after.starts_with(['，', ',', ':', '：', ' ', '\u{3000}'])
            && !wp.cues.rule_start.iter().any(|w| {
                after
                    .trim_start_matches(['，', ',', ':', '：', ' '])
                    .starts_with(w)
            })
    });
    let dated = leads_with_date
        || anchors.iter().any(|a| {
            let before = f.get(..a.start).unwrap_or("").trim_end();
            ["于", "在", "on", "at"].iter().any(|w| {
                before.ends_with(w)
                    && (!w.is_ascii()
                        || before[..before.len() - w.len()]
                            .chars()
                            .next_back()
                            .is_none_or(|ch| !ch.is_ascii_alphanumeric()))
            })
        });
    let task_deixis = deictic_task(f, &all(ScanList::TaskDeictics), &all(ScanList::TaskObjects));
    let reactions = all(ScanList::Reactions);
    let facts = without(all(ScanList::FactVerbs), &reactions);
    let immediacy = all(ScanList::Immediacy);
    let progress = progress_line(f, &all(ScanList::ProgressWords), !immediacy.is_empty());
    Scan {
        persist,
        deferrals,
        task,
        task_soft,
        task_traps,
        explicit: all(ScanList::ExplicitAsk),
        chitchat,
        residue,
        units,
        question,
        anchors,
        outcomes,
        past: past_markers(f, wp),
        standing,
        recurrence,
        procedure,
        single_success,
        multi_evidence: all(ScanList::MultiEvidence),
        risk_lowering: all(ScanList::RiskLowering),
        hedges: all(ScanList::Hedges),
        failure,
        success,
        instruction: injection::scan(f, wp),
        metrics: metrics(f),
        request: request(f, wp),
        deixis: all(ScanList::Deixis),
        immediacy,
        quantifiers: all(ScanList::Quantifiers),
        predicate: c
            .predicates
            .iter()
            .any(|(_, cues)| !find_any(f, cues, g).is_empty()),
        near_plan,
        dated,
        past_refs,
        occasions: all(ScanList::Occasions),
        reuse: all(ScanList::Reuse),
        task_deixis,
        facts,
        relations: all(ScanList::Relations),
        preferences: all(ScanList::PreferenceVerbs),
        progress,
        sentences: sentences(f).len(),
        key_value: key_value(f),
        schedule: schedule.into_iter().next().map(|r| r.expression),
        bounds,
    }
}

/// The expression of the first time anchor ("下个月", "on May 3").
pub(crate) fn first_anchor(s: &Scan) -> Option<&str> {
    s.anchors.first().map(|a| a.expression.as_str())
}
