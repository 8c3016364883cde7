//! recall: hard filters pushed down, candidates by index terms, then
//! scoring and the admission gate.

use std::collections::BTreeMap;

use crate::api::Ctx;
use crate::errors::invalid;
use crate::model::filter;
use crate::rank::{score, QueryModel};
use crate::types::{Error, Query, RecallResult, ScoredMemory, Sensitivity, Status};
use crate::wit_store::{ScopeMatch, WeightedTerm};

/// Default number of results when a query asks for 0.
pub const DEFAULT_K: u32 = 10;

pub fn recall(ctx: &Ctx, queries: &[Query]) -> Result<Vec<RecallResult>, Error> {
    for (i, q) in queries.iter().enumerate() {
        if q.scope.tenant.trim().is_empty() {
            return Err(invalid(Some(i), "scope.tenant", "must not be empty"));
        }
    }
    queries.iter().map(|q| recall_one(ctx, q)).collect()
}

pub fn recall_one(ctx: &Ctx, q: &Query) -> Result<RecallResult, Error> {
    let as_of = q.as_of.unwrap_or_else(|| ctx.now());
    let mut f = filter(&q.scope, ScopeMatch::Visible);
    f.kinds = q.kinds.clone();
    f.statuses = vec![Status::Active, Status::Conflicted];
    f.valid_at = Some(as_of);
    f.sensitivity_max = Some(q.sensitivity_ceiling.unwrap_or(Sensitivity::Personal));
    f.exclude_archived = true;

    let mut terms: Vec<String> = crate::text::terms(&q.text);
    terms.extend(q.entities.iter().map(crate::index::entity_term));
    terms.sort();
    terms.dedup();
    let stats = ctx.store.stats(&f, &terms)?;
    let n = stats.documents as f64;
    let idf: BTreeMap<String, f64> = terms
        .iter()
        .zip(&stats.frequencies)
        .filter(|(_, df)| **df > 0)
        .map(|(t, df)| {
            let df = *df as f64;
            (t.clone(), ((n - df + 0.5) / (df + 0.5) + 1.0).ln())
        })
        .collect();
    let weighted: Vec<WeightedTerm> = idf
        .iter()
        .map(|(t, w)| WeightedTerm {
            term: t.clone(),
            weight: *w,
        })
        .collect();
    let candidates = if weighted.is_empty() {
        Vec::new()
    } else {
        ctx.store
            .search(&f, &weighted, ctx.policy.recall_candidate_limit)?
    };
    let model = QueryModel {
        idf,
        average_length: stats.average_length,
        as_of,
    };
    let mut scored: Vec<ScoredMemory> = candidates
        .iter()
        .map(|s| score(&model, q, s, ctx.policy))
        .collect();
    scored.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.memory.id.cmp(&b.memory.id))
    });
    let k = if q.k == 0 { DEFAULT_K } else { q.k } as usize;
    let (admitted, refused): (Vec<_>, Vec<_>) = scored.into_iter().partition(|s| s.admission.admit);
    Ok(RecallResult {
        query_id: q.id.clone(),
        results: admitted.into_iter().take(k).collect(),
        not_admitted: if q.explain_rejected {
            refused
        } else {
            Vec::new()
        },
        candidates_read: candidates.len() as u32,
    })
}
