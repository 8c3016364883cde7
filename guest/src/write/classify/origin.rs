//! The detect stage of classification: the secrets and personal data of a
//! text (masked before any cue is read), where its text comes from
//! (`Origin`: an untrusted carrier, an inference, an injection the rules
//! found, an order, a trace, a raw payload), and the carried text the
//! learned injection detector reads.

use crate::core::config::Policy;
use crate::core::config::WritePolicy;
use crate::types::Candidate;
use crate::types::Reason;
use crate::types::SourceKind;
use crate::write::classify::signals::Signals;
use crate::write::detect::injection;
use crate::write::detect::injection::Carrier;
use crate::write::detect::injection::Injection;
use crate::write::detect::secrets;
use crate::write::detect::secrets::{Family, Finding};
use crate::write::model::injection::Span;
use crate::write::model::injection::Via;
use engram_contract::reason::ReasonCode;

/// The secrets and personal data of a text, and the text folded with them
/// blanked, so their characters are never cues (health words stay).
pub(crate) fn masked_fold(text: &str, wp: &WritePolicy) -> (Vec<Finding>, Vec<Finding>, String) {
    let found = secrets::detect(text, wp);
    let mut hidden = found.secrets.clone();
    hidden.extend(
        found
            .personal
            .iter()
            .filter(|f| f.family != Family::Health)
            .cloned(),
    );
    let folded = secrets::mask(&found.folded, &hidden);
    (found.secrets, found.personal, folded)
}

/// How carried text arrived, for the learned injection detector.
pub(crate) fn via_of(c: &Candidate, carrier: Option<&Carrier>) -> Via {
    match (carrier, c.source.kind) {
        (Some(Carrier::Quoted(_)), _) => Via::Quoted,
        (_, SourceKind::Tool) => Via::Tool,
        _ => Via::Document,
    }
}

/// Carried text as the learned injection detector reads it: the folded
/// text, the carried spans, how it arrived.
pub type Carried = (String, Vec<Span>, Via);

/// The carried text of a candidate as the learned injection detector reads
/// it (training uses this): the folded text (secrets masked), the carried
/// spans, and how it arrived. `None` when nothing is carried.
pub fn carried_text(c: &Candidate, policy: &Policy) -> Option<Carried> {
    let wp = &policy.write;
    let (_, _, folded) = masked_fold(c.text.trim(), wp);
    let trust = policy.source(c.source.kind);
    let carrier = if !trust.may_instruct && !trust.inferred {
        Carrier::Source
    } else if trust.inferred {
        return None;
    } else {
        let spans = injection::quoted_spans(&folded, wp);
        if spans.is_empty() {
            return None;
        }
        Carrier::Quoted(spans)
    };
    let via = via_of(c, Some(&carrier));
    let spans = match carrier {
        Carrier::Source => vec![(0, folded.len())],
        Carrier::Quoted(spans) => spans,
    };
    Some((folded, spans, via))
}

/// Where a candidate's text comes from, as the injection rule sees it.
pub(crate) struct Origin {
    /// A document or tool output.
    pub(crate) untrusted: bool,
    /// A behavioural or agent inference.
    pub(crate) inferred: bool,
    /// Carried text that addresses the assistant: the marker family.
    pub(crate) injected: Option<Injection>,
    /// An order in carried text, by structure (`detect::carried::orders`).
    pub(crate) order: Option<String>,
    /// A reasoning-trace marker (`detect::carried::trace`).
    pub(crate) trace: Option<String>,
    /// A raw serialised payload (`detect::carried::dump`).
    pub(crate) dump: Option<String>,
}

/// What carried the text, for a reason: the untrusted source's content, or
/// text the speaker quoted.
pub(crate) fn carrier(c: &Candidate, origin: &Origin) -> String {
    if origin.untrusted {
        format!(
            "{} content",
            crate::core::model::source_label(c.source.kind)
        )
    } else {
        "text quoted in the message".to_string()
    }
}

/// Records an injection in carried text: the reason, and the signal the
/// value and permission gates reject on.
pub(crate) fn reject_injection(
    c: &Candidate,
    origin: &Origin,
    inj: &Injection,
    reasons: &mut Vec<Reason>,
    signals: &mut Signals,
) {
    let carrier = carrier(c, origin);
    let why = Reason::new(
        ReasonCode::KindPromptInjection,
        &[&inj.describe(), &carrier],
    );
    signals.injection = Some(why.text.clone());
    reasons.push(why);
}
