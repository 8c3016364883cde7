//! recall: hard filters pushed down to the store, candidates by the guest's
//! own index terms and structural keys, then scoring and the admission gate.
//!
//! Order of work per query:
//! 1. **Hard filter** (`recall_filter`): scope (visible from the caller),
//!    kinds, statuses, validity at the as-of instant, sensitivity ceiling,
//!    archived memories out. The store applies it before anything reaches
//!    the guest.
//! 2. **Query model**: the query is analysed exactly as memories are
//!    (`text::analyze`). In a conversation-shaped query the agent's own
//!    lines weigh less than the user's. Word n-grams written like names are
//!    probed as entity values (`v=` postings), so "what did Caroline say"
//!    matches memories tagged `speaker=Caroline`. Calendar expressions
//!    ("on 8 May 2023", "上周") become periods for time fit. One `stats`
//!    call gives the document frequencies of every term and probe.
//! 3. **Candidates**: one `search` call returns the records with the
//!    highest IDF-weighted sum of matched terms and entity keys (the store
//!    reads only those postings), at most `recall_candidate_limit` of them.
//!    The conversational neighbours of the best matches are read in one more
//!    `search` on their source-reference postings (`r=`, at most two records
//!    per expanded match), and a query carrying an embedding also reads the
//!    `embedding_scan_limit` newest records. So a query reads a bounded
//!    number of records however large the scope is.
//! 4. **Scoring** (`rank`), sorted by score, then id, then revision;
//!    duplicates of a better-ranked text are set aside; the **admission
//!    gate** decides what is usable; refused candidates are returned with
//!    their reason on request (`explain_rejected`).
//!
//! As-of reads: a query whose `as_of` lies before the clock's now reads the
//! revisions in force then (`in_force_at`), superseded and expired ones
//! included. Pending memories are never read; conflicted ones are returned
//! and marked (`admission.conflict`, `features.risk`).

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::text::{analyze, value_key, Token};
use crate::core::api::Ctx;
use crate::core::errors::invalid;
use crate::core::model::filter;
use crate::read::index::{entity_term, entity_value_term, source_term, Doc};
use crate::read::rank::{
    contextual_raw, event_time, evidence, score, Counts, Evidence, QueryEntity, QueryModel,
    QueryTerm,
};
use crate::types::{
    Datetime, Error, Memory, Query, Reason, RecallResult, ScoredMemory, Sensitivity, Status,
};
use crate::wit_store::{Filter, ScopeMatch, Stored, WeightedTerm};
use crate::write::resolve::effective_start;
use engram_contract::reason::ReasonCode;

/// Default number of results when a query asks for 0.
pub const DEFAULT_K: u32 = 10;
/// Highest sensitivity returned when the query sets no ceiling.
pub const DEFAULT_CEILING: Sensitivity = Sensitivity::Personal;
/// Analysed documents kept across the queries of one batch.
const DOC_CACHE_LIMIT: usize = 50_000;

// ---------------------------------------------------------------------------
// Hard filters and as-of reads (also what other modules rely on).
// ---------------------------------------------------------------------------

/// Does a query at `as_of` look into the past (and so read superseded and
/// expired revisions that were in force then)?
pub fn is_historical(as_of: Datetime, now: Datetime) -> bool {
    as_of.epoch_ms < now.epoch_ms
}

/// The statuses a recall reads from the store. Pending, retracted and
/// archived memories are never read; expired revisions only for a past
/// as-of instant (and then only those in force at it are used). Superseded
/// revisions are read too: one replaced by a revision that takes effect
/// later (`valid-from` next month) is still the one in force until then,
/// and the store's validity filter leaves out every other.
pub fn statuses_read(historical: bool) -> Vec<Status> {
    if historical {
        vec![
            Status::Active,
            Status::Conflicted,
            Status::Superseded,
            Status::Expired,
        ]
    } else {
        vec![Status::Active, Status::Conflicted, Status::Superseded]
    }
}

/// The hard filter of a query, pushed down to the store. A question about
/// history ("以前是多少天？为什么变了？", `Intent::history`) reads past
/// revisions whatever their validity.
pub fn recall_filter(q: &Query, as_of: Datetime, now: Datetime) -> Filter {
    let history = crate::read::intent::intent(&q.text).history;
    let mut f = filter(&q.scope, ScopeMatch::Visible);
    f.kinds = q.kinds.clone();
    f.statuses = statuses_read(history || is_historical(as_of, now));
    f.valid_at = (!history).then_some(as_of);
    f.sensitivity_max = Some(q.sensitivity_ceiling.unwrap_or(DEFAULT_CEILING));
    f.exclude_archived = true;
    f
}

/// Was this revision the one in force at `as_of`?
///
/// - its validity interval `[valid_from, valid_to)` contains `as_of`;
/// - a revision that replaced an earlier one (`supersedes`) and has no
///   explicit `valid_from` took effect when it was written (`created_at`);
/// - a superseded or expired revision stopped being in force at its
///   `valid_to` when one is set, else when it was superseded or expired
///   (its `updated_at`, stamped at that change);
/// - pending, retracted and archived revisions are never in force.
pub fn in_force_at(m: &Memory, as_of: Datetime) -> bool {
    if !crate::core::time::within(as_of, m.valid_from, m.valid_to) {
        return false;
    }
    let started =
        m.supersedes.is_none() || m.valid_from.is_some() || m.created_at.epoch_ms <= as_of.epoch_ms;
    match m.status {
        Status::Active | Status::Conflicted => started,
        Status::Superseded | Status::Expired => {
            started && (m.valid_to.is_some() || as_of.epoch_ms < m.updated_at.epoch_ms)
        }
        Status::Pending | Status::Retracted | Status::Archived => false,
    }
}

// ---------------------------------------------------------------------------
// Entry points.
// ---------------------------------------------------------------------------

/// Rank memories for each query (all validated before any is run).
pub fn recall(ctx: &Ctx, queries: &[Query]) -> Result<Vec<RecallResult>, Error> {
    crate::core::limits::batch("queries", queries.len())?;
    for (i, q) in queries.iter().enumerate() {
        validate(i, q)?;
    }
    let mut cache = DocCache::default();
    let results: Vec<RecallResult> = queries
        .iter()
        .map(|q| recall_with(ctx, q, &mut cache))
        .collect::<Result<_, _>>()?;
    count_use(
        ctx,
        results
            .iter()
            .flat_map(|r| r.results.iter().map(|s| &s.memory)),
    );
    Ok(results)
}

/// Count a read's use of the memories it handed out — `access-count` up by
/// one, `last-accessed` set to the clock's now — in one commit for the
/// whole call (seed 001's `access_count`/`last_accessed`; usage is a
/// signal for archival, never for ranking). Usage is bookkeeping: a store
/// that cannot take the write (a read-only file, a lock held too long)
/// still answers the read.
pub fn count_use<'a>(ctx: &Ctx, memories: impl Iterator<Item = &'a Memory>) {
    // In UTC: the stores keep only the instant of a use (a column beside
    // the row), so every store reads back the same value.
    let at = crate::types::Datetime {
        epoch_ms: ctx.now().epoch_ms,
        offset_minutes: 0,
    };
    let mut seen: BTreeSet<(String, u32)> = BTreeSet::new();
    let ops: Vec<crate::wit_store::WriteOp> = memories
        .filter(|m| seen.insert((m.id.clone(), m.revision)))
        .map(|m| {
            crate::wit_store::WriteOp::Touch(crate::wit_store::Access {
                memory: crate::types::MemoryRef {
                    id: m.id.clone(),
                    revision: m.revision,
                },
                at,
            })
        })
        .collect();
    if !ops.is_empty() {
        let _ = ctx.store.commit(&ops);
    }
}

/// Rank memories for one query.
pub fn recall_one(ctx: &Ctx, q: &Query) -> Result<RecallResult, Error> {
    validate(0, q)?;
    recall_with(ctx, q, &mut DocCache::default())
}

fn validate(i: usize, q: &Query) -> Result<(), Error> {
    if q.scope.tenant.trim().is_empty() {
        return Err(invalid(Some(i), "scope.tenant", "must not be empty"));
    }
    crate::core::limits::text(Some(i), "text", &q.text)?;
    crate::core::limits::recall_k(Some(i), q.k)?;
    crate::core::limits::instant(Some(i), "as_of", q.as_of)?;
    crate::core::limits::entities(Some(i), q.entities.len())?;
    if q.embedding
        .as_ref()
        .is_some_and(|e| e.iter().any(|x| !x.is_finite()))
    {
        return Err(invalid(Some(i), "embedding", "must hold finite numbers"));
    }
    Ok(())
}

/// Analysed memories by (id, revision, etag), shared by a batch's queries.
#[derive(Default)]
struct DocCache {
    docs: BTreeMap<(String, u32, u64), Doc>,
}

impl DocCache {
    fn get(&mut self, s: &Stored) -> &Doc {
        let key = (s.memory.id.clone(), s.memory.revision, s.etag);
        if !self.docs.contains_key(&key) && self.docs.len() >= DOC_CACHE_LIMIT {
            self.docs.clear();
        }
        self.docs
            .entry(key)
            .or_insert_with(|| crate::read::index::doc(&s.memory))
    }
}

// ---------------------------------------------------------------------------
// The query model.
// ---------------------------------------------------------------------------

/// Speaker labels of the agent's own turns in a conversation-shaped query.
const AGENT_LABELS: &[&str] = &[
    "assistant",
    "ai",
    "agent",
    "bot",
    "system",
    "助手",
    "助理",
    "系统",
];

/// Weight of one line of a query: lines the agent itself said ("Assistant:
/// …") say less about what the user is after than the user's own words.
fn line_weight(line: &str, agent_turn: f64) -> f64 {
    let head = line.trim_start();
    let Some(i) = head.find([':', '：']) else {
        return 1.0;
    };
    let label = head[..i].trim().trim_matches(['<', '>']).to_lowercase();
    if AGENT_LABELS.contains(&label.as_str()) {
        agent_turn
    } else {
        1.0
    }
}

/// The query before collection statistics.
struct Analysed {
    /// term → (weighted frequency, first appearance)
    terms: BTreeMap<String, (f64, usize)>,
    /// Entity postings asked for explicitly (`e=`).
    explicit: Vec<String>,
    /// Entity-value postings probed from names in the text (`v=`).
    probes: Vec<String>,
    /// What the query asks about (`read::coverage`).
    asked: crate::read::coverage::Asked,
}

fn analyse_query(q: &Query, ctx: &Ctx) -> Analysed {
    let w = &ctx.policy.rank;
    let lines: Vec<(f64, Vec<Token>)> = q
        .text
        .lines()
        .map(|l| (line_weight(l, w.agent_turn), analyze(l)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    let asked = crate::read::coverage::asked(&q.text);
    let mut terms: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut order = 0usize;
    for (lw, toks) in &lines {
        for t in toks {
            let unigram = t.cjk && t.part;
            let generic = asked.generic.contains(&t.term);
            let e = terms.entry(t.term.clone()).or_insert((0.0, order));
            e.0 += lw
                * if unigram { w.cjk_unigram } else { 1.0 }
                * if generic { w.generic } else { 1.0 };
            order += 1;
        }
    }
    // The other words of the concepts the query names ("怎么称呼我" also
    // asks for 叫我, name): searched and scored, at a lower weight.
    for t in &asked.expansions {
        terms.entry(t.clone()).or_insert((w.expansion, order));
        order += 1;
    }
    let explicit: Vec<String> = q
        .entities
        .iter()
        .filter(|e| !e.key.trim().is_empty() && !value_key(&e.value).is_empty())
        .map(entity_term)
        .collect();
    let explicit_values: BTreeSet<String> = q
        .entities
        .iter()
        .map(|e| entity_value_term(&value_key(&e.value)))
        .collect();
    // Entity-value probes: 1- to 3-grams of words written like names, the
    // latest lines first (the end of a conversation is what it is about).
    let mut probes: Vec<String> = Vec::new();
    'lines: for (_, toks) in lines.iter().rev() {
        let words: Vec<&Token> = toks.iter().filter(|t| !t.part).collect();
        for size in 1..=3 {
            for gram in words.windows(size) {
                if probes.len() >= w.entity_probe_limit {
                    break 'lines;
                }
                if !gram.iter().all(|t| t.named) {
                    continue;
                }
                let key: Vec<&str> = gram.iter().map(|t| t.term.as_str()).collect();
                let p = entity_value_term(&key.join(" "));
                if !explicit_values.contains(&p) && !probes.contains(&p) {
                    probes.push(p);
                }
            }
        }
    }
    Analysed {
        terms,
        explicit,
        probes,
        asked,
    }
}

/// The periods a query names, as [start, end) in epoch ms: its calendar
/// expressions ("on 8 May 2023", "2023年5月") when it has any, else its
/// relative ones ("上周", "last week") resolved at the as-of instant.
/// Recurring expressions ("every Monday") and stretches ahead ("until
/// Friday") name no period.
pub fn named_periods(text: &str, as_of: Datetime) -> Vec<(i64, i64)> {
    use crate::analysis::timeexpr::Precision;
    let found: Vec<_> = crate::analysis::timeexpr::find_all(text, as_of)
        .into_iter()
        .filter(|r| !r.recurring && !r.bound)
        .collect();
    let absolute = found.iter().any(|r| !r.relative);
    let day = crate::core::time::MS_PER_DAY;
    found
        .iter()
        .filter(|r| !absolute || !r.relative)
        .map(|r| {
            let start = r.at.epoch_ms;
            let (y, m, _) = crate::core::time::civil_from_days(crate::core::time::local_day(r.at));
            let days = match r.precision {
                Precision::Instant => return (start - 3_600_000, start + 3_600_000),
                Precision::Day => 1,
                Precision::Week => 7,
                Precision::Month => crate::analysis::timeexpr::days_in_month(y, m) as i64,
                Precision::Year => {
                    crate::core::time::days_from_civil(y + 1, 1, 1)
                        - crate::core::time::days_from_civil(y, 1, 1)
                }
            };
            (start, start.saturating_add(days * day))
        })
        .collect()
}

/// Build the query model from the store's statistics under the filter.
/// Returns it with the weighted terms that pick candidates.
fn query_model(
    ctx: &Ctx,
    q: &Query,
    f: &Filter,
    as_of: Datetime,
) -> Result<(QueryModel, Vec<WeightedTerm>), Error> {
    let w = &ctx.policy.rank;
    let a = analyse_query(q, ctx);
    let mut asked: Vec<String> = a.terms.keys().cloned().collect();
    asked.extend(a.explicit.iter().cloned());
    asked.extend(a.probes.iter().cloned());
    crate::core::limits::query_terms(asked.len())?;
    let (n, avg, df) = if asked.is_empty() {
        (0.0, 0.0, BTreeMap::new())
    } else {
        let s = ctx.store.stats(f, &asked)?;
        let df: BTreeMap<&str, u64> = asked
            .iter()
            .map(String::as_str)
            .zip(s.frequencies.iter().copied())
            .collect();
        (s.documents as f64, s.average_length, df)
    };
    let idf = |d: u64| {
        let d = d as f64;
        (1.0 + (n - d + 0.5) / (d + 0.5)).ln().max(0.0)
    };
    let k3 = w.query_k3.max(0.0);
    let mut ordered: Vec<(&String, &(f64, usize))> = a.terms.iter().collect();
    ordered.sort_by_key(|(_, (_, first))| *first);
    let terms: Vec<QueryTerm> = ordered
        .into_iter()
        .filter_map(|(t, (qtf, _))| {
            let d = df.get(t.as_str()).copied().filter(|d| *d > 0)?;
            Some(QueryTerm {
                term: t.clone(),
                weight: (k3 + 1.0) * qtf / (k3 + qtf),
                idf: idf(d),
            })
        })
        .collect();
    let mut weighted: Vec<WeightedTerm> = terms
        .iter()
        .map(|t| WeightedTerm {
            term: t.term.clone(),
            weight: t.weight * t.idf,
        })
        .collect();
    // Explicit entities are asked for even when nothing carries them (the
    // overlap then says so); names in the text only when something does.
    let mut entities: Vec<QueryEntity> = a
        .explicit
        .iter()
        .map(|e| QueryEntity {
            term: e.clone(),
            weight: 1.0,
        })
        .collect();
    for p in &a.probes {
        if df.get(p.as_str()).copied().unwrap_or(0) > 0 {
            entities.push(QueryEntity {
                term: p.clone(),
                weight: w.entity_mentioned,
            });
        }
    }
    for e in &entities {
        let d = df.get(e.term.as_str()).copied().unwrap_or(0);
        if d > 0 {
            weighted.push(WeightedTerm {
                term: e.term.clone(),
                weight: e.weight * idf(d),
            });
        }
    }
    let index_of = |t: &String| terms.iter().position(|q| &q.term == t);
    let groups: Vec<Vec<usize>> = a
        .asked
        .groups
        .iter()
        .map(|g| g.terms.iter().filter_map(index_of).collect())
        .collect();
    let group_labels = a.asked.groups.iter().map(|g| g.label.clone()).collect();
    let model = QueryModel {
        groups,
        group_labels,
        terms,
        entities,
        average_length: avg,
        as_of,
        intent: crate::read::intent::intent(&q.text),
        sensitivity_ceiling: q.sensitivity_ceiling.unwrap_or(DEFAULT_CEILING),
        periods: named_periods(&q.text, as_of),
    };
    Ok((model, weighted))
}

// ---------------------------------------------------------------------------
// Conversational context: consecutive turns explain each other.
// ---------------------------------------------------------------------------

/// Split a reference into the text before its trailing number, the number
/// and the number's width: `D7:8` → (`D7:`, 8, 1), `evt-0042` → (`evt-`, 42, 4).
fn split_sequence(r: &str) -> Option<(&str, u64, usize)> {
    let digits = r.len() - r.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 18 {
        return None;
    }
    let (prefix, n) = r.split_at(r.len() - digits);
    Some((prefix, n.parse().ok()?, digits))
}

/// A memory's place in the sequence of events of its source: the text
/// before the trailing number of its source reference, and that number
/// (`conv-7:D7:8`, `evt-1001`, `msg_17`).
pub fn sequence_key(m: &Memory) -> Option<(&str, u64)> {
    split_sequence(m.provenance.source.reference.as_deref()?).map(|(p, n, _)| (p, n))
}

/// The source references of the events just before and after a memory's
/// (zero-padding kept: `evt-0042` → `evt-0041`, `evt-0043`).
fn neighbour_refs(m: &Memory) -> Vec<String> {
    let Some(r) = m.provenance.source.reference.as_deref() else {
        return Vec::new();
    };
    let Some((prefix, n, digits)) = split_sequence(r) else {
        return Vec::new();
    };
    let width = if digits > 1 && r[prefix.len()..].starts_with('0') {
        digits
    } else {
        0
    };
    [n.checked_sub(1), n.checked_add(1)]
        .into_iter()
        .flatten()
        .map(|x| format!("{prefix}{x:0width$}"))
        .collect()
}

/// Consecutive events of one source that happened at the same instant, in
/// one scope, are turns of one conversation: each is context for the other.
pub fn neighbours(a: &Memory, b: &Memory) -> bool {
    if a.scope != b.scope || event_time(a).epoch_ms != event_time(b).epoch_ms {
        return false;
    }
    match (sequence_key(a), sequence_key(b)) {
        (Some((pa, na)), Some((pb, nb))) => pa == pb && na.abs_diff(nb) == 1,
        _ => false,
    }
}

/// Indices of in-force candidates with lexical evidence, best first.
fn best_lexical(candidates: &[Stored], evidence: &[Evidence]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..candidates.len())
        .filter(|&i| evidence[i].in_force && evidence[i].lexical.raw > 0.0)
        .collect();
    order.sort_by(|&a, &b| {
        evidence[b]
            .lexical
            .raw
            .total_cmp(&evidence[a].lexical.raw)
            .then_with(|| candidates[a].memory.id.cmp(&candidates[b].memory.id))
            .then_with(|| {
                candidates[b]
                    .memory
                    .revision
                    .cmp(&candidates[a].memory.revision)
            })
    });
    order
}

/// Read the conversational neighbours of the best lexical matches that are
/// not candidates yet: an answer often shares no word with the question
/// its neighbouring turn asked. One indexed lookup by source-reference
/// postings, at most two records per expanded match. Returns the
/// neighbours and how many records the store handed back.
fn fetch_neighbours(
    ctx: &Ctx,
    f: &Filter,
    candidates: &[Stored],
    evidence: &[Evidence],
) -> Result<(Vec<Stored>, u32), Error> {
    let mut known: BTreeSet<String> = candidates
        .iter()
        .filter_map(|s| s.memory.provenance.source.reference.clone())
        .collect();
    let mut expanded: Vec<&Memory> = Vec::new();
    let mut wanted: Vec<WeightedTerm> = Vec::new();
    for i in best_lexical(candidates, evidence)
        .into_iter()
        .take(ctx.policy.rank.context_expand)
    {
        let m = &candidates[i].memory;
        expanded.push(m);
        for r in neighbour_refs(m) {
            if known.insert(r.clone()) {
                wanted.push(WeightedTerm {
                    term: source_term(&r),
                    weight: 1.0,
                });
            }
        }
    }
    if wanted.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let limit = (2 * wanted.len()) as u32;
    let found = ctx.store.search(f, &wanted, limit)?;
    let read = found.len() as u32;
    let out = found
        .into_iter()
        .filter(|s| expanded.iter().any(|m| neighbours(m, &s.memory)))
        .map(|s| Stored {
            // Counts of the source terms searched here, not the query's.
            frequencies: Vec::new(),
            ..s
        })
        .collect();
    Ok((out, read))
}

/// Give every in-force candidate the best raw lexical score of its
/// in-force neighbours.
fn assign_context(candidates: &[Stored], evidence: &mut [Evidence]) {
    let mut seq: Vec<(&str, u64, usize)> = candidates
        .iter()
        .enumerate()
        .filter(|(i, _)| evidence[*i].in_force)
        .filter_map(|(i, s)| sequence_key(&s.memory).map(|(p, n)| (p, n, i)))
        .collect();
    seq.sort();
    let mut context = vec![(0.0f64, 0.0f64); candidates.len()];
    for w in seq.windows(2) {
        let (i, j) = (w[0].2, w[1].2);
        if neighbours(&candidates[i].memory, &candidates[j].memory) {
            for (a, b) in [(i, j), (j, i)] {
                let c = &mut context[a];
                c.0 = c.0.max(evidence[b].lexical.raw);
                c.1 = c.1.max(evidence[b].lexical.coverage);
            }
        }
    }
    for (e, (raw, coverage)) in evidence.iter_mut().zip(context) {
        e.context_raw = raw;
        e.context_coverage = coverage;
    }
}

// ---------------------------------------------------------------------------
// One query.
// ---------------------------------------------------------------------------

/// What two memories must share to be duplicates: kind, event time,
/// entities and text (lowercased, spaces collapsed). The same words about
/// another day or another service are another memory.
fn duplicate_key(m: &Memory) -> String {
    let mut entities: Vec<String> = m.entities.iter().map(entity_term).collect();
    entities.sort();
    let text: Vec<&str> = m.text.split_whitespace().collect();
    format!(
        "{}|{}|{}|{}",
        crate::core::model::kind_name(m.kind),
        event_time(m).epoch_ms,
        entities.join(","),
        text.join(" ").to_lowercase()
    )
}

fn recall_with(ctx: &Ctx, q: &Query, cache: &mut DocCache) -> Result<RecallResult, Error> {
    let policy = ctx.policy;
    let now = ctx.now();
    let as_of = q.as_of.unwrap_or(now);
    let f = recall_filter(q, as_of, now);
    let (model, weighted) = query_model(ctx, q, &f, as_of)?;

    // Candidates: index terms and entity keys, then (with an embedding) the
    // newest records, then conversational neighbours of the best matches.
    let mut candidates: Vec<Stored> = if weighted.is_empty() {
        Vec::new()
    } else {
        ctx.store
            .search(&f, &weighted, policy.recall_candidate_limit)?
    };
    if q.embedding.is_some() && policy.rank.embedding_scan_limit > 0 {
        let seen: BTreeSet<(String, u32)> = candidates
            .iter()
            .map(|s| (s.memory.id.clone(), s.memory.revision))
            .collect();
        for s in ctx.store.find(&f, policy.rank.embedding_scan_limit)? {
            if !seen.contains(&(s.memory.id.clone(), s.memory.revision)) {
                candidates.push(s);
            }
        }
    }
    // The store counted the query's terms in what its search returned;
    // anything else (the embedding scan, records indexed before the store
    // kept counts) is analysed here, with the same result.
    let history = model.intent.history;
    let mut gather = |s: &Stored| {
        // A history question uses past revisions as evidence of how it was.
        let past = history
            && matches!(s.memory.status, Status::Superseded | Status::Expired)
            && effective_start(&s.memory).epoch_ms <= as_of.epoch_ms;
        let in_force = in_force_at(&s.memory, as_of) || past;
        let counts =
            Counts::from_store(&model, s).unwrap_or_else(|| Counts::of_doc(&model, cache.get(s)));
        evidence(&model, q, &s.memory, &counts, in_force, policy)
    };
    let mut evid: Vec<Evidence> = candidates.iter().map(&mut gather).collect();
    let mut read = candidates.len() as u32;
    if policy.rank.context > 0.0 {
        let (found, n) = fetch_neighbours(ctx, &f, &candidates, &evid)?;
        read += n;
        for s in found {
            evid.push(gather(&s));
            candidates.push(s);
        }
        assign_context(&candidates, &mut evid);
    }

    let best_raw = evid
        .iter()
        .filter(|e| e.in_force)
        .map(|e| contextual_raw(e, policy))
        .fold(0.0f64, f64::max);
    let mut scored: Vec<(ScoredMemory, usize)> = candidates
        .into_iter()
        .zip(&evid)
        .map(|(s, e)| (score(&model, q, s.memory, e, best_raw, policy), e.covered))
        .collect();
    scored.sort_by(|(a, _), (b, _)| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.memory.id.cmp(&b.memory.id))
            .then_with(|| b.memory.revision.cmp(&a.memory.revision))
    });
    let (mut scored, covered_of): (Vec<ScoredMemory>, Vec<usize>) = scored.into_iter().unzip();

    // Deduplicate: a memory that repeats a better-ranked admitted one (same
    // kind, text, event time and entities) adds nothing to a context.
    // Past the k-th distinct admitted memory nothing is shown, so the rest
    // need no key (unless refusals are explained).
    let k = if q.k == 0 { DEFAULT_K } else { q.k } as usize;
    let mut shown: BTreeMap<String, String> = BTreeMap::new();
    for s in scored.iter_mut().filter(|s| s.admission.admit) {
        if shown.len() >= k && !q.explain_rejected {
            break;
        }
        let key = duplicate_key(&s.memory);
        match shown.get(&key) {
            Some(first) => {
                s.admission.admit = false;
                s.admission.reason = Some(Reason::new(ReasonCode::AdmissionDuplicate, &[first]));
            }
            None => {
                shown.insert(key, s.memory.id.clone());
            }
        }
    }
    // Abstention: when the best candidate covers too little of what the
    // query asks about, nothing stored answers it (read::coverage).
    let needed = crate::read::coverage::needed(
        model.groups.len(),
        policy.rank.abstain_share,
        policy.rank.abstain_max_groups,
        policy.rank.abstain_query_groups,
    );
    let best_covered = scored
        .iter()
        .zip(&covered_of)
        .filter(|(s, _)| s.admission.admit)
        .map(|(_, c)| *c)
        .max()
        .unwrap_or(0);
    let mut abstention = None;
    // With the caller's embedding the query has a semantic signal of its
    // own: lexical coverage no longer decides that nothing answers it.
    if best_covered < needed && q.embedding.is_none() {
        let why = Reason::new(
            ReasonCode::AdmissionTooLittleCovered,
            &[
                &best_covered.to_string(),
                &model.groups.len().to_string(),
                &model.group_labels.join(", "),
                &needed.to_string(),
            ],
        );
        for s in scored.iter_mut().filter(|s| s.admission.admit) {
            s.admission.admit = false;
            s.admission.reason = Some(why.clone());
        }
        abstention = Some(why);
    } else if !scored.iter().any(|s| s.admission.admit) {
        abstention = Some(Reason::new(
            if scored.is_empty() {
                ReasonCode::AdmissionNothingInScope
            } else {
                ReasonCode::AdmissionNoneAdmitted
            },
            &[],
        ));
    }
    let (admitted, refused): (Vec<_>, Vec<_>) = scored.into_iter().partition(|s| s.admission.admit);
    Ok(RecallResult {
        abstention,
        query_id: q.id.clone(),
        results: admitted.into_iter().take(k).collect(),
        not_admitted: if q.explain_rejected {
            refused.into_iter().take(k).collect()
        } else {
            Vec::new()
        },
        candidates_read: read,
    })
}

#[cfg(test)]
#[path = "recall_tests/mod.rs"]
mod tests;
