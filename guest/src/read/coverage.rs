//! What a query asks about, so that recall can say "nothing relevant"
//! (seed 003: 无相关 Memory 时是否能够拒答; LongMemEval's abstention).
//!
//! A query's **content groups** are the things it asks about: each word
//! that is not generic (`vocab/generic.txt`: question words, the person
//! asked about, verbs of liking and telling), with the words of its
//! concept (`vocab/concepts.txt`) as alternatives — "怎么称呼我" asks about
//! one thing, a name, which "叫我林工" answers. CJK bigrams that straddle a
//! generic word ("户喜" in 用户喜欢) are no words and ask about nothing; the
//! overlapping bigrams of an unknown compound ("读取配置文件") are one thing,
//! covered by any of them.
//!
//! A memory **covers** a group when it holds one of the group's terms.
//! Recall admits nothing when the best candidate covers fewer than
//! `needed(groups)` of them: a share `abstain_share` of the groups, at
//! least one and at most `abstain_max_groups` (a long, conversational
//! query needs two of its many words answered, not a quarter of them).

use std::collections::BTreeSet;

use crate::analysis::text::{analyze, is_cjk, is_cjk_function_word};
use crate::vocab;

/// One thing a query asks about: its terms (the query's own and, for a
/// concept, the concept's other words).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// How it reads in a reason (the query's word, or the concept's name).
    pub label: String,
    pub terms: Vec<String>,
}

/// What a query asks about.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asked {
    pub groups: Vec<Group>,
    /// Terms the query does not contain that its concepts add (searched
    /// and scored at a lower weight).
    pub expansions: Vec<String>,
    /// The query's generic terms (weighted down in the query).
    pub generic: BTreeSet<String>,
}

/// CJK bigrams of `text` that straddle a known word (a generic word, a
/// function word, a concept's word): "户喜" and "欢什" in "用户喜欢什么",
/// "布失" in "发布失败". Without a dictionary these are the bigrams known
/// not to be words.
fn straddling(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let folded: String = text.to_lowercase();
    let chars: Vec<char> = folded.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !is_cjk(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_cjk(chars[i]) {
            i += 1;
        }
        let run = &chars[start..i];
        let bigrams: Vec<String> = run.windows(2).map(|w| w.iter().collect()).collect();
        // A word: generic, a function word, or a concept's word.
        let word = |b: &String| {
            vocab::is_generic(b)
                || is_cjk_function_word(b)
                || vocab::CONCEPTS
                    .iter()
                    .any(|c| c.terms.iter().any(|t| t.len() == 1 && t[0] == b.as_str()))
        };
        for (j, b) in bigrams.iter().enumerate() {
            if word(b) {
                continue;
            }
            let prev = j
                .checked_sub(1)
                .and_then(|k| bigrams.get(k))
                .is_some_and(word);
            let next = bigrams.get(j + 1).is_some_and(word);
            if prev || next {
                out.insert(b.clone());
            }
        }
    }
    out
}

/// The text with its time expressions blanked: "on 8 May, 2025" says when,
/// not what about (the ranker reads it as a period).
fn without_times(text: &str) -> String {
    let epoch = crate::types::Datetime {
        epoch_ms: 0,
        offset_minutes: 0,
    };
    let mut out = text.to_string();
    for r in crate::analysis::timeexpr::find_all(text, epoch) {
        if let Some(span) = out.get(r.start..r.end) {
            let blank = " ".repeat(span.len());
            out.replace_range(r.start..r.end, &blank);
        }
    }
    out
}

/// What `text` asks about.
pub fn asked(text: &str) -> Asked {
    let text = without_times(text);
    let text = text.as_str();
    let tokens = analyze(text);
    let terms: Vec<String> = tokens
        .iter()
        .filter(|t| !t.part)
        .map(|t| t.term.clone())
        .collect();
    let refs: Vec<&str> = terms.iter().map(String::as_str).collect();
    let junk = straddling(text);
    let generic: BTreeSet<String> = terms
        .iter()
        .filter(|t| vocab::is_generic(t))
        .cloned()
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut expansions: Vec<String> = Vec::new();
    let mut claimed: BTreeSet<&str> = BTreeSet::new();
    for c in vocab::concepts_in(&refs) {
        let mut all: Vec<String> = Vec::new();
        for w in c.terms {
            // The query's own words of the concept belong to its group.
            if w.iter().all(|t| refs.contains(t)) {
                claimed.extend(w.iter().copied());
            }
            for t in w.iter() {
                if !all.iter().any(|x| x == t) {
                    all.push(t.to_string());
                }
            }
        }
        for t in &all {
            if !refs.contains(&t.as_str()) && !expansions.contains(t) {
                expansions.push(t.clone());
            }
        }
        groups.push(Group {
            label: c.name.to_string(),
            terms: all,
        });
    }
    // The remaining words each ask about one thing; overlapping CJK
    // bigrams in a row are one unknown compound ("读取配置文件": 读取, 取配,
    // 配置, 置文, 文件), one thing answered by any of its bigrams — not five.
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut compound: Option<(u32, Group)> = None;
    for tok in tokens.iter().filter(|t| !t.part) {
        let t = tok.term.as_str();
        if claimed.contains(t) || generic.contains(t) || junk.contains(t) || !seen.insert(t) {
            continue;
        }
        if tok.cjk && t.chars().count() == 2 {
            if let Some((pos, g)) = compound.as_mut() {
                let joins = tok.pos == *pos + 1 && g.label.chars().last() == t.chars().next();
                if joins {
                    g.label.extend(t.chars().skip(1));
                    g.terms.push(t.to_string());
                    *pos = tok.pos;
                    continue;
                }
            }
            if let Some((_, g)) = compound.take() {
                groups.push(g);
            }
            compound = Some((
                tok.pos,
                Group {
                    label: t.to_string(),
                    terms: vec![t.to_string()],
                },
            ));
            continue;
        }
        if let Some((_, g)) = compound.take() {
            groups.push(g);
        }
        groups.push(Group {
            label: t.to_string(),
            terms: vec![t.to_string()],
        });
    }
    if let Some((_, g)) = compound.take() {
        groups.push(g);
    }
    Asked {
        groups,
        expansions,
        generic,
    }
}

/// How many groups the best memory must cover for a query with `groups`
/// content groups (0 when the query asks about nothing in particular, or
/// about more than `question_max` things: then it is a context — a
/// conversation, a task description — and only each memory's own cover
/// counts).
pub fn needed(groups: usize, share: f64, max_groups: usize, question_max: usize) -> usize {
    if groups == 0 || groups > question_max {
        return 0;
    }
    ((groups as f64 * share).ceil() as usize).clamp(1, max_groups.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(q: &str) -> Vec<String> {
        asked(q).groups.into_iter().map(|g| g.label).collect()
    }

    #[test]
    fn a_query_asks_about_its_content_words() {
        assert_eq!(labels("用户喜欢什么颜色？"), vec!["color"]);
        assert_eq!(
            labels("What is the user's favourite colour?"),
            vec!["color"]
        );
        assert_eq!(labels("怎么称呼我？"), vec!["preferred_name"]);
        let l = labels("payment-service 用的是什么数据库？");
        assert!(l.contains(&"database".to_string()), "{l:?}");
        assert!(l.contains(&"payment-service".to_string()), "{l:?}");
        assert!(!l.iter().any(|x| x == "么数"), "{l:?}");
        assert_eq!(labels("为什么上次发布失败？"), vec!["release", "failure"]);
        assert_eq!(
            labels("What did we say about painting on 8 May, 2025?"),
            vec!["paint"]
        );
    }

    #[test]
    fn an_unknown_compound_is_one_thing() {
        // "读取配置文件" is one thing asked about, not five bigrams.
        let a = asked("写一个读取配置文件的代码示例");
        let file: Vec<&Group> = a
            .groups
            .iter()
            .filter(|g| g.label.contains("配置"))
            .collect();
        assert_eq!(file.len(), 1, "{:?}", a.groups);
        assert!(file[0].terms.iter().any(|t| t == "文件"), "{:?}", file[0]);
        assert!(a.groups.len() <= 3, "{:?}", a.groups);
    }

    #[test]
    fn concepts_add_their_other_words() {
        let a = asked("怎么称呼我？");
        assert!(
            a.expansions.iter().any(|t| t == "name"),
            "{:?}",
            a.expansions
        );
        assert!(a.expansions.iter().any(|t| t == "叫"), "{:?}", a.expansions);
    }

    #[test]
    fn longer_questions_need_two_words_answered_and_contexts_none() {
        assert_eq!(needed(0, 0.25, 2, 6), 0);
        assert_eq!(needed(1, 0.25, 2, 6), 1);
        assert_eq!(needed(4, 0.25, 2, 6), 1);
        assert_eq!(needed(5, 0.25, 2, 6), 2);
        assert_eq!(needed(40, 0.25, 2, 6), 0);
    }
}
