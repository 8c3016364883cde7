//! The edge component's runners and adapters for the tests: a persistent
//! `wasi:keyvalue` host (`kv_host`), the store adapter as a `Backend` for
//! the store conformance suite (`store_adapter`), and an HTTP server on
//! wasmtime's own `wasi:http` implementation (`runner`).

/// The fingerprint secret every edge test deployment is given
/// (`ENGRAM_FINGERPRINT_SECRET`, hex): a test value, never a real one.
pub const FINGERPRINT_SECRET: &str = "5eed0000000000000000000000000000";

/// The environment variable the edge reads it from.
pub const SECRET_VAR: &str = "ENGRAM_FINGERPRINT_SECRET";

pub mod jco;
pub mod kv_host;
pub mod runner;
pub mod scenario;
pub mod serve_process;
pub mod store_adapter;
pub mod wasmtime_cli;
