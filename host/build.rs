//! Builds the guest policy component (`../guest`) for `wasm32-wasip2` with
//! the size-tuned `guest` profile, and hands its path to the host crate,
//! which embeds it. Runs as part of every `cargo build`/`cargo test`, so
//! building the guest is never a manual step. Installs the wasm32-wasip2
//! target through rustup when it is missing.

use std::env;
use std::path::PathBuf;

#[path = "build_wasm.rs"]
mod build_wasm;

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest_dir
        .parent()
        .expect("host/ has a parent")
        .to_path_buf();
    for p in build_wasm::GUEST_INPUTS {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=ENGRAM_GUEST_WASM");

    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("set by cargo"));
    let embedded = out_dir.join("engram_memory.wasm");

    // A prebuilt component can be supplied instead (e.g. to test another build).
    if let Ok(prebuilt) = env::var("ENGRAM_GUEST_WASM") {
        std::fs::copy(&prebuilt, &embedded).expect("copy ENGRAM_GUEST_WASM");
        println!("cargo:rustc-env=ENGRAM_COMPONENT_BUILD_PATH={prebuilt}");
        return;
    }

    let target_root = build_wasm::target_dir(&root);
    let built = build_wasm::build_component(
        &root,
        "engram-guest",
        "guest",
        &target_root.join("guest-build"),
    );
    std::fs::copy(&built, &embedded).expect("copy the guest component");
    // A stable path for other hosts (Node, Python) and `engram info`.
    let published = target_root.join("engram-memory.wasm");
    let _ = std::fs::copy(&built, &published);
    println!(
        "cargo:rustc-env=ENGRAM_COMPONENT_BUILD_PATH={}",
        published.display()
    );
}
