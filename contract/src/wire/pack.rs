//! Context packing: the request and the packed context with its manifest.

use serde::{Deserialize, Serialize};

use super::common::{datetime, Entries, Scope, Time};
use crate::types as t;

/// A message of the recent conversation.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MessageIn {
    /// A name for it in the manifest.
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    pub role: t::Role,
    pub text: String,
    /// 0..100: higher is kept first when the budget is tight (default by
    /// role: system 100, user 70, tool 30).
    #[serde(default)]
    pub priority: Option<u8>,
}

/// A knowledge snippet or an artifact summary.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SnippetIn {
    #[serde(rename = "ref")]
    pub reference: String,
    /// The text (`summary` is accepted too).
    #[serde(alias = "summary")]
    pub text: String,
}

/// How memories are recalled for the pack.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RecallOptionsIn {
    #[serde(default)]
    pub k: Option<u32>,
    #[serde(default)]
    pub as_of: Option<Time>,
    #[serde(default)]
    pub kinds: Option<Vec<t::MemoryKind>>,
}

/// A pack request (SPEC §4): the parts of the next turn and a token budget.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PackIn {
    /// The token budget, never exceeded.
    pub budget: u32,
    /// Whose memories to recall.
    pub scope: Scope,
    /// The current task or question; memories are recalled for it.
    #[serde(default)]
    pub query: String,
    /// The system prompt, kept at the top.
    #[serde(default)]
    pub system: String,
    /// The current task state.
    #[serde(default)]
    pub state: Entries,
    /// Recent messages, oldest first.
    #[serde(default)]
    pub messages: Vec<MessageIn>,
    #[serde(default)]
    pub knowledge: Vec<SnippetIn>,
    #[serde(default)]
    pub artifacts: Vec<SnippetIn>,
    #[serde(default)]
    pub recall: RecallOptionsIn,
}

fn snippets(v: Vec<SnippetIn>) -> Vec<t::Snippet> {
    v.into_iter()
        .map(|s| t::Snippet {
            reference: s.reference,
            text: s.text,
        })
        .collect()
}

impl From<PackIn> for t::PackRequest {
    fn from(p: PackIn) -> Self {
        t::PackRequest {
            budget: p.budget,
            scope: p.scope.into(),
            query: p.query,
            system: p.system,
            state: p.state.0,
            messages: p
                .messages
                .into_iter()
                .map(|m| t::Message {
                    reference: m.reference,
                    role: m.role,
                    text: m.text,
                    priority: m.priority,
                })
                .collect(),
            knowledge: snippets(p.knowledge),
            artifacts: snippets(p.artifacts),
            recall: t::RecallOptions {
                k: p.recall.k.unwrap_or(0),
                as_of: datetime(p.recall.as_of),
                kinds: p.recall.kinds.unwrap_or_default(),
            },
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SectionOut {
    pub items: Vec<String>,
    pub name: String,
    pub tokens: u32,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DroppedOut {
    pub reason: t::DropReason,
    #[serde(rename = "ref")]
    pub reference: String,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CompressedOut {
    #[serde(rename = "ref")]
    pub reference: String,
    pub summary: String,
}

/// The packed context and its manifest.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PackedOut {
    pub budget: u32,
    pub compressed: Vec<CompressedOut>,
    pub dropped: Vec<DroppedOut>,
    pub sections: Vec<SectionOut>,
    /// The text to put in the model's context.
    pub text: String,
    pub tokens: u32,
}

impl From<t::PackedContext> for PackedOut {
    fn from(p: t::PackedContext) -> Self {
        PackedOut {
            budget: p.budget,
            compressed: p
                .compressed
                .into_iter()
                .map(|c| CompressedOut {
                    reference: c.reference,
                    summary: c.summary,
                })
                .collect(),
            dropped: p
                .dropped
                .into_iter()
                .map(|d| DroppedOut {
                    reason: d.reason,
                    reference: d.reference,
                })
                .collect(),
            sections: p
                .sections
                .into_iter()
                .map(|s| SectionOut {
                    items: s.items,
                    name: s.name,
                    tokens: s.tokens,
                })
                .collect(),
            text: p.text,
            tokens: p.tokens,
        }
    }
}
