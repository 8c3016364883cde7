//! The storage and clock seams. The component implements these over its WIT
//! imports (`component::host_store`); native tests use
//! `testing::memstore::MemStore`.

use crate::types::{Datetime, Scope};
use crate::wit_store::{
    Event, Filter, Principal, Receipt, StoreError, Stored, TermStats, Tombstone, WeightedTerm,
    WriteOp,
};

/// The store as the policy sees it (mirrors `engram:memory/store`).
pub trait Store {
    fn principal(&self) -> Principal;
    fn find(&self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError>;
    fn revisions(&self, id: &str) -> Result<Vec<Stored>, StoreError>;
    fn stats(&self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError>;
    fn search(
        &self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError>;
    fn commit(&self, ops: &[WriteOp]) -> Result<Receipt, StoreError>;
    /// The tombstones that apply in `scope` (see `store.tombstones`).
    fn tombstones(&self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError>;
    /// The fingerprint key of content owned by `scope`.
    fn fingerprint_key(&self, scope: &Scope) -> Result<Vec<u8>, StoreError>;
    fn count_events(&self, scope: &Scope, kind: &str, since: Datetime) -> Result<u64, StoreError>;
    /// The events of one session and kind visible from `scope`, oldest
    /// first (see `store.session-log`).
    fn session_log(
        &self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError>;
}

/// The clock as the policy sees it.
pub trait Clock {
    fn now(&self) -> Datetime;
}

/// A clock fixed at one instant (tests, `--now`).
pub struct FixedClock(pub Datetime);

impl Clock for FixedClock {
    fn now(&self) -> Datetime {
        self.0
    }
}
