//! The serde types of every operation's input and output (SPEC §4) and
//! their mapping to the data model (`crate::types`).
//!
//! Inputs are strict (`deny_unknown_fields`): a field they do not name is
//! refused, and a wrong one fails, naming it (`crate::input`). Outputs declare their fields in alphabetical order,
//! so every object prints with sorted keys (`tests::outputs_print_sorted_keys`).

mod common;
mod lifecycle;
mod memory;
mod operations;
mod pack;
mod read;
mod write;

pub use common::*;
pub use lifecycle::*;
pub use memory::*;
pub use operations::*;
pub use pack::*;
pub use read::*;
pub use write::*;

#[cfg(test)]
mod tests;
