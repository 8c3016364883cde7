//! Shared by the build scripts that compile a component to wasm32-wasip2:
//! `host/build.rs` (the policy guest) and `tests/build.rs` (the hostile
//! test guest). Included with `#[path]`, since build scripts share no crate.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TARGET: &str = "wasm32-wasip2";

/// Everything the policy component is built from, relative to the
/// repository root: a build script that embeds or composes the component
/// watches these (`cargo:rerun-if-changed` scans a directory recursively).
// Not read by tests/build.rs, which builds only the hostile test guest.
#[allow(dead_code)]
pub const GUEST_INPUTS: &[&str] = &[
    "guest/src",
    // The vocabulary and the build script that compiles it into tables (and
    // derives the policy version from it).
    "guest/vocab",
    "guest/build.rs",
    "guest/build",
    // The model heads' weight files, compiled into the component.
    "guest/model",
    "guest/Cargo.toml",
    "contract/src",
    "contract/build.rs",
    "contract/build",
    // The reason vocabulary the contract's build generates code from.
    "contract/reasons.txt",
    "contract/Cargo.toml",
    "wit",
    "Cargo.toml",
    "host/build_wasm.rs",
];

/// The workspace's target directory (honours CARGO_TARGET_DIR).
pub fn target_dir(root: &Path) -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Some(d) => root.join(d),
        None => root.join("target"),
    }
}

/// Add the wasm32-wasip2 target through rustup when the sysroot lacks it
/// (either build script may run first).
pub fn ensure_target() {
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

/// Build `package`'s library for wasm32-wasip2 with `profile` into
/// `target_dir` (a dir of its own: the outer cargo holds the lock on the
/// main one) and return the path of the built `.wasm`.
pub fn build_component(root: &Path, package: &str, profile: &str, target_dir: &Path) -> PathBuf {
    ensure_target();
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "build",
            "-p",
            package,
            "--lib",
            "--target",
            TARGET,
            "--profile",
            profile,
        ])
        .arg("--target-dir")
        .arg(target_dir);
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
        .unwrap_or_else(|e| panic!("run cargo to build {package}: {e}"));
    assert!(status.success(), "building the {package} component failed");
    // Named profiles ("release", "guest") build into a directory of their name.
    target_dir
        .join(TARGET)
        .join(profile)
        .join(format!("{}.wasm", package.replace('-', "_")))
}
