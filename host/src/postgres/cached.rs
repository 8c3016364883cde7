//! The read path of `stats` and `search` when the filter lives in the
//! postings: the same method, cache and arithmetic as the SQLite store
//! (`crate::postings_cache`), so both stores rank candidates identically.
//!
//! The cache stays valid while the tenant is unchanged: every commit bumps
//! the tenant's row in `tenant_versions` (under the tenant's lock), and each
//! read first compares that counter with the one the cache was filled at,
//! one primary-key lookup instead of counting the scope's documents and
//! reading common terms' postings on every recall. A process's own commits
//! clear the cache outright, as SQLite's do.

use std::collections::HashMap;

use super::columns::db_err;
use super::sql::{filter_clause, Args};
use super::{row_to_stored, PgStore};
use crate::bindings::{Filter, StoreError, Stored, TermStats, WeightedTerm};
use crate::postings_cache::{best_hits, key_of, Bounded, Documents, Posting, TermPostings};

impl PgStore {
    /// How many commits have written `tenant` (0 if none).
    fn tenant_version(&mut self, tenant: &str) -> Result<i64, StoreError> {
        self.on_conn(tenant, |c| {
            c.query_opt(
                "SELECT version FROM tenant_versions WHERE tenant = $1",
                &[&tenant],
            )
            .map(|row| row.map_or(0, |r| r.get(0)))
            .map_err(|e| db_err(e, "reading the tenant's version"))
        })
    }

    /// Make sure the cache holds the documents under `filter` (validity
    /// aside), reading them when it does not; returns the cache key.
    fn cache_documents(&mut self, filter: &Filter) -> Result<Filter, StoreError> {
        let version = self.tenant_version(&filter.scope.tenant)?;
        self.cache.check_version(version);
        let key = key_of(filter);
        if self.cache.documents(&key).is_some() {
            return Ok(key);
        }
        let mut args = Args::default();
        let w = filter_clause(&mut args, "m", &key);
        let sql =
            format!("SELECT m.rid, m.valid_from, m.valid_to, m.length FROM memories m WHERE {w}");
        let rows = self.on_conn(&filter.scope.tenant, |c| {
            c.query(&sql, &args.refs())
                .map_err(|e| db_err(e, "counting documents"))
        })?;
        let mut docs = Documents::default();
        for r in rows {
            let b = Bounded {
                valid_from: r.get(1),
                valid_to: r.get(2),
                length: r.get(3),
            };
            if b.valid_from.is_none() && b.valid_to.is_none() {
                docs.unbounded += 1;
                docs.unbounded_length += b.length;
            } else {
                docs.bounded.insert(r.get(0), b);
            }
        }
        self.cache.insert_documents(key.clone(), docs);
        Ok(key)
    }

    /// The postings of the `terms` not cached yet under `key`, read with one
    /// index range per term; cached when they fit, else returned.
    fn load_postings(
        &mut self,
        key: &Filter,
        terms: &[&str],
    ) -> Result<HashMap<String, TermPostings>, StoreError> {
        self.cache.make_room();
        let mut missing: Vec<String> = terms
            .iter()
            .filter(|t| self.cache.postings(key, t).is_none())
            .map(|t| t.to_string())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(HashMap::new());
        }
        let mut read: HashMap<String, Vec<Posting>> =
            missing.iter().map(|t| (t.clone(), Vec::new())).collect();
        let mut args = Args::default();
        let asked = args.arg(missing);
        let tenant = args.arg(key.scope.tenant.clone());
        let w = filter_clause(&mut args, "p", key);
        // LATERAL fenced by OFFSET 0: one index range per term, whatever
        // the planner's statistics say.
        let sql = format!(
            "SELECT q.term, x.rid, x.tf FROM unnest({asked}::text[]) AS q(term)
             CROSS JOIN LATERAL (SELECT p.rid, p.tf FROM postings p
                                 WHERE p.tenant = {tenant} AND p.term = q.term AND {w} OFFSET 0) x"
        );
        let rows = self.on_conn(&key.scope.tenant, |c| {
            c.query(&sql, &args.refs())
                .map_err(|e| db_err(e, "reading postings"))
        })?;
        for row in rows {
            let term: String = row.get(0);
            let tf: Option<i64> = row.get(2);
            read.entry(term).or_default().push(Posting {
                rid: row.get(1),
                tf: tf.map_or(0, |n| n.clamp(0, u32::MAX as i64) as u32),
                bounded: false,
            });
        }
        let mut kept_out = HashMap::new();
        for (term, list) in read {
            if let Some(p) = self.cache.insert_postings(key, &term, list) {
                kept_out.insert(term, p);
            }
        }
        Ok(kept_out)
    }

    /// Run `f` over the documents under `filter` (validity aside) and the
    /// postings of each of `terms`, in order.
    fn with_postings<R>(
        &mut self,
        filter: &Filter,
        terms: &[&str],
        f: impl FnOnce(&Documents, &[&TermPostings]) -> R,
    ) -> Result<R, StoreError> {
        let key = self.cache_documents(filter)?;
        let uncached = self.load_postings(&key, terms)?;
        Ok(self.cache.with_lists(&key, terms, &uncached, f))
    }

    pub(super) fn cached_stats(
        &mut self,
        filter: &Filter,
        terms: &[String],
    ) -> Result<TermStats, StoreError> {
        let at = filter.valid_at;
        let asked: Vec<&str> = terms.iter().map(String::as_str).collect();
        let ((documents, average_length), frequencies) =
            self.with_postings(filter, &asked, |d, lists| {
                (d.at(at), lists.iter().map(|l| l.frequency(d, at)).collect())
            })?;
        Ok(TermStats {
            documents: documents as u64,
            average_length,
            frequencies,
        })
    }

    /// Sum the weights of each record's matched terms over the posting
    /// lists, keep the `limit` best (score, then row id), and only then
    /// load those records, each with how often every asked term occurs.
    pub(super) fn cached_search(
        &mut self,
        filter: &Filter,
        terms: &[WeightedTerm],
        limit: u32,
    ) -> Result<Vec<Stored>, StoreError> {
        let asked: Vec<&str> = terms.iter().map(|t| t.term.as_str()).collect();
        let hits = self.with_postings(filter, &asked, |documents, lists| {
            best_hits(terms, lists, documents, filter.valid_at, limit)
        })?;
        let wanted: Vec<i64> = hits
            .iter()
            .map(|h| h.0)
            .filter(|rid| self.cache.record(*rid).is_none())
            .collect();
        if !wanted.is_empty() {
            let sql = "SELECT m.body, m.etag, m.length, m.access_count, m.last_access, m.rid
                       FROM memories m WHERE m.rid = ANY($1)";
            let rows = self.on_conn(&filter.scope.tenant, |c| {
                c.query(sql, &[&wanted])
                    .map_err(|e| db_err(e, "reading memories"))
            })?;
            for row in &rows {
                let stored = row_to_stored(row)?;
                self.cache.insert_record(row.get(5), stored);
            }
        }
        let mut out: Vec<(f64, Stored)> = Vec::with_capacity(hits.len());
        for (rid, score, frequencies) in hits {
            // A record deleted between the postings and this read is left out.
            let Some(stored) = self.cache.record(rid) else {
                continue;
            };
            out.push((
                score,
                Stored {
                    frequencies,
                    ..stored.clone()
                },
            ));
        }
        out.sort_by(|a, b| {
            b.0.partial_cmp(&a.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.1.memory.id.cmp(&b.1.memory.id))
                .then_with(|| a.1.memory.revision.cmp(&b.1.memory.revision))
        });
        self.reads += out.len() as u64;
        Ok(out.into_iter().map(|(_, s)| s).collect())
    }
}
