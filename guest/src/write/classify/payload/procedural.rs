//! A procedure's payload: its goal, preconditions, steps, guards,
//! recovery and authority.

use crate::analysis::cues::find_any;
use crate::analysis::cues::fold;
use crate::analysis::cues::longest;
use crate::analysis::cues::Hit;
use crate::core::config::WritePolicy;
use crate::types::ProceduralPayload;
use crate::types::ProcedureStep;
use crate::write::classify::scan::Scan;
use crate::write::classify::text::clauses;
use crate::write::classify::text::clip;

pub(crate) fn procedural_payload(
    text: &str,
    folded: &str,
    s: &Scan,
    wp: &WritePolicy,
) -> ProceduralPayload {
    let c = wp.cues;
    let g = wp.wildcard_max_gap_chars;
    let cls = clauses(text);
    let in_range = |(a, b): (usize, usize), ranges: &[(usize, usize)]| {
        ranges.iter().any(|(x, y)| a < *y && *x < b)
    };
    let hit_in =
        |(a, b): (usize, usize), hits: &[Hit]| hits.iter().any(|h| h.start < b && a < h.end);
    // The goal: a heading before a colon, else the first clause.
    let goal = text
        .split_once(['：', ':'])
        .filter(|(head, _)| head.chars().count() <= 60 && !head.trim().is_empty())
        .map(|(head, _)| head.trim().to_string())
        .or_else(|| {
            cls.first()
                .and_then(|(a, b)| text.get(*a..*b))
                .map(str::to_string)
        })
        .map(|g| clip(&g, 120))
        .unwrap_or_default();
    let preconditions: Vec<String> = cls
        .iter()
        .filter(|r| in_range(**r, &s.procedure.conditions))
        .filter(|(a, b)| {
            let t = folded.get(*a..*b).unwrap_or("");
            !find_any(t, c.condition_zh, g).is_empty()
                || !find_any(t, c.condition_predicate_zh, g).is_empty()
                || c.condition_en.iter().any(|w| t.starts_with(w))
                || t.contains('时')
        })
        .filter_map(|(a, b)| text.get(*a..*b))
        .map(|t| clip(t, 160))
        .take(4)
        .collect();
    let guards: Vec<String> = cls
        .iter()
        .filter(|r| hit_in(**r, &s.procedure.guards))
        .filter_map(|(a, b)| text.get(*a..*b))
        .map(|t| clip(t, 160))
        .take(4)
        .collect();
    let recovery: Vec<String> = cls
        .iter()
        .filter(|r| hit_in(**r, &s.procedure.recovery))
        .filter_map(|(a, b)| text.get(*a..*b))
        .map(|t| clip(t, 160))
        .take(4)
        .collect();
    let side_effects = longest(find_any(folded, c.side_effect, g));
    let mut steps = Vec::new();
    for (a, b) in &cls {
        let Some(t) = text.get(*a..*b) else { continue };
        if t.trim() == goal || preconditions.iter().any(|p| p == t) {
            continue;
        }
        let action = strip_step_words(t);
        if action.is_empty() {
            continue;
        }
        let lower = fold(&action);
        steps.push(ProcedureStep {
            id: format!("s{}", steps.len() + 1),
            action: clip(&action, 160),
            required: !["可选", "optional", "if needed", "如有需要", "视情况"]
                .iter()
                .any(|o| lower.contains(o)),
            side_effect: hit_in((*a, *b), &side_effects),
        });
        if steps.len() >= 12 {
            break;
        }
    }
    let authority = ["审批", "批准", "approval", "approve", "sign-off", "授权"]
        .iter()
        .find(|w| folded.contains(*w))
        .map(|w| format!("requires '{w}'"));
    ProceduralPayload {
        goal,
        preconditions,
        steps,
        guards,
        recovery,
        authority,
    }
}

/// A step's action without its ordering words ("先", "then", "①").
fn strip_step_words(t: &str) -> String {
    let mut s = t.trim();
    loop {
        let before = s;
        for w in [
            "首先",
            "其次",
            "然后",
            "接着",
            "最后",
            "之后",
            "再",
            "先",
            "并且",
            "并",
            "and only then",
            "and then",
            "first,",
            "first",
            "then",
            "next,",
            "next",
            "finally,",
            "finally",
            "and",
            "after that,",
        ] {
            if let Some(r) = s.strip_prefix(w) {
                let ascii_word = w.chars().last().is_some_and(|c| c.is_ascii_alphabetic());
                if !ascii_word || r.starts_with(' ') || r.is_empty() {
                    s = r.trim_start();
                }
            }
        }
        s = s.trim_start_matches(|c: char| {
            matches!(
                c,
                '①' | '②'
                    | '③'
                    | '④'
                    | '⑤'
                    | '⑥'
                    | '⑦'
                    | '⑧'
                    | '⑨'
                    | ' '
                    | '、'
                    | ')'
                    | '）'
            )
        });
        if s == before {
            break;
        }
    }
    s.trim()
        .trim_end_matches(['。', '.', '；', ';'])
        .to_string()
}
