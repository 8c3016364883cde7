//! Reading and ageing the lifecycle: the revision history of one memory,
//! the list of what is remembered in a scope (so a user can see and correct
//! it), and the sweep that applies `valid-to` and TTL expiry, unverified
//! inference expiry and archival (seed 000 §七.4, seed 001, seed 002 §7.17).

use std::collections::{BTreeMap, BTreeSet};

use crate::core::api::Ctx;
use crate::core::errors::invalid;
use crate::core::model::filter;
use crate::types::{Datetime, Error, Memory, Retention, Scope, Status, SweepReport};
use crate::wit_store::{Event, ScopeMatch, Stored, Update, WriteOp};
use crate::write::remember::commit_with_retries;

/// Every revision of one memory, oldest first, each with its provenance.
pub fn history(ctx: &Ctx, id: &str) -> Result<Vec<Memory>, Error> {
    if id.trim().is_empty() {
        return Err(invalid(None, "id", "must not be empty"));
    }
    let mut revs: Vec<Memory> = ctx
        .store
        .revisions(id.trim())?
        .into_iter()
        .map(|s| s.memory)
        .collect();
    if revs.is_empty() {
        return Err(Error::NotFound(format!(
            "no memory with id '{}'",
            id.trim()
        )));
    }
    revs.sort_by_key(|m| m.revision);
    Ok(revs)
}

/// What is remembered under a scope (the scope and everything narrower), newest
/// first. With no statuses: the current revisions of each memory — its live
/// (active, conflicted) and pending revisions, or else its latest one. With
/// statuses: every revision in one of them (e.g. `superseded` lists the
/// replaced values).
pub fn list_memories(ctx: &Ctx, scope: &Scope, statuses: &[Status]) -> Result<Vec<Memory>, Error> {
    if scope.tenant.trim().is_empty() {
        return Err(invalid(None, "scope.tenant", "must not be empty"));
    }
    let mut f = filter(scope, ScopeMatch::Within);
    f.statuses = statuses.to_vec();
    let rows = ctx.store.find(&f, u32::MAX)?;
    let mut out: Vec<Memory> = if statuses.is_empty() {
        let mut by_id: BTreeMap<String, Vec<Memory>> = BTreeMap::new();
        for s in rows {
            by_id.entry(s.memory.id.clone()).or_default().push(s.memory);
        }
        by_id.into_values().flat_map(current_revisions).collect()
    } else {
        rows.into_iter().map(|s| s.memory).collect()
    };
    out.sort_by(|a, b| {
        b.updated_at
            .epoch_ms
            .cmp(&a.updated_at.epoch_ms)
            .then_with(|| a.id.cmp(&b.id))
            .then_with(|| b.revision.cmp(&a.revision))
    });
    Ok(out)
}

/// The revisions of one memory a reader should see.
fn current_revisions(mut revs: Vec<Memory>) -> Vec<Memory> {
    revs.sort_by_key(|m| m.revision);
    let current: Vec<Memory> = revs
        .iter()
        .filter(|m| {
            matches!(
                m.status,
                Status::Active | Status::Conflicted | Status::Pending
            )
        })
        .cloned()
        .collect();
    if current.is_empty() {
        revs.pop().into_iter().collect()
    } else {
        current
    }
}

/// What happens to one revision in a sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fate {
    Expired,
    InferenceExpired,
    Archived,
}

fn later(a: Datetime, b: Option<Datetime>) -> Datetime {
    match b {
        Some(b) if b.epoch_ms > a.epoch_ms => b,
        _ => a,
    }
}

/// The fate of one live or pending revision at `now`, with the instant its
/// validity ends.
fn fate(ctx: &Ctx, m: &Memory, now: Datetime) -> Option<(Fate, Datetime)> {
    let lc = &ctx.policy.lifecycle;
    let inferred = ctx.policy.source(m.provenance.source.kind).inferred;
    let ended = |at: Datetime| at.epoch_ms <= now.epoch_ms;
    if let Some(t) = m.valid_to.filter(|t| ended(*t)) {
        return Some((
            if inferred {
                Fate::InferenceExpired
            } else {
                Fate::Expired
            },
            t,
        ));
    }
    if inferred && m.valid_to.is_none() {
        let t = crate::core::time::add_ms(
            m.observed_at,
            ctx.policy.inference_ttl_days * crate::core::time::MS_PER_DAY,
        );
        if ended(t) {
            return Some((Fate::InferenceExpired, t));
        }
    }
    // Confirmed preferences and audit records never decay away.
    if matches!(m.retention, Retention::Durable | Retention::Audit) {
        return None;
    }
    let rule = lc.retention_rule(m.retention)?;
    let last_use = later(later(m.observed_at, Some(m.updated_at)), m.last_accessed);
    if let Some(days) = rule.ttl_days {
        let t = crate::core::time::add_ms(last_use, days * crate::core::time::MS_PER_DAY);
        if ended(t) {
            return Some((
                if inferred {
                    Fate::InferenceExpired
                } else {
                    Fate::Expired
                },
                t,
            ));
        }
    }
    if let Some(days) = rule.archive_after_days {
        let t = crate::core::time::add_ms(last_use, days * crate::core::time::MS_PER_DAY);
        if ended(t) && m.status != Status::Pending {
            return Some((Fate::Archived, now));
        }
    }
    None
}

/// Apply expiry and archival to the memories visible in a scope. Explicit
/// `valid-to` ends any memory; unverified inferences expire after
/// `inference_ttl_days`; TTL and archival follow the retention class, and
/// `durable` memories (confirmed preferences) never decay away. A conflict
/// whose other sides all expired is resolved: the survivor becomes active.
pub fn sweep(ctx: &Ctx, scope: &Scope) -> Result<SweepReport, Error> {
    if scope.tenant.trim().is_empty() {
        return Err(invalid(None, "scope.tenant", "must not be empty"));
    }
    commit_with_retries(ctx, || plan_sweep(ctx, scope))
}

fn plan_sweep(ctx: &Ctx, scope: &Scope) -> Result<(SweepReport, Vec<WriteOp>), Error> {
    let now = ctx.now();
    let mut f = filter(scope, ScopeMatch::Within);
    f.statuses = vec![Status::Active, Status::Conflicted, Status::Pending];
    let rows = ctx.store.find(&f, u32::MAX)?;
    let mut report = SweepReport {
        expired: 0,
        archived: 0,
        inferences_expired: 0,
        examined: rows.len() as u32,
    };
    let mut updates: Vec<(Memory, u64)> = Vec::new();
    let mut touched: BTreeSet<(String, u32)> = BTreeSet::new();
    let mut conflicted_ids: BTreeSet<String> = BTreeSet::new();
    for s in &rows {
        let m = &s.memory;
        let Some((what, at)) = fate(ctx, m, now) else {
            continue;
        };
        let mut next = m.clone();
        match what {
            Fate::Expired | Fate::InferenceExpired => {
                next.status = Status::Expired;
                next.valid_to = Some(match m.valid_to {
                    Some(t) if t.epoch_ms <= at.epoch_ms => t,
                    _ => at,
                });
                if what == Fate::Expired {
                    report.expired += 1;
                } else {
                    report.inferences_expired += 1;
                }
            }
            Fate::Archived => {
                next.status = Status::Archived;
                report.archived += 1;
            }
        }
        if m.status == Status::Conflicted {
            conflicted_ids.insert(m.id.clone());
        }
        next.updated_at = now;
        touched.insert((m.id.clone(), m.revision));
        updates.push((next, s.etag));
    }
    // A conflict whose other sides are gone: the one valid survivor wins.
    for id in conflicted_ids {
        let survivors: Vec<Stored> = ctx
            .store
            .revisions(&id)?
            .into_iter()
            .filter(|s| {
                matches!(s.memory.status, Status::Active | Status::Conflicted)
                    && !touched.contains(&(s.memory.id.clone(), s.memory.revision))
            })
            .collect();
        if let [only] = survivors.as_slice() {
            if only.memory.status == Status::Conflicted {
                let mut next = only.memory.clone();
                next.status = Status::Active;
                next.updated_at = now;
                updates.push((next, only.etag));
            }
        }
    }
    if updates.is_empty() {
        return Ok((report, Vec::new()));
    }
    // Demotions before promotions: never two active revisions of a key.
    updates.sort_by_key(|(m, _)| m.status == Status::Active);
    let mut ops: Vec<WriteOp> = updates
        .into_iter()
        .map(|(m, etag)| {
            WriteOp::Update(Update {
                index_terms: crate::read::index::memory_terms(&m),
                memory: m,
                expected_etag: etag,
            })
        })
        .collect();
    ops.push(WriteOp::Append(Event {
        session: scope.thread.clone().unwrap_or_else(|| "default".into()),
        scope: scope.clone(),
        kind: "sweep".into(),
        payload: format!(
            "sweep: examined {}, expired {}, inferences expired {}, archived {}",
            report.examined, report.expired, report.inferences_expired, report.archived
        ),
        at: now,
    }));
    Ok((report, ops))
}
