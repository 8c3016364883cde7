//! `engram-bench`, built inside the tests package so its end-to-end tests
//! can start it as a real process (`CARGO_BIN_EXE_engram-bench-bin`; named
//! apart from the real `engram-bench`, whose file in `target/` it would
//! otherwise overwrite) next to this package's `engram-cli`. Same entry
//! point as `bench/src/main.rs`.

fn main() {
    std::process::exit(engram_bench::main());
}
