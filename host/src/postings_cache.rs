//! What a recall reads from the index, kept between calls while the
//! database is unchanged.
//!
//! A recall asks the store for term statistics (documents under the filter,
//! their mean length, each query term's document frequency) and then for
//! the records carrying its terms. On a large scope those reads are posting
//! lists of common terms and a scan of the scope's index, and consecutive
//! recalls of one agent ask for much the same ones. The cache keeps, per
//! filter with its validity instant left out:
//!
//! - the count and total length of the records without validity bounds
//!   (nearly all of them), and every bounded record's bounds and length, so
//!   the document count at any instant is exact;
//! - the postings (record id, count) of each term asked for so far;
//! - the records a search handed out, decoded, by record id (decoding the
//!   stored JSON was most of a search's time).
//!
//! The validity instant is applied when a figure is read, so recalls at
//! different instants (the system clock moves on) share one entry.
//! `SqliteStore` drops the whole cache on every write through its own
//! connection and whenever `PRAGMA data_version` shows another connection
//! committed.

use std::collections::HashMap;

use crate::bindings::{Datetime, Filter, Stored, WeightedTerm};

/// One posting: a record carrying the term, and how often (0 = not
/// counted: written before the store kept counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// The record's row id.
    pub rid: i64,
    /// The term's count in the record (its term frequency).
    pub tf: u32,
    /// The record has validity bounds (set by the cache): only these need
    /// a look at the query's instant.
    pub bounded: bool,
}

/// The postings of one term under one filter, by record id.
#[derive(Debug, Clone, Default)]
pub struct TermPostings {
    /// The postings, by record id.
    pub list: Vec<Posting>,
    /// How many of them have no validity bounds.
    pub unbounded: u64,
}

impl TermPostings {
    /// How often the term occurs in record `rid`: `None` when the record
    /// does not carry it, `Some(0)` when its posting was not counted.
    pub fn count(&self, rid: i64) -> Option<u32> {
        self.list
            .binary_search_by_key(&rid, |p| p.rid)
            .ok()
            .map(|i| self.list[i].tf)
    }

    /// The postings in force at `at`.
    pub fn in_force<'a>(
        &'a self,
        documents: &'a Documents,
        at: Option<Datetime>,
    ) -> impl Iterator<Item = &'a Posting> + 'a {
        self.list
            .iter()
            .filter(move |p| !p.bounded || documents.admits(p.rid, at))
    }

    /// Document frequency at `at`.
    pub fn frequency(&self, documents: &Documents, at: Option<Datetime>) -> u64 {
        self.unbounded
            + self
                .list
                .iter()
                .filter(|p| p.bounded && documents.admits(p.rid, at))
                .count() as u64
    }
}

/// Postings kept at most, over all entries (16 bytes each).
pub const MAX_POSTINGS: usize = 4_000_000;
/// Decoded records kept at most (a few KB each).
pub const MAX_RECORDS: usize = 20_000;
/// Filters kept at most (a host serving several scopes alternates them).
const MAX_FILTERS: usize = 4;

/// Validity bounds and index length of a record with a bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounded {
    /// Valid from (epoch ms), if bounded below.
    pub valid_from: Option<i64>,
    /// Valid until (epoch ms, exclusive), if bounded above.
    pub valid_to: Option<i64>,
    /// The record's index length (terms).
    pub length: i64,
}

impl Bounded {
    fn in_force(&self, at: Option<Datetime>) -> bool {
        at.is_none_or(|at| {
            self.valid_from.is_none_or(|f| f <= at.epoch_ms)
                && self.valid_to.is_none_or(|t| t > at.epoch_ms)
        })
    }
}

/// The documents under one filter (validity aside).
#[derive(Debug, Clone, Default)]
pub struct Documents {
    /// Records with no validity bound: count and total index length.
    pub unbounded: i64,
    /// Their total index length (terms).
    pub unbounded_length: i64,
    /// Records with a bound, by record id.
    pub bounded: HashMap<i64, Bounded>,
}

impl Documents {
    /// Records in force at `at` (all when `None`) and their mean length.
    pub fn at(&self, at: Option<Datetime>) -> (i64, f64) {
        let (mut n, mut total) = (self.unbounded, self.unbounded_length);
        for b in self.bounded.values().filter(|b| b.in_force(at)) {
            n += 1;
            total += b.length;
        }
        let avg = if n > 0 { total as f64 / n as f64 } else { 0.0 };
        (n, avg)
    }

    /// Is record `rid` in force at `at`?
    pub fn admits(&self, rid: i64, at: Option<Datetime>) -> bool {
        self.bounded.get(&rid).is_none_or(|b| b.in_force(at))
    }
}

struct Entry {
    /// The filter with `valid_at` cleared.
    key: Filter,
    documents: Documents,
    postings: HashMap<String, TermPostings>,
}

/// The cache of one connection (see the module documentation).
#[derive(Default)]
pub struct PostingsCache {
    data_version: Option<i64>,
    /// Most recently used last.
    entries: Vec<Entry>,
    kept: usize,
    records: HashMap<i64, Stored>,
}

/// `filter` without its validity instant: the key of its entry.
pub fn key_of(filter: &Filter) -> Filter {
    Filter {
        valid_at: None,
        ..filter.clone()
    }
}

impl PostingsCache {
    /// Forget everything (a write went through this connection).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.kept = 0;
        self.records.clear();
        self.data_version = None;
    }

    /// Keep the cache only if it was filled at `data_version`.
    pub fn check_version(&mut self, data_version: i64) {
        if self.data_version != Some(data_version) {
            self.clear();
            self.data_version = Some(data_version);
        }
    }

    fn position(&mut self, key: &Filter) -> Option<usize> {
        let i = self.entries.iter().position(|e| e.key == *key)?;
        // Most recently used last.
        let e = self.entries.remove(i);
        self.entries.push(e);
        Some(self.entries.len() - 1)
    }

    /// The documents under `key`, if cached.
    pub fn documents(&mut self, key: &Filter) -> Option<&Documents> {
        let i = self.position(key)?;
        Some(&self.entries[i].documents)
    }

    /// Start the entry of `key` with its documents.
    pub fn insert_documents(&mut self, key: Filter, documents: Documents) {
        if let Some(i) = self.position(&key) {
            self.entries[i].documents = documents;
            return;
        }
        if self.entries.len() >= MAX_FILTERS {
            let old = self.entries.remove(0);
            self.kept -= old.postings.values().map(|p| p.list.len()).sum::<usize>();
        }
        self.entries.push(Entry {
            key,
            documents,
            postings: HashMap::new(),
        });
    }

    /// Before a query's postings are loaded: when the cache is three
    /// quarters full, drop every cached posting list, so that the query's
    /// own lists fit.
    pub fn make_room(&mut self) {
        if self.kept > MAX_POSTINGS / 4 * 3 {
            for e in &mut self.entries {
                e.postings.clear();
            }
            self.kept = 0;
        }
    }

    /// The documents and the postings of `term` in `key`'s entry, if cached.
    pub fn postings(&self, key: &Filter, term: &str) -> Option<(&Documents, &TermPostings)> {
        let e = self.entries.iter().find(|e| e.key == *key)?;
        Some((&e.documents, e.postings.get(term)?))
    }

    /// The documents of `key`'s entry, without touching its recency.
    pub fn documents_of(&self, key: &Filter) -> Option<&Documents> {
        self.entries
            .iter()
            .find(|e| e.key == *key)
            .map(|e| &e.documents)
    }

    /// Run `f` over `key`'s documents and the postings of each of `terms`,
    /// in order: from `uncached` (just read, too big to keep) or else from
    /// this cache; a term in neither has no postings. The last step of
    /// every store's `with_postings`.
    pub fn with_lists<R>(
        &self,
        key: &Filter,
        terms: &[&str],
        uncached: &HashMap<String, TermPostings>,
        f: impl FnOnce(&Documents, &[&TermPostings]) -> R,
    ) -> R {
        let empty = TermPostings::default();
        let no_documents = Documents::default();
        let documents = self.documents_of(key).unwrap_or(&no_documents);
        let lists: Vec<&TermPostings> = terms
            .iter()
            .map(|t| {
                uncached
                    .get(*t)
                    .or_else(|| self.postings(key, t).map(|(_, p)| p))
                    .unwrap_or(&empty)
            })
            .collect();
        f(documents, &lists)
    }

    /// Keep the postings of `term` in `key`'s entry (which must exist),
    /// sorted by record id and marked bounded where their record is. Returns
    /// them instead when they cannot be kept (the cache is full, or no
    /// entry): cached lists stay valid for the rest of the query.
    pub fn insert_postings(
        &mut self,
        key: &Filter,
        term: &str,
        mut list: Vec<Posting>,
    ) -> Option<TermPostings> {
        list.sort_unstable_by_key(|p| p.rid);
        let Some(i) = self.entries.iter().position(|e| e.key == *key) else {
            return Some(TermPostings {
                unbounded: list.len() as u64,
                list,
            });
        };
        let bounded = &self.entries[i].documents.bounded;
        let mut unbounded = 0;
        for p in &mut list {
            p.bounded = bounded.contains_key(&p.rid);
            unbounded += u64::from(!p.bounded);
        }
        let postings = TermPostings { list, unbounded };
        // Never evict here: the caller may hold lists of this same query.
        if self.kept + postings.list.len() > MAX_POSTINGS {
            return Some(postings);
        }
        self.kept += postings.list.len();
        if let Some(old) = self.entries[i].postings.insert(term.to_string(), postings) {
            self.kept -= old.list.len();
        }
        None
    }

    /// The decoded record `rid`, if cached.
    pub fn record(&self, rid: i64) -> Option<&Stored> {
        self.records.get(&rid)
    }

    /// Keep a decoded record (starting over when full).
    pub fn insert_record(&mut self, rid: i64, stored: Stored) {
        if self.records.len() >= MAX_RECORDS {
            self.records.clear();
        }
        self.records.insert(rid, stored);
    }
}

/// The `limit` best records for weighted terms over their posting lists
/// (score, then row id), each with how often every asked term occurs in it;
/// no counts at all when a posting of it predates the counts (the guest
/// then analyses its text). Shared by every store that keeps postings in
/// this cache, so equal scores tie identically on all of them.
pub fn best_hits(
    terms: &[WeightedTerm],
    lists: &[&TermPostings],
    documents: &Documents,
    at: Option<Datetime>,
    limit: u32,
) -> Vec<(i64, f64, Vec<u32>)> {
    let mut hits = sum_weights(terms, lists, documents, at);
    let by_score = |a: &(i64, f64), b: &(i64, f64)| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(&b.0))
    };
    let limit = limit as usize;
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, by_score);
        hits.truncate(limit);
    }
    hits.into_iter()
        .map(|(rid, score)| {
            let counts: Option<Vec<u32>> = lists
                .iter()
                .map(|l| match l.count(rid) {
                    Some(0) => None,
                    n => Some(n.unwrap_or(0)),
                })
                .collect();
            (rid, score, counts.unwrap_or_default())
        })
        .collect()
}

/// The summed weight of the matched terms per record: `(rid, score)` for
/// every record carrying at least one term. Posting lists are sorted by
/// record id, so when the ids they span are not much more than the postings
/// themselves the sums go into an array indexed by id (no hashing: on a
/// 100k-memory scope a query's common terms touch tens of thousands of
/// postings); otherwise into a hash map.
fn sum_weights(
    terms: &[WeightedTerm],
    lists: &[&TermPostings],
    documents: &Documents,
    at: Option<Datetime>,
) -> Vec<(i64, f64)> {
    let touched: usize = lists.iter().map(|l| l.list.len()).sum();
    let lo = lists
        .iter()
        .filter_map(|l| l.list.first())
        .map(|p| p.rid)
        .min();
    let hi = lists
        .iter()
        .filter_map(|l| l.list.last())
        .map(|p| p.rid)
        .max();
    let (Some(lo), Some(hi)) = (lo, hi) else {
        return Vec::new();
    };
    let span = usize::try_from(hi - lo)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    if span <= touched.saturating_mul(8).saturating_add(4096) {
        // NaN marks "no term matched" (weights may be 0).
        let mut sums = vec![f64::NAN; span];
        for (t, list) in terms.iter().zip(lists) {
            for p in list.in_force(documents, at) {
                let s = &mut sums[(p.rid - lo) as usize];
                *s = if s.is_nan() { t.weight } else { *s + t.weight };
            }
        }
        sums.iter()
            .enumerate()
            .filter(|(_, s)| !s.is_nan())
            .map(|(i, s)| (lo + i as i64, *s))
            .collect()
    } else {
        let mut sums: std::collections::HashMap<i64, f64> = std::collections::HashMap::new();
        for (t, list) in terms.iter().zip(lists) {
            for p in list.in_force(documents, at) {
                *sums.entry(p.rid).or_insert(0.0) += t.weight;
            }
        }
        sums.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{Scope, ScopeMatch};

    fn filter(tenant: &str, at: Option<i64>) -> Filter {
        Filter {
            scope: Scope {
                tenant: tenant.into(),
                user: None,
                project: None,
                thread: None,
                agent: None,
            },
            scope_match: ScopeMatch::Within,
            kinds: vec![],
            statuses: vec![],
            exclude_archived: false,
            valid_at: at.map(|ms| Datetime {
                epoch_ms: ms,
                offset_minutes: 0,
            }),
            sensitivity_max: None,
            subject: None,
            predicate: None,
            condition: None,
            source_ref: None,
        }
    }

    fn postings(rids: &[i64]) -> Vec<Posting> {
        rids.iter()
            .map(|&rid| Posting {
                rid,
                tf: rid as u32 + 1,
                bounded: false,
            })
            .collect()
    }

    /// The document frequency of `term` at `at`, if its postings are cached.
    fn frequency(c: &PostingsCache, key: &Filter, term: &str, at: Option<Datetime>) -> Option<u64> {
        let (documents, postings) = c.postings(key, term)?;
        Some(postings.frequency(documents, at))
    }

    fn at(ms: i64) -> Option<Datetime> {
        Some(Datetime {
            epoch_ms: ms,
            offset_minutes: 0,
        })
    }

    #[test]
    fn validity_is_applied_when_read() {
        let key = key_of(&filter("t", Some(50)));
        assert_eq!(key, key_of(&filter("t", Some(99))));
        let mut c = PostingsCache::default();
        c.check_version(1);
        let mut bounded = HashMap::new();
        bounded.insert(
            7,
            Bounded {
                valid_from: Some(100),
                valid_to: None,
                length: 10,
            },
        );
        c.insert_documents(
            key.clone(),
            Documents {
                unbounded: 2,
                unbounded_length: 20,
                bounded,
            },
        );
        assert!(c.insert_postings(&key, "rust", postings(&[7, 1])).is_none());
        let (_, rust) = c.postings(&key, "rust").unwrap();
        assert_eq!(
            (rust.count(1), rust.count(7), rust.count(3)),
            (Some(2), Some(8), None)
        );
        assert_eq!(rust.unbounded, 1);
        assert_eq!(c.documents(&key).unwrap().at(at(50)), (2, 10.0));
        assert_eq!(c.documents(&key).unwrap().at(at(150)), (3, 10.0));
        assert_eq!(frequency(&c, &key, "rust", at(50)), Some(1));
        assert_eq!(frequency(&c, &key, "rust", at(150)), Some(2));
        assert_eq!(frequency(&c, &key, "rust", None), Some(2));
        assert_eq!(frequency(&c, &key, "go", at(150)), None);
        // Another connection committed: everything goes.
        c.check_version(2);
        assert!(c.documents(&key).is_none());
    }

    #[test]
    fn bounded_by_filters_and_postings() {
        let mut c = PostingsCache::default();
        c.check_version(1);
        for t in 0..MAX_FILTERS + 1 {
            c.insert_documents(key_of(&filter(&t.to_string(), None)), Documents::default());
        }
        // The oldest filter was evicted.
        assert!(c.documents(&key_of(&filter("0", None))).is_none());
        let k = key_of(&filter("1", None));
        assert!(c.documents(&k).is_some());
        assert!(c
            .insert_postings(&k, "a", postings(&[0]).repeat(MAX_POSTINGS - 1))
            .is_none());
        // Full: handed back (marked and sorted), and what is cached stays.
        let b = c.insert_postings(&k, "b", postings(&[2, 1]));
        assert_eq!(b.map(|t| t.list), Some(postings(&[1, 2])));
        assert_eq!(frequency(&c, &k, "a", None), Some(MAX_POSTINGS as u64 - 1));
        // The next query starts with room.
        c.make_room();
        assert_eq!(frequency(&c, &k, "a", None), None);
        assert!(c.insert_postings(&k, "b", postings(&[1, 2])).is_none());
        assert_eq!(frequency(&c, &k, "b", None), Some(2));
        assert_eq!(c.kept, 2);
    }
}
