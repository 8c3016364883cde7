//! Classification of a candidate into semantic, episodic, procedural,
//! working or none, with reasons, from deterministic cues.

use crate::config::Policy;
use crate::types::{
    Candidate, CandidateKind, Datetime, EpisodicPayload, Payload, ProceduralPayload,
    SemanticPayload,
};

/// What a candidate is, and the payload it would be stored with.
#[derive(Debug, Clone)]
pub struct Classification {
    pub kind: CandidateKind,
    pub reasons: Vec<String>,
    /// The payload for a storable kind (`None` for working/none).
    pub payload: Option<Payload>,
    /// The speaker explicitly asked to remember ("记住", "remember that").
    pub explicit_remember: bool,
    /// A temporary exception to a standing preference ("这次", "just this time").
    pub temporary: bool,
}

/// Classify one candidate. `now` stands in for a missing `observed-at`.
pub fn classify(c: &Candidate, now: Datetime, _policy: &Policy) -> Classification {
    let text = c.text.trim();
    let lower = text.to_lowercase();
    let observed = c.observed_at.unwrap_or(now);
    let mut reasons = Vec::new();
    let kind = if let Some(hint) = c.kind_hint {
        reasons.push(format!(
            "kind hint {}",
            crate::model::candidate_kind_name(hint)
        ));
        hint
    } else if text.chars().count() < 4 {
        reasons.push("too short to carry information".into());
        CandidateKind::None
    } else if lower.contains("this time") || text.contains("这次") {
        reasons.push("task-scope cue".into());
        CandidateKind::Working
    } else if lower.contains("first") && lower.contains("then")
        || text.contains('先') && text.contains('再')
    {
        reasons.push("ordered steps".into());
        CandidateKind::Procedural
    } else if c.occurred_at.is_some() {
        reasons.push("has an event time".into());
        CandidateKind::Episodic
    } else {
        reasons.push("stands apart from any event".into());
        CandidateKind::Semantic
    };
    let payload = match kind {
        CandidateKind::Semantic => Some(Payload::Semantic(SemanticPayload {
            subject: c.subject.clone().unwrap_or_else(|| default_subject(c)),
            predicate: c.predicate.clone().unwrap_or_else(|| "states".into()),
            object: c.object.clone().unwrap_or_else(|| text.to_string()),
            condition: c.condition.clone(),
        })),
        CandidateKind::Episodic => Some(Payload::Episodic(EpisodicPayload {
            occurred_at: Some(c.occurred_at.unwrap_or(observed)),
            time_expression: None,
            actors: Vec::new(),
            context: c.entities.clone(),
            actions: Vec::new(),
            outcome: None,
            success: None,
        })),
        CandidateKind::Procedural => Some(Payload::Procedural(ProceduralPayload {
            goal: text.to_string(),
            preconditions: Vec::new(),
            steps: Vec::new(),
            guards: Vec::new(),
            recovery: Vec::new(),
            authority: None,
        })),
        CandidateKind::Working | CandidateKind::None => None,
    };
    Classification {
        kind,
        reasons,
        payload,
        explicit_remember: lower.contains("remember") || text.contains("记住"),
        temporary: kind == CandidateKind::Working,
    }
}

/// The subject a semantic fact is about when the caller gave none: the user
/// when there is one, else the scope's project or tenant.
pub fn default_subject(c: &Candidate) -> String {
    if let Some(u) = &c.scope.user {
        format!("user:{u}")
    } else if let Some(p) = &c.scope.project {
        format!("project:{p}")
    } else {
        format!("tenant:{}", c.scope.tenant)
    }
}
