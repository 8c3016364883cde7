//! Cue matching: the one scanner that classification, secret detection and
//! injection detection share. Cues are data (`config::Cues`); the syntax:
//!
//! - cues are lowercase and matched against `fold`ed text;
//! - an edge of a cue that is an ASCII letter or digit matches only at a
//!   word boundary ("ai" does not match inside "said");
//! - a trailing `*` continues the word ("fail*" matches "failed");
//! - `…` separates parts that must appear in this order within one
//!   sentence, at most `max_gap` characters apart ("先…再").
//!
//! Offsets are byte offsets into the folded text, which has the same byte
//! layout as the original (see `fold`), so a hit can be cut from either.

/// A cue found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub cue: &'static str,
    pub start: usize,
    pub end: usize,
}

impl Hit {
    pub fn overlaps(&self, other: &Hit) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// Lowercase `s` without changing its byte layout: a character whose
/// lowercase form is one character of the same UTF-8 length is replaced,
/// any other is kept (so byte offsets into the result are valid in `s`).
/// Full-width ASCII variants are not folded (they differ in length).
pub fn fold(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii() {
                return c.to_ascii_lowercase();
            }
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(x), None) if x.len_utf8() == c.len_utf8() => x,
                _ => c,
            }
        })
        .collect()
}

pub fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Does `c` end a sentence? (`.` only when followed by whitespace or the end,
/// so "7.5" and "e.g" stay inside one sentence.)
fn ends_sentence(c: char, next: Option<char>) -> bool {
    matches!(c, '。' | '！' | '？' | '!' | '?' | ';' | '；' | '\n')
        || (c == '.' && next.is_none_or(char::is_whitespace))
}

/// Does the span `text[from..to]` cross a sentence end?
pub fn crosses_sentence(text: &str, from: usize, to: usize) -> bool {
    let Some(gap) = text.get(from..to) else {
        return true;
    };
    let mut it = gap.chars().peekable();
    while let Some(c) = it.next() {
        let next = it
            .peek()
            .copied()
            .or_else(|| text.get(to..)?.chars().next());
        if ends_sentence(c, next) {
            return true;
        }
    }
    false
}

fn prev_char(text: &str, at: usize) -> Option<char> {
    text.get(..at)?.chars().next_back()
}

fn next_char(text: &str, at: usize) -> Option<char> {
    text.get(at..)?.chars().next()
}

/// Is there a word character just before `at`, or a hyphen joining it to
/// one ("recon-daily": "daily" is part of an identifier)?
fn word_before(text: &str, at: usize) -> bool {
    match prev_char(text, at) {
        Some('-') => prev_char(text, at - 1).is_some_and(|c| c.is_ascii_alphanumeric()),
        Some(c) => is_word_char(c),
        None => false,
    }
}

/// Is there a word character just after `at`, or a hyphen joining one?
fn word_after(text: &str, at: usize) -> bool {
    match next_char(text, at) {
        Some('-') => next_char(text, at + 1).is_some_and(|c| c.is_ascii_alphanumeric()),
        Some(c) => is_word_char(c),
        None => false,
    }
}

/// Every match of one part (no `…`) in `text` at or after `from`:
/// (start, end) byte ranges honouring word boundaries and a trailing `*`.
fn part_matches(text: &str, part: &str, from: usize) -> Vec<(usize, usize)> {
    let (needle, stem) = match part.strip_suffix('*') {
        Some(n) => (n, true),
        None => (part, false),
    };
    if needle.is_empty() {
        return Vec::new();
    }
    let Some(hay) = text.get(from..) else {
        return Vec::new();
    };
    let first_word = needle.chars().next().is_some_and(is_word_char);
    let last_word = needle.chars().next_back().is_some_and(is_word_char);
    let mut out = Vec::new();
    for (i, _) in hay.match_indices(needle) {
        let start = from + i;
        let mut end = start + needle.len();
        if first_word && word_before(text, start) {
            continue;
        }
        if stem {
            while let Some(c) = next_char(text, end).filter(|c| c.is_ascii_alphabetic()) {
                end += c.len_utf8();
            }
        } else if last_word && word_after(text, end) {
            continue;
        }
        out.push((start, end));
    }
    out
}

/// Every match of `cue` in the folded `text`.
pub fn find(text: &str, cue: &'static str, max_gap: usize) -> Vec<Hit> {
    let parts: Vec<&str> = cue.split('…').collect();
    let Some((first, rest)) = parts.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // A leading `…` ("…, then"): the first part is empty; anchor on the next.
    if first.is_empty() {
        if let Some((second, tail)) = rest.split_first() {
            for (s, e) in part_matches(text, second, 0) {
                if let Some(end) = chain(text, e, tail, max_gap) {
                    out.push(Hit { cue, start: s, end });
                }
            }
        }
        return out;
    }
    for (s, e) in part_matches(text, first, 0) {
        if let Some(end) = chain(text, e, rest, max_gap) {
            out.push(Hit { cue, start: s, end });
        }
    }
    out
}

/// Match the remaining parts in order after `from`, each within `max_gap`
/// characters of the previous one and within its sentence.
fn chain(text: &str, mut from: usize, parts: &[&str], max_gap: usize) -> Option<usize> {
    for part in parts {
        let (s, e) = part_matches(text, part, from).into_iter().next()?;
        let gap_chars = text.get(from..s)?.chars().count();
        if gap_chars > max_gap || crosses_sentence(text, from, s) {
            return None;
        }
        from = e;
    }
    Some(from)
}

/// Every match of any cue of `cues`, sorted by position.
pub fn find_any(text: &str, cues: &'static [&'static str], max_gap: usize) -> Vec<Hit> {
    let mut out: Vec<Hit> = cues.iter().flat_map(|c| find(text, c, max_gap)).collect();
    out.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    out
}

/// `hits` without those that overlap any of `masks`.
pub fn without(hits: Vec<Hit>, masks: &[Hit]) -> Vec<Hit> {
    hits.into_iter()
        .filter(|h| !masks.iter().any(|m| m.overlaps(h)))
        .collect()
}

/// Keep the longest of overlapping hits (hits sorted by start).
pub fn longest(hits: Vec<Hit>) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::new();
    for h in hits {
        match out.last_mut() {
            Some(last) if last.overlaps(&h) => {
                if h.end - h.start > last.end - last.start {
                    *last = h;
                }
            }
            _ => out.push(h),
        }
    }
    out
}

/// The distinct cues of `hits`, in order, quoted for a reason.
pub fn quoted(hits: &[Hit]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for h in hits {
        if !seen.contains(&h.cue) {
            seen.push(h.cue);
        }
    }
    seen.iter()
        .take(4)
        .map(|c| format!("'{c}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The text of a hit, for a reason (cut from `text` at char boundaries).
pub fn span<'t>(text: &'t str, h: &Hit) -> &'t str {
    text.get(h.start..h.end).unwrap_or(h.cue)
}

/// Sentences (clauses ended by `。！？!?;；\n`, `. ` and `：`/`: `) as byte
/// ranges, leading whitespace and brackets trimmed.
pub fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|(_, n)| *n);
        let colon = c == '：' || (c == ':' && next.is_none_or(char::is_whitespace));
        if ends_sentence(c, next) || colon {
            push_trimmed(text, start, i, &mut out);
            start = i + c.len_utf8();
        }
    }
    push_trimmed(text, start, text.len(), &mut out);
    out
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let Some(s) = text.get(start..end) else {
        return;
    };
    let trimmed = s.trim_start_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '(' | '（' | '[' | '【' | '"' | '“' | '\'' | '‘' | '-' | '—' | '*' | '>'
            )
    });
    let lead = s.len() - trimmed.len();
    let trimmed = trimmed.trim_end();
    if !trimmed.is_empty() {
        out.push((start + lead, start + lead + trimmed.len()));
    }
}

/// Words (runs of ASCII letters, digits, `'`, `-` and `_`) of an ASCII-folded
/// text, with their byte ranges.
pub fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let w = c.is_ascii_alphanumeric() || matches!(c, '\'' | '-' | '_');
        match (w, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if let Some(t) = text.get(s..i) {
                    out.push((s, t));
                }
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        if let Some(t) = text.get(s..) {
            out.push((s, t));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_keeps_byte_layout() {
        for s in ["Hello İstanbul ΣΑΣ", "以后请叫我林工", "ÀÉÎ straße"] {
            let f = fold(s);
            assert_eq!(f.len(), s.len());
            for (a, b) in s.char_indices().zip(f.char_indices()) {
                assert_eq!(a.0, b.0);
            }
        }
        assert_eq!(fold("From Now ON"), "from now on");
    }

    #[test]
    fn word_boundaries_and_stems() {
        assert!(find("she said no", "ai", 10).is_empty());
        assert_eq!(find("ask the ai now", "ai", 10).len(), 1);
        let h = find("the job failed twice", "fail*", 10);
        assert_eq!(h.len(), 1);
        assert_eq!(span("the job failed twice", &h[0]), "failed");
        assert!(find("unfailing", "fail*", 10).is_empty());
        // Hyphenated identifiers are one word.
        assert!(find("job recon-daily timed out", "daily", 10).is_empty());
        assert!(find("daily-report", "daily", 10).is_empty());
        assert_eq!(find("a daily - report", "daily", 10).len(), 1);
        // CJK cues have no word boundaries.
        assert_eq!(find("我以后都用中文", "以后", 10).len(), 1);
    }

    #[test]
    fn wildcards_stay_in_one_sentence() {
        let t = "先查询订单状态，再执行退款";
        assert_eq!(find(t, "先…再", 40).len(), 1);
        assert!(find("先吃饭。明天再说", "先…再", 40).is_empty());
        assert!(find("first a long way off then", "first…then", 5).is_empty());
        assert_eq!(
            find("first back up, then migrate", "first…then", 40).len(),
            1
        );
        assert_eq!(find("drain it, then reboot", "…, then", 40).len(), 1);
    }

    #[test]
    fn sentences_split_on_terminators_and_colons() {
        let t = "Runbook: when disk > 85%, first lower retention. Then attach 7.5 GB";
        let s: Vec<&str> = sentences(t).iter().map(|(a, b)| &t[*a..*b]).collect();
        assert_eq!(
            s,
            vec![
                "Runbook",
                "when disk > 85%, first lower retention",
                "Then attach 7.5 GB"
            ]
        );
        let t = "经验：构建无响应时优先终止 daemon。";
        assert_eq!(sentences(t).len(), 2);
        // Time stamps keep their colons.
        assert_eq!(sentences("at 10:05 it failed").len(), 1);
    }

    #[test]
    fn masks_and_longest() {
        let t = "以后再说吧，以后请叫我林工";
        let traps = find(t, "以后再说", 40);
        let hits = without(find(t, "以后", 40), &traps);
        assert_eq!(hits.len(), 1);
        assert!(hits[0].start > 0);
        let l = longest(find_any("thank you", &["thank you", "you"], 40));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].cue, "thank you");
    }
}
