//! Builds the edge component as part of every `cargo build`: the policy
//! guest (unchanged, the same build as `host/build.rs`'s), the store
//! adapter (`edge/kv-store`) and the HTTP handler (`edge/http`) for
//! wasm32-wasip2, then composes them with `wac-graph` into
//! `OUT_DIR/engram-edge.wasm`, also published as `target/engram-edge.wasm`;
//! and `engram-edge-wasmtime-serve.wasm`, the same with the keyvalue draft
//! bridge, for `wasmtime serve -S keyvalue`.

use std::env;
use std::path::PathBuf;

#[path = "../host/build_wasm.rs"]
mod build_wasm;
// The library uses all of it; the build script only `compose`.
#[allow(dead_code)]
#[path = "src/compose.rs"]
mod compose;

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest_dir
        .parent()
        .expect("edge/ has a parent")
        .to_path_buf();
    for p in build_wasm::GUEST_INPUTS.iter().copied().chain([
        "edge/kv-store/src",
        "edge/kv-store/Cargo.toml",
        "api/src",
        "api/Cargo.toml",
        "edge/http/src",
        "edge/http/Cargo.toml",
        "edge/kv-draft-bridge/src",
        "edge/kv-draft-bridge/Cargo.toml",
        "edge/wit",
        "edge/src/compose.rs",
    ]) {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("set by cargo"));
    let target = build_wasm::target_dir(&root);
    // The policy exactly as host/build.rs builds it (same profile and dir).
    let policy =
        build_wasm::build_component(&root, "engram-guest", "guest", &target.join("guest-build"));
    let edge_dir = target.join("edge-build");
    let kv = build_wasm::build_component(&root, "engram-edge-kv", "guest", &edge_dir);
    let http = build_wasm::build_component(&root, "engram-edge-http", "guest", &edge_dir);
    let bridge =
        build_wasm::build_component(&root, "engram-edge-kv-draft-bridge", "guest", &edge_dir);
    let read =
        |p: &PathBuf| std::fs::read(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
    let (policy, kv, http, bridge) = (read(&policy), read(&kv), read(&http), read(&bridge));
    let edge = compose::compose(&policy, &kv, &http)
        .unwrap_or_else(|e| panic!("composing the edge component: {e}"));
    let for_wasmtime_serve = compose::bridge_keyvalue(&edge, &bridge)
        .unwrap_or_else(|e| panic!("composing the wasmtime serve variant: {e}"));
    for (name, bytes) in [
        ("engram-edge.wasm", &edge),
        ("engram-edge-policy.wasm", &policy),
        ("engram-edge-kv-store.wasm", &kv),
        ("engram-edge-http.wasm", &http),
        ("engram-edge-wasmtime-serve.wasm", &for_wasmtime_serve),
    ] {
        std::fs::write(out.join(name), bytes).expect("write a component");
    }
    let published = target.join("engram-edge.wasm");
    let _ = std::fs::write(&published, &edge);
    println!(
        "cargo:rustc-env=ENGRAM_EDGE_BUILD_PATH={}",
        published.display()
    );
}
