//! The policy's vocabulary as data: `guest/vocab/*.txt`, compiled into
//! static tables by `guest/build.rs` (syntax and sources in
//! `guest/vocab/README.md`). This module holds the tables' types and the few
//! lookups the pipelines make over them; the words themselves live only in
//! the data files.

use std::sync::OnceLock;

use crate::analysis::cues::{find_any, fold, Hit, Literals};

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
    folded
        .match_indices(word)
        .map(|(i, _)| i)
        .filter(move |&i| is_word_at(folded, word, i))
}

/// Is the occurrence of `word` at byte `i` of `folded` a word: its ASCII
/// edges at word boundaries (a CJK edge needs none)?
fn is_word_at(folded: &str, word: &str, i: usize) -> bool {
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
    (!first_ascii || i == 0 || i.checked_sub(1).is_some_and(|j| edge(bytes.get(j))))
        && (!last_ascii || edge(bytes.get(i + word.len())))
}

fn contains_word(folded: &str, word: &str) -> Option<usize> {
    word_at(folded, word).next()
}

/// Every category member, in file order, compiled for one scan of a text
/// (`value_in` runs on every candidate; a substring search per member was
/// a tenth of classification). Built on first use.
fn members() -> &'static (Vec<(&'static Category, &'static str)>, Literals) {
    static MEMBERS: OnceLock<(Vec<(&'static Category, &'static str)>, Literals)> = OnceLock::new();
    MEMBERS.get_or_init(|| {
        let all: Vec<(&'static Category, &'static str)> = CATEGORIES
            .iter()
            .flat_map(|c| c.values.iter().map(move |v| (c, *v)))
            .collect();
        let literals = Literals::new(&all.iter().map(|(_, v)| *v).collect::<Vec<_>>());
        (all, literals)
    })
}

/// A category member named in a text: (category, member, byte offset in the
/// folded text). The earliest mention wins; at one position the longest,
/// then the first in file order.
pub fn value_in(text: &str) -> Option<(&'static Category, &'static str, usize)> {
    let folded = fold(text);
    let (all, literals) = members();
    literals
        .occurrences(&folded)
        .into_iter()
        .filter_map(|(k, at)| {
            let (c, v) = all.get(k)?;
            is_word_at(&folded, v, at).then_some((at, std::cmp::Reverse(v.len()), k, *c, *v))
        })
        .min_by_key(|(at, len, k, _, _)| (*at, *len, *k))
        .map(|(at, _, _, c, v)| (c, v, at))
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
    // The earliest match in the text; at one position the file's order:
    // occurrences come by position, in frame order at one position.
    frame_openings()
        .occurrences(&folded)
        .into_iter()
        .find_map(|(k, at)| {
            let f = FRAMES.get(k)?;
            let before = f.before.trim_end();
            if !is_word_at(&folded, before, at) {
                return None;
            }
            let v = frame_value(text, at + before.len(), f.after)?;
            Some((f.predicate, v.to_string(), at))
        })
}

/// Each frame's opening words (`before` without trailing spaces), in file
/// order, compiled for one scan of a text. Built on first use.
fn frame_openings() -> &'static Literals {
    static OPENINGS: OnceLock<Literals> = OnceLock::new();
    OPENINGS.get_or_init(|| {
        Literals::new(
            &FRAMES
                .iter()
                .map(|f| f.before.trim_end())
                .collect::<Vec<_>>(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `value_in` as one substring search per member (what the one scan
    /// replaced), to hold the scan to the same answers.
    fn value_in_by_search(text: &str) -> Option<(&'static str, &'static str, usize)> {
        let folded = fold(text);
        let mut best: Option<(&'static str, &'static str, usize)> = None;
        for c in CATEGORIES {
            for v in c.values {
                if let Some(at) = contains_word(&folded, v) {
                    if best.is_none_or(|(_, bv, bat)| at < bat || (at == bat && v.len() > bv.len()))
                    {
                        best = Some((c.name, v, at));
                    }
                }
            }
        }
        best
    }

    /// `frame_in` as one substring search per frame.
    fn frame_in_by_search(text: &str) -> Option<(&'static str, String, usize)> {
        let folded = fold(text);
        let mut best: Option<(usize, &'static Frame, String)> = None;
        for f in FRAMES {
            let before = f.before.trim_end();
            for at in word_at(&folded, before) {
                let Some(v) = frame_value(text, at + before.len(), f.after) else {
                    continue;
                };
                if best.as_ref().is_none_or(|(b, _, _)| at < *b) {
                    best = Some((at, f, v.to_string()));
                }
                break;
            }
        }
        best.map(|(at, f, v)| (f.predicate, v, at))
    }

    #[test]
    fn one_scan_finds_what_a_search_per_member_or_frame_finds() {
        let mut texts: Vec<String> = Vec::new();
        let members = CATEGORIES.iter().flat_map(|c| c.values.iter().copied());
        let openings = FRAMES.iter().map(|f| f.before);
        for w in members.chain(openings) {
            texts.push(w.to_string());
            texts.push(format!("We moved to {w} last week, then {w} again."));
            texts.push(format!("x{w}y 以后{w}吧"));
            texts.push(format!("{w}{w} Lin, and {w}"));
            texts.push(format!("以后请{w}林工，代码示例用 TypeScript 和 Java"));
        }
        assert!(texts.len() > 500);
        for t in &texts {
            assert_eq!(
                value_in(t).map(|(c, v, at)| (c.name, v, at)),
                value_in_by_search(t),
                "{t}"
            );
            assert_eq!(frame_in(t), frame_in_by_search(t), "{t}");
        }
    }

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
