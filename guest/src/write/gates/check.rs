//! What every gate check reads (`Context`) and returns (`Check`): whether
//! the gate passed, the effect it asks of the disposition, and its reason.
//! How the effects fold into one disposition is `effect.rs`.

use crate::core::config::{Policy, SourceTrust};
use crate::lifecycle::tombstone::Verdict;
use crate::types::{Candidate, CandidateKind, Datetime, Memory, Reason};
use crate::wit_store::Principal;
use crate::write::classify::{Classification, Signals};
use crate::write::gates::effect::Effect;

/// Everything the gates look at.
pub struct GateInput<'a> {
    pub candidate: &'a Candidate,
    pub classification: &'a Classification,
    pub principal: &'a Principal,
    /// What the tombstones that apply in the candidate's scope say.
    pub erasure: &'a Verdict,
    /// Writes already made in the candidate's scope in the rate window.
    pub recent_writes: u64,
    /// Live memories with the same id (for semantic memories: key).
    pub existing: &'a [Memory],
    pub now: Datetime,
    pub policy: &'a Policy,
}

/// The input and what every gate derives from it alike.
pub struct Context<'a> {
    pub input: &'a GateInput<'a>,
    /// The candidate's confidence after the source's cap and hedges
    /// (`confidence::score`).
    pub confidence: f64,
    /// The trust the policy gives the candidate's source.
    pub trust: &'a SourceTrust,
    /// The source as the reasons name it ("user-stated", …).
    pub label: &'static str,
    /// A kind that is stored as lasting memory (semantic, episodic,
    /// procedural).
    pub storable: bool,
}

impl Context<'_> {
    pub fn candidate(&self) -> &Candidate {
        self.input.candidate
    }

    pub fn classification(&self) -> &Classification {
        self.input.classification
    }

    pub fn signals(&self) -> &Signals {
        &self.input.classification.signals
    }

    pub fn kind(&self) -> CandidateKind {
        self.input.classification.kind
    }

    pub fn policy(&self) -> &Policy {
        self.input.policy
    }

    /// The first cue of a cue family (`policy().write.cues.<family>`,
    /// `guest/vocab/cues/<family>.txt`) in the candidate's folded text,
    /// secrets blanked: a gate reads its own vocabulary here, so a new
    /// cue-driven reason is one data file and one branch in the gate's file.
    pub fn cue(&self, family: &'static [&'static str]) -> Option<&'static str> {
        crate::vocab::cues_in(&self.classification().folded, family)
            .first()
            .map(|h| h.cue)
    }
}

/// One gate's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub passed: bool,
    /// What this gate asks of the disposition.
    pub effect: Effect,
    /// Why: a `gate.<gate>.…` code of the contract's vocabulary.
    pub reason: Reason,
}

impl Check {
    /// Passed, asking nothing of the disposition.
    pub fn pass(reason: Reason) -> Self {
        Check {
            passed: true,
            effect: Effect::Keep,
            reason,
        }
    }

    /// Failed, with this effect.
    pub fn fail(effect: Effect, reason: Reason) -> Self {
        Check {
            passed: false,
            effect,
            reason,
        }
    }
}

/// The first three items, comma-separated, as reasons list findings.
pub fn list(items: impl IntoIterator<Item = String>) -> String {
    let v: Vec<String> = items.into_iter().take(3).collect();
    v.join(", ")
}
