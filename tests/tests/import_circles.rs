//! No crate's modules refer to each other in a circle (issues 33 and 34):
//! the layout says which concept sits on which. The check
//! (`engram_tests::circles`) reads every crate of the repository — the
//! crate root counts as a module, `mod` declarations and `#[cfg(test)]`
//! code do not — and lists each circle with the line of every step.

use std::path::{Path, PathBuf};

use engram_tests::circles::{circles, crate_roots};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn no_crate_has_an_import_circle() {
    let repo = repo_root();
    let roots = crate_roots(&repo);
    // Every package: the check must not pass by reading nothing.
    assert!(
        roots.iter().any(|r| r.ends_with("guest/src/lib.rs"))
            && roots.iter().any(|r| r.ends_with("host/src/lib.rs"))
            && roots.len() > 20,
        "crate roots found: {roots:?}"
    );
    let mut found = Vec::new();
    for root in &roots {
        let rel = root
            .strip_prefix(&repo)
            .unwrap_or(root)
            .to_string_lossy()
            .to_string();
        let circles = circles(root).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"));
        found.extend(circles.iter().map(|c| c.to_string()));
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join(""));
}

fn write(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir.join("lib.rs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("engram-circles-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_check_finds_a_circle_and_names_its_lines() {
    let d = scratch("found");
    let root = write(
        &d,
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "use crate::b::f;\npub fn g() { f() }\n"),
            ("b.rs", "pub fn f() {}\npub fn h() { super::c::k() }\n"),
            ("c/mod.rs", "mod inner;\npub fn k() { inner::m() }\n"),
            ("c/inner.rs", "pub fn m() { crate::a::g() }\n"),
        ],
    );
    let found = circles(&root).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].modules, ["a", "b", "c", "c::inner"]);
    let text = found[0].to_string();
    assert!(text.contains("a -> b") && text.contains("a.rs:1"), "{text}");
    assert!(
        text.contains("c::inner -> a") && text.contains("inner.rs:1"),
        "{text}"
    );
    // A child using its parent's item while the parent uses the child's is
    // a circle too.
    let d = scratch("parent");
    let root = write(
        &d,
        &[
            ("lib.rs", "mod p;\n"),
            ("p/mod.rs", "mod q;\npub struct T;\npub use q::U;\n"),
            ("p/q.rs", "pub struct U(pub super::T);\n"),
        ],
    );
    assert_eq!(circles(&root).unwrap()[0].modules, ["p", "p::q"]);
}

#[test]
fn declarations_and_test_code_are_not_references() {
    let d = scratch("clean");
    let root = write(
        &d,
        &[
            ("lib.rs", "pub mod a;\npub mod b;\npub use a::g;\n"),
            ("a.rs", "use crate::b::f;\npub fn g() { f() }\n"),
            (
                "b.rs",
                "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::a::g;\n}\n#[cfg(test)]\nfn t() { crate::a::g() }\n",
            ),
        ],
    );
    assert!(circles(&root).unwrap().is_empty());
}
