//! How a commit becomes atomic on a key-value store that has no
//! transactions (docs/edge.md, "Commits"):
//!
//! 1. Read the tenant's head `{v, pending}` through a compare-and-swap
//!    handle. A pending commit is finished first (step 4), by whoever
//!    meets it.
//! 2. Plan the ops at version `v` (`plan`): their checks, and the final
//!    value of every key they change, stamped `v + 1`.
//! 3. Write that write set as a commit record, then swap the head to
//!    `{v + 1, pending: record}`. The swap is the commit point: it fails if
//!    any other commit landed since step 1, and then the whole commit is
//!    planned again on the new head (its checks too), so nothing is lost.
//! 4. Apply the record: each key is written by compare-and-swap unless it
//!    already holds a value of version ≥ `v + 1` (so a slow applier never
//!    puts an old value over a newer one), then the head is swapped to
//!    `{v + 1}` and the record deleted. Applying twice is applying once.
//!
//! Readers (`view`) see only whole commits: they finish a pending one
//! first, and read again when they meet a value newer than their head.

use crate::bindings::exports::engram::memory::store::{Principal, Receipt, StoreError, WriteOp};
use crate::kv::Kv;
use crate::layout::{fnv1a, Layout};
use crate::model::{CommitRecord, Head};
use crate::plan::{marker, Plan};
use crate::store::KvStore;
use crate::view::{backend, decode, encode, stamp_of, Fail, View};

/// Commit attempts while other commits keep landing on the same tenant.
const COMMIT_ATTEMPTS: usize = 32;
/// Attempts to write one key while others keep changing it.
const KEY_ATTEMPTS: usize = 64;
/// Deletion markers are removed this long after their commit. An applier
/// stops after half of it, so no late applier can bring a deleted key back:
/// a commit is applied only while pending, and markers are collected only
/// by later commits (docs/edge.md, "Erasure").
pub const GARBAGE_HORIZON_MS: i64 = 10 * 60_000;

impl<K: Kv> KvStore<K> {
    /// The head of `layout`'s tenant with no commit pending (finishing one
    /// if it is).
    pub(crate) fn settled_head(&self, layout: &Layout) -> Result<Head, StoreError> {
        for _ in 0..COMMIT_ATTEMPTS {
            let head = crate::view::read_head(&self.kv, layout)?;
            match &head.pending {
                None => return Ok(head),
                Some(record) => self.finish(layout, &head, record)?,
            }
        }
        Err(StoreError::Backend(format!(
            "key-value store: tenant head {} stayed pending",
            layout.head()
        )))
    }

    /// Apply the pending commit `record` of `head`, then settle the head.
    fn finish(&self, layout: &Layout, head: &Head, record_key: &str) -> Result<(), StoreError> {
        let Some(bytes) = self.kv.get(record_key).map_err(backend)? else {
            // Finished and removed by another instance since we read the
            // head, or not yet visible here: read the head again.
            return Ok(());
        };
        let record: CommitRecord = decode(record_key, &bytes)?;
        self.apply(&record)?;
        self.settle(layout, head, record_key)
    }

    /// Swap `head` (pending) to its settled form and drop the record.
    fn settle(&self, layout: &Layout, head: &Head, record_key: &str) -> Result<(), StoreError> {
        let (current, cas) = self.kv.cas_read(&layout.head()).map_err(backend)?;
        let current: Head = match current {
            Some(b) => decode(&layout.head(), &b)?,
            None => Head::default(),
        };
        if current == *head {
            let settled = Head {
                v: head.v,
                pending: None,
            };
            // Losing this swap means someone else settled it: fine either way.
            self.kv
                .cas_swap(cas, encode(&settled)?.into_bytes())
                .map_err(backend)?;
        }
        self.kv
            .delete_many(&[record_key.to_string()])
            .map_err(backend)
    }

    /// Write every key of `record` unless it already holds its version or
    /// a newer one.
    fn apply(&self, record: &CommitRecord) -> Result<(), StoreError> {
        let started = (self.wall_ms)();
        for (key, value) in &record.writes {
            // An applier this slow may be overtaken by the collector: stop.
            let now = (self.wall_ms)();
            if now - started > GARBAGE_HORIZON_MS / 2 {
                return Err(StoreError::Backend(format!(
                    "key-value store: applying commit {} took over {} s; left to the next reader",
                    record.v,
                    GARBAGE_HORIZON_MS / 2000
                )));
            }
            let bytes = match value {
                Some(text) => text.as_bytes().to_vec(),
                None => marker(record.v),
            };
            self.write_if_older(key, &bytes, record.v)?;
        }
        Ok(())
    }

    fn write_if_older(&self, key: &str, bytes: &[u8], version: u64) -> Result<(), StoreError> {
        for _ in 0..KEY_ATTEMPTS {
            let (current, cas) = self.kv.cas_read(key).map_err(backend)?;
            if current
                .as_deref()
                .and_then(stamp_of)
                .is_some_and(|v| v >= version)
            {
                return Ok(());
            }
            if self.kv.cas_swap(cas, bytes.to_vec()).map_err(backend)? {
                return Ok(());
            }
        }
        Err(StoreError::Backend(format!(
            "key-value store: {key} kept changing while commit {version} was applied"
        )))
    }

    /// All or nothing: every op applies, or none does (`wit/store.wit`).
    pub fn commit(&self, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        let principal = self.principal()?;
        for op in ops {
            self.check_op(&principal, op)?;
        }
        if ops.iter().any(|op| matches!(op, WriteOp::Tombstone(_))) {
            // A tombstone made with another secret would never match:
            // refuse before anything is written.
            self.secret()?;
        }
        let layout = Layout::new(&principal.tenant);
        for _ in 0..COMMIT_ATTEMPTS {
            let (raw, cas) = self.kv.cas_read(&layout.head()).map_err(backend)?;
            let head: Head = match raw {
                Some(b) => decode(&layout.head(), &b)?,
                None => Head::default(),
            };
            if let Some(record) = head.pending.clone() {
                self.finish(&layout, &head, &record)?;
                continue;
            }
            let view = View {
                kv: &self.kv,
                layout: layout.clone(),
                head: head.clone(),
            };
            let planned = self.plan(&view, &principal, ops);
            let (receipt, record, due) = match planned {
                Ok(p) => p,
                Err(Fail::Newer) => continue,
                Err(Fail::Store(e)) => return Err(e),
            };
            if record.writes.is_empty() {
                return Ok(receipt);
            }
            // Markers old enough are deleted for good before the commit.
            self.kv.delete_many(&due).map_err(backend)?;
            let encoded = encode(&record)?;
            let nonce = self.next_nonce(&record, &encoded);
            let record_key = layout.commit(record.v, nonce);
            self.kv
                .set_many(vec![(record_key.clone(), encoded.into_bytes())])
                .map_err(backend)?;
            let pending = Head {
                v: record.v,
                pending: Some(record_key.clone()),
            };
            if !self
                .kv
                .cas_swap(cas, encode(&pending)?.into_bytes())
                .map_err(backend)?
            {
                // Another commit landed first: plan again on its head. The
                // record goes unless the head names it: an identical commit
                // of another instance (same write set, so the same name)
                // won, and its readers finish it from that record.
                let head = crate::view::read_head(&self.kv, &layout)?;
                if head.pending.as_deref() != Some(record_key.as_str()) {
                    self.kv.delete_many(&[record_key]).map_err(backend)?;
                }
                continue;
            }
            self.apply(&record)?;
            self.settle(&layout, &pending, &record_key)?;
            return Ok(receipt);
        }
        Err(StoreError::Conflict(format!(
            "other writers kept committing to tenant '{}' ({COMMIT_ATTEMPTS} attempts)",
            principal.tenant
        )))
    }

    #[allow(clippy::type_complexity)]
    fn plan(
        &self,
        view: &View<K>,
        principal: &Principal,
        ops: &[WriteOp],
    ) -> Result<(Receipt, CommitRecord, Vec<String>), Fail> {
        let now = (self.wall_ms)();
        let mut plan = Plan::new(view, principal.clone(), now);
        plan.guards = self.read_sessions.borrow().clone();
        plan.apply(ops)?;
        let deleted = plan.deleted_keys();
        let due = if deleted.is_empty() && !has_garbage_due(view, now)? {
            Vec::new()
        } else {
            plan.collect_garbage(&deleted, GARBAGE_HORIZON_MS)?
        };
        let receipt = plan.receipt.clone();
        let version = view.head.v + 1;
        let writes = plan.writes(version)?;
        Ok((
            receipt,
            CommitRecord {
                v: version,
                at: now,
                writes,
            },
            due,
        ))
    }

    /// The name of a commit record. Instances are created per request and
    /// count from the same start, so two of them committing at one version
    /// in the same millisecond would otherwise share a name (and one, losing
    /// the head, would delete the record the other's pending head names):
    /// the record's content is part of its name, so one name never holds
    /// two different write sets.
    pub(crate) fn next_nonce(&self, record: &CommitRecord, encoded: &str) -> u64 {
        let n = self.nonce.get().wrapping_add(1);
        self.nonce.set(n);
        let seed = format!("{}|{}|{n}|{}", record.v, record.at, record.writes.len());
        fnv1a(seed.as_bytes())
            ^ fnv1a(encoded.as_bytes()).rotate_left(29)
            ^ (record.at as u64).rotate_left(17)
    }

    /// The checks `ScopedStore::check_op` makes in the Rust host: the
    /// scope of every written record and event lies inside the principal.
    fn check_op(&self, principal: &Principal, op: &WriteOp) -> Result<(), StoreError> {
        let deny = |scope| match crate::filter::denial(principal, scope) {
            None => Ok(()),
            Some(why) => Err(StoreError::Denied(why)),
        };
        match op {
            WriteOp::Insert(i) => deny(&i.memory.scope),
            WriteOp::Append(e) => deny(&e.scope),
            WriteOp::ScrubEvents(s) => deny(&s.scope),
            // Owned by the principal or narrower: a user-pinned guest can
            // never block another user (or the whole tenant).
            WriteOp::Tombstone(t) => {
                deny(&t.scope)?;
                if t.scope.thread.is_some() || t.scope.agent.is_some() {
                    return Err(StoreError::Invalid(
                        "a tombstone is owned by a tenant, user and project: its thread and agent must be unset".into(),
                    ));
                }
                Ok(())
            }
            // Bounded to the principal's own records by the plan: an update
            // outside it, or naming another scope than the stored
            // revision's, finds nothing (`conflict`, as SQLite answers).
            WriteOp::Update(_) | WriteOp::Erase(_) | WriteOp::Touch(_) => Ok(()),
        }
    }
}

/// Is any marker old enough to collect? (Read only when nothing is deleted.)
fn has_garbage_due<K: Kv>(view: &View<K>, now: i64) -> Result<bool, Fail> {
    let g: crate::model::Garbage = view.one(&view.layout.gc())?;
    Ok(g.markers
        .first()
        .is_some_and(|(_, at)| now - *at >= GARBAGE_HORIZON_MS))
}
