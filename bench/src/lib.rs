//! `engram-bench`: the benchmark and the HTTP load generator of Engram, a
//! program of its own beside `engram` (the product binary carries neither,
//! nor the natively compiled policy they compare against).
//!
//! - `engram-bench [--quick] [--json] [--postgres URL] …` ([`suite`]):
//!   speed, scale, size and the wasm/native ratio (docs/benchmarks.md);
//! - `engram-bench load-test …` ([`load`]): load on a spawned `engram
//!   serve`, measured (docs/serve.md).
//!
//! Where things live: [`command`] is the clap tree and the entry point;
//! [`plan`] what one run measures and where; [`workload`] the deterministic
//! synthetic workload (also the edge benchmark's); [`measure`] percentiles,
//! CPU time and the fixed clock; [`timed`] a store wrapper timing every
//! call, and the same store for the natively compiled policy ([`conv`]
//! converts between the two bindings); [`stores`] SQLite next to
//! PostgreSQL; [`program`] finds the `engram` program the runs start.

pub mod command;
mod conv;
pub mod load;
mod measure;
pub mod plan;
pub mod program;
mod stores;
pub mod suite;
mod timed;
pub mod workload;

pub use command::main;
