//! The acceptance scenarios (`tests/scenarios/*.json`, format in that
//! folder's README.md): each runs the `engram` CLI on a fresh database and
//! checks its JSON Lines output. `ENGRAM_SCENARIOS_DIR` runs another folder
//! of scenarios (e.g. a held-out set); `ENGRAM_BIN` runs another binary.

use engram_tests::scenario;
use std::path::PathBuf;

/// The default folder must hold at least this many scenarios, so that a
/// lost or mis-named folder cannot pass by running nothing.
const MIN_SCENARIOS: usize = 100;

#[test]
fn acceptance_scenarios() {
    let default_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let (dir, is_default) = match std::env::var_os("ENGRAM_SCENARIOS_DIR") {
        Some(d) => (PathBuf::from(d), false),
        None => (default_dir, true),
    };
    let bin = std::env::var_os("ENGRAM_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_engram-cli")));
    let scenarios = scenario::load_dir(&dir);
    let mut failures = Vec::new();
    for s in &scenarios {
        let file = s
            .file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        match scenario::run(s, &bin) {
            Ok(()) => println!("PASS {file} {}", s.name),
            Err(why) => {
                println!("FAIL {file} {}: {why}", s.name);
                failures.push(file);
            }
        }
    }
    let total = scenarios.len();
    println!(
        "scenarios: {} passed, {} failed ({total} loaded from {})",
        total - failures.len(),
        failures.len(),
        dir.display()
    );
    assert!(
        !is_default || total >= MIN_SCENARIOS,
        "only {total} scenarios in {}; at least {MIN_SCENARIOS} are expected",
        dir.display()
    );
    assert!(total > 0, "no scenarios in {}", dir.display());
    assert!(
        failures.is_empty(),
        "{} of {total} scenarios failed: {}",
        failures.len(),
        failures.join(", ")
    );
}
