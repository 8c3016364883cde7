//! Reading the lifecycle: history of one memory, listing a scope, and the
//! sweep that applies expiry.

use std::collections::BTreeMap;

use crate::api::Ctx;
use crate::errors::invalid;
use crate::model::filter;
use crate::types::{Error, Memory, Scope, Status, SweepReport};
use crate::wit_store::ScopeMatch;

/// Every revision of one memory, oldest first.
pub fn history(ctx: &Ctx, id: &str) -> Result<Vec<Memory>, Error> {
    let mut revs: Vec<Memory> = ctx
        .store
        .revisions(id)?
        .into_iter()
        .map(|s| s.memory)
        .collect();
    if revs.is_empty() {
        return Err(Error::NotFound(format!("no memory with id {id:?}")));
    }
    revs.sort_by_key(|m| m.revision);
    Ok(revs)
}

/// The latest revision of every memory visible in a scope, by status.
pub fn list_memories(ctx: &Ctx, scope: &Scope, statuses: &[Status]) -> Result<Vec<Memory>, Error> {
    if scope.tenant.trim().is_empty() {
        return Err(invalid(None, "scope.tenant", "must not be empty"));
    }
    let mut f = filter(scope, ScopeMatch::Visible);
    f.statuses = statuses.to_vec();
    let mut latest: BTreeMap<String, Memory> = BTreeMap::new();
    for s in ctx.store.find(&f, u32::MAX)? {
        let m = s.memory;
        match latest.get(&m.id) {
            Some(cur) if cur.revision >= m.revision => {}
            _ => {
                latest.insert(m.id.clone(), m);
            }
        }
    }
    Ok(latest.into_values().collect())
}

/// Apply expiry rules in a scope.
pub fn sweep(_ctx: &Ctx, _scope: &Scope) -> Result<SweepReport, Error> {
    Err(Error::Unsupported(
        "sweep lands with the versioning-and-forgetting issue".into(),
    ))
}
