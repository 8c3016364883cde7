//! The packages move in step: the npm package, the Python package and the
//! WIT package carry the workspace crate version, and so does the
//! component's own `info()`.

use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// The first `key = "value"` (or `key="value"`) line's value in a TOML or
/// Python file.
fn assigned(text: &str, key: &str, path: &str) -> String {
    text.lines()
        .map(str::trim)
        .find_map(|l| {
            let rest = l.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
            Some(rest.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| panic!("{path} has no `{key} = \"…\"` line"))
}

const CRATE_VERSION: &str = env!("CARGO_PKG_VERSION");

#[test]
fn the_wit_package_has_the_crate_version() {
    let wit = read("wit/world.wit");
    let version = wit
        .lines()
        .find_map(|l| l.trim().strip_prefix("package engram:memory@"))
        .map(|v| v.trim_end_matches(';').to_string())
        .expect("wit/world.wit declares package engram:memory@VERSION");
    assert_eq!(
        version, CRATE_VERSION,
        "WIT package vs workspace crate version"
    );
}

#[test]
fn the_npm_package_has_the_crate_version() {
    for path in [
        "packages/npm/package.json",
        "packages/npm/package-lock.json",
    ] {
        let json: serde_json::Value =
            serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(json["name"], "engram-memory", "{path}: package name");
        assert_eq!(
            json["version"].as_str(),
            Some(CRATE_VERSION),
            "{path} vs workspace crate version"
        );
    }
}

#[test]
fn the_python_package_has_the_crate_version() {
    let pyproject = read("packages/python/pyproject.toml");
    assert_eq!(
        assigned(&pyproject, "name", "pyproject.toml"),
        "engram-memory"
    );
    assert_eq!(
        assigned(&pyproject, "version", "pyproject.toml"),
        CRATE_VERSION,
        "pyproject.toml vs workspace crate version"
    );
    let init = read("packages/python/src/engram_memory/__init__.py");
    assert_eq!(
        assigned(&init, "__version__", "engram_memory/__init__.py"),
        CRATE_VERSION,
        "engram_memory.__version__ vs workspace crate version"
    );
}

#[test]
fn the_component_reports_the_wit_package_version() {
    let info = engram_tests::engram().info().expect("info");
    // "0.1.0", or "engram:memory@0.1.0" should it name the package.
    let version = info.package_version.rsplit('@').next().unwrap_or_default();
    assert_eq!(
        version, CRATE_VERSION,
        "the component reports version {:?}, the crate is {CRATE_VERSION}",
        info.package_version
    );
}
