//! Scoring: `α·sim + β·scope + γ·freshness + δ·authority + ε·typefit +
//! ζ·entity − λ·risk` (failed episodes ×0.85), every term reported, plus the
//! admission gate of seed 003.
//!
//! The lexical similarity is BM25 (Lucene's non-negative IDF) with the
//! query's own term weights, plus a term-proximity bonus for query terms
//! that occur near each other in the memory (a sequential-dependence
//! signal: "support group" beats "group … support"). Raw lexical scores
//! are divided by the best candidate's, so `sim` is in [0, 1] and the other
//! features act on the same scale whatever the query's length.

use std::collections::BTreeMap;

use crate::config::Policy;
use crate::index::Doc;
use crate::intent::Intent;
use crate::model::{scope_depth, scope_visible, sensitivity_rank};
use crate::types::{
    Admission, Datetime, Features, Memory, Payload, Query, ScoredMemory, Sensitivity, Status,
};

/// A distinct query term with its weights.
#[derive(Debug, Clone)]
pub struct QueryTerm {
    pub term: String,
    /// Query-side weight (saturated, turn-weighted term frequency).
    pub weight: f64,
    /// Inverse document frequency under the query's hard filter.
    pub idf: f64,
}

/// Two query terms that stood next to each other in the query.
#[derive(Debug, Clone)]
pub struct QueryPair {
    pub a: usize,
    pub b: usize,
    pub weight: f64,
}

/// What the ranker knows about a query.
#[derive(Debug, Clone)]
pub struct QueryModel {
    /// Lexical terms found in the filtered collection.
    pub terms: Vec<QueryTerm>,
    pub pairs: Vec<QueryPair>,
    /// Entity postings the query asks for: exact `e:key=value` from the
    /// query's entities, and `ev:value` for entity values its text names.
    pub entities: Vec<String>,
    pub average_length: f64,
    pub as_of: Datetime,
    pub intent: Intent,
    pub sensitivity_ceiling: Sensitivity,
}

impl QueryModel {
    /// Σ weight·idf over the query's terms (the denominator of coverage).
    pub fn mass(&self) -> f64 {
        self.terms.iter().map(|t| t.weight * t.idf).sum()
    }
}

/// Lexical evidence of one memory for one query.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lexical {
    /// BM25 + proximity, unnormalised.
    pub raw: f64,
    /// Fraction of the query's weighted IDF mass the memory matches.
    pub coverage: f64,
}

/// BM25 plus proximity of a memory's document against the query model.
pub fn lexical(q: &QueryModel, d: &Doc, policy: &Policy) -> Lexical {
    let w = &policy.rank;
    let mut positions: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for t in &d.tokens {
        positions.entry(t.term.as_str()).or_default().push(t.pos);
    }
    let len = d.len() as f64;
    let avg = if q.average_length > 0.0 {
        q.average_length
    } else {
        len.max(1.0)
    };
    let (k1, b) = (w.bm25_k1, w.bm25_b);
    let norm = k1 * (1.0 - b + b * len / avg);
    let mut bm25 = 0.0;
    let mut matched = 0.0;
    let mut hits: Vec<Option<&Vec<u32>>> = Vec::with_capacity(q.terms.len());
    for t in &q.terms {
        let p = positions.get(t.term.as_str());
        if let Some(p) = p {
            let tf = p.len() as f64;
            bm25 += t.weight * t.idf * tf * (k1 + 1.0) / (tf + norm);
            matched += t.weight * t.idf;
        }
        hits.push(p);
    }
    let mut proximity = 0.0;
    if w.proximity > 0.0 {
        for pair in &q.pairs {
            let (Some(Some(pa)), Some(Some(pb))) = (hits.get(pair.a), hits.get(pair.b)) else {
                continue;
            };
            let dist = min_distance(pa, pb);
            if dist >= 1 && dist <= w.proximity_window {
                let idf = q.terms[pair.a].idf.min(q.terms[pair.b].idf);
                proximity += pair.weight * idf / dist as f64;
            }
        }
    }
    let mass = q.mass();
    Lexical {
        raw: bm25 + w.proximity * proximity,
        coverage: if mass > 0.0 { matched / mass } else { 0.0 },
    }
}

/// Smallest distance between a position in `a` and one in `b` (both sorted).
fn min_distance(a: &[u32], b: &[u32]) -> u32 {
    let (mut i, mut j, mut best) = (0, 0, u32::MAX);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        let d = x.abs_diff(y);
        if d > 0 {
            best = best.min(d);
        }
        if x < y {
            i += 1;
        } else {
            j += 1;
        }
    }
    best
}

/// Fraction of the query's entity asks the memory's keys satisfy.
pub fn entity_overlap(q: &QueryModel, d: &Doc) -> f64 {
    if q.entities.is_empty() {
        return 0.0;
    }
    let hits = q.entities.iter().filter(|e| d.keys.contains(e)).count();
    hits as f64 / q.entities.len() as f64
}

/// Freshness in (0, 1]: exponential decay with the kind's half-life from
/// when an episode happened (else when the memory was observed) to the
/// query's as-of instant. Kinds without a half-life do not decay.
pub fn freshness(m: &Memory, as_of: Datetime, policy: &Policy) -> f64 {
    let Some(h) = policy.half_life(m.kind).filter(|h| *h > 0.0) else {
        return 1.0;
    };
    let at = match &m.payload {
        Payload::Episodic(e) => e.occurred_at.unwrap_or(m.observed_at),
        _ => m.observed_at,
    };
    let age = crate::time::days_between(at, as_of).max(0.0);
    0.5f64.powf(age / h)
}

/// Risk of acting on a memory, in [0, 1]: unresolved conflict, low
/// confidence, sensitive content.
pub fn risk(m: &Memory) -> f64 {
    let conflict = if m.status == Status::Conflicted {
        0.5
    } else {
        0.0
    };
    let doubt = 0.5 * (1.0 - m.confidence.clamp(0.0, 1.0));
    let sensitivity = match m.sensitivity {
        Sensitivity::Public | Sensitivity::Internal => 0.0,
        Sensitivity::Personal => 0.05,
        Sensitivity::Sensitive => 0.2,
    };
    (conflict + doubt + sensitivity).min(1.0)
}

/// How much of the query's scope the memory pins: 1 for a memory of the
/// caller's own narrowest scope, 0 for a tenant-wide one.
pub fn scope_fit(m: &Memory, query: &Query) -> f64 {
    let q = scope_depth(&query.scope);
    if q == 0 {
        return 1.0;
    }
    (scope_depth(&m.scope) as f64 / q as f64).min(1.0)
}

/// Cosine of two embeddings (None when either is missing, empty, of another
/// dimension or zero).
pub fn cosine(a: Option<&[f32]>, b: Option<&[f32]>) -> Option<f64> {
    let (a, b) = (a?, b?);
    if a.is_empty() || a.len() != b.len() {
        return None;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (*x as f64, *y as f64);
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na <= 0.0 || nb <= 0.0 || !dot.is_finite() {
        return None;
    }
    Some((dot / (na.sqrt() * nb.sqrt())).clamp(-1.0, 1.0))
}

/// Everything the ranker computed about one candidate before normalisation.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub lexical: Lexical,
    pub entity: f64,
    pub embedding: Option<f64>,
    /// Was the revision in force at the query's as-of instant?
    pub in_force: bool,
}

/// Gather a candidate's evidence.
pub fn evidence(
    q: &QueryModel,
    query: &Query,
    m: &Memory,
    d: &Doc,
    in_force: bool,
    policy: &Policy,
) -> Evidence {
    Evidence {
        lexical: lexical(q, d, policy),
        entity: entity_overlap(q, d),
        embedding: cosine(query.embedding.as_deref(), m.embedding.as_deref()),
        in_force,
    }
}

/// Score one candidate. `best_raw` is the highest raw lexical score among
/// the query's candidates (the normaliser of `sim`).
pub fn score(
    q: &QueryModel,
    query: &Query,
    m: &Memory,
    e: &Evidence,
    best_raw: f64,
    policy: &Policy,
) -> ScoredMemory {
    let w = &policy.rank;
    let lexical = if best_raw > 0.0 {
        e.lexical.raw / best_raw
    } else {
        0.0
    };
    let similarity = match e.embedding {
        Some(c) => (1.0 - w.embedding) * lexical + w.embedding * c.max(0.0),
        None => lexical,
    };
    let scope = scope_fit(m, query);
    let freshness = freshness(m, q.as_of, policy);
    let authority = policy.source(m.provenance.source.kind).authority * m.confidence;
    let typefit = q.intent.fit(m.kind);
    let risk = risk(m);
    let mut total = w.similarity * similarity
        + w.scope * scope
        + w.freshness * freshness
        + w.authority * authority
        + w.typefit * typefit
        + w.entity * e.entity
        - w.risk * risk;
    if let Payload::Episodic(ep) = &m.payload {
        if ep.success == Some(false) {
            total *= w.failed_episode;
        }
    }
    let admission = admission(q, query, m, e, risk, policy);
    ScoredMemory {
        memory: m.clone(),
        score: total,
        features: Features {
            similarity,
            scope,
            freshness,
            authority,
            typefit,
            entity: e.entity,
            risk,
            embedding: e.embedding,
        },
        admission,
    }
}

/// The admission gate (seed 003): retrieved is not the same as usable.
pub fn admission(
    q: &QueryModel,
    query: &Query,
    m: &Memory,
    e: &Evidence,
    risk: f64,
    policy: &Policy,
) -> Admission {
    let relevance = e
        .lexical
        .coverage
        .max(e.entity)
        .max(e.embedding.unwrap_or(0.0));
    // The store applied these filters; the gate checks them again, so a
    // host that hands back the wrong record cannot get it used.
    let scope_ok = scope_visible(&m.scope, &query.scope);
    let time_ok = e.in_force;
    let kind_ok = query.kinds.is_empty() || query.kinds.contains(&m.kind);
    let status_ok = matches!(
        m.status,
        Status::Active | Status::Conflicted | Status::Superseded | Status::Expired
    );
    let sensitivity_ok = sensitivity_rank(m.sensitivity) <= sensitivity_rank(q.sensitivity_ceiling);
    let task_applicable = kind_ok && status_ok;
    let conflict = m.status == Status::Conflicted;
    let reason = if !scope_ok {
        Some("outside the query's scope".to_string())
    } else if !time_ok {
        Some("not in force at the as-of instant".to_string())
    } else if !status_ok {
        Some(format!(
            "status {} is never used",
            crate::model::status_name(m.status)
        ))
    } else if !kind_ok {
        Some("kind not asked for".to_string())
    } else if !sensitivity_ok {
        Some("above the sensitivity ceiling".to_string())
    } else if relevance <= policy.admission_min_relevance {
        Some(format!(
            "relevance {relevance:.3} not above the minimum {:.3}",
            policy.admission_min_relevance
        ))
    } else if risk > policy.rank.max_risk {
        Some(format!(
            "safety risk {risk:.2} above the limit {:.2}",
            policy.rank.max_risk
        ))
    } else {
        None
    };
    Admission {
        relevance,
        scope_ok,
        time_ok,
        task_applicable,
        conflict,
        safety_risk: risk,
        admit: reason.is_none(),
        reason,
    }
}
