//! Engram's contract, written once: the Rust types of the WIT data model
//! (`types`, generated from `wit/types.wit` and shared by the guest and
//! every Rust host), the JSON Lines operations of SPEC §4 (`wire`: the
//! serde types of every input and output and their mapping to `types`;
//! `ops`: the table of operations), and what stores and transports need
//! besides (`body`, the memory row body; `route`, what a transport reads
//! before a call; `item`, which item of a call an error is about; `message`, how an
//! error is worded for a person; `reach`,
//! a principal's reach and the wording of a denial; `time`, RFC 3339;
//! `owner`, whose tombstones a principal sees and how their keys are
//! derived; `reason`, the closed vocabulary of the policy's reason codes
//! and the one rendering of their sentences).
//!
//! The crate is compiled into the component, which exports it as the
//! `json` interface (`wit/json.wit`): the CLI, `engram serve`, `engram
//! mcp` and the npm and Python packages hand it JSON text and print what
//! it answers. With the `schema` feature it also renders its JSON Schema
//! and the TypeScript types, Python typed dicts and MCP tool schemas
//! generated from it (`schema`).
//!
//! Input is strict: a field an operation does not read is refused (naming
//! the nearest known field), a line holding more than one JSON value is
//! refused, and an error names the item (its line in JSON Lines, its
//! position in an array) and the field path, in JSON's terms
//! (`input`; transports check a whole input first with `ops::check`).

pub mod types;

/// The `engram:memory/types` interface for a wasmtime host's bindings
/// (`with: { "engram:memory/types": engram_contract::wasmtime_types }`).
#[cfg(feature = "wasmtime")]
pub mod wasmtime_types;

pub mod body;
mod input;
pub mod item;
pub mod message;
pub mod ops;
pub mod owner;
pub mod reach;
pub mod reason;
pub mod route;
pub mod time;
pub mod wire;

#[cfg(feature = "schema")]
pub mod constants;
#[cfg(feature = "schema")]
pub mod schema;

pub use input::Form;
pub use ops::{call, Operation, Policy, OPERATIONS};
