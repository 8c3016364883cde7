//! Grammar the scan reads: completed actions (Chinese aspect, English past
//! tense), English imperatives, Chinese conditions with a directive,
//! deadlines, adjectival "-ed" words, open deferrals.

use crate::analysis::cues::find_any;
use crate::analysis::cues::first_word;
use crate::analysis::cues::last_word;
use crate::analysis::cues::words;
use crate::analysis::cues::Hit;
use crate::analysis::timeexpr;
use crate::core::config::WritePolicy;
use crate::core::config::CUES;
use crate::types::Datetime;

/// Is the "-ed" word at `f[start..end]` an adjective ("5 failed attempts",
/// "the crashed nodes") rather than a past-tense verb?
pub(crate) fn adjectival(f: &str, start: usize, end: usize) -> bool {
    let Some(w) = f.get(start..end) else {
        return false;
    };
    if !w.ends_with("ed") {
        return false;
    }
    let before = f.get(..start).unwrap_or("");
    let prev = last_word(before).map(|(_, p)| p);
    let after = f.get(end..).unwrap_or("");
    let next = first_word(after);
    let prev_det = prev.is_some_and(|p| CUES.adjective_determiners.contains(&p));
    let adjacent = |i: usize| after.get(..i).is_some_and(|g| g.trim().is_empty());
    let plural_next = next.is_some_and(|(i, n)| {
        adjacent(i)
            && n.len() > 3
            && n.ends_with('s')
            && !n.ends_with("ss")
            && !CUES.not_plural.contains(&n)
    });
    // "the failed deploy", "5 failed attempts"; not "Postgres 16 finished".
    prev_det || plural_next
}

/// Completed-action markers: Chinese aspect "了"/"已", English past tense.
pub(crate) fn past_markers(f: &str, wp: &WritePolicy) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = f.chars().collect();
    for (i, ch) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        match ch {
            '了' => {
                let idiom = matches!(next, Some('解'))
                    || matches!(prev, Some('为' | '除' | '算' | '罢' | '极'));
                if !idiom && prev.is_some() {
                    out.push("了".to_string());
                }
            }
            // "已于", "已经", "已结单"; "已将" is a plan.
            '已' if next.is_some_and(crate::analysis::text::is_cjk) && next != Some('将') => {
                out.push("已".to_string());
            }
            _ => {}
        }
    }
    let cues = wp.cues;
    let ws = words(f);
    for (k, (at, w)) in ws.iter().enumerate() {
        if adjectival(f, *at, at + w.len()) {
            continue;
        }
        let prev = k.checked_sub(1).and_then(|j| ws.get(j)).map(|(_, p)| *p);
        let passive_now = matches!(
            prev,
            Some("is" | "are" | "am" | "be" | "been" | "being" | "get" | "gets")
        );
        let regular = w.len() > 4 && w.ends_with("ed") && !cues.not_past_en.contains(w);
        if cues.past_en.contains(w) || (regular && !passive_now) {
            out.push(w.to_string());
        }
    }
    out
}

pub(crate) fn is_english_imperative(sentence: &str, wp: &WritePolicy) -> bool {
    let c = wp.cues;
    let ws: Vec<&str> = words(sentence).into_iter().map(|(_, w)| w).collect();
    let mut k = 0;
    // Skip lead words ("please", "always", "don't", "make sure to").
    'lead: while k < ws.len() {
        for lead in c.imperative_lead_en {
            // Word by word, without collecting the lead's words.
            let n = lead.split(' ').count();
            if ws
                .get(k..k + n)
                .is_some_and(|s| s.iter().copied().eq(lead.split(' ')))
            {
                k += n;
                continue 'lead;
            }
        }
        break;
    }
    ws.get(k).is_some_and(|w| c.imperative_verbs_en.contains(w))
}

/// Does a Chinese sentence state a condition followed by a directive?
pub(crate) fn chinese_condition(sentence: &str, wp: &WritePolicy) -> bool {
    let c = wp.cues;
    let g = wp.wildcard_max_gap_chars;
    let mut cond_at: Option<usize> = None;
    for h in find_any(sentence, c.condition_zh, g)
        .into_iter()
        .chain(find_any(sentence, c.condition_predicate_zh, g))
    {
        if deadline(sentence, &h) {
            continue;
        }
        cond_at = Some(cond_at.map_or(h.end, |x: usize| x.min(h.end)));
    }
    // "发版前都要…": a world-changing verb before 前.
    for h in find_any(sentence, c.side_effect, g) {
        let rest = sentence.get(h.end..).unwrap_or("");
        if let Some(p) = ["前", "之前", "以前"]
            .iter()
            .find(|p| rest.starts_with(**p))
        {
            let end = h.end + p.len();
            cond_at = Some(cond_at.map_or(end, |x| x.min(end)));
        }
    }
    // "…时，" / "…时优先": 时 after a verb or noun, not in a compound.
    let chars: Vec<(usize, char)> = sentence.char_indices().collect();
    for (k, (i, ch)) in chars.iter().enumerate() {
        if *ch != '时' {
            continue;
        }
        let prev = k.checked_sub(1).and_then(|j| chars.get(j)).map(|x| x.1);
        let next = chars.get(k + 1).map(|x| x.1);
        let compound_before = prev.is_none_or(|p| {
            "小同及临暂准按实当那此届平有旧过随定计超耗用何几".contains(p)
                || !crate::analysis::text::is_cjk(p) && p != ' '
        });
        let compound_after = next.is_some_and(|n| "间候区长效段刻代期光机钟辰尚髦".contains(n));
        if !compound_before && !compound_after {
            let end = i + '时'.len_utf8();
            cond_at = Some(cond_at.map_or(end, |x| x.min(end)));
        }
    }
    let Some(at) = cond_at else {
        return false;
    };
    let narrative_to = |end: usize| {
        sentence
            .get(at..)
            .map(|r| clause_of(r, end.saturating_sub(at)))
            .is_some_and(has_completed_aspect)
    };
    let directive = find_any(sentence, c.directive_zh, g).into_iter().any(|d| {
        // "先生" is not "first"; "…时就重启了" is a narrative, not a rule.
        d.start >= at
            && !narrative_to(d.end)
            && !(d.cue == "先" && sentence.get(d.end..).is_some_and(|r| r.starts_with('生')))
    });
    // "库存低于安全线时，自动生成补货单": the consequence clause opens with
    // (at most a few characters before) an action verb.
    let action = find_any(sentence, c.action_zh, g)
        .into_iter()
        .chain(find_any(sentence, c.side_effect, g))
        .any(|v| {
            let Some(gap) = sentence.get(at..v.start.max(at)) else {
                return false;
            };
            let lead = match gap.rfind(['，', ',']) {
                Some(i) => gap.get(i..).map_or(usize::MAX, |t| t.chars().count() - 1),
                None => gap.chars().count(),
            };
            v.start >= at && lead <= 6 && !narrative_to(v.end)
        });
    directive || action
}

/// "今晚之前", "周五以前": 之前/以前 right after a time is a deadline for
/// the task at hand, not a precondition of a rule.
pub(crate) fn deadline(sentence: &str, h: &Hit) -> bool {
    if h.cue != "之前" && h.cue != "以前" {
        return false;
    }
    let epoch = Datetime {
        epoch_ms: 0,
        offset_minutes: 0,
    };
    timeexpr::find_all(sentence, epoch).iter().any(|a| {
        // "今晚之前" is read whole, as a stretch ending tonight.
        (a.bound && a.start <= h.start && h.end <= a.end)
            || sentence
                .get(a.end..h.start)
                .is_some_and(|gap| gap.trim().is_empty())
    })
}

/// The text from the start of `r` to the end of the clause containing byte
/// `at` (clauses end at `，,；;`).
pub(crate) fn clause_of(r: &str, at: usize) -> &str {
    let end = r
        .get(at..)
        .and_then(|t| t.find(['，', ',', '；', ';']))
        .map(|x| at + x)
        .unwrap_or(r.len());
    r.get(..end).unwrap_or(r)
}

/// A completed action ("了") in a Chinese sentence: a narrative, not a rule.
pub(crate) fn has_completed_aspect(sentence: &str) -> bool {
    let chars: Vec<char> = sentence.chars().collect();
    chars.iter().enumerate().any(|(i, ch)| {
        *ch == '了'
            && i > 0
            && !matches!(chars.get(i + 1), Some('解'))
            && !matches!(
                chars.get(i - 1),
                Some('为' | '除' | '算' | '罢' | '极' | '好')
            )
    })
}

/// An English narrative: a past auxiliary or irregular past form, or two
/// "-ed" verbs ("a reviewer approved" alone is not a story).
pub(crate) fn english_past(sentence: &str, wp: &WritePolicy) -> bool {
    let markers = past_markers(sentence, wp);
    let irregular = markers
        .iter()
        .filter(|m| wp.cues.past_en.contains(&m.as_str()))
        .count();
    let ed = markers.iter().filter(|m| m.ends_with("ed")).count();
    irregular > 0 || ed >= 2
}

/// "以后再研究", "回头再看": a deferral, unless a condition follows
/// ("以后再遇到…" means "next time").
pub(crate) fn open_deferrals(f: &str) -> Vec<Hit> {
    let mut out = Vec::new();
    for o in CUES.deferral_openers {
        for (i, _) in f.match_indices(o) {
            let rest = f.get(i + o.len()..).unwrap_or("");
            if !CUES.deferral_next_time.iter().any(|n| rest.starts_with(n)) {
                out.push(Hit {
                    cue: o,
                    start: i,
                    end: i + o.len(),
                });
            }
        }
    }
    out
}
