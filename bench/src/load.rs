//! `engram-bench load-test`: load on a spawned `engram serve`, measured.
//!
//! Seeds a store with the benchmark's synthetic corpus (`workload`, 10 000
//! records by default), makes an API key, starts `engram serve` on a free
//! loopback port as a separate process, and runs N client threads, each
//! sending one request at a time: `--write-share` % remember (one
//! candidate), the rest recall (one query, k = 10). Bounded in requests and
//! in seconds; loopback only. Reports throughput, p50/p95/p99 latency per
//! operation and the error count, next to the CLI's cost per process for
//! the same single remember and recall (a fresh `engram` per call).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Value};

use crate::workload;
use engram_cli::failure::Failure;
use engram_cli::flags::Flags;
use engram_cli::serve::keys;
use engram_contract::wire;
use engram_host::bindings as w;

#[derive(Args, Debug, Clone)]
pub struct LoadArgs {
    /// Records in the seeded store.
    #[arg(long, default_value_t = 10_000)]
    pub memories: u64,
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    pub clients: usize,
    /// Stop after this many requests in all…
    #[arg(long, default_value_t = 20_000)]
    pub requests: u64,
    /// …or after this many seconds, whichever comes first.
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
    /// Percentage of requests that are remember (the rest recall).
    #[arg(long, default_value_t = 20)]
    pub write_share: u64,
    /// Fresh `engram` processes per command timed for the CLI comparison.
    #[arg(long, default_value_t = 10)]
    pub cli_runs: usize,
    /// Directory for the database and key file (default: a fresh temporary one).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Seed of the synthetic workload.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

/// Latencies of one operation, in microseconds.
#[derive(Default)]
struct Samples {
    micros: Vec<u64>,
    errors: u64,
    first_error: Option<String>,
}

impl Samples {
    fn merge(&mut self, other: Samples) {
        self.micros.extend(other.micros);
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    fn summary(&mut self, seconds: f64) -> Value {
        self.micros.sort_unstable();
        let pct = |p: f64| -> f64 {
            if self.micros.is_empty() {
                return 0.0;
            }
            let i = ((self.micros.len() as f64 * p).ceil() as usize).clamp(1, self.micros.len());
            self.micros[i - 1] as f64 / 1000.0
        };
        json!({
            "requests": self.micros.len() as u64 + self.errors,
            "errors": self.errors,
            "first_error": self.first_error,
            "per_sec": self.micros.len() as f64 / seconds.max(1e-9),
            "p50_ms": pct(0.50), "p95_ms": pct(0.95), "p99_ms": pct(0.99),
        })
    }
}

/// The `engram serve` child, stopped with SIGTERM when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the pid of our own child process.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// One load test with `args`, its report on `out`; `engram` is the program
/// it serves with and times (`program::engram`).
pub fn run(
    flags: &Flags,
    args: &LoadArgs,
    engram: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let engram = crate::program::engram(engram)?;
    let dir = match &args.dir {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!("engram-load-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).map_err(|e| Failure::input(format!("{}: {e}", dir.display())))?;
    let db = dir.join("load.db").display().to_string();
    let key_file = dir.join("load.keys");
    for f in [db.clone(), format!("{db}-wal"), format!("{db}-shm")] {
        let _ = std::fs::remove_file(f);
    }
    let _ = std::fs::remove_file(&key_file);

    let t = Instant::now();
    seed(flags, &db, args)?;
    eprintln!(
        "load-test: seeded {} records in {:.1?}",
        args.memories,
        t.elapsed()
    );
    let key = keys::add(&key_file, workload::TENANT, None, None)?;

    let server = start_server(&engram, &db, &key_file)?;
    let (seconds, mut remember, mut recall) = drive(&server.base, &key, args);
    drop(server);
    let cli = cli_cost(&engram, &db, args)?;

    let total = remember.micros.len() as u64 + recall.micros.len() as u64;
    let errors = remember.errors + recall.errors;
    let report = json!({
        "memories": args.memories,
        "clients": args.clients,
        "write_share_pct": args.write_share,
        "seconds": seconds,
        "requests": total + errors,
        "errors": errors,
        "throughput_per_sec": total as f64 / seconds.max(1e-9),
        "remember": remember.summary(seconds),
        "recall": recall.summary(seconds),
        "cli_per_process_ms": cli,
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    });
    let text = if args.json {
        report.to_string()
    } else {
        table(&report)
    };
    writeln!(out, "{text}").map_err(|e| Failure::input(format!("writing stdout: {e}")))?;
    if args.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if errors > 0 {
        return Err(Failure::input(format!(
            "load-test: {errors} requests failed"
        )));
    }
    Ok(())
}

/// The recall corpus, imported through the library in one transaction.
fn seed(flags: &Flags, db: &str, args: &LoadArgs) -> Result<(), Failure> {
    let mut engram = flags.open(db)?;
    let p = engram_host::tenant_principal(workload::TENANT);
    engram.begin_batch()?;
    let mut i = 0;
    while i < args.memories {
        let end = (i + 2000).min(args.memories);
        let records: Vec<w::ImportRecord> = (i..end)
            .map(|j| workload::import_record(args.seed, j))
            .collect();
        if let Err(e) = engram.import(p.clone(), records) {
            let _ = engram.finish_batch(false);
            return Err(e.into());
        }
        i = end;
    }
    engram.finish_batch(true)?;
    Ok(())
}

fn start_server(exe: &Path, db: &str, key_file: &Path) -> Result<Server, Failure> {
    let mut child = Command::new(exe)
        .args(["serve", "--db", db, "--listen", "127.0.0.1:0", "--keys"])
        .arg(key_file)
        .args(["--rate-per-sec", "1000000", "--rate-burst", "1000000"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::input(format!("load-test: starting engram serve: {e}")))?;
    let stderr = child.stderr.take();
    let mut lines =
        BufReader::new(stderr.ok_or_else(|| Failure::input("load-test: no stderr"))?).lines();
    let base = loop {
        match lines.next() {
            Some(Ok(line)) => {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    break rest.split_whitespace().next().unwrap_or("").to_string();
                }
            }
            _ => {
                let _ = child.kill();
                return Err(Failure::input(
                    "load-test: engram serve exited before listening",
                ));
            }
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Ok(Server { child, base })
}

/// Run the clients; returns the elapsed seconds and the samples per operation.
fn drive(base: &str, key: &str, args: &LoadArgs) -> (f64, Samples, Samples) {
    let issued = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(args.seconds.max(1));
    let start = Instant::now();
    let workers: Vec<_> = (0..args.clients.max(1))
        .map(|_| {
            let issued = Arc::clone(&issued);
            let base = base.to_string();
            let auth = format!("Bearer {key}");
            let (limit, share, seed) = (args.requests, args.write_share, args.seed);
            std::thread::spawn(move || client(&base, &auth, &issued, limit, deadline, share, seed))
        })
        .collect();
    let mut remember = Samples::default();
    let mut recall = Samples::default();
    for wkr in workers {
        if let Ok((a, b)) = wkr.join() {
            remember.merge(a);
            recall.merge(b);
        }
    }
    (start.elapsed().as_secs_f64(), remember, recall)
}

/// One client: one request at a time until the shared budget or the deadline.
fn client(
    base: &str,
    auth: &str,
    issued: &AtomicU64,
    limit: u64,
    deadline: Instant,
    write_share: u64,
    seed: u64,
) -> (Samples, Samples) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into();
    let mut remember = Samples::default();
    let mut recall = Samples::default();
    loop {
        let i = issued.fetch_add(1, Ordering::Relaxed);
        if i >= limit || Instant::now() >= deadline {
            break;
        }
        let writing = (i * 7919) % 100 < write_share;
        let (path, body, samples) = if writing {
            let mut c = workload::candidate(seed, i);
            c.scope = workload::scope(workload::TENANT, workload::USER);
            let v = json!([wire::CandidateIn::from(c)]);
            ("/v1/remember", v, &mut remember)
        } else {
            let v = json!([wire::QueryIn::from(workload::query(seed, i))]);
            ("/v1/recall", v, &mut recall)
        };
        let t = Instant::now();
        let r = agent
            .post(format!("{base}{path}"))
            .header("Authorization", auth)
            .content_type("application/json")
            .send(body.to_string());
        let outcome = match r {
            Ok(mut resp) => {
                let status = resp.status().as_u16();
                let text = resp
                    .body_mut()
                    .with_config()
                    .limit(64 << 20)
                    .read_to_string();
                match (status, text) {
                    (200, Ok(_)) => Ok(()),
                    (s, Ok(t)) => Err(format!("{path}: HTTP {s}: {t}")),
                    (s, Err(e)) => Err(format!("{path}: HTTP {s}: {e}")),
                }
            }
            Err(e) => Err(format!("{path}: {e}")),
        };
        match outcome {
            Ok(()) => samples.micros.push(t.elapsed().as_micros() as u64),
            Err(m) => {
                samples.errors += 1;
                samples.first_error.get_or_insert(m);
            }
        }
    }
    (remember, recall)
}

/// Wall time of a fresh `engram remember` / `engram recall` process with
/// one input line each, on the same store (after the server stopped).
fn cli_cost(exe: &Path, db: &str, args: &LoadArgs) -> Result<Value, Failure> {
    let mut times = json!({});
    for (name, cmd) in [("remember", "remember"), ("recall", "recall")] {
        let mut ms = Vec::new();
        for i in 0..args.cli_runs as u64 {
            let n = 1_000_000 + i;
            let line = if cmd == "remember" {
                let mut c = workload::candidate(args.seed, n);
                c.scope = workload::scope(workload::TENANT, workload::USER);
                serde_json::to_string(&wire::CandidateIn::from(c))
            } else {
                serde_json::to_string(&wire::QueryIn::from(workload::query(args.seed, n)))
            }
            .map_err(|e| Failure::input(e.to_string()))?;
            let t = Instant::now();
            let mut child = Command::new(exe)
                .args([cmd, "--db", db, "--tenant", workload::TENANT])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| Failure::input(format!("load-test: engram {cmd}: {e}")))?;
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(line.as_bytes());
            }
            let o = child
                .wait_with_output()
                .map_err(|e| Failure::input(format!("load-test: engram {cmd}: {e}")))?;
            if !o.status.success() {
                return Err(Failure::input(format!(
                    "load-test: engram {cmd} failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                )));
            }
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        ms.sort_by(f64::total_cmp);
        let mean = ms.iter().sum::<f64>() / ms.len().max(1) as f64;
        let p50 = ms.get(ms.len() / 2).copied().unwrap_or(0.0);
        times[name] = json!({"runs": ms.len(), "mean_ms": mean, "p50_ms": p50});
    }
    Ok(times)
}

fn table(r: &Value) -> String {
    let f = |v: &Value| v.as_f64().unwrap_or(0.0);
    let mut s = format!(
        "engram serve under load: {} memories, {} clients, {} % remember, {} cores\n\
         {} requests in {:.1} s: {:.0} requests/s, {} errors\n\n\
         op        requests   per s    p50 ms   p95 ms   p99 ms   errors\n",
        r["memories"],
        r["clients"],
        r["write_share_pct"],
        r["cores"],
        r["requests"],
        f(&r["seconds"]),
        f(&r["throughput_per_sec"]),
        r["errors"]
    );
    for op in ["remember", "recall"] {
        let o = &r[op];
        s.push_str(&format!(
            "{op:<9} {:>8} {:>8.0} {:>8.2} {:>8.2} {:>8.2} {:>8}\n",
            o["requests"],
            f(&o["per_sec"]),
            f(&o["p50_ms"]),
            f(&o["p95_ms"]),
            f(&o["p99_ms"]),
            o["errors"]
        ));
    }
    s.push_str("\nthe CLI, one fresh process per call (same store, one input line):\n");
    for op in ["remember", "recall"] {
        let o = &r["cli_per_process_ms"][op];
        s.push_str(&format!(
            "{op:<9} mean {:.1} ms, p50 {:.1} ms over {} runs\n",
            f(&o["mean_ms"]),
            f(&o["p50_ms"]),
            o["runs"]
        ));
    }
    s
}
