//! The candidate items of a context, one per section entry: the system
//! policy, task state, conversation messages and retrieved memories,
//! snippets and artifacts, each with its priority, full and compressed
//! text, and its label.

use super::dedup::conflict_partners;
use super::dedup::order_conflicts;
use super::dedup::Kept;
use super::text::guard_headings;
use super::text::indent;
use super::text::normalise;
use super::text::one_line;
use super::text::quote;
use super::turn::overridden;
use super::turn::TurnChoice;
use crate::analysis::tokens::measure;
use crate::analysis::tokens::Centi;
use crate::context::compress::summarize;
use crate::context::compress::SummaryRules;
use crate::core::config::PackPart;
use crate::core::config::PackPolicy;
use crate::core::model::kind_name;
use crate::core::model::source_label;
use crate::core::model::status_name;
use crate::core::time::date_string;
use crate::types::Memory;
use crate::types::PackRequest;
use crate::types::Payload;
use crate::types::Role;
use crate::types::SourceKind;
use crate::types::Status;

/// One candidate item of the context.
pub(super) struct Item {
    pub(super) part: PackPart,
    pub(super) reference: String,
    pub(super) priority: u8,
    pub(super) mandatory: bool,
    /// Among equal priorities, lower gives way first.
    pub(super) victim: u64,
    pub(super) full: String,
    pub(super) full_cost: Centi,
    /// The compressed form: its line, cost and summary.
    pub(super) short: Option<(String, Centi, String)>,
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

pub(super) fn push_system(cfg: &PackPolicy, request: &PackRequest, items: &mut Vec<Item>) {
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
pub(super) fn push_state(
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
pub(super) fn push_messages(
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

pub(super) fn push_retrieved(
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
