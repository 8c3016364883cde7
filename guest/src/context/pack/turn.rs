//! A stored preference the current turn overrides: what the conversation's
//! last user message chooses for this task, and which stored memory it
//! stands against.

use super::text::one_line;
use crate::core::api::Ctx;
use crate::types::Memory;
use crate::types::PackRequest;
use crate::types::Payload;
use crate::types::Role;
use crate::types::SourceKind;

/// Memories (facts, events, procedures), knowledge and artifacts: one line
/// each, a label and the text as a quoted string.
/// The current turn's choice for this task only ("use Java this time",
/// "这次用 Java"): the kind of value it chooses, the value, and the
/// message's words. Seed 004: the current request outranks a stored
/// preference for this turn, and the context says so; the preference
/// itself is not changed (a temporary exception, SPEC §3.3).
pub(super) struct TurnChoice {
    pub(super) category: &'static crate::vocab::Category,
    pub(super) value: &'static str,
    pub(super) words: String,
}

pub(super) fn turn_choice(ctx: &Ctx, request: &PackRequest) -> Option<TurnChoice> {
    let turn = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User && !m.text.trim().is_empty())?;
    let (category, value, _) = crate::vocab::value_in(&turn.text)?;
    let candidate = crate::types::Candidate {
        id: None,
        text: turn.text.clone(),
        scope: request.scope.clone(),
        source: crate::types::Source {
            kind: SourceKind::User,
            reference: None,
        },
        observed_at: None,
        confidence: None,
        kind_hint: None,
        subject: None,
        predicate: None,
        object: None,
        condition: None,
        occurred_at: None,
        valid_from: None,
        valid_to: None,
        entities: Vec::new(),
        embedding: None,
    };
    let c = crate::write::classify::classify(&candidate, ctx.now(), ctx.policy);
    (c.kind == crate::types::CandidateKind::Working).then(|| TurnChoice {
        category,
        value,
        words: one_line(&turn.text),
    })
}

/// Does the current turn's choice override this stored preference: a fact
/// about a value of the same kind that names another value?
pub(super) fn overridden(m: &Memory, choice: Option<&TurnChoice>) -> Option<String> {
    let choice = choice?;
    let Payload::Semantic(p) = &m.payload else {
        return None;
    };
    let same_kind = p.predicate == choice.category.name
        || crate::vocab::category_of(&p.object).is_some_and(|c| c.name == choice.category.name);
    let other_value = !crate::analysis::cues::fold(&p.object).contains(choice.value);
    // A preference stating several choices in one sentence ("以后中文回复，
    // 代码示例用 TypeScript"): keyed by its first, it still names another
    // value of the kind the turn chooses.
    let names_other =
        crate::vocab::other_member_in(&m.text, choice.category, choice.value).is_some();
    ((same_kind && other_value) || names_other).then(|| {
        let words: String = choice
            .words
            .chars()
            .take(60)
            .map(|c| match c {
                '[' => '(',
                ']' => ')',
                '\'' => '’',
                c => c,
            })
            .collect();
        format!("overridden by the current turn ('{words}')")
    })
}
