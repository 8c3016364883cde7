//! The edge component (docs/edge.md): the store adapter passes the store
//! conformance suite on a persistent `wasi:keyvalue` host; the composed
//! component serves `engram serve`'s HTTP API under wasmtime's own
//! `wasi:http` (as `wasmtime serve` runs it), under the `wasmtime serve`
//! CLI, and in Node through jco, with the conformance scenario's outputs
//! equal to the Rust host's.

use std::sync::Arc;

use engram_tests::edge::kv_host::KvDb;
use engram_tests::edge::store_adapter::KvComponentStore;
use engram_tests::store_conformance::{second_store_sees_commits, CHECKS};

fn engine() -> wasmtime::Engine {
    wasmtime::Engine::default()
}

/// Every check of the suite but "batches and savepoints": outer
/// transactions across calls are the Rust host's `Backend` feature
/// (`begin_batch`), not part of `wit/store.wit`, which the adapter
/// implements; each of its commits is atomic on its own.
#[test]
fn the_kv_store_adapter_conforms() {
    let engine = engine();
    let db = KvDb::open(std::path::Path::new(":memory:"));
    let mut store = KvComponentStore::new(&engine, engram_edge::KV_STORE_COMPONENT, Arc::clone(&db));
    let mut ran = 0;
    for (i, (name, check)) in CHECKS.iter().enumerate() {
        if *name == "batches and savepoints" {
            continue;
        }
        eprintln!("edge store conformance: {name}");
        check(&mut store, &format!("kv-{i}"));
        ran += 1;
    }
    assert_eq!(ran, CHECKS.len() - 1);
    let mut other = KvComponentStore::new(&engine, engram_edge::KV_STORE_COMPONENT, Arc::clone(&db));
    second_store_sees_commits(&mut store, &mut other, "kv-two");
}
