//! The memories a pack starts from: recall's answer filtered by admission,
//! confidence and expiry, one revision per chain, and the expired memories
//! that match the query listed as such in the manifest.

use super::reference::dropped;
use super::reference::mem_ref;
use super::text::term_set;
use crate::core::api::Ctx;
use crate::core::model::semantic_key;
use crate::types::Datetime;
use crate::types::DropReason;
use crate::types::DroppedItem;
use crate::types::Error;
use crate::types::Memory;
use crate::types::PackRequest;
use crate::types::Query;
use crate::types::Sensitivity;
use crate::types::Status;
use crate::wit_store::ScopeMatch;
use crate::wit_store::WeightedTerm;

/// A recalled memory that survived filtering, with its rank.
pub(super) struct Recalled {
    pub(super) memory: Memory,
    pub(super) rank: usize,
}

pub(super) type Key = (String, String, Option<String>);

/// The semantic key of a memory, case-insensitively.
pub(super) fn key_of(m: &Memory) -> Option<Key> {
    semantic_key(m).map(|(s, p, c)| {
        (
            s.trim().to_lowercase(),
            p.trim().to_lowercase(),
            c.map(|c| c.trim().to_lowercase()),
        )
    })
}

/// Recall for the pack, and the memories it leaves out with their reasons.
pub(super) fn gather_memories(
    ctx: &Ctx,
    request: &PackRequest,
    query: &str,
    now: Datetime,
    drops: &mut Vec<DroppedItem>,
) -> Result<Vec<Recalled>, Error> {
    if query.trim().is_empty() {
        return Ok(Vec::new());
    }
    let cfg = &ctx.policy.pack;
    let result = crate::read::recall::recall_one(
        ctx,
        &Query {
            id: None,
            text: query.to_string(),
            scope: request.scope.clone(),
            k: request.recall.k,
            as_of: request.recall.as_of,
            kinds: request.recall.kinds.clone(),
            entities: Vec::new(),
            embedding: None,
            sensitivity_ceiling: None,
            explain_rejected: true,
        },
    )?;
    for s in &result.not_admitted {
        // A revision no longer in force is listed below, with why.
        if matches!(s.memory.status, Status::Superseded | Status::Expired) && !s.admission.time_ok {
            continue;
        }
        drops.push(dropped(mem_ref(&s.memory), DropReason::NotAdmitted));
    }
    let as_of = request.recall.as_of.unwrap_or(now);
    let mut live: Vec<Memory> = Vec::new();
    for s in result.results {
        if s.memory.confidence < cfg.min_memory_confidence {
            drops.push(dropped(mem_ref(&s.memory), DropReason::NotAdmitted));
        } else {
            live.push(s.memory);
        }
    }
    // One key, several scopes: the preferred revision (narrower scope, more
    // authority, later) stands for the key; the others are shadowed.
    let keys: Vec<Option<Key>> = live.iter().map(key_of).collect();
    let mut shadowed = vec![false; live.len()];
    for i in 0..live.len() {
        for j in 0..live.len() {
            if i != j
                && keys[i].is_some()
                && keys[i] == keys[j]
                && live[i].id != live[j].id
                && crate::write::resolve::prefer(&live[i], &live[j], as_of, ctx.policy)
                    == std::cmp::Ordering::Less
            {
                shadowed[j] = true;
            }
        }
    }
    let mut out = Vec::new();
    for (rank, (m, shadow)) in live.into_iter().zip(shadowed).enumerate() {
        if shadow {
            drops.push(dropped(mem_ref(&m), DropReason::Superseded));
        } else {
            out.push(Recalled { memory: m, rank });
        }
    }
    // A query about the present: list what recall did not read because it
    // is no longer in force. (A query about the past reads those itself.)
    if as_of.epoch_ms >= now.epoch_ms {
        for r in &out {
            if r.memory.supersedes.is_none() {
                continue;
            }
            // Oldest first from the store; listed newest first.
            let revs = ctx.store.revisions(&r.memory.id)?;
            for s in revs
                .iter()
                .rev()
                .filter(|s| s.memory.revision != r.memory.revision)
            {
                match s.memory.status {
                    Status::Superseded => {
                        drops.push(dropped(mem_ref(&s.memory), DropReason::Superseded))
                    }
                    Status::Expired => drops.push(dropped(mem_ref(&s.memory), DropReason::Expired)),
                    _ => {}
                }
            }
        }
        expired_matches(ctx, request, query, as_of, drops)?;
    }
    Ok(out)
}

/// Expired memories that match the query well: listed as dropped, at most
/// `expired_listing_limit`, reading only the postings of the query's terms.
fn expired_matches(
    ctx: &Ctx,
    request: &PackRequest,
    query: &str,
    as_of: Datetime,
    drops: &mut Vec<DroppedItem>,
) -> Result<(), Error> {
    let cfg = &ctx.policy.pack;
    let q_terms = term_set(query);
    if cfg.expired_listing_limit == 0 || q_terms.is_empty() {
        return Ok(());
    }
    let mut f = crate::core::model::filter(&request.scope, ScopeMatch::Visible);
    f.kinds = request.recall.kinds.clone();
    f.statuses = vec![Status::Expired, Status::Active, Status::Conflicted];
    f.sensitivity_max = Some(Sensitivity::Personal);
    f.exclude_archived = true;
    let weighted: Vec<WeightedTerm> = q_terms
        .iter()
        .map(|t| WeightedTerm {
            term: t.clone(),
            weight: 1.0,
        })
        .collect();
    let found = ctx
        .store
        .search(&f, &weighted, cfg.expired_listing_limit.saturating_mul(4))?;
    let mut listed = 0;
    for s in found {
        let m = &s.memory;
        let ended =
            m.status == Status::Expired || m.valid_to.is_some_and(|t| t.epoch_ms <= as_of.epoch_ms);
        if !ended {
            continue;
        }
        let m_terms = term_set(&m.text);
        let shared = q_terms.intersection(&m_terms).count();
        let smaller = q_terms.len().min(m_terms.len()).max(1);
        if (shared as f64) / (smaller as f64) < cfg.expired_min_coverage {
            continue;
        }
        drops.push(dropped(mem_ref(m), DropReason::Expired));
        listed += 1;
        if listed >= cfg.expired_listing_limit {
            break;
        }
    }
    Ok(())
}
