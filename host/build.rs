//! Builds the guest policy component (`../guest`) for `wasm32-wasip2` with
//! the size-tuned `guest` profile, and hands its path to the host crate,
//! which embeds it. Runs as part of every `cargo build`/`cargo test`, so
//! building the guest is never a manual step. Installs the wasm32-wasip2
//! target through rustup when it is missing.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip2";

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest_dir
        .parent()
        .expect("host/ has a parent")
        .to_path_buf();
    for p in ["guest/src", "guest/Cargo.toml", "wit", "Cargo.toml"] {
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

    ensure_target();
    // A separate target dir: the outer cargo holds the lock on the main one.
    let target_root = target_dir(&root);
    let guest_target = target_root.join("guest-build");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args([
            "build",
            "-p",
            "engram-guest",
            "--lib",
            "--target",
            TARGET,
            "--profile",
            "guest",
        ])
        .arg("--target-dir")
        .arg(&guest_target);
    // Flags meant for the host build must not leak into the wasm build.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd
        .status()
        .expect("run cargo to build the guest component");
    assert!(status.success(), "building the guest component failed");

    let built = guest_target
        .join(TARGET)
        .join("guest")
        .join("engram_guest.wasm");
    std::fs::copy(&built, &embedded).expect("copy the guest component");
    // A stable path for other hosts (Node, Python) and `engram info`.
    let published = target_root.join("engram-memory.wasm");
    let _ = std::fs::copy(&built, &published);
    println!(
        "cargo:rustc-env=ENGRAM_COMPONENT_BUILD_PATH={}",
        published.display()
    );
}

/// The workspace's target directory (honours CARGO_TARGET_DIR).
fn target_dir(root: &Path) -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                root.join(d)
            }
        }
        None => root.join("target"),
    }
}

/// Add the wasm32-wasip2 target through rustup when the sysroot lacks it.
fn ensure_target() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(s) = sysroot {
        if Path::new(&s).join("lib/rustlib").join(TARGET).exists() {
            return;
        }
    }
    let status = Command::new("rustup")
        .args(["target", "add", TARGET])
        .status();
    match status {
        Ok(s) if s.success() => {}
        _ => panic!("the {TARGET} target is missing and `rustup target add {TARGET}` failed"),
    }
}
