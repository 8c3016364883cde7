//! Builds the hostile test component (`hostile-guest/`) for wasm32-wasip2,
//! so `cargo test` on a fresh machine needs no manual step; its path reaches
//! the tests as `ENGRAM_HOSTILE_GUEST_WASM`. It goes to a target dir of its
//! own: the outer cargo holds the lock on the main one.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip2";

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
    ] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    ensure_target();
    let build_dir = target_dir(&root).join("hostile-guest-build");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args([
            "build",
            "-p",
            "engram-hostile-guest",
            "--lib",
            "--release",
            "--target",
            TARGET,
        ])
        .arg("--target-dir")
        .arg(&build_dir);
    // Flags meant for the host build must not leak into the wasm build.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("run cargo to build the hostile guest");
    assert!(
        status.success(),
        "building the hostile guest component failed"
    );
    let built = build_dir
        .join(TARGET)
        .join("release")
        .join("engram_hostile_guest.wasm");
    println!(
        "cargo:rustc-env=ENGRAM_HOSTILE_GUEST_WASM={}",
        built.display()
    );
}

/// The workspace's target directory (honours CARGO_TARGET_DIR).
fn target_dir(root: &Path) -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Some(d) => root.join(d),
        None => root.join("target"),
    }
}

/// Add the wasm32-wasip2 target through rustup when the sysroot lacks it
/// (the host's build script does the same; either may run first).
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
    let ok = Command::new("rustup")
        .args(["target", "add", TARGET])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the {TARGET} target is missing and `rustup target add {TARGET}` failed"
    );
}
