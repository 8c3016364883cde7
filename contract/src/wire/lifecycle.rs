//! Forget, sweep, history, list, review and info.

use serde::{Deserialize, Serialize};

use super::common::{MemoryRef, Reason, Scope};
use crate::types as t;

/// A forget selector (SPEC §4): exactly one of `memory_id`;
/// `scope`+`subject`+`predicate` (optional `condition`); `scope`+`text`;
/// `scope`+`source_ref`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ForgetIn {
    /// Forget this memory, every revision.
    #[serde(default)]
    pub memory_id: Option<String>,
    /// Where to forget (required unless `memory_id` is given).
    #[serde(default)]
    pub scope: Option<Scope>,
    /// With `predicate`: the fact about this subject.
    #[serde(default)]
    pub subject: Option<String>,
    /// With `subject`: the fact with this attribute.
    #[serde(default)]
    pub predicate: Option<String>,
    /// With `subject` and `predicate`: only under this condition.
    #[serde(default)]
    pub condition: Option<String>,
    /// Erase this text fragment wherever it appears.
    #[serde(default)]
    pub text: Option<String>,
    /// Everything derived from this source event or session.
    #[serde(default)]
    pub source_ref: Option<String>,
}

impl ForgetIn {
    /// The selector, or which field is wrong and why.
    pub fn selector(self) -> Result<t::ForgetSelector, (&'static str, &'static str)> {
        if let Some(id) = self.memory_id {
            return Ok(t::ForgetSelector::MemoryId(id));
        }
        let Some(scope) = self.scope else {
            return Err(("scope", "required unless memory_id is given"));
        };
        let scope: t::Scope = scope.into();
        match (self.subject, self.predicate, self.text, self.source_ref) {
            (Some(subject), Some(predicate), None, None) => {
                Ok(t::ForgetSelector::Key(t::KeySelector {
                    scope,
                    subject,
                    predicate,
                    condition: self.condition,
                }))
            }
            (None, None, Some(text), None) => {
                Ok(t::ForgetSelector::Text(t::TextSelector { scope, text }))
            }
            (None, None, None, Some(source_ref)) => {
                Ok(t::ForgetSelector::SourceRef(t::SourceSelector {
                    scope,
                    source_ref,
                }))
            }
            (Some(_), None, None, None) => {
                Err(("predicate", "a key selector needs subject and predicate"))
            }
            (None, Some(_), None, None) => {
                Err(("subject", "a key selector needs subject and predicate"))
            }
            _ => Err((
                "selector",
                "give exactly one of: memory_id; subject+predicate; text; source_ref",
            )),
        }
    }
}

/// What a forget erased.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ForgetOut {
    /// Memories derived from the erased ones, erased with them.
    pub cascaded: Vec<String>,
    pub deleted: Vec<String>,
    /// Fingerprints left so the same content is not remembered again.
    pub tombstones: u32,
}

impl From<t::ForgetReport> for ForgetOut {
    fn from(r: t::ForgetReport) -> Self {
        ForgetOut {
            cascaded: r.cascaded,
            deleted: r.deleted,
            tombstones: r.tombstones,
        }
    }
}

/// A sweep request: `{"scope": {…}}` (a bare scope is read as one too).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SweepIn {
    /// Where to apply expiry and archival.
    pub scope: Scope,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepOut {
    pub archived: u32,
    pub examined: u32,
    pub expired: u32,
    /// Unverified inferences past their expiry.
    pub inferences_expired: u32,
}

impl From<t::SweepReport> for SweepOut {
    fn from(r: t::SweepReport) -> Self {
        SweepOut {
            archived: r.archived,
            examined: r.examined,
            expired: r.expired,
            inferences_expired: r.inferences_expired,
        }
    }
}

/// A history request.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HistoryIn {
    /// The memory whose revisions to show, oldest first.
    pub id: String,
}

/// A list request.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListIn {
    /// Memories of this scope (latest revisions).
    pub scope: Scope,
    /// Only these statuses (default: all).
    #[serde(default)]
    pub statuses: Vec<t::Status>,
}

/// A verdict on one pending revision.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReviewIn {
    /// The pending memory.
    pub id: String,
    /// Its pending revision.
    pub revision: u32,
    pub verdict: t::Verdict,
    /// Who or what decided (kept as the approval's source reference).
    #[serde(default)]
    pub reference: Option<String>,
}

impl From<ReviewIn> for t::ReviewItem {
    fn from(r: ReviewIn) -> Self {
        t::ReviewItem {
            id: r.id,
            revision: r.revision,
            verdict: r.verdict,
            reference: r.reference,
        }
    }
}

/// What a verdict did.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReviewOut {
    /// The new active revision an approval wrote.
    pub approved_as: Option<MemoryRef>,
    /// What the review did.
    pub reason: Reason,
    pub reviewed: MemoryRef,
    /// Revisions the approval superseded.
    pub superseded: Vec<MemoryRef>,
    pub verdict: t::Verdict,
}

impl From<t::ReviewOutcome> for ReviewOut {
    fn from(o: t::ReviewOutcome) -> Self {
        ReviewOut {
            approved_as: o.approved_as.map(Into::into),
            reason: o.reason.into(),
            reviewed: o.reviewed.into(),
            superseded: o.superseded.into_iter().map(Into::into).collect(),
            verdict: o.verdict,
        }
    }
}

/// An info request: takes nothing (any input is ignored).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InfoIn {}

/// The versions of the loaded component.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InfoOut {
    pub package_version: String,
    pub policy_version: String,
}

impl From<t::PolicyInfo> for InfoOut {
    fn from(i: t::PolicyInfo) -> Self {
        InfoOut {
            package_version: i.package_version,
            policy_version: i.policy_version,
        }
    }
}
