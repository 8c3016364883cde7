//! `engram-bench`: speed, scale, size and the wasm/native ratio.
//!
//! One run measures, on scratch SQLite files of its own (never `--db`):
//!
//! - **start-up**: the component's size, compiling it (`compile_ms`),
//!   loading the precompiled artifact the way the on-disk cache does
//!   (`deserialize_us`), and a fresh `Store` + instantiation from the
//!   cached `InstancePre` (`instantiate_us`, median);
//! - **remember throughput**: candidates through classification, the six
//!   gates, resolution and the commit, 1 000 per call (one transaction per
//!   call) and one per call (one transaction each);
//! - **recall at scale**: a corpus of 1k / 10k / 100k memories in one scope
//!   built by `import` (plus preference restatements through `remember`, so
//!   keys carry long revision chains), then one query per call, latency
//!   percentiles and the candidates the store handed the policy;
//! - **pack** of a typical turn against the ~10k corpus;
//! - **wasm/native**: the same policy code (ranking = `recall`,
//!   classification = `classify`) run inside the component and natively
//!   (the guest crate linked into the host), side by side against the same
//!   SQLite store; time in the store is subtracted on both sides;
//! - **host RSS** after the largest size.
//!
//! The workload is deterministic (see `workload.rs`); `--quick`
//! shrinks every size so a CI smoke run stays well under a minute.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use engram_cli::failure::Failure;
use engram_cli::flags::Flags;
use engram_host::backend::{Backend, ScopedStore};
use engram_host::bindings as w;
use engram_host::clock::Clock;
use engram_host::runtime::{Limits, Runtime};
use engram_host::sqlite::SqliteStore;
use engram_host::{Engram, Options};

use crate::conv::Cv;
use crate::measure::{advance, fail, note, pct, round, sorted, store_fail, thread_cpu_us, us};
use crate::plan::{BenchArgs, Plan, Scratch};
use crate::timed::{MethodTime, NativeStore, StoreTime, TimedBackend};
use crate::{stores, workload};

/// Fields of /proc/self/status, in MiB.
fn proc_status_mb() -> Value {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mut out = serde_json::Map::new();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        if matches!(k, "VmRSS" | "VmHWM" | "RssAnon" | "RssFile" | "RssShmem") {
            let kb: f64 = v
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap_or(0.0);
            out.insert(k.to_string(), json!(round(kb / 1024.0, 1)));
        }
    }
    Value::Object(out)
}

fn loadavg() -> Value {
    let s = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let v: Vec<f64> = s
        .split_whitespace()
        .take(3)
        .filter_map(|x| x.parse().ok())
        .collect();
    json!(v)
}

/// Store time per method between two snapshots: calls, wall µs and thread
/// CPU µs per unit of work.
fn store_breakdown(before: &[MethodTime], after: &[MethodTime], units: u64) -> Value {
    let mut out = serde_json::Map::new();
    for (m, c, ns, cpu) in after {
        let (c0, ns0, cpu0) = before
            .iter()
            .find(|(b, _, _, _)| b == m)
            .map(|(_, c, n, cpu)| (*c, *n, *cpu))
            .unwrap_or((0, 0, 0));
        if *c > c0 {
            let u = units.max(1) as f64;
            out.insert(
                m.to_string(),
                json!({
                    "calls": round((c - c0) as f64 / u, 2),
                    "us": round((ns - ns0) as f64 / 1e3 / u, 1),
                    "cpu_us": round((cpu - cpu0) as f64 / 1e3 / u, 1),
                }),
            );
        }
    }
    Value::Object(out)
}

fn open_sqlite(path: &Path) -> Result<SqliteStore, Failure> {
    SqliteStore::open(path).map_err(store_fail)
}

/// An `Engram` over a timed SQLite store with a fixed clock.
fn open_engram(flags: &Flags, path: &Path, limits: Limits) -> Result<(Engram, StoreTime), Failure> {
    let (backend, time) = TimedBackend::new(Box::new(open_sqlite(path)?));
    let engram = Engram::with_backend(
        Box::new(backend),
        Options {
            component: flags.component.clone(),
            limits,
            now: Some(workload::now()),
            ..Options::default()
        },
    )?;
    Ok((engram, time))
}

/// One benchmark run with `args`, its report on `out` (a table, or one
/// JSON object with `--json`); `engram` is the program the many-writers
/// run of `--postgres` starts (`program::engram`).
pub fn run(
    flags: &Flags,
    args: &BenchArgs,
    engram: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let plan = Plan::new(args);
    let load_start = loadavg();
    let started = Instant::now();
    let scratch = Scratch::new(args.dir.as_deref())?;
    let limits = flags.limits();
    note(format!(
        "plan: sizes {:?}, {} batched + {} single remembers, {} queries per size, seed {}{}; scratch {}",
        plan.sizes,
        if plan.remember { plan.batched } else { 0 },
        if plan.remember { plan.single } else { 0 },
        plan.queries,
        plan.seed,
        if plan.quick { " (quick)" } else { "" },
        scratch.dir.display()
    ));

    let startup = startup(flags, &plan, limits)?;
    let remember = if plan.remember {
        remember_throughput(flags, &plan, &scratch, limits)?
    } else {
        Remember {
            batched_per_s: None,
            single_per_s: None,
            details: Value::Null,
        }
    };
    let erasure = if plan.erasure {
        erasure_cost(flags, &plan, &scratch, limits)?
    } else {
        Value::Null
    };
    let scale = recall_at_scale(flags, &plan, &scratch, limits)?;
    let side_by_side = match &args.postgres {
        Some(url) => {
            let store_plan = stores::StorePlan {
                sizes: args.store_sizes.clone().unwrap_or_else(|| {
                    if plan.quick {
                        vec![1000, 3000]
                    } else {
                        vec![10_000, 100_000]
                    }
                }),
                writers: args.writers.max(1),
                writer_candidates: args.writer_candidates.max(1),
                engram: engram.map(Path::to_path_buf),
            };
            stores::side_by_side(flags, &plan, &store_plan, &scratch, limits, url)?
        }
        None => Value::Null,
    };

    let mut result = json!({
        "component_bytes": startup.component_bytes,
        "compile_ms": round(startup.compile_ms, 1),
        "deserialize_us": round(startup.deserialize_us, 1),
        "instantiate_us": round(startup.instantiate_us, 1),
        "remember_per_s": {
            "batched": remember.batched_per_s.map(|x| round(x, 0)),
            "single": remember.single_per_s.map(|x| round(x, 0)),
        },
        "recall": scale.recall,
        "pack_p50_us": scale.pack_p50_us.map(|x| round(x, 1)),
        "wasm_native_ratio": scale.ratio.map(|x| round(x, 3)),
        "host_rss_mb": round(scale.rss_mb, 1),
    });
    let details = json!({
        "startup": startup.details,
        "remember": remember.details,
        "erasure": erasure,
        "pack": scale.pack_details,
        "wasm_native": scale.ratio_details,
        "memory": scale.memory_details,
        "workload": {
            "seed": plan.seed,
            "quick": plan.quick,
            "sizes": plan.sizes,
            "queries_per_size": plan.queries,
            "batch_size": plan.batch_size,
            "measured_at": plan.mid_size,
            "now": workload::NOW,
        },
        "machine": {
            "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "loadavg_start": load_start,
            "loadavg_end": loadavg(),
            "elapsed_s": round(started.elapsed().as_secs_f64(), 1),
        },
    });
    result["details"] = details;
    result["stores"] = side_by_side;
    note(format!("done in {:.1} s", started.elapsed().as_secs_f64()));

    let text = if args.json {
        serde_json::to_string(&result).map_err(fail)?
    } else {
        let mut text = human(&result);
        if !result["stores"].is_null() {
            text.push_str(&stores::human(&result["stores"]));
        }
        text
    };
    writeln!(out, "{text}").map_err(|e| fail(format!("writing output: {e}")))
}

/// A readable summary of the JSON result.
fn human(r: &Value) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "component        {} bytes\ncompile          {} ms\ndeserialize      {} µs (precompiled, from the cache file)\ninstantiate      {} µs (fresh Store from InstancePre, median)\n",
        r["component_bytes"], r["compile_ms"], r["deserialize_us"], r["instantiate_us"]
    ));
    s.push_str(&format!(
        "remember         {} candidates/s batched, {} /s one transaction each\n",
        r["remember_per_s"]["batched"], r["remember_per_s"]["single"]
    ));
    if let Some(rows) = r["recall"].as_array() {
        for row in rows {
            s.push_str(&format!(
                "recall @ {:>7}  p50 {} µs  p95 {} µs  candidates read {}\n",
                row["memories"], row["p50_us"], row["p95_us"], row["candidates_read"]
            ));
        }
    }
    s.push_str(&format!(
        "pack             p50 {} µs\nwasm/native      {}× (policy time in the component / natively)\nhost RSS         {} MiB at the largest size\n\n--json prints every figure and the details.",
        r["pack_p50_us"], r["wasm_native_ratio"], r["host_rss_mb"]
    ));
    s
}

// ------------------------------------------------------------------ start-up

struct Startup {
    component_bytes: usize,
    compile_ms: f64,
    deserialize_us: f64,
    instantiate_us: f64,
    details: Value,
}

fn startup(flags: &Flags, plan: &Plan, limits: Limits) -> Result<Startup, Failure> {
    note("start-up: compile, deserialize, instantiate");
    let bytes = match &flags.component {
        Some(p) => std::fs::read(p).map_err(|e| fail(format!("{}: {e}", p.display())))?,
        None => engram_host::runtime::EMBEDDED_COMPONENT.to_vec(),
    };
    let engine =
        wasmtime::Engine::new(&engram_host::runtime::engine_config(&limits)).map_err(fail)?;
    let mut compiles = Vec::new();
    let mut compiled = Vec::new();
    for _ in 0..plan.compile_runs {
        let t = Instant::now();
        compiled = engine.precompile_component(&bytes).map_err(fail)?;
        compiles.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let file = std::env::temp_dir().join(format!("engram-bench-{}.cwasm", std::process::id()));
    std::fs::write(&file, &compiled).map_err(fail)?;
    let mut des = Vec::new();
    for _ in 0..plan.deserialize_runs {
        let t = Instant::now();
        // SAFETY: the file was just written by `precompile_component` of
        // this very engine.
        let c = unsafe { wasmtime::component::Component::deserialize_file(&engine, &file) }
            .map_err(fail)?;
        des.push(us(t.elapsed()));
        drop(c);
    }
    let _ = std::fs::remove_file(&file);
    drop(engine);

    // Instantiation through the runtime the library uses.
    let rt = Runtime::new(flags.component.as_deref(), limits)
        .map_err(|e| Failure::from(engram_host::Error::from(e)))?;
    let principal = engram_host::tenant_principal(workload::TENANT);
    let mut backend: Box<dyn Backend> =
        Box::new(SqliteStore::open_in_memory().map_err(store_fail)?);
    let mut inst = Vec::with_capacity(plan.instantiate_runs);
    let mut teardown = Vec::with_capacity(plan.instantiate_runs);
    for _ in 0..plan.instantiate_runs {
        let t = Instant::now();
        let mut store = rt.new_store(
            ScopedStore {
                principal: principal.clone(),
                backend,
            },
            Clock::Fixed(workload::now()),
        );
        let policy = rt.instantiate(&mut store);
        inst.push(us(t.elapsed()));
        policy.map_err(|e| fail(e.to_string()))?;
        let t = Instant::now();
        backend = store.into_data().store.backend;
        teardown.push(us(t.elapsed()));
    }
    // One real call on a fresh instance: what a request pays end to end.
    let mut calls = Vec::new();
    for _ in 0..plan.deserialize_runs {
        let t = Instant::now();
        let (b, r) = rt.call(
            backend,
            principal.clone(),
            Clock::Fixed(workload::now()),
            |p, s| p.engram_memory_policy().call_info(s),
        );
        backend = b;
        r.map_err(|e| fail(e.to_string()))?;
        calls.push(us(t.elapsed()));
    }
    let compiles = sorted(compiles);
    let des = sorted(des);
    let inst = sorted(inst);
    let teardown = sorted(teardown);
    let calls = sorted(calls);
    Ok(Startup {
        component_bytes: bytes.len(),
        compile_ms: pct(&compiles, 0.5),
        deserialize_us: pct(&des, 0.5),
        instantiate_us: pct(&inst, 0.5),
        details: json!({
            "compile_runs": compiles.len(),
            "deserialize_runs": des.len(),
            "deserialize_p95_us": round(pct(&des, 0.95), 1),
            "instantiate_runs": inst.len(),
            "instantiate_p95_us": round(pct(&inst, 0.95), 1),
            "teardown_p50_us": round(pct(&teardown, 0.5), 1),
            "info_call_p50_us": round(pct(&calls, 0.5), 1),
            "compiled_bytes": compiled.len(),
        }),
    })
}

// ------------------------------------------------------------------ remember

struct Remember {
    batched_per_s: Option<f64>,
    single_per_s: Option<f64>,
    details: Value,
}

#[derive(Default)]
struct Tally {
    dispositions: std::collections::BTreeMap<&'static str, u64>,
    actions: std::collections::BTreeMap<&'static str, u64>,
}

impl Tally {
    fn add(&mut self, d: &w::Decision) {
        let disp = match d.disposition {
            w::Disposition::Active => "active",
            w::Disposition::Pending => "pending",
            w::Disposition::Working => "working",
            w::Disposition::Rejected => "rejected",
        };
        let act = match d.action {
            w::WriteAction::Created => "created",
            w::WriteAction::Superseded => "superseded",
            w::WriteAction::Duplicate => "duplicate",
            w::WriteAction::Conflicted => "conflicted",
            w::WriteAction::None => "none",
        };
        *self.dispositions.entry(disp).or_default() += 1;
        *self.actions.entry(act).or_default() += 1;
    }
    fn json(&self) -> Value {
        json!({"dispositions": self.dispositions, "actions": self.actions})
    }
}

fn remember_throughput(
    flags: &Flags,
    plan: &Plan,
    scratch: &Scratch,
    limits: Limits,
) -> Result<Remember, Failure> {
    let principal = engram_host::tenant_principal(workload::WRITE_TENANT);

    // Batched: `batch_size` candidates per call, one transaction per call.
    note(format!(
        "remember: {} candidates, {} per call",
        plan.batched, plan.batch_size
    ));
    let (mut engram, time) = open_engram(flags, &scratch.db("remember-batched"), limits)?;
    let mut tally = Tally::default();
    let mut busy = Duration::ZERO;
    let mut cpu_us = 0.0;
    let mut i = 0u64;
    let mut next_note = plan.batched / 5;
    while i < plan.batched {
        let n = plan.batch_size.min(plan.batched - i);
        let chunk: Vec<w::Candidate> = (i..i + n)
            .map(|k| workload::candidate(plan.seed, k))
            .collect();
        // Writes are spread over time, as a live agent's are (per-scope
        // write-rate limits are counted per minute).
        advance(&mut engram, 61_000);
        let c0 = thread_cpu_us();
        let t = Instant::now();
        let decisions = engram.remember(principal.clone(), chunk)?;
        busy += t.elapsed();
        cpu_us += thread_cpu_us() - c0;
        decisions.iter().for_each(|d| tally.add(d));
        i += n;
        if i >= next_note && i < plan.batched {
            note(format!("remember: {i}/{}", plan.batched));
            next_note += plan.batched / 5;
        }
    }
    let batched_per_s = plan.batched as f64 / busy.as_secs_f64().max(1e-9);
    let batched_per_cpu_s = plan.batched as f64 / (cpu_us / 1e6).max(1e-9);
    let batched_store_share = time.ns() as f64 / busy.as_nanos().max(1) as f64;
    let batched_tally = tally.json();
    let batched_store = store_breakdown(
        &[],
        &time.per_method(),
        plan.batched.div_ceil(plan.batch_size),
    );
    drop(engram);

    // Single: one call, one transaction, per candidate.
    note(format!(
        "remember: {} candidates, one per call",
        plan.single
    ));
    let (mut engram, time) = open_engram(flags, &scratch.db("remember-single"), limits)?;
    let mut tally = Tally::default();
    let mut lat = Vec::with_capacity(plan.single as usize);
    let mut busy = Duration::ZERO;
    let mut cpu_us = 0.0;
    for k in 0..plan.single {
        let c = workload::candidate(plan.seed, k);
        advance(&mut engram, 250);
        let c0 = thread_cpu_us();
        let t = Instant::now();
        let decisions = engram.remember(principal.clone(), vec![c])?;
        let d = t.elapsed();
        cpu_us += thread_cpu_us() - c0;
        busy += d;
        lat.push(us(d));
        decisions.iter().for_each(|d| tally.add(d));
    }
    let single_per_s = plan.single as f64 / busy.as_secs_f64().max(1e-9);
    let single_per_cpu_s = plan.single as f64 / (cpu_us / 1e6).max(1e-9);
    let single_store_share = time.ns() as f64 / busy.as_nanos().max(1) as f64;
    let single_store = store_breakdown(&[], &time.per_method(), plan.single);
    let lat = sorted(lat);
    Ok(Remember {
        batched_per_s: Some(batched_per_s),
        single_per_s: Some(single_per_s),
        details: json!({
            "batched": {
                "candidates": plan.batched,
                "per_call": plan.batch_size,
                "seconds": round(plan.batched as f64 / batched_per_s, 3),
                "per_cpu_s": round(batched_per_cpu_s, 0),
                "store_share": round(batched_store_share, 3),
                "store_per_call": batched_store,
                "outcomes": batched_tally,
            },
            "single": {
                "candidates": plan.single,
                "p50_us": round(pct(&lat, 0.5), 1),
                "p95_us": round(pct(&lat, 0.95), 1),
                "per_cpu_s": round(single_per_cpu_s, 0),
                "store_share": round(single_store_share, 3),
                "store_per_call": single_store,
                "outcomes": tally.json(),
            },
        }),
    })
}

// ------------------------------------------------------------------ erasure

/// What secure deletion costs: the same remembers and forgets (one call
/// each) with `secure_delete` on, as shipped, and off, side by side in one
/// run. Forgets also pay the truncating checkpoint (on both sides, since
/// it is part of the erasing commit).
fn erasure_cost(
    flags: &Flags,
    plan: &Plan,
    scratch: &Scratch,
    limits: Limits,
) -> Result<Value, Failure> {
    let n = (plan.single / 4).max(20);
    note(format!(
        "erasure: {n} remembers and {n} forgets, secure_delete on and off"
    ));
    let principal = engram_host::tenant_principal(workload::WRITE_TENANT);
    let mut sides = serde_json::Map::new();
    let mut p50 = [0.0f64; 4];
    for (side, secure) in [("secure_delete_on", true), ("secure_delete_off", false)] {
        let store = open_sqlite(&scratch.db(&format!("erasure-{side}")))?;
        let store = if secure {
            store
        } else {
            store
                .without_secure_delete_for_bench()
                .map_err(store_fail)?
        };
        let mut engram = Engram::with_backend(
            Box::new(store),
            Options {
                component: flags.component.clone(),
                limits,
                now: Some(workload::now()),
                ..Options::default()
            },
        )?;
        let (mut remember_us, mut forget_us, mut ids) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..n * 2 {
            advance(&mut engram, 250);
            let t = Instant::now();
            let d = engram.remember(principal.clone(), vec![workload::candidate(plan.seed, k)])?;
            remember_us.push(us(t.elapsed()));
            ids.extend(d.into_iter().filter_map(|d| d.memory_id));
        }
        // A memory superseded later in the run is one id: forget it once.
        let mut seen = std::collections::BTreeSet::new();
        ids.retain(|id| seen.insert(id.clone()));
        for id in ids.iter().take(n as usize) {
            let t = Instant::now();
            engram.forget(
                principal.clone(),
                vec![w::ForgetSelector::MemoryId(id.clone())],
            )?;
            forget_us.push(us(t.elapsed()));
        }
        let (r, f) = (sorted(remember_us), sorted(forget_us));
        let at = if secure { 0 } else { 2 };
        p50[at] = pct(&r, 0.5);
        p50[at + 1] = pct(&f, 0.5);
        sides.insert(
            side.to_string(),
            json!({
                "remember_p50_us": round(pct(&r, 0.5), 1),
                "remember_p95_us": round(pct(&r, 0.95), 1),
                "forget_p50_us": round(pct(&f, 0.5), 1),
                "forget_p95_us": round(pct(&f, 0.95), 1),
                "forgets": f.len(),
            }),
        );
    }
    sides.insert(
        "remember_ratio".into(),
        json!(round(p50[0] / p50[2].max(1e-9), 3)),
    );
    sides.insert(
        "forget_ratio".into(),
        json!(round(p50[1] / p50[3].max(1e-9), 3)),
    );
    Ok(Value::Object(sides))
}

// ------------------------------------------------------------------ recall

struct Scale {
    recall: Value,
    pack_p50_us: Option<f64>,
    pack_details: Value,
    ratio: Option<f64>,
    ratio_details: Value,
    rss_mb: f64,
    memory_details: Value,
}

/// The hard filter a recall in the corpus's scope pushes down at `now`.
fn recall_filter(now: w::Datetime) -> w::Filter {
    w::Filter {
        scope: workload::scope(workload::TENANT, workload::USER),
        scope_match: w::ScopeMatch::Visible,
        kinds: Vec::new(),
        statuses: vec![w::Status::Active, w::Status::Conflicted],
        valid_at: Some(now),
        sensitivity_max: Some(w::Sensitivity::Personal),
        subject: None,
        predicate: None,
        condition: None,
        source_ref: None,
        exclude_archived: true,
    }
}

/// Row counts of the corpus, straight from the database file, and the
/// store's document count for a recall (kept by triggers) next to a direct
/// count of the same rows: they must agree.
fn corpus_counts(path: &Path, now: w::Datetime) -> Value {
    let Ok(conn) = rusqlite::Connection::open(path) else {
        return Value::Null;
    };
    let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap_or(-1) };
    let direct: i64 = conn
        .query_row(
            "SELECT count(*) FROM memories WHERE tenant = ?1 AND (user IS NULL OR user = ?2)
             AND project IS NULL AND thread IS NULL AND agent IS NULL
             AND status IN ('active', 'conflicted') AND sensitivity <= 2
             AND (valid_from IS NULL OR valid_from <= ?3) AND (valid_to IS NULL OR valid_to > ?3)",
            rusqlite::params![workload::TENANT, workload::USER, now.epoch_ms],
            |r| r.get(0),
        )
        .unwrap_or(-1);
    let via_stats = SqliteStore::open(path)
        .and_then(|mut s| s.stats(&recall_filter(now), &[]))
        .map(|t| t.documents as i64)
        .unwrap_or(-1);
    let mut by_status = serde_json::Map::new();
    if let Ok(mut st) =
        conn.prepare("SELECT status, count(*) FROM memories GROUP BY status ORDER BY status")
    {
        if let Ok(rows) = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))) {
            for (s, n) in rows.flatten() {
                by_status.insert(s, json!(n));
            }
        }
    }
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(format!("{}-wal", path.display()))
            .map(|m| m.len())
            .unwrap_or(0);
    json!({
        "revisions": q("SELECT count(*) FROM memories"),
        "memory_ids": q("SELECT count(DISTINCT id) FROM memories"),
        "max_revision": q("SELECT ifnull(max(revision), 0) FROM memories"),
        "postings": q("SELECT count(*) FROM postings"),
        "by_status": by_status,
        "live_documents": direct,
        "live_documents_via_stats": via_stats,
        "db_mb": round(bytes as f64 / (1 << 20) as f64, 1),
    })
}

fn recall_at_scale(
    flags: &Flags,
    plan: &Plan,
    scratch: &Scratch,
    limits: Limits,
) -> Result<Scale, Failure> {
    let path = scratch.db("recall");
    let (mut engram, time) = open_engram(flags, &path, limits)?;
    let principal = engram_host::tenant_principal(workload::TENANT);
    let mut built = 0u64;
    let mut revised = 0u64;
    let mut rows = Vec::new();
    let mut pack = (None, Value::Null);
    let mut ratio = (None, Value::Null);
    let mut import_s = 0.0;
    let mut q_next = 0u64;
    // `host_rss_mb` is the RSS after the largest size up to 100k, as it
    // always was; a scaling run reports every size in its row.
    let mut rss_at_100k = 0.0;
    for &size in &plan.sizes {
        // Grow the corpus to `size` import records.
        note(format!("recall: importing {}..{size}", built));
        const CHUNK: u64 = 2000;
        let t = Instant::now();
        let step = ((size - built) / 5).max(CHUNK);
        let mut next_note = built + step;
        while built < size {
            let n = CHUNK.min(size - built);
            let records: Vec<w::ImportRecord> = (built..built + n)
                .map(|i| workload::import_record(plan.seed, i))
                .collect();
            engram.import(principal.clone(), records)?;
            built += n;
            if built >= next_note && built < size {
                note(format!("recall: imported {built}/{size}"));
                next_note += step;
            }
        }
        import_s += t.elapsed().as_secs_f64();
        // Restated preferences through `remember`: supersessions.
        let target = (size / 100).clamp(20, 2000);
        while revised < target {
            let n = (target - revised).min(500);
            let cands: Vec<w::Candidate> = (revised..revised + n)
                .map(|i| workload::revision(plan.seed, i))
                .collect();
            advance(&mut engram, 120_000);
            engram.remember(principal.clone(), cands)?;
            revised += n;
        }
        let counts = corpus_counts(&path, engram.clock.now());

        // Timed queries, one per call.
        note(format!("recall: {} queries at {size}", plan.queries));
        for k in 0..plan.warmup {
            engram.recall(
                principal.clone(),
                vec![workload::query(plan.seed, 10_000_000 + k)],
            )?;
        }
        let mut lat = Vec::with_capacity(plan.queries as usize);
        let mut store_ns = Vec::with_capacity(plan.queries as usize);
        let mut cands = Vec::with_capacity(plan.queries as usize);
        let mut cpu = Vec::with_capacity(plan.queries as usize);
        let mut empty = 0u64;
        let reads0 = engram.records_read();
        let per0 = time.per_method();
        for _ in 0..plan.queries {
            let q = workload::query(plan.seed, q_next);
            q_next += 1;
            let s0 = time.ns();
            let c0 = thread_cpu_us();
            let t = Instant::now();
            let r = engram.recall(principal.clone(), vec![q])?;
            lat.push(us(t.elapsed()));
            cpu.push(thread_cpu_us() - c0);
            store_ns.push((time.ns() - s0) as f64 / 1e3);
            let r = r
                .into_iter()
                .next()
                .ok_or_else(|| fail("recall returned no result"))?;
            if r.results.is_empty() {
                empty += 1;
            }
            cands.push(r.candidates_read as f64);
        }
        let reads = engram.records_read() - reads0;
        let per_query = store_breakdown(&per0, &time.per_method(), plan.queries);
        let remember_here = remember_at_size(&mut engram, plan, size)?;
        let rss_here = proc_status_mb()["VmRSS"].as_f64().unwrap_or(0.0);
        let lat = sorted(lat);
        let store_ns = sorted(store_ns);
        let cands = sorted(cands);
        let cpu = sorted(cpu);
        rows.push(json!({
            "memories": size,
            "p50_us": round(pct(&lat, 0.5), 1),
            "p95_us": round(pct(&lat, 0.95), 1),
            "candidates_read": pct(&cands, 0.5) as u64,
            "candidates_read_max": pct(&cands, 1.0) as u64,
            "records_read_per_query": round(reads as f64 / plan.queries as f64, 1),
            "cpu_p50_us": round(pct(&cpu, 0.5), 1),
            "cpu_p95_us": round(pct(&cpu, 0.95), 1),
            "store_p50_us": round(pct(&store_ns, 0.5), 1),
            "store_per_query": per_query,
            "queries": plan.queries,
            "queries_without_results": empty,
            "remember_per_s": remember_here.0.map(|x| round(x, 0)),
            "remember": remember_here.1,
            "rss_mb": round(rss_here, 1),
            "corpus": counts,
        }));
        if size <= 100_000 {
            rss_at_100k = rss_here;
        }
        note(format!(
            "recall @ {size}: p50 {:.0} µs, p95 {:.0} µs",
            pct(&lat, 0.5),
            pct(&lat, 0.95)
        ));

        if size == plan.mid_size && plan.pack {
            let (p50, d) = pack_bench(&mut engram, plan, size)?;
            pack = (Some(p50), d);
        }
        if size == plan.mid_size && plan.ratio {
            let (r, d) = wasm_native(&engram, plan, &path)?;
            ratio = (Some(r), d);
        }
    }
    let memory = proc_status_mb();
    Ok(Scale {
        recall: Value::Array(rows),
        pack_p50_us: pack.0,
        pack_details: pack.1,
        ratio: ratio.0,
        ratio_details: ratio.1,
        rss_mb: rss_at_100k,
        memory_details: json!({
            "at_memories": plan.sizes.last(),
            "proc_status_mb": memory,
            "import_seconds": round(import_s, 2),
            "import_per_s": round(built as f64 / import_s.max(1e-9), 0),
        }),
    })
}

/// Batched remembers into the recall database once it holds `size`
/// memories: the write cost against a file (and posting B-trees) of that
/// size. In `WRITE_TENANT`, so the recall scope is unchanged; candidates
/// continue one stream across sizes. Candidates per second and the store's
/// share of the time.
fn remember_at_size(
    engram: &mut Engram,
    plan: &Plan,
    size: u64,
) -> Result<(Option<f64>, Value), Failure> {
    if plan.remember_at_size == 0 {
        return Ok((None, Value::Null));
    }
    note(format!(
        "recall: {} remembers at {size}",
        plan.remember_at_size
    ));
    let principal = engram_host::tenant_principal(workload::WRITE_TENANT);
    // Past the throughput run's candidates, and distinct for every size.
    let first = 1_000_000_000 + size;
    let (mut busy, mut cpu_us, mut done) = (Duration::ZERO, 0.0, 0u64);
    while done < plan.remember_at_size {
        let n = plan.batch_size.min(plan.remember_at_size - done);
        let chunk: Vec<w::Candidate> = (done..done + n)
            .map(|k| workload::candidate(plan.seed, first + k))
            .collect();
        advance(engram, 61_000);
        let c0 = thread_cpu_us();
        let t = Instant::now();
        engram.remember(principal.clone(), chunk)?;
        busy += t.elapsed();
        cpu_us += thread_cpu_us() - c0;
        done += n;
    }
    let per_s = done as f64 / busy.as_secs_f64().max(1e-9);
    Ok((
        Some(per_s),
        json!({
            "candidates": done,
            "per_call": plan.batch_size,
            "per_cpu_s": round(done as f64 / (cpu_us / 1e6).max(1e-9), 0),
        }),
    ))
}

fn pack_bench(engram: &mut Engram, plan: &Plan, size: u64) -> Result<(f64, Value), Failure> {
    note(format!("pack: {} requests at {size}", plan.pack_requests));
    let principal = engram_host::tenant_principal(workload::TENANT);
    for k in 0..plan.warmup.min(10) {
        engram.pack(
            principal.clone(),
            workload::pack_request(plan.seed, 1_000_000 + k),
        )?;
    }
    let mut lat = Vec::new();
    let mut tokens = Vec::new();
    for k in 0..plan.pack_requests {
        let req = workload::pack_request(plan.seed, k);
        let t = Instant::now();
        let p = engram.pack(principal.clone(), req)?;
        lat.push(us(t.elapsed()));
        tokens.push(p.tokens as f64);
    }
    let lat = sorted(lat);
    let tokens = sorted(tokens);
    Ok((
        pct(&lat, 0.5),
        json!({
            "memories": size,
            "requests": plan.pack_requests,
            "budget": 2000,
            "p95_us": round(pct(&lat, 0.95), 1),
            "tokens_p50": pct(&tokens, 0.5),
        }),
    ))
}

// ------------------------------------------------------------------ wasm vs native

/// Accumulated times of one workload on both sides.
#[derive(Default)]
struct Side {
    wall_ns: u64,
    store_ns: u64,
}

impl Side {
    fn policy_ns(&self) -> u64 {
        self.wall_ns.saturating_sub(self.store_ns)
    }
}

#[derive(Default)]
struct Pair {
    wasm: Side,
    native: Side,
    items: u64,
    agree: u64,
}

impl Pair {
    fn ratio(&self) -> f64 {
        self.wasm.policy_ns() as f64 / self.native.policy_ns().max(1) as f64
    }
    fn json(&self, unit: &str) -> Value {
        let per = |ns: u64| round(ns as f64 / 1e3 / self.items.max(1) as f64, 1);
        let mut v = json!({
            "ratio": round(self.ratio(), 3),
            "end_to_end_ratio": round(self.wasm.wall_ns as f64 / self.native.wall_ns.max(1) as f64, 3),
            "wasm_policy_us": per(self.wasm.policy_ns()),
            "native_policy_us": per(self.native.policy_ns()),
            "wasm_store_us": per(self.wasm.store_ns),
            "native_store_us": per(self.native.store_ns),
            "same_results": round(self.agree as f64 / self.items.max(1) as f64, 3),
        });
        v[unit] = json!(self.items);
        v
    }
}

/// Run the ranking and classification code inside the component and
/// natively, interleaved item by item, against the same SQLite file.
fn wasm_native(engram: &Engram, plan: &Plan, path: &Path) -> Result<(f64, Value), Failure> {
    note(format!(
        "wasm/native: {} queries and {} candidates, {} round(s)",
        plan.ratio_queries, plan.ratio_candidates, plan.ratio_rounds
    ));
    let rt = engram.runtime();
    let principal = engram_host::tenant_principal(workload::TENANT);
    let now = engram.clock.now();
    let (wasm_backend, wasm_time) = TimedBackend::new(Box::new(open_sqlite(path)?));
    let mut wasm_backend: Box<dyn Backend> = Box::new(wasm_backend);
    let native = NativeStore::new(principal.clone(), Box::new(open_sqlite(path)?));
    let native_clock = engram_guest::core::store::FixedClock(now.cv());

    let queries: Vec<w::Query> = (0..plan.ratio_queries)
        .map(|i| workload::query(plan.seed, 20_000_000 + i))
        .collect();
    let candidates: Vec<Vec<w::Candidate>> = (0..plan.ratio_candidates)
        .map(|i| {
            let mut c = workload::candidate(plan.seed, 30_000_000 + i);
            c.scope = workload::scope(workload::TENANT, workload::USER);
            c
        })
        .collect::<Vec<_>>()
        .chunks(50)
        .map(<[w::Candidate]>::to_vec)
        .collect();

    let mut rank = Pair::default();
    let mut class = Pair::default();

    // One call inside the component, on a fresh instance (instantiation is
    // not counted: it is `instantiate_us`), store time subtracted.
    macro_rules! in_wasm {
        ($side:expr, |$p:ident, $s:ident| $call:expr) => {{
            let mut $s = rt.new_store(
                ScopedStore {
                    principal: principal.clone(),
                    backend: wasm_backend,
                },
                Clock::Fixed(now),
            );
            let inst = rt.instantiate(&mut $s);
            let s0 = wasm_time.ns();
            let t = Instant::now();
            let r = match &inst {
                Ok($p) => $call.map_err(|e| fail(format!("{e:#}"))),
                Err(e) => Err(fail(e.to_string())),
            };
            $side.wall_ns += t.elapsed().as_nanos() as u64;
            $side.store_ns += wasm_time.ns() - s0;
            wasm_backend = $s.into_data().store.backend;
            r?.map_err(|e| fail(engram_host::describe_policy_error(&e)))?
        }};
    }
    macro_rules! native {
        ($side:expr, |$ctx:ident| $call:expr) => {{
            let s0 = native.ns();
            let t = Instant::now();
            // The component builds its configuration on every call too.
            let policy = engram_guest::core::config::Policy::default();
            let $ctx = engram_guest::core::api::Ctx {
                store: &native,
                clock: &native_clock,
                policy: &policy,
            };
            let r = $call;
            $side.wall_ns += t.elapsed().as_nanos() as u64;
            $side.store_ns += native.ns() - s0;
            r.map_err(|e| fail(format!("native: {e:?}")))?
        }};
    }

    for _round in 0..plan.ratio_rounds {
        for q in &queries {
            let gq: engram_guest::types::Query = q.clone().cv();
            let a = in_wasm!(rank.wasm, |p, s| p
                .engram_memory_policy()
                .call_recall(&mut s, std::slice::from_ref(q)));
            let b = native!(rank.native, |ctx| engram_guest::read::recall::recall(
                &ctx,
                std::slice::from_ref(&gq)
            ));
            rank.items += 1;
            let ids_a: Vec<(String, u32)> = a
                .iter()
                .flat_map(|r| r.results.iter())
                .map(|s| (s.memory.id.clone(), s.memory.revision))
                .collect();
            let ids_b: Vec<(String, u32)> = b
                .iter()
                .flat_map(|r| r.results.iter())
                .map(|s| (s.memory.id.clone(), s.memory.revision))
                .collect();
            if ids_a == ids_b {
                rank.agree += 1;
            }
        }
        for batch in &candidates {
            let gb: Vec<engram_guest::types::Candidate> = batch.clone().cv();
            let a = in_wasm!(class.wasm, |p, s| p
                .engram_memory_policy()
                .call_classify(&mut s, batch));
            let b = native!(class.native, |ctx| engram_guest::write::remember::classify(
                &ctx, &gb
            ));
            class.items += batch.len() as u64;
            class.agree += a
                .iter()
                .zip(&b)
                .filter(|(x, y)| x.disposition.cv() == y.disposition && x.kind.cv() == y.kind)
                .count() as u64;
        }
    }
    let total_wasm = rank.wasm.policy_ns() + class.wasm.policy_ns();
    let total_native = rank.native.policy_ns() + class.native.policy_ns();
    let ratio = total_wasm as f64 / total_native.max(1) as f64;
    note(format!(
        "wasm/native: ranking {:.2}×, classification {:.2}×, overall {:.2}×",
        rank.ratio(),
        class.ratio(),
        ratio
    ));
    Ok((
        ratio,
        json!({
            "memories": plan.mid_size,
            "rounds": plan.ratio_rounds,
            "ranking": rank.json("queries"),
            "classification": class.json("candidates"),
            "method": "policy time = wall time of the call minus time inside the store (same SQLite file on both sides); wasm side excludes instantiation (see instantiate_us) but includes the canonical-ABI copies; native side is the guest crate compiled with the host's release profile",
        }),
    ))
}
