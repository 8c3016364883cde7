//! What a memory is found by: its text's terms, the terms its structured
//! payload adds, and structural keys (entities, semantic subject and
//! predicate). Computed by the guest and stored by the host as postings, so
//! recall never scans a whole scope. The ranker re-derives the same
//! document (`doc`) from a fetched memory, so the length the store reports
//! and the term frequencies the ranker counts agree.

use crate::analysis::text::{analyze, value_key, Token};
use crate::core::model::semantic_key;
use crate::types::{Entry, Memory, Payload};

// Key postings carry a `=` after their prefix: text analysis never emits
// one, so no word of a text can collide with a structural key.

/// Prefix of exact `key=value` entity postings.
pub const ENTITY: &str = "e=";
/// Prefix of entity-value postings (any key): how a query that names an
/// entity in its text ("what did Caroline say…") finds memories tagged with it.
pub const ENTITY_VALUE: &str = "v=";
/// Prefix of semantic-subject postings.
pub const SUBJECT: &str = "s=";
/// Prefix of semantic-predicate postings.
pub const PREDICATE: &str = "p=";
/// Prefix of source-reference postings: how recall reads the neighbouring
/// turns of a conversation in one indexed lookup.
pub const SOURCE: &str = "r=";

/// The posting term for an exact entity match.
pub fn entity_term(e: &Entry) -> String {
    format!(
        "{ENTITY}{}={}",
        e.key.trim().to_lowercase(),
        value_key(&e.value)
    )
}

/// The posting term for an entity value under any key.
pub fn entity_value_term(value_key: &str) -> String {
    format!("{ENTITY_VALUE}{value_key}")
}

/// The posting term for a semantic subject.
pub fn subject_term(subject: &str) -> String {
    format!("{SUBJECT}{}", subject.trim().to_lowercase())
}

/// The posting term for a semantic predicate.
pub fn predicate_term(predicate: &str) -> String {
    format!("{PREDICATE}{}", predicate.trim().to_lowercase())
}

/// The posting term for a source reference (kept as written: references are
/// identifiers).
pub fn source_term(reference: &str) -> String {
    format!("{SOURCE}{}", reference.trim())
}

/// A memory as the index and the ranker see it.
#[derive(Debug, Clone)]
pub struct Doc {
    /// Lexical tokens: the text's, then those the payload adds that the
    /// text lacks (positions continue after the text's).
    pub tokens: Vec<Token>,
    /// Structural keys (`e=`, `v=`, `s=`, `p=`, `r=`).
    pub keys: Vec<String>,
}

impl Doc {
    /// Number of index terms: the document length for lexical scoring.
    pub fn len(&self) -> usize {
        self.tokens.len() + self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Payload fields worth finding a memory by (the subject is a key, not words).
fn payload_texts(m: &Memory) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    match &m.payload {
        Payload::Semantic(p) => {
            out.push(&p.predicate);
            out.push(&p.object);
            out.extend(p.condition.as_deref());
            // A fact is also found by the words of its attribute's concept
            // and its value's category (`vocab/`): "叫我林工" by 称呼 and
            // name, "uses PostgreSQL 16" by 数据库 and database.
            if let Some(c) = crate::vocab::concept(p.predicate.trim()) {
                out.extend(c.words.iter().copied());
            }
            let category = crate::vocab::category(p.predicate.trim())
                .or_else(|| crate::vocab::category_of(&p.object));
            if let Some(c) = category {
                out.extend(c.labels.iter().copied());
            }
        }
        Payload::Episodic(e) => {
            out.extend(e.actors.iter().map(String::as_str));
            out.extend(e.actions.iter().map(String::as_str));
            out.extend(e.outcome.as_deref());
            out.extend(
                e.context
                    .iter()
                    .filter(|c| !m.entities.contains(c))
                    .map(|c| c.value.as_str()),
            );
        }
        Payload::Procedural(p) => {
            out.push(&p.goal);
            out.extend(p.preconditions.iter().map(String::as_str));
            out.extend(p.steps.iter().map(|s| s.action.as_str()));
            out.extend(p.guards.iter().map(String::as_str));
            out.extend(p.recovery.iter().map(String::as_str));
        }
    }
    out
}

/// Analyse a memory.
pub fn doc(m: &Memory) -> Doc {
    let mut tokens = analyze(&m.text);
    let mut seen: std::collections::BTreeSet<String> =
        tokens.iter().map(|t| t.term.clone()).collect();
    let mut next = tokens.last().map(|t| t.pos + 2).unwrap_or(0);
    for field in payload_texts(m) {
        let extra = analyze(field);
        if extra.iter().all(|t| seen.contains(&t.term)) {
            continue;
        }
        let base = next;
        for mut t in extra {
            if seen.insert(t.term.clone()) {
                t.pos += base;
                next = next.max(t.pos + 2);
                tokens.push(t);
            }
        }
    }
    Doc {
        tokens,
        keys: keys(m),
    }
}

/// The structural keys of a memory (`e=`, `v=`, `s=`, `p=`, `r=`): no text
/// analysis, so the ranker can have them cheaply when the store already
/// counted the candidate's terms.
pub fn keys(m: &Memory) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for e in &m.entities {
        let value = value_key(&e.value);
        if e.key.trim().is_empty() || value.is_empty() {
            continue;
        }
        keys.push(entity_term(e));
        let v = entity_value_term(&value);
        if !keys.contains(&v) {
            keys.push(v);
        }
    }
    if let Some((subject, predicate, _)) = semantic_key(m) {
        keys.push(subject_term(subject));
        keys.push(predicate_term(predicate));
    }
    if let Some(r) = m.provenance.source.reference.as_deref() {
        if !r.trim().is_empty() {
            keys.push(source_term(r));
        }
    }
    keys
}

/// Index terms of a memory (with repeats; the store dedups postings and
/// takes the count as the document length).
pub fn memory_terms(m: &Memory) -> Vec<String> {
    let d = doc(m);
    let mut out: Vec<String> = d.tokens.into_iter().map(|t| t.term).collect();
    out.extend(d.keys);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Datetime, MemoryKind, Retention, Scope};

    fn fact(text: &str, subject: &str, predicate: &str, object: &str) -> Memory {
        let mut m = crate::testing::test_fixtures::memory(
            "m",
            MemoryKind::Semantic,
            text,
            Scope {
                tenant: "t".into(),
                user: None,
                project: None,
                thread: None,
                agent: None,
            },
            Datetime {
                epoch_ms: 0,
                offset_minutes: 0,
            },
        );
        m.payload = crate::testing::test_fixtures::semantic(subject, predicate, object);
        m.provenance.source.reference = Some("evt-7".into());
        m.provenance.extractor_version = String::new();
        m.provenance.policy_version = String::new();
        m.confidence = 1.0;
        m.retention = Retention::Durable;
        m.entities = vec![Entry {
            key: "Service".into(),
            value: "Order-Service".into(),
        }];
        m
    }

    #[test]
    fn keys_never_collide_with_words_and_lengths_agree() {
        // Text that looks like keys stays text.
        let m = fact("s=user:u1 r=evt-7 e:service", "user:u1", "db", "PostgreSQL");
        let d = doc(&m);
        assert!(d.tokens.iter().all(|t| !t.term.contains('=')));
        assert_eq!(
            d.keys,
            vec![
                "e=service=order-service",
                "v=order-service",
                "s=user:u1",
                "p=db",
                "r=evt-7"
            ]
        );
        assert_eq!(memory_terms(&m).len(), d.len());
    }

    #[test]
    fn payload_adds_only_what_the_text_lacks() {
        let m = fact(
            "payment-service uses PostgreSQL",
            "svc",
            "database",
            "PostgreSQL",
        );
        let terms = memory_terms(&m);
        assert_eq!(terms.iter().filter(|t| *t == "postgresql").count(), 1);
        assert!(terms.contains(&"databas".to_string()), "{terms:?}");
    }
}
