//! The HTTP handler of the edge component: Engram's HTTP API (SPEC §4.1,
//! `engram-api`) as a `wasi:http` incoming handler, over the policy's JSON
//! contract (`engram:memory/json`) and the store's session
//! (`engram:edge/session`).
//!
//! Routes, keys, limits and error texts are `engram-api`'s, as `engram
//! serve`'s are; this crate is only the glue: `config` reads the keys and
//! limits from the environment (plain Rust, unit-tested natively), and
//! `component` turns a `wasi:http` request into an `engram_api::Request`,
//! calls the policy for the key's principal, and writes the answer back.

pub mod config;

#[cfg(target_arch = "wasm32")]
mod component;
