//! The `engram` program on top of the library: the command line, the
//! narrated demo and the benchmark. Nothing in the library depends on this
//! module; it is compiled with the `cli` feature (on by default).

pub mod bench;
pub mod cli;
pub mod commands;
pub mod demo;
pub mod failure;
pub mod flags;
pub mod help;
pub mod inspector;
pub mod mcp;
pub mod serve;
pub mod vacuum;
