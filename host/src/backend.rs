//! The storage seam and the capability layer.
//!
//! A `Backend` (SQLite, PostgreSQL, in-memory) stores records for every
//! tenant. A `ScopedStore` wraps one for one authorised `Principal` and is
//! what the guest's `store` import talks to: every call whose scope lies
//! outside the principal fails with `store-error::denied`, before the
//! backend is touched.

use crate::bindings::{
    Datetime, Event, Filter, Principal, Receipt, Scope, StoreError, Stored, TermStats, Tombstone,
    WeightedTerm, WriteOp,
};
use crate::fingerprint::FingerprintSecret;
use engram_contract::reach::{self, Reach};

/// A store for all tenants. Implementations apply filters exactly as the
/// WIT documents them (`wit/store.wit`).
pub trait Backend: Send {
    /// Up to `limit` records `filter` matches (`find` in `wit/store.wit`).
    fn find(&mut self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError>;
    /// Every revision of `id` visible to `principal`, oldest first.
    fn revisions(&mut self, principal: &Principal, id: &str) -> Result<Vec<Stored>, StoreError>;
    /// Document count, average length and each term's document frequency
    /// under `filter`: what the policy's ranking needs (`stats`).
    fn stats(&mut self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError>;
    /// Up to `limit` records under `filter` holding any of `terms`, best
    /// first by the terms' weights (`search`).
    fn search(
        &mut self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError>;
    /// All or nothing. `principal` bounds every op: an update, erase or
    /// touch reaches only the principal's records (an update only one of
    /// the same scope), a scrub only events within its scope.
    fn commit(&mut self, principal: &Principal, ops: &[WriteOp]) -> Result<Receipt, StoreError>;
    /// The tombstones whose owner `scope` can see: tenant equal, user and
    /// project unset or equal (thread and agent of `scope` are ignored),
    /// oldest first.
    fn tombstones(&mut self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError>;
    /// The secret fingerprint keys are derived from (`fingerprint`),
    /// checked against the key id the store recorded.
    fn fingerprint_secret(&mut self) -> Result<FingerprintSecret, StoreError>;
    /// How many events of `kind` within `scope` since `since` (`count-events`).
    fn count_events(
        &mut self,
        scope: &Scope,
        kind: &str,
        since: Datetime,
    ) -> Result<u64, StoreError>;
    /// The events of `session` (of `scope`'s tenant) with this `kind`
    /// whose scope is visible from `scope` (every dimension of the event's
    /// scope unset or equal to `scope`'s), oldest first by sequence.
    fn session_log(
        &mut self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError>;
    /// Records handed out by find/search/revisions since the backend opened
    /// (tests and benchmarks assert bounded reads).
    fn records_read(&self) -> u64;
    /// The tenants holding a memory with this id (ids are unique per
    /// tenant only), sorted. Only for the operator: the CLI run without
    /// `--tenant` holds the whole database and uses it to open
    /// `history --id`/`forget` for the right tenant. No guest, key or
    /// principal ever reaches it.
    fn tenants_of(&mut self, id: &str) -> Result<Vec<String>, StoreError>;
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

/// May `principal` see content owned by `owner` (a tombstone's scope)?
/// Never another user's or project's (`engram_contract::owner`).
pub fn sees_owner(principal: &Principal, owner: &Scope) -> bool {
    engram_contract::owner::sees_owner(
        &principal.tenant,
        principal.user.as_deref(),
        principal.project.as_deref(),
        owner,
    )
}

pub use engram_contract::owner::owner_of;

/// Bounds on one store call from the guest. The policy stays far below
/// them (its own input limits are lower); they stop a hostile or broken
/// guest from holding the store with one giant call, or from reaching
/// SQLite's bound-variable limit (a search binds two per term).
pub const MAX_TERMS_PER_CALL: usize = 16_384;
/// Write operations in one commit.
pub const MAX_OPS_PER_COMMIT: usize = 100_000;
/// Bytes of text (body, content, index terms) in one written record.
pub const MAX_TEXT_BYTES_PER_RECORD: usize = 16 << 20;
/// Index terms of one written record.
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
    /// Whom the store handle acts for: every call is checked against it.
    pub principal: Principal,
    /// The store behind the check.
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
            WriteOp::ScrubEvents(s) => self.check(&s.scope),
            // Owned by the principal or narrower: a user-pinned guest can
            // never block another user (or the whole tenant).
            WriteOp::Tombstone(t) => {
                self.check(&t.scope)?;
                if t.scope.thread.is_some() || t.scope.agent.is_some() {
                    return Err(StoreError::Invalid(
                        "a tombstone is owned by a tenant, user and project: its thread and agent must be unset".into(),
                    ));
                }
                if t.fingerprint.len() > 128 {
                    return Err(over_limit(
                        "a tombstone's fingerprint (bytes)",
                        t.fingerprint.len(),
                        128,
                    ));
                }
                Ok(())
            }
            // Bounded to the principal's own records by the backend.
            WriteOp::Erase(_) | WriteOp::Touch(_) => Ok(()),
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

    fn tombstones(&mut self, scope: Scope) -> Result<Vec<Tombstone>, StoreError> {
        self.check(&scope)?;
        self.backend.tombstones(&owner_of(&scope))
    }

    fn fingerprint_key(&mut self, scope: Scope) -> Result<Vec<u8>, StoreError> {
        let owner = owner_of(&scope);
        if !sees_owner(&self.principal, &owner) {
            // Worded like every denial; the key of an owner outside the
            // principal is never derived.
            return Err(StoreError::Denied(match denial(&self.principal, &owner) {
                Some(why) => why,
                None => "that owner is outside this store handle's principal".into(),
            }));
        }
        Ok(self.backend.fingerprint_secret()?.derive(&owner).to_vec())
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

    fn session_log(
        &mut self,
        scope: Scope,
        session: String,
        kind: String,
    ) -> Result<Vec<Event>, StoreError> {
        self.check(&scope)?;
        self.backend.session_log(&scope, &session, &kind)
    }
}

impl engram_contract::wasmtime_types::Host for ScopedStore {}
