//! One commit's ops turned into the final values of the keys they change,
//! read at one head version: the same checks and effects as SQLite's
//! `apply_ops` (an insert of an existing revision, an update on a stale
//! etag or a second active revision of a semantic key is a `conflict`, and
//! nothing is written). The write set is then committed by `commit`.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::bindings::exports::engram::memory::store::{
    Event, Principal, Receipt, StoreError, Tombstone, WriteOp,
};
use crate::filter::covers;
use crate::kv::Kv;
use crate::layout::{Layout, EVENT_CHUNK};
use crate::model::{
    Class, Docs, EventChunk, EventCounts, EventMinute, EventsMeta, Garbage, Gone, KeyIndex,
    PostingsValue, Record, Row, RowShard, SessionIndex, Tombstones,
};
use crate::store::event_canonical;
use crate::types::{Datetime, Memory, MemoryKind, Payload, Scope, Status};
use crate::view::{encode, Fail, View};

/// Loaded values, changed in place; `None` = absent or deleted.
struct Slots<T> {
    values: BTreeMap<String, Option<T>>,
    dirty: BTreeSet<String>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            values: BTreeMap::new(),
            dirty: BTreeSet::new(),
        }
    }
}

impl<T: DeserializeOwned + Serialize> Slots<T> {
    /// Make sure `keys` are loaded (one round trip for the missing ones).
    fn fetch<K: Kv>(&mut self, v: &View<K>, keys: &[String]) -> Result<(), Fail> {
        let missing: Vec<String> = keys
            .iter()
            .filter(|k| !self.values.contains_key(*k))
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for (k, val) in missing.iter().cloned().zip(v.load::<T>(&missing)?) {
            self.values.insert(k, val);
        }
        Ok(())
    }

    fn get<K: Kv>(&mut self, v: &View<K>, key: &str) -> Result<Option<&T>, Fail> {
        self.fetch(v, &[key.to_string()])?;
        Ok(self.values.get(key).and_then(Option::as_ref))
    }

    /// The value to change (its default when absent), marked written.
    fn edit<K: Kv>(&mut self, v: &View<K>, key: &str) -> Result<&mut T, Fail>
    where
        T: Default,
    {
        self.fetch(v, &[key.to_string()])?;
        self.dirty.insert(key.to_string());
        Ok(self
            .values
            .get_mut(key)
            .expect("fetched above")
            .get_or_insert_with(T::default))
    }

    fn put(&mut self, key: String, value: Option<T>) {
        self.dirty.insert(key.clone());
        self.values.insert(key, value);
    }

    /// The final (stamped) text of every written key; `None` = deleted.
    fn drain(self, version: u64, out: &mut Vec<(String, Option<String>)>) -> Result<(), StoreError>
    where
        T: Stamped,
    {
        let Slots { mut values, dirty } = self;
        for key in dirty {
            match values.remove(&key).flatten() {
                Some(mut value) => {
                    if value.is_empty() {
                        out.push((key, None));
                    } else {
                        value.set_v(version);
                        out.push((key, Some(encode(&value)?)));
                    }
                }
                None => out.push((key, None)),
            }
        }
        Ok(())
    }
}

/// A stored value's version stamp; an empty value is deleted instead.
pub trait Stamped {
    fn set_v(&mut self, v: u64);
    fn is_empty(&self) -> bool {
        false
    }
}

macro_rules! stamped {
    ($($t:ty => $empty:expr),* $(,)?) => {$(
        impl Stamped for $t {
            fn set_v(&mut self, v: u64) { self.v = v; }
            fn is_empty(&self) -> bool { let f: fn(&$t) -> bool = $empty; f(self) }
        }
    )*};
}

stamped! {
    RowShard => |_| false,
    Record => |_| false,
    PostingsValue => |p| p.terms.is_empty(),
    Docs => |_| false,
    KeyIndex => |k| k.active.is_empty(),
    Tombstones => |_| false,
    EventsMeta => |_| false,
    EventChunk => |_| false,
    EventCounts => |_| false,
    EventMinute => |_| false,
    SessionIndex => |_| false,
    Garbage => |_| false,
}

/// The canonical form of a semantic key in a scope (unset = empty, as
/// SQLite's unique index has it).
fn key_canonical(m: &Memory) -> Option<String> {
    if m.kind != MemoryKind::Semantic {
        return None;
    }
    let Payload::Semantic(p) = &m.payload else {
        return None;
    };
    let s = &m.scope;
    let d = |o: &Option<String>| o.clone().unwrap_or_default();
    Some(
        serde_json::json!([
            d(&s.user),
            d(&s.project),
            d(&s.thread),
            d(&s.agent),
            p.subject,
            p.predicate,
            d(&p.condition)
        ])
        .to_string(),
    )
}

fn semantic_key(m: &Memory) -> Option<(String, String, Option<String>)> {
    match &m.payload {
        Payload::Semantic(p) => Some((p.subject.clone(), p.predicate.clone(), p.condition.clone())),
        _ => None,
    }
}

/// Distinct terms with their counts, sorted.
fn term_counts(terms: &[String]) -> Vec<(String, u32)> {
    let mut sorted: Vec<&String> = terms.iter().collect();
    sorted.sort_unstable();
    let mut out: Vec<(String, u32)> = Vec::new();
    for t in sorted {
        match out.last_mut() {
            Some((last, n)) if last == t => *n += 1,
            _ => out.push((t.clone(), 1)),
        }
    }
    out
}

/// A commit being planned at one head version.
pub struct Plan<'v, 'a, K: Kv> {
    v: &'v View<'a, K>,
    principal: Principal,
    now_ms: i64,
    rows: Slots<RowShard>,
    records: Slots<Record>,
    postings: Slots<PostingsValue>,
    docs: Slots<Docs>,
    keys: Slots<KeyIndex>,
    tombstones: Slots<Tombstones>,
    events_meta: Slots<EventsMeta>,
    chunks: Slots<EventChunk>,
    counts: Slots<EventCounts>,
    minutes: Slots<EventMinute>,
    sessions: Slots<SessionIndex>,
    garbage: Slots<Garbage>,
    /// Sessions read with `session-log` by this handle, with the last
    /// sequence each had then: an append to one that has gained events
    /// since is a `conflict` (the policy reads and plans again).
    pub guards: BTreeMap<String, u64>,
    /// Semantic keys whose active revisions changed (checked at the end).
    touched_keys: BTreeSet<String>,
    pub receipt: Receipt,
}

impl<'v, 'a, K: Kv> Plan<'v, 'a, K> {
    pub fn new(v: &'v View<'a, K>, principal: Principal, now_ms: i64) -> Self {
        Plan {
            v,
            principal,
            now_ms,
            rows: Slots::default(),
            records: Slots::default(),
            postings: Slots::default(),
            docs: Slots::default(),
            keys: Slots::default(),
            tombstones: Slots::default(),
            events_meta: Slots::default(),
            chunks: Slots::default(),
            counts: Slots::default(),
            minutes: Slots::default(),
            sessions: Slots::default(),
            garbage: Slots::default(),
            guards: BTreeMap::new(),
            touched_keys: BTreeSet::new(),
            receipt: Receipt {
                sequences: Vec::new(),
                etags: Vec::new(),
            },
        }
    }

    fn layout(&self) -> &Layout {
        &self.v.layout
    }

    /// Apply every op in order, then the one-active-revision rule.
    pub fn apply(&mut self, ops: &[WriteOp]) -> Result<(), Fail> {
        self.prefetch(ops)?;
        for op in ops {
            match op {
                WriteOp::Insert(i) => self.insert(&i.memory, &i.index_terms)?,
                WriteOp::Update(u) => self.update(&u.memory, &u.index_terms, u.expected_etag)?,
                WriteOp::Erase(id) => self.erase(id)?,
                WriteOp::ScrubEvents(s) => self.scrub(&s.scope, &s.fragment)?,
                WriteOp::Tombstone(t) => self.tombstone(t)?,
                WriteOp::Append(e) => self.append(e)?,
                WriteOp::Touch(a) => self.touch(&a.memory.id, a.memory.revision, a.at)?,
            }
        }
        self.check_one_active()
    }

    /// Load in few round trips what the ops will read: their row shards
    /// and the postings of the terms they write.
    fn prefetch(&mut self, ops: &[WriteOp]) -> Result<(), Fail> {
        let l = self.layout().clone();
        let mut shards = Vec::new();
        let mut terms = Vec::new();
        for op in ops {
            match op {
                WriteOp::Insert(i) => {
                    shards.push(l.rows(Layout::row_shard_of(&i.memory.id)));
                    terms.extend(i.index_terms.iter().map(|t| l.postings(t)));
                }
                WriteOp::Update(u) => {
                    shards.push(l.rows(Layout::row_shard_of(&u.memory.id)));
                    terms.extend(u.index_terms.iter().map(|t| l.postings(t)));
                }
                WriteOp::Erase(id) => shards.push(l.rows(Layout::row_shard_of(id))),
                WriteOp::Touch(a) => shards.push(l.rows(Layout::row_shard_of(&a.memory.id))),
                _ => {}
            }
        }
        self.rows.fetch(self.v, &shards)?;
        self.postings.fetch(self.v, &terms)?;
        Ok(())
    }

    fn find_row(&mut self, id: &str, rev: u32) -> Result<Option<Row>, Fail> {
        let key = self.layout().rows(Layout::row_shard_of(id));
        Ok(self
            .rows
            .get(self.v, &key)?
            .and_then(|s| s.rows.iter().find(|r| r.id == id && r.rev == rev).cloned()))
    }

    /// Put `row` in its shard (replacing its revision), or remove it.
    fn set_row(&mut self, id: &str, rev: u32, row: Option<Row>) -> Result<(), Fail> {
        let key = self.layout().rows(Layout::row_shard_of(id));
        let shard = self.rows.edit(self.v, &key)?;
        shard.rows.retain(|r| !(r.id == id && r.rev == rev));
        if let Some(row) = row {
            let at = shard
                .rows
                .partition_point(|r| (r.id.as_str(), r.rev) < (row.id.as_str(), row.rev));
            shard.rows.insert(at, row);
        }
        Ok(())
    }

    /// The class of a memory's filter columns (made when new), counted.
    fn enter_class(&mut self, m: &Memory, length: u32) -> Result<u32, Fail> {
        let docs = self.docs.edit(self.v, &self.v.layout.docs())?;
        let wanted = Class {
            user: m.scope.user.clone(),
            project: m.scope.project.clone(),
            thread: m.scope.thread.clone(),
            agent: m.scope.agent.clone(),
            kind: m.kind,
            status: m.status,
            sensitivity: m.sensitivity,
            valid_from: m.valid_from.map(|d| d.epoch_ms),
            valid_to: m.valid_to.map(|d| d.epoch_ms),
            count: 0,
            length: 0,
        };
        let same = |c: &Class| {
            Class {
                count: 0,
                length: 0,
                ..c.clone()
            } == wanted
        };
        let id = match docs.classes.iter().find(|(_, c)| same(c)) {
            Some((id, _)) => *id,
            None => {
                let id = docs.next_class;
                docs.next_class += 1;
                docs.classes.insert(id, wanted);
                id
            }
        };
        let c = docs.classes.get_mut(&id).expect("present");
        c.count += 1;
        c.length += length as u64;
        Ok(id)
    }

    fn leave_class(&mut self, class: u32, length: u32) -> Result<(), Fail> {
        let docs = self.docs.edit(self.v, &self.v.layout.docs())?;
        if let Some(c) = docs.classes.get_mut(&class) {
            c.count = c.count.saturating_sub(1);
            c.length = c.length.saturating_sub(length as u64);
            if c.count == 0 {
                docs.classes.remove(&class);
            }
        }
        Ok(())
    }

    fn next_rid(&mut self) -> Result<u64, Fail> {
        let docs = self.docs.edit(self.v, &self.v.layout.docs())?;
        docs.next_rid += 1;
        Ok(docs.next_rid)
    }

    fn add_postings(&mut self, row: &Row, terms: &[(String, u32)]) -> Result<(), Fail> {
        for (term, tf) in terms {
            let key = self.layout().postings(term);
            let value = self.postings.edit(self.v, &key)?;
            let list = value.terms.entry(term.clone()).or_default();
            let at = list.partition_point(|p| p.0 < row.rid);
            list.insert(at, (row.rid, row.id.clone(), row.rev, *tf, row.class));
        }
        Ok(())
    }

    fn remove_postings(&mut self, rid: u64, terms: &[(String, u32)]) -> Result<(), Fail> {
        for (term, _) in terms {
            let key = self.layout().postings(term);
            let value = self.postings.edit(self.v, &key)?;
            if let Some(list) = value.terms.get_mut(term) {
                list.retain(|p| p.0 != rid);
                if list.is_empty() {
                    value.terms.remove(term);
                }
            }
        }
        Ok(())
    }

    fn index_key(&mut self, m: &Memory, add: bool) -> Result<(), Fail> {
        if m.status != Status::Active {
            return Ok(());
        }
        let Some(canonical) = key_canonical(m) else {
            return Ok(());
        };
        let key = self.layout().key_index(&canonical);
        let index = self.keys.edit(self.v, &key)?;
        let holders = index.active.entry(canonical.clone()).or_default();
        holders.retain(|(id, rev)| !(id == &m.id && *rev == m.revision));
        if add {
            holders.push((m.id.clone(), m.revision));
        }
        if holders.is_empty() {
            index.active.remove(&canonical);
        }
        self.touched_keys.insert(canonical);
        Ok(())
    }

    /// Write a revision (new, or replacing `old`) with its row, postings,
    /// class and key.
    fn write(
        &mut self,
        m: &Memory,
        terms: &[String],
        etag: u64,
        old: Option<(Row, Record)>,
    ) -> Result<(), Fail> {
        let counts = term_counts(terms);
        let length = terms.len() as u32;
        let mut memory = m.clone();
        let rid = match &old {
            Some((row, rec)) => {
                // As SQLite: the access count is the store's, not the body's.
                memory.access_count = rec.memory.access_count;
                self.remove_postings(row.rid, &rec.terms)?;
                self.leave_class(row.class, row.length)?;
                self.index_key(&rec.memory, false)?;
                row.rid
            }
            None => self.next_rid()?,
        };
        let class = self.enter_class(&memory, length)?;
        let row = Row {
            id: memory.id.clone(),
            rev: memory.revision,
            rid,
            etag,
            length,
            class,
            scope: memory.scope.clone(),
            kind: memory.kind,
            status: memory.status,
            sensitivity: memory.sensitivity,
            valid_from: memory.valid_from.map(|d| d.epoch_ms),
            valid_to: memory.valid_to.map(|d| d.epoch_ms),
            key: semantic_key(&memory),
            source_ref: memory.provenance.source.reference.clone(),
            source_events: memory.provenance.source_event_ids.clone(),
            updated_at: memory.updated_at.epoch_ms,
        };
        self.add_postings(&row, &counts)?;
        self.index_key(&memory, true)?;
        let key = self.layout().memory(&memory.id, memory.revision);
        self.records.put(
            key,
            Some(Record {
                v: 0,
                memory,
                etag,
                length,
                terms: counts,
            }),
        );
        self.set_row(&row.id.clone(), row.rev, Some(row))
    }

    fn record_of(&mut self, row: &Row) -> Result<Record, Fail> {
        let key = self.layout().memory(&row.id, row.rev);
        // A row without its record: a commit is landing under this read.
        self.records.get(self.v, &key)?.cloned().ok_or(Fail::Newer)
    }

    fn insert(&mut self, m: &Memory, terms: &[String]) -> Result<(), Fail> {
        if self.find_row(&m.id, m.revision)?.is_some() {
            return Err(StoreError::Conflict(format!(
                "revision {} of {} already exists",
                m.revision, m.id
            ))
            .into());
        }
        self.write(m, terms, 1, None)?;
        self.receipt.etags.push(1);
        Ok(())
    }

    fn update(&mut self, m: &Memory, terms: &[String], expected: u64) -> Result<(), Fail> {
        let row = self
            .find_row(&m.id, m.revision)?
            // …in the very scope the update names: a revision never moves
            // to another scope (nor another user's record into this one).
            .filter(|r| covers(&self.principal, &r.scope) && r.scope == m.scope);
        let Some(row) = row else {
            return Err(StoreError::Conflict(format!(
                "{} revision {} does not exist",
                m.id, m.revision
            ))
            .into());
        };
        if row.etag != expected {
            return Err(StoreError::Conflict(format!(
                "{} revision {} was changed by another writer (etag {}, expected {expected})",
                m.id, m.revision, row.etag
            ))
            .into());
        }
        let rec = self.record_of(&row)?;
        let etag = row.etag + 1;
        self.write(m, terms, etag, Some((row, rec)))?;
        self.receipt.etags.push(etag);
        Ok(())
    }

    fn erase(&mut self, id: &str) -> Result<(), Fail> {
        let key = self.layout().rows(Layout::row_shard_of(id));
        let rows: Vec<Row> = self
            .rows
            .get(self.v, &key)?
            .map(|s| {
                s.rows
                    .iter()
                    .filter(|r| r.id == id && covers(&self.principal, &r.scope))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        for row in rows {
            let rec = self.record_of(&row)?;
            self.remove_postings(row.rid, &rec.terms)?;
            self.leave_class(row.class, row.length)?;
            self.index_key(&rec.memory, false)?;
            let mkey = self.layout().memory(&row.id, row.rev);
            self.records.put(mkey, None);
            self.set_row(id, row.rev, None)?;
        }
        Ok(())
    }

    /// Replace `fragment` in the events within `scope` (checked to lie
    /// within the principal): never another user's or tenant's.
    fn scrub(&mut self, scope: &Scope, fragment: &str) -> Result<(), Fail> {
        if fragment.is_empty() {
            return Ok(());
        }
        let count = self
            .events_meta
            .get(self.v, &self.v.layout.events_meta())?
            .map_or(0, |m| m.count);
        let chunks: Vec<String> = (0..count.div_ceil(EVENT_CHUNK))
            .map(|n| self.layout().events_chunk(n))
            .collect();
        self.chunks.fetch(self.v, &chunks)?;
        for key in chunks {
            let hit = self.chunks.get(self.v, &key)?.is_some_and(|c| {
                c.events
                    .iter()
                    .any(|(_, _, e)| within(scope, &e.scope) && e.payload.contains(fragment))
            });
            if hit {
                let chunk = self.chunks.edit(self.v, &key)?;
                for (_, _, e) in chunk.events.iter_mut() {
                    if within(scope, &e.scope) {
                        e.payload = e.payload.replace(fragment, "[erased]");
                    }
                }
            }
        }
        Ok(())
    }

    fn tombstone(&mut self, t: &Tombstone) -> Result<(), Fail> {
        let key = self.layout().tombstones();
        let list = &mut self.tombstones.edit(self.v, &key)?.list;
        if list
            .iter()
            .any(|s| s.scope == t.scope && s.fingerprint == t.fingerprint && s.length == t.length)
        {
            return Ok(());
        }
        // SQLite's order: (created-at, fingerprint, user, project).
        let order = |s: &Tombstone| {
            (
                s.created_at.epoch_ms,
                s.fingerprint.clone(),
                s.scope.user.clone(),
                s.scope.project.clone(),
            )
        };
        let at = list.partition_point(|s| order(s) <= order(t));
        list.insert(at, t.clone());
        Ok(())
    }

    fn append(&mut self, e: &Event) -> Result<(), Fail> {
        let meta_key = self.layout().events_meta();
        let meta = self.events_meta.edit(self.v, &meta_key)?;
        let last = meta.sequences.get(&e.session).copied().unwrap_or(0);
        if let Some(seen) = self.guards.remove(&e.session) {
            if seen != last {
                return Err(StoreError::Conflict(format!(
                    "session {} gained events since it was read",
                    e.session
                ))
                .into());
            }
        }
        let seq = last + 1;
        meta.sequences.insert(e.session.clone(), seq);
        let number = meta.count;
        meta.indexed_from.get_or_insert(number);
        let n = number / EVENT_CHUNK;
        meta.count += 1;
        let index_key = self.layout().session_index(&e.session);
        self.sessions
            .edit(self.v, &index_key)?
            .sessions
            .entry(e.session.clone())
            .or_default()
            .push(number);
        let chunk_key = self.layout().events_chunk(n);
        self.chunks
            .edit(self.v, &chunk_key)?
            .events
            .push((e.session.clone(), seq, e.clone()));
        let canonical = event_canonical(&e.scope, &e.kind);
        let minute = e.at.epoch_ms.div_euclid(60_000);
        let counts_key = self.layout().event_counts(&canonical);
        *self
            .counts
            .edit(self.v, &counts_key)?
            .minutes
            .entry(canonical.clone())
            .or_default()
            .entry(minute)
            .or_default() += 1;
        let minute_key = self.layout().event_minute(&canonical, minute);
        self.minutes
            .edit(self.v, &minute_key)?
            .instants
            .entry(canonical)
            .or_default()
            .push(e.at.epoch_ms);
        self.receipt.sequences.push(seq);
        Ok(())
    }

    fn touch(&mut self, id: &str, rev: u32, at: Datetime) -> Result<(), Fail> {
        let Some(row) = self
            .find_row(id, rev)?
            .filter(|r| covers(&self.principal, &r.scope))
        else {
            return Ok(());
        };
        let key = self.layout().memory(&row.id, row.rev);
        let mut rec = self.record_of(&row)?;
        rec.memory.access_count = rec.memory.access_count.saturating_add(1);
        rec.memory.last_accessed = Some(at);
        self.records.put(key, Some(rec));
        Ok(())
    }

    fn check_one_active(&mut self) -> Result<(), Fail> {
        for canonical in std::mem::take(&mut self.touched_keys) {
            let key = self.layout().key_index(&canonical);
            let n = self
                .keys
                .get(self.v, &key)?
                .and_then(|k| k.active.get(&canonical))
                .map_or(0, Vec::len);
            if n > 1 {
                return Err(StoreError::Conflict(format!(
                    "a second active revision of the semantic key {canonical} would result"
                ))
                .into());
            }
        }
        Ok(())
    }

    /// Keys this commit deletes get a marker, listed for the collector.
    /// Markers listed `horizon_ms` ago or earlier are returned: the caller
    /// deletes them for good.
    pub fn collect_garbage(
        &mut self,
        deleted: &[String],
        horizon_ms: i64,
    ) -> Result<Vec<String>, Fail> {
        let key = self.layout().gc();
        let now = self.now_ms;
        let g = self.garbage.edit(self.v, &key)?;
        let (due, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut g.markers)
            .into_iter()
            .partition(|(_, at)| now - *at >= horizon_ms);
        g.markers = kept;
        g.markers.extend(deleted.iter().map(|k| (k.clone(), now)));
        Ok(due.into_iter().map(|(k, _)| k).collect())
    }

    /// The final values of every key written, stamped with `version`
    /// (`None` = delete).
    pub fn writes(self, version: u64) -> Result<Vec<(String, Option<String>)>, StoreError> {
        let mut out = Vec::new();
        self.rows.drain(version, &mut out)?;
        self.records.drain(version, &mut out)?;
        self.postings.drain(version, &mut out)?;
        self.docs.drain(version, &mut out)?;
        self.keys.drain(version, &mut out)?;
        self.tombstones.drain(version, &mut out)?;
        self.events_meta.drain(version, &mut out)?;
        self.chunks.drain(version, &mut out)?;
        self.counts.drain(version, &mut out)?;
        self.minutes.drain(version, &mut out)?;
        self.sessions.drain(version, &mut out)?;
        self.garbage.drain(version, &mut out)?;
        Ok(out)
    }

    /// The deleted keys among `writes` (before garbage is listed).
    pub fn deleted_keys(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (k, v) in &self.records.values {
            if v.is_none() && self.records.dirty.contains(k) {
                out.push(k.clone());
            }
        }
        for (k, v) in &self.postings.values {
            if self.postings.dirty.contains(k) && v.as_ref().is_none_or(|p| p.terms.is_empty()) {
                out.push(k.clone());
            }
        }
        for (k, v) in &self.keys.values {
            if self.keys.dirty.contains(k) && v.as_ref().is_none_or(|p| p.active.is_empty()) {
                out.push(k.clone());
            }
        }
        out
    }
}

/// The marker a deleted key holds.
pub fn marker(version: u64) -> Vec<u8> {
    encode(&Gone {
        v: version,
        gone: true,
    })
    .unwrap_or_default()
    .into_bytes()
}

/// Is `event` within `scope`: every dimension `scope` sets is equal in the
/// event, the ones it leaves unset match anything (`scrub`'s reach).
fn within(scope: &Scope, event: &Scope) -> bool {
    fn dim(asked: &Option<String>, stored: &Option<String>) -> bool {
        asked.is_none() || asked == stored
    }
    scope.tenant == event.tenant
        && dim(&scope.user, &event.user)
        && dim(&scope.project, &event.project)
        && dim(&scope.thread, &event.thread)
        && dim(&scope.agent, &event.agent)
}
