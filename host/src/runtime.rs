//! The wasmtime plumbing: one `Engine` and one `InstancePre` per process,
//! the compiled component cached on disk (keyed by the engine's
//! compatibility hash and the component's sha256), and a fresh `Store` per
//! request — after a trap wasmtime refuses to re-enter any instance of that
//! Store, and a fresh one is cheap (µs) with the pooling allocator.
//! Every call runs under an epoch deadline and a memory limit.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{
    Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, StoreLimits,
    StoreLimitsBuilder,
};

use crate::backend::{Backend, ScopedStore};
use crate::bindings::{MemoryPolicy, MemoryPolicyPre, Principal};
use crate::clock::Clock;

/// The component built from `guest/` by the build script.
pub static EMBEDDED_COMPONENT: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/engram_memory.wasm"));
/// Where the build script left a copy of it.
pub const COMPONENT_BUILD_PATH: &str = env!("ENGRAM_COMPONENT_BUILD_PATH");

/// How often the epoch ticks; deadlines are counted in ticks.
const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The most data (bytes) the component may hand the host in one store call
/// (wasmtime's "hostcall fuel", set explicitly so errors can name it).
pub const MAX_BYTES_PER_STORE_CALL: usize = 128 << 20;

/// Limits applied to every call into the guest.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock budget of one call.
    pub timeout: Duration,
    /// Linear memory the guest may grow to.
    pub memory_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(120),
            memory_bytes: 1 << 30,
        }
    }
}

/// What went wrong running the policy.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The component could not be read, compiled or instantiated.
    #[error("loading the component: {0}")]
    Load(String),
    /// The call ran past its time limit.
    #[error("the policy call ran past its time limit of {} s (--timeout-secs) and was stopped", .0.as_secs_f64())]
    Timeout(Duration),
    /// The call exceeded its memory limit (MiB).
    #[error("the policy call exceeded its memory limit of {0} MiB (--memory-mb) and was stopped")]
    OutOfMemory(usize),
    /// The component passed more than this many MiB to one store call.
    #[error("the policy component passed more than {0} MiB to the host in one store call and was stopped")]
    TooMuchData(usize),
    /// The component trapped (a bug or a hostile guest); the store is untouched.
    #[error("the policy component trapped: {0}")]
    Trap(String),
}

/// Per-request state: the scoped store, the clock and the limits.
pub struct HostState {
    /// The store handle of this request's principal.
    pub store: ScopedStore,
    /// The clock the policy reads.
    pub clock: Clock,
    limits: StoreLimits,
}

impl crate::bindings::engram::memory::clock::Host for HostState {
    fn now(&mut self) -> crate::bindings::Datetime {
        self.clock.now()
    }
}

/// Facts about the loaded component, for `engram info`.
#[derive(Debug, Clone)]
pub struct ComponentInfo {
    /// Where the component was loaded from (`embedded` for the built-in one).
    pub path: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// Its SHA-256, hex.
    pub sha256: String,
    /// The interfaces it imports.
    pub imports: Vec<String>,
    /// The interfaces it exports.
    pub exports: Vec<String>,
}

/// Timings of start-up phases, for benchmarks.
#[derive(Debug, Clone, Copy, Default)]
pub struct StartupTimes {
    /// Compiling the component, when it was not in the on-disk cache.
    pub compile: Option<Duration>,
    /// Loading the precompiled component from the on-disk cache.
    pub deserialize: Option<Duration>,
}

/// The compiled component, ready to instantiate: one per process, shared
/// by every call (`Engram::with_runtime`); each call gets a fresh `Store`
/// with its limits.
pub struct Runtime {
    engine: Engine,
    pre: MemoryPolicyPre<HostState>,
    limits: Limits,
    /// What the component is.
    pub info: ComponentInfo,
    /// How long loading it took.
    pub startup: StartupTimes,
}

/// Tick the engine's epoch until the engine is dropped: deadlines are
/// counted in ticks. One thread per engine; it ends with the engine.
fn start_ticker(engine: &Engine) {
    let weak = engine.weak();
    let _ = std::thread::Builder::new()
        .name("engram-epoch".into())
        .spawn(move || loop {
            std::thread::sleep(EPOCH_TICK);
            match weak.upgrade() {
                Some(e) => e.increment_epoch(),
                None => break,
            }
        });
}

/// The engine configuration every runtime uses (public for `engram-bench`).
pub fn engine_config(limits: &Limits) -> Config {
    let mut cfg = Config::new();
    cfg.epoch_interruption(true);
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(64)
        .total_memories(64)
        .total_tables(64)
        .max_memory_size(limits.memory_bytes)
        .max_component_instance_size(1 << 20)
        .max_core_instances_per_component(16)
        .max_memories_per_component(4)
        .max_tables_per_component(4);
    cfg.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    cfg
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The on-disk cache directory for compiled components.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("ENGRAM_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("engram"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("engram"))
}

/// Compile `bytes`, or load the precompiled artifact from the cache.
fn load_component(
    engine: &Engine,
    bytes: &[u8],
    sha: &str,
    times: &mut StartupTimes,
) -> Result<Component, RuntimeError> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    let key = format!("{}-{:016x}.cwasm", &sha[..32], h.finish());
    let cached = cache_dir().map(|d| d.join(key));
    if let Some(path) = &cached {
        if path.exists() {
            let t = Instant::now();
            // SAFETY: the file was written by `precompile_component` of an
            // engine with the same compatibility hash (part of its name) into
            // our own cache directory; a damaged file fails to deserialize
            // and is recompiled below.
            if let Ok(c) = unsafe { Component::deserialize_file(engine, path) } {
                times.deserialize = Some(t.elapsed());
                return Ok(c);
            }
        }
    }
    let t = Instant::now();
    let compiled = engine
        .precompile_component(bytes)
        .map_err(|e| RuntimeError::Load(e.to_string()))?;
    times.compile = Some(t.elapsed());
    if let Some(path) = &cached {
        let _ = write_atomically(path, &compiled);
    }
    // SAFETY: these bytes were just produced by `precompile_component` on
    // this very engine.
    unsafe { Component::deserialize(engine, &compiled) }
        .map_err(|e| RuntimeError::Load(e.to_string()))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(tmp, path)
}

impl Runtime {
    /// Load the embedded component (or the one at `path`).
    pub fn new(path: Option<&Path>, limits: Limits) -> Result<Self, RuntimeError> {
        let (bytes, shown_path) = match path {
            Some(p) => (
                std::fs::read(p)
                    .map_err(|e| RuntimeError::Load(format!("{}: {e}", p.display())))?,
                p.display().to_string(),
            ),
            None => (
                EMBEDDED_COMPONENT.to_vec(),
                COMPONENT_BUILD_PATH.to_string(),
            ),
        };
        let engine =
            Engine::new(&engine_config(&limits)).map_err(|e| RuntimeError::Load(e.to_string()))?;
        let sha = sha256_hex(&bytes);
        let mut startup = StartupTimes::default();
        let component = load_component(&engine, &bytes, &sha, &mut startup)?;

        let ty = component.component_type();
        let imports = ty.imports(&engine).map(|(n, _)| n.to_string()).collect();
        let exports = ty.exports(&engine).map(|(n, _)| n.to_string()).collect();

        let mut linker: Linker<HostState> = Linker::new(&engine);
        crate::bindings::engram::memory::store::add_to_linker::<HostState, HasSelf<ScopedStore>>(
            &mut linker,
            |s| &mut s.store,
        )
        .map_err(|e| RuntimeError::Load(e.to_string()))?;
        engram_contract::wasmtime_types::add_to_linker::<HostState, HasSelf<ScopedStore>>(
            &mut linker,
            |s| &mut s.store,
        )
        .map_err(|e| RuntimeError::Load(e.to_string()))?;
        crate::bindings::engram::memory::clock::add_to_linker::<HostState, HasSelf<HostState>>(
            &mut linker,
            |s| s,
        )
        .map_err(|e| RuntimeError::Load(e.to_string()))?;
        // The WASI CLI interfaces that Rust's std links: defined as traps,
        // so nothing behind them can grant a capability.
        linker
            .define_unknown_imports_as_traps(&component)
            .map_err(|e| RuntimeError::Load(e.to_string()))?;
        let pre = linker
            .instantiate_pre(&component)
            .map_err(|e| RuntimeError::Load(e.to_string()))?;
        let pre = MemoryPolicyPre::new(pre).map_err(|e| RuntimeError::Load(e.to_string()))?;
        start_ticker(&engine);
        Ok(Runtime {
            engine,
            pre,
            limits,
            info: ComponentInfo {
                path: shown_path,
                bytes: bytes.len(),
                sha256: sha,
                imports,
                exports,
            },
            startup,
        })
    }

    /// A fresh store for one request, with the deadline and memory limit set.
    pub fn new_store(&self, store: ScopedStore, clock: Clock) -> Store<HostState> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.limits.memory_bytes)
            .trap_on_grow_failure(true)
            .build();
        let mut s = Store::new(
            &self.engine,
            HostState {
                store,
                clock,
                limits,
            },
        );
        s.limiter(|st| &mut st.limits);
        s.set_hostcall_fuel(MAX_BYTES_PER_STORE_CALL);
        let ticks = (self.limits.timeout.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64;
        s.set_epoch_deadline(ticks);
        s.epoch_deadline_trap();
        s
    }

    /// Instantiate the component in `store` (from the cached `InstancePre`).
    pub fn instantiate(&self, store: &mut Store<HostState>) -> Result<MemoryPolicy, RuntimeError> {
        self.pre
            .instantiate(store)
            .map_err(|e| self.classify_trap(e))
    }

    /// Run one request against `backend` for `principal`. The backend is
    /// handed back whatever happens, so a trap never loses the store.
    pub fn call<R>(
        &self,
        backend: Box<dyn Backend>,
        principal: Principal,
        clock: Clock,
        f: impl FnOnce(&MemoryPolicy, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> (Box<dyn Backend>, Result<R, RuntimeError>) {
        let mut store = self.new_store(ScopedStore { principal, backend }, clock);
        let r = match self.instantiate(&mut store) {
            Ok(inst) => f(&inst, &mut store).map_err(|e| self.classify_trap(e)),
            Err(e) => Err(e),
        };
        (store.into_data().store.backend, r)
    }

    fn classify_trap(&self, e: wasmtime::Error) -> RuntimeError {
        if let Some(trap) = e.downcast_ref::<wasmtime::Trap>() {
            match trap {
                wasmtime::Trap::Interrupt => return RuntimeError::Timeout(self.limits.timeout),
                wasmtime::Trap::AllocationTooLarge => {
                    return RuntimeError::OutOfMemory(self.limits.memory_bytes >> 20)
                }
                _ => {}
            }
        }
        let msg = format!("{e:#}");
        // wasmtime's own (private) error for exhausted hostcall fuel.
        if msg.contains("too much data is being copied between the host and the guest") {
            return RuntimeError::TooMuchData(MAX_BYTES_PER_STORE_CALL >> 20);
        }
        if msg.contains("memory") && (msg.contains("limit") || msg.contains("grow")) {
            return RuntimeError::OutOfMemory(self.limits.memory_bytes >> 20);
        }
        RuntimeError::Trap(msg)
    }
}
