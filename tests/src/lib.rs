//! Shared helpers for the end-to-end tests in `tests/tests/`.

pub mod circles;
pub mod deployment;
pub mod edge;
pub mod postgres;
pub mod provision;
pub mod scenario;
pub mod store_conformance;

use engram_host::bindings as w;
use engram_host::{Engram, Options};

/// 2026-08-01T10:00:00+08:00, the instant most tests run at.
pub fn fixed_now() -> w::Datetime {
    engram_host::clock::parse("2026-08-01T10:00:00+08:00").expect("valid instant")
}

/// A fresh in-memory store behind the real component, with a fixed clock.
pub fn engram() -> Engram {
    engram_with(Options {
        now: Some(fixed_now()),
        ..Options::default()
    })
}

pub fn engram_with(opts: Options) -> Engram {
    Engram::open(":memory:", opts).expect("open engram")
}

pub fn scope(tenant: &str, user: Option<&str>) -> w::Scope {
    w::Scope {
        tenant: tenant.into(),
        user: user.map(Into::into),
        project: None,
        thread: None,
        agent: None,
    }
}

pub fn principal(tenant: &str) -> w::Principal {
    engram_host::tenant_principal(tenant)
}

/// A candidate with only the required fields set.
pub fn candidate(
    tenant: &str,
    user: Option<&str>,
    text: &str,
    source: w::SourceKind,
) -> w::Candidate {
    w::Candidate {
        id: None,
        text: text.into(),
        scope: scope(tenant, user),
        source: w::Source {
            kind: source,
            reference: Some("evt-1".into()),
        },
        observed_at: None,
        confidence: None,
        kind_hint: None,
        subject: None,
        predicate: None,
        object: None,
        condition: None,
        occurred_at: None,
        valid_from: None,
        valid_to: None,
        entities: Vec::new(),
        embedding: None,
    }
}

/// An episodic import record.
pub fn episode(tenant: &str, user: &str, external_id: &str, text: &str) -> w::ImportRecord {
    let mut c = candidate(tenant, Some(user), text, w::SourceKind::User);
    c.occurred_at = Some(fixed_now());
    w::ImportRecord {
        external_id: external_id.into(),
        kind: w::MemoryKind::Episodic,
        candidate: c,
    }
}

pub fn query(tenant: &str, user: Option<&str>, text: &str, k: u32) -> w::Query {
    w::Query {
        id: Some("q".into()),
        text: text.into(),
        scope: scope(tenant, user),
        k,
        as_of: None,
        kinds: Vec::new(),
        entities: Vec::new(),
        embedding: None,
        sensitivity_ceiling: None,
        explain_rejected: false,
    }
}

/// Two candidate lines (SPEC §4) the policy holds for review (`pending`):
/// a preference inferred from the user's behaviour and a fact inferred by
/// an agent, both in `tenant`/`user`.
pub fn pending_candidates(tenant: &str, user: &str) -> [serde_json::Value; 2] {
    let scope = serde_json::json!({"tenant": tenant, "user": user});
    [
        serde_json::json!({"id": "b1", "text": "The user prefers dark mode in the dashboard",
            "scope": scope, "source": {"kind": "behavior", "ref": "evt-ui-88"},
            "kind_hint": "semantic", "subject": format!("user:{user}"),
            "predicate": "ui_theme", "object": "dark"}),
        serde_json::json!({"id": "a1", "text": "order-service 部署在 AWS",
            "scope": scope, "source": {"kind": "agent", "ref": "run-17"},
            "kind_hint": "semantic", "subject": "order-service",
            "predicate": "部署在", "object": "AWS"}),
    ]
}

/// Run the CLI in-process with `args` (after `engram`) and `stdin`.
pub fn cli(args: &[&str], stdin: &str) -> Result<String, engram_cli::cli::Failure> {
    cli_bytes(args, stdin.as_bytes())
}

/// Run the CLI in-process with raw bytes on stdin (which may not be UTF-8).
pub fn cli_bytes(args: &[&str], stdin: &[u8]) -> Result<String, engram_cli::cli::Failure> {
    use clap::Parser;
    let mut argv = vec!["engram"];
    argv.extend_from_slice(args);
    let cli = engram_cli::cli::Cli::try_parse_from(argv).map_err(|e| engram_cli::cli::Failure {
        code: 2,
        message: e.to_string(),
    })?;
    let mut out = Vec::new();
    engram_cli::cli::run(cli, &mut &stdin[..], &mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// A unique temporary database path.
/// An empty directory `<tmp>/<group>/<name>` (what an earlier run left
/// there removed first); `tmp` is a test binary's `CARGO_TARGET_TMPDIR`.
pub fn fresh_dir(tmp: &str, group: &str, name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(tmp).join(group).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test directory");
    dir
}

pub fn temp_db(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("engram-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(format!("{name}.db"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
    p.display().to_string()
}

/// Every file of the database at `db` (the file, its WAL, its shared
/// memory) that holds `needle`'s bytes.
pub fn files_holding(db: &str, needle: &str) -> Vec<String> {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| format!("{db}{suffix}"))
        .filter(|path| {
            std::fs::read(path)
                .map(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
                .unwrap_or(false)
        })
        .collect()
}

/// `PRAGMA integrity_check` of the database at `path`: "ok" when sound.
pub fn integrity(path: &str) -> String {
    let conn = rusqlite::Connection::open(path).expect("open the database to check it");
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .expect("busy timeout");
    let rows: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<_, _>>()
        })
        .expect("integrity_check runs");
    rows.join("; ")
}

/// Every row of every table of the database at `path` matching `condition`
/// (SQL over the table's own columns; a table lacking a column it names is
/// left out), one sorted line per row. Compare two dumps to prove nothing changed.
pub fn dump_where(path: &str, condition: &str) -> String {
    let conn = rusqlite::Connection::open(path).expect("open the database to dump it");
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .expect("busy timeout");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<_, _>>()
        })
        .expect("list tables");
    let mut out = Vec::new();
    for t in tables {
        let sql = format!("SELECT * FROM \"{t}\" WHERE {condition}");
        let Ok(mut stmt) = conn.prepare(&sql) else {
            continue; // the condition names a column this table lacks
        };
        let n = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let mut cells = Vec::with_capacity(n);
                for i in 0..n {
                    cells.push(format!("{:?}", r.get::<_, rusqlite::types::Value>(i)?));
                }
                Ok(format!("{t}: {}", cells.join(" | ")))
            })
            .and_then(|rows| rows.collect::<Result<_, _>>())
            .expect("read rows");
        rows.sort();
        out.extend(rows);
    }
    out.join("\n")
}

/// Every row of the database at `path` (see `dump_where`).
pub fn dump(path: &str) -> String {
    dump_where(path, "1")
}

/// The `engram` CLI at `exe` as a separate process, its compiled-component
/// cache kept away from $HOME. Integration tests get `exe` from
/// `engram_bin!()` (Cargo hands binary paths to integration tests only).
pub fn engram_command(exe: &str) -> std::process::Command {
    let mut c = std::process::Command::new(exe);
    c.env(
        "ENGRAM_CACHE_DIR",
        std::env::temp_dir().join("engram-tests-cache"),
    );
    c
}

/// A `Command` for the `engram` CLI built by this package
/// (`src/bin/engram-cli.rs`).
#[macro_export]
macro_rules! engram_bin {
    () => {
        $crate::engram_command(env!("CARGO_BIN_EXE_engram-cli"))
    };
}
