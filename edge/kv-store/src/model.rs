//! The values stored under each key (JSON). Every value carries `v`, the
//! commit version that wrote it: a reader that meets a value newer than
//! the head it started from knows a commit landed meanwhile and reads
//! again, and an applier never overwrites a newer value with an older one.
//! A deleted key holds a content-free marker `{"v": N, "gone": true}` until
//! the garbage collector removes it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bindings::exports::engram::memory::store::{Event, Tombstone};
use crate::types::Memory;
use crate::types::{MemoryKind, Scope, Sensitivity, Status};

/// The commit point of a tenant: its version, and the commit being
/// applied, if any (the key of its record).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Head {
    pub v: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<String>,
}

/// A commit's write set: final values (already stamped with `v`), `None`
/// for a deletion. Applying it twice is applying it once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommitRecord {
    pub v: u64,
    /// Wall-clock milliseconds when it was written.
    pub at: i64,
    pub writes: Vec<(String, Option<String>)>,
}

/// Only the stamp of a value (and whether it is a deletion marker).
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Stamp {
    pub v: u64,
    #[serde(default)]
    pub gone: bool,
}

/// A marker for a deleted key.
#[derive(Debug, Clone, Serialize)]
pub struct Gone {
    pub v: u64,
    pub gone: bool,
}

/// The filter columns of one revision (everything a `filter` can test).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub id: String,
    pub rev: u32,
    /// Insertion order within the tenant (ties between equal search scores).
    pub rid: u64,
    pub etag: u64,
    pub length: u32,
    pub class: u32,
    pub scope: Scope,
    pub kind: MemoryKind,
    pub status: Status,
    pub sensitivity: Sensitivity,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    /// The semantic key, for semantic memories.
    pub key: Option<(String, String, Option<String>)>,
    pub source_ref: Option<String>,
    pub source_events: Vec<String>,
    pub updated_at: i64,
}

/// One shard of the row catalog, sorted by (id, revision).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RowShard {
    pub v: u64,
    pub rows: Vec<Row>,
}

/// One revision as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub v: u64,
    pub memory: Memory,
    pub etag: u64,
    pub length: u32,
    /// Distinct index terms with their counts, sorted by term.
    pub terms: Vec<(String, u32)>,
}

/// One posting: (row id, memory id, revision, count, class).
pub type Posting = (u64, String, u32, u32, u32);

/// The postings of the terms that hash to one key, each list sorted by row id.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PostingsValue {
    pub v: u64,
    pub terms: BTreeMap<String, Vec<Posting>>,
}

/// The filter columns postings share: scope below the tenant, kind,
/// status, sensitivity and validity (what SQLite's postings rows carry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Class {
    pub user: Option<String>,
    pub project: Option<String>,
    pub thread: Option<String>,
    pub agent: Option<String>,
    pub kind: MemoryKind,
    pub status: Status,
    pub sensitivity: Sensitivity,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    /// Live revisions in the class and their summed index length.
    pub count: u64,
    pub length: u64,
}

/// Every document class of the tenant, and the counters for new rows and classes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Docs {
    pub v: u64,
    pub next_rid: u64,
    pub next_class: u32,
    pub classes: BTreeMap<u32, Class>,
}

/// The active revisions of the semantic keys hashing to one key, by the
/// key's canonical form.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KeyIndex {
    pub v: u64,
    pub active: BTreeMap<String, Vec<(String, u32)>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Tombstones {
    pub v: u64,
    /// Sorted by (created-at, fingerprint); one per (fingerprint, length).
    pub list: Vec<Tombstone>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EventsMeta {
    pub v: u64,
    /// Events ever appended (the next one goes to chunk `count / 64`).
    pub count: u64,
    /// The last sequence number of each session.
    pub sequences: BTreeMap<String, u64>,
    /// Events from this number on are listed in their session's index
    /// (`SessionIndex`); earlier ones (appended before the index existed)
    /// are found by reading their chunks. Unset until the first append
    /// that keeps the index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed_from: Option<u64>,
}

/// The events of the sessions hashing to one key, by session: the numbers
/// of their events in the log (event `n` is in chunk `n / 64`), in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SessionIndex {
    pub v: u64,
    pub sessions: BTreeMap<String, Vec<u64>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EventChunk {
    pub v: u64,
    /// (session, sequence, event).
    pub events: Vec<(String, u64, Event)>,
}

/// Events per minute of the (scope, kind) pairs hashing to one key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EventCounts {
    pub v: u64,
    pub minutes: BTreeMap<String, BTreeMap<i64, u64>>,
}

/// The instants of one minute's events of the (scope, kind) pairs hashing here.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EventMinute {
    pub v: u64,
    pub instants: BTreeMap<String, Vec<i64>>,
}

/// Deletion markers and when they were written (wall-clock ms).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Garbage {
    pub v: u64,
    pub markers: Vec<(String, i64)>,
}
