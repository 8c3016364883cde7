//! What one `engram-bench` run measures and where: its arguments, the
//! effective plan (`--quick` shrinks every size) and the scratch directory
//! of its databases.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::measure::fail;
use engram_cli::failure::Failure;

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Print one JSON object (the field names are stable: tools read them).
    #[arg(long)]
    pub json: bool,
    /// Small sizes, for a CI smoke run under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Corpus sizes for recall, comma-separated (default 1000,10000,100000;
    /// --quick: 1000,3000; --scaling: 1000,10000,100000,1000000).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Option<Vec<u64>>,
    /// The scaling curve: sizes up to 1M memories (a long run: the 1M
    /// corpus takes tens of minutes to build and ~4 GB of disk).
    #[arg(long)]
    pub scaling: bool,
    /// Candidates remembered (in calls of --batch-size) into the recall
    /// database at each corpus size, in a tenant of their own so the recall
    /// scope does not change (default 2000; --quick 200; 0 leaves it out).
    #[arg(long)]
    pub remember_at_size: Option<u64>,
    /// Candidates remembered in batches (default 20000; --quick 2000).
    #[arg(long)]
    pub batched: Option<u64>,
    /// Candidates per remember call in the batched run.
    #[arg(long, default_value_t = 1000)]
    pub batch_size: u64,
    /// Candidates remembered one call (one transaction) each (default 2000; --quick 200).
    #[arg(long)]
    pub single: Option<u64>,
    /// Timed queries per corpus size (default 300; --quick 40).
    #[arg(long)]
    pub queries: Option<u64>,
    /// Seed of the synthetic workload.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Corpus size at which pack and the wasm/native ratio are measured
    /// (default: the size nearest 10000).
    #[arg(long)]
    pub ratio_size: Option<u64>,
    /// Directory for the scratch databases (default: a fresh temporary one,
    /// removed afterwards).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Leave out phases (for profiling one of them): remember, erasure, pack, ratio.
    /// Their fields are then null.
    #[arg(long, value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Also measure this PostgreSQL server (`postgres://…`) next to SQLite
    /// with the same code: remember, recall at `--store-sizes`, and many
    /// writer processes (each phase in a scratch schema, dropped after).
    #[arg(long)]
    pub postgres: Option<String>,
    /// Corpus sizes of the side-by-side recall (default 10000,100000;
    /// --quick: 1000,3000).
    #[arg(long, value_delimiter = ',')]
    pub store_sizes: Option<Vec<u64>>,
    /// Writer processes of the side-by-side many-writers run.
    #[arg(long, default_value_t = 4)]
    pub writers: u64,
    /// Candidates each writer process remembers (one invocation).
    #[arg(long, default_value_t = 200)]
    pub writer_candidates: u64,
}

/// The effective plan of a run.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) quick: bool,
    pub(crate) remember: bool,
    pub(crate) erasure: bool,
    pub(crate) pack: bool,
    pub(crate) ratio: bool,
    pub(crate) seed: u64,
    pub(crate) sizes: Vec<u64>,
    pub(crate) batched: u64,
    pub(crate) batch_size: u64,
    pub(crate) single: u64,
    pub(crate) remember_at_size: u64,
    pub(crate) queries: u64,
    pub(crate) warmup: u64,
    pub(crate) mid_size: u64,
    pub(crate) pack_requests: u64,
    pub(crate) ratio_queries: u64,
    pub(crate) ratio_candidates: u64,
    pub(crate) ratio_rounds: u64,
    pub(crate) compile_runs: usize,
    pub(crate) deserialize_runs: usize,
    pub(crate) instantiate_runs: usize,
}

impl Plan {
    pub(crate) fn new(a: &BenchArgs) -> Plan {
        let q = a.quick;
        let mut sizes = a.sizes.clone().unwrap_or_else(|| {
            if q {
                vec![1000, 3000]
            } else if a.scaling {
                vec![1000, 10_000, 100_000, 1_000_000]
            } else {
                vec![1000, 10_000, 100_000]
            }
        });
        sizes.retain(|&n| n > 0);
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.is_empty() {
            sizes.push(1000);
        }
        let mid_size = a.ratio_size.unwrap_or(10_000);
        let mid_size = *sizes
            .iter()
            .min_by_key(|&&n| n.abs_diff(mid_size))
            .expect("sizes is not empty");
        let skip = |p: &str| a.skip.iter().any(|s| s.trim() == p);
        Plan {
            quick: q,
            remember: !skip("remember"),
            erasure: !skip("erasure"),
            pack: !skip("pack"),
            ratio: !skip("ratio"),
            seed: a.seed,
            sizes,
            batched: a.batched.unwrap_or(if q { 2000 } else { 20_000 }),
            batch_size: a.batch_size.max(1),
            single: a.single.unwrap_or(if q { 200 } else { 2000 }),
            remember_at_size: a.remember_at_size.unwrap_or(if q { 200 } else { 2000 }),
            queries: a.queries.unwrap_or(if q { 40 } else { 300 }).max(1),
            warmup: if q { 5 } else { 30 },
            mid_size,
            pack_requests: if q { 20 } else { 200 },
            ratio_queries: if q { 30 } else { 200 },
            ratio_candidates: if q { 200 } else { 2000 },
            ratio_rounds: if q { 1 } else { 3 },
            compile_runs: if q { 1 } else { 3 },
            deserialize_runs: if q { 5 } else { 30 },
            instantiate_runs: if q { 200 } else { 3000 },
        }
    }
}

/// The scratch directory: removed on drop unless the user chose it.
pub(crate) struct Scratch {
    pub(crate) dir: PathBuf,
    pub(crate) remove: bool,
}

impl Scratch {
    pub(crate) fn new(dir: Option<&Path>) -> Result<Scratch, Failure> {
        let (dir, remove) = match dir {
            Some(d) => (d.to_path_buf(), false),
            None => {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.subsec_nanos())
                    .unwrap_or(0);
                (
                    std::env::temp_dir()
                        .join(format!("engram-bench-{}-{nanos}", std::process::id())),
                    true,
                )
            }
        };
        std::fs::create_dir_all(&dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
        Ok(Scratch { dir, remove })
    }

    /// A fresh database path (any old file of that name is removed).
    pub(crate) fn db(&self, name: &str) -> PathBuf {
        let p = self.dir.join(format!("{name}.db"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
        }
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
