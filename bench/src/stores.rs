//! `engram-bench --postgres URL`: the store-bound figures on PostgreSQL next
//! to SQLite, measured by the same code in one run:
//!
//! - **remember** per second, batched and one transaction per call;
//! - **recall at scale** (`--store-sizes`, default 10k and 100k memories):
//!   import rate, query latency p50/p95, candidates the store handed the
//!   policy;
//! - **many writers**: N `engram remember` processes × M candidates into
//!   one tenant at once (`--writers`, `--writer-candidates`): wall time,
//!   throughput, failed runs (conflicts) and the retries they took.
//!
//! Each PostgreSQL phase runs in a schema of its own (`engram_bench_…`),
//! dropped afterwards; nothing else in the database is touched.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

use crate::measure::{advance, fail, note, pct, round, sorted, store_fail, us};
use crate::plan::{Plan, Scratch};
use crate::workload;
use engram_cli::failure::Failure;
use engram_cli::flags::Flags;
use engram_host::backend::Backend;
use engram_host::postgres::PgStore;
use engram_host::runtime::Limits;
use engram_host::sqlite::SqliteStore;
use engram_host::{Engram, Options};

/// Where one side's stores live.
enum Side<'a> {
    Sqlite(&'a Scratch),
    Postgres(&'a str),
}

impl Side<'_> {
    fn name(&self) -> &'static str {
        match self {
            Side::Sqlite(_) => "sqlite",
            Side::Postgres(_) => "postgres",
        }
    }

    /// The `--db` of a fresh store for `phase`.
    fn db(&self, phase: &str) -> String {
        match self {
            Side::Sqlite(scratch) => scratch.db(&format!("stores-{phase}")).display().to_string(),
            Side::Postgres(url) => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!(
                    "{url}{sep}schema=engram_bench_{}_{}",
                    std::process::id(),
                    phase.replace('-', "_")
                )
            }
        }
    }

    fn open(&self, db: &str) -> Result<Box<dyn Backend>, Failure> {
        Ok(match self {
            Side::Sqlite(_) => {
                Box::new(SqliteStore::open(std::path::Path::new(db)).map_err(store_fail)?)
            }
            Side::Postgres(_) => Box::new(PgStore::open(db).map_err(store_fail)?),
        })
    }

    /// Remove what `phase` left (PostgreSQL: its schema).
    fn clean(&self, db: &str) {
        if let Side::Postgres(_) = self {
            if let Ok(mut s) = PgStore::open(db) {
                let _ = s.drop_schema();
            }
        }
    }
}

/// What the side-by-side run measures beyond the main plan.
pub struct StorePlan {
    pub sizes: Vec<u64>,
    pub writers: u64,
    pub writer_candidates: u64,
    /// `--engram`: the program the writers run (`program::engram`).
    pub engram: Option<std::path::PathBuf>,
}

pub fn side_by_side(
    flags: &Flags,
    plan: &Plan,
    store_plan: &StorePlan,
    scratch: &Scratch,
    limits: Limits,
    url: &str,
) -> Result<Value, Failure> {
    let mut out = serde_json::Map::new();
    for side in [Side::Sqlite(scratch), Side::Postgres(url)] {
        note(format!("stores: {}", side.name()));
        let remember = remember_rate(flags, plan, &side, limits)?;
        let recall = recall_rates(flags, plan, store_plan, &side, limits)?;
        let writers = many_writers(flags, store_plan, &side)?;
        out.insert(
            side.name().into(),
            json!({"remember_per_s": remember, "recall": recall, "writers": writers}),
        );
    }
    Ok(Value::Object(out))
}

fn engram_on(flags: &Flags, side: &Side, db: &str, limits: Limits) -> Result<Engram, Failure> {
    Ok(Engram::with_backend(
        side.open(db)?,
        Options {
            component: flags.component.clone(),
            limits,
            now: Some(workload::now()),
            ..Options::default()
        },
    )?)
}

fn remember_rate(
    flags: &Flags,
    plan: &Plan,
    side: &Side,
    limits: Limits,
) -> Result<Value, Failure> {
    let principal = engram_host::tenant_principal(workload::WRITE_TENANT);
    let db = side.db("remember");
    let mut engram = engram_on(flags, side, &db, limits)?;
    let t = Instant::now();
    let mut i = 0u64;
    while i < plan.batched {
        let n = plan.batch_size.min(plan.batched - i);
        let chunk = (i..i + n)
            .map(|k| workload::candidate(plan.seed, k))
            .collect();
        advance(&mut engram, 61_000);
        engram.remember(principal.clone(), chunk)?;
        i += n;
    }
    let batched = plan.batched as f64 / t.elapsed().as_secs_f64().max(1e-9);
    let t = Instant::now();
    for k in 0..plan.single {
        advance(&mut engram, 250);
        let c = workload::candidate(plan.seed, plan.batched + k);
        engram.remember(principal.clone(), vec![c])?;
    }
    let single = plan.single as f64 / t.elapsed().as_secs_f64().max(1e-9);
    drop(engram);
    side.clean(&db);
    Ok(json!({"batched": round(batched, 0), "single": round(single, 0)}))
}

fn recall_rates(
    flags: &Flags,
    plan: &Plan,
    store_plan: &StorePlan,
    side: &Side,
    limits: Limits,
) -> Result<Value, Failure> {
    let principal = engram_host::tenant_principal(workload::TENANT);
    let db = side.db("recall");
    let mut engram = engram_on(flags, side, &db, limits)?;
    let (mut built, mut revised, mut q_next) = (0u64, 0u64, 0u64);
    let mut rows = Vec::new();
    for &size in &store_plan.sizes {
        note(format!("stores: {} importing {built}..{size}", side.name()));
        let t = Instant::now();
        let from = built;
        while built < size {
            let n = 2000.min(size - built);
            let records = (built..built + n)
                .map(|i| workload::import_record(plan.seed, i))
                .collect();
            engram.import(principal.clone(), records)?;
            built += n;
        }
        let import_per_s = (built - from) as f64 / t.elapsed().as_secs_f64().max(1e-9);
        let target = (size / 100).clamp(20, 2000);
        while revised < target {
            let n = (target - revised).min(500);
            let cands = (revised..revised + n)
                .map(|i| workload::revision(plan.seed, i))
                .collect();
            advance(&mut engram, 120_000);
            engram.remember(principal.clone(), cands)?;
            revised += n;
        }
        for k in 0..plan.warmup {
            engram.recall(
                principal.clone(),
                vec![workload::query(plan.seed, 10_000_000 + k)],
            )?;
        }
        let (mut lat, mut cands) = (Vec::new(), Vec::new());
        let reads0 = engram.records_read();
        for _ in 0..plan.queries {
            let q = workload::query(plan.seed, q_next);
            q_next += 1;
            let t = Instant::now();
            let r = engram.recall(principal.clone(), vec![q])?;
            lat.push(us(t.elapsed()));
            let read = r.first().map(|r| r.candidates_read).unwrap_or(0);
            cands.push(read as f64);
        }
        let reads = engram.records_read() - reads0;
        let (lat, cands) = (sorted(lat), sorted(cands));
        note(format!(
            "stores: {} recall @ {size}: p50 {:.0} µs, p95 {:.0} µs",
            side.name(),
            pct(&lat, 0.5),
            pct(&lat, 0.95)
        ));
        rows.push(json!({
            "memories": size,
            "import_per_s": round(import_per_s, 0),
            "p50_us": round(pct(&lat, 0.5), 1),
            "p95_us": round(pct(&lat, 0.95), 1),
            "candidates_read": pct(&cands, 0.5) as u64,
            "records_read_per_query": round(reads as f64 / plan.queries as f64, 1),
            "queries": plan.queries,
        }));
    }
    drop(engram);
    side.clean(&db);
    Ok(Value::Array(rows))
}

/// Candidate lines for writer `w`: half of them restate facts on keys every
/// writer shares (their supersessions race), half are events of its own.
fn writer_input(w: u64, n: u64) -> String {
    let mut s = String::new();
    for i in 0..n {
        let line = if i % 2 == 0 {
            let key = i % 10;
            json!({
                "text": format!("The on-call owner of service s{key} is now team w{w}-{i}"),
                "scope": {"tenant": "bench-fleet", "user": "ops"},
                "source": {"kind": "system", "ref": format!("w{w}")},
                "kind_hint": "semantic", "subject": format!("service:s{key}"),
                "predicate": "owner", "object": format!("team w{w}-{i}"),
            })
        } else {
            json!({
                "text": format!("Yesterday host h{w}-{i} finished the nightly backup of volume {i} in {} minutes", 10 + i % 50),
                "scope": {"tenant": "bench-fleet", "user": "ops"},
                "source": {"kind": "system", "ref": format!("w{w}")},
            })
        };
        s.push_str(&line.to_string());
        s.push('\n');
    }
    s
}

/// N `engram remember` processes at once into one tenant. A run that fails
/// with a conflict is retried (up to 5 times) and counted.
fn many_writers(flags: &Flags, store_plan: &StorePlan, side: &Side) -> Result<Value, Failure> {
    let db = side.db("writers");
    drop(side.open(&db)?); // the schema exists before the race
    let exe = crate::program::engram(store_plan.engram.as_deref())?;
    let t = Instant::now();
    let handles: Vec<_> = (0..store_plan.writers)
        .map(|w| {
            let (exe, db) = (exe.clone(), db.clone());
            let input = writer_input(w, store_plan.writer_candidates);
            let component = flags.component.clone();
            std::thread::spawn(move || -> Result<(u64, u64), String> {
                let (mut conflicts, mut retries) = (0u64, 0u64);
                loop {
                    let mut cmd = Command::new(&exe);
                    cmd.args(["remember", "--db", &db, "--now", workload::NOW]);
                    if let Some(c) = &component {
                        cmd.arg("--component").arg(c);
                    }
                    let mut child = cmd
                        .stdin(Stdio::piped())
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .spawn()
                        .map_err(|e| e.to_string())?;
                    if let Some(mut stdin) = child.stdin.take() {
                        stdin
                            .write_all(input.as_bytes())
                            .map_err(|e| e.to_string())?;
                    }
                    let out = child.wait_with_output().map_err(|e| e.to_string())?;
                    if out.status.success() {
                        return Ok((conflicts, retries));
                    }
                    let err = String::from_utf8_lossy(&out.stderr).to_string();
                    if !err.contains("conflict") || retries >= 5 {
                        return Err(err);
                    }
                    conflicts += 1;
                    retries += 1;
                }
            })
        })
        .collect();
    let (mut conflicts, mut retries) = (0u64, 0u64);
    for h in handles {
        let (c, r) = h
            .join()
            .map_err(|_| fail("a writer thread panicked"))?
            .map_err(|e| fail(format!("a writer failed: {e}")))?;
        conflicts += c;
        retries += r;
    }
    let wall = t.elapsed().as_secs_f64();
    let total = store_plan.writers * store_plan.writer_candidates;
    side.clean(&db);
    Ok(json!({
        "processes": store_plan.writers,
        "candidates_each": store_plan.writer_candidates,
        "seconds": round(wall, 2),
        "candidates_per_s": round(total as f64 / wall.max(1e-9), 0),
        "conflicts": conflicts,
        "retries": retries,
    }))
}

/// The side-by-side table for the human summary.
pub fn human(v: &Value) -> String {
    let mut s = String::from("\nstores side by side (same code, same workload):\n");
    for side in ["sqlite", "postgres"] {
        let r = &v[side];
        s.push_str(&format!(
            "  {side:<9} remember {} /s batched, {} /s single; {} writers × {}: {} /s, {} conflicts, {} retries\n",
            r["remember_per_s"]["batched"],
            r["remember_per_s"]["single"],
            r["writers"]["processes"],
            r["writers"]["candidates_each"],
            r["writers"]["candidates_per_s"],
            r["writers"]["conflicts"],
            r["writers"]["retries"],
        ));
        for row in r["recall"].as_array().into_iter().flatten() {
            s.push_str(&format!(
                "  {side:<9} recall @ {:>7}  p50 {} µs  p95 {} µs  candidates read {}  import {} /s\n",
                row["memories"], row["p50_us"], row["p95_us"], row["candidates_read"], row["import_per_s"]
            ));
        }
    }
    s
}
