//! The `engram` command line: JSON Lines in and out (SPEC §4).
//!
//! Every input line is parsed before anything runs; a bad line is reported
//! with its number and field, the exit code is non-zero, and nothing is
//! written: a whole invocation is one transaction.

use std::io::{IsTerminal, Read, Write};

use clap::{Args, Parser, Subcommand};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

pub use super::failure::Failure;
use super::flags::Flags;
use crate::bindings as w;
use crate::wire;
use crate::{Engram, Error};

/// Items per guest call when a large input is split (one transaction still
/// spans the whole input).
const CHUNK: usize = 2000;

#[derive(Parser, Debug)]
#[command(
    name = "engram",
    version,
    about = "Engram: the policy layer of an agent's memory, as a WebAssembly component"
)]
pub struct Cli {
    #[command(flatten)]
    pub flags: Flags,
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Args, Debug, Clone)]
pub struct ScopeArgs {
    /// Thread of the scope.
    #[arg(long)]
    pub thread: Option<String>,
    /// Agent of the scope.
    #[arg(long)]
    pub agent: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Candidates → decisions; nothing is stored (dry run).
    Classify,
    /// Candidates → decisions, stored per disposition.
    Remember,
    /// Already-decided memory records → {"id","external_id"} per line.
    Import,
    /// Queries → one ranked, explained result list per query.
    Recall,
    /// One pack request → packed text and manifest.
    Pack,
    /// Selectors → what was deleted, cascaded and tombstoned, per selector.
    Forget,
    /// Apply expiry and archival in a scope (--tenant, optional --user/--project/--thread/--agent).
    Sweep(ScopeArgs),
    /// Print the revision chain of one memory.
    History {
        #[arg(long)]
        id: String,
    },
    /// Print the memories of a scope (--tenant …) with their status.
    List {
        #[command(flatten)]
        scope: ScopeArgs,
        /// Only these statuses (repeatable).
        #[arg(long = "status")]
        statuses: Vec<String>,
    },
    /// The component's path, size, sha256, WIT package, imports and exports.
    Info,
    /// A narrated end-to-end run on a fresh embedded store.
    Demo,
    /// Measure speed, scale, size and the wasm/native ratio.
    Bench(super::bench::BenchArgs),
    /// Serve the same contract over HTTP/JSON (docs/serve.md).
    Serve(super::serve::ServeArgs),
    /// Speak the Model Context Protocol on stdin/stdout for --tenant
    /// (optional --user/--project): tools remember, recall, pack_context,
    /// forget, list_memories, memory_history.
    Mcp,
    /// Load a spawned `engram serve` with concurrent remember/recall
    /// clients on loopback and report throughput and latency (docs/serve.md).
    LoadTest(super::bench::load::LoadArgs),
    /// Manage the API keys `engram serve` accepts.
    Keys {
        #[command(subcommand)]
        cmd: super::serve::keys::KeysCmd,
    },
    /// PostgreSQL: rewrite the tables so erased rows leave no bytes behind (VACUUM FULL).
    Vacuum,
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    // `engram mcp` reads and writes stdio itself (tokio), so it must not
    // run under the locks taken below.
    if matches!(cli.cmd, Cmd::Mcp) {
        return match super::mcp::run(&cli.flags) {
            Ok(()) => 0,
            Err(f) => {
                eprintln!("engram: {}", f.message);
                f.code
            }
        };
    }
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match run(cli, &mut stdin, &mut stdout).and_then(|()| flush(&mut stdout)) {
        Ok(()) => 0,
        Err(f) => {
            eprintln!("engram: {}", f.message);
            f.code
        }
    }
}

/// One parsed input line.
struct Line<T> {
    number: usize,
    value: T,
}

/// Parse every non-blank line of `input` as a `T`, naming the line and field
/// of the first error.
fn parse_lines<T: DeserializeOwned>(input: &str) -> Result<Vec<Line<T>>, Failure> {
    let mut out = Vec::new();
    for (i, raw) in input.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        out.push(Line {
            number: i + 1,
            value: parse_one(raw, i + 1)?,
        });
    }
    Ok(out)
}

fn parse_one<T: DeserializeOwned>(raw: &str, number: usize) -> Result<T, Failure> {
    let de = &mut serde_json::Deserializer::from_str(raw);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner();
        // serde_json appends "at line 1 column N" (of this one line): keep the column only.
        let text = inner.to_string();
        let text = match text.rfind(" at line ") {
            Some(i) => format!("{} (column {})", &text[..i], inner.column()),
            None => text,
        };
        let text = plain_type_names(&text);
        if path == "." || path.is_empty() {
            Failure::input(format!("line {number}: {text}"))
        } else {
            Failure::input(format!("line {number}: field `{path}`: {text}"))
        }
    })
}

/// serde names the Rust type it expected ("expected struct QueryIn"); a user
/// wrote JSON, so say "a JSON object" instead.
pub(crate) fn plain_type_names(text: &str) -> String {
    let Some(at) = text.find("struct ") else {
        return text.to_string();
    };
    let rest = &text[at + "struct ".len()..];
    let name_end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    format!("{}a JSON object{}", &text[..at], &rest[name_end..])
}

/// All of stdin as text. Invalid UTF-8 is reported with the line it is on.
fn read_all(input: &mut dyn Read) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::input(format!("reading stdin: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|b| **b == b'\n').count();
        let line_start = bytes[..at]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        Failure::input(format!(
            "line {line}: not valid UTF-8 (byte {} of the line); input must be UTF-8 JSON Lines",
            at - line_start + 1
        ))
    })
}

/// A closed pipe (`engram … | head`) is not an error.
fn io_failure(e: std::io::Error) -> Result<(), Failure> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(Failure {
            code: 1,
            message: format!("writing output: {e}"),
        })
    }
}

fn flush(out: &mut dyn Write) -> Result<(), Failure> {
    out.flush().or_else(io_failure)
}

fn principal_for(cli: &Cli, tenant: &str) -> w::Principal {
    match &cli.flags.tenant {
        Some(t) => w::Principal {
            tenant: t.clone(),
            user: cli.flags.user.clone(),
            project: cli.flags.project.clone(),
        },
        None => crate::tenant_principal(tenant),
    }
}

/// Run `f` over the lines grouped by tenant (one principal per group) and in
/// chunks, then return the outputs in input order. `f` gets the group's
/// principal and items; its policy errors' item index is mapped back to the
/// input line.
fn by_tenant<T: Clone, R>(
    cli: &Cli,
    engram: &mut Engram,
    lines: &[Line<T>],
    tenant_of: impl Fn(&T) -> &str,
    mut f: impl FnMut(&mut Engram, w::Principal, Vec<T>) -> Result<Vec<R>, Error>,
) -> Result<Vec<R>, Failure> {
    let mut tenants: Vec<&str> = Vec::new();
    for l in lines {
        let t = tenant_of(&l.value);
        if !tenants.contains(&t) {
            tenants.push(t);
        }
    }
    let show_progress = lines.len() > 5 * CHUNK && std::io::stderr().is_terminal();
    let mut done = 0usize;
    let mut results: Vec<Option<R>> = (0..lines.len()).map(|_| None).collect();
    for tenant in tenants {
        let idx: Vec<usize> = (0..lines.len())
            .filter(|&i| tenant_of(&lines[i].value) == tenant)
            .collect();
        for chunk in idx.chunks(CHUNK) {
            let items: Vec<T> = chunk.iter().map(|&i| lines[i].value.clone()).collect();
            let out = f(engram, principal_for(cli, tenant), items).map_err(|e| match &e {
                Error::Policy(w::Error::InvalidInput(fe)) => {
                    let line = fe
                        .index
                        .and_then(|i| chunk.get(i as usize))
                        .map(|&i| lines[i].number);
                    match line {
                        Some(n) => Failure::input(format!(
                            "line {n}: field `{}`: {}",
                            fe.field, fe.message
                        )),
                        None => Failure::from(e),
                    }
                }
                _ => Failure::from(e),
            })?;
            if out.len() != chunk.len() {
                return Err(Failure {
                    code: 3,
                    message: format!(
                        "the policy returned {} results for {} inputs",
                        out.len(),
                        chunk.len()
                    ),
                });
            }
            for (&i, r) in chunk.iter().zip(out) {
                results[i] = Some(r);
            }
            done += chunk.len();
            if show_progress {
                eprint!("\rengram: {done}/{} lines", lines.len());
            }
        }
    }
    if show_progress {
        eprintln!();
    }
    Ok(results.into_iter().flatten().collect())
}

fn print_lines(out: &mut dyn Write, values: &[Value]) -> Result<(), Failure> {
    for v in values {
        let mut line = serde_json::to_string(v).map_err(|e| Failure::input(e.to_string()))?;
        line.push('\n');
        if let Err(e) = out.write_all(line.as_bytes()) {
            return io_failure(e);
        }
    }
    Ok(())
}

fn scope_from_flags(cli: &Cli, s: &ScopeArgs) -> Result<w::Scope, Failure> {
    let tenant = cli
        .flags
        .tenant
        .clone()
        .ok_or_else(|| Failure::input("--tenant is required for this command"))?;
    Ok(w::Scope {
        tenant,
        user: cli.flags.user.clone(),
        project: cli.flags.project.clone(),
        thread: s.thread.clone(),
        agent: s.agent.clone(),
    })
}

/// Run `body` inside one transaction: commit if it succeeds, else roll back.
fn transactional<R>(
    engram: &mut Engram,
    body: impl FnOnce(&mut Engram) -> Result<R, Failure>,
) -> Result<R, Failure> {
    engram.begin_batch()?;
    let r = body(engram);
    engram.finish_batch(r.is_ok())?;
    r
}

/// Run one command with the given standard input and output.
pub fn run(cli: Cli, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<(), Failure> {
    let db = cli.flags.db.clone();
    let busy_ms = cli.flags.busy_timeout_ms;
    run_command(cli, stdin, out).map_err(|f| name_the_database(f, &db, busy_ms))
}

/// A storage failure names the database file and what to do about it.
/// The texts matched are SQLite's fixed messages for its result codes
/// (`sqlite3_errstr`: BUSY, FULL, READONLY, CANTOPEN, IOERR).
fn name_the_database(mut f: Failure, db: &str, busy_ms: u64) -> Failure {
    let hint = if f.message.contains("database is locked") {
        format!("another process held its write lock for longer than the busy timeout of {busy_ms} ms (--busy-timeout-ms); nothing was written")
    } else if f.message.contains("database or disk is full") || f.message.contains("disk I/O error")
    {
        "the disk or a file size limit is full; nothing was written".to_string()
    } else if f.message.contains("readonly database") || f.message.contains("read-only") {
        "the file or its directory is read-only; nothing was written".to_string()
    } else if f.message.contains("unable to open database file") {
        "the file or its directory cannot be opened or created (permissions?)".to_string()
    } else {
        return f;
    };
    f.message = format!("{} (database {db}: {hint})", f.message);
    f
}

fn run_command(cli: Cli, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<(), Failure> {
    match &cli.cmd {
        Cmd::Demo => return super::demo::run(&cli.flags, out),
        Cmd::Bench(args) => return super::bench::run(&cli.flags, args, out),
        Cmd::Info => return info(&cli, out),
        Cmd::Serve(args) => return super::serve::run(&cli.flags, args),
        Cmd::Keys { cmd } => return super::serve::keys::run(&cli.flags, cmd, out),
        Cmd::Mcp => return super::mcp::run(&cli.flags),
        Cmd::LoadTest(args) => return super::bench::load::run(&cli.flags, args, out),
        Cmd::Vacuum => return super::vacuum::run(&cli.flags, out),
        _ => {}
    }
    let mut engram = cli.flags.open(&cli.flags.db)?;
    match &cli.cmd {
        Cmd::Classify | Cmd::Remember => {
            let lines = parse_lines::<wire::CandidateIn>(&read_all(stdin)?)?;
            let store = matches!(cli.cmd, Cmd::Remember);
            let res = transactional(&mut engram, |e| {
                by_tenant(
                    &cli,
                    e,
                    &lines,
                    |c| c.scope.tenant.as_str(),
                    |e, p, items| {
                        let c: Vec<w::Candidate> = items.into_iter().map(Into::into).collect();
                        if store {
                            e.remember(p, c)
                        } else {
                            e.classify(p, c)
                        }
                    },
                )
            })?;
            print_lines(
                out,
                &res.iter().map(wire::decision_json).collect::<Vec<_>>(),
            )
        }
        Cmd::Import => {
            let input = read_all(stdin)?;
            // Two passes over each line, so errors keep their field path.
            let heads = parse_lines::<wire::ImportHead>(&input)?;
            let bodies = parse_lines::<wire::CandidateIn>(&input)?;
            let lines: Vec<Line<wire::ImportIn>> = heads
                .into_iter()
                .zip(bodies)
                .map(|(h, b)| Line {
                    number: h.number,
                    value: wire::ImportIn {
                        external_id: h.value.external_id,
                        kind: h.value.kind,
                        candidate: b.value,
                    },
                })
                .collect();
            let res = transactional(&mut engram, |e| {
                by_tenant(
                    &cli,
                    e,
                    &lines,
                    |r| r.candidate.scope.tenant.as_str(),
                    |e, p, items| e.import(p, items.into_iter().map(Into::into).collect()),
                )
            })?;
            print_lines(
                out,
                &res.iter()
                    .map(|r| json!({"id": r.memory_id, "external_id": r.external_id}))
                    .collect::<Vec<_>>(),
            )
        }
        Cmd::Recall => {
            let lines = parse_lines::<wire::QueryIn>(&read_all(stdin)?)?;
            let res = by_tenant(
                &cli,
                &mut engram,
                &lines,
                |q| q.scope.tenant.as_str(),
                |e, p, items| e.recall(p, items.into_iter().map(Into::into).collect()),
            )?;
            print_lines(out, &res.iter().map(wire::recall_json).collect::<Vec<_>>())
        }
        Cmd::Pack => {
            let input = read_all(stdin)?;
            let req: wire::PackIn = parse_one(input.trim(), 1)?;
            let p = principal_for(&cli, &req.scope.tenant);
            let packed = engram.pack(p, req.into())?;
            print_lines(out, &[wire::packed_json(&packed)])
        }
        Cmd::Forget => {
            let lines = parse_lines::<wire::ForgetIn>(&read_all(stdin)?)?;
            let mut selectors = Vec::new();
            for l in lines {
                let number = l.number;
                let sel = l
                    .value
                    .selector()
                    .map_err(|(f, m)| Failure::input(format!("line {number}: field `{f}`: {m}")))?;
                selectors.push(Line { number, value: sel });
            }
            let res = transactional(&mut engram, |e| {
                let mut reports = Vec::new();
                for s in &selectors {
                    let tenant = match &s.value {
                        w::ForgetSelector::MemoryId(id) => match &cli.flags.tenant {
                            Some(t) => t.clone(),
                            None => owning_tenant(e, id).map_err(|f| {
                                Failure::input(format!("line {}: {}", s.number, f.message))
                            })?,
                        },
                        w::ForgetSelector::Key(k) => k.scope.tenant.clone(),
                        w::ForgetSelector::Text(t) => t.scope.tenant.clone(),
                        w::ForgetSelector::SourceRef(r) => r.scope.tenant.clone(),
                    };
                    let r = e
                        .forget(principal_for(&cli, &tenant), vec![s.value.clone()])
                        .map_err(|err| Failure::input(format!("line {}: {err}", s.number)))?;
                    reports.push(wire::forget_json(&r));
                }
                Ok(reports)
            })?;
            print_lines(out, &res)
        }
        Cmd::Sweep(s) => {
            let scope = scope_from_flags(&cli, s)?;
            let p = principal_for(&cli, &scope.tenant);
            let r = transactional(&mut engram, |e| Ok(e.sweep(p, scope)?))?;
            print_lines(out, &[wire::sweep_json(&r)])
        }
        Cmd::History { id } => {
            let tenant = match &cli.flags.tenant {
                Some(t) => t.clone(),
                None => owning_tenant(&mut engram, id)?,
            };
            let revs = engram.history(principal_for(&cli, &tenant), id)?;
            print_lines(out, &revs.iter().map(wire::memory_json).collect::<Vec<_>>())
        }
        Cmd::List { scope, statuses } => {
            let scope = scope_from_flags(&cli, scope)?;
            let mut st = Vec::new();
            for s in statuses {
                let v: wire::Status = serde_json::from_value(Value::String(s.clone()))
                    .map_err(|_| Failure::input(format!("--status: unknown status '{s}' (pending, active, superseded, retracted, expired, conflicted, archived)")))?;
                st.push(v.into());
            }
            let p = principal_for(&cli, &scope.tenant);
            let mems = engram.list(p, scope, st)?;
            print_lines(out, &mems.iter().map(wire::memory_json).collect::<Vec<_>>())
        }
        Cmd::Demo
        | Cmd::Info
        | Cmd::Bench(_)
        | Cmd::Serve(_)
        | Cmd::Keys { .. }
        | Cmd::Mcp
        | Cmd::LoadTest(_)
        | Cmd::Vacuum => Ok(()),
    }
}

/// The one tenant holding memory `id`, for an operator run without
/// `--tenant` (ids are unique per tenant only).
fn owning_tenant(engram: &mut Engram, id: &str) -> Result<String, Failure> {
    let mut tenants = engram.tenants_of(id)?;
    match tenants.len() {
        0 => Err(Failure::input(format!("no memory with id '{id}'"))),
        1 => Ok(tenants.remove(0)),
        n => Err(Failure::input(format!(
            "memory id '{id}' exists in {n} tenants ({}): pass --tenant",
            tenants.join(", ")
        ))),
    }
}

fn info(cli: &Cli, out: &mut dyn Write) -> Result<(), Failure> {
    let mut engram = cli.flags.open(":memory:")?;
    let v = info_json(&mut engram)?;
    let text = serde_json::to_string_pretty(&v).map_err(|e| Failure::input(e.to_string()))?;
    writeln!(out, "{text}").or_else(io_failure)
}

/// What `engram info` prints (also `GET /v1/info`).
pub(crate) fn info_json(engram: &mut Engram) -> Result<Value, Failure> {
    let policy = engram.info()?;
    let rt = engram.runtime();
    let i = &rt.info;
    let v = json!({
        "component": {"path": i.path, "bytes": i.bytes, "sha256": i.sha256},
        "wit_package": "engram:memory@0.1.0",
        "world": "memory-policy",
        "package_version": policy.package_version,
        "policy_version": policy.policy_version,
        "imports": i.imports,
        "exports": i.exports,
        "startup": {
            "compile_ms": rt.startup.compile.map(|d| d.as_secs_f64() * 1e3),
            "deserialize_ms": rt.startup.deserialize.map(|d| d.as_secs_f64() * 1e3),
        },
    });
    Ok(v)
}
