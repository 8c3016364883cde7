//! A stored memory's row body, as the SQLite and PostgreSQL stores keep it
//! (the JSON envelope of `wire::MemoryJson`, with its embedding). Every
//! host's store reads and writes it here: the Rust stores natively, the
//! npm and Python stores through the component's `json` export.

use crate::types::{Error, Memory};
use crate::wire::MemoryJson;

/// The body of `m`.
pub fn encode(m: &Memory) -> String {
    // A `MemoryJson` holds strings, numbers and finite-or-null floats only:
    // serde_json cannot fail on it.
    serde_json::to_string(&MemoryJson::from(m.clone())).unwrap_or_default()
}

/// The memory of a body, or why the body is not one.
pub fn decode(body: &str) -> Result<Memory, String> {
    serde_json::from_str::<MemoryJson>(body)
        .map(Into::into)
        .map_err(|e| format!("corrupt memory body: {e}"))
}

/// The memories of many bodies (the component's `decode-memories`); a body
/// that is not one is `invalid-input` naming its index.
pub fn decode_all(bodies: &[String]) -> Result<Vec<Memory>, Error> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| decode(b).map_err(|m| crate::item::invalid(Some(i as u32), "", m)))
        .collect()
}
