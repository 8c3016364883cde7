//! The shape of a text that cue lists alone do not show: a deictic with a
//! task object, a progress line, a setting with its value, counts and step
//! ordinals, the start date of a rule, a request, measured values, what is
//! left after chit-chat.

use crate::analysis::cues::words;
use crate::analysis::cues::Hit;
use crate::analysis::timeexpr::Resolved;
use crate::core::config::WritePolicy;
use crate::core::config::CUES;
use crate::write::classify::scan::grammar::is_english_imperative;
use crate::write::classify::text::clause_span;
use crate::write::classify::text::clauses;

/// "这个会话里", "for this one script", "本次对话": a deictic followed
/// closely (same clause, at most a few characters between) by a task object
/// — unless the clause defines the object ("这个文件是入口"): that is a fact.
pub(crate) fn deictic_task(f: &str, deictics: &[Hit], objects: &[Hit]) -> Vec<Hit> {
    let mut out = Vec::new();
    for d in deictics {
        let Some(o) = objects.iter().find(|o| {
            o.start >= d.end
                && f.get(d.end..o.start).is_some_and(|gap| {
                    gap.chars().count() <= 4 && !gap.contains(['，', ',', '。', '；', ';', '\n'])
                })
        }) else {
            continue;
        };
        let after = f.get(o.end..).unwrap_or("").trim_start();
        let defines = ["是", "叫", "为", "is ", "are ", "was ", "has "]
            .iter()
            .any(|w| after.starts_with(w));
        if !defines {
            out.push(Hit {
                cue: o.cue,
                start: d.start,
                end: o.end,
            });
        }
    }
    out
}

/// A progress line: a count ("3/8", "400/1,000", "1,200 of 5,000", "step 3
/// of 6") or a percentage with a progress word in its clause, or a line
/// that opens with an English "-ing" verb and trails off or says "now"
/// ("Indexing documents…", "Working on the summary now"). The cue of the
/// progress word, or the verb.
pub(crate) fn progress_line(f: &str, words: &[Hit], now: bool) -> Option<String> {
    let trimmed = f.trim();
    let gerund = trimmed
        .split(|ch: char| !ch.is_ascii_alphabetic())
        .next()
        .filter(|w| w.len() > 4 && w.ends_with("ing"))
        .filter(|_| now || trimmed.contains('…') || trimmed.contains("..."));
    if let Some(w) = gerund {
        return Some(w.to_string());
    }
    for w in words {
        let (a, b) = clause_span(f, w.start);
        let Some(clause) = f.get(a..b) else { continue };
        if has_count(clause) || clause.contains('%') || has_step_ordinal(clause) {
            return Some(w.cue.to_string());
        }
    }
    None
}

/// A setting with its value: an identifier, then `=` (or `:` when the key
/// looks like code — `_`, `.` or `-` inside — or the value is quoted or a
/// number), then a value. "apiUrl=…", "max_retries: 3", `"port": 8080`.
pub(crate) fn key_value(f: &str) -> bool {
    let b = f.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    for (i, &c) in b.iter().enumerate() {
        if c != b'=' && c != b':' {
            continue;
        }
        // The key: identifier bytes before, after optional spaces and a quote.
        let mut k = i;
        while k > 0 && matches!(b[k - 1], b' ' | b'"' | b'\'') {
            k -= 1;
        }
        let end = k;
        while k > 0 && ident(b[k - 1]) {
            k -= 1;
        }
        let key = &b[k..end];
        if key.len() < 2 || !key.iter().any(u8::is_ascii_alphabetic) {
            continue;
        }
        let rest = &b[i + 1..];
        if rest.starts_with(b"//") || rest.starts_with(b"=") || (i > 0 && b[i - 1] == b'=') {
            continue;
        }
        let value = rest.iter().position(|v| !matches!(v, b' ' | b'\t'));
        let Some(v) = value.map(|p| rest[p]) else {
            continue;
        };
        let codeish = key.iter().any(|x| matches!(x, b'_' | b'.' | b'-'));
        let literal = v == b'"' || v == b'\'' || v.is_ascii_digit();
        if c == b'=' && (v.is_ascii_alphanumeric() || literal) || c == b':' && (codeish || literal)
        {
            return true;
        }
    }
    false
}

/// "第二步", "第 3 步", "step 4": which step a task is at.
fn has_step_ordinal(clause: &str) -> bool {
    let zh = clause.match_indices('第').any(|(i, _)| {
        let rest = clause.get(i + '第'.len_utf8()..).unwrap_or("").trim_start();
        let mut it = rest
            .chars()
            .skip_while(|ch| ch.is_ascii_digit() || "一二三四五六七八九十".contains(*ch));
        rest.chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_digit() || "一二三四五六七八九十".contains(ch))
            && it.find(|ch| !ch.is_whitespace()) == Some('步')
    });
    let en = clause.match_indices("step ").any(|(i, _)| {
        clause
            .get(i + 5..)
            .is_some_and(|r| r.starts_with(|ch: char| ch.is_ascii_digit()))
    });
    zh || en
}

/// "3/8", "400/1,000", "3 of 6": a part of a whole.
fn has_count(clause: &str) -> bool {
    let b = clause.as_bytes();
    let slash = (1..b.len().saturating_sub(1))
        .any(|i| b[i] == b'/' && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit());
    let words: Vec<&str> = clause.split_whitespace().collect();
    let of = words.windows(3).any(|w| {
        let num = |t: &str| !t.is_empty() && t.chars().all(|ch| ch.is_ascii_digit() || ch == ',');
        num(w[0]) && w[1] == "of" && num(w[2].trim_end_matches(|ch: char| !ch.is_ascii_digit()))
    });
    slash || of
}

/// Start dates of standing rules: an anchor followed by "起"/"开始" or
/// preceded by "starting"/"effective"/"as of"/"自".
pub(crate) fn rule_starts(f: &str, anchors: &[Resolved], starts: &[Hit]) -> Vec<Hit> {
    let mut out = Vec::new();
    for a in anchors {
        let next = starts.iter().find(|h| {
            h.start >= a.end
                && f.get(a.end..h.start)
                    .is_some_and(|gap| gap.trim().chars().count() <= 1)
                && !h.cue.is_ascii()
                && !f.get(h.end..).is_some_and(|r| r.starts_with(['飞', '床']))
        });
        let prev = starts.iter().find(|h| {
            h.cue.is_ascii()
                && h.end <= a.start
                && f.get(h.end..a.start).is_some_and(|g| g.trim().is_empty())
        });
        if let Some(h) = next.or(prev) {
            out.push(h.clone());
        }
    }
    out
}

/// The request opening a clause, if any: a request phrase ("帮我",
/// "can you") or an English imperative.
pub(crate) fn request(f: &str, wp: &WritePolicy) -> Option<String> {
    let c = wp.cues;
    for (a, b) in clauses(f) {
        let Some(clause) = f.get(a..b) else {
            continue;
        };
        // English requests open the clause; Chinese ones may follow a time
        // or a subject ("稍后把链接发我一下"); "一下" only ends a request.
        let found = c.request.iter().find(|r| {
            if r.is_ascii() {
                clause.starts_with(*r)
                    && clause
                        .get(r.len()..)
                        .is_none_or(|rest| !rest.starts_with(|ch: char| ch.is_ascii_alphanumeric()))
            } else if **r == "一下" {
                clause.match_indices(*r).any(|(i, _)| {
                    clause.get(i + r.len()..).is_some_and(|rest| {
                        rest.trim().is_empty() || rest.starts_with(['吧', '呀', '啊', '哈', '呗'])
                    })
                })
            } else {
                // Within the first few characters: "稍后帮我…", not "导出给我"
                // (the first occurrence starts at one of the first five
                // characters: a comparison at each, not a search of the clause).
                clause
                    .char_indices()
                    .take(5)
                    .any(|(i, _)| clause.get(i..).is_some_and(|rest| rest.starts_with(*r)))
            }
        });
        if let Some(r) = found {
            return Some(r.to_string());
        }
        // "Release notes: …" is a heading, not "release …".
        let heading = words(clause).len() <= 3
            && f.get(b..)
                .is_some_and(|r| r.trim_start().starts_with([':', '：']));
        if !heading && is_english_imperative(clause, wp) {
            return words(clause).first().map(|(_, w)| w.to_string());
        }
    }
    None
}

/// Numbers with a unit: "1.2%", "20 分钟", "37 笔", "52 min", "18.4M".
pub(crate) fn metrics(f: &str) -> usize {
    let mut n = 0;
    // Chinese numerals with a counting unit: "三倍", "两次", "五笔" (not
    // "这一次", "每一单", "第二次").
    let chars: Vec<char> = f.chars().collect();
    for (k, ch) in chars.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(k + 1).copied();
        if "两三四五六七八九十百千万".contains(*ch)
            && next.is_some_and(|u| "倍次人笔条单元个".contains(u))
            && !prev.is_some_and(|p| "这那每第".contains(p))
        {
            n += 1;
        }
    }
    let mut it = f.char_indices().peekable();
    while let Some((i, ch)) = it.next() {
        if !ch.is_ascii_digit() {
            continue;
        }
        if i > 0
            && f.get(..i)
                .and_then(|b| b.chars().next_back())
                .is_some_and(|p| p.is_ascii_alphabetic())
        {
            // Part of an identifier ("v42", "ipv6").
            while it.peek().is_some_and(|(_, c)| c.is_ascii_alphanumeric()) {
                it.next();
            }
            continue;
        }
        let mut end = i + 1;
        while let Some((j, c)) = it.peek().copied() {
            if c.is_ascii_digit() || c == '.' || c == ',' {
                end = j + c.len_utf8();
                it.next();
            } else {
                break;
            }
        }
        let rest = f.get(end..).unwrap_or("");
        let rest = rest.trim_start_matches(' ');
        let probe = format!("{} ", rest.chars().take(9).collect::<String>());
        if CUES.metric_units.iter().any(|u| probe.starts_with(u)) {
            n += 1;
        }
    }
    n
}

/// (content units left after chit-chat and filler are removed, content
/// units in all): CJK characters, words and numbers.
pub(crate) fn residue(f: &str, chitchat: &[Hit], wp: &WritePolicy) -> (usize, usize) {
    let fillers = wp.cues.filler_words;
    // A Chinese word is about two characters: CJK counts by halves.
    let count = |t: &str| -> usize {
        let mut n: usize = 0;
        for ch in t.chars() {
            if crate::analysis::text::is_cjk(ch) {
                let mut buf = [0u8; 4];
                if !fillers.contains(&&*ch.encode_utf8(&mut buf)) {
                    n += 1;
                }
            }
        }
        n.div_ceil(2)
            + words(t)
                .iter()
                .filter(|(_, w)| !fillers.contains(w) && !crate::analysis::text::is_stopword(w))
                .count()
    };
    let mut bytes = f.as_bytes().to_vec();
    for h in chitchat {
        if let Some(span) = bytes.get_mut(h.start..h.end) {
            span.fill(b' ');
        }
    }
    let rest = String::from_utf8(bytes).unwrap_or_default();
    let all_units = f
        .chars()
        .filter(|ch| crate::analysis::text::is_cjk(*ch))
        .count()
        .div_ceil(2)
        + words(f).len();
    (count(&rest), all_units)
}
