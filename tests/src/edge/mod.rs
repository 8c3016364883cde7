//! The edge component's runners and adapters for the tests: a persistent
//! `wasi:keyvalue` host (`kv_host`), the store adapter as a `Backend` for
//! the store conformance suite (`store_adapter`), and an HTTP server on
//! wasmtime's own `wasi:http` implementation (`runner`).

pub mod jco;
pub mod kv_host;
pub mod runner;
pub mod scenario;
pub mod serve_process;
pub mod store_adapter;
pub mod wasmtime_cli;
