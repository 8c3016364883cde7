//! Engram's `store` and `clock` on `wasi:keyvalue` (draft2): the storage
//! adapter of the edge component (`docs/edge.md`).
//!
//! The store logic is plain Rust over a small key-value trait (`kv`), so it
//! runs natively in unit tests; `component` is the only wasm glue.
//! `layout` names the keys, `model` their values, `view` reads one tenant
//! at one commit version, `store` answers the reads, `plan` turns a
//! commit's ops into final key values and `commit` makes them visible
//! atomically with one compare-and-swap.

pub mod bindings {
    wit_bindgen::generate!({
        path: ["../../wit", "../wit"],
        world: "engram:edge/kv-store",
        additional_derives: [serde::Serialize, serde::Deserialize, PartialEq],
        additional_derives_ignore: ["cas-error", "error", "key-response"],
        generate_all,
    });
}

/// The data model (`engram:memory/types`, exported by this component).
pub use bindings::exports::engram::memory::types;

pub mod clock;
pub mod commit;
pub mod filter;
pub mod kv;
pub mod layout;
pub mod model;
pub mod plan;
pub mod secret;
pub mod store;
pub mod view;

#[cfg(target_arch = "wasm32")]
mod component;

#[cfg(test)]
mod tests;
