//! Text analysis: one place, used for both indexing and queries.
//! Unicode-aware; CJK text becomes character bigrams; Latin words are
//! lowercased; identifiers (service names, versions, error codes) are kept
//! whole and also split into their parts.

/// Is `c` a CJK ideograph or kana/hangul (scripts written without spaces)?
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FFFF)
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with",
    "about", "as", "into", "from", "is", "are", "was", "were", "be", "been", "being", "am", "do",
    "does", "did", "have", "has", "had", "i", "me", "my", "you", "your", "he", "she", "it", "its",
    "we", "our", "they", "them", "their", "this", "that", "these", "those", "what", "which", "who",
    "whom", "how", "when", "where", "why", "so", "than", "too", "very", "can", "will", "would",
    "should", "could", "not", "no", "yes", "just", "there", "here", "his", "her", "him", "any",
    "all", "some", "up", "out", "then", "also",
];

pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// Index terms of a text, in order of appearance (with repeats).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk_run: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<String>| {
        let w = word.trim_matches(|c: char| c == '.' || c == '-' || c == '_');
        if !w.is_empty() {
            let lw = w.to_lowercase();
            let parts: Vec<&str> = lw
                .split(|c: char| c == '.' || c == '-' || c == '_' || c == '/')
                .filter(|p| !p.is_empty())
                .collect();
            if parts.len() > 1 {
                out.push(lw.clone());
            }
            for p in parts {
                if !is_stopword(p) {
                    out.push(p.to_string());
                }
            }
        }
        word.clear();
    };
    let flush_cjk = |run: &mut Vec<char>, out: &mut Vec<String>| {
        if run.len() == 1 {
            out.push(run[0].to_string());
        }
        for pair in run.windows(2) {
            out.push(pair.iter().collect());
        }
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk_run.push(c);
        } else if c.is_alphanumeric()
            || ((c == '.' || c == '-' || c == '_' || c == '/') && !word.is_empty())
        {
            flush_cjk(&mut cjk_run, &mut out);
            word.push(c);
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk_run, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk_run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_bigrams_and_identifiers() {
        let t = terms("payment-service 的 V42 迁移失败");
        assert!(t.contains(&"payment-service".to_string()));
        assert!(t.contains(&"payment".to_string()));
        assert!(t.contains(&"v42".to_string()));
        assert!(t.contains(&"迁移".to_string()));
        assert!(t.contains(&"失败".to_string()));
        assert!(!terms("the cat").contains(&"the".to_string()));
    }
}
