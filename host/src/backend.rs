//! The storage seam and the capability layer.
//!
//! A `Backend` (SQLite, PostgreSQL, in-memory) stores records for every
//! tenant. A `ScopedStore` wraps one for one authorised `Principal` and is
//! what the guest's `store` import talks to: every call whose scope lies
//! outside the principal fails with `store-error::denied`, before the
//! backend is touched.

use crate::bindings::{
    Datetime, Filter, Principal, Receipt, Scope, StoreError, Stored, TermStats, Tombstone,
    WeightedTerm, WriteOp,
};
use engram_contract::reach::{self, Reach};

/// A store for all tenants. Implementations apply filters exactly as the
/// WIT documents them (`wit/store.wit`).
pub trait Backend: Send {
    fn find(&mut self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError>;
    /// Every revision of `id` visible to `principal`, oldest first.
    fn revisions(&mut self, principal: &Principal, id: &str) -> Result<Vec<Stored>, StoreError>;
    fn stats(&mut self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError>;
    fn search(
        &mut self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError>;
    /// All or nothing. `principal` bounds erase/scrub/tombstone ops.
    fn commit(&mut self, principal: &Principal, ops: &[WriteOp]) -> Result<Receipt, StoreError>;
    fn tombstones(&mut self, tenant: &str) -> Result<Vec<Tombstone>, StoreError>;
    fn count_events(
        &mut self,
        scope: &Scope,
        kind: &str,
        since: Datetime,
    ) -> Result<u64, StoreError>;
    /// Records handed out by find/search/revisions since the backend opened
    /// (tests and benchmarks assert bounded reads).
    fn records_read(&self) -> u64;
    /// The tenant that owns memory `id`, if any (lets the operator's CLI
    /// open `history --id` for the right principal).
    fn tenant_of(&mut self, id: &str) -> Result<Option<String>, StoreError>;
    /// Start an outer transaction spanning many calls (a whole CLI input),
    /// inside which each commit is a savepoint.
    fn begin_batch(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
    /// Is an outer transaction open?
    fn in_batch(&self) -> bool {
        false
    }
    /// End the outer transaction: commit if `ok`, else roll back everything.
    fn finish_batch(&mut self, _ok: bool) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Why `scope` lies outside `principal`: the first dimension that differs,
/// with both values; `None` when the principal covers the scope (worded
/// once for every surface, `engram_contract::reach`).
pub fn denial(principal: &Principal, scope: &Scope) -> Option<String> {
    let held = Reach {
        tenant: &principal.tenant,
        user: principal.user.as_deref(),
        project: principal.project.as_deref(),
    };
    reach::denial(held, scope.into(), reach::STORE_HANDLE)
}

/// Bounds on one store call from the guest. The policy stays far below
/// them (its own input limits are lower); they stop a hostile or broken
/// guest from holding the store with one giant call, or from reaching
/// SQLite's bound-variable limit (a search binds two per term).
pub const MAX_TERMS_PER_CALL: usize = 16_384;
pub const MAX_OPS_PER_COMMIT: usize = 100_000;
pub const MAX_TEXT_BYTES_PER_RECORD: usize = 16 << 20;
pub const MAX_INDEX_TERMS_PER_RECORD: usize = 100_000;

/// `invalid` naming the limit and the value that broke it.
fn over_limit(what: &str, value: usize, limit: usize) -> StoreError {
    StoreError::Invalid(format!(
        "{what} is {value}, over the store's limit of {limit}"
    ))
}

fn check_size(what: &str, value: usize, limit: usize) -> Result<(), StoreError> {
    if value > limit {
        Err(over_limit(what, value, limit))
    } else {
        Ok(())
    }
}

/// A record written by `insert`/`update` must fit the per-record bounds.
fn check_record(text: &str, index_terms: &[String]) -> Result<(), StoreError> {
    check_size(
        "the text of one record (bytes)",
        text.len(),
        MAX_TEXT_BYTES_PER_RECORD,
    )?;
    check_size(
        "the index terms of one record",
        index_terms.len(),
        MAX_INDEX_TERMS_PER_RECORD,
    )
}

/// A backend opened for one principal: the only store the guest ever sees.
pub struct ScopedStore {
    pub principal: Principal,
    pub backend: Box<dyn Backend>,
}

impl ScopedStore {
    fn check(&self, scope: &Scope) -> Result<(), StoreError> {
        match denial(&self.principal, scope) {
            None => Ok(()),
            Some(why) => Err(StoreError::Denied(why)),
        }
    }

    fn check_op(&self, op: &WriteOp) -> Result<(), StoreError> {
        match op {
            WriteOp::Insert(i) => {
                self.check(&i.memory.scope)?;
                check_record(&i.memory.text, &i.index_terms)
            }
            WriteOp::Update(u) => {
                self.check(&u.memory.scope)?;
                check_record(&u.memory.text, &u.index_terms)
            }
            WriteOp::Append(e) => self.check(&e.scope),
            // Erase/scrub/tombstone/touch are bounded to the principal by the backend.
            WriteOp::Erase(_)
            | WriteOp::ScrubEvents(_)
            | WriteOp::Tombstone(_)
            | WriteOp::Touch(_) => Ok(()),
        }
    }
}

impl crate::bindings::engram::memory::store::Host for ScopedStore {
    fn current_principal(&mut self) -> Principal {
        self.principal.clone()
    }

    fn find(&mut self, filter: Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        self.check(&filter.scope)?;
        self.backend.find(&filter, limit)
    }

    fn revisions(&mut self, id: String) -> Result<Vec<Stored>, StoreError> {
        self.backend.revisions(&self.principal, &id)
    }

    fn stats(&mut self, filter: Filter, terms: Vec<String>) -> Result<TermStats, StoreError> {
        self.check(&filter.scope)?;
        check_size(
            "the terms of one stats call",
            terms.len(),
            MAX_TERMS_PER_CALL,
        )?;
        self.backend.stats(&filter, &terms)
    }

    fn search(
        &mut self,
        filter: Filter,
        terms: Vec<WeightedTerm>,
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        self.check(&filter.scope)?;
        check_size("the terms of one search", terms.len(), MAX_TERMS_PER_CALL)?;
        self.backend.search(&filter, &terms, limit)
    }

    fn commit(&mut self, ops: Vec<WriteOp>) -> Result<Receipt, StoreError> {
        check_size(
            "the operations of one commit",
            ops.len(),
            MAX_OPS_PER_COMMIT,
        )?;
        for op in &ops {
            self.check_op(op)?;
        }
        self.backend.commit(&self.principal, &ops)
    }

    fn tombstones(&mut self) -> Result<Vec<Tombstone>, StoreError> {
        self.backend.tombstones(&self.principal.tenant)
    }

    fn count_events(
        &mut self,
        scope: Scope,
        kind: String,
        since: Datetime,
    ) -> Result<u64, StoreError> {
        self.check(&scope)?;
        self.backend.count_events(&scope, &kind, since)
    }
}

impl engram_contract::wasmtime_types::Host for ScopedStore {}
