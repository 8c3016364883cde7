//! What classification answers: the kind, its reasons and payload
//! (`Classification`), and the findings the write gates act on (`Signals`).

use crate::types::CandidateKind;
use crate::types::Payload;
use crate::types::Reason;
use crate::write::detect::secrets::Finding;

/// What a candidate is, and the payload it would be stored with.
#[derive(Debug, Clone)]
pub struct Classification {
    pub kind: CandidateKind,
    pub reasons: Vec<Reason>,
    /// The payload for a storable kind (`None` for working/none).
    pub payload: Option<Payload>,
    /// The speaker explicitly asked to remember ("记住", "remember that").
    pub explicit_remember: bool,
    /// A temporary exception to a standing preference ("这次", "just this time").
    pub temporary: bool,
    /// What the gates need to know about the text.
    pub signals: Signals,
    /// The text folded (lower case, full-width forms narrowed) with its
    /// secrets and personal data blanked: what cue families are read in.
    pub folded: String,
}

/// Findings the write gates act on.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    /// Secrets and credentials (never written).
    pub secrets: Vec<Finding>,
    /// Personal data (gated by an explicit ask).
    pub personal: Vec<Finding>,
    /// Instruction-like content from an untrusted or inferred source: why.
    pub injection: Option<String>,
    /// Steps from an untrusted source that are not an injection: data for
    /// review, never instructions (the confidence gate keeps them pending).
    pub untrusted_steps: Option<String>,
    /// The instruction-like cues, whatever the source.
    pub instruction_like: bool,
    /// A procedure generalised from one observed success: the cue.
    pub single_success: Option<String>,
    /// Removes a safety guard ("免确认", "auto-approve"): the cue.
    pub risk_lowering: Option<String>,
    /// Hedged wording ("可能", "probably"): the cue.
    pub hedge: Option<String>,
    /// The explicit ask to remember: the cue.
    pub explicit_ask: Option<String>,
    /// The task-scope cue that made it working.
    pub task_scope: Option<String>,
    /// The persistence cue that marks it stable.
    pub persistence: Option<String>,
    /// Was the caller's kind hint overruled?
    pub hint_overruled: bool,
    /// Why the text carries nothing to keep (the value gate's reason).
    pub no_value: Option<String>,
    /// The kind was decided by the sentence's structure (an order in
    /// carried text, a trace, a dump, an observed status, an activity in
    /// progress, a standing choice of a value): the learned model may not
    /// overrule it — when a retrain could flip a behaviour, the behaviour
    /// belongs in a rule.
    pub structural: Option<String>,
    /// Untrusted text kept on a learned reading short of sure
    /// (`classify::learned`): the confidence gate keeps it pending.
    pub unsure_untrusted: Option<UnsureReading>,
}

/// A kept kind on untrusted text that the learned model does not back
/// with a sure lead: it agrees by less than `needed` logits, or leans
/// another way without the lead to overrule the rules. Such text is never
/// stored active (SPEC §3.2): a margin is no evidence of safety.
#[derive(Debug, Clone, PartialEq)]
pub struct UnsureReading {
    /// The kind the model leans to.
    pub leans: CandidateKind,
    /// Its lead over the runner-up, in logits.
    pub margin: f64,
    /// The lead an untrusted text needs to be stored active.
    pub needed: f64,
}
