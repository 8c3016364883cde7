//! Each crate depends only on the Engram crates ARCHITECTURE.md allows it
//! (its "The crates" table): the table is the rule, this test holds the
//! manifests to it, and a crate the table does not name fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use engram_tests::circles::find_manifests;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The names in backticks that look like Engram crates.
fn crate_names(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("engram-") && !s.contains(' '))
        .map(str::to_string)
        .collect()
}

/// ARCHITECTURE.md's table: (crate, the Engram crates it may depend on;
/// `None` = any).
fn rules() -> Vec<(String, Option<BTreeSet<String>>)> {
    let text =
        std::fs::read_to_string(repo_root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = text
        .split_once("## The crates")
        .expect("ARCHITECTURE.md has \"## The crates\"")
        .1;
    let section = section.split("\n## ").next().unwrap_or("");
    let mut out = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| `engram-")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let name = crate_names(cells[0])
            .into_iter()
            .next()
            .expect("a crate name");
        let allowed = cells.last().unwrap_or(&"");
        let rule = if allowed.contains("any of the above") {
            None
        } else {
            Some(crate_names(allowed).into_iter().collect())
        };
        out.push((name, rule));
    }
    out
}

/// Every package's name and the Engram crates among its normal and build
/// dependencies (dev-dependencies are the tests' business).
fn packages(repo: &Path) -> Vec<(String, BTreeSet<String>)> {
    let mut manifests = Vec::new();
    find_manifests(repo, &mut manifests);
    let mut out = Vec::new();
    for p in manifests {
        let text = std::fs::read_to_string(&p).unwrap();
        let mut name = None;
        let mut deps = BTreeSet::new();
        let mut table = String::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                table = line.trim_matches(|c| c == '[' || c == ']').to_string();
                continue;
            }
            let key = line.split(['=', ' ', '.']).next().unwrap_or("");
            if table == "package" && key == "name" && name.is_none() {
                name = line.split('"').nth(1).map(str::to_string);
            }
            let runtime = table == "dependencies"
                || table == "build-dependencies"
                || (table.starts_with("target.") && !table.ends_with("dev-dependencies"));
            if runtime && key.starts_with("engram-") {
                deps.insert(key.to_string());
            }
        }
        if let Some(name) = name {
            out.push((name, deps));
        }
    }
    out
}

#[test]
fn every_crate_depends_only_on_what_architecture_allows() {
    let rules = rules();
    assert!(
        rules.len() >= 8,
        "ARCHITECTURE.md's crates table: {rules:?}"
    );
    let packages = packages(&repo_root());
    assert!(packages.len() >= 10, "{packages:?}");
    let mut wrong = Vec::new();
    for (name, deps) in &packages {
        // The row of this crate, or of the crate it is a part of
        // (`engram-edge-http` is a part of `engram-edge`).
        let rule = rules
            .iter()
            .filter(|(r, _)| name == r || name.starts_with(&format!("{r}-")))
            .max_by_key(|(r, _)| r.len());
        match rule {
            None => wrong.push(format!("{name}: not in ARCHITECTURE.md's crates table")),
            Some((_, None)) => {}
            Some((row, Some(allowed))) => {
                for d in deps.iter().filter(|d| *d != name && !allowed.contains(*d)) {
                    if !d.starts_with(row.as_str()) {
                        wrong.push(format!(
                            "{name} depends on {d}, which ARCHITECTURE.md does not allow it"
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
