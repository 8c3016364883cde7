//! The policy's reasons as data: a closed vocabulary of codes
//! (`contract/reasons.txt`, compiled by the build into `ReasonCode`), each
//! with a sentence template whose slots a reason's detail fills. The
//! sentence a person reads is rendered here, once (`render`): the policy
//! gives a code and its values, never a sentence of its own.
//!
//! In a decision's reasons a gate's reason is said with its gate's name in
//! front ("sensitivity gate: secret: …", `render_in_decision`); the same
//! reason in the gate's own verdict is not.

include!(concat!(env!("OUT_DIR"), "/reasons.rs"));

/// A part of a reason's template: literal text, or the slot with this index
/// in `ReasonCode::slots`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Text(&'static str),
    Slot(usize),
}

impl ReasonCode {
    /// The stage the code belongs to: its first word (`kind`, `model`,
    /// `hint`, `payload`, `gate`, `resolve`, `admission`, `review`).
    pub fn stage(self) -> &'static str {
        let code = self.as_str();
        code.split_once('.').map_or(code, |(stage, _)| stage)
    }

    /// For a gate's reason (`gate.<gate>.…`), the gate's name.
    pub fn gate(self) -> Option<&'static str> {
        let rest = self.as_str().strip_prefix("gate.")?;
        rest.split_once('.').map(|(gate, _)| gate)
    }
}

impl std::fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ReasonCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ReasonCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = String::deserialize(d)?;
        ReasonCode::parse(&code)
            .ok_or_else(|| serde::de::Error::custom(format!("`{code}` is not a reason code")))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ReasonCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReasonCode".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codes: Vec<&str> = ReasonCode::ALL.iter().map(|c| c.as_str()).collect();
        schemars::json_schema!({
            "type": "string",
            "enum": codes,
            "description": "A reason's code: one of the closed vocabulary in contract/reasons.txt (SPEC §4, Reasons).",
        })
    }
}

/// The sentence of `code` with `values` in its slots, in the order of
/// `code.slots()`; a slot without a value is left empty.
pub fn render(code: ReasonCode, values: &[&str]) -> String {
    let mut out = String::with_capacity(code.template().len() + 32);
    for part in code.parts() {
        match *part {
            Part::Text(t) => out.push_str(t),
            Part::Slot(i) => out.push_str(values.get(i).copied().unwrap_or("")),
        }
    }
    out
}

/// The sentence of `code` as a decision's reasons say it: a gate's reason
/// after its gate's name ("value gate: nothing reusable"), any other as
/// `render` has it.
pub fn render_in_decision(code: ReasonCode, values: &[&str]) -> String {
    let sentence = render(code, values);
    match code.gate() {
        Some(gate) => format!("{gate} gate: {sentence}"),
        None => sentence,
    }
}

/// The values of `detail` (slot name, value) in the order of `code.slots()`,
/// for `render`; a slot the detail does not name is empty.
pub fn values(code: ReasonCode, detail: &[(String, String)]) -> Vec<&str> {
    code.slots()
        .iter()
        .map(|slot| {
            detail
                .iter()
                .find(|(name, _)| name == slot)
                .map_or("", |(_, value)| value.as_str())
        })
        .collect()
}

/// The detail of `code` with `values` (slot name, value), in slot order.
pub fn detail(code: ReasonCode, values: &[&str]) -> Vec<(String, String)> {
    code.slots()
        .iter()
        .enumerate()
        .map(|(i, slot)| {
            (
                slot.to_string(),
                values.get(i).copied().unwrap_or("").to_string(),
            )
        })
        .collect()
}

impl crate::types::Reason {
    /// A reason of `code` with `values` in its slots (in the order of
    /// `code.slots()`): its detail named by slot, its text rendered.
    pub fn new(code: ReasonCode, values: &[&str]) -> Self {
        crate::types::Reason {
            code: code.as_str().to_string(),
            detail: detail(code, values),
            text: render(code, values),
        }
    }

    /// The reason's code, when it is one of the vocabulary's.
    pub fn code(&self) -> Option<ReasonCode> {
        ReasonCode::parse(&self.code)
    }

    /// The reason as a decision's reasons say it: a gate's reason after its
    /// gate's name (`render_in_decision`).
    pub fn in_decision(&self) -> Self {
        // The gate's name from the code's text (as `ReasonCode::gate` has it).
        let gate = self
            .code
            .strip_prefix("gate.")
            .and_then(|rest| rest.split_once('.'))
            .map(|(gate, _)| gate);
        match gate {
            Some(gate) => crate::types::Reason {
                text: format!("{gate} gate: {}", self.text),
                ..self.clone()
            },
            None => self.clone(),
        }
    }

    /// Whether the text is the one its code and detail render, as a gate's
    /// verdict or as a decision's reasons say it.
    pub fn is_rendered(&self) -> bool {
        let Some(code) = self.code() else {
            return false;
        };
        let values = values(code, &self.detail);
        self.text == render(code, &values) || self.text == render_in_decision(code, &values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_carries_its_code_detail_and_text() {
        let r =
            crate::types::Reason::new(ReasonCode::GateValueReusableAsked, &["semantic", "记住"]);
        assert_eq!(r.code, "gate.value.reusable-asked");
        assert_eq!(
            r.detail,
            [
                ("kind".to_string(), "semantic".to_string()),
                ("ask".to_string(), "记住".to_string())
            ]
        );
        assert_eq!(
            r.text,
            "reusable semantic memory; the speaker asked to keep it ('记住')"
        );
        assert!(r.is_rendered());
        let said = r.in_decision();
        assert_eq!(said.text, format!("value gate: {}", r.text));
        assert!(said.is_rendered());
        let altered = crate::types::Reason {
            text: "reusable".into(),
            ..r
        };
        assert!(!altered.is_rendered());
    }

    #[test]
    fn every_code_parses_back_from_its_name() {
        for code in ReasonCode::ALL {
            assert_eq!(ReasonCode::parse(code.as_str()), Some(*code));
        }
        assert_eq!(ReasonCode::parse("gate.value"), None);
        assert_eq!(ReasonCode::parse(""), None);
    }

    #[test]
    fn every_template_renders_back_from_its_slot_names() {
        for code in ReasonCode::ALL {
            let names: Vec<String> = code.slots().iter().map(|s| format!("{{{s}}}")).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            assert_eq!(render(*code, &names), code.template(), "{code}");
        }
    }

    #[test]
    fn a_reason_renders_from_its_detail_by_slot_name() {
        let code = ReasonCode::GateConfidenceBelowFloor;
        assert_eq!(code.slots(), ["source", "confidence", "floor"]);
        let detail = detail(code, &["agent-inferred", "0.20", "0.30"]);
        assert_eq!(
            render(code, &values(code, &detail)),
            "agent-inferred: confidence 0.20 below the floor 0.30"
        );
        let reordered: Vec<(String, String)> = detail.iter().rev().cloned().collect();
        assert_eq!(values(code, &reordered), ["agent-inferred", "0.20", "0.30"]);
    }

    #[test]
    fn a_missing_value_renders_empty_and_extra_values_are_ignored() {
        let code = ReasonCode::KindTaskScopeCue;
        assert_eq!(
            render(code, &[]),
            "task-scope cue '': valid only for the current task"
        );
        assert_eq!(
            render(code, &["这次", "more"]),
            "task-scope cue '这次': valid only for the current task"
        );
        assert_eq!(
            render(ReasonCode::GateStabilityNothingToKeep, &["x"]),
            "nothing to keep"
        );
    }

    #[test]
    fn a_gates_reason_is_said_with_the_gates_name_in_a_decision() {
        assert_eq!(ReasonCode::GateValueNothingReusable.gate(), Some("value"));
        assert_eq!(ReasonCode::GateValueNothingReusable.stage(), "gate");
        assert_eq!(ReasonCode::ResolveOlder.gate(), None);
        assert_eq!(ReasonCode::ResolveOlder.stage(), "resolve");
        assert_eq!(
            render_in_decision(ReasonCode::GateValueNothingReusable, &[]),
            "value gate: nothing reusable"
        );
        assert_eq!(
            render_in_decision(ReasonCode::ResolveSameContent, &["m-1#1"]),
            "same content as m-1#1"
        );
    }

    #[test]
    fn codes_are_grouped_by_stage_and_gates_are_the_six() {
        let stages = [
            "kind",
            "model",
            "hint",
            "payload",
            "gate",
            "resolve",
            "admission",
            "review",
        ];
        for code in ReasonCode::ALL {
            assert!(stages.contains(&code.stage()), "{code}");
            if let Some(gate) = code.gate() {
                assert!(
                    crate::types::GateName::from_name(gate).is_some(),
                    "{code}: no gate `{gate}`"
                );
            }
        }
    }

    #[test]
    fn a_code_serialises_as_its_name() {
        let json = serde_json::to_string(&ReasonCode::AdmissionKind).unwrap();
        assert_eq!(json, "\"admission.kind\"");
        let back: ReasonCode = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ReasonCode::AdmissionKind);
        assert!(serde_json::from_str::<ReasonCode>("\"admission.nope\"").is_err());
    }
}
