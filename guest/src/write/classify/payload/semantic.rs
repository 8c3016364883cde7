//! A fact's payload: its key (subject, predicate, condition) and value —
//! the caller's, else the sentence's structure (`write::key`), a recognised
//! predicate, "X 的 Y 是 Z" / "X's Y is Z", else the statement keyed by its
//! text.

use crate::analysis::cues::find_any;
use crate::analysis::cues::fold;
use crate::analysis::cues::sentences;
use crate::core::config::WritePolicy;
use crate::core::config::CUES;
use crate::core::model::fnv1a;
use crate::types::Candidate;
use crate::types::Entry;
use crate::types::Reason;
use crate::types::SemanticPayload;
use crate::write::classify::text::clip;
use engram_contract::reason::ReasonCode;

/// The subject a semantic fact is about when the caller gave none: the user
/// when there is one, else the scope's project or tenant.
pub fn default_subject(c: &Candidate) -> String {
    if let Some(u) = &c.scope.user {
        format!("user:{u}")
    } else if let Some(p) = &c.scope.project {
        format!("project:{p}")
    } else {
        format!("tenant:{}", c.scope.tenant)
    }
}

/// The semantic key and value: the caller's, else a recognised predicate,
/// else "X 的 Y 是 Z" / "X's Y is Z", else a statement keyed by its text.
pub(crate) fn semantic_payload(
    c: &Candidate,
    text: &str,
    folded: &str,
    wp: &WritePolicy,
    reasons: &mut Vec<Reason>,
) -> SemanticPayload {
    let clean = |v: &str| {
        v.trim()
            .trim_end_matches(['。', '.', '！', '!'])
            .trim()
            .to_string()
    };
    let given = |v: &Option<String>| {
        v.as_ref()
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
    };
    let (subject, predicate, object) = (given(&c.subject), given(&c.predicate), given(&c.object));
    if let Some(o) = &object {
        if !fold(text).contains(&fold(o)) {
            reasons.push(Reason::new(
                ReasonCode::PayloadObjectNotInText,
                &[&clip(o, 40)],
            ));
        }
    }
    let predicate_given = predicate.is_some();
    let derived = if predicate.is_none() {
        derive_key(c, text, folded, wp)
    } else {
        None
    };
    // The caller named the attribute but not its value: the value the
    // sentence's structure gives that attribute ("以后请叫我林工" with
    // `preferred_name` → 林工), else the sentence.
    let object = object.or_else(|| {
        let given = predicate.as_deref()?;
        let k = crate::write::key::structural(text)?;
        let same = fold(&k.predicate) == fold(given) || k.predicate == normalise_predicate(given);
        same.then_some(k.object)
    });
    let (d_subject, d_predicate, d_object, d_condition, how) = match derived {
        Some(k) => k,
        None => (
            default_subject(c),
            format!(
                "statement:{:08x}",
                fnv1a(
                    fold(text)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .as_bytes()
                ) as u32
            ),
            clean(text),
            None,
            "keyed by its text",
        ),
    };
    if predicate.is_none() {
        reasons.push(Reason::new(ReasonCode::PayloadKeyDerived, &[how]));
    }
    SemanticPayload {
        subject: subject.unwrap_or(d_subject),
        predicate: predicate.unwrap_or(d_predicate),
        object: object.unwrap_or(d_object),
        condition: c
            .condition
            .clone()
            .filter(|x| !x.trim().is_empty())
            .or(if predicate_given { None } else { d_condition }),
    }
}

/// A derived key: (subject, predicate, object, condition, how).
type DerivedKey = (String, String, String, Option<String>, &'static str);

/// (subject, predicate, object, condition, how) from the text, when it
/// has a key.
pub(crate) fn derive_key(
    c: &Candidate,
    text: &str,
    folded: &str,
    wp: &WritePolicy,
) -> Option<DerivedKey> {
    let g = wp.wildcard_max_gap_chars;
    let full = text
        .trim()
        .trim_end_matches(['。', '.', '！', '!'])
        .trim()
        .to_string();
    if let Some(k) = crate::write::key::structural(text) {
        let subject = match k.subject.as_deref() {
            Some(s) => normalise_subject(c, Some(&fold(s))),
            None => default_subject(c),
        };
        return Some((subject, k.predicate, k.object, k.condition, k.how));
    }
    for (pred, cues) in wp.cues.predicates {
        if !find_any(folded, cues, g).is_empty() {
            return Some((
                default_subject(c),
                pred.to_string(),
                full,
                None,
                "recognised predicate",
            ));
        }
    }
    for (a, b) in sentences(folded) {
        let Some(sentence) = folded.get(a..b) else {
            continue;
        };
        if let Some((subj, pred, obj)) = split_copula(sentence, wp) {
            let predicate = normalise_predicate(&pred);
            let object = text
                .get(a + obj.0..a + obj.1)
                .unwrap_or("")
                .trim()
                .trim_end_matches(['。', '.'])
                .to_string();
            if predicate.is_empty() || object.is_empty() || predicate.chars().count() > 24 {
                return None;
            }
            let subject = normalise_subject(c, subj.as_deref());
            return Some((subject, predicate, object, None, "attribute and value"));
        }
        break;
    }
    None
}

/// Split "X 的 Y 是 Z" / "X's Y is Z": (subject words, attribute words,
/// object byte range within the sentence).
fn split_copula(
    sentence: &str,
    wp: &WritePolicy,
) -> Option<(Option<String>, String, (usize, usize))> {
    let c = wp.cues;
    let g = wp.wildcard_max_gap_chars;
    let zh = find_any(sentence, c.copula_zh, g)
        .into_iter()
        .filter(|h| h.start > 0)
        .min_by_key(|h| h.start);
    let en = find_any(sentence, c.copula_en, g)
        .into_iter()
        .filter(|h| h.start > 0)
        .min_by_key(|h| h.start);
    let h = match (zh, en) {
        (Some(a), Some(b)) => {
            if a.start <= b.start {
                a
            } else {
                b
            }
        }
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return None,
    };
    let left = sentence.get(..h.start)?.trim();
    // Stop the value at the end of its clause.
    let rest = sentence.get(h.end..)?;
    let obj_end = h.end + rest.find(['，', ',', '；', ';']).unwrap_or(rest.len());
    let obj_start = h.end + (rest.len() - rest.trim_start().len());
    if left.is_empty() || left.chars().count() > 30 || obj_start >= obj_end {
        return None;
    }
    if h.cue.is_ascii() {
        let l = left.trim_start_matches("the ").trim();
        if let Some((s, a)) = l.split_once("'s ") {
            return Some((Some(s.to_string()), a.to_string(), (obj_start, obj_end)));
        }
        if let Some((a, s)) = l.split_once(" of ") {
            return Some((Some(s.to_string()), a.to_string(), (obj_start, obj_end)));
        }
        if l.split_whitespace().count() > 4 {
            return None;
        }
        return Some((None, l.to_string(), (obj_start, obj_end)));
    }
    match left.rsplit_once('的') {
        Some((s, a)) => Some((Some(s.to_string()), a.to_string(), (obj_start, obj_end))),
        None => Some((None, left.to_string(), (obj_start, obj_end))),
    }
}

fn strip_words<'a>(mut s: &'a str, words: &[&str]) -> &'a str {
    loop {
        let before = s;
        for w in words {
            if let Some(r) = s.strip_prefix(w) {
                s = r.trim_start();
            }
            if let Some(r) = s.strip_suffix(w) {
                s = r.trim_end();
            }
        }
        if s == before {
            return s;
        }
    }
}

fn normalise_predicate(p: &str) -> String {
    let p = strip_words(p.trim(), CUES.key_determiners);
    let p = p.trim_matches(|c: char| {
        c.is_whitespace() || c.is_ascii_punctuation() || "：，、（）".contains(c)
    });
    crate::write::key::attribute(p)
}

fn normalise_subject(c: &Candidate, s: Option<&str>) -> String {
    let Some(s) = s else {
        return default_subject(c);
    };
    let s = strip_words(s.trim(), CUES.key_determiners);
    let s = s.trim_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation());
    if s.is_empty() || ["我", "i", "me", "my", "用户", "user"].contains(&s) {
        return default_subject(c);
    }
    if let Some(Entry { key, value }) = c.entities.iter().find(|e| fold(&e.value) == s) {
        return format!("{}:{}", fold(key), value);
    }
    s.to_string()
}
