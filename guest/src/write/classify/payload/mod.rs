//! The payload stage: what a storable kind is stored with.

pub(crate) mod episodic;
pub(crate) mod procedural;
pub(crate) mod semantic;

use crate::core::config::WritePolicy;
use crate::types::Candidate;
use crate::types::CandidateKind;
use crate::types::Datetime;
use crate::types::Payload;
use crate::types::Reason;
use crate::write::classify::payload::episodic::episodic_payload;
use crate::write::classify::payload::procedural::procedural_payload;
use crate::write::classify::payload::semantic::semantic_payload;
use crate::write::classify::scan::Scan;

/// Build the payload of a storable kind.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_payload(
    c: &Candidate,
    kind: CandidateKind,
    text: &str,
    folded: &str,
    s: &Scan,
    observed: Datetime,
    wp: &WritePolicy,
    reasons: &mut Vec<Reason>,
) -> Option<Payload> {
    match kind {
        CandidateKind::Semantic => Some(Payload::Semantic(semantic_payload(
            c, text, folded, wp, reasons,
        ))),
        CandidateKind::Episodic => Some(Payload::Episodic(episodic_payload(
            c, text, s, observed, reasons,
        ))),
        CandidateKind::Procedural => {
            Some(Payload::Procedural(procedural_payload(text, folded, s, wp)))
        }
        CandidateKind::Working | CandidateKind::None => None,
    }
}
