//! The `engram` program a run starts as separate processes (`engram serve`
//! for the load test, fresh `engram remember`/`recall` per call for the
//! CLI's cost, many `engram remember` writers at once on PostgreSQL).

use std::path::{Path, PathBuf};

use engram_cli::failure::Failure;

/// `--engram PATH` if given, else `engram` beside this executable (cargo
/// builds both into one target directory), else `engram` on the `PATH`.
pub fn engram(explicit: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(Failure::input(format!(
                "--engram {}: no such program",
                p.display()
            )))
        };
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("engram")))
        .filter(|p| p.is_file());
    if let Some(p) = beside {
        return Ok(p);
    }
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.join("engram"))
        .find(|p| p.is_file());
    on_path.ok_or_else(|| {
        Failure::input(
            "the `engram` program was not found beside engram-bench nor on PATH: \
             build it (`cargo build --release -p engram-cli`) or name it with --engram PATH",
        )
    })
}
