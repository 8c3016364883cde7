//! The policy's vocabulary as data: `guest/vocab/*.txt`, compiled into
//! static tables by `guest/build.rs` (syntax and sources in
//! `guest/vocab/README.md`). This module holds the tables' types and the few
//! lookups the pipelines make over them; the words themselves live only in
//! the data files.

use crate::analysis::cues::{find_any, fold, Hit};

pub mod cues;

/// Words that mean the same thing to a recall.
#[derive(Debug)]
pub struct Concept {
    /// The concept's id (an attribute name where one fits).
    pub name: &'static str,
    /// Its words, as written in the file.
    pub words: &'static [&'static str],
    /// Each word's analysed terms (what a text containing it produces).
    pub terms: &'static [&'static [&'static str]],
}

/// A kind of value: how people name it and its members.
#[derive(Debug)]
pub struct Category {
    pub name: &'static str,
    /// Words that name the category ("数据库", "database").
    pub labels: &'static [&'static str],
    /// Members, longest first.
    pub values: &'static [&'static str],
}

/// A sentence shape naming an attribute, with its value between `before`
/// and `after`.
#[derive(Debug)]
pub struct Frame {
    pub predicate: &'static str,
    pub before: &'static str,
    pub after: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/vocab_tables.rs"));

/// Is an analysed query term generic (it asks, it does not say what about)?
pub fn is_generic(term: &str) -> bool {
    GENERIC.binary_search(&term).is_ok()
}

/// The concepts whose words a set of analysed terms contains (every term
/// of at least one of the concept's words).
pub fn concepts_in(terms: &[&str]) -> Vec<&'static Concept> {
    CONCEPTS
        .iter()
        .filter(|c| c.terms.iter().any(|w| w.iter().all(|t| terms.contains(t))))
        .collect()
}

/// The concept named `name`.
pub fn concept(name: &str) -> Option<&'static Concept> {
    CONCEPTS.iter().find(|c| c.name == name)
}

/// Where `folded` contains `word` as a word (ASCII edges at word
/// boundaries; CJK anywhere), in order.
fn word_at<'a>(folded: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let bytes = folded.as_bytes();
    let edge = |b: Option<&u8>| b.is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
    let first_ascii = word
        .as_bytes()
        .first()
        .is_some_and(u8::is_ascii_alphanumeric);
    let last_ascii = word
        .as_bytes()
        .last()
        .is_some_and(u8::is_ascii_alphanumeric);
    folded
        .match_indices(word)
        .map(|(i, _)| i)
        .filter(move |&i| {
            (!first_ascii || i == 0 || edge(bytes.get(i - 1)))
                && (!last_ascii || edge(bytes.get(i + word.len())))
        })
}

fn contains_word(folded: &str, word: &str) -> Option<usize> {
    word_at(folded, word).next()
}

/// A category member named in a text: (category, member, byte offset in the
/// folded text). The earliest mention wins; at one position the longest.
pub fn value_in(text: &str) -> Option<(&'static Category, &'static str, usize)> {
    let folded = fold(text);
    let mut best: Option<(&'static Category, &'static str, usize)> = None;
    for c in CATEGORIES {
        for v in c.values {
            if let Some(at) = contains_word(&folded, v) {
                let better = match best {
                    None => true,
                    Some((_, bv, bat)) => at < bat || (at == bat && v.len() > bv.len()),
                };
                if better {
                    best = Some((c, v, at));
                }
            }
        }
    }
    best
}

/// The category of a value ("PostgreSQL 16" → database).
pub fn category_of(value: &str) -> Option<&'static Category> {
    value_in(value).map(|(c, _, _)| c)
}

/// A member of `category` other than `except` named in `text` ("以后中文
/// 回复，代码示例用 TypeScript" names a programming language besides its
/// reply language).
pub fn other_member_in(text: &str, category: &Category, except: &str) -> Option<&'static str> {
    let folded = fold(text);
    category
        .values
        .iter()
        .copied()
        .find(|v| *v != except && contains_word(&folded, v).is_some())
}

/// The category named `name`.
pub fn category(name: &str) -> Option<&'static Category> {
    CATEGORIES.iter().find(|c| c.name == name)
}

/// Every match of a cue set in a folded text.
pub fn cues_in(folded: &str, set: &'static [&'static str]) -> Vec<Hit> {
    find_any(folded, set, 12)
}

/// Where a value stops: the end of its clause.
const VALUE_ENDS: &[char] = &[
    '，', ',', '。', '；', ';', '！', '!', '？', '?', '\n', '、', '（', '(', '"', '“', '”', '」',
];
/// Words that close a value without being part of it.
const VALUE_TAILS: &[&str] = &[
    "就好了",
    "就好",
    "就行了",
    "就行",
    "就可以了",
    "就可以",
    "即可",
    "吧",
    "呀",
    "哦",
    "啦",
    "了",
    " please",
    " from now on",
    " going forward",
    " instead",
    " now",
    " thanks",
    " thank you",
];
/// English words that end a value's clause.
const VALUE_STOPS_EN: &[&str] = &[
    " and ",
    " but ",
    " because ",
    " since ",
    " so ",
    " when ",
    " if ",
];

/// The value of a frame match: the clause after `before`, cut at its end,
/// before `after` when the frame has one, without closing particles.
fn frame_value<'t>(text: &'t str, start: usize, after: &str) -> Option<&'t str> {
    let rest = text.get(start..)?;
    let mut end = rest.find(VALUE_ENDS).unwrap_or(rest.len());
    let lower = fold(rest);
    for stop in VALUE_STOPS_EN {
        if let Some(i) = lower.get(..end).and_then(|r| r.find(stop)) {
            end = end.min(i);
        }
    }
    if !after.is_empty() {
        end = end.min(lower.get(..end)?.find(after)?);
    }
    let mut v = rest.get(..end)?.trim();
    loop {
        let before = v;
        for t in VALUE_TAILS {
            let lv = fold(v);
            if lv.ends_with(t) && v.len() > t.len() {
                v = v.get(..v.len() - t.len())?.trim_end();
            }
        }
        v = v.trim_matches(|c: char| c.is_whitespace() || "'\"“”‘’「」《》.。".contains(c));
        if v == before {
            break;
        }
    }
    (!v.is_empty() && v.chars().count() <= 40).then_some(v)
}

/// The first frame the text matches: (attribute, value as written, byte
/// offset of the match).
pub fn frame_in(text: &str) -> Option<(&'static str, String, usize)> {
    let folded = fold(text);
    let mut best: Option<(usize, &'static Frame, String)> = None;
    for f in FRAMES {
        let before = f.before.trim_end();
        for at in word_at(&folded, before) {
            let Some(v) = frame_value(text, at + before.len(), f.after) else {
                continue;
            };
            // The earliest match in the text; at one position the file's order.
            if best.as_ref().is_none_or(|(b, _, _)| at < *b) {
                best = Some((at, f, v.to_string()));
            }
            break;
        }
    }
    best.map(|(at, f, v)| (f.predicate, v, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_built_and_sorted() {
        assert!(CONCEPTS.iter().any(|c| c.name == "preferred_name"));
        assert!(GENERIC.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn frames_carry_their_value() {
        assert_eq!(
            frame_in("以后请叫我林工").map(|(p, v, _)| (p, v)),
            Some(("preferred_name", "林工".to_string()))
        );
        assert_eq!(
            frame_in("From now on, call me Lin.").map(|(p, v, _)| (p, v)),
            Some(("preferred_name", "Lin".to_string()))
        );
        assert_eq!(
            frame_in("Actually call me Lynn please.").map(|(p, v, _)| (p, v)),
            Some(("preferred_name", "Lynn".to_string()))
        );
        assert_eq!(
            frame_in("叫我王工就好，谢谢").map(|(p, v, _)| (p, v)),
            Some(("preferred_name", "王工".to_string()))
        );
        assert_eq!(
            frame_in("以后都用中文回复我").map(|(p, v, _)| (p, v)),
            Some(("reply_language", "中文".to_string()))
        );
        assert_eq!(frame_in("payment-service 使用 PostgreSQL"), None);
    }

    #[test]
    fn values_have_categories() {
        let (c, v, _) = value_in("payment-service 使用 PostgreSQL 16").unwrap();
        assert_eq!((c.name, v), ("database", "postgresql"));
        assert_eq!(
            category_of("以后代码示例改用 Java").map(|c| c.name),
            Some("programming_language")
        );
        // "go" is a word, not a part of "going".
        assert!(category_of("we are going home").is_none());
        assert!(category_of("那就这样吧").is_none());
    }

    #[test]
    fn concepts_are_found_by_terms() {
        let t = crate::analysis::text::terms("怎么称呼我？");
        let t: Vec<&str> = t.iter().map(String::as_str).collect();
        assert!(concepts_in(&t).iter().any(|c| c.name == "preferred_name"));
        assert!(is_generic("用户") && is_generic("like") && !is_generic("颜色"));
    }
}
