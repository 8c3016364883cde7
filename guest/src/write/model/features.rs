//! Hashed features of a candidate: the text's n-grams (single Chinese and
//! Japanese characters and their bigrams; English words and word bigrams,
//! digits folded to `0`), the source kind, the rule scan's structural
//! signals and the kind the rules reached, alone and crossed with the
//! source. Each feature is hashed (FNV-1a) into one of the table's buckets;
//! a feature fires once however often it occurs.

/// Where a feature comes from, for the reasons line.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// A CJK unigram or bigram: a byte range of the text.
    Chars(usize, usize),
    /// An English word or word bigram: a byte range of the normalised words.
    Words(usize, usize),
    Source,
    Signal(&'static str),
    Rule,
    SourceSignal(&'static str),
    SourceRule,
}

/// The features of one candidate.
#[derive(Debug, Clone)]
pub struct Features {
    /// Bucket ids: the text n-grams' (sorted, each once), then the
    /// structural features' (source, signals, rule kind; sorted, each once).
    ids: Vec<u32>,
    /// How many of `ids` are text n-grams (their weights may be averaged,
    /// divided by √n, so that a long text does not outvote the structure).
    text: usize,
    /// For each id, the first feature that landed in it.
    origins: Vec<Origin>,
    text_src: String,
    words: String,
    source: &'static str,
    rule: &'static str,
}

/// Is this a character of a script written without spaces?
fn cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff | 0x20000..=0x2ffff)
}

/// A word with its contraction spelled out ("i'm" → ["i", "am"]).
fn expand(w: &str) -> Vec<String> {
    let w = w.trim_matches(|c| c == '\'' || c == '-');
    if w.is_empty() {
        return Vec::new();
    }
    if let Some(base) = w.strip_suffix("n't") {
        let base = match base {
            "ca" => "can",
            "wo" => "will",
            "sha" => "shall",
            b => b,
        };
        return vec![base.to_string(), "not".to_string()];
    }
    if let Some((a, b)) = w.split_once('\'') {
        let b = match b {
            "m" => "am",
            "re" => "are",
            "ve" => "have",
            "ll" => "will",
            "d" => "would",
            "s" => "is",
            other => other,
        };
        return [a, b]
            .iter()
            .filter(|x| !x.is_empty())
            .map(|x| x.to_string())
            .collect();
    }
    vec![w.to_string()]
}

/// FNV-1a of `ns`, a 0xff separator and the parts, streamed (no buffer):
/// the same value as `fnv1a` of their concatenation. Shared by every head
/// (each hashes its own namespaces).
pub fn bucket(buckets: u32, ns: &str, parts: &[&str]) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    ns.bytes().for_each(&mut eat);
    eat(0xff);
    for p in parts {
        p.bytes().for_each(&mut eat);
    }
    ((h ^ (h >> 32)) as u32) & (buckets - 1)
}

impl Features {
    /// The features of `text` (folded, secrets masked) from `source`, with
    /// the rule scan's `signals` and the rules' kind, for a table of
    /// `buckets` (a power of two).
    pub fn of(
        buckets: u32,
        text: &str,
        source: &'static str,
        rule: &'static str,
        signals: &[&'static str],
    ) -> Features {
        let mut raw: Vec<(u32, Origin)> = Vec::new();
        let mut push = |ns: &str, s: &[&str], o: Origin| raw.push((bucket(buckets, ns, s), o));

        // Characters: unigrams and bigrams inside each CJK run.
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        for (n, &(i, c)) in chars.iter().enumerate() {
            if !cjk(c) {
                continue;
            }
            let end = i + c.len_utf8();
            push("c", &[&text[i..end]], Origin::Chars(i, end));
            if let Some(&(j, d)) = chars.get(n + 1) {
                if cjk(d) {
                    let e = j + d.len_utf8();
                    push("c", &[&text[i..e]], Origin::Chars(i, e));
                }
            }
        }
        // Words: runs of ASCII letters, digits and ' - _, digits folded,
        // contractions spelled out ("i'm" → "i am", "don't" → "do not");
        // bigrams do not cross punctuation.
        let mut tokens: Vec<(String, bool)> = Vec::new(); // word, follows punctuation
        let mut cur = String::new();
        let mut broke = true;
        for c in text.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_alphanumeric() || matches!(c, '\'' | '_' | '-') {
                let d = if c.is_ascii_digit() { '0' } else { c };
                if !(d == '0' && cur.ends_with('0')) {
                    cur.push(d);
                }
                continue;
            }
            if !cur.is_empty() {
                for (n, w) in expand(&cur).into_iter().enumerate() {
                    tokens.push((w, broke && n == 0));
                }
                cur.clear();
                broke = false;
            }
            if !c.is_whitespace() {
                broke = true;
            }
        }
        let mut words = String::new();
        let mut spans: Vec<(usize, usize, bool)> = Vec::new();
        for (w, after_punct) in &tokens {
            if !words.is_empty() {
                words.push(' ');
            }
            spans.push((words.len(), words.len() + w.len(), *after_punct));
            words.push_str(w);
        }
        for (n, &(s, e, _)) in spans.iter().enumerate() {
            push("w", &[&words[s..e]], Origin::Words(s, e));
            if let Some(&(_, e2, after_punct)) = spans.get(n + 1) {
                if !after_punct {
                    push("w", &[&words[s..e2]], Origin::Words(s, e2));
                }
            }
        }
        // Marks that carry mood.
        for (m, name) in [
            ('?', "mark ?"),
            ('？', "mark ?"),
            ('!', "mark !"),
            ('！', "mark !"),
        ] {
            if text.contains(m) {
                push("s", &[name], Origin::Signal(name));
            }
        }
        push("src", &[source], Origin::Source);
        push("r", &[rule], Origin::Rule);
        push("sr", &[source, "|", rule], Origin::SourceRule);
        for &sig in signals {
            push("s", &[sig], Origin::Signal(sig));
            push("ss", &[source, "|", sig], Origin::SourceSignal(sig));
        }

        // Sorted unique ids per group, each with its first origin.
        let is_text = |o: &Origin| matches!(o, Origin::Chars(..) | Origin::Words(..));
        let mut ids = Vec::with_capacity(raw.len());
        let mut origins = Vec::with_capacity(raw.len());
        let mut n_text = 0;
        for group in [true, false] {
            let mut order: Vec<usize> = (0..raw.len())
                .filter(|&i| is_text(&raw[i].1) == group)
                .collect();
            order.sort_by_key(|&i| (raw[i].0, i));
            let start = ids.len();
            for i in order {
                if ids.len() == start || ids.last() != Some(&raw[i].0) {
                    ids.push(raw[i].0);
                    origins.push(raw[i].1);
                }
            }
            if group {
                n_text = ids.len();
            }
        }
        Features {
            ids,
            text: n_text,
            origins,
            text_src: text.to_string(),
            words,
            source,
            rule,
        }
    }

    /// Features known only by their ids (training and evaluation, where
    /// names are not needed).
    pub fn from_ids(ids: Vec<u32>, text: usize) -> Features {
        Features {
            text: text.min(ids.len()),
            ids,
            origins: Vec::new(),
            text_src: String::new(),
            words: String::new(),
            source: "",
            rule: "",
        }
    }

    /// Bucket ids: text n-grams first, then structural features.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// How many of [`Features::ids`] are text n-grams.
    pub fn text_count(&self) -> usize {
        self.text
    }

    /// The factor a text n-gram's weight is multiplied by (1/√n).
    pub fn text_factor(&self) -> f64 {
        1.0 / (self.text.max(1) as f64).sqrt()
    }

    /// A readable name of the `i`-th feature ("char '以后'", "signal progress").
    pub fn name(&self, i: usize) -> String {
        match self.origins.get(i) {
            Some(Origin::Chars(s, e)) => format!("text '{}'", &self.text_src[*s..*e]),
            Some(Origin::Words(s, e)) => format!("text '{}'", &self.words[*s..*e]),
            Some(Origin::Source) => format!("source {}", self.source),
            Some(Origin::Signal(s)) => format!("signal {s}"),
            Some(Origin::Rule) => format!("rules said {}", self.rule),
            Some(Origin::SourceSignal(s)) => format!("{} source with {s}", self.source),
            Some(Origin::SourceRule) => {
                format!("rules said {} for a {} source", self.rule, self.source)
            }
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(f: &Features) -> Vec<String> {
        (0..f.ids().len()).map(|i| f.name(i)).collect()
    }

    #[test]
    fn chinese_gets_characters_and_bigrams_english_words_and_bigrams() {
        let f = Features::of(
            1 << 16,
            "以后 for now, call me",
            "user",
            "working",
            &["question"],
        );
        let n = names(&f);
        for want in [
            "text '以'",
            "text '以后'",
            "text 'for now'",
            "text 'call me'",
            "signal question",
            "source user",
            "rules said working",
        ] {
            assert!(n.iter().any(|x| x == want), "{want} missing from {n:?}");
        }
        assert!(
            !n.iter().any(|x| x == "text 'now call'"),
            "a bigram crossed a comma: {n:?}"
        );
    }

    #[test]
    fn contractions_are_spelled_out() {
        let n = names(&Features::of(
            1 << 16,
            "i'm sure we don't",
            "user",
            "none",
            &[],
        ));
        for want in ["text 'i am'", "text 'do not'", "text 'am sure'"] {
            assert!(n.iter().any(|x| x == want), "{want} missing from {n:?}");
        }
    }

    #[test]
    fn digits_fold_and_features_fire_once() {
        let a = Features::of(
            1 << 16,
            "retry 3 of 5, retry 3 of 5",
            "tool",
            "working",
            &[],
        );
        let b = Features::of(1 << 16, "retry 4 of 6", "tool", "working", &[]);
        assert_eq!(a.ids(), b.ids());
        let (text, rest) = a.ids().split_at(a.text_count());
        for group in [text, rest] {
            let mut sorted = group.to_vec();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted, group, "each group sorted, each id once");
        }
    }

    #[test]
    fn streamed_hash_equals_the_hash_of_the_concatenation() {
        let h = crate::core::model::fnv1a(b"sr\xffuser-stated|working");
        let want = ((h ^ (h >> 32)) as u32) & ((1 << 14) - 1);
        assert_eq!(
            bucket(1 << 14, "sr", &["user-stated", "|", "working"]),
            want
        );
    }

    #[test]
    fn every_id_is_inside_the_table() {
        let f = Features::of(64, "任意文本 any text ?", "document", "none", &["progress"]);
        assert!(f.ids().iter().all(|&id| id < 64));
    }
}
