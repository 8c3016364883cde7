//! An in-memory `Store` with the same semantics the hosts' stores promise:
//! principal checks, pushed-down filters, term search, all-or-nothing
//! commits with compare-and-swap and the one-active-revision-per-key rule.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use crate::core::model::{principal_covers, scope_denial, scope_visible, semantic_key};
use crate::core::store::Store;
use crate::types::{Datetime, Memory, Scope, Status};
use crate::wit_store::{
    Event, Filter, Principal, Receipt, ScopeMatch, StoreError, Stored, TermStats, Tombstone,
    WeightedTerm, WriteOp,
};

#[derive(Clone, Default)]
struct State {
    /// (id, revision) → (stored, index terms with repeats)
    rows: BTreeMap<(String, u32), (Stored, Vec<String>)>,
    events: Vec<(String, u64, crate::wit_store::Event)>,
    tombstones: Vec<Tombstone>,
    next_etag: u64,
}

pub struct MemStore {
    principal: Principal,
    /// The deployment secret fingerprint keys are derived from.
    secret: [u8; 32],
    state: RefCell<State>,
    /// Records handed to the guest so far (tests assert bounded reads).
    pub reads: RefCell<u64>,
}

impl MemStore {
    pub fn new(principal: Principal) -> Self {
        MemStore {
            principal,
            secret: [7; 32],
            state: RefCell::new(State::default()),
            reads: RefCell::new(0),
        }
    }

    /// A store for one whole tenant.
    pub fn for_tenant(tenant: &str) -> Self {
        Self::new(Principal {
            tenant: tenant.to_string(),
            user: None,
            project: None,
        })
    }

    /// The same store seen by another principal (tests of scoping): the
    /// data and the secret are shared.
    pub fn as_principal(&self, principal: Principal) -> MemStore {
        MemStore {
            principal,
            secret: self.secret,
            state: RefCell::new(self.state.borrow().clone()),
            reads: RefCell::new(0),
        }
    }

    /// Every tombstone stored, for tests.
    pub fn all_tombstones(&self) -> Vec<Tombstone> {
        self.state.borrow().tombstones.clone()
    }

    /// Every appended event (session, sequence, event), for tests.
    pub fn events(&self) -> Vec<(String, u64, crate::wit_store::Event)> {
        self.state.borrow().events.clone()
    }

    fn check(&self, scope: &Scope) -> Result<(), StoreError> {
        match scope_denial(&self.principal, scope) {
            None => Ok(()),
            Some(why) => Err(StoreError::Denied(why)),
        }
    }

    fn count_read(&self, n: usize) {
        *self.reads.borrow_mut() += n as u64;
    }
}

/// Does a memory pass a filter? The reference semantics of `filter`.
pub fn filter_matches(f: &Filter, m: &Memory) -> bool {
    let scope_ok = match f.scope_match {
        ScopeMatch::Exact => m.scope == f.scope,
        ScopeMatch::Visible => scope_visible(&m.scope, &f.scope),
        ScopeMatch::Within => crate::core::model::scope_within(&m.scope, &f.scope),
    };
    let key = semantic_key(m);
    scope_ok
        && (f.kinds.is_empty() || f.kinds.contains(&m.kind))
        && (f.statuses.is_empty() || f.statuses.contains(&m.status))
        && !(f.exclude_archived && m.status == Status::Archived)
        && f.valid_at
            .is_none_or(|t| crate::core::time::within(t, m.valid_from, m.valid_to))
        && f.sensitivity_max
            .is_none_or(|s| m.sensitivity.rank() <= s.rank())
        && f.subject
            .as_ref()
            .is_none_or(|s| key.is_some_and(|k| k.0 == s))
        && f.predicate
            .as_ref()
            .is_none_or(|p| key.is_some_and(|k| k.1 == p))
        && f.condition
            .as_ref()
            .is_none_or(|c| key.is_some_and(|k| k.2 == c.as_deref()))
        && f.source_ref.as_ref().is_none_or(|r| {
            m.provenance.source.reference.as_ref() == Some(r)
                || m.provenance.source_event_ids.contains(r)
        })
}

/// Newest first: by `updated-at`, then id, then revision.
fn newest_first(a: &Stored, b: &Stored) -> std::cmp::Ordering {
    b.memory
        .updated_at
        .epoch_ms
        .cmp(&a.memory.updated_at.epoch_ms)
        .then_with(|| a.memory.id.cmp(&b.memory.id))
        .then_with(|| b.memory.revision.cmp(&a.memory.revision))
}

impl Store for MemStore {
    fn principal(&self) -> Principal {
        self.principal.clone()
    }

    fn find(&self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        self.check(&filter.scope)?;
        let st = self.state.borrow();
        let mut out: Vec<Stored> = st
            .rows
            .values()
            .filter(|(s, _)| filter_matches(filter, &s.memory))
            .map(|(s, _)| s.clone())
            .collect();
        out.sort_by(newest_first);
        out.truncate(limit as usize);
        self.count_read(out.len());
        Ok(out)
    }

    fn revisions(&self, id: &str) -> Result<Vec<Stored>, StoreError> {
        let st = self.state.borrow();
        let out: Vec<Stored> = st
            .rows
            .values()
            .filter(|(s, _)| {
                s.memory.id == id && principal_covers(&self.principal, &s.memory.scope)
            })
            .map(|(s, _)| s.clone())
            .collect();
        self.count_read(out.len());
        Ok(out)
    }

    fn stats(&self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        self.check(&filter.scope)?;
        let st = self.state.borrow();
        let docs: Vec<&(Stored, Vec<String>)> = st
            .rows
            .values()
            .filter(|(s, _)| filter_matches(filter, &s.memory))
            .collect();
        let n = docs.len() as u64;
        let total: u64 = docs.iter().map(|(s, _)| s.length as u64).sum();
        let frequencies = terms
            .iter()
            .map(|t| docs.iter().filter(|(_, ts)| ts.contains(t)).count() as u64)
            .collect();
        Ok(TermStats {
            documents: n,
            average_length: if n == 0 { 0.0 } else { total as f64 / n as f64 },
            frequencies,
        })
    }

    fn search(
        &self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        self.check(&filter.scope)?;
        let st = self.state.borrow();
        let mut scored: Vec<(f64, &Stored, &Vec<String>)> = st
            .rows
            .values()
            .filter(|(s, _)| filter_matches(filter, &s.memory))
            .filter_map(|(s, ts)| {
                let w: f64 = terms
                    .iter()
                    .filter(|t| ts.contains(&t.term))
                    .map(|t| t.weight)
                    .sum();
                let matched = terms.iter().any(|t| ts.contains(&t.term));
                matched.then_some((w, s, ts))
            })
            .collect();
        scored.sort_by(|a, b| {
            b.0.partial_cmp(&a.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.1.memory.id.cmp(&b.1.memory.id))
                .then_with(|| a.1.memory.revision.cmp(&b.1.memory.revision))
        });
        let out: Vec<Stored> = scored
            .into_iter()
            .take(limit as usize)
            .map(|(_, s, ts)| Stored {
                frequencies: terms
                    .iter()
                    .map(|t| ts.iter().filter(|x| **x == t.term).count() as u32)
                    .collect(),
                ..s.clone()
            })
            .collect();
        self.count_read(out.len());
        Ok(out)
    }

    fn commit(&self, ops: &[WriteOp]) -> Result<Receipt, StoreError> {
        let mut next = self.state.borrow().clone();
        let mut receipt = Receipt {
            sequences: Vec::new(),
            etags: Vec::new(),
        };
        for op in ops {
            match op {
                WriteOp::Insert(ins) => {
                    self.check(&ins.memory.scope)?;
                    let key = (ins.memory.id.clone(), ins.memory.revision);
                    if next.rows.contains_key(&key) {
                        return Err(StoreError::Conflict(format!(
                            "revision {} of {} already exists",
                            key.1, key.0
                        )));
                    }
                    next.next_etag += 1;
                    let stored = Stored {
                        memory: ins.memory.clone(),
                        etag: next.next_etag,
                        length: ins.index_terms.len() as u32,
                        frequencies: Vec::new(),
                    };
                    receipt.etags.push(stored.etag);
                    next.rows.insert(key, (stored, ins.index_terms.clone()));
                }
                WriteOp::Update(up) => {
                    self.check(&up.memory.scope)?;
                    let key = (up.memory.id.clone(), up.memory.revision);
                    // A revision never moves to another scope.
                    let Some((cur, _)) = next
                        .rows
                        .get(&key)
                        .filter(|(cur, _)| cur.memory.scope == up.memory.scope)
                    else {
                        return Err(StoreError::Conflict(format!(
                            "revision {} of {} does not exist",
                            key.1, key.0
                        )));
                    };
                    if cur.etag != up.expected_etag {
                        return Err(StoreError::Conflict(format!(
                            "{} revision {} changed (etag {} != expected {})",
                            key.0, key.1, cur.etag, up.expected_etag
                        )));
                    }
                    next.next_etag += 1;
                    let stored = Stored {
                        memory: up.memory.clone(),
                        etag: next.next_etag,
                        length: up.index_terms.len() as u32,
                        frequencies: Vec::new(),
                    };
                    receipt.etags.push(stored.etag);
                    next.rows.insert(key, (stored, up.index_terms.clone()));
                }
                WriteOp::Erase(id) => {
                    let keys: Vec<_> = next
                        .rows
                        .iter()
                        .filter(|(k, _)| &k.0 == id)
                        .map(|(k, (s, _))| (k.clone(), s.memory.scope.clone()))
                        .collect();
                    for (k, scope) in keys {
                        self.check(&scope)?;
                        next.rows.remove(&k);
                    }
                }
                WriteOp::ScrubEvents(scrub) => {
                    self.check(&scrub.scope)?;
                    if scrub.fragment.is_empty() {
                        continue;
                    }
                    for (_, _, e) in next.events.iter_mut() {
                        if crate::core::model::scope_within(&e.scope, &scrub.scope) {
                            e.payload = e.payload.replace(scrub.fragment.as_str(), "[erased]");
                        }
                    }
                }
                WriteOp::Tombstone(t) => {
                    self.check(&t.scope)?;
                    if t.scope.thread.is_some() || t.scope.agent.is_some() {
                        return Err(StoreError::Invalid(
                            "a tombstone's scope has no thread or agent".into(),
                        ));
                    }
                    let seen = next.tombstones.iter().any(|x| {
                        x.scope == t.scope && x.fingerprint == t.fingerprint && x.length == t.length
                    });
                    if !seen {
                        next.tombstones.push(t.clone());
                    }
                }
                WriteOp::Append(e) => {
                    self.check(&e.scope)?;
                    let seq = next
                        .events
                        .iter()
                        .filter(|(s, _, _)| s == &e.session)
                        .count() as u64
                        + 1;
                    receipt.sequences.push(seq);
                    next.events.push((e.session.clone(), seq, e.clone()));
                }
                WriteOp::Touch(a) => {
                    let r = &a.memory;
                    if let Some((s, _)) = next.rows.get_mut(&(r.id.clone(), r.revision)) {
                        if principal_covers(&self.principal, &s.memory.scope) {
                            s.memory.access_count += 1;
                            s.memory.last_accessed = Some(a.at);
                        }
                    }
                }
            }
        }
        check_one_active_per_key(&next)?;
        *self.state.borrow_mut() = next;
        Ok(receipt)
    }

    fn tombstones(&self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        self.check(scope)?;
        let mut out: Vec<Tombstone> = self
            .state
            .borrow()
            .tombstones
            .iter()
            .filter(|t| owner_visible(&t.scope, scope))
            .cloned()
            .collect();
        out.sort_by(|a, b| {
            a.created_at
                .epoch_ms
                .cmp(&b.created_at.epoch_ms)
                .then_with(|| a.fingerprint.cmp(&b.fingerprint))
        });
        Ok(out)
    }

    fn fingerprint_key(&self, scope: &Scope) -> Result<Vec<u8>, StoreError> {
        if !crate::core::model::principal_sees_owner(&self.principal, scope) {
            return Err(StoreError::Denied(
                "the fingerprint key of an owner this principal cannot see".into(),
            ));
        }
        Ok(engram_contract::owner::derive_key(&self.secret, scope).to_vec())
    }

    fn count_events(&self, scope: &Scope, kind: &str, since: Datetime) -> Result<u64, StoreError> {
        self.check(scope)?;
        Ok(self
            .state
            .borrow()
            .events
            .iter()
            .filter(|(_, _, e)| {
                e.kind == kind && e.scope == *scope && e.at.epoch_ms >= since.epoch_ms
            })
            .count() as u64)
    }

    fn session_log(
        &self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError> {
        self.check(scope)?;
        let mut out: Vec<(u64, Event)> = self
            .state
            .borrow()
            .events
            .iter()
            .filter(|(s, _, e)| s == session && e.kind == kind && scope_visible(&e.scope, scope))
            .map(|(_, seq, e)| (*seq, e.clone()))
            .collect();
        out.sort_by_key(|(seq, _)| *seq);
        Ok(out.into_iter().map(|(_, e)| e).collect())
    }
}

/// Can a candidate in `scope` see content owned by `owner` (tenant equal;
/// user and project of the owner unset or equal)?
fn owner_visible(owner: &Scope, scope: &Scope) -> bool {
    owner.tenant == scope.tenant
        && (owner.user.is_none() || owner.user == scope.user)
        && (owner.project.is_none() || owner.project == scope.project)
}

/// The store-level invariant: at most one active revision per semantic key.
fn check_one_active_per_key(st: &State) -> Result<(), StoreError> {
    let mut seen = BTreeSet::new();
    for (s, _) in st.rows.values() {
        let m = &s.memory;
        if m.status != Status::Active {
            continue;
        }
        if let Some((subj, pred, cond)) = semantic_key(m) {
            let key = (format!("{:?}", m.scope), subj, pred, cond);
            if !seen.insert(key) {
                return Err(StoreError::Conflict(format!(
                    "a second active revision of ({subj}, {pred}) would result"
                )));
            }
        }
    }
    Ok(())
}
