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

mod dedup;
mod fit;
mod items;
mod recall;
mod reference;
mod render;
mod text;
mod turn;

use std::collections::BTreeSet;

use crate::analysis::tokens::count;
use crate::analysis::tokens::measure;
use crate::analysis::tokens::Centi;
use crate::context::compress::SummaryRules;
use crate::core::api::Ctx;
use crate::core::config::PackPart;
use crate::core::config::PackPolicy;
use crate::core::errors::invalid;
use crate::core::time::date_string;
use crate::types::DroppedItem;
use crate::types::Error;
use crate::types::Memory;
use crate::types::Message;
use crate::types::PackRequest;
use crate::types::PackedContext;
use crate::types::Role;
use dedup::dedup;
use fit::fit;
use fit::Form;
use fit::Layout;
use items::push_messages;
use items::push_retrieved;
use items::push_state;
use items::push_system;
use items::Item;
use recall::gather_memories;
use reference::mem_ref;
use render::manifest_compressed;
use render::manifest_drops;
use render::render;
use turn::turn_choice;

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

#[cfg(test)]
mod tests;
