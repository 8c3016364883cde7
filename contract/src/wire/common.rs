//! What every operation's wire types share: instants, entries, scope,
//! source and memory references, and how a number is printed.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::types as t;

/// An RFC 3339 instant on the wire (`crate::time`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Time(pub t::Datetime);

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        crate::time::parse_field(&s)
            .map(Time)
            .map_err(serde::de::Error::custom)
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::time::format(self.0))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Time {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Time".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "format": "date-time",
            "description": "An RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00); a date-time or date without an offset is UTC."
        })
    }
}

pub(crate) fn time(d: Option<t::Datetime>) -> Option<Time> {
    d.map(Time)
}
pub(crate) fn datetime(t: Option<Time>) -> Option<t::Datetime> {
    t.map(|x| x.0)
}

/// Decimal places a score, feature or confidence prints with.
pub const SHOWN_DECIMALS: i32 = 4;

/// A number as it prints: rounded to `SHOWN_DECIMALS` places, so float noise
/// (`0.07500000000000002`) prints as the value meant (`0.075`). Only the
/// printed value is rounded: the policy ranks and stores the exact one.
/// Used as `#[serde(serialize_with = "shown")]` on `f64` and `Option<f64>`
/// output fields.
pub fn shown<T: Shown, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    v.shown().serialize(s)
}

/// A number (or an optional one) `shown` can round.
pub trait Shown {
    type Rounded: Serialize;
    fn shown(&self) -> Self::Rounded;
}

impl Shown for f64 {
    type Rounded = f64;
    fn shown(&self) -> f64 {
        let scale = 10f64.powi(SHOWN_DECIMALS);
        let r = (self * scale).round() / scale;
        if !r.is_finite() {
            // Not finite, or too large to scale: as it is.
            *self
        } else if r == 0.0 {
            0.0 // never `-0.0`
        } else {
            r
        }
    }
}

impl Shown for Option<f64> {
    type Rounded = Option<f64>;
    fn shown(&self) -> Option<f64> {
        self.as_ref().map(Shown::shown)
    }
}

/// A string→string map on the wire (entities, state), keys sorted; a
/// `null` value is dropped and any other non-string value is kept as its
/// JSON text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entries(pub Vec<t::Entry>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = Option::<BTreeMap<String, Value>>::deserialize(d)?.unwrap_or_default();
        Ok(Entries(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(key, v)| t::Entry {
                    key,
                    value: match v {
                        Value::String(s) => s,
                        other => other.to_string(),
                    },
                })
                .collect(),
        ))
    }
}

impl Serialize for Entries {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m: BTreeMap<&str, &str> = self
            .0
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect();
        m.serialize(s)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Entries {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Entries".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "A string-to-string map (e.g. {\"service\": \"order-service\"}); a null value is dropped, another non-string value is kept as its JSON text."
        })
    }
}

/// The namespace a memory lives in (SPEC §2). Only `tenant` is required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// The agent, when narrowed to one.
    #[serde(default)]
    pub agent: Option<String>,
    /// The project, when narrowed to one.
    #[serde(default)]
    pub project: Option<String>,
    /// The tenant: every memory has one.
    pub tenant: String,
    /// The conversation thread, when narrowed to one.
    #[serde(default)]
    pub thread: Option<String>,
    /// The user, when narrowed to one.
    #[serde(default)]
    pub user: Option<String>,
}

impl From<Scope> for t::Scope {
    fn from(s: Scope) -> Self {
        t::Scope {
            tenant: s.tenant,
            user: s.user,
            project: s.project,
            thread: s.thread,
            agent: s.agent,
        }
    }
}
impl From<t::Scope> for Scope {
    fn from(s: t::Scope) -> Self {
        Scope {
            tenant: s.tenant,
            user: s.user,
            project: s.project,
            thread: s.thread,
            agent: s.agent,
        }
    }
}

/// Where something came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Who said or produced it; decides its default trust.
    pub kind: t::SourceKind,
    /// The event, message or document it came from (e.g. `evt-1001`);
    /// forgetting by this reference cascades to what was derived from it.
    #[serde(rename = "ref", default)]
    pub reference: Option<String>,
}

impl From<Source> for t::Source {
    fn from(s: Source) -> Self {
        t::Source {
            kind: s.kind,
            reference: s.reference,
        }
    }
}
impl From<t::Source> for Source {
    fn from(s: t::Source) -> Self {
        Source {
            kind: s.kind,
            reference: s.reference,
        }
    }
}

/// One revision of one memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryRef {
    pub id: String,
    pub revision: u32,
}

impl From<t::MemoryRef> for MemoryRef {
    fn from(r: t::MemoryRef) -> Self {
        MemoryRef {
            id: r.id,
            revision: r.revision,
        }
    }
}
impl From<MemoryRef> for t::MemoryRef {
    fn from(r: MemoryRef) -> Self {
        t::MemoryRef {
            id: r.id,
            revision: r.revision,
        }
    }
}

/// Why the policy decided something: a code of the closed vocabulary
/// (`contract/reasons.txt`), the values of its slots by name, and the
/// sentence rendered from them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reason {
    /// The reason's code (e.g. `gate.sensitivity.secret`); a code keeps its meaning.
    #[cfg_attr(feature = "schema", schemars(with = "crate::reason::ReasonCode"))]
    pub code: String,
    /// The values of the code's slots, by slot name (empty for a code without slots).
    pub detail: BTreeMap<String, String>,
    /// The sentence for a person: the code's template with the detail put in.
    pub text: String,
}

impl From<t::Reason> for Reason {
    fn from(r: t::Reason) -> Self {
        Reason {
            code: r.code,
            detail: r.detail.into_iter().collect(),
            text: r.text,
        }
    }
}
