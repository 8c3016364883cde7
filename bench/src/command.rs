//! The command line of `engram-bench`: the benchmark (no subcommand) or
//! `load-test`, each with the policy component's flags (`engram`'s
//! `EngineFlags`) and where the `engram` program is.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use engram_cli::failure::Failure;
use engram_cli::flags::{EngineFlags, Flags};

use crate::load::LoadArgs;
use crate::plan::BenchArgs;

#[derive(Parser, Debug)]
#[command(
    name = "engram-bench",
    version,
    about = "Measure Engram: speed, scale, size and the wasm/native ratio (docs/benchmarks.md)",
    long_about = "Measure Engram: speed, scale, size and the wasm/native ratio.\n\n\
        Component size, compile and instantiate times, remembers per second, recall latency at \
        several corpus sizes, pack latency and the wasm/native ratio, on scratch databases it \
        removes afterwards (docs/benchmarks.md). `engram-bench load-test` loads a spawned \
        `engram serve` instead (docs/serve.md).",
    after_help = "Examples:\n  \
        # a smoke run in about a minute, as one JSON object\n  \
        engram-bench --quick --json\n  \
        engram-bench load-test --memories 1000 --clients 2 --requests 400 --seconds 10 --cli-runs 2",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Option<Command>,
    #[command(flatten)]
    bench: BenchArgs,
    #[command(flatten)]
    common: Common,
}

/// What every run takes: the component, its limits, and `engram`.
#[derive(Args, Debug, Clone)]
pub struct Common {
    #[command(flatten)]
    engine: EngineFlags,
    /// The `engram` program the runs start (`load-test`; the many-writers
    /// run of `--postgres`). Default: `engram` beside this program, else
    /// on the PATH.
    #[arg(long, value_name = "PATH", global = true)]
    engram: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Load a spawned `engram serve` with concurrent remember/recall
    /// clients on loopback and report throughput and latency (docs/serve.md).
    ///
    /// Seeds a scratch store with a synthetic corpus, starts `engram serve`
    /// on a free loopback port, runs the clients, then times fresh `engram`
    /// processes per call for comparison.
    LoadTest {
        #[command(flatten)]
        args: LoadArgs,
        #[command(flatten)]
        engine: EngineFlags,
    },
}

/// Run `engram-bench` with these arguments (the first is the program's
/// name), printing its report on `out`.
pub fn run<I, T>(argv: I, out: &mut dyn Write) -> Result<(), Failure>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::try_parse_from(argv).map_err(|e| Failure {
        code: e.exit_code(),
        message: e.to_string(),
    })?;
    execute(&cli, out)
}

/// Run what `cli` asks for.
fn execute(cli: &Cli, out: &mut dyn Write) -> Result<(), Failure> {
    let flags = |engine: &EngineFlags| {
        let mut f = Flags::default();
        engine.apply(&mut f);
        f
    };
    let engram = cli.common.engram.as_deref();
    match &cli.cmd {
        None => crate::suite::run(&flags(&cli.common.engine), &cli.bench, engram, out),
        Some(Command::LoadTest { args, engine }) => {
            crate::load::run(&flags(engine), args, engram, out)
        }
    }
}

/// The program's entry point: the exit code.
pub fn main() -> i32 {
    // clap prints --help, --version and usage errors itself, and exits.
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let r = execute(&cli, &mut out).and_then(|()| {
        out.flush()
            .map_err(|e| Failure::input(format!("writing output: {e}")))
    });
    match r {
        Ok(()) => 0,
        Err(f) => {
            eprintln!("engram-bench: {}", f.message);
            f.code
        }
    }
}
