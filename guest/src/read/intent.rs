//! Query intent: which kind of memory a question is asking for, from cue
//! words in Chinese and English (seed 000 §六: "如何执行退款" wants a
//! procedure, "上次为什么失败" wants an episode, "是什么" wants a fact).
//! The result feeds the `typefit` feature; a query with no cue fits every
//! kind equally, so typefit then changes no ranking.

use crate::core::config::CUES;
use crate::types::MemoryKind;

/// How well each kind of memory fits a query, in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intent {
    pub semantic: bool,
    pub episodic: bool,
    pub procedural: bool,
    /// It asks how a value was before or why it changed ("以前是多少天？为
    /// 什么变了？", `vocab/cues/history.txt`): past revisions answer it
    /// too (seed 002 §7.14: "去年政策为何变化" reads history).
    pub history: bool,
    /// It asks about a failure ("为什么上次发布失败？"): a failed episode
    /// is what it wants, not down-weighted.
    pub failure: bool,
}

impl Intent {
    /// Did any cue fire?
    pub fn any(&self) -> bool {
        self.semantic || self.episodic || self.procedural
    }

    /// typefit of a kind: 1 when the query asks for it, 0 when it asks for
    /// something else, ½ when the query shows no intent.
    pub fn fit(&self, kind: MemoryKind) -> f64 {
        if !self.any() {
            return 0.5;
        }
        let wanted = match kind {
            MemoryKind::Semantic => self.semantic,
            MemoryKind::Episodic => self.episodic,
            MemoryKind::Procedural => self.procedural,
        };
        if wanted {
            1.0
        } else {
            0.0
        }
    }
}

fn has_cue(text: &str, cue: &str) -> bool {
    if cue.chars().any(crate::analysis::text::is_cjk) {
        return text.contains(cue);
    }
    let bytes = text.as_bytes();
    text.match_indices(cue).any(|(i, _)| {
        let before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let end = i + cue.len();
        let after = end >= bytes.len() || !bytes[end].is_ascii_alphanumeric();
        before && after
    })
}

/// The intent of a query text.
pub fn intent(query: &str) -> Intent {
    let q = query.to_lowercase().replace('\u{2019}', "'");
    let any = |cues: &[&str]| cues.iter().any(|c| has_cue(&q, c));
    let procedural = any(CUES.intent_procedural);
    let folded = crate::analysis::cues::fold(&q);
    let terms = crate::analysis::text::terms(&q);
    let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
    Intent {
        episodic: any(CUES.intent_episodic),
        procedural,
        // "what is the procedure for…" asks for the procedure, not a fact.
        semantic: any(CUES.intent_semantic) && !procedural,
        history: !crate::vocab::cues_in(&folded, CUES.history).is_empty(),
        failure: crate::vocab::concepts_in(&terms)
            .iter()
            .any(|c| c.name == "failure"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::MemoryKind::*;

    #[test]
    fn cues_in_both_languages() {
        let how = intent("How do I roll back order-service?");
        assert_eq!((how.fit(Procedural), how.fit(Episodic)), (1.0, 0.0));
        let why = intent("为什么上次发布失败？");
        assert_eq!((why.fit(Episodic), why.fit(Procedural)), (1.0, 0.0));
        let what = intent("payment-service 的数据库是什么");
        assert_eq!((what.fit(Semantic), what.fit(Episodic)), (1.0, 0.0));
        let both = intent("为什么上次发布失败？这次如何发布？");
        assert_eq!(
            (both.fit(Episodic), both.fit(Procedural), both.fit(Semantic)),
            (1.0, 1.0, 0.0)
        );
    }

    #[test]
    fn history_and_failure_questions() {
        assert!(intent("以前是多少天？为什么变了？").history);
        assert!(intent("What was it before, and why did it change?").history);
        assert!(!intent("现在退款期限是多少天？").history);
        assert!(intent("为什么上次发布失败？").failure);
        assert!(intent("Why did the last release fail?").failure);
        assert!(!intent("How do I release payment-service?").failure);
    }

    #[test]
    fn no_cue_is_neutral_and_words_are_whole() {
        let none = intent("order-service timeout");
        assert!(!none.any());
        assert_eq!(none.fit(Semantic), none.fit(Procedural));
        // "ago" inside "Chicago" is not a time cue; "which" inside "whichever" is not one either.
        assert!(!intent("Chicago whichever").any());
        assert!(intent("two days ago").episodic);
    }
}
