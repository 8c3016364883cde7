//! The key of a stated fact, from the sentence's structure and the
//! vocabulary (`guest/vocab/`), so that a later value of the same attribute
//! finds the earlier one (seed 000 §七.1, seed 001 "语义记忆要做版本覆盖"):
//!
//! 1. **frames** (`vocab/frames.txt`): "以后请叫我林工", "Actually call me
//!    Lynn" → `preferred_name` = 林工 / Lynn;
//! 2. **a value of a known category** (`vocab/categories.txt`) with what
//!    stands before it in its clause: "payment-service 使用 PostgreSQL 16"
//!    → (payment-service, `database`, PostgreSQL 16); "以后代码示例改用
//!    Java" → (the speaker, `code_example`, Java). A name-like word before
//!    the verb is the subject; ordinary words name the attribute (a topic),
//!    normalised to its concept (`vocab/concepts.txt`: 代码示例 and "code
//!    examples" are one attribute); with neither, the category names it.
//!
//! Attribute names from words are normalised once (`attribute`), whatever
//! rule found them, so "数据库" from "X 的数据库是 Y" and `database` from a
//! category meet.

use crate::analysis::cues::fold;
use crate::vocab;

/// A key found in a text: (subject or `None` for the speaker's default
/// subject, attribute, value as written, how it was found).
pub struct Found {
    pub subject: Option<String>,
    pub predicate: String,
    pub object: String,
    /// The situation it holds in, when the sentence names one ("工作场合",
    /// "in the friends' group chat"): a qualifier of the key (seed 000
    /// §七.2: 王工 at work and 小王 among friends are no conflict).
    pub condition: Option<String>,
    pub how: &'static str,
}

/// Words before a value that say "uses / switch to / is": not part of the
/// attribute's name. Longest first.
const VERBS: &[&str] = &[
    "默认使用",
    "默认用",
    "统一使用",
    "统一用",
    "改成用",
    "改为用",
    "一律用",
    "都改用",
    "都用",
    "改用",
    "换成",
    "改成",
    "改为",
    "换用",
    "采用",
    "选用",
    "使用",
    "用的是",
    "用了",
    "用",
    "写成",
    "来写",
    "写",
    "是",
    "为",
    "偏好",
    "喜欢",
    "倾向",
    "运行在",
    "部署在",
    "跑在",
    "switched to",
    "switch to",
    "switching to",
    "moved to",
    "changed to",
    "change to",
    "runs on",
    "run on",
    "is on",
    "uses",
    "use",
    "using",
    "prefers",
    "prefer",
    "is",
    "are",
    "in",
    "with",
    "should be",
    "to",
];

/// Words before an attribute that only place it in time or address the
/// listener. Longest first.
const LEADS: &[&str] = &[
    "从今以后",
    "从现在起",
    "从现在开始",
    "从今天起",
    "以后",
    "今后",
    "往后",
    "之后",
    "现在",
    "目前",
    "当前",
    "默认",
    "请",
    "都",
    "也",
    "我们",
    "我的",
    "我",
    "咱们",
    "的",
    "actually",
    "from now on",
    "going forward",
    "by default",
    "please",
    "now",
    "always",
    "our",
    "my",
    "the",
    "we",
    "i",
    ",",
    "，",
];

fn strip_leads(mut s: &str) -> &str {
    loop {
        let before = s;
        let f = fold(s);
        for l in LEADS {
            if f.starts_with(l) {
                let rest = &s[l.len()..];
                // An ASCII lead is a whole word.
                if l.is_ascii() && rest.chars().next().is_some_and(char::is_alphanumeric) {
                    continue;
                }
                s = rest.trim_start();
                break;
            }
        }
        if s == before {
            return s;
        }
    }
}

fn strip_verbs(mut s: &str) -> &str {
    loop {
        let before = s;
        let f = fold(s);
        for v in VERBS {
            if f.ends_with(v) {
                let rest = &s[..s.len() - v.len()];
                if v.is_ascii() && rest.chars().next_back().is_some_and(char::is_alphanumeric) {
                    continue;
                }
                s = rest.trim_end();
                break;
            }
        }
        if s == before {
            return s;
        }
    }
}

/// Is this phrase written like a name (an identifier, a capitalised or
/// numbered word) rather than ordinary words?
fn name_like(s: &str) -> bool {
    !s.is_empty()
        && s.is_ascii()
        && !s.contains(' ')
        && (s.contains(['-', '_', '.', '/'])
            || s.chars().any(|c| c.is_ascii_digit())
            || s.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
}

/// An attribute's name from words: its concept when a concept has these
/// words ("数据库" → `database`, "code examples" → `code_example`), else
/// the words joined by `_`.
pub fn attribute(words: &str) -> String {
    let f = fold(words.trim());
    for c in vocab::CONCEPTS {
        if c.name == f || c.words.iter().any(|w| *w == f) {
            return c.name.to_string();
        }
    }
    // A category's label names the category ("数据库" → database).
    for c in vocab::CATEGORIES {
        if c.labels.contains(&f.as_str()) {
            return c.name.to_string();
        }
    }
    // "code examples" → the concept whose words analyse alike.
    let analysed: Vec<String> = crate::analysis::text::terms(&f);
    if !analysed.is_empty() {
        for c in vocab::CONCEPTS {
            if c.terms.iter().any(|t| t.iter().eq(analysed.iter())) {
                return c.name.to_string();
            }
        }
    }
    f.split_whitespace().collect::<Vec<_>>().join("_")
}

/// Clause boundaries a subject or attribute never crosses.
const CLAUSE: &[char] = &[
    '，', ',', '。', '；', ';', '：', ':', '\n', '！', '!', '？', '?', '、',
];

/// The value of a known category and what stands before it.
fn by_category(text: &str) -> Option<Found> {
    let (category, _, at) = vocab::value_in(text)?;
    // The value as written: from the member to the end of its clause.
    let rest = text.get(at..)?;
    let end = rest.find(CLAUSE).unwrap_or(rest.len());
    let object = rest
        .get(..end)?
        .trim()
        .trim_end_matches(['。', '.', '!', '！'])
        .trim();
    let clause_start = text
        .get(..at)?
        .rfind(CLAUSE)
        .map(|i| i + text[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(0);
    let before = strip_verbs(strip_leads(text.get(clause_start..at)?.trim()));
    let before = before.trim_matches(|c: char| c.is_whitespace() || "'\"“”".contains(c));
    if object.is_empty() || before.chars().count() > 48 {
        return None;
    }
    let of = fold(before).rfind(" of ");
    let (subject, predicate) = if before.is_empty() {
        (None, category.name.to_string())
    } else if let Some(i) = of {
        // "the production database of payment-service": attribute of subject.
        let (a, s) = (before[..i].trim(), before[i + 4..].trim());
        let a = strip_leads(a);
        (
            (!s.is_empty()).then(|| s.to_string()),
            if a.is_empty() {
                category.name.to_string()
            } else {
                attribute(a)
            },
        )
    } else if name_like(before) {
        (Some(before.to_string()), category.name.to_string())
    } else if let Some((s, a)) = before.split_once('的').or_else(|| before.split_once("'s ")) {
        // "payment-service 的数据库用 MySQL": subject and attribute.
        let s = s.trim();
        let a = strip_verbs(a.trim());
        let a = if a.is_empty() {
            category.name.to_string()
        } else {
            attribute(a)
        };
        ((!s.is_empty()).then(|| s.to_string()), a)
    } else {
        // Ordinary words before the value name its attribute only when they
        // are a known one ("代码示例" → code_example); otherwise the value's
        // category does ("以后写知识图谱时永久改用纯 LaTeX" → document_format).
        let a = attribute(before);
        let known = vocab::concept(&a).is_some() || vocab::category(&a).is_some();
        (None, if known { a } else { category.name.to_string() })
    };
    Some(Found {
        subject,
        predicate,
        object: object.to_string(),
        condition: None,
        how: "a value of a known category",
    })
}

/// Words that open a situation before a frame ("在…里", "at …", "in …").
const SITUATION_OPEN: &[&str] = &[
    "在", "at ", "in ", "on ", "during ", "when ", "with ", "among ",
];
/// Words that close one in Chinese ("…里", "…场合").
const SITUATION_CLOSE: &[&str] = &[
    "场合",
    "场景",
    "群里",
    "里",
    "中",
    "上",
    "时",
    "的时候",
    "期间",
    "面前",
];

/// The situation named before a frame's match in its sentence, if the
/// words there are shaped like one ("工作场合请叫我王工", "At work, please
/// call me …"); anything else before it (以后, please, actually) is not.
fn situation(text: &str, at: usize) -> Option<String> {
    let head = text.get(..at)?;
    let start = head
        .rfind(['。', '.', '！', '!', '？', '?', '；', ';', '\n'])
        .map(|i| i + head[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(0);
    let raw = strip_leads(head.get(start..)?.trim());
    let mut s = raw
        .trim_end_matches(|c: char| c.is_whitespace() || "，,请".contains(c))
        .trim_end();
    let f = fold(s);
    for lead in ["please", "请", "就", "都", "也"] {
        if f.ends_with(lead) && s.len() > lead.len() {
            s = s[..s.len() - lead.len()].trim_end_matches([' ', ',', '，']);
        }
    }
    let f = fold(s);
    let opened = SITUATION_OPEN.iter().find(|o| f.starts_with(*o));
    let closed = SITUATION_CLOSE.iter().any(|c| f.ends_with(c)) && !f.is_ascii();
    if s.is_empty() || s.chars().count() > 40 || !(opened.is_some() || closed) {
        return None;
    }
    let mut core = f.as_str();
    if let Some(o) = opened {
        core = core[o.len()..].trim_start();
    }
    for c in ["的时候", "里", "中", "上", "时"] {
        if let Some(x) = core.strip_suffix(c) {
            core = x;
            break;
        }
    }
    let core = core.trim_start_matches("the ").trim();
    (!core.is_empty()).then(|| core.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The key a text states by its structure, if any.
pub fn structural(text: &str) -> Option<Found> {
    if let Some((predicate, object, at)) = vocab::frame_in(text) {
        return Some(Found {
            subject: None,
            predicate: predicate.to_string(),
            object,
            condition: situation(text, at),
            how: "an attribute frame",
        });
    }
    by_category(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> (Option<String>, String, String) {
        let f = structural(text).unwrap_or_else(|| panic!("no key in {text}"));
        (f.subject, f.predicate, f.object)
    }

    #[test]
    fn a_later_value_of_one_attribute_has_the_same_key() {
        let a = key("代码示例用 TypeScript");
        let b = key("以后代码示例改用 Java");
        assert_eq!((a.0.clone(), a.1.clone()), (b.0.clone(), b.1.clone()));
        assert_eq!((a.2.as_str(), b.2.as_str()), ("TypeScript", "Java"));
        assert_eq!(key("From now on, call me Lin.").1, "preferred_name");
        assert_eq!(key("Actually call me Lynn.").2, "Lynn");
    }

    #[test]
    fn a_name_before_the_value_is_the_subject() {
        let cmdb = key("payment-service 使用 PostgreSQL 16");
        let user = key("payment-service 使用 MySQL");
        assert_eq!(cmdb.0.as_deref(), Some("payment-service"));
        assert_eq!((cmdb.0, cmdb.1), (user.0, user.1.clone()));
        assert_eq!(user.1, "database");
        let of = key("payment-service 的数据库是 PostgreSQL 16");
        assert_eq!(
            (of.0.as_deref(), of.1.as_str()),
            (Some("payment-service"), "database")
        );
    }

    #[test]
    fn a_named_situation_qualifies_the_key() {
        let cond = |t: &str| structural(t).and_then(|f| f.condition);
        assert_eq!(cond("工作场合请叫我王工。").as_deref(), Some("工作场合"));
        assert_eq!(cond("在朋友群里请叫我小王。").as_deref(), Some("朋友群"));
        assert_eq!(
            cond("At work, please call me Engineer Wang.").as_deref(),
            Some("work")
        );
        assert_eq!(
            cond("In the friends' group chat, call me Xiao Wang.").as_deref(),
            Some("friends' group chat")
        );
        assert_eq!(cond("以后请叫我林工"), None);
        assert_eq!(cond("From now on, call me Lin."), None);
        assert_eq!(cond("Actually call me Lynn."), None);
        assert_eq!(cond("你以后就叫我林工吧"), None);
    }

    #[test]
    fn attributes_meet_through_their_concept() {
        assert_eq!(attribute("数据库"), "database");
        assert_eq!(attribute("代码示例"), "code_example");
        assert_eq!(attribute("code examples"), "code_example");
        assert_eq!(attribute("发布窗口"), "发布窗口");
    }
}
