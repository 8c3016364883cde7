//! The `wasmtime` CLI 48.0.8 for the smoke run under `wasmtime serve`:
//! `cargo install wasmtime-cli` into the build's scratch directory (once;
//! compiling it takes several minutes), with the features `serve` needs.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::provision::{cache_dir, run, version_of, DirLock};

pub const VERSION: &str = "48.0.8";
const FEATURES: &str = "run,serve,wasi-keyvalue,wasi-config,cranelift,component-model,component-model-async,parallel-compilation,pooling-allocator";

/// The path of a `wasmtime` 48.0.8 binary, installed if missing.
pub fn provision() -> PathBuf {
    let root = cache_dir().join(format!("wasmtime-cli-{VERSION}"));
    let exe = root.join("bin/wasmtime");
    let ok =
        |exe: &PathBuf| version_of(&exe.display().to_string()).is_ok_and(|v| v.contains(VERSION));
    if ok(&exe) {
        return exe;
    }
    let _lock = DirLock::acquire(cache_dir().join("wasmtime-cli.lock"));
    if ok(&exe) {
        return exe;
    }
    let t = Instant::now();
    eprintln!("provision: cargo install wasmtime-cli {VERSION} (several minutes)…");
    run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "install",
                "wasmtime-cli",
                "--version",
                VERSION,
                "--locked",
                "--no-default-features",
                "--features",
                FEATURES,
                "--root",
            ])
            .arg(&root)
            .arg("--target-dir")
            .arg(cache_dir().join("wasmtime-cli-build"))
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUSTFLAGS"),
        "cargo install wasmtime-cli",
    );
    eprintln!(
        "provision: wasmtime {VERSION} installed in {:.1?}",
        t.elapsed()
    );
    assert!(ok(&exe), "cargo install left no working {}", exe.display());
    exe
}
