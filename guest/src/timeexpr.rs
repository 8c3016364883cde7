//! Resolution of relative time expressions ("昨天", "上周三", "last
//! Wednesday", "two days ago") against the moment they were said, in the
//! speaker's UTC offset.

use crate::types::Datetime;

/// A resolved time expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub at: Datetime,
    /// The words it was resolved from, as written.
    pub expression: String,
}

/// Find and resolve the first relative or absolute date in `text`.
pub fn resolve(_text: &str, _observed: Datetime) -> Option<Resolved> {
    None
}
