//! What the rule scan found about one candidate before the learned model
//! is asked (`Analysis`): the folded text, the scan, the signals and the
//! kind the ordered rules reach.

use crate::types::CandidateKind;
use crate::types::Datetime;
use crate::types::Reason;
use crate::write::classify::scan::Scan;
use crate::write::classify::signals::Signals;

/// What the rule scan found, before the learned model is asked.
pub(crate) struct Analysis {
    pub(crate) observed: Datetime,
    pub(crate) folded: String,
    pub(crate) s: Scan,
    pub(crate) untrusted: bool,
    pub(crate) reasons: Vec<Reason>,
    pub(crate) signals: Signals,
    /// The kind the ordered rules reach (the kind model's baseline).
    pub(crate) rule_kind: CandidateKind,
    /// The kind decided before the kind model is asked (the rules', or
    /// `none` for an injection the learned detector found), and whether
    /// the evidence is strong.
    pub(crate) decided: (CandidateKind, bool),
    /// The scan's structural signals, named for the model.
    pub(crate) model_signals: Vec<&'static str>,
}
