//! The `engram` command line: JSON Lines in and out (SPEC §4), a transport
//! of the component's JSON contract (`json` export, `engram_contract`): it
//! reads stdin, opens a store handle per tenant, hands the lines to the
//! component as they were written and prints what it answers.
//!
//! A bad line is reported with its number and field, the exit code is
//! non-zero, and nothing is written: a whole invocation is one transaction.

use std::io::{IsTerminal, Read, Write};

use clap::{Args, Parser};
use engram_contract::{route, wire, Form};
use serde_json::{json, Value};

pub use crate::failure::Failure;
use crate::flags::Flags;
use engram_host::bindings as w;
use engram_host::{Engram, Error};

/// Items per guest call when a large input is split (one transaction still
/// spans the whole input).
const CHUNK: usize = 2000;

/// A parsed command line: the command and the flags it was given. The
/// clap definitions, with each command's flags and help, are in
/// `commands.rs` (`Cli::parse`, `Cli::try_parse_from`).
#[derive(Debug)]
pub struct Cli {
    pub flags: Flags,
    pub cmd: Cmd,
}

#[derive(Args, Debug, Clone)]
pub struct ScopeArgs {
    /// With --tenant: only this conversation thread.
    #[arg(long)]
    pub thread: Option<String>,
    /// With --tenant: only this agent.
    #[arg(long)]
    pub agent: Option<String>,
}

/// What to run (`commands.rs` parses it, with its help).
#[derive(Debug)]
pub enum Cmd {
    Classify,
    Remember,
    Import,
    Recall,
    Pack,
    Forget,
    Sweep(ScopeArgs),
    Review,
    Operations {
        cmd: OperationsCmd,
    },
    History {
        id: String,
    },
    List {
        scope: ScopeArgs,
        statuses: Vec<String>,
    },
    Info,
    Demo,
    Serve(crate::serve::ServeArgs),
    Mcp,
    Keys {
        cmd: crate::serve::keys::KeysCmd,
    },
    Vacuum,
}

/// `engram operations …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperationsCmd {
    /// Records ({"operation_id","scope","tool","status","idempotency_key"?,
    /// "result_ref"?,"result_digest"?,"detail"?,"at"?} per line) → one receipt
    /// per line ({"action","operation_id","revision","status"}), all in one
    /// transaction.
    Record,
    /// Lookups ({"operation_id","scope"} per line) → one line each: the
    /// operation's latest record, revision and history, or "found": false.
    Get,
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    // `engram mcp` reads and writes stdio itself (tokio), so it must not
    // run under the locks taken below.
    if matches!(cli.cmd, Cmd::Mcp) {
        return match crate::mcp::run(&cli.flags) {
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

/// A policy error about item `index` of a call (a bad field, an item not
/// found), named by `label(index)` ("line 3"); any other failure as it is.
fn at_item(e: Error, label: impl Fn(u32) -> Option<String>) -> Failure {
    let named = e
        .about_item()
        .and_then(|(i, text)| Some(format!("{}: {text}", label(i)?)));
    match named {
        Some(message) => Failure::input(message),
        None => Failure::from(e),
    }
}

/// Refuse input operation `op` cannot read — a field it does not know, a
/// line holding two JSON values — naming the line and field, before any
/// item is routed or anything is written.
fn check_input(op: &str, input: &str, form: Form) -> Result<(), Failure> {
    engram_contract::ops::check(op, input)
        .map_err(|e| at_item(Error::Policy(e), |i| Some(form.label(i))))
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

fn flush(out: &mut dyn Write) -> Result<(), Failure> {
    out.flush().or_else(Failure::output)
}

fn principal_for(cli: &Cli, tenant: &str) -> w::Principal {
    match &cli.flags.tenant {
        Some(t) => w::Principal {
            tenant: t.clone(),
            user: cli.flags.user.clone(),
            project: cli.flags.project.clone(),
        },
        None => engram_host::tenant_principal(tenant),
    }
}

/// Whose store an item of a batch acts on.
#[derive(Clone, Copy)]
enum TenantBy {
    /// The tenant of its `scope`.
    Scope,
    /// The tenant of the memory its `id` names (a review item).
    MemoryId,
    /// The tenant of the memory its `memory_id` names, else of its `scope`
    /// (a forget selector).
    Selector,
}

/// The tenant of each item. An item whose tenant cannot be read goes with
/// the tenant "": the component then names what is wrong with it. With
/// `--tenant` every item acts for that principal.
fn tenants(
    cli: &Cli,
    engram: &mut Engram,
    form: Form,
    items: &[route::Routed],
    by: TenantBy,
) -> Result<Vec<String>, Failure> {
    let scope_tenant =
        |r: &route::Routed| r.scope.as_ref().map_or(String::new(), |s| s.tenant.clone());
    let mut out = Vec::with_capacity(items.len());
    for r in items {
        let named = match by {
            TenantBy::Scope => None,
            TenantBy::MemoryId => Some(("id", &r.id)),
            TenantBy::Selector => r.memory_id.as_ref().map(|_| ("memory_id", &r.memory_id)),
        };
        let tenant = match (&cli.flags.tenant, named) {
            (Some(t), _) => t.clone(),
            (None, Some((field, Some(id)))) => owning_tenant(engram, id).map_err(|f| {
                Failure::input(format!(
                    "{}: field `{field}`: {}",
                    form.label(r.index),
                    f.message
                ))
            })?,
            (None, Some((_, None))) => String::new(),
            (None, None) => scope_tenant(r),
        };
        out.push(tenant);
    }
    Ok(out)
}

/// Run batch operation `op` on `input` (JSON Lines): the items grouped by
/// tenant (one principal per group, unless `--tenant` pins one) and in
/// chunks, each chunk handed to the component as it was written; the
/// output lines come back in input order.
fn batch(
    cli: &Cli,
    engram: &mut Engram,
    op: &str,
    input: &str,
    by: TenantBy,
) -> Result<String, Failure> {
    let (form, items) = route::batch(input).map_err(|e| Failure::from(Error::Policy(e)))?;
    check_input(op, input, form)?;
    let item_tenants = tenants(cli, engram, form, &items, by)?;
    let tenant_of = |i: usize| item_tenants[i].as_str();
    let mut tenants: Vec<&str> = Vec::new();
    for i in 0..items.len() {
        if !tenants.contains(&tenant_of(i)) {
            tenants.push(tenant_of(i));
        }
    }
    let show_progress = items.len() > 5 * CHUNK && std::io::stderr().is_terminal();
    let mut done = 0usize;
    let mut results: Vec<Option<&str>> = vec![None; items.len()];
    let mut outputs: Vec<(Vec<usize>, String)> = Vec::new();
    for tenant in tenants {
        let idx: Vec<usize> = (0..items.len())
            .filter(|&i| tenant_of(i) == tenant)
            .collect();
        for chunk in idx.chunks(CHUNK) {
            // The chunk is a batch of its own: its item k is item chunk[k].
            let text = route::rejoin(form, chunk.iter().map(|&i| items[i].text));
            let out = engram
                .call_json(principal_for(cli, tenant), op, &text)
                .map_err(|e| {
                    at_item(e, |k| {
                        chunk.get(k as usize).map(|&i| form.label(items[i].index))
                    })
                })?;
            outputs.push((chunk.to_vec(), out));
            done += chunk.len();
            if show_progress {
                eprint!("\rengram: {done}/{} lines", items.len());
            }
        }
    }
    if show_progress {
        eprintln!();
    }
    for (chunk, out) in &outputs {
        let lines: Vec<&str> = out.lines().collect();
        if lines.len() != chunk.len() {
            return Err(Failure {
                code: 3,
                message: format!(
                    "the policy returned {} results for {} inputs",
                    lines.len(),
                    chunk.len()
                ),
            });
        }
        for (&i, line) in chunk.iter().zip(lines) {
            results[i] = Some(line);
        }
    }
    let mut text = String::new();
    for line in results.into_iter().flatten() {
        text.push_str(line);
        text.push('\n');
    }
    Ok(text)
}

fn print(out: &mut dyn Write, text: &str) -> Result<(), Failure> {
    out.write_all(text.as_bytes()).or_else(Failure::output)
}

/// The JSON text of a value built from flags.
fn json_text(v: &Value) -> String {
    v.to_string()
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
        Cmd::Demo => return crate::demo::run(&cli.flags, out),
        Cmd::Info => return crate::info::run(&cli.flags, out),
        Cmd::Serve(args) => return crate::serve::run(&cli.flags, args),
        Cmd::Keys { cmd } => return crate::serve::keys::run(cmd, out),
        Cmd::Mcp => return crate::mcp::run(&cli.flags),
        Cmd::Vacuum => return crate::vacuum::run(&cli.flags, out),
        _ => {}
    }
    if let Some(cmd) = cli.reads_only() {
        refuse_missing_database(&cli.flags.db, cmd)?;
    }
    let mut engram = cli.flags.open(&cli.flags.db)?;
    if matches!(cli.cmd, Cmd::Recall | Cmd::Pack) && cli.flags.options()?.sqlite.read_only {
        eprintln!(
            "engram: {} is read-only: usage counts not recorded",
            cli.flags.db
        );
    }
    let (op, by) = match &cli.cmd {
        Cmd::Classify => ("classify", TenantBy::Scope),
        Cmd::Remember => ("remember", TenantBy::Scope),
        Cmd::Import => ("import", TenantBy::Scope),
        Cmd::Recall => ("recall", TenantBy::Scope),
        Cmd::Review => ("review", TenantBy::MemoryId),
        Cmd::Operations {
            cmd: OperationsCmd::Record,
        } => ("record-operations", TenantBy::Scope),
        Cmd::Operations {
            cmd: OperationsCmd::Get,
        } => ("get-operations", TenantBy::Scope),
        _ => ("", TenantBy::Scope),
    };
    match &cli.cmd {
        Cmd::Classify
        | Cmd::Remember
        | Cmd::Import
        | Cmd::Recall
        | Cmd::Review
        | Cmd::Operations { .. } => {
            let input = read_all(stdin)?;
            let text = if cli.cmd_writes() {
                transactional(&mut engram, |e| batch(&cli, e, op, &input, by))?
            } else {
                batch(&cli, &mut engram, op, &input, by)?
            };
            print(out, &text)
        }
        Cmd::Pack => {
            let input = read_all(stdin)?;
            engram_contract::ops::check("pack", &input)
                .map_err(|e| at_item(Error::Policy(e), |_| Some("pack request".into())))?;
            let tenant = route::object_scope(&input).map(|s| s.tenant);
            let p = principal_for(&cli, tenant.as_deref().unwrap_or(""));
            let text = engram
                .call_json(p, "pack", &input)
                .map_err(|e| at_item(e, |_| Some("pack request".into())))?;
            print(out, &text)
        }
        Cmd::Forget => {
            let input = read_all(stdin)?;
            let (form, items) =
                route::batch(&input).map_err(|e| Failure::from(Error::Policy(e)))?;
            check_input("forget", &input, form)?;
            // One selector, one call, one report line: each for its own tenant.
            let text = transactional(&mut engram, |e| {
                let tenants = tenants(&cli, e, form, &items, TenantBy::Selector)?;
                let mut reports = String::new();
                for (item, tenant) in items.iter().zip(tenants) {
                    let label = form.label(item.index);
                    let report = e
                        .call_json(
                            principal_for(&cli, &tenant),
                            "forget",
                            &route::rejoin(form, [item.text]),
                        )
                        .map_err(|err| match err.about_item() {
                            // The call held this one selector: its item 0.
                            Some(_) => at_item(err, |_| Some(label.clone())),
                            None => Failure::input(format!("{label}: {err}")),
                        })?;
                    reports.push_str(&report);
                }
                Ok(reports)
            })?;
            print(out, &text)
        }
        Cmd::Sweep(s) => {
            let scope = scope_from_flags(&cli, s)?;
            let p = principal_for(&cli, &scope.tenant);
            let input = json_text(&json!({ "scope": wire::Scope::from(scope) }));
            let text = transactional(&mut engram, |e| Ok(e.call_json(p, "sweep", &input)?))?;
            print(out, &text)
        }
        Cmd::History { id } => {
            let tenant = match &cli.flags.tenant {
                Some(t) => t.clone(),
                None => owning_tenant(&mut engram, id)?,
            };
            let input = json_text(&json!({ "id": id }));
            let text = engram.call_json(principal_for(&cli, &tenant), "history", &input)?;
            print(out, &text)
        }
        Cmd::List { scope, statuses } => {
            let scope = scope_from_flags(&cli, scope)?;
            for s in statuses {
                if w::Status::from_name(s).is_none() {
                    return Err(Failure::input(format!(
                        "--status: unknown status '{s}' ({})",
                        status_names()
                    )));
                }
            }
            let p = principal_for(&cli, &scope.tenant);
            let input = json_text(&json!({
                "scope": wire::Scope::from(scope),
                "statuses": statuses,
            }));
            let text = engram.call_json(p, "list", &input)?;
            print(out, &text)
        }
        Cmd::Demo | Cmd::Info | Cmd::Serve(_) | Cmd::Keys { .. } | Cmd::Mcp | Cmd::Vacuum => Ok(()),
    }
}

/// A command that only reads refuses a database file that does not exist,
/// rather than creating an empty one and answering "nothing" (a mistyped
/// `--db` would otherwise look like an empty memory).
fn refuse_missing_database(db: &str, cmd: &str) -> Result<(), Failure> {
    let file = db != ":memory:" && !engram_host::postgres::is_postgres_url(db);
    if file && !std::path::Path::new(db).exists() {
        return Err(Failure::input(format!(
            "no database at {db}: `engram {cmd}` reads an existing database and never creates one (check --db; `engram remember` or `engram import` creates it)"
        )));
    }
    Ok(())
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

/// The statuses, as `--status` takes them.
pub(crate) fn status_names() -> String {
    w::Status::ALL
        .iter()
        .map(|s| s.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Cli {
    /// The name of a command that only reads the database, if this is one.
    fn reads_only(&self) -> Option<&'static str> {
        match self.cmd {
            Cmd::Recall => Some("recall"),
            Cmd::Pack => Some("pack"),
            Cmd::List { .. } => Some("list"),
            Cmd::History { .. } => Some("history"),
            Cmd::Operations {
                cmd: OperationsCmd::Get,
            } => Some("operations get"),
            _ => None,
        }
    }

    /// Classify, remember, import, review and operation records run in
    /// one transaction.
    fn cmd_writes(&self) -> bool {
        // Recall counts the use of what it returns (`touch`), so a recall
        // invocation that fails part-way must roll those counts back too.
        matches!(
            self.cmd,
            Cmd::Classify
                | Cmd::Recall
                | Cmd::Remember
                | Cmd::Import
                | Cmd::Review
                | Cmd::Operations {
                    cmd: OperationsCmd::Record
                }
        )
    }
}
