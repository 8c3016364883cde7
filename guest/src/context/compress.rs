//! One-line summaries that keep a text's key figures, for compressing an
//! item of a packed context instead of dropping it (seed 001: a compressed
//! tool result keeps "查询 order-service P99 延迟，结果为 840ms，异常", so the
//! agent knows the step was done and does not run it again).
//!
//! Deterministic and extractive: the summary is the leading sentences of the
//! text's first line (cut to a length) followed by the figures found
//! anywhere in the text —
//! tokens with a digit (`840ms`, `P99`, `0.37%`, `2026-08-31`, `V42`) and
//! outcome words from the policy's list (`failed`, `timeout`, `异常`, `成功`).

/// How to summarise (from `config::PackPolicy`).
#[derive(Debug, Clone, Copy)]
pub struct SummaryRules<'a> {
    /// Characters kept of the first sentence.
    pub head_chars: usize,
    /// Figures listed, at most.
    pub max_figures: usize,
    /// Characters of one figure, at most (longer ones are skipped).
    pub figure_chars: usize,
    /// What introduces the figures, e.g. "key figures".
    pub figures_label: &'a str,
    /// Outcome and status words that count as figures (lowercase).
    pub status_words: &'a [&'a str],
}

/// A one-line summary of `text`: the leading sentences of its first line
/// that fit in `head_chars` (the first one cut if it alone is longer),
/// then the key figures not already in them.
pub fn summarize(text: &str, rules: &SummaryRules) -> String {
    let mut out = head(text, rules.head_chars);
    let figures: Vec<String> = key_figures(text, rules)
        .into_iter()
        .filter(|f| !out.contains(f.as_str()))
        .take(rules.max_figures)
        .collect();
    if !figures.is_empty() {
        if !out.is_empty() {
            out.push_str(" — ");
        }
        out.push_str(rules.figures_label);
        out.push_str(": ");
        out.push_str(&figures.join(", "));
    }
    out
}

/// The leading sentences of the first non-blank line (whitespace
/// collapsed) that fit in `max` characters; at least the first, cut with
/// `…` when it alone is longer.
pub fn head(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let mut out = String::new();
    let mut used = 0;
    for s in sentences(&line) {
        let n = s.chars().count();
        if used > 0 && used + n > max {
            break;
        }
        out.push_str(&s);
        used += n;
    }
    let (mut cut, was_cut) = truncate_chars(out.trim(), max);
    if was_cut {
        cut.push('…');
    }
    cut
}

/// A line cut after each sentence mark: `。！？；`, and `.!?;` before a space
/// or the end, unless it follows a digit (`1. 检查…` is a list item).
fn sentences(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in chars.iter().enumerate() {
        let ends = match c {
            '。' | '！' | '？' | '；' => true,
            '.' | '!' | '?' | ';' => {
                chars.get(i + 1).is_none_or(|n| n.is_whitespace())
                    && !(i > 0 && chars[i - 1].is_ascii_digit())
            }
            _ => false,
        };
        if ends {
            out.push(chars[start..=i].iter().collect());
            start = i + 1;
        }
    }
    if start < chars.len() {
        out.push(chars[start..].iter().collect());
    }
    out
}

/// The first `max` characters of `s`, and whether anything was cut.
pub fn truncate_chars(s: &str, max: usize) -> (String, bool) {
    match s.char_indices().nth(max) {
        Some((i, _)) => (s[..i].trim_end().to_string(), true),
        None => (s.to_string(), false),
    }
}

/// Figures in order of first appearance, without repeats: tokens holding a
/// digit, and status words.
pub fn key_figures(text: &str, rules: &SummaryRules) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |f: String, out: &mut Vec<String>| {
        if !f.is_empty() && f.chars().count() <= rules.figure_chars && !out.contains(&f) {
            out.push(f);
        }
    };
    // Tokens with a digit: runs of letters, digits and the marks inside
    // numbers and identifiers (`0.37%`, `12,400`, `2026-08-31T21:02:11Z`).
    let chars: Vec<char> = text.chars().collect();
    // What starts at each position (so figures come out in text order).
    let mut found: Vec<Option<String>> = vec![None; chars.len()];
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_alphanumeric()
                || (chars[i] == '%' && chars[i - 1].is_ascii_digit())
                || (matches!(chars[i], '.' | ',' | ':' | '-' | '_' | '/' | '=' | '+')
                    && chars.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric())))
        {
            i += 1;
        }
        let tok: String = chars[start..i].iter().collect();
        // A lone digit is a list number or a count too small to matter.
        if tok.chars().any(|c| c.is_ascii_digit()) && tok.len() > 1 {
            found[start] = Some(tok);
        }
    }
    // Status words, case-insensitively, at their first position.
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    for w in rules.status_words {
        let wc: Vec<char> = w.chars().collect();
        if let Some(pos) = find_word(&lower, &wc) {
            if found[pos].is_none() {
                found[pos] = Some(chars[pos..pos + wc.len()].iter().collect());
            }
        }
    }
    for f in found.into_iter().flatten() {
        push(f, &mut out);
    }
    out
}

/// The first position of `word` in `hay` (ASCII words only at word
/// boundaries, so `ok` does not match `token`).
fn find_word(hay: &[char], word: &[char]) -> Option<usize> {
    if word.is_empty() || word.len() > hay.len() {
        return None;
    }
    let ascii = word.iter().all(|c| c.is_ascii_alphanumeric());
    (0..=hay.len() - word.len()).find(|&i| {
        hay[i..i + word.len()] == *word
            && (!ascii
                || ((i == 0 || !hay[i - 1].is_ascii_alphanumeric())
                    && hay
                        .get(i + word.len())
                        .is_none_or(|c| !c.is_ascii_alphanumeric())))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> SummaryRules<'static> {
        SummaryRules {
            head_chars: 60,
            max_figures: 6,
            figure_chars: 32,
            figures_label: "key figures",
            status_words: &["异常", "failed", "ok", "timeout"],
        }
    }

    #[test]
    fn keeps_the_step_and_its_figures() {
        let tool = "查询 order-service P99 延迟，结果为 840ms，异常。\n\
                    ts=2026-08-31T21:02:11Z p50=120ms p90=610ms p99=840ms\n\
                    host ord-03 accounts for 71% of slow requests";
        let s = summarize(tool, &rules());
        assert!(
            s.starts_with("查询 order-service P99 延迟，结果为 840ms，异常。"),
            "{s}"
        );
        assert!(s.contains("key figures: "), "{s}");
        assert!(s.contains("2026-08-31T21:02:11Z"), "{s}");
        assert!(s.contains("71%"), "{s}");
        assert!(!s.contains('\n'));
        // Figures already in the head are not listed again.
        let listed = s.split("key figures: ").nth(1).unwrap_or("");
        assert!(
            !listed.split(", ").any(|f| f == "840ms" || f == "P99"),
            "{s}"
        );
        assert!(listed.split(", ").any(|f| f == "p90=610ms"), "{s}");
    }

    #[test]
    fn long_heads_are_cut_and_words_match_whole() {
        let text = "Ran the token refresh job against every tenant in the fleet and it timed out after a while";
        let s = summarize(text, &rules());
        assert!(s.ends_with('…'), "{s}");
        assert!(s.chars().count() <= 61);
        // Sentences are kept while they fit; list numbers do not end one.
        let steps = "发布前：1. 检查工作区；2. 运行单元测试；3. 备份生产数据库；4. 在 staging 执行迁移；5. 等待人工审批。";
        let h = head(steps, 34);
        assert_eq!(
            h,
            "发布前：1. 检查工作区；2. 运行单元测试；3. 备份生产数据库；"
        );
        assert_eq!(head("好的。我先查一下。", 80), "好的。我先查一下。");
        // "ok" is not found inside "token".
        assert!(key_figures("token refresh", &rules()).is_empty());
        assert_eq!(key_figures("status: OK", &rules()), vec!["OK".to_string()]);
        assert_eq!(summarize("", &rules()), "");
    }
}
