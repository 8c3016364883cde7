//! Builds the hostile test component (`hostile-guest/`) for wasm32-wasip2,
//! so `cargo test` on a fresh machine needs no manual step; its path reaches
//! the tests as `ENGRAM_HOSTILE_GUEST_WASM`. It goes to a target dir of its
//! own: the outer cargo holds the lock on the main one.

use std::env;
use std::path::PathBuf;

#[path = "../host/build_wasm.rs"]
mod build_wasm;

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest_dir
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf();
    for p in [
        "tests/hostile-guest/src",
        "tests/hostile-guest/Cargo.toml",
        "wit",
        "host/build_wasm.rs",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    let built = build_wasm::build_component(
        &root,
        "engram-hostile-guest",
        "release",
        &build_wasm::target_dir(&root).join("hostile-guest-build"),
    );
    println!(
        "cargo:rustc-env=ENGRAM_HOSTILE_GUEST_WASM={}",
        built.display()
    );
}
