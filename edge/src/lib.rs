//! The edge component (`engram-edge.wasm`, docs/edge.md): Engram's policy,
//! byte for byte the component the Rust host runs, composed with a store
//! adapter on `wasi:keyvalue` (`edge/kv-store`) and an HTTP handler on
//! `wasi:http` (`edge/http`). It imports only standard interfaces. Built
//! by `build.rs` on every `cargo build`.

pub mod compose;

/// The composed component.
pub const EDGE_COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/engram-edge.wasm"));
/// Its three parts, as composed.
pub const POLICY_COMPONENT: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/engram-edge-policy.wasm"));
pub const KV_STORE_COMPONENT: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/engram-edge-kv-store.wasm"));
pub const HTTP_COMPONENT: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/engram-edge-http.wasm"));
/// The edge component on the first `wasi:keyvalue` draft, through the
/// bridge (`edge/kv-draft-bridge`): what `wasmtime serve -S keyvalue` runs.
pub const EDGE_FOR_WASMTIME_SERVE: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/engram-edge-wasmtime-serve.wasm"));
/// Where the build published the composed component (`target/engram-edge.wasm`).
pub const EDGE_COMPONENT_PATH: &str = env!("ENGRAM_EDGE_BUILD_PATH");
