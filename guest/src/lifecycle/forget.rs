//! Deletion on request: by id, by key, by text fragment and by source event,
//! cascading to the memories derived from what is deleted. Deletion erases
//! every revision of a memory with its index terms, scrubs the erased text
//! from the owner's event payloads, and leaves tombstone fingerprints (never
//! the content) so that the same content is rejected if it is re-derived
//! (seed 001's leaked password, seed 002 §7.17, seed 003 "删除、隐私与安全").
//!
//! Everything is scoped like the memory it replaces: a tombstone and a
//! scrub belong to the erased memory's owner (tenant, user, project), or to
//! the selector's scope for a fragment or a source, so one user's forget
//! never blocks or scrubs another user.

use std::collections::{BTreeMap, BTreeSet};

use crate::core::api::Ctx;
use crate::core::errors::invalid;
use crate::core::model::filter;
use crate::lifecycle::tombstone::{for_reference, for_text, normalise, owner_of, Erased};
use crate::types::{
    Error, ForgetReport, ForgetSelector, Memory, MemoryKind, Payload, Scope, SemanticPayload,
};
use crate::wit_store::{Event, ScopeMatch, Scrub, Stored, Tombstone, WeightedTerm, WriteOp};
use crate::write::identity::{key_filter, memory_id, scope_seed};
use crate::write::remember::commit_with_retries;

/// Delete what the selectors name, in one atomic commit.
pub fn forget(ctx: &Ctx, selectors: &[ForgetSelector]) -> Result<ForgetReport, Error> {
    crate::core::limits::batch("selectors", selectors.len())?;
    for (i, s) in selectors.iter().enumerate() {
        validate(ctx, i, s)?;
    }
    commit_with_retries(ctx, || plan(ctx, selectors))
}

fn validate(ctx: &Ctx, i: usize, s: &ForgetSelector) -> Result<(), Error> {
    let tenant = |scope: &Scope| {
        if scope.tenant.trim().is_empty() {
            Err(invalid(Some(i), "scope.tenant", "must not be empty"))
        } else {
            Ok(())
        }
    };
    match s {
        ForgetSelector::MemoryId(id) if id.trim().is_empty() => {
            Err(invalid(Some(i), "memory_id", "must not be empty"))
        }
        ForgetSelector::MemoryId(_) => Ok(()),
        ForgetSelector::Key(k) => {
            tenant(&k.scope)?;
            if k.subject.trim().is_empty() {
                return Err(invalid(Some(i), "subject", "must not be empty"));
            }
            if k.predicate.trim().is_empty() {
                return Err(invalid(Some(i), "predicate", "must not be empty"));
            }
            Ok(())
        }
        ForgetSelector::Text(t) => {
            tenant(&t.scope)?;
            crate::core::limits::text(Some(i), "text", &t.text)?;
            let min = ctx.policy.lifecycle.min_forget_fragment_chars;
            if normalise(&t.text).chars().count() < min {
                return Err(invalid(
                    Some(i),
                    "text",
                    format!("a fragment to forget needs at least {min} characters"),
                ));
            }
            Ok(())
        }
        ForgetSelector::SourceRef(s) => {
            tenant(&s.scope)?;
            if s.source_ref.trim().is_empty() {
                return Err(invalid(Some(i), "source_ref", "must not be empty"));
            }
            Ok(())
        }
    }
}

/// Everything one forget call erases.
#[derive(Default)]
struct Plan {
    /// id → its revisions, in the order found.
    erased: BTreeMap<String, Vec<Memory>>,
    deleted: Vec<String>,
    cascaded: Vec<String>,
    tombstones: Vec<Tombstone>,
    /// Exact strings to scrub from the event payloads within a scope.
    scrub: Vec<Scrub>,
    events: Vec<WriteOp>,
}

impl Plan {
    /// Erase every revision of `id`; `direct` = named by a selector. Its
    /// tombstones and scrubs belong to the memory's owner; the sources it
    /// came from get `origin` tombstones (a candidate from them is
    /// re-derivation, never a re-statement).
    fn erase(
        &mut self,
        id: &str,
        revisions: Vec<Stored>,
        direct: bool,
        kind: &str,
        ctx: &Ctx,
        keys: &Erased,
    ) -> Result<(), Error> {
        if revisions.is_empty() || self.erased.contains_key(id) {
            return Ok(());
        }
        let now = ctx.now();
        let mut revs: Vec<Memory> = revisions.into_iter().map(|s| s.memory).collect();
        revs.sort_by_key(|m| m.revision);
        for m in &revs {
            let owner = owner_of(&m.scope);
            let key = keys.key(&owner)?;
            if let Some(t) = for_text(&key, &owner, &m.text, kind, now) {
                self.tombstone(t);
            }
            let origins = m
                .provenance
                .source
                .reference
                .iter()
                .chain(&m.provenance.source_event_ids)
                .filter(|r| !r.trim().is_empty());
            for r in origins {
                self.tombstone(for_reference(&key, &owner, "origin", r, now));
            }
            self.scrub(&owner, &m.text);
        }
        self.erased.insert(id.to_string(), revs);
        if direct {
            self.deleted.push(id.to_string());
        } else {
            self.cascaded.push(id.to_string());
        }
        Ok(())
    }

    fn tombstone(&mut self, t: Tombstone) {
        if !self.tombstones.iter().any(|x| same_tombstone(x, &t)) {
            self.tombstones.push(t);
        }
    }

    fn scrub(&mut self, scope: &Scope, text: &str) {
        let fragment = text.trim();
        if fragment.is_empty()
            || self
                .scrub
                .iter()
                .any(|s| s.scope == *scope && s.fragment == fragment)
        {
            return;
        }
        self.scrub.push(Scrub {
            scope: scope.clone(),
            fragment: fragment.to_string(),
        });
    }
}

fn same_tombstone(a: &Tombstone, b: &Tombstone) -> bool {
    a.scope == b.scope && a.fingerprint == b.fingerprint && a.length == b.length
}

fn plan(ctx: &Ctx, selectors: &[ForgetSelector]) -> Result<(ForgetReport, Vec<WriteOp>), Error> {
    let now = ctx.now();
    let keys = Erased::new(ctx.store);
    let mut p = Plan::default();
    // Derivation roots of the cascade: (reference, scope to look in).
    let mut roots: Vec<(String, Scope)> = Vec::new();
    for (i, sel) in selectors.iter().enumerate() {
        let before = (p.deleted.len(), p.cascaded.len());
        let scope = match sel {
            ForgetSelector::MemoryId(id) => {
                let revs = ctx.store.revisions(id.trim())?;
                let Some(first) = revs.first() else {
                    return Err(engram_contract::item::not_found(
                        i,
                        format!("no memory with id '{}'", id.trim()),
                    ));
                };
                let scope = first.memory.scope.clone();
                p.erase(id.trim(), revs, true, "memory", ctx, &keys)?;
                scope
            }
            ForgetSelector::Key(k) => {
                let mut ids: BTreeSet<String> = ctx
                    .store
                    .find(
                        &all_statuses(key_filter(
                            &k.scope,
                            &k.subject,
                            &k.predicate,
                            k.condition.as_deref(),
                        )),
                        u32::MAX,
                    )?
                    .into_iter()
                    .map(|s| s.memory.id)
                    .collect();
                // The key's own id, whatever the case of the stored key.
                ids.insert(memory_id(
                    MemoryKind::Semantic,
                    &scope_seed(&k.scope),
                    &Payload::Semantic(SemanticPayload {
                        subject: k.subject.clone(),
                        predicate: k.predicate.clone(),
                        object: String::new(),
                        condition: k.condition.clone(),
                    }),
                    "",
                ));
                for id in ids {
                    let revs = ctx.store.revisions(&id)?;
                    p.erase(&id, revs, true, "key", ctx, &keys)?;
                }
                k.scope.clone()
            }
            ForgetSelector::Text(t) => {
                let fragment = normalise(&t.text);
                for (id, variants) in containing(ctx, &t.scope, &fragment)? {
                    for v in variants {
                        p.scrub(&t.scope, &v);
                    }
                    let revs = ctx.store.revisions(&id)?;
                    p.erase(&id, revs, true, "text", ctx, &keys)?;
                }
                let owner = owner_of(&t.scope);
                let key = keys.key(&owner)?;
                if let Some(tb) = for_text(&key, &owner, &t.text, "text", now) {
                    p.tombstone(tb);
                }
                p.scrub(&t.scope, &t.text);
                t.scope.clone()
            }
            ForgetSelector::SourceRef(s) => {
                let r = s.source_ref.trim().to_string();
                let owner = owner_of(&s.scope);
                let key = keys.key(&owner)?;
                p.tombstone(for_reference(&key, &owner, "source", &r, now));
                roots.push((r, s.scope.clone()));
                s.scope.clone()
            }
        };
        // Memories derived from what this selector deleted.
        for id in p.deleted[before.0..].iter().chain(&p.cascaded[before.1..]) {
            if let Some(revs) = p.erased.get(id) {
                roots.extend(
                    derivation_refs(revs)
                        .into_iter()
                        .map(|r| (r, scope.clone())),
                );
            }
        }
        cascade(ctx, &mut p, &mut roots, &keys)?;
        let changed = p.deleted.len() - before.0 + p.cascaded.len() - before.1;
        p.events.push(WriteOp::Append(Event {
            session: scope.thread.clone().unwrap_or_else(|| "default".into()),
            scope: scope.clone(),
            kind: "forget".into(),
            payload: format!(
                "forget ({}): {} memories erased: {}",
                selector_name(sel),
                changed,
                p.deleted[before.0..]
                    .iter()
                    .chain(&p.cascaded[before.1..])
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            at: now,
        }));
    }

    // Only the owner's own tombstones count as already there: whether a
    // wider scope erased the same content is not this report's to tell.
    let mut new_tombstones: Vec<Tombstone> = Vec::new();
    for t in &p.tombstones {
        if !keys.owned(&t.scope)?.iter().any(|x| same_tombstone(x, t)) {
            new_tombstones.push(t.clone());
        }
    }
    let mut ops: Vec<WriteOp> = p.erased.keys().cloned().map(WriteOp::Erase).collect();
    // Longest first, so a text containing a shorter one is scrubbed whole.
    let mut scrub = std::mem::take(&mut p.scrub);
    scrub.sort_by(|a, b| {
        b.fragment
            .len()
            .cmp(&a.fragment.len())
            .then_with(|| a.fragment.cmp(&b.fragment))
    });
    ops.extend(scrub.into_iter().map(WriteOp::ScrubEvents));
    ops.extend(new_tombstones.iter().cloned().map(WriteOp::Tombstone));
    ops.append(&mut p.events);
    Ok((
        ForgetReport {
            deleted: p.deleted,
            cascaded: p.cascaded,
            tombstones: new_tombstones.len() as u32,
        },
        ops,
    ))
}

fn selector_name(s: &ForgetSelector) -> &'static str {
    match s {
        ForgetSelector::MemoryId(_) => "memory",
        ForgetSelector::Key(_) => "key",
        ForgetSelector::Text(_) => "text",
        ForgetSelector::SourceRef(_) => "source",
    }
}

fn all_statuses(mut f: crate::wit_store::Filter) -> crate::wit_store::Filter {
    f.statuses = Vec::new();
    f.exclude_archived = false;
    f
}

/// The references other memories may cite as their source when derived from
/// one of these revisions: its id and its external id.
fn derivation_refs(revs: &[Memory]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in revs {
        for r in std::iter::once(&m.id).chain(m.provenance.external_id.as_ref()) {
            if !out.contains(r) {
                out.push(r.clone());
            }
        }
    }
    out
}

/// Erase what was derived from `roots`, level by level (bounded depth).
fn cascade(
    ctx: &Ctx,
    p: &mut Plan,
    roots: &mut Vec<(String, Scope)>,
    keys: &Erased,
) -> Result<(), Error> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for _ in 0..ctx.policy.lifecycle.cascade_depth.max(1) {
        let frontier: Vec<(String, Scope)> = std::mem::take(roots)
            .into_iter()
            .filter(|(r, _)| seen.insert(r.clone()))
            .collect();
        if frontier.is_empty() {
            break;
        }
        for (r, scope) in frontier {
            // Derived memories may sit in any thread or agent of the
            // same user/project.
            let owner = Scope {
                thread: None,
                agent: None,
                ..scope.clone()
            };
            let mut f = filter(&owner, ScopeMatch::Within);
            f.source_ref = Some(r);
            let ids: BTreeSet<String> = ctx
                .store
                .find(&f, u32::MAX)?
                .into_iter()
                .map(|s| s.memory.id)
                .collect();
            for id in ids {
                if p.erased.contains_key(&id) {
                    continue;
                }
                let revs = ctx.store.revisions(&id)?;
                p.erase(&id, revs, false, "memory", ctx, keys)?;
                if let Some(erased) = p.erased.get(&id) {
                    let next = derivation_refs(erased);
                    let scope = erased
                        .first()
                        .map(|m| m.scope.clone())
                        .unwrap_or_else(|| scope.clone());
                    roots.extend(next.into_iter().map(|r| (r, scope.clone())));
                }
            }
        }
    }
    Ok(())
}

/// Memories visible in `scope` with a revision containing `fragment`
/// (normalised), with the fragment as written in them (for scrubbing).
/// Candidates come from the fragment's own index terms; small scopes are
/// also scanned, for fragments that are not whole index terms.
fn containing(
    ctx: &Ctx,
    scope: &Scope,
    fragment: &str,
) -> Result<BTreeMap<String, BTreeSet<String>>, Error> {
    let f = filter(scope, ScopeMatch::Within);
    let mut terms = crate::analysis::text::terms(fragment);
    terms.sort();
    terms.dedup();
    let mut candidates: Vec<Stored> = Vec::new();
    if !terms.is_empty() {
        let weighted: Vec<WeightedTerm> = terms
            .iter()
            .map(|t| WeightedTerm {
                term: t.clone(),
                weight: 1.0,
            })
            .collect();
        candidates.extend(ctx.store.search(&f, &weighted, u32::MAX)?);
    }
    let limit = ctx.policy.lifecycle.forget_scan_limit;
    if ctx.store.stats(&f, &[])?.documents <= limit as u64 {
        candidates.extend(ctx.store.find(&f, limit)?);
    }
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in candidates {
        let hits: Vec<String> = strings_of(&s.memory)
            .into_iter()
            .flat_map(|t| occurrences(t, fragment))
            .collect();
        if !hits.is_empty() {
            out.entry(s.memory.id.clone()).or_default().extend(hits);
        }
    }
    Ok(out)
}

/// Every piece of text a memory holds.
fn strings_of(m: &Memory) -> Vec<&str> {
    let mut out: Vec<&str> = vec![m.text.as_str()];
    match &m.payload {
        Payload::Semantic(p) => {
            out.extend([p.subject.as_str(), p.predicate.as_str(), p.object.as_str()]);
            out.extend(p.condition.as_deref());
        }
        Payload::Episodic(e) => {
            out.extend(e.time_expression.as_deref());
            out.extend(e.actors.iter().map(String::as_str));
            out.extend(e.context.iter().map(|x| x.value.as_str()));
            out.extend(e.actions.iter().map(String::as_str));
            out.extend(e.outcome.as_deref());
        }
        Payload::Procedural(p) => {
            out.push(p.goal.as_str());
            out.extend(p.preconditions.iter().map(String::as_str));
            out.extend(p.steps.iter().map(|s| s.action.as_str()));
            out.extend(p.guards.iter().map(String::as_str));
            out.extend(p.recovery.iter().map(String::as_str));
            out.extend(p.authority.as_deref());
        }
    }
    out.extend(m.entities.iter().map(|e| e.value.as_str()));
    out
}

/// The spans of `text` that equal `fragment` (already normalised) once
/// lowercased, as written in `text`.
fn occurrences(text: &str, fragment: &str) -> Vec<String> {
    let want: Vec<char> = fragment.chars().collect();
    if want.is_empty() || !text.to_lowercase().contains(fragment) {
        return Vec::new();
    }
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let n = bounds.len() - 1;
    let mut out = Vec::new();
    if want.len() > n {
        return vec![fragment.to_string()];
    }
    for i in 0..=(n - want.len()) {
        let span = &text[bounds[i]..bounds[i + want.len()]];
        if span.to_lowercase() == fragment && !out.iter().any(|s: &String| s == span) {
            out.push(span.to_string());
        }
    }
    if out.is_empty() {
        // Lowercasing changed the length: scrub the normalised form at least.
        out.push(fragment.to_string());
    }
    out
}
