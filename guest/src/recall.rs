//! recall: hard filters pushed down to the store, candidates by the guest's
//! own index terms and structural keys, then scoring and the admission gate.
//!
//! Order of work per query:
//! 1. **Hard filter** (`recall_filter`): scope (visible from the caller),
//!    kinds, statuses, validity at the as-of instant, sensitivity ceiling,
//!    archived memories out. The store applies it before anything reaches
//!    the guest.
//! 2. **Query model**: the query is analysed exactly as memories are
//!    (`text::analyze`); lines of a conversation-shaped query weigh more the
//!    later they are; adjacent terms form proximity pairs; n-grams of the
//!    query are probed as entity values (`ev:` postings) so a question that
//!    names a person or a service matches memories tagged with it.
//!    One `stats` call gives the document frequencies of all of them.
//! 3. **Candidates**: one `search` call returns the records with the
//!    highest IDF-weighted sum of matched terms (reading only those terms'
//!    postings), at most `recall_candidate_limit` of them: recall reads a
//!    bounded number of records however large the scope is. A query that
//!    carries an embedding also reads the `embedding_scan_limit` newest
//!    records, so purely semantic matches can surface.
//! 4. **Scoring** (`rank`), sorted by score then id, then the **admission
//!    gate**; refused candidates are returned with their reason on request.
//!
//! As-of reads: a query whose `as_of` lies before now reads the revisions
//! in force then (`in_force_at`), superseded and expired ones included.

use std::collections::BTreeMap;

use crate::api::Ctx;
use crate::errors::invalid;
use crate::index::{entity_term, entity_value_term, Doc};
use crate::model::filter;
use crate::rank::{evidence, score, Evidence, QueryModel, QueryPair, QueryTerm};
use crate::types::{
    Datetime, Error, Memory, Query, RecallResult, ScoredMemory, Sensitivity, Status,
};
use crate::wit_store::{Filter, ScopeMatch, Stored, WeightedTerm};

/// Default number of results when a query asks for 0.
pub const DEFAULT_K: u32 = 10;
/// Highest sensitivity returned when the query sets no ceiling.
pub const DEFAULT_CEILING: Sensitivity = Sensitivity::Personal;
/// Analysed documents kept across the queries of one batch.
const DOC_CACHE_LIMIT: usize = 50_000;

/// Does a query at `as_of` look into the past (and so read superseded and
/// expired revisions that were in force then)?
pub fn is_historical(as_of: Datetime, now: Datetime) -> bool {
    as_of.epoch_ms < now.epoch_ms
}

/// The statuses a recall reads from the store. Pending, retracted and
/// archived memories are never read; superseded and expired revisions only
/// for a past as-of instant (and then only those in force at it).
pub fn statuses_read(historical: bool) -> Vec<Status> {
    if historical {
        vec![
            Status::Active,
            Status::Conflicted,
            Status::Superseded,
            Status::Expired,
        ]
    } else {
        vec![Status::Active, Status::Conflicted]
    }
}

/// The hard filter of a query: pushed down to the store.
pub fn recall_filter(q: &Query, as_of: Datetime, now: Datetime) -> Filter {
    let mut f = filter(&q.scope, ScopeMatch::Visible);
    f.kinds = q.kinds.clone();
    f.statuses = statuses_read(is_historical(as_of, now));
    f.valid_at = Some(as_of);
    f.sensitivity_max = Some(q.sensitivity_ceiling.unwrap_or(DEFAULT_CEILING));
    f.exclude_archived = true;
    f
}

/// Was this revision the one in force at `as_of`?
///
/// - its validity interval `[valid_from, valid_to)` contains `as_of`;
/// - a revision that replaced an earlier one (`supersedes`) and has no
///   explicit `valid_from` took effect when it was written (`created_at`);
/// - a superseded or expired revision stopped being in force when that
///   happened: its `updated_at` (the store stamps the change), or its
///   `valid_to` when one is set;
/// - pending, retracted and archived revisions are never in force.
pub fn in_force_at(m: &Memory, as_of: Datetime) -> bool {
    if !crate::time::within(as_of, m.valid_from, m.valid_to) {
        return false;
    }
    let started =
        m.supersedes.is_none() || m.valid_from.is_some() || m.created_at.epoch_ms <= as_of.epoch_ms;
    match m.status {
        Status::Active | Status::Conflicted => started,
        Status::Superseded | Status::Expired => {
            started && (m.valid_to.is_some() || as_of.epoch_ms < m.updated_at.epoch_ms)
        }
        Status::Pending | Status::Retracted | Status::Archived => false,
    }
}

/// Rank memories for each query.
pub fn recall(ctx: &Ctx, queries: &[Query]) -> Result<Vec<RecallResult>, Error> {
    for (i, q) in queries.iter().enumerate() {
        validate(i, q)?;
    }
    let mut cache = DocCache::default();
    queries
        .iter()
        .map(|q| recall_with(ctx, q, &mut cache))
        .collect()
}

/// Rank memories for one query.
pub fn recall_one(ctx: &Ctx, q: &Query) -> Result<RecallResult, Error> {
    validate(0, q)?;
    recall_with(ctx, q, &mut DocCache::default())
}

fn validate(i: usize, q: &Query) -> Result<(), Error> {
    if q.scope.tenant.trim().is_empty() {
        return Err(invalid(Some(i), "scope.tenant", "must not be empty"));
    }
    if let Some(e) = &q.embedding {
        if e.iter().any(|x| !x.is_finite()) {
            return Err(invalid(Some(i), "embedding", "must be finite numbers"));
        }
    }
    Ok(())
}

/// Analysed memories, by (id, revision, etag), shared by a batch's queries.
#[derive(Default)]
struct DocCache {
    docs: BTreeMap<(String, u32, u64), Doc>,
}

impl DocCache {
    fn get(&mut self, s: &Stored) -> Doc {
        let key = (s.memory.id.clone(), s.memory.revision, s.etag);
        if let Some(d) = self.docs.get(&key) {
            return d.clone();
        }
        if self.docs.len() >= DOC_CACHE_LIMIT {
            self.docs.clear();
        }
        let d = crate::index::doc(&s.memory);
        self.docs.insert(key, d.clone());
        d
    }
}

/// The query side before collection statistics: weighted terms, adjacent
/// pairs and entity probes.
struct Analysed {
    /// term → (weighted frequency, first appearance)
    terms: BTreeMap<String, (f64, usize)>,
    pairs: BTreeMap<(String, String), f64>,
    /// Entity postings asked for explicitly (`e:`).
    explicit: Vec<String>,
    /// Entity-value postings probed from the text (`ev:`).
    probes: Vec<String>,
}

fn analyse_query(q: &Query, ctx: &Ctx) -> Analysed {
    let w = &ctx.policy.rank;
    let lines: Vec<Vec<crate::text::Token>> = q
        .text
        .lines()
        .map(crate::text::analyze)
        .filter(|t| !t.is_empty())
        .collect();
    let n = lines.len();
    let mut terms: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut pairs: BTreeMap<(String, String), f64> = BTreeMap::new();
    let mut order = 0usize;
    for (i, toks) in lines.iter().enumerate() {
        let lw = w.turn_decay.clamp(0.0, 1.0).powi((n - 1 - i) as i32);
        for t in toks {
            let e = terms.entry(t.term.clone()).or_insert((0.0, order));
            e.0 += lw;
            order += 1;
        }
        let words: Vec<&str> = toks
            .iter()
            .filter(|t| !t.part)
            .map(|t| t.term.as_str())
            .collect();
        for p in words.windows(2) {
            if p[0] != p[1] {
                *pairs
                    .entry((p[0].to_string(), p[1].to_string()))
                    .or_default() += lw;
            }
        }
    }
    let explicit: Vec<String> = q
        .entities
        .iter()
        .filter(|e| !e.key.trim().is_empty())
        .map(entity_term)
        .collect();
    let explicit_values: Vec<String> = q
        .entities
        .iter()
        .map(|e| entity_value_term(&crate::text::value_key(&e.value)))
        .collect();
    // Entity-value probes: 1- to 3-grams of the query's words, latest lines
    // first (the end of a conversation is what the next turn is about).
    let mut probes: Vec<String> = Vec::new();
    'lines: for toks in lines.iter().rev() {
        let words: Vec<&str> = toks
            .iter()
            .filter(|t| !t.part)
            .map(|t| t.term.as_str())
            .collect();
        for size in 1..=3 {
            for gram in words.windows(size) {
                if probes.len() >= w.entity_probe_limit {
                    break 'lines;
                }
                let p = entity_value_term(&gram.join(" "));
                if !probes.contains(&p) && !explicit_values.contains(&p) {
                    probes.push(p);
                }
            }
        }
    }
    Analysed {
        terms,
        pairs,
        explicit,
        probes,
    }
}

/// Build the query model from the store's statistics under the filter.
/// Returns the model and the weighted terms that pick candidates.
fn query_model(
    ctx: &Ctx,
    q: &Query,
    f: &Filter,
    as_of: Datetime,
) -> Result<(QueryModel, Vec<WeightedTerm>), Error> {
    let a = analyse_query(q, ctx);
    let mut asked: Vec<String> = a.terms.keys().cloned().collect();
    asked.extend(a.explicit.iter().cloned());
    asked.extend(a.probes.iter().cloned());
    let stats = if asked.is_empty() {
        None
    } else {
        Some(ctx.store.stats(f, &asked)?)
    };
    let (n, avg) = stats
        .as_ref()
        .map(|s| (s.documents as f64, s.average_length))
        .unwrap_or((0.0, 0.0));
    let df: BTreeMap<&str, u64> = match &stats {
        Some(s) => asked
            .iter()
            .map(String::as_str)
            .zip(s.frequencies.iter().copied())
            .collect(),
        None => BTreeMap::new(),
    };
    let idf = |d: u64| {
        let d = d as f64;
        (1.0 + (n - d + 0.5) / (d + 0.5)).ln().max(0.0)
    };
    let k3 = ctx.policy.rank.query_k3.max(0.0);
    // Terms in order of first appearance (deterministic, and pairs index them).
    let mut ordered: Vec<(&String, &(f64, usize))> = a.terms.iter().collect();
    ordered.sort_by_key(|(_, (_, first))| *first);
    let mut terms: Vec<QueryTerm> = Vec::new();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (t, (qtf, _)) in ordered {
        let d = df.get(t.as_str()).copied().unwrap_or(0);
        if d == 0 {
            continue;
        }
        index.insert(t.as_str(), terms.len());
        terms.push(QueryTerm {
            term: t.clone(),
            weight: (k3 + 1.0) * qtf / (k3 + qtf),
            idf: idf(d),
        });
    }
    let pairs: Vec<QueryPair> = a
        .pairs
        .iter()
        .filter_map(|((x, y), w)| {
            Some(QueryPair {
                a: *index.get(x.as_str())?,
                b: *index.get(y.as_str())?,
                weight: *w,
            })
        })
        .collect();
    let mut entities: Vec<String> = a.explicit.clone();
    let mut weighted: Vec<WeightedTerm> = terms
        .iter()
        .map(|t| WeightedTerm {
            term: t.term.clone(),
            weight: t.weight * t.idf,
        })
        .collect();
    for e in a.explicit.iter().chain(&a.probes) {
        let d = df.get(e.as_str()).copied().unwrap_or(0);
        if d == 0 {
            continue;
        }
        if !entities.contains(e) {
            entities.push(e.clone());
        }
        weighted.push(WeightedTerm {
            term: e.clone(),
            weight: idf(d),
        });
    }
    let model = QueryModel {
        terms,
        pairs,
        entities,
        average_length: avg,
        as_of,
        intent: crate::intent::intent(&q.text),
        sensitivity_ceiling: q.sensitivity_ceiling.unwrap_or(DEFAULT_CEILING),
    };
    Ok((model, weighted))
}

fn recall_with(ctx: &Ctx, q: &Query, cache: &mut DocCache) -> Result<RecallResult, Error> {
    let now = ctx.now();
    let as_of = q.as_of.unwrap_or(now);
    let f = recall_filter(q, as_of, now);
    let (model, weighted) = query_model(ctx, q, &f, as_of)?;

    let mut candidates: Vec<Stored> = if weighted.is_empty() {
        Vec::new()
    } else {
        ctx.store
            .search(&f, &weighted, ctx.policy.recall_candidate_limit)?
    };
    if q.embedding.is_some() && ctx.policy.rank.embedding_scan_limit > 0 {
        let recent = ctx.store.find(&f, ctx.policy.rank.embedding_scan_limit)?;
        for s in recent {
            let known = candidates
                .iter()
                .any(|c| c.memory.id == s.memory.id && c.memory.revision == s.memory.revision);
            if !known {
                candidates.push(s);
            }
        }
    }
    let read = candidates.len() as u32;

    let gathered: Vec<(&Stored, Evidence)> = candidates
        .iter()
        .map(|s| {
            let d = cache.get(s);
            let in_force = in_force_at(&s.memory, as_of);
            (s, evidence(&model, q, &s.memory, &d, in_force, ctx.policy))
        })
        .collect();
    let best_raw = gathered
        .iter()
        .filter(|(_, e)| e.in_force)
        .map(|(_, e)| e.lexical.raw)
        .fold(0.0f64, f64::max);
    let mut scored: Vec<ScoredMemory> = gathered
        .iter()
        .map(|(s, e)| score(&model, q, &s.memory, e, best_raw, ctx.policy))
        .collect();
    scored.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.memory.id.cmp(&b.memory.id))
            .then_with(|| b.memory.revision.cmp(&a.memory.revision))
    });
    let k = if q.k == 0 { DEFAULT_K } else { q.k } as usize;
    let (admitted, refused): (Vec<_>, Vec<_>) = scored.into_iter().partition(|s| s.admission.admit);
    Ok(RecallResult {
        query_id: q.id.clone(),
        results: admitted.into_iter().take(k).collect(),
        not_admitted: if q.explain_rejected {
            refused.into_iter().take(k).collect()
        } else {
            Vec::new()
        },
        candidates_read: read,
    })
}
