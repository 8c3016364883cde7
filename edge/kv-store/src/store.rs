//! The `store` interface over a bucket: the principal a request acts for,
//! and the read operations (find, revisions, stats, search, tombstones,
//! count-events), each a consistent read at one head version. Commits are
//! in `commit`.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use crate::bindings::exports::engram::memory::store::{
    Event, Filter, Principal, StoreError, Stored, TermStats, Tombstone, WeightedTerm,
};
use crate::filter::{class_matches, covers, denial, needs_rows, row_matches};

use crate::kv::Kv;
use crate::layout::{Layout, EVENT_CHUNK};
use crate::model::{
    Docs, EventChunk, EventCounts, EventMinute, EventsMeta, PostingsValue, Record, Row, RowShard,
    SessionIndex, Tombstones,
};
use crate::types::{Datetime, Scope};
use crate::view::{Fail, View};

/// How often a read starts again because commits kept landing under it.
const READ_ATTEMPTS: usize = 16;

/// The store of one component instance: the bucket, who it acts for, and
/// the wall clock (garbage collection, commit ages).
pub struct KvStore<K: Kv> {
    pub kv: K,
    principal: RefCell<Option<Principal>>,
    pub wall_ms: fn() -> i64,
    /// Makes commit record names unique within this instance.
    pub(crate) nonce: Cell<u64>,
    /// Records handed out so far (tests assert bounded reads).
    pub reads: Cell<u64>,
    /// The fingerprint secret as the deployment configured it (`secret`).
    secret: RefCell<crate::secret::Configured>,
    /// The sessions `session-log` read since the store was opened, with
    /// the last sequence each had: a commit appending to one that has
    /// gained events since is a `conflict` (`plan::Plan::guards`), so a
    /// policy that read a log and writes after it never races another
    /// instance.
    pub(crate) read_sessions: RefCell<BTreeMap<String, u64>>,
}

/// The canonical text of an event's (scope, kind): every dimension,
/// unset distinct from empty.
pub fn event_canonical(scope: &Scope, kind: &str) -> String {
    serde_json::json!([scope.user, scope.project, scope.thread, scope.agent, kind]).to_string()
}

impl<K: Kv> KvStore<K> {
    pub fn new(kv: K, wall_ms: fn() -> i64) -> Self {
        KvStore {
            kv,
            principal: RefCell::new(None),
            wall_ms,
            nonce: Cell::new(0),
            reads: Cell::new(0),
            secret: RefCell::new(crate::secret::from_env(None)),
            read_sessions: RefCell::new(BTreeMap::new()),
        }
    }

    /// The fingerprint secret from the deployment (`secret::from_env`).
    pub fn set_secret(&self, configured: crate::secret::Configured) {
        *self.secret.borrow_mut() = configured;
    }

    /// The secret, checked against the bucket's key id: erasure refuses to
    /// run without it or with another one.
    pub(crate) fn secret(&self) -> Result<Vec<u8>, StoreError> {
        crate::secret::checked(&self.kv, &self.secret.borrow())
    }

    /// The key of content owned by `scope`'s tenant, user and project:
    /// only for owners the principal can see, never another user's.
    pub fn fingerprint_key(&self, scope: &Scope) -> Result<Vec<u8>, StoreError> {
        let p = self.principal()?;
        let owner = owner_of(scope);
        let contract_owner = engram_contract::types::Scope {
            tenant: owner.tenant.clone(),
            user: owner.user.clone(),
            project: owner.project.clone(),
            thread: None,
            agent: None,
        };
        if !engram_contract::owner::sees_owner(
            &p.tenant,
            p.user.as_deref(),
            p.project.as_deref(),
            &contract_owner,
        ) {
            return Err(StoreError::Denied(denial(&p, &owner).unwrap_or_else(
                || "that owner is outside this store handle's principal".into(),
            )));
        }
        let secret = self.secret()?;
        Ok(engram_contract::owner::derive_key(&secret, &contract_owner).to_vec())
    }

    pub fn open(&self, p: Principal) {
        *self.principal.borrow_mut() = Some(p);
        self.read_sessions.borrow_mut().clear();
    }

    pub fn close(&self) {
        *self.principal.borrow_mut() = None;
        self.read_sessions.borrow_mut().clear();
    }

    /// The principal, or `denied` when no request opened the store.
    pub fn principal(&self) -> Result<Principal, StoreError> {
        self.principal.borrow().clone().ok_or_else(|| {
            StoreError::Denied("the store is not open for any principal".to_string())
        })
    }

    /// What `current-principal` answers: an empty tenant when closed, which
    /// no scope matches.
    pub fn current_principal(&self) -> Principal {
        self.principal.borrow().clone().unwrap_or(Principal {
            tenant: String::new(),
            user: None,
            project: None,
        })
    }

    pub(crate) fn check(&self, scope: &Scope) -> Result<Principal, StoreError> {
        let p = self.principal()?;
        match denial(&p, scope) {
            None => Ok(p),
            Some(why) => Err(StoreError::Denied(why)),
        }
    }

    /// Run `f` on a view of `tenant` at its current head, again while
    /// commits land under it.
    pub(crate) fn read<R>(
        &self,
        tenant: &str,
        f: impl Fn(&View<K>) -> Result<R, Fail>,
    ) -> Result<R, StoreError> {
        let layout = Layout::new(tenant);
        for _ in 0..READ_ATTEMPTS {
            let head = self.settled_head(&layout)?;
            let view = View {
                kv: &self.kv,
                layout: layout.clone(),
                head,
            };
            match f(&view) {
                Ok(r) => return Ok(r),
                Err(Fail::Newer) => continue,
                Err(Fail::Store(e)) => return Err(e),
            }
        }
        Err(StoreError::Backend(format!(
            "key-value store: commits kept landing during a read of tenant '{tenant}' ({READ_ATTEMPTS} attempts)"
        )))
    }

    fn count_read(&self, n: usize) {
        self.reads.set(self.reads.get() + n as u64);
    }

    pub fn find(&self, filter: &Filter, limit: u32) -> Result<Vec<Stored>, StoreError> {
        self.check(&filter.scope)?;
        let out = self.read(&filter.scope.tenant, |v| {
            let mut rows: Vec<Row> = all_rows(v)?
                .into_iter()
                .filter(|r| row_matches(filter, r))
                .collect();
            rows.sort_by(|a, b| {
                b.updated_at
                    .cmp(&a.updated_at)
                    .then_with(|| a.id.cmp(&b.id))
                    .then_with(|| b.rev.cmp(&a.rev))
            });
            rows.truncate(limit as usize);
            records(v, &rows)
        })?;
        self.count_read(out.len());
        Ok(out)
    }

    pub fn revisions(&self, id: &str) -> Result<Vec<Stored>, StoreError> {
        let p = self.principal()?;
        let out = self.read(&p.tenant, |v| {
            let shard: RowShard = v.one(&v.layout.rows(Layout::row_shard_of(id)))?;
            let rows: Vec<Row> = shard
                .rows
                .into_iter()
                .filter(|r| r.id == id && covers(&p, &r.scope))
                .collect();
            records(v, &rows)
        })?;
        self.count_read(out.len());
        Ok(out)
    }

    pub fn stats(&self, filter: &Filter, terms: &[String]) -> Result<TermStats, StoreError> {
        self.check(&filter.scope)?;
        self.read(&filter.scope.tenant, |v| {
            let lists = postings(v, terms)?;
            if needs_rows(filter) {
                let by_rid: BTreeMap<u64, Row> = all_rows(v)?
                    .into_iter()
                    .filter(|r| row_matches(filter, r))
                    .map(|r| (r.rid, r))
                    .collect();
                let n = by_rid.len() as u64;
                let total: u64 = by_rid.values().map(|r| r.length as u64).sum();
                let frequencies = lists
                    .iter()
                    .map(|l| l.iter().filter(|p| by_rid.contains_key(&p.0)).count() as u64)
                    .collect();
                return Ok(term_stats(n, total, frequencies));
            }
            let docs: Docs = v.one(&v.layout.docs())?;
            let (mut n, mut total) = (0u64, 0u64);
            for c in docs.classes.values().filter(|c| class_matches(filter, c)) {
                n += c.count;
                total += c.length;
            }
            let ok = |class: u32| {
                docs.classes
                    .get(&class)
                    .is_some_and(|c| class_matches(filter, c))
            };
            let frequencies = lists
                .iter()
                .map(|l| l.iter().filter(|p| ok(p.4)).count() as u64)
                .collect();
            Ok(term_stats(n, total, frequencies))
        })
    }

    pub fn search(
        &self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        self.check(&filter.scope)?;
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let asked: Vec<String> = terms.iter().map(|t| t.term.clone()).collect();
        let out = self.read(&filter.scope.tenant, |v| {
            let lists = postings(v, &asked)?;
            let rows_only = needs_rows(filter);
            let eligible: Box<dyn Fn(&crate::model::Posting) -> bool> = if rows_only {
                let rids: std::collections::BTreeSet<u64> = all_rows(v)?
                    .into_iter()
                    .filter(|r| row_matches(filter, r))
                    .map(|r| r.rid)
                    .collect();
                Box::new(move |p| rids.contains(&p.0))
            } else {
                let docs: Docs = v.one(&v.layout.docs())?;
                Box::new(move |p| {
                    docs.classes
                        .get(&p.4)
                        .is_some_and(|c| class_matches(filter, c))
                })
            };
            // Summed weights per row, in the order of the asked terms.
            let mut hits: BTreeMap<u64, (f64, String, u32)> = BTreeMap::new();
            for (t, list) in terms.iter().zip(&lists) {
                for p in list.iter().filter(|p| eligible(p)) {
                    hits.entry(p.0).or_insert_with(|| (0.0, p.1.clone(), p.2)).0 += t.weight;
                }
            }
            let mut hits: Vec<(u64, f64, String, u32)> = hits
                .into_iter()
                .map(|(rid, (s, id, rev))| (rid, s, id, rev))
                .collect();
            let by_score = |a: &(u64, f64, String, u32), b: &(u64, f64, String, u32)| {
                b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal)
            };
            // The cut keeps what SQLite keeps: ties by row order, or, for
            // row-column filters, by (id, revision).
            if rows_only {
                hits.sort_by(|a, b| by_score(a, b).then_with(|| (&a.2, a.3).cmp(&(&b.2, b.3))));
            } else {
                hits.sort_by(|a, b| by_score(a, b).then_with(|| a.0.cmp(&b.0)));
            }
            hits.truncate(limit as usize);
            hits.sort_by(|a, b| by_score(a, b).then_with(|| (&a.2, a.3).cmp(&(&b.2, b.3))));
            let keys: Vec<String> = hits.iter().map(|h| v.layout.memory(&h.2, h.3)).collect();
            let found: Vec<Option<Record>> = v.load(&keys)?;
            let mut out = Vec::with_capacity(hits.len());
            for (h, rec) in hits.iter().zip(found) {
                let Some(rec) = rec else {
                    // A posting without its record: a commit is landing.
                    return Err(Fail::Newer);
                };
                let frequencies = if rows_only {
                    Vec::new()
                } else {
                    lists
                        .iter()
                        .map(|l| {
                            l.binary_search_by_key(&h.0, |p| p.0)
                                .map(|i| l[i].3)
                                .unwrap_or(0)
                        })
                        .collect()
                };
                out.push(Stored {
                    frequencies,
                    ..stored(rec)
                });
            }
            Ok(out)
        })?;
        self.count_read(out.len());
        Ok(out)
    }

    /// The tombstones whose owner `scope` can see: its tenant, and user
    /// and project unset or equal (as SQLite selects them), oldest first.
    pub fn tombstones(&self, scope: &Scope) -> Result<Vec<Tombstone>, StoreError> {
        self.check(scope)?;
        let owner = owner_of(scope);
        self.read(&owner.tenant, |v| {
            let t: Tombstones = v.one(&v.layout.tombstones())?;
            let sees =
                |mine: &Option<String>, theirs: &Option<String>| theirs.is_none() || theirs == mine;
            Ok(t.list
                .into_iter()
                .filter(|t| {
                    t.scope.tenant == owner.tenant
                        && sees(&owner.user, &t.scope.user)
                        && sees(&owner.project, &t.scope.project)
                })
                .collect())
        })
    }

    pub fn count_events(
        &self,
        scope: &Scope,
        kind: &str,
        since: Datetime,
    ) -> Result<u64, StoreError> {
        self.check(scope)?;
        let canonical = event_canonical(scope, kind);
        let minute = since.epoch_ms.div_euclid(60_000);
        self.read(&scope.tenant, |v| {
            let counts: EventCounts = v.one(&v.layout.event_counts(&canonical))?;
            let Some(minutes) = counts.minutes.get(&canonical) else {
                return Ok(0);
            };
            let later: u64 = minutes.range(minute + 1..).map(|(_, n)| n).sum();
            let edge = if minutes.contains_key(&minute) {
                let m: EventMinute = v.one(&v.layout.event_minute(&canonical, minute))?;
                m.instants.get(&canonical).map_or(0, |ats| {
                    ats.iter().filter(|at| **at >= since.epoch_ms).count()
                }) as u64
            } else {
                0
            };
            Ok(later + edge)
        })
    }
}

impl<K: Kv> KvStore<K> {
    /// The events of `session` with `kind` whose scope `scope` can see
    /// (each dimension unset or equal), oldest first: the session's index
    /// names them; events appended before the index existed are read from
    /// their chunks.
    pub fn session_log(
        &self,
        scope: &Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<Event>, StoreError> {
        self.check(scope)?;
        let (last, mut events) = self.read(&scope.tenant, |v| {
            let meta: EventsMeta = v.one(&v.layout.events_meta())?;
            let unindexed = meta.indexed_from.unwrap_or(meta.count);
            let index: SessionIndex = v.one(&v.layout.session_index(session))?;
            let mut numbers: Vec<u64> = (0..unindexed).collect();
            if let Some(listed) = index.sessions.get(session) {
                numbers.extend(listed.iter().copied().filter(|n| *n >= unindexed));
            }
            let mut chunks: Vec<u64> = numbers.iter().map(|n| n / EVENT_CHUNK).collect();
            chunks.dedup();
            let keys: Vec<String> = chunks.iter().map(|c| v.layout.events_chunk(*c)).collect();
            let loaded: Vec<Option<EventChunk>> = v.load(&keys)?;
            let by_chunk: BTreeMap<u64, EventChunk> = chunks
                .into_iter()
                .zip(loaded)
                .filter_map(|(c, chunk)| chunk.map(|chunk| (c, chunk)))
                .collect();
            let mut out = Vec::new();
            for n in numbers {
                let Some((s, seq, e)) = by_chunk
                    .get(&(n / EVENT_CHUNK))
                    .and_then(|c| c.events.get((n % EVENT_CHUNK) as usize))
                else {
                    continue;
                };
                if s == session && e.kind == kind && visible(&e.scope, scope) {
                    out.push((*seq, e.clone()));
                }
            }
            let last = meta.sequences.get(session).copied().unwrap_or(0);
            Ok((last, out))
        })?;
        self.read_sessions
            .borrow_mut()
            .insert(session.to_string(), last);
        events.sort_by_key(|(seq, _)| *seq);
        Ok(events.into_iter().map(|(_, e)| e).collect())
    }
}

/// Can a caller in `scope` see an event of `event`'s scope: tenant equal,
/// every other dimension of the event unset or equal.
fn visible(event: &Scope, scope: &Scope) -> bool {
    fn dim(stored: &Option<String>, asked: &Option<String>) -> bool {
        stored.is_none() || stored == asked
    }
    event.tenant == scope.tenant
        && dim(&event.user, &scope.user)
        && dim(&event.project, &scope.project)
        && dim(&event.thread, &scope.thread)
        && dim(&event.agent, &scope.agent)
}

fn term_stats(documents: u64, total: u64, frequencies: Vec<u64>) -> TermStats {
    TermStats {
        documents,
        average_length: if documents == 0 {
            0.0
        } else {
            total as f64 / documents as f64
        },
        frequencies,
    }
}

/// Every row of the tenant.
pub(crate) fn all_rows<K: Kv>(v: &View<K>) -> Result<Vec<Row>, Fail> {
    let shards: Vec<Option<RowShard>> = v.load(&v.layout.all_rows())?;
    Ok(shards.into_iter().flatten().flat_map(|s| s.rows).collect())
}

/// The posting list of each term, in order (empty when nobody has it).
pub(crate) fn postings<K: Kv>(
    v: &View<K>,
    terms: &[String],
) -> Result<Vec<Vec<crate::model::Posting>>, Fail> {
    let mut keys: Vec<String> = terms.iter().map(|t| v.layout.postings(t)).collect();
    keys.sort();
    keys.dedup();
    let values: BTreeMap<String, PostingsValue> = keys
        .iter()
        .cloned()
        .zip(v.load::<PostingsValue>(&keys)?)
        .filter_map(|(k, p)| p.map(|p| (k, p)))
        .collect();
    Ok(terms
        .iter()
        .map(|t| {
            values
                .get(&v.layout.postings(t))
                .and_then(|p| p.terms.get(t))
                .cloned()
                .unwrap_or_default()
        })
        .collect())
}

/// The records of `rows`, in order; a row without its record means a
/// commit is landing.
fn records<K: Kv>(v: &View<K>, rows: &[Row]) -> Result<Vec<Stored>, Fail> {
    let keys: Vec<String> = rows.iter().map(|r| v.layout.memory(&r.id, r.rev)).collect();
    let mut out = Vec::with_capacity(rows.len());
    for rec in v.load::<Record>(&keys)? {
        out.push(stored(rec.ok_or(Fail::Newer)?));
    }
    Ok(out)
}

fn stored(rec: Record) -> Stored {
    Stored {
        memory: rec.memory,
        etag: rec.etag,
        length: rec.length,
        frequencies: Vec::new(),
    }
}

/// The owner of content in `scope`: its tenant, user and project
/// (`engram_contract::owner::owner_of` on this component's own types).
pub fn owner_of(scope: &Scope) -> Scope {
    Scope {
        tenant: scope.tenant.clone(),
        user: scope.user.clone(),
        project: scope.project.clone(),
        thread: None,
        agent: None,
    }
}
