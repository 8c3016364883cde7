//! `engram`, the command-line program on top of the `engram-host` library:
//! JSON Lines in and out (SPEC §4), the narrated demo, `engram serve`
//! (HTTP/JSON and the memory inspector), `engram mcp` (the Model Context
//! Protocol on stdio), API keys and PostgreSQL's vacuum.
//!
//! Nothing here is needed to embed Engram: the library (`engram-host`) has
//! the runtime, the stores and the clock without clap, tokio or axum. The
//! benchmark and the HTTP load generator are a program of their own
//! (`engram-bench`).
//!
//! Where things live: [`commands`] is the clap tree (each command with only
//! the flag groups of [`flags`] it takes, and its [`help`] page); [`cli`]
//! runs the commands on a database (one transaction per invocation);
//! [`info`], [`demo`], [`vacuum`], [`serve`] (with [`serve::keys`] for
//! `engram keys`), [`mcp`] and [`inspector`] are one command each;
//! [`failure`] is what a command prints and exits with when it fails.

pub mod cli;
pub mod commands;
pub mod demo;
pub mod failure;
pub mod flags;
pub mod help;
pub mod info;
pub mod inspector;
pub mod mcp;
pub mod serve;
pub mod vacuum;

pub use cli::main;
