//! Context packing: assemble one model turn's context under a token budget
//! (seed 001 BudgetedChatMemory, seed 002 §7.15, seed 003 Context Builder,
//! seed 000 §六.1), with a manifest of what went in, what was compressed and
//! what was dropped, and why.
//!
//! **Sections**, in order of precedence (configuration: `PackPolicy`):
//! system policy → current task state → recent conversation → recalled
//! memory (facts, past events, procedures: one section each) → knowledge →
//! artifact summaries. Memories do not gain precedence for being stored:
//! every conversation message outranks them.
//!
//! **Priorities.** Messages default to system 100, the user's original
//! request 90, user 70, assistant 50, tool result 30. The original request
//! is the first `user` message, unless the caller marks user messages at or
//! above `never_drop_priority` (90) itself, in which case those are.
//! The system policy and every message at or above 90 are never compressed
//! or dropped; if they alone do not fit, packing fails with
//! `limit-exceeded`. Task state is 80, memories 20, knowledge 15, artifacts
//! 10.
//!
//! **Budgeting** never exceeds the budget (as counted by `tokens`). Under
//! pressure, items are first compressed, lowest priority first (oldest
//! message, lowest-ranked memory first among equals), and only when
//! everything compressible is compressed are items dropped, in the same
//! order. Space freed by the last drop is then handed back, highest
//! priority first (a compressed item restored in full, a dropped one of the
//! same priority put back), never to an item of lower priority than one
//! that stays dropped. A compressed item keeps a one-line summary with its
//! key figures (`compress`), so the agent knows a tool step was done.
//!
//! **Memory is data.** Every recalled memory, knowledge snippet and
//! artifact summary is one line: a label `[kind · date · source · …]` and
//! its text as a JSON string, so nothing inside it can start a line, open a
//! section or pass for policy. Conversation and task state keep their lines
//! but every continuation line is indented (and the system policy's own
//! `#` lines), so only the packer's headings start a line with `## `.
//!
//! **Manifest.** Items are referenced by `id#revision` (memories), the
//! message's reference or `message:N`, the snippet's reference or
//! `knowledge:N` / `artifact:N`, `state:KEY`, and `system`. Dropped items
//! carry their reason: `not-admitted` (refused by recall's admission gate,
//! or below the confidence floor), `superseded` (an older revision of a
//! recalled memory, or a same-key memory of a broader scope shadowed by a
//! narrower or more authoritative one), `expired` (older expired revisions,
//! and expired memories matching the query), `duplicate`, `budget`.
//!
//! Deterministic: the same request on the same store gives byte-identical
//! output.

use std::collections::BTreeSet;

use crate::analysis::tokens::{count, measure, tokens_of, Centi};
use crate::context::compress::{summarize, SummaryRules};
use crate::core::api::Ctx;
use crate::core::config::{PackPart, PackPolicy};
use crate::core::errors::invalid;
use crate::core::model::{kind_name, semantic_key, source_label, status_name};
use crate::core::time::date_string;
use crate::types::{
    CompressedItem, Datetime, DropReason, DroppedItem, Error, Memory, MemoryKind, Message,
    PackRequest, PackSection, PackedContext, Payload, Query, Role, Sensitivity, SourceKind, Status,
};
use crate::wit_store::{ScopeMatch, WeightedTerm};

/// Assemble a context under `request.budget` tokens.
pub fn pack(ctx: &Ctx, request: &PackRequest) -> Result<PackedContext, Error> {
    validate(request)?;
    let cfg = &ctx.policy.pack;
    let now = ctx.now();
    let rules = summary_rules(cfg);
    let priorities = message_priorities(cfg, request);
    let mut drops: Vec<DroppedItem> = Vec::new();
    let mut items: Vec<Item> = Vec::new();

    push_system(cfg, request, &mut items);
    push_state(cfg, &rules, request, &mut items);
    push_messages(cfg, &rules, request, &priorities, &mut items);
    let query = recall_query(cfg, request, &priorities);
    let recalled = gather_memories(ctx, request, &query, now, &mut drops)?;
    let kept = dedup(cfg, request, recalled, &mut drops);
    let used: Vec<Memory> = kept.iter().filter_map(|k| k.memory.clone()).collect();
    let choice = turn_choice(ctx, request);
    push_retrieved(cfg, &rules, kept, choice.as_ref(), &mut items);

    // Sections in configured order; items keep their order within one.
    let section_of: Vec<usize> = items.iter().map(|it| section_index(cfg, it.part)).collect();
    let headings: Vec<String> = cfg
        .sections
        .iter()
        .map(|s| format!("{}\n", s.heading.replace("{date}", &date_string(now))))
        .collect();
    let layout = Layout {
        items: &items,
        section_of: &section_of,
        heading_cost: headings.iter().map(|h| measure(h)).collect(),
        always: cfg.sections.iter().map(|s| s.always).collect(),
    };

    // The estimate is additive across the lines the packer joins, so the
    // fitted total is the text's count; should that ever not hold, the
    // overshoot is reserved and the fit redone.
    let limit = request.budget as Centi * 100;
    let mut reserve: Centi = 0;
    loop {
        let forms = fit(&layout, limit.saturating_sub(reserve), request.budget)?;
        let (text, mut sections) = render(cfg, &layout, &headings, &forms);
        let tokens = count(&text);
        if tokens <= request.budget {
            // What went into the context was used: counted, like a recall.
            let packed: BTreeSet<&str> = items
                .iter()
                .zip(&forms)
                .filter(|(_, f)| **f != Form::Dropped)
                .map(|(it, _)| it.reference.as_str())
                .collect();
            crate::read::recall::count_use(
                ctx,
                used.iter().filter(|m| packed.contains(mem_ref(m).as_str())),
            );
            let listed: u32 = sections.iter().map(|s| s.tokens).sum();
            if let Some(last) = sections.last_mut() {
                last.tokens = last.tokens.saturating_add(tokens).saturating_sub(listed);
            }
            return Ok(PackedContext {
                text,
                tokens,
                budget: request.budget,
                sections,
                dropped: manifest_drops(&items, &section_of, &forms, drops),
                compressed: manifest_compressed(&items, &section_of, &forms),
            });
        }
        reserve += (tokens - request.budget) as Centi * 100;
    }
}

// ---------------------------------------------------------------------------
// Items
// ---------------------------------------------------------------------------

/// Memory texts at least this long (normalised) that already appear in the
/// conversation are duplicates.
const MIN_CONTAINED_CHARS: usize = 8;

/// One candidate item of the context.
struct Item {
    part: PackPart,
    reference: String,
    priority: u8,
    mandatory: bool,
    /// Among equal priorities, lower gives way first.
    victim: u64,
    full: String,
    full_cost: Centi,
    /// The compressed form: its line, cost and summary.
    short: Option<(String, Centi, String)>,
}

impl Item {
    fn new(
        part: PackPart,
        reference: String,
        priority: u8,
        mandatory: bool,
        victim: u64,
        full: String,
        short: Option<(String, String)>,
    ) -> Item {
        let full_cost = measure(&full);
        let short = short
            .filter(|(_, summary)| !mandatory && !summary.trim().is_empty())
            .map(|(text, summary)| (measure(&text), text, summary))
            .filter(|(cost, _, _)| *cost < full_cost)
            .map(|(cost, text, summary)| (text, cost, summary));
        Item {
            part,
            reference,
            priority,
            mandatory,
            victim,
            full,
            full_cost,
            short,
        }
    }
}

fn push_system(cfg: &PackPolicy, request: &PackRequest, items: &mut Vec<Item>) {
    let system = normalise(&request.system);
    if system.trim().is_empty() {
        return;
    }
    items.push(Item::new(
        PackPart::System,
        "system".into(),
        priority_of(cfg, PackPart::System),
        true,
        0,
        format!("{}\n", guard_headings(system.trim())),
        None,
    ));
}

/// Task state entries; later entries give way first.
fn push_state(
    cfg: &PackPolicy,
    rules: &SummaryRules,
    request: &PackRequest,
    items: &mut Vec<Item>,
) {
    let n = request.state.len() as u64;
    for (i, e) in request.state.iter().enumerate() {
        let key = one_line(&e.key);
        let value = normalise(&e.value);
        let summary = summarize(&value, rules);
        items.push(Item::new(
            PackPart::State,
            format!("state:{key}"),
            priority_of(cfg, PackPart::State),
            false,
            n - i as u64,
            format!("- {key}: {}\n", indent(value.trim())),
            Some((format!("- {key}: {summary}\n"), summary)),
        ));
    }
}

/// Messages, oldest first; among equal priorities older ones give way first.
fn push_messages(
    cfg: &PackPolicy,
    rules: &SummaryRules,
    request: &PackRequest,
    priorities: &[u8],
    items: &mut Vec<Item>,
) {
    for (i, (m, priority)) in request.messages.iter().zip(priorities).enumerate() {
        let mandatory = *priority >= cfg.never_drop_priority;
        let role = role_name(m.role);
        let label = if m.role == Role::User && mandatory {
            format!("{role} · original request")
        } else {
            role.to_string()
        };
        let text = normalise(&m.text);
        let reference = m
            .reference
            .as_deref()
            .map(one_line)
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| format!("message:{i}"));
        let summary = summarize(&text, rules);
        items.push(Item::new(
            PackPart::Conversation,
            reference,
            *priority,
            mandatory,
            i as u64,
            format!("[{label}] {}\n", indent(text.trim())),
            Some((format!("[{role} · compressed] {summary}\n"), summary)),
        ));
    }
}

/// Memories (facts, events, procedures), knowledge and artifacts: one line
/// each, a label and the text as a quoted string.
/// The current turn's choice for this task only ("use Java this time",
/// "这次用 Java"): the kind of value it chooses, the value, and the
/// message's words. Seed 004: the current request outranks a stored
/// preference for this turn, and the context says so; the preference
/// itself is not changed (a temporary exception, SPEC §3.3).
struct TurnChoice {
    category: &'static crate::vocab::Category,
    value: &'static str,
    words: String,
}

fn turn_choice(ctx: &Ctx, request: &PackRequest) -> Option<TurnChoice> {
    let turn = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User && !m.text.trim().is_empty())?;
    let (category, value, _) = crate::vocab::value_in(&turn.text)?;
    let candidate = crate::types::Candidate {
        id: None,
        text: turn.text.clone(),
        scope: request.scope.clone(),
        source: crate::types::Source {
            kind: SourceKind::User,
            reference: None,
        },
        observed_at: None,
        confidence: None,
        kind_hint: None,
        subject: None,
        predicate: None,
        object: None,
        condition: None,
        occurred_at: None,
        valid_from: None,
        valid_to: None,
        entities: Vec::new(),
        embedding: None,
    };
    let c = crate::write::classify::classify(&candidate, ctx.now(), ctx.policy);
    (c.kind == crate::types::CandidateKind::Working).then(|| TurnChoice {
        category,
        value,
        words: one_line(&turn.text),
    })
}

/// Does the current turn's choice override this stored preference: a fact
/// about a value of the same kind that names another value?
fn overridden(m: &Memory, choice: Option<&TurnChoice>) -> Option<String> {
    let choice = choice?;
    let Payload::Semantic(p) = &m.payload else {
        return None;
    };
    let same_kind = p.predicate == choice.category.name
        || crate::vocab::category_of(&p.object).is_some_and(|c| c.name == choice.category.name);
    let other_value = !crate::analysis::cues::fold(&p.object).contains(choice.value);
    // A preference stating several choices in one sentence ("以后中文回复，
    // 代码示例用 TypeScript"): keyed by its first, it still names another
    // value of the kind the turn chooses.
    let names_other =
        crate::vocab::other_member_in(&m.text, choice.category, choice.value).is_some();
    ((same_kind && other_value) || names_other).then(|| {
        let words: String = choice
            .words
            .chars()
            .take(60)
            .map(|c| match c {
                '[' => '(',
                ']' => ')',
                '\'' => '’',
                c => c,
            })
            .collect();
        format!("overridden by the current turn ('{words}')")
    })
}

fn push_retrieved(
    cfg: &PackPolicy,
    rules: &SummaryRules,
    kept: Vec<Kept>,
    choice: Option<&TurnChoice>,
    items: &mut Vec<Item>,
) {
    let kept = order_conflicts(kept);
    for k in &kept {
        let label = match &k.memory {
            Some(m) => {
                let mut label = memory_label(cfg, m, &k.also, &conflict_partners(m, &kept));
                if let Some(o) = overridden(m, choice) {
                    label.push_str(" · ");
                    label.push_str(&o);
                }
                label
            }
            None => one_line(&k.reference),
        };
        let summary = summarize(&k.text, rules);
        items.push(Item::new(
            k.part,
            k.reference.clone(),
            priority_of(cfg, k.part),
            false,
            k.victim,
            format!("- [{label}] {}\n", quote(k.text.trim())),
            Some((
                format!("- [{label} · abridged] {}\n", quote(&summary)),
                summary,
            )),
        ));
    }
}

/// `[kind · date · source · …]`: the date an episode happened, else when
/// the memory was stated; conflicts, failures, conditions, validity, low
/// confidence and merged sources are marked.
fn memory_label(cfg: &PackPolicy, m: &Memory, also: &[SourceKind], partners: &[String]) -> String {
    let date = match &m.payload {
        Payload::Episodic(e) => e.occurred_at.unwrap_or(m.observed_at),
        _ => m.observed_at,
    };
    let mut parts: Vec<String> = vec![
        kind_name(m.kind).to_string(),
        date_string(date),
        source_label(m.provenance.source.kind).to_string(),
    ];
    match m.status {
        Status::Active => {}
        Status::Conflicted if partners.is_empty() => {
            parts.push("conflict: another record disagrees; unresolved".into())
        }
        Status::Conflicted => parts.push(format!(
            "conflict: disagrees with {}; unresolved",
            partners.join(", ")
        )),
        s => parts.push(format!("status {}", status_name(s))),
    }
    if let Payload::Episodic(e) = &m.payload {
        if e.success == Some(false) {
            parts.push("failed".into());
        }
    }
    if let Payload::Semantic(p) = &m.payload {
        if let Some(c) = p
            .condition
            .as_deref()
            .map(one_line)
            .filter(|c| !c.is_empty())
        {
            parts.push(format!("when {c}"));
        }
    }
    if let Some(t) = m.valid_to {
        parts.push(format!("valid until {}", date_string(t)));
    }
    if m.confidence < cfg.show_confidence_below {
        parts.push(format!("confidence {:.2}", m.confidence));
    }
    for s in also {
        parts.push(format!("also {}", source_label(*s)));
    }
    parts.join(" · ")
}

// ---------------------------------------------------------------------------
// Memories: recall, filters, revision chains, dedup, conflicts
// ---------------------------------------------------------------------------

/// A recalled memory that survived filtering, with its rank.
struct Recalled {
    memory: Memory,
    rank: usize,
}

/// A memory, knowledge snippet or artifact kept after deduplication.
struct Kept {
    part: PackPart,
    reference: String,
    text: String,
    memory: Option<Memory>,
    victim: u64,
    /// Other source kinds whose near-duplicates were merged into it.
    also: Vec<SourceKind>,
    norm: String,
    terms: BTreeSet<String>,
    figures: BTreeSet<String>,
}

type Key = (String, String, Option<String>);

/// The semantic key of a memory, case-insensitively.
fn key_of(m: &Memory) -> Option<Key> {
    semantic_key(m).map(|(s, p, c)| {
        (
            s.trim().to_lowercase(),
            p.trim().to_lowercase(),
            c.map(|c| c.trim().to_lowercase()),
        )
    })
}

/// Recall for the pack, and the memories it leaves out with their reasons.
fn gather_memories(
    ctx: &Ctx,
    request: &PackRequest,
    query: &str,
    now: Datetime,
    drops: &mut Vec<DroppedItem>,
) -> Result<Vec<Recalled>, Error> {
    if query.trim().is_empty() {
        return Ok(Vec::new());
    }
    let cfg = &ctx.policy.pack;
    let result = crate::read::recall::recall_one(
        ctx,
        &Query {
            id: None,
            text: query.to_string(),
            scope: request.scope.clone(),
            k: request.recall.k,
            as_of: request.recall.as_of,
            kinds: request.recall.kinds.clone(),
            entities: Vec::new(),
            embedding: None,
            sensitivity_ceiling: None,
            explain_rejected: true,
        },
    )?;
    for s in &result.not_admitted {
        // A revision no longer in force is listed below, with why.
        if matches!(s.memory.status, Status::Superseded | Status::Expired) && !s.admission.time_ok {
            continue;
        }
        drops.push(dropped(mem_ref(&s.memory), DropReason::NotAdmitted));
    }
    let as_of = request.recall.as_of.unwrap_or(now);
    let mut live: Vec<Memory> = Vec::new();
    for s in result.results {
        if s.memory.confidence < cfg.min_memory_confidence {
            drops.push(dropped(mem_ref(&s.memory), DropReason::NotAdmitted));
        } else {
            live.push(s.memory);
        }
    }
    // One key, several scopes: the preferred revision (narrower scope, more
    // authority, later) stands for the key; the others are shadowed.
    let keys: Vec<Option<Key>> = live.iter().map(key_of).collect();
    let mut shadowed = vec![false; live.len()];
    for i in 0..live.len() {
        for j in 0..live.len() {
            if i != j
                && keys[i].is_some()
                && keys[i] == keys[j]
                && live[i].id != live[j].id
                && crate::write::resolve::prefer(&live[i], &live[j], as_of, ctx.policy)
                    == std::cmp::Ordering::Less
            {
                shadowed[j] = true;
            }
        }
    }
    let mut out = Vec::new();
    for (rank, (m, shadow)) in live.into_iter().zip(shadowed).enumerate() {
        if shadow {
            drops.push(dropped(mem_ref(&m), DropReason::Superseded));
        } else {
            out.push(Recalled { memory: m, rank });
        }
    }
    // A query about the present: list what recall did not read because it
    // is no longer in force. (A query about the past reads those itself.)
    if as_of.epoch_ms >= now.epoch_ms {
        for r in &out {
            if r.memory.supersedes.is_none() {
                continue;
            }
            // Oldest first from the store; listed newest first.
            let revs = ctx.store.revisions(&r.memory.id)?;
            for s in revs
                .iter()
                .rev()
                .filter(|s| s.memory.revision != r.memory.revision)
            {
                match s.memory.status {
                    Status::Superseded => {
                        drops.push(dropped(mem_ref(&s.memory), DropReason::Superseded))
                    }
                    Status::Expired => drops.push(dropped(mem_ref(&s.memory), DropReason::Expired)),
                    _ => {}
                }
            }
        }
        expired_matches(ctx, request, query, as_of, drops)?;
    }
    Ok(out)
}

/// Expired memories that match the query well: listed as dropped, at most
/// `expired_listing_limit`, reading only the postings of the query's terms.
fn expired_matches(
    ctx: &Ctx,
    request: &PackRequest,
    query: &str,
    as_of: Datetime,
    drops: &mut Vec<DroppedItem>,
) -> Result<(), Error> {
    let cfg = &ctx.policy.pack;
    let q_terms = term_set(query);
    if cfg.expired_listing_limit == 0 || q_terms.is_empty() {
        return Ok(());
    }
    let mut f = crate::core::model::filter(&request.scope, ScopeMatch::Visible);
    f.kinds = request.recall.kinds.clone();
    f.statuses = vec![Status::Expired, Status::Active, Status::Conflicted];
    f.sensitivity_max = Some(Sensitivity::Personal);
    f.exclude_archived = true;
    let weighted: Vec<WeightedTerm> = q_terms
        .iter()
        .map(|t| WeightedTerm {
            term: t.clone(),
            weight: 1.0,
        })
        .collect();
    let found = ctx
        .store
        .search(&f, &weighted, cfg.expired_listing_limit.saturating_mul(4))?;
    let mut listed = 0;
    for s in found {
        let m = &s.memory;
        let ended =
            m.status == Status::Expired || m.valid_to.is_some_and(|t| t.epoch_ms <= as_of.epoch_ms);
        if !ended {
            continue;
        }
        let m_terms = term_set(&m.text);
        let shared = q_terms.intersection(&m_terms).count();
        let smaller = q_terms.len().min(m_terms.len()).max(1);
        if (shared as f64) / (smaller as f64) < cfg.expired_min_coverage {
            continue;
        }
        drops.push(dropped(mem_ref(m), DropReason::Expired));
        listed += 1;
        if listed >= cfg.expired_listing_limit {
            break;
        }
    }
    Ok(())
}

/// Merge near-duplicates: a memory already said in the conversation, or
/// close to a higher-ranked memory, is dropped as `duplicate`; so are
/// knowledge snippets and artifacts close to anything kept before them.
fn dedup(
    cfg: &PackPolicy,
    request: &PackRequest,
    recalled: Vec<Recalled>,
    drops: &mut Vec<DroppedItem>,
) -> Vec<Kept> {
    let conversation: Vec<String> = request.messages.iter().map(|m| norm(&m.text)).collect();
    let mut kept: Vec<Kept> = Vec::new();
    for r in recalled {
        let m = r.memory;
        let part = match m.kind {
            MemoryKind::Semantic => PackPart::Facts,
            MemoryKind::Episodic => PackPart::Events,
            MemoryKind::Procedural => PackPart::Procedures,
        };
        // Lower-ranked memories give way first.
        let victim = u64::from(u32::MAX).saturating_sub(r.rank as u64);
        let cand = Kept::new(part, mem_ref(&m), m.text.clone(), Some(m), victim);
        if cand.norm.chars().count() >= MIN_CONTAINED_CHARS
            && conversation.iter().any(|c| c.contains(&cand.norm))
        {
            drops.push(dropped(cand.reference, DropReason::Duplicate));
            continue;
        }
        if let Some(k) = kept.iter_mut().find(|k| near_duplicate(cfg, k, &cand)) {
            if let (Some(a), Some(b)) = (&k.memory, &cand.memory) {
                let src = b.provenance.source.kind;
                if a.provenance.source.kind != src && !k.also.contains(&src) {
                    k.also.push(src);
                }
            }
            drops.push(dropped(cand.reference, DropReason::Duplicate));
            continue;
        }
        kept.push(cand);
    }
    for (list, part, prefix) in [
        (&request.knowledge, PackPart::Knowledge, "knowledge"),
        (&request.artifacts, PackPart::Artifacts, "artifact"),
    ] {
        let n = list.len() as u64;
        for (i, s) in list.iter().enumerate() {
            let reference = Some(one_line(&s.reference))
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| format!("{prefix}:{i}"));
            let cand = Kept::new(part, reference, normalise(&s.text), None, n - i as u64);
            if kept.iter().any(|k| near_duplicate(cfg, k, &cand)) {
                drops.push(dropped(cand.reference, DropReason::Duplicate));
            } else {
                kept.push(cand);
            }
        }
    }
    kept
}

impl Kept {
    fn new(
        part: PackPart,
        reference: String,
        text: String,
        memory: Option<Memory>,
        victim: u64,
    ) -> Kept {
        let mut figures = BTreeSet::new();
        for f in crate::context::compress::key_figures(
            &text,
            &SummaryRules {
                head_chars: 0,
                max_figures: usize::MAX,
                figure_chars: usize::MAX,
                figures_label: "",
                status_words: &[],
            },
        ) {
            figures.insert(f);
        }
        Kept {
            part,
            reference,
            norm: norm(&text),
            terms: term_set(&text),
            figures,
            text,
            memory,
            victim,
            also: Vec::new(),
        }
    }
}

/// Do two items say the same thing? Conflicting memories and different
/// values of one key never are; otherwise the same letters and digits, or
/// index terms at least `duplicate_similarity` alike with the same figures.
fn near_duplicate(cfg: &PackPolicy, a: &Kept, b: &Kept) -> bool {
    if let (Some(x), Some(y)) = (&a.memory, &b.memory) {
        if x.status == Status::Conflicted || y.status == Status::Conflicted {
            return false;
        }
        if let (Some(kx), Some(ky)) = (key_of(x), key_of(y)) {
            if kx == ky {
                return match (&x.payload, &y.payload) {
                    (Payload::Semantic(p), Payload::Semantic(q)) => {
                        norm(&p.object) == norm(&q.object)
                    }
                    _ => false,
                };
            }
        }
    }
    if a.norm == b.norm {
        return true;
    }
    if a.terms.is_empty() || b.terms.is_empty() || a.figures != b.figures {
        return false;
    }
    let shared = a.terms.intersection(&b.terms).count();
    let union = a.terms.union(&b.terms).count();
    shared as f64 / union as f64 >= cfg.duplicate_similarity
}

/// Conflicting revisions of one key, placed together after the first.
fn order_conflicts(kept: Vec<Kept>) -> Vec<Kept> {
    let group = |k: &Kept| {
        k.memory
            .as_ref()
            .filter(|m| m.status == Status::Conflicted)
            .and_then(key_of)
    };
    let conflicted: Vec<Key> = kept.iter().filter_map(group).collect();
    let key = |k: &Kept| {
        k.memory
            .as_ref()
            .and_then(key_of)
            .filter(|g| conflicted.contains(g))
    };
    let mut slots: Vec<Option<Kept>> = kept.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        let Some(k) = slots[i].take() else {
            continue;
        };
        let g = key(&k);
        out.push(k);
        if let Some(g) = g {
            for slot in slots.iter_mut().skip(i + 1) {
                if slot.as_ref().and_then(key).as_ref() == Some(&g) {
                    if let Some(x) = slot.take() {
                        out.push(x);
                    }
                }
            }
        }
    }
    out
}

/// The other kept memories of a conflicted memory's key.
fn conflict_partners(m: &Memory, kept: &[Kept]) -> Vec<String> {
    if m.status != Status::Conflicted {
        return Vec::new();
    }
    let key = key_of(m);
    kept.iter()
        .filter_map(|k| k.memory.as_ref())
        .filter(|o| key.is_some() && key_of(o) == key && mem_ref(o) != mem_ref(m))
        .map(mem_ref)
        .collect()
}

// ---------------------------------------------------------------------------
// Fitting and rendering
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Full,
    Short,
    Dropped,
}

struct Layout<'a> {
    items: &'a [Item],
    section_of: &'a [usize],
    heading_cost: Vec<Centi>,
    always: Vec<bool>,
}

/// The running cost of a choice of forms, updated one item at a time.
struct Tally<'a> {
    layout: &'a Layout<'a>,
    forms: Vec<Form>,
    present: Vec<usize>,
    total: Centi,
}

impl<'a> Tally<'a> {
    fn new(layout: &'a Layout<'a>) -> Tally<'a> {
        let mut t = Tally {
            layout,
            forms: vec![Form::Dropped; layout.items.len()],
            present: vec![0; layout.heading_cost.len()],
            total: 0,
        };
        for (s, always) in layout.always.iter().enumerate() {
            if *always {
                t.total += layout.heading_cost[s];
            }
        }
        t
    }

    fn cost(&self, i: usize, form: Form) -> Centi {
        let it = &self.layout.items[i];
        match form {
            Form::Full => it.full_cost,
            Form::Short => it.short.as_ref().map_or(it.full_cost, |s| s.1),
            Form::Dropped => 0,
        }
    }

    fn set(&mut self, i: usize, form: Form) {
        let old = self.forms[i];
        if old == form {
            return;
        }
        let s = self.layout.section_of[i];
        let heading = if self.layout.always[s] {
            0
        } else {
            self.layout.heading_cost[s]
        };
        self.total += self.cost(i, form);
        if old == Form::Dropped {
            if self.present[s] == 0 {
                self.total += heading;
            }
            self.present[s] += 1;
        }
        self.total -= self.cost(i, old);
        if form == Form::Dropped {
            self.present[s] -= 1;
            if self.present[s] == 0 {
                self.total -= heading;
            }
        }
        self.forms[i] = form;
    }
}

/// Choose a form for every item so the total stays within `limit`
/// (hundredths of a token): compress lowest priority first, then drop in
/// the same order, then hand freed space back highest priority first.
fn fit(layout: &Layout, limit: Centi, budget: u32) -> Result<Vec<Form>, Error> {
    let items = layout.items;
    let mut t = Tally::new(layout);
    for (i, it) in items.iter().enumerate() {
        if it.mandatory {
            t.set(i, Form::Full);
        }
    }
    if t.total > limit {
        return Err(never_drop_error(layout, t.total, budget));
    }
    // Victim order: priority, then the item's own order, section, position,
    // packed in one key.
    let mut keys: Vec<u128> = (0..items.len())
        .filter(|&i| !items[i].mandatory)
        .map(|i| {
            (items[i].priority as u128) << 120
                | (items[i].victim as u128) << 56
                | (layout.section_of[i].min(0xFF) as u128) << 48
                | i as u128
        })
        .collect();
    heapsort(&mut keys);
    let victims: Vec<usize> = keys
        .iter()
        .map(|k| (k & 0xFFFF_FFFF_FFFF) as usize)
        .collect();
    for &v in &victims {
        t.set(v, Form::Full);
    }
    for &v in &victims {
        if t.total <= limit {
            break;
        }
        if items[v].short.is_some() {
            t.set(v, Form::Short);
        }
    }
    for &v in &victims {
        if t.total <= limit {
            break;
        }
        t.set(v, Form::Dropped);
    }
    // Hand back what the last drop freed, highest priority first; nothing
    // below the priority of an item that stays dropped comes back.
    let mut barrier = 0u8;
    for &v in victims.iter().rev() {
        let was = t.forms[v];
        if was == Form::Full || items[v].priority < barrier {
            continue;
        }
        t.set(v, Form::Full);
        if t.total <= limit {
            continue;
        }
        if items[v].short.is_some() {
            t.set(v, Form::Short);
            if t.total <= limit {
                continue;
            }
        }
        t.set(v, was);
        if was == Form::Dropped {
            barrier = items[v].priority;
        }
    }
    Ok(t.forms)
}

fn never_drop_error(layout: &Layout, total: Centi, budget: u32) -> Error {
    let items = layout.items;
    let system: Centi = items
        .iter()
        .filter(|it| it.mandatory && it.part == PackPart::System)
        .map(|it| it.full_cost)
        .sum();
    let requests: Vec<&Item> = items
        .iter()
        .filter(|it| it.mandatory && it.part != PackPart::System)
        .collect();
    let request_cost: Centi = requests.iter().map(|it| it.full_cost).sum();
    let refs: Vec<&str> = requests.iter().map(|it| it.reference.as_str()).collect();
    Error::LimitExceeded(format!(
        "the parts that are never dropped need {} tokens, over the budget of {budget}: \
         system policy {}, original request and other messages at or above the never-drop \
         priority {} ({}), headings {}",
        tokens_of(total),
        tokens_of(system),
        tokens_of(request_cost),
        if refs.is_empty() {
            "none".to_string()
        } else {
            refs.join(", ")
        },
        tokens_of(total.saturating_sub(system + request_cost)),
    ))
}

/// The packed text and its sections (tokens by cumulative count, so they
/// add up to the whole).
fn render(
    cfg: &PackPolicy,
    layout: &Layout,
    headings: &[String],
    forms: &[Form],
) -> (String, Vec<PackSection>) {
    let mut text = String::new();
    let mut sections = Vec::new();
    let mut cumulative: Centi = 0;
    let mut counted = 0u32;
    for (s, spec) in cfg.sections.iter().enumerate() {
        let members: Vec<usize> = (0..layout.items.len())
            .filter(|&i| layout.section_of[i] == s && forms[i] != Form::Dropped)
            .collect();
        if members.is_empty() && !spec.always {
            continue;
        }
        let mut body = headings[s].clone();
        for &i in &members {
            let it = &layout.items[i];
            match (forms[i], &it.short) {
                (Form::Short, Some((line, _, _))) => body.push_str(line),
                _ => body.push_str(&it.full),
            }
        }
        cumulative += measure(&body);
        let upto = tokens_of(cumulative);
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&body);
        sections.push(PackSection {
            name: spec.name.to_string(),
            tokens: upto - counted,
            items: members
                .iter()
                .map(|&i| layout.items[i].reference.clone())
                .collect(),
        });
        counted = upto;
    }
    (text, sections)
}

/// Items matching `keep`, in section order, then item order.
fn in_section_order(section_of: &[usize], keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let sections = section_of.iter().max().map_or(0, |m| m + 1);
    (0..sections)
        .flat_map(|s| (0..section_of.len()).filter(move |&i| section_of[i] == s))
        .filter(|&i| keep(i))
        .collect()
}

/// Every left-out item once: the recall-stage reasons first, then what the
/// budget dropped, in section order.
fn manifest_drops(
    items: &[Item],
    section_of: &[usize],
    forms: &[Form],
    early: Vec<DroppedItem>,
) -> Vec<DroppedItem> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (it, f) in items.iter().zip(forms) {
        if *f != Form::Dropped {
            seen.insert(it.reference.clone());
        }
    }
    let budget = in_section_order(section_of, |i| forms[i] == Form::Dropped)
        .into_iter()
        .map(|i| dropped(items[i].reference.clone(), DropReason::Budget));
    let mut out = Vec::new();
    for d in early.into_iter().chain(budget) {
        if seen.insert(d.reference.clone()) {
            out.push(d);
        }
    }
    out
}

/// Compressed items with their summaries, in section order.
fn manifest_compressed(
    items: &[Item],
    section_of: &[usize],
    forms: &[Form],
) -> Vec<CompressedItem> {
    in_section_order(section_of, |i| forms[i] == Form::Short)
        .into_iter()
        .filter_map(|i| {
            items[i]
                .short
                .as_ref()
                .map(|(_, _, summary)| CompressedItem {
                    reference: items[i].reference.clone(),
                    summary: summary.clone(),
                })
        })
        .collect()
}

/// A set of a text's index terms.
fn term_set(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for t in crate::analysis::text::terms(text) {
        set.insert(t);
    }
    set
}

/// Sort in place (heapsort: a few hundred bytes of code instead of another
/// instantiation of the standard sorts; the guest's size is a feature).
fn heapsort(v: &mut [u128]) {
    fn sift(v: &mut [u128], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && v[child] < v[child + 1] {
                child += 1;
            }
            if v[root] >= v[child] {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}

fn section_index(cfg: &PackPolicy, part: PackPart) -> usize {
    cfg.sections
        .iter()
        .position(|s| s.part == part)
        .unwrap_or(0)
}

fn validate(r: &PackRequest) -> Result<(), Error> {
    if r.scope.tenant.trim().is_empty() {
        return Err(invalid(None, "scope.tenant", "must not be empty"));
    }
    if r.budget == 0 {
        return Err(invalid(None, "budget", "must be at least 1 token"));
    }
    let items = r.messages.len() + r.state.len() + r.knowledge.len() + r.artifacts.len();
    crate::core::limits::pack(r.budget, items)?;
    crate::core::limits::instant(None, "recall.as_of", r.recall.as_of)?;
    crate::core::limits::text(None, "query", &r.query)?;
    crate::core::limits::text(None, "system", &r.system)?;
    for (i, m) in r.messages.iter().enumerate() {
        crate::core::limits::message(i, &m.text)?;
    }
    Ok(())
}

fn summary_rules(cfg: &PackPolicy) -> SummaryRules<'_> {
    SummaryRules {
        head_chars: cfg.summary_head_chars,
        max_figures: cfg.summary_max_figures,
        figure_chars: cfg.summary_figure_chars,
        figures_label: cfg.summary_figures_label,
        status_words: cfg.summary_status_words,
    }
}

fn priority_of(cfg: &PackPolicy, part: PackPart) -> u8 {
    cfg.sections
        .iter()
        .find(|s| s.part == part)
        .map(|s| s.priority)
        .unwrap_or(0)
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// The effective priority of every message (see the module docs for the
/// original-request rule).
pub fn message_priorities(cfg: &PackPolicy, request: &PackRequest) -> Vec<u8> {
    let marked = request
        .messages
        .iter()
        .any(|m| m.role == Role::User && m.priority.is_some_and(|p| p >= cfg.never_drop_priority));
    let first_user = request.messages.iter().position(|m| m.role == Role::User);
    request
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.priority.unwrap_or(match m.role {
                Role::System => cfg.priority_system_message,
                Role::User if !marked && Some(i) == first_user => cfg.priority_original_request,
                Role::User => cfg.priority_user,
                Role::Assistant => cfg.priority_assistant,
                Role::Tool => cfg.priority_tool,
            })
        })
        .collect()
}

/// What recall is asked: the request's query, else the (first) original
/// request, else the last user message.
fn recall_query(cfg: &PackPolicy, request: &PackRequest, priorities: &[u8]) -> String {
    if !request.query.trim().is_empty() {
        return request.query.clone();
    }
    let users: Vec<(&Message, u8)> = request
        .messages
        .iter()
        .zip(priorities.iter().copied())
        .filter(|(m, _)| m.role == Role::User && !m.text.trim().is_empty())
        .collect();
    users
        .iter()
        .find(|(_, p)| *p >= cfg.never_drop_priority)
        .or(users.last())
        .map(|(m, _)| m.text.clone())
        .unwrap_or_default()
}

fn dropped(reference: String, reason: DropReason) -> DroppedItem {
    DroppedItem { reference, reason }
}

fn mem_ref(m: &Memory) -> String {
    format!("{}#{}", m.id, m.revision)
}

/// Line breaks normalised to `\n` (CR, CRLF, NEL and the Unicode line and
/// paragraph separators all end a line).
fn normalise(s: &str) -> String {
    s.replace("\r\n", "\n")
        .replace(['\r', '\u{85}', '\u{2028}', '\u{2029}'], "\n")
}

/// A caller-supplied label part on one line, without brackets.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '[' => '(',
            ']' => ')',
            c if c.is_control() || c.is_whitespace() => ' ',
            c => c,
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Continuation lines indented, so none of them can pass for a heading.
fn indent(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.trim().is_empty() {
                out.push_str("  ");
            }
        }
        out.push_str(if line.trim().is_empty() && i > 0 {
            ""
        } else {
            line.trim_end()
        });
    }
    out
}

/// Lines that start with `#` indented, so the system policy's own headings
/// cannot pass for the packer's sections.
fn guard_headings(s: &str) -> String {
    s.split('\n')
        .map(|l| {
            if l.starts_with('#') {
                format!("  {l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A text as a JSON string: quoted, every line break and control character
/// escaped, so it stays on one line and reads as data.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Lowercased letters and digits only: for containment and exact dedup.
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
#[path = "pack_tests.rs"]
mod tests;
