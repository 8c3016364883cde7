//! The command line as clap parses it: every subcommand with only the flag
//! groups it uses (`flags.rs`), its description, and its `--help`: the
//! shape of its input, generated from the contract's JSON Schema
//! (`help.rs`), and examples that run (`tests/tests/help.rs` runs every
//! one). Parsing gives a [`Cli`]: the command (`cli::Cmd`) and its flags.

use std::ffi::OsString;

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::cli::{Cli, Cmd, OperationsCmd, ScopeArgs};
use crate::flags::{ClockFlags, DbFlags, EngineFlags, Flags, PrincipalFlags};
use crate::help;
use crate::serve::keys::KeysCmd;
use crate::serve::ServeArgs;

#[derive(Parser, Debug)]
#[command(
    name = "engram",
    version,
    about = "Engram: the policy layer of an agent's memory, as a WebAssembly component",
    long_about = "Engram: the policy layer of an agent's memory, as a WebAssembly component.\n\n\
        The data commands read JSON Lines on stdin (one JSON object per line; SPEC §4) and \
        print JSON Lines on stdout; a bad line is named with its field, the exit code is \
        non-zero and nothing is written.",
    after_help = "Each command's --help shows the flags it takes, the fields of its input and an example that runs."
)]
struct Raw {
    #[command(subcommand)]
    cmd: Command,
}

/// A command on a database: the database, the principal, the component
/// and the clock.
#[derive(Args, Debug)]
struct DataArgs {
    #[command(flatten)]
    db: DbFlags,
    #[command(flatten)]
    principal: PrincipalFlags,
    #[command(flatten)]
    engine: EngineFlags,
    #[command(flatten)]
    clock: ClockFlags,
}

impl DataArgs {
    fn flags(&self) -> Flags {
        let mut f = Flags::default();
        self.db.apply(&mut f);
        self.principal.apply(&mut f);
        self.engine.apply(&mut f);
        self.clock.apply(&mut f);
        f
    }
}

fn engine_only(e: &EngineFlags) -> Flags {
    let mut f = Flags::default();
    e.apply(&mut f);
    f
}

#[derive(Args, Debug)]
struct SweepArgs {
    #[command(flatten)]
    scope: ScopeArgs,
    #[command(flatten)]
    common: DataArgs,
}

#[derive(Args, Debug)]
struct HistoryArgs {
    /// The memory whose revisions to print, oldest first (a `memory_id`
    /// from remember's decision, or `id` from list or recall).
    #[arg(long, value_name = "MEMORY_ID")]
    id: String,
    #[command(flatten)]
    common: DataArgs,
}

#[derive(Args, Debug)]
struct ListArgs {
    #[command(flatten)]
    scope: ScopeArgs,
    /// Only memories with this status (repeatable): pending, active,
    /// superseded, retracted, expired, conflicted, archived.
    #[arg(long = "status", value_name = "STATUS")]
    statuses: Vec<String>,
    #[command(flatten)]
    common: DataArgs,
}

#[derive(Args, Debug)]
struct ServeCommand {
    #[command(flatten)]
    args: ServeArgs,
    #[command(flatten)]
    db: DbFlags,
    #[command(flatten)]
    engine: EngineFlags,
    #[command(flatten)]
    clock: ClockFlags,
}

#[derive(Args, Debug)]
struct VacuumArgs {
    /// The PostgreSQL server: `postgres://user@host:port/db`
    /// (docs/postgres.md).
    #[arg(long, value_name = "URL")]
    db: String,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Candidates → decisions; nothing is stored (a dry run of remember).
    ///
    /// Classifies each candidate (semantic, episodic, procedural, working or
    /// none), runs the six write gates (value, confidence, sensitivity,
    /// stability, conflict, permission) and says what remember would do with
    /// it, against what the database holds, without storing anything.
    Classify(DataArgs),
    /// Candidates → decisions, stored per disposition.
    ///
    /// Each candidate is classified and gated as classify does, then
    /// resolved against what is stored (created, duplicate, superseded,
    /// conflict) and stored per its disposition: active, pending for review,
    /// working (task state) or rejected (nothing stored). One decision line
    /// per input line, in order; the whole invocation is one transaction.
    Remember(DataArgs),
    /// Already-decided memory records → {"id","external_id"} per line.
    ///
    /// Bulk-loads memories another system already decided (a migration):
    /// the kind is given, not classified, but secret gating and tombstones
    /// still apply. One receipt line per record; one transaction.
    Import(DataArgs),
    /// Queries → one ranked, explained result list per query.
    ///
    /// Hard scope filters first (nothing outside a query's scope is read),
    /// then an explainable score: every result carries its features
    /// (similarity, freshness, authority, type fit, entity match) and its
    /// admission record. A question nothing stored answers gets
    /// "nothing_relevant": true rather than the closest guess. Reads an
    /// existing database only.
    Recall(DataArgs),
    /// One pack request → packed text and manifest.
    ///
    /// Assembles the next turn's context under a token budget: the system
    /// prompt, task state, recent messages and the memories recalled for
    /// the query, each section marked as quoted data; the manifest says what
    /// was dropped or compressed and why. The input is one JSON object (not
    /// a list). Reads an existing database only.
    Pack(DataArgs),
    /// Selectors → what was deleted, cascaded and tombstoned, per selector.
    ///
    /// Each selector is exactly one of: a `memory_id` (every revision);
    /// `scope` + `subject` + `predicate` (a fact's key); `scope` + `text` (a
    /// text fragment wherever it appears); `scope` + `source_ref` (everything
    /// derived from one source event). Erased content leaves no bytes in the
    /// database; a keyed tombstone stops it being derived again.
    Forget(DataArgs),
    /// Apply expiry and archival in a scope (--tenant, optional --user/--project/--thread/--agent).
    ///
    /// Expires what is past its validity or TTL and archives what has not
    /// been used, in the scope the flags give; prints the sweep report.
    /// Takes no input.
    Sweep(SweepArgs),
    /// Verdicts on pending memories → one outcome per line.
    ///
    /// A pending memory (an inference from behaviour or by an agent, or
    /// sensitive data kept for consent) is never recalled until reviewed: an
    /// approval writes a verified, active revision; a rejection retracts it.
    /// All verdicts apply together or not at all.
    Review(DataArgs),
    /// Execution records by operation id (what a tool side effect did):
    /// `record` and `get`, JSON Lines in and out.
    Operations {
        #[command(subcommand)]
        cmd: OperationsCommand,
    },
    /// Print the revision chain of one memory.
    ///
    /// Every revision of the memory, oldest first, with its status, source
    /// and validity, and what superseded what. Without --tenant, the tenant
    /// is the one holding the id. Reads an existing database only.
    History(HistoryArgs),
    /// Print the memories of a scope (--tenant …) with their status.
    ///
    /// The latest revision of every memory in the scope the flags give
    /// (--tenant is required; --user, --project, --thread and --agent
    /// narrow it), one JSON object per line. Reads an existing database
    /// only.
    List(ListArgs),
    /// The component's path, size, sha256, WIT package, imports and exports.
    Info(EngineFlags),
    /// A narrated end-to-end run on a fresh in-memory store.
    ///
    /// Runs the payment-service release scenario (seed 000) through the
    /// component: candidates classified and gated, a fact superseded, a
    /// recall explained, a context packed, a leaked password forgotten.
    /// Touches no database.
    Demo(EngineFlags),
    /// Serve the same contract over HTTP/JSON (docs/serve.md).
    ///
    /// POST /v1/remember, /v1/recall, /v1/pack, … take the same objects as
    /// the commands (a JSON array, or JSON Lines), each request acting for
    /// the principal of its API key (`Authorization: Bearer KEY`, keys from
    /// `engram keys add`); / is the memory inspector. Changes to the key
    /// file (`engram keys add`, `engram keys revoke`) take effect within a
    /// second, without a restart.
    Serve(ServeCommand),
    /// Speak the Model Context Protocol on stdin/stdout for --tenant.
    ///
    /// An MCP server bound to one principal (--tenant, optional --user and
    /// --project: the tools never take them, so a model cannot name
    /// another), with tools remember, recall, pack_context, forget,
    /// list_memories, memory_history, review_memories, record_operation and
    /// get_operation (docs/serve.md).
    Mcp(DataArgs),
    /// Manage the API keys `engram serve` accepts: add, list, revoke.
    Keys {
        #[command(subcommand)]
        cmd: KeysCmd,
    },
    /// PostgreSQL: rewrite the tables so erased rows leave no bytes behind (VACUUM FULL).
    ///
    /// Rewrites the tables of a PostgreSQL store into new files and
    /// checkpoints, so no table file keeps erased rows; locks each table
    /// while it is rewritten (docs/postgres.md). SQLite needs no such pass.
    Vacuum(VacuumArgs),
}

#[derive(Subcommand, Debug)]
enum OperationsCommand {
    /// Execution records → one receipt per line ({"action","operation_id","revision","status"}).
    ///
    /// Records what a tool's side effect did, by the caller's operation id:
    /// created, updated (a later status) or duplicate. A final status
    /// (succeeded, failed), the tool and the idempotency key never change;
    /// secrets in the detail and result fields are redacted before anything
    /// is stored. All records in one transaction. Operations are looked up
    /// by id only (`engram operations get`), never recalled by similarity.
    Record(DataArgs),
    /// Lookups by operation id → the latest record, revision and history of statuses.
    ///
    /// Looks each operation up exactly by its id in the scope given (never
    /// by similarity): its latest record, revision and history of statuses,
    /// or "found": false. Reads an existing database only.
    Get(DataArgs),
}

impl From<Raw> for Cli {
    fn from(raw: Raw) -> Cli {
        let (flags, cmd) = match raw.cmd {
            Command::Classify(a) => (a.flags(), Cmd::Classify),
            Command::Remember(a) => (a.flags(), Cmd::Remember),
            Command::Import(a) => (a.flags(), Cmd::Import),
            Command::Recall(a) => (a.flags(), Cmd::Recall),
            Command::Pack(a) => (a.flags(), Cmd::Pack),
            Command::Forget(a) => (a.flags(), Cmd::Forget),
            Command::Sweep(a) => (a.common.flags(), Cmd::Sweep(a.scope)),
            Command::Review(a) => (a.flags(), Cmd::Review),
            Command::Operations { cmd } => match cmd {
                OperationsCommand::Record(a) => (
                    a.flags(),
                    Cmd::Operations {
                        cmd: OperationsCmd::Record,
                    },
                ),
                OperationsCommand::Get(a) => (
                    a.flags(),
                    Cmd::Operations {
                        cmd: OperationsCmd::Get,
                    },
                ),
            },
            Command::History(a) => (a.common.flags(), Cmd::History { id: a.id }),
            Command::List(a) => (
                a.common.flags(),
                Cmd::List {
                    scope: a.scope,
                    statuses: a.statuses,
                },
            ),
            Command::Info(e) => (engine_only(&e), Cmd::Info),
            Command::Demo(e) => (engine_only(&e), Cmd::Demo),
            Command::Serve(s) => {
                let mut f = Flags::default();
                s.db.apply(&mut f);
                s.engine.apply(&mut f);
                s.clock.apply(&mut f);
                (f, Cmd::Serve(s.args))
            }
            Command::Mcp(a) => (a.flags(), Cmd::Mcp),
            Command::Keys { cmd } => (Flags::default(), Cmd::Keys { cmd }),
            Command::Vacuum(v) => (
                Flags {
                    db: v.db,
                    ..Flags::default()
                },
                Cmd::Vacuum,
            ),
        };
        Cli { flags, cmd }
    }
}

impl CommandFactory for Cli {
    fn command() -> clap::Command {
        help::attach(Raw::command())
    }

    fn command_for_update() -> clap::Command {
        help::attach(Raw::command_for_update())
    }
}

impl FromArgMatches for Cli {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Raw::from_arg_matches(matches).map(Cli::from)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// Parsing, after [`hoist`]: the flags given before the command's name
/// are read as the command's own.
impl Parser for Cli {
    fn parse() -> Self {
        Self::parse_from(std::env::args_os())
    }

    fn try_parse() -> Result<Self, clap::Error> {
        Self::try_parse_from(std::env::args_os())
    }

    fn parse_from<I, T>(itr: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        Self::try_parse_from(itr).unwrap_or_else(|e| e.exit())
    }

    fn try_parse_from<I, T>(itr: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let mut command = <Self as CommandFactory>::command();
        let argv = hoist(&command, itr.into_iter().map(Into::into).collect());
        let matches = command.try_get_matches_from_mut(argv)?;
        <Self as FromArgMatches>::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
    }
}

/// `engram --db x --now t classify` as `engram classify --db x --now t`:
/// the flags were global once, and scripts give them before the command's
/// name. Flags before the name move after the command's path (`operations
/// record`), where the command takes them or clap refuses them by name.
fn hoist(command: &clap::Command, argv: Vec<OsString>) -> Vec<OsString> {
    // Every flag of the groups, and whether it takes a value.
    let mut probe = clap::Command::new("probe");
    probe = DbFlags::augment_args(probe);
    probe = PrincipalFlags::augment_args(probe);
    probe = EngineFlags::augment_args(probe);
    probe = ClockFlags::augment_args(probe);
    let takes_value = |name: &str| {
        probe
            .get_arguments()
            .find(|a| a.get_long() == Some(name))
            .map(|a| a.get_action().takes_values())
    };
    let mut lead = Vec::new();
    let mut i = 1;
    while let Some(arg) = argv.get(i).and_then(|a| a.to_str()) {
        let Some(flag) = arg.strip_prefix("--") else {
            break;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, _)) => (n, true),
            None => (flag, false),
        };
        match takes_value(name) {
            Some(true) if !inline && i + 1 < argv.len() => {
                lead.extend_from_slice(&argv[i..i + 2]);
                i += 2;
            }
            Some(_) => {
                lead.push(argv[i].clone());
                i += 1;
            }
            None => break,
        }
    }
    if lead.is_empty() {
        return argv;
    }
    // The command's path: its name, and a subcommand's below it.
    let mut path = Vec::new();
    let mut at = command;
    while let Some(name) = argv.get(i).and_then(|a| a.to_str()) {
        match at.find_subcommand(name) {
            Some(sub) => {
                path.push(argv[i].clone());
                i += 1;
                at = sub;
            }
            None => break,
        }
    }
    if path.is_empty() {
        return argv;
    }
    let mut out = vec![argv[0].clone()];
    out.extend(path);
    out.extend(lead);
    out.extend_from_slice(&argv[i..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("engram").chain(args.iter().copied()))
    }

    #[test]
    fn flags_before_the_command_are_the_commands_own() {
        let cli = parse(&[
            "--db",
            "x.db",
            "--now=2026-01-01T00:00:00Z",
            "operations",
            "record",
            "--tenant",
            "acme",
        ])
        .expect("parses");
        assert_eq!(cli.flags.db, "x.db");
        assert_eq!(cli.flags.now.as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(cli.flags.tenant.as_deref(), Some("acme"));
        assert!(matches!(
            cli.cmd,
            Cmd::Operations {
                cmd: OperationsCmd::Record
            }
        ));
    }

    #[test]
    fn a_flag_the_command_does_not_take_is_refused_by_name() {
        for args in [
            &["info", "--db", "x.db"][..],
            &["--db", "x.db", "info"][..],
            &["keys", "list", "--keys", "k", "--tenant", "acme"][..],
            &["serve", "--keys", "k", "--tenant", "acme"][..],
        ] {
            let e = parse(args).expect_err("refused");
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::UnknownArgument,
                "{args:?}"
            );
        }
    }

    #[test]
    fn a_command_keeps_the_defaults_of_flags_it_does_not_take() {
        let cli = parse(&["info"]).expect("parses");
        assert_eq!(cli.flags.db, "engram.db");
        assert_eq!(cli.flags.timeout_secs, 120);
        let cli = parse(&["history", "--id", "m-1", "--db", "a.db"]).expect("parses");
        assert_eq!(cli.flags.db, "a.db");
        assert!(matches!(cli.cmd, Cmd::History { ref id } if id == "m-1"));
    }
}
