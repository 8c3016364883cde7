//! Scoring: `α·sim + β·scope + γ·freshness + δ·authority + ε·typefit +
//! ζ·entity − λ·risk` (failed episodes ×0.85), every term reported, plus the
//! admission gate of seed 003.
//!
//! - **sim**: BM25 (Lucene's non-negative IDF, the query's own saturated
//!   term weights) of the memory, plus a share of the best BM25 of its
//!   conversational neighbours (`context`), divided by the best candidate's
//!   so that it lies in [0, 1] and the other features act on one scale
//!   whatever the query's length. With caller-supplied embeddings on both
//!   sides it is fused with their cosine.
//! - **freshness**: exponential decay by kind from the event time to the
//!   as-of instant (episodes decay, facts and procedures do not); when the
//!   query names a period ("on 8 May 2023", "上周") it is instead the fit of
//!   the event time to that period, weighted by `named_time`.
//! - **entity**: the share of the query's entities (explicit ones, and
//!   names its text mentions, at `entity_mentioned` weight) the memory is
//!   tagged with.

use crate::core::config::Policy;
use crate::core::model::{scope_depth, scope_visible, status_name};
use crate::read::index::Doc;
use crate::read::intent::Intent;
use crate::types::{
    Admission, Datetime, Features, Memory, Payload, Query, Reason, ScoredMemory, Sensitivity,
    Status,
};
use crate::wit_store::Stored;
use engram_contract::reason::ReasonCode;

/// A distinct query term with its weights.
#[derive(Debug, Clone)]
pub struct QueryTerm {
    pub term: String,
    /// Query-side weight (saturated, line-weighted term frequency).
    pub weight: f64,
    /// Inverse document frequency under the query's hard filter.
    pub idf: f64,
}

/// An entity the query asks for, as an index posting.
#[derive(Debug, Clone)]
pub struct QueryEntity {
    /// `e=key=value` (explicit) or `v=value` (named in the text).
    pub term: String,
    /// 1 for the query's explicit entities, `entity_mentioned` for names.
    pub weight: f64,
}

/// What the ranker knows about a query.
#[derive(Debug, Clone)]
pub struct QueryModel {
    /// Lexical terms found in the filtered collection.
    pub terms: Vec<QueryTerm>,
    pub entities: Vec<QueryEntity>,
    pub average_length: f64,
    pub as_of: Datetime,
    pub intent: Intent,
    pub sensitivity_ceiling: Sensitivity,
    /// Periods the query names, as [start, end) in epoch ms (empty: none).
    pub periods: Vec<(i64, i64)>,
    /// What the query asks about (`read::coverage`): per content group,
    /// the indices into `terms` of its terms the store knows.
    pub groups: Vec<Vec<usize>>,
    /// The content groups' labels, aligned with `groups`.
    pub group_labels: Vec<String>,
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
    /// BM25, unnormalised.
    pub raw: f64,
    /// Fraction of the query's weighted IDF mass the memory matches.
    pub coverage: f64,
}

/// What the ranker needs of a candidate's index document: how often each
/// query term occurs in it (aligned with `QueryModel::terms`), its length
/// in index terms and its structural keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Counts {
    pub tf: Vec<f64>,
    pub len: usize,
    pub keys: Vec<String>,
}

impl Counts {
    /// From an analysed document.
    pub fn of_doc(q: &QueryModel, d: &Doc) -> Counts {
        // Count only the query's terms (a handful), not every token's.
        let mut tf = vec![0.0f64; q.terms.len()];
        for t in &d.tokens {
            if let Some(i) = q.terms.iter().position(|qt| qt.term == t.term) {
                tf[i] += 1.0;
            }
        }
        Counts {
            tf,
            len: d.len(),
            keys: d.keys.clone(),
        }
    }

    /// From what the store counted while searching by the query's terms
    /// (`stored.frequencies`, whose first entries are `q.terms`' in
    /// order): no text analysis. `None` when the store did not count.
    pub fn from_store(q: &QueryModel, s: &Stored) -> Option<Counts> {
        let tf = s.frequencies.get(..q.terms.len())?;
        Some(Counts {
            tf: tf.iter().map(|&f| f as f64).collect(),
            len: s.length as usize,
            keys: crate::read::index::keys(&s.memory),
        })
    }
}

/// BM25 of a memory's document against the query model.
pub fn lexical(q: &QueryModel, c: &Counts, policy: &Policy) -> Lexical {
    let len = c.len as f64;
    let avg = if q.average_length > 0.0 {
        q.average_length
    } else {
        len.max(1.0)
    };
    let (k1, b) = (policy.rank.bm25_k1, policy.rank.bm25_b);
    let norm = k1 * (1.0 - b + b * len / avg);
    let (mut raw, mut matched) = (0.0, 0.0);
    for (t, &f) in q.terms.iter().zip(&c.tf) {
        if f > 0.0 {
            raw += t.weight * t.idf * f * (k1 + 1.0) / (f + norm);
            matched += t.weight * t.idf;
        }
    }
    let mass = q.mass();
    Lexical {
        raw,
        coverage: if mass > 0.0 { matched / mass } else { 0.0 },
    }
}

/// Weighted share of the query's entities the memory's keys satisfy.
pub fn entity_overlap(q: &QueryModel, keys: &[String]) -> f64 {
    let total: f64 = q.entities.iter().map(|e| e.weight).sum();
    if total <= 0.0 {
        return 0.0;
    }
    let hit: f64 = q
        .entities
        .iter()
        .filter(|e| keys.contains(&e.term))
        .map(|e| e.weight)
        .sum();
    // Names mentioned in passing weigh less than entities the caller asked
    // for: scale by the heaviest ask so a lone mention is not worth a full
    // explicit match.
    let top = q.entities.iter().map(|e| e.weight).fold(0.0, f64::max);
    hit / total * top
}

/// When a memory's content happened or held: an episode's event time, else
/// the start of its validity, else when it was observed.
pub fn event_time(m: &Memory) -> Datetime {
    match &m.payload {
        Payload::Episodic(e) => e.occurred_at.unwrap_or(m.observed_at),
        _ => m.valid_from.unwrap_or(m.observed_at),
    }
}

/// Freshness in (0, 1]: exponential decay with the kind's half-life from
/// the memory's event time to the query's as-of instant. Kinds without a
/// half-life (confirmed facts, procedures) do not decay; events after the
/// as-of instant count as fresh.
pub fn freshness(m: &Memory, as_of: Datetime, policy: &Policy) -> f64 {
    let Some(h) = policy.half_life(m.kind).filter(|h| *h > 0.0) else {
        return 1.0;
    };
    let age = crate::core::time::days_between(event_time(m), as_of).max(0.0);
    0.5f64.powf(age / h)
}

/// Time fit in (0, 1] of a memory to the periods a query names: 1 inside
/// one, halving with every period length (at least a day) of distance.
pub fn time_fit(m: &Memory, periods: &[(i64, i64)]) -> f64 {
    let t = event_time(m).epoch_ms;
    periods
        .iter()
        .map(|&(start, end)| {
            if t >= start && t < end {
                return 1.0;
            }
            let span = ((end - start) as f64).max(crate::core::time::MS_PER_DAY as f64);
            let dist = if t < start { start - t } else { t - end + 1 } as f64;
            0.5f64.powf(dist / span)
        })
        .fold(0.0, f64::max)
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

/// How much a memory's source counts, in [0, 1], times its confidence. For
/// a fact, by what it is about (`resolve::domain_of`): the user for their
/// own preferences, the system of record for world and business facts
/// (seed 002 §7.16: 订单系统也不是用户写作偏好的权威来源); otherwise by
/// the source's general standing.
pub fn authority(m: &Memory, policy: &Policy) -> f64 {
    let lc = &policy.lifecycle;
    let standing = match &m.payload {
        Payload::Semantic(_) => {
            let d = crate::write::resolve::domain_of(m, lc);
            let top = crate::types::SourceKind::ALL
                .iter()
                .map(|k| lc.authority(d, *k))
                .max()
                .unwrap_or(1)
                .max(1);
            f64::from(lc.authority(d, m.provenance.source.kind)) / f64::from(top)
        }
        _ => policy.source(m.provenance.source.kind).authority,
    };
    standing * m.confidence
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

/// Everything the ranker gathered about one candidate before normalisation.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub lexical: Lexical,
    /// The best raw lexical score among the memory's conversational
    /// neighbours (0 when none is among the candidates).
    pub context_raw: f64,
    /// The best query coverage among those neighbours.
    pub context_coverage: f64,
    pub entity: f64,
    pub embedding: Option<f64>,
    /// Was the revision in force at the query's as-of instant?
    pub in_force: bool,
    /// How many of the query's content groups it covers.
    pub covered: usize,
}

/// Gather a candidate's evidence.
pub fn evidence(
    q: &QueryModel,
    query: &Query,
    m: &Memory,
    c: &Counts,
    in_force: bool,
    policy: &Policy,
) -> Evidence {
    Evidence {
        lexical: lexical(q, c, policy),
        context_raw: 0.0,
        context_coverage: 0.0,
        entity: entity_overlap(q, &c.keys),
        embedding: cosine(query.embedding.as_deref(), m.embedding.as_deref()),
        in_force,
        covered: q
            .groups
            .iter()
            .filter(|g| g.iter().any(|&i| c.tf.get(i).is_some_and(|f| *f > 0.0)))
            .count(),
    }
}

/// A candidate's lexical score in its conversational context: its own raw
/// score plus a share of its best neighbour's.
pub fn contextual_raw(e: &Evidence, policy: &Policy) -> f64 {
    e.lexical.raw + policy.rank.context * e.context_raw
}

/// Score one candidate. `best_raw` is the highest `contextual_raw` among
/// the query's candidates (the normaliser of `sim`).
pub fn score(
    q: &QueryModel,
    query: &Query,
    memory: Memory,
    e: &Evidence,
    best_raw: f64,
    policy: &Policy,
) -> ScoredMemory {
    let w = &policy.rank;
    let m = &memory;
    let lexical = if best_raw > 0.0 {
        contextual_raw(e, policy) / best_raw
    } else {
        0.0
    };
    let similarity = match e.embedding {
        Some(c) => (1.0 - w.embedding) * lexical + w.embedding * c.max(0.0),
        None => lexical,
    };
    let scope = scope_fit(m, query);
    // Time: fit to the period the query names, else recency.
    let (freshness, time_weight) = if q.periods.is_empty() {
        (freshness(m, q.as_of, policy), w.freshness)
    } else {
        (time_fit(m, &q.periods), w.named_time)
    };
    let authority = authority(m, policy);
    let typefit = q.intent.fit(m.kind);
    let risk = risk(m);
    let mut total = w.similarity * similarity
        + w.scope * scope
        + time_weight * freshness
        + w.authority * authority
        + w.typefit * typefit
        + w.entity * e.entity
        - w.risk * risk;
    // Failed episodes are kept but down-weighted (seed 001), unless the
    // query asks about a failure: then they are what it wants.
    if let Payload::Episodic(ep) = &m.payload {
        if ep.success == Some(false) && !q.intent.failure {
            total *= w.failed_episode;
        }
    }
    let admission = admission(q, query, m, e, risk, policy);
    ScoredMemory {
        memory,
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
/// The store applied the hard filters already; the gate checks them again
/// so that a record handed back by mistake is never used.
pub fn admission(
    q: &QueryModel,
    query: &Query,
    m: &Memory,
    e: &Evidence,
    risk: f64,
    policy: &Policy,
) -> Admission {
    // A turn that answers its neighbour is relevant through it.
    let relevance = e
        .lexical
        .coverage
        .max(policy.rank.context * e.context_coverage)
        .max(e.entity)
        .max(e.embedding.unwrap_or(0.0));
    let scope_ok = scope_visible(&m.scope, &query.scope);
    let time_ok = e.in_force;
    let kind_ok = query.kinds.is_empty() || query.kinds.contains(&m.kind);
    let status_ok = matches!(
        m.status,
        Status::Active | Status::Conflicted | Status::Superseded | Status::Expired
    );
    let sensitivity_ok = m.sensitivity.rank() <= q.sensitivity_ceiling.rank();
    let task_applicable = kind_ok && status_ok;
    let reason = if !scope_ok {
        Some(Reason::new(ReasonCode::AdmissionOutOfScope, &[]))
    } else if !status_ok {
        Some(Reason::new(
            ReasonCode::AdmissionStatus,
            &[status_name(m.status)],
        ))
    } else if !time_ok {
        Some(Reason::new(ReasonCode::AdmissionNotInForce, &[]))
    } else if !kind_ok {
        Some(Reason::new(ReasonCode::AdmissionKind, &[]))
    } else if !sensitivity_ok {
        Some(Reason::new(ReasonCode::AdmissionSensitivity, &[]))
    } else if !q.groups.is_empty()
        && e.covered == 0
        && e.context_coverage <= 0.0
        && e.entity <= 0.0
        && e.embedding.is_none()
    {
        Some(Reason::new(
            ReasonCode::AdmissionUnrelated,
            &[&q.group_labels.join(", ")],
        ))
    } else if relevance <= policy.admission_min_relevance {
        Some(Reason::new(
            ReasonCode::AdmissionLowRelevance,
            &[
                &format!("{relevance:.3}"),
                &format!("{:.3}", policy.admission_min_relevance),
            ],
        ))
    } else if risk > policy.rank.max_risk {
        Some(Reason::new(
            ReasonCode::AdmissionRisk,
            &[
                &format!("{risk:.2}"),
                &format!("{:.2}", policy.rank.max_risk),
            ],
        ))
    } else {
        None
    };
    Admission {
        relevance,
        scope_ok,
        time_ok,
        task_applicable,
        conflict: m.status == Status::Conflicted,
        safety_risk: risk,
        admit: reason.is_none(),
        reason,
    }
}
