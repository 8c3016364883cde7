//! Clauses of a text and clipping, shared by the scan and the payloads.

/// The clause (between `，,；;。.!?` and line ends) containing byte `at`.
pub(crate) fn clause_span(f: &str, at: usize) -> (usize, usize) {
    let is_end = |c: char| {
        matches!(
            c,
            '，' | ',' | '；' | ';' | '。' | '！' | '？' | '!' | '?' | '\n'
        )
    };
    let start = f
        .get(..at)
        .and_then(|b| {
            b.rfind(is_end)
                .map(|i| i + b[i..].chars().next().map_or(1, char::len_utf8))
        })
        .unwrap_or(0);
    let end = f
        .get(at..)
        .and_then(|r| r.find(is_end).map(|i| at + i))
        .unwrap_or(f.len());
    (start, end)
}

/// Clause byte ranges: split on `，,；;。！？!?\n：:` and step markers.
pub(crate) fn clauses(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, ch) in text.char_indices() {
        let split = matches!(
            ch,
            '，' | ','
                | '；'
                | ';'
                | '。'
                | '！'
                | '？'
                | '!'
                | '?'
                | '\n'
                | '：'
                | '①'
                | '②'
                | '③'
                | '④'
                | '⑤'
                | '⑥'
                | '⑦'
                | '⑧'
                | '⑨'
        ) || (ch == ':' && text.get(i + 1..).is_some_and(|r| r.starts_with(' ')))
            || (ch == '.'
                && text
                    .get(i + 1..)
                    .is_none_or(|r| r.is_empty() || r.starts_with(' ')));
        if split {
            push_clause(text, start, i, &mut out);
            start = i + ch.len_utf8();
        }
    }
    push_clause(text, start, text.len(), &mut out);
    out
}

fn push_clause(text: &str, a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
    if let Some(t) = text.get(a..b) {
        let trimmed = t.trim();
        if !trimmed.is_empty() {
            let lead = t.len() - t.trim_start().len();
            out.push((a + lead, a + lead + trimmed.len()));
        }
    }
}

/// At most `n` characters, cut at a character boundary.
pub(crate) fn clip(t: &str, n: usize) -> String {
    let t = t.trim();
    match t.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}
