//! Scoring: `α·sim + β·scope + γ·freshness + δ·authority + ε·typefit +
//! ζ·entity − λ·risk`, every term reported, plus the admission gate.

use std::collections::BTreeMap;

use crate::config::Policy;
use crate::model::scope_depth;
use crate::types::{Admission, Datetime, Features, Memory, Query, ScoredMemory, Status};
use crate::wit_store::Stored;

/// What the ranker knows about a query.
pub struct QueryModel {
    /// Distinct query terms with their IDF.
    pub idf: BTreeMap<String, f64>,
    pub average_length: f64,
    pub as_of: Datetime,
}

/// BM25 of a memory's terms against the query model, normalised to [0, 1)
/// by `s / (s + 1)` so it mixes with the other features.
pub fn lexical(q: &QueryModel, terms: &[String], policy: &Policy) -> f64 {
    let mut tf: BTreeMap<&str, f64> = BTreeMap::new();
    for t in terms {
        *tf.entry(t.as_str()).or_default() += 1.0;
    }
    let len = terms.len() as f64;
    let avg = if q.average_length > 0.0 {
        q.average_length
    } else {
        len.max(1.0)
    };
    let (k1, b) = (policy.rank.bm25_k1, policy.rank.bm25_b);
    let s: f64 = q
        .idf
        .iter()
        .filter_map(|(t, idf)| tf.get(t.as_str()).map(|f| (idf, f)))
        .map(|(idf, f)| idf * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * len / avg)))
        .sum();
    s / (s + 1.0)
}

/// Score one candidate for a query.
pub fn score(q: &QueryModel, query: &Query, s: &Stored, policy: &Policy) -> ScoredMemory {
    let m: &Memory = &s.memory;
    let w = &policy.rank;
    let terms = crate::index::memory_terms(m);
    let similarity = lexical(q, &terms, policy);
    let entity = if query.entities.is_empty() {
        0.0
    } else {
        let hits = query
            .entities
            .iter()
            .filter(|e| m.entities.contains(e))
            .count();
        hits as f64 / query.entities.len() as f64
    };
    let freshness = match policy.half_life(m.kind) {
        None => 1.0,
        Some(h) => {
            let at = match &m.payload {
                crate::types::Payload::Episodic(e) => e.occurred_at.unwrap_or(m.observed_at),
                _ => m.observed_at,
            };
            let age = crate::time::days_between(at, q.as_of).max(0.0);
            0.5f64.powf(age / h)
        }
    };
    let authority = policy.source(m.provenance.source.kind).authority * m.confidence;
    let scope = scope_depth(&m.scope) as f64 / 4.0;
    let risk = if m.status == Status::Conflicted {
        0.5
    } else {
        0.0
    };
    let mut total = w.similarity * similarity
        + w.scope * scope
        + w.freshness * freshness
        + w.authority * authority
        + w.entity * entity
        - w.risk * risk;
    if let crate::types::Payload::Episodic(e) = &m.payload {
        if e.success == Some(false) {
            total *= w.failed_episode;
        }
    }
    let relevant = similarity > 0.0 || entity > 0.0;
    ScoredMemory {
        memory: m.clone(),
        score: total,
        features: Features {
            similarity,
            scope,
            freshness,
            authority,
            typefit: 0.0,
            entity,
            risk,
            embedding: None,
        },
        admission: Admission {
            relevance: similarity.max(entity),
            scope_ok: true,
            time_ok: crate::time::within(q.as_of, m.valid_from, m.valid_to),
            task_applicable: true,
            conflict: m.status == Status::Conflicted,
            safety_risk: risk,
            admit: relevant,
            reason: (!relevant).then(|| "no lexical or entity match".to_string()),
        },
    }
}
