//! Stores that count the time spent inside them, so the benchmark can split
//! a call into time in the store and time in the policy.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use engram_host::backend::Backend;
use engram_host::bindings as h;
use engram_host::bindings::{
    Datetime, Event, Filter, Principal, Receipt, Scope, StoreError, Stored, TermStats, Tombstone,
    WeightedTerm, WriteOp,
};
use engram_host::fingerprint::FingerprintSecret;

use crate::conv::Cv;
use crate::measure::thread_cpu_us;

/// The backend methods timed separately.
pub const METHODS: [&str; 8] = [
    "find",
    "revisions",
    "stats",
    "search",
    "commit",
    "tombstones",
    "count_events",
    "session_log",
];

/// Nanoseconds spent in a backend and the number of calls (in total and per
/// method, with the calling thread's CPU time: on a loaded machine wall
/// time includes waiting for a core), shared with the benchmark while the
/// backend is owned by an `Engram` or a wasmtime `Store`.
#[derive(Clone, Default)]
pub struct StoreTime {
    ns: Arc<AtomicU64>,
    per: Arc<[(AtomicU64, AtomicU64, AtomicU64); 8]>,
}

/// A method's share: (name, calls, wall ns, thread CPU ns).
pub type MethodTime = (&'static str, u64, u64, u64);

impl StoreTime {
    pub fn ns(&self) -> u64 {
        self.ns.load(Ordering::Relaxed)
    }
    /// Every method called so far.
    pub fn per_method(&self) -> Vec<MethodTime> {
        METHODS
            .iter()
            .zip(self.per.iter())
            .map(|(m, (c, n, cpu))| {
                (
                    *m,
                    c.load(Ordering::Relaxed),
                    n.load(Ordering::Relaxed),
                    cpu.load(Ordering::Relaxed),
                )
            })
            .filter(|(_, c, _, _)| *c > 0)
            .collect()
    }
    fn add(&self, method: usize, t: Instant, cpu0: f64) {
        let ns = t.elapsed().as_nanos() as u64;
        let cpu = ((thread_cpu_us() - cpu0).max(0.0) * 1e3) as u64;
        self.ns.fetch_add(ns, Ordering::Relaxed);
        self.per[method].0.fetch_add(1, Ordering::Relaxed);
        self.per[method].1.fetch_add(ns, Ordering::Relaxed);
        self.per[method].2.fetch_add(cpu, Ordering::Relaxed);
    }
}

/// A backend that times every call into the one it wraps.
pub struct TimedBackend {
    inner: Box<dyn Backend>,
    time: StoreTime,
}

impl TimedBackend {
    pub fn new(inner: Box<dyn Backend>) -> (Self, StoreTime) {
        let time = StoreTime::default();
        (
            TimedBackend {
                inner,
                time: time.clone(),
            },
            time,
        )
    }
}

macro_rules! timed {
    ($self:ident, $m:expr, $e:expr) => {{
        let cpu0 = thread_cpu_us();
        let t = Instant::now();
        let r = $e;
        $self.time.add($m, t, cpu0);
        r
    }};
}

impl Backend for TimedBackend {
    fn find(&mut self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        timed!(self, 0, self.inner.find(filter, limit))
    }
    fn revisions(&mut self, principal: &Principal, id: &str) -> Result<Vec<Stored>, StoreError> {
        timed!(self, 1, self.inner.revisions(principal, id))
    }
    fn stats(&mut self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        timed!(self, 2, self.inner.stats(filter, terms))
    }
    fn search(
        &mut self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        timed!(self, 3, self.inner.search(filter, terms, limit))
    }
    fn commit(&mut self, principal: &Principal, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        timed!(self, 4, self.inner.commit(principal, ops))
    }
    fn tombstones(&mut self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        timed!(self, 5, self.inner.tombstones(scope))
    }
    fn fingerprint_secret(&mut self) -> Result<FingerprintSecret, StoreError> {
        self.inner.fingerprint_secret()
    }
    fn count_events(
        &mut self,
        scope: &Scope,
        kind: &str,
        since: Datetime,
    ) -> Result<u64, StoreError> {
        timed!(self, 6, self.inner.count_events(scope, kind, since))
    }
    fn session_log(
        &mut self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError> {
        timed!(self, 7, self.inner.session_log(scope, session, kind))
    }
    fn records_read(&self) -> u64 {
        self.inner.records_read()
    }
    fn tenants_of(&mut self, id: &str) -> Result<Vec<String>, StoreError> {
        self.inner.tenants_of(id)
    }
    fn begin_batch(&mut self) -> Result<(), StoreError> {
        self.inner.begin_batch()
    }
    fn in_batch(&self) -> bool {
        self.inner.in_batch()
    }
    fn finish_batch(&mut self, ok: bool) -> Result<(), StoreError> {
        self.inner.finish_batch(ok)
    }
}

/// The guest's `Store` seam over a host backend, for running the policy
/// natively against the very store the component reads. Read-only: the
/// native side only runs ranking and classification (no commits). The
/// conversion of answers into the guest's types is counted as store time
/// (the component's equivalent, lowering into linear memory, is not: the
/// ratio errs against wasm).
pub struct NativeStore {
    principal: Principal,
    backend: RefCell<Box<dyn Backend>>,
    ns: Cell<u64>,
}

impl NativeStore {
    pub fn new(principal: Principal, backend: Box<dyn Backend>) -> Self {
        NativeStore {
            principal,
            backend: RefCell::new(backend),
            ns: Cell::new(0),
        }
    }
    pub fn ns(&self) -> u64 {
        self.ns.get()
    }
    fn time<R>(&self, f: impl FnOnce(&mut dyn Backend) -> R) -> R {
        let t = Instant::now();
        let r = f(&mut **self.backend.borrow_mut());
        self.ns.set(self.ns.get() + t.elapsed().as_nanos() as u64);
        r
    }
}

type GResult<T> = Result<T, engram_guest::wit_store::StoreError>;

impl engram_guest::core::store::Store for NativeStore {
    fn principal(&self) -> engram_guest::wit_store::Principal {
        self.principal.clone().cv()
    }
    fn find(
        &self,
        filter: &engram_guest::wit_store::Filter,
        limit: u32,
    ) -> GResult<Vec<engram_guest::wit_store::Stored>> {
        self.time(|b| {
            let f: h::Filter = filter.clone().cv();
            b.find(&f, limit).map(Cv::cv).map_err(Cv::cv)
        })
    }
    fn revisions(&self, id: &str) -> GResult<Vec<engram_guest::wit_store::Stored>> {
        self.time(|b| b.revisions(&self.principal, id).map(Cv::cv).map_err(Cv::cv))
    }
    fn stats(
        &self,
        filter: &engram_guest::wit_store::Filter,
        terms: &[String],
    ) -> GResult<engram_guest::wit_store::TermStats> {
        self.time(|b| {
            let f: h::Filter = filter.clone().cv();
            b.stats(&f, terms).map(Cv::cv).map_err(Cv::cv)
        })
    }
    fn search(
        &self,
        filter: &engram_guest::wit_store::Filter,
        terms: &[engram_guest::wit_store::WeightedTerm],
        limit: u32,
    ) -> GResult<Vec<engram_guest::wit_store::Stored>> {
        self.time(|b| {
            let f: h::Filter = filter.clone().cv();
            let t: Vec<h::WeightedTerm> = terms.to_vec().cv();
            b.search(&f, &t, limit).map(Cv::cv).map_err(Cv::cv)
        })
    }
    fn commit(
        &self,
        _ops: &[engram_guest::wit_store::WriteOp],
    ) -> GResult<engram_guest::wit_store::Receipt> {
        Err(engram_guest::wit_store::StoreError::Invalid(
            "the benchmark's native store is read-only".into(),
        ))
    }
    fn tombstones(
        &self,
        scope: &engram_guest::types::Scope,
    ) -> GResult<Vec<engram_guest::wit_store::Tombstone>> {
        self.time(|b| {
            let s: Scope = scope.clone().cv();
            b.tombstones(&s).map(Cv::cv).map_err(Cv::cv)
        })
    }
    fn fingerprint_key(&self, scope: &engram_guest::types::Scope) -> GResult<Vec<u8>> {
        let owner = engram_host::backend::owner_of(&scope.clone().cv());
        if !engram_host::backend::sees_owner(&self.principal, &owner) {
            return Err(engram_guest::wit_store::StoreError::Denied(
                "an owner outside the benchmark's principal".into(),
            ));
        }
        self.time(|b| {
            b.fingerprint_secret()
                .map(|secret| secret.derive(&owner).to_vec())
                .map_err(Cv::cv)
        })
    }
    fn count_events(
        &self,
        scope: &engram_guest::types::Scope,
        kind: &str,
        since: engram_guest::types::Datetime,
    ) -> GResult<u64> {
        self.time(|b| {
            let s: Scope = scope.clone().cv();
            b.count_events(&s, kind, since.cv()).map_err(Cv::cv)
        })
    }
    fn session_log(
        &self,
        scope: &engram_guest::types::Scope,
        session: &str,
        kind: &str,
    ) -> GResult<Vec<engram_guest::wit_store::Event>> {
        self.time(|b| {
            let s: Scope = scope.clone().cv();
            b.session_log(&s, session, kind).map(Cv::cv).map_err(Cv::cv)
        })
    }
}
