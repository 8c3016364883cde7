//! `engram bench`: speed, scale, size and the wasm/native ratio.

use std::io::Write;

use clap::Args;

use crate::cli::{Cli, Failure};

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Print one JSON object (the field names are stable: tools read them).
    #[arg(long)]
    pub json: bool,
    /// Small sizes, for a CI smoke run under a minute.
    #[arg(long)]
    pub quick: bool,
}

pub fn run(_cli: &Cli, _args: &BenchArgs, _out: &mut dyn Write) -> Result<(), Failure> {
    Err(Failure {
        code: 1,
        message: "bench: not yet written".into(),
    })
}
