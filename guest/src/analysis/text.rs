//! Text analysis: one place, used for both indexing and queries.
//!
//! - Unicode-aware: words are runs of alphanumeric characters; fullwidth
//!   ASCII is folded to ASCII and everything is lowercased.
//! - CJK (Han, kana, hangul) runs become overlapping character bigrams
//!   (bigrams beat word segmentation on Chinese recall and need no
//!   dictionary) plus the single characters (flagged `part`, weighted down
//!   in queries) so 绘画 and 画画 still meet. Function characters (的, 了,
//!   我, …) are no terms, and neither is a bigram holding one; a short list
//!   of function words (什么, 因为, …) is dropped too.
//! - English words lose stopwords and clitics (`Caroline's` → `caroline`)
//!   and are Porter-stemmed (`crate::analysis::stem`).
//! - Numbers and identifiers (`payment-service`, `v1.2.3`, `ERR_42`,
//!   `10:30`) are kept whole and unstemmed; identifiers joined by `.-_/:`
//!   are also split into their parts so `payment` finds `payment-service`.
//!
//! Every token carries its position in the stream (an identifier's parts
//! and a bigram's characters share it).

/// One analysed token.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub term: String,
    /// Position in the token stream (identifier parts share the stream
    /// with the whole identifier, which sits at its first part's position).
    pub pos: u32,
    /// A part of a longer identifier (the whole one is also emitted).
    pub part: bool,
    /// A CJK character n-gram rather than a word.
    pub cjk: bool,
    /// Written like a name: a capitalised or numbered word, an identifier,
    /// or CJK (which has no case). Only names are probed as entity values.
    pub named: bool,
}

/// Is `c` a CJK ideograph or kana/hangul (scripts written without spaces)?
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FFFF)
}

/// English stopwords (the NLTK list, clitic stems included, plus a few
/// conversational fillers), sorted for binary search.
#[rustfmt::skip]
const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "ain", "all", "also", "am", "an", "and",
    "any", "are", "aren", "as", "at", "be", "because", "been", "before", "being", "below",
    "between", "both", "but", "by", "can", "could", "couldn", "d", "did", "didn", "do", "does",
    "doesn", "doing", "don", "down", "during", "each", "few", "for", "from", "further", "had",
    "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself",
    "hey", "hi", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "isn", "it", "its",
    "itself", "just", "ll", "m", "ma", "me", "might", "mightn", "more", "most", "must", "mustn",
    "my", "myself", "needn", "no", "nor", "not", "now", "o", "of", "off", "oh", "ok", "okay", "on",
    "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "re", "s",
    "same", "shall", "shan", "she", "should", "shouldn", "so", "some", "such", "t", "than", "that",
    "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
    "those", "through", "to", "too", "under", "until", "up", "ve", "very", "was", "wasn", "we",
    "were", "weren", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "won", "would", "wouldn", "y", "yeah", "yes", "you", "your", "yours", "yourself",
    "yourselves",
];

pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.binary_search(&w).is_ok()
}

/// Characters that join the parts of one identifier when inside a word.
fn is_joiner(c: char) -> bool {
    matches!(c, '.' | '-' | '_' | '/' | ':')
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}')
}

/// Fold fullwidth ASCII and the ideographic space to ASCII.
fn fold(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFF01 + 0x21).unwrap_or(c),
        0x3000 => ' ',
        _ => c,
    }
}

struct Analyzer {
    out: Vec<Token>,
    pos: u32,
    /// Whether the word being flushed is written like a name.
    named: bool,
}

impl Analyzer {
    fn push(&mut self, term: String, part: bool, cjk: bool, advance: bool) {
        self.out.push(Token {
            term,
            pos: self.pos,
            part,
            cjk,
            named: self.named || cjk,
        });
        if advance {
            self.pos += 1;
        }
    }

    /// A plain word (no joiners): stopwords dropped, words stemmed.
    fn word(&mut self, w: &str, part: bool) {
        if w.is_empty() || is_stopword(w) {
            return;
        }
        let term = if w.chars().any(|c| c.is_numeric()) {
            w.to_string()
        } else {
            crate::analysis::stem::stem(w)
        };
        self.push(term, part, false, true);
    }

    fn flush_word(&mut self, raw: &mut String) {
        if raw.is_empty() {
            return;
        }
        let lower = raw.to_lowercase();
        self.named = lower != *raw || raw.chars().any(|c| c.is_numeric());
        raw.clear();
        // Clitics: "caroline's" → "caroline", "don't" → "don".
        let lower = match lower.find(is_apostrophe) {
            Some(i) => lower[..i].to_string(),
            None => lower,
        };
        let w = lower.trim_matches(is_joiner);
        if w.is_empty() {
            return;
        }
        let parts: Vec<&str> = w.split(is_joiner).filter(|p| !p.is_empty()).collect();
        if parts.len() <= 1 {
            self.word(w, false);
            return;
        }
        // An identifier: whole (at the first part's position), then parts.
        self.named = true;
        self.push(w.to_string(), false, false, false);
        for p in parts {
            self.word(p, true);
        }
    }

    fn flush_cjk(&mut self, run: &mut Vec<char>) {
        if run.is_empty() {
            return;
        }
        if run.len() == 1 {
            if !is_cjk_stop_char(run[0]) {
                self.push(run[0].to_string(), false, true, false);
            }
            self.pos += 1;
        } else {
            for (i, pair) in run.windows(2).enumerate() {
                if !is_cjk_stop_char(run[i]) {
                    self.push(run[i].to_string(), true, true, false);
                }
                let bigram: String = pair.iter().collect();
                if !is_cjk_stop_bigram(&bigram) {
                    self.push(bigram, false, true, false);
                }
                self.pos += 1;
            }
            let last = run[run.len() - 1];
            if !is_cjk_stop_char(last) {
                self.push(last.to_string(), true, true, false);
            }
            self.pos += 1;
        }
        run.clear();
    }
}

/// Chinese function characters (pronouns, particles, copulas): never terms,
/// nor is a bigram that holds one.
const CJK_STOP_CHARS: &[char] = &[
    '一', '不', '个', '也', '了', '他', '们', '你', '吗', '吧', '呀', '呢', '和', '哈', '哦', '啊',
    '啦', '嗯', '嘛', '在', '她', '它', '就', '很', '我', '是', '有', '的', '着', '还', '这', '那',
    '都',
];

/// Chinese function words without a function character (conjunctions,
/// adverbs, fillers) that carry no topic, sorted for binary search.
const CJK_STOP_BIGRAMS: &[&str] = &[
    "东西", "什么", "其实", "可以", "可能", "因为", "如果", "已经", "应该", "怎么", "所以", "时候",
    "然后", "然而", "特别", "知道", "而且", "自己", "虽然",
];

fn is_cjk_stop_char(c: char) -> bool {
    CJK_STOP_CHARS.binary_search(&c).is_ok()
}

/// A bigram holding a function character (你知, 的猫, 很好) is no word; the
/// content character still counts as a unigram.
/// A Chinese function word (什么, 因为, …: `CJK_STOP_BIGRAMS`).
pub(crate) fn is_cjk_function_word(b: &str) -> bool {
    CJK_STOP_BIGRAMS.binary_search(&b).is_ok()
}

fn is_cjk_stop_bigram(b: &str) -> bool {
    b.chars().any(is_cjk_stop_char) || CJK_STOP_BIGRAMS.binary_search(&b).is_ok()
}

/// Analyse a text into positioned tokens.
pub fn analyze(text: &str) -> Vec<Token> {
    let mut a = Analyzer {
        out: Vec::new(),
        pos: 0,
        named: false,
    };
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    let mut chars = text.chars().map(fold).peekable();
    while let Some(c) = chars.next() {
        if is_cjk(c) {
            a.flush_word(&mut word);
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            a.flush_cjk(&mut run);
        }
        let inner = !word.is_empty() && chars.peek().is_some_and(|n| n.is_alphanumeric());
        if c.is_alphanumeric() || ((is_joiner(c) || is_apostrophe(c)) && inner) {
            word.push(c);
        } else {
            a.flush_word(&mut word);
        }
    }
    a.flush_word(&mut word);
    a.flush_cjk(&mut run);
    a.out
}

/// Index terms of a text, in order of appearance (with repeats).
pub fn terms(text: &str) -> Vec<String> {
    analyze(text).into_iter().map(|t| t.term).collect()
}

/// The key under which an entity value is indexed and probed: its analysed
/// tokens (identifier parts left out) joined by spaces, so "Caroline",
/// "caroline" and "CAROLINE's" meet, and `order-service` stays whole.
pub fn value_key(value: &str) -> String {
    let toks: Vec<String> = analyze(value)
        .into_iter()
        .filter(|t| !t.part)
        .map(|t| t.term)
        .collect();
    toks.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_bigrams_and_identifiers() {
        let t = terms("payment-service 的 V42 迁移失败");
        for want in [
            "payment-service",
            "payment",
            "servic",
            "v42",
            "迁移",
            "移失",
            "失败",
        ] {
            assert!(t.contains(&want.to_string()), "{want} in {t:?}");
        }
        // Single characters ride along with the bigrams; function words do not.
        assert!(t.contains(&"迁".to_string()) && !t.contains(&"的".to_string()));
        assert!(!terms("the cat").contains(&"the".to_string()));
        assert_eq!(terms("你知道吗我们的猫很好"), vec!["知", "道", "猫", "好"]);
    }

    #[test]
    fn english_is_stemmed_and_clitics_dropped() {
        assert_eq!(
            terms("Caroline's painting: she painted sunrises!"),
            vec!["carolin", "paint", "paint", "sunris"]
        );
        assert_eq!(terms("I don't know"), vec!["know"]);
        assert_eq!(terms("It’s RUNNING"), vec!["run"]);
    }

    #[test]
    fn numbers_versions_and_codes_stay_whole() {
        let t = terms("upgrade to v1.2.3 fixed ERR_CONN_42 at 10:30 on 2023-05-08");
        for want in [
            "v1.2.3",
            "err_conn_42",
            "10:30",
            "2023-05-08",
            "42",
            "2023",
            "conn",
        ] {
            assert!(t.contains(&want.to_string()), "{want} in {t:?}");
        }
        // Trailing punctuation is not part of an identifier.
        assert_eq!(
            terms("see order-service."),
            vec!["see", "order-service", "order", "servic"]
        );
    }

    #[test]
    fn fullwidth_and_mixed_scripts() {
        assert_eq!(terms("ＡＰＩ超时"), vec!["api", "超", "超时", "时"]);
        assert_eq!(terms("林"), vec!["林"]);
        let toks = analyze("订单服务超时");
        let bigrams: Vec<(&str, u32)> = toks
            .iter()
            .filter(|t| !t.part)
            .map(|t| (t.term.as_str(), t.pos))
            .collect();
        assert_eq!(
            bigrams,
            vec![
                ("订单", 0),
                ("单服", 1),
                ("服务", 2),
                ("务超", 3),
                ("超时", 4)
            ]
        );
        assert_eq!(toks.iter().filter(|t| t.part).count(), 6);
        assert!(toks.iter().all(|t| t.cjk && t.named));
    }

    #[test]
    fn positions_are_shared_by_identifier_and_first_part() {
        let toks = analyze("restart payment-service now");
        let p: Vec<(&str, u32, bool)> = toks
            .iter()
            .map(|t| (t.term.as_str(), t.pos, t.part))
            .collect();
        assert_eq!(
            p,
            vec![
                ("restart", 0, false),
                ("payment-service", 1, false),
                ("payment", 1, true),
                ("servic", 2, true)
            ]
        );
    }

    #[test]
    fn value_keys_meet_across_case_and_clitics() {
        assert_eq!(value_key("Caroline"), value_key("CAROLINE's"));
        assert_eq!(value_key("order-service"), "order-service");
        assert_eq!(value_key("林工"), "林工");
        assert_eq!(value_key("张三丰"), "张三 三丰");
    }

    #[test]
    fn stopwords_are_sorted() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(CJK_STOP_CHARS.windows(2).all(|w| w[0] < w[1]));
        assert!(CJK_STOP_BIGRAMS.windows(2).all(|w| w[0] < w[1]));
    }
}
