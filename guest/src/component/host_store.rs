//! `Store` and `Clock` over the component's imports.

use crate::bindings::engram::memory::clock;
use crate::core::store::{Clock, Store};
use crate::types::{Datetime, Scope};
use crate::wit_store as imp;
use crate::wit_store::{
    Event, Filter, Principal, Receipt, StoreError, Stored, TermStats, Tombstone, WeightedTerm,
    WriteOp,
};

pub struct HostStore;

impl Store for HostStore {
    fn principal(&self) -> Principal {
        imp::current_principal()
    }
    fn find(&self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        imp::find(filter, limit)
    }
    fn revisions(&self, id: &str) -> Result<Vec<Stored>, StoreError> {
        imp::revisions(id)
    }
    fn stats(&self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        imp::stats(filter, terms)
    }
    fn search(
        &self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        imp::search(filter, terms, limit)
    }
    fn commit(&self, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        imp::commit(ops)
    }
    fn tombstones(&self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        imp::tombstones(scope)
    }
    fn fingerprint_key(&self, scope: &Scope) -> Result<Vec<u8>, StoreError> {
        imp::fingerprint_key(scope)
    }
    fn count_events(&self, scope: &Scope, kind: &str, since: Datetime) -> Result<u64, StoreError> {
        imp::count_events(scope, kind, since)
    }
    fn session_log(
        &self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError> {
        imp::session_log(scope, session, kind)
    }
}

pub struct HostClock;

impl Clock for HostClock {
    fn now(&self) -> Datetime {
        clock::now()
    }
}
