//! Evidence that a text describes a procedure: ordered or numbered steps,
//! conditions with directives, guards, recovery strategies, procedure names
//! (`Procedure`).

use crate::analysis::cues::find_any;
use crate::analysis::cues::find_groups;
use crate::analysis::cues::longest;
use crate::analysis::cues::quoted;
use crate::analysis::cues::sentences;
use crate::analysis::cues::Hit;
use crate::core::config::WritePolicy;
use crate::write::classify::scan::grammar::chinese_condition;
use crate::write::classify::scan::grammar::clause_of;
use crate::write::classify::scan::grammar::english_past;
use crate::write::classify::scan::grammar::has_completed_aspect;
use crate::write::classify::scan::grammar::is_english_imperative;

/// Evidence that a text describes a procedure.
#[derive(Debug, Default)]
pub(crate) struct Procedure {
    pub(crate) score: f64,
    /// Ordered or enumerated steps (not only a condition or a guard).
    pub(crate) has_steps: bool,
    pub(crate) why: Vec<String>,
    /// Byte ranges of condition clauses (preconditions).
    pub(crate) conditions: Vec<(usize, usize)>,
    pub(crate) guards: Vec<Hit>,
    pub(crate) recovery: Vec<Hit>,
    /// Introduced as a rule or lesson ("经验：…", "Suggested rule from …:").
    pub(crate) headed: bool,
}

/// Evidence of a procedure: ordered steps, enumerations, conditions with
/// directives, guards, recovery strategies, procedure names.
pub(crate) fn procedure(f: &str, deferrals: &[Hit], wp: &WritePolicy) -> Procedure {
    let c = wp.cues;
    let g = wp.wildcard_max_gap_chars;
    let mut p = Procedure::default();
    let mut sequences = 0usize;
    let mut seq_cues: Vec<String> = Vec::new();
    let mut conditionals = 0usize;
    let all = sentences(f);
    for &(a, b) in &all {
        let Some(sentence) = f.get(a..b) else {
            continue;
        };
        let narrative_en = english_past(sentence, wp);
        // "To rotate the certs, run …": a purpose clause, then an imperative.
        let imperative = is_english_imperative(sentence, wp)
            || (sentence.starts_with("to ")
                && sentence
                    .split([',', '，'])
                    .skip(1)
                    .any(|cl| is_english_imperative(cl.trim_start(), wp)));
        let preferences = find_any(sentence, c.preference_verbs, g);
        for h in longest(find_any(sentence, c.sequence, g)) {
            let ascii = h.cue.is_ascii();
            // "以后再说" is a deferral, not "…后再…".
            if deferrals
                .iter()
                .any(|d| d.start < a + h.end && a + h.start < d.end)
            {
                continue;
            }
            // "更喜欢先看结论再看细节" describes a preference, not steps.
            if preferences.iter().any(|pv| {
                pv.end <= h.start
                    && !sentence
                        .get(pv.end..h.start)
                        .is_some_and(|gap| gap.contains(['，', ',', '；', ';']))
            }) {
                continue;
            }
            // "先重启了服务，再…" narrates; "先重启服务再…" instructs.
            let narrative_zh = sentence
                .get(h.start..)
                .map(|r| clause_of(r, h.end - h.start))
                .is_some_and(has_completed_aspect);
            if (ascii && narrative_en) || (!ascii && narrative_zh) {
                continue;
            }
            sequences += 1;
            seq_cues.push(h.cue.to_string());
        }
        if !narrative_en {
            // "Drain the node, then reboot it"; "User opens X, filters, then
            // exports" (a habit in the present tense).
            let then = find_any(sentence, c.sequence_imperative_en, g);
            // "…, then exports" orders actions; "…, then the reasons" orders
            // content (a format preference).
            let joined = [", then ", " and then "].iter().any(|j| {
                sentence.match_indices(j).any(|(i, _)| {
                    let next = sentence.get(i + j.len()..).unwrap_or("");
                    ![
                        "the ", "a ", "an ", "his ", "her ", "their ", "our ", "my ", "your ",
                    ]
                    .iter()
                    .any(|d| next.starts_with(d))
                })
            });
            if let Some(h) = then.first().filter(|_| imperative || joined) {
                sequences += 1;
                seq_cues.push(format!("… {}", h.cue));
            } else if imperative {
                // "create a guest account, add them to the group, and set an
                // expiry date"; "use the backup first".
                let steps = sentence
                    .split([',', ';'])
                    .flat_map(|cl| cl.split(" and "))
                    .filter(|cl| is_english_imperative(cl.trim_start(), wp))
                    .count();
                let first = crate::analysis::cues::find(sentence, "first", g)
                    .iter()
                    .any(|h| {
                        !sentence
                            .get(h.end..)
                            .is_some_and(|r| r.starts_with(" time"))
                    });
                if steps >= 2 || first {
                    sequences += 1;
                    seq_cues.push(if first {
                        "… first".into()
                    } else {
                        "imperative steps".into()
                    });
                }
            }
        }
        // Conditions: "如果 … 就", "… 时优先", "When …, send …", "Roll back if …".
        let english_cond = {
            let opens = c.condition_en.iter().any(|w| {
                sentence.starts_with(w)
                    && sentence.get(w.len()..).is_some_and(|r| r.starts_with(' '))
            });
            let then_imperative = opens
                && sentence
                    .split([',', '，'])
                    .skip(1)
                    .any(|clause| is_english_imperative(clause.trim_start(), wp));
            // "Never schedule meetings before 10am": a time, not a condition.
            let mid = imperative
                && c.condition_mid_en.iter().any(|w| {
                    crate::analysis::cues::find(sentence, w, g).iter().any(|h| {
                        h.start > 0
                            && !sentence.get(h.end..).is_some_and(|r| {
                                let next = r.trim_start();
                                // "…when you send me a report": how the
                                // agent's own output looks, a preference.
                                c.self_output.iter().any(|t| next.starts_with(t))
                                    || next.starts_with(|ch: char| ch.is_ascii_digit())
                                    || [
                                        "noon",
                                        "midnight",
                                        "lunch",
                                        "dinner",
                                        "today",
                                        "tomorrow",
                                        "tonight",
                                        "monday",
                                        "tuesday",
                                        "wednesday",
                                        "thursday",
                                        "friday",
                                        "saturday",
                                        "sunday",
                                        "the weekend",
                                        "weekends",
                                        "work",
                                    ]
                                    .iter()
                                    .any(|t| next.starts_with(t))
                            })
                    })
                });
            (then_imperative || mid) && !narrative_en
        };
        if english_cond || chinese_condition(sentence, wp) {
            conditionals += 1;
            p.conditions.push((a, b));
        }
    }
    // A condition as a heading ("遇到支付掉单：先查渠道流水…", "If the
    // build hangs: kill the daemon"), the steps after the colon.
    for pair in all.windows(2) {
        let [(a, b), (c2, d)] = [pair[0], pair[1]];
        let (Some(head), Some(body), Some(between)) = (f.get(a..b), f.get(c2..d), f.get(b..c2))
        else {
            continue;
        };
        if !between.trim_start().starts_with(['：', ':']) || p.conditions.contains(&(a, b)) {
            continue;
        }
        let opens_zh = !find_any(head, c.condition_zh, g).is_empty()
            || !find_any(head, c.condition_predicate_zh, g).is_empty();
        let opens_en = c.condition_en.iter().any(|w| {
            head.starts_with(w) && head.get(w.len()..).is_some_and(|r| r.starts_with(' '))
        });
        let directs = is_english_imperative(body, wp)
            || c.directive_zh
                .iter()
                .chain(c.action_zh)
                .any(|d| body.starts_with(d));
        if (opens_zh || opens_en) && directs && !has_completed_aspect(body) {
            conditionals += 1;
            p.conditions.push((a, b));
        }
    }
    // The five lists read over the whole text, in one pass.
    let [markers, guards, approvals, recovery, nouns] = find_groups(
        f,
        &[
            c.step_markers,
            c.guards,
            c.approval_guards,
            c.recovery,
            c.procedure_nouns,
        ],
        g,
    )
    .try_into()
    .unwrap_or_default();
    let markers = longest(markers);
    let numbered = numbered_steps(f);
    let enumerated = markers.len() >= 2 || numbered >= 2;
    p.has_steps = sequences > 0 || enumerated;
    p.guards = longest(guards);
    let approvals = longest(approvals);
    p.recovery = longest(recovery);
    let nouns = longest(nouns);
    p.score = 2.0 * sequences.min(2) as f64
        + if enumerated { 3.0 } else { 0.0 }
        + 2.0 * conditionals.min(2) as f64
        + if !approvals.is_empty() {
            2.0
        } else if p.guards.is_empty() {
            0.0
        } else {
            1.0
        }
        + if p.recovery.is_empty() { 0.0 } else { 1.0 };
    // A procedure's name only supports other evidence.
    if p.score > 0.0 && !nouns.is_empty() {
        p.score += 0.5;
        // Named in a short heading before a colon: what follows is the
        // rule, and a time or outcome in the heading is its provenance.
        let colon = f
            .find([':', '：'])
            .filter(|&i| f.get(..i).is_some_and(|h| h.chars().count() <= 48));
        p.headed = colon.is_some_and(|i| {
            nouns.iter().any(|h| h.end <= i)
                && (sequences > 0 || p.conditions.iter().any(|&(a, _)| a > i))
        });
    }
    seq_cues.dedup();
    if !seq_cues.is_empty() {
        p.why.push(format!(
            "ordered steps {}",
            seq_cues
                .iter()
                .take(3)
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if enumerated {
        p.why.push("enumerated steps".into());
    }
    if conditionals > 0 {
        p.why.push("condition with a directive".into());
    }
    p.guards.extend(approvals);
    if !p.guards.is_empty() {
        p.why.push(format!("guard {}", quoted(&p.guards)));
    }
    if !p.recovery.is_empty() {
        p.why.push(format!("recovery {}", quoted(&p.recovery)));
    }
    if p.score > 0.0 && !nouns.is_empty() {
        p.why.push(format!("named {}", quoted(&nouns)));
    }
    p
}

/// How many consecutive numbered steps ("1. … 2. …", "1) … 2)", "1、…
/// 2、…") a text has.
fn numbered_steps(f: &str) -> usize {
    let chars: Vec<char> = f.chars().collect();
    let mut expected = 1u32;
    let mut found = 0;
    for (i, ch) in chars.iter().enumerate() {
        let Some(d) = ch.to_digit(10) else { continue };
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let after = chars.get(i + 2).copied();
        let starts = prev.is_none_or(|p| {
            p.is_whitespace() || matches!(p, '；' | ';' | '，' | ',' | '：' | ':' | '。' | '(')
        });
        let marker = matches!(next, Some('.' | ')' | '、' | '）'))
            && after.is_none_or(|a| !a.is_ascii_digit());
        if starts && marker && d == expected {
            found += 1;
            expected += 1;
        }
    }
    found
}
