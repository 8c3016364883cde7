//! The HTTP handler of the edge component: `engram serve`'s API (SPEC
//! §4.1) as a `wasi:http` incoming handler, over the policy's JSON contract
//! (`engram:memory/json`) and the store's session (`engram:edge/session`).
//!
//! Routing, authentication and limits are plain Rust (`api`, `auth`,
//! `batch`, `config`, `error`) and unit-tested natively; `component` is
//! the only wasm glue.

pub mod bindings {
    wit_bindgen::generate!({
        path: ["../../wit", "../wit"],
        world: "engram:edge/http-handler",
        with: { "engram:memory/types@0.1.0": engram_contract::types },
        generate_all,
    });
}

pub mod api;
pub mod auth;
pub mod batch;
pub mod config;
pub mod error;

#[cfg(target_arch = "wasm32")]
mod component;

#[cfg(test)]
mod tests;
