//! The `engram` CLI, built inside the tests package so its end-to-end tests
//! can start it as a real process (`CARGO_BIN_EXE_engram-cli`): kill -9,
//! concurrent writers, resource limits. Same entry point as `cli/src/main.rs`.

fn main() {
    std::process::exit(engram_cli::main());
}
