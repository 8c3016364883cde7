//! `engram-train`: rebuild the learned heads' weight files in
//! `guest/model/`, measure their recipe, and score the evaluation sets.
//!
//! ```text
//! cargo run --release -p engram-train -- kind                 # weights.bin and sensitive.bin
//! cargo run --release -p engram-train -- injection            # injection.bin
//! cargo run --release -p engram-train -- retrain-check SET.jsonl…
//! cargo run --release -p engram-train -- eval                 # the evaluation sets against their floors
//! ```

mod eval;
mod injection;
mod kind;
mod retrain_check;
mod settings;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "engram-train",
    version,
    about = "Rebuild and measure Engram's learned heads (guest/model/README.md)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The kind and sensitive-data heads: with no option, rebuild every
    /// head's weight file in guest/model/ from guest/model/data/ (the test
    /// split left out); the options measure the recipe instead.
    Kind(kind::Args),
    /// The learned injection detector: with no option, rebuild
    /// guest/model/injection.bin from guest/model/injection/data/.
    Injection(injection::Args),
    /// How many kind and disposition decisions on labelled sets change when
    /// the heads are retrained with guest/model/probe/'s lines added.
    RetrainCheck(retrain_check::Args),
    /// Score the evaluation sets (the model's test split and
    /// guest/testdata/classify-*.jsonl) through the native policy and
    /// hold them to train/eval-floors.txt.
    Eval,
}

/// Runs the command line; the process's exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let done = match cli.cmd {
        Command::Kind(a) => kind::run(&a),
        Command::Injection(a) => injection::run(&a),
        Command::RetrainCheck(a) => retrain_check::run(&a),
        Command::Eval => eval::run(),
    };
    match done {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("engram-train: {e}");
            1
        }
    }
}
