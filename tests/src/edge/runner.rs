//! An HTTP server for the edge component on wasmtime's own `wasi:http`
//! implementation, built the way `wasmtime serve` is: hyper on a loopback
//! port, one `ProxyPre` (compiled and pre-linked once), a fresh `Store` and
//! instance per request, plus the persistent `wasi:keyvalue` host
//! (`kv_host`) that every request shares. The environment the component
//! reads (keys, clock) can be changed between requests.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::io::TokioIo;
use wasmtime_wasi_http::p2::bindings::http::types::Scheme;
use wasmtime_wasi_http::p2::bindings::ProxyPre;
use wasmtime_wasi_http::p2::body::HyperOutgoingBody;
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::kv_host::{self, KvDb, KvView};

/// What one request's store holds.
pub struct RequestState {
    table: ResourceTable,
    wasi: WasiCtx,
    http: WasiHttpCtx,
    db: Arc<KvDb>,
}

impl WasiView for RequestState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for RequestState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: Default::default(),
        }
    }
}

fn kv_view(s: &mut RequestState) -> KvView<'_> {
    KvView {
        table: &mut s.table,
        db: &s.db,
    }
}

/// The engine: pooling allocation for µs instantiation, as `wasmtime serve`
/// (the composition has three core instances, each with its memory).
pub fn engine() -> Engine {
    let mut cfg = Config::new();
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(128)
        .total_memories(1024)
        .total_tables(1024)
        .max_memory_size(1 << 30)
        .max_component_instance_size(1 << 20)
        .max_core_instances_per_component(32)
        .max_memories_per_component(8)
        .max_tables_per_component(8);
    cfg.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    Engine::new(&cfg).expect("a wasmtime engine")
}

/// The compiled, pre-linked edge component.
pub struct Prepared {
    pub pre: ProxyPre<RequestState>,
    /// How long compiling took.
    pub compile: Duration,
}

pub fn prepare(engine: &Engine, component: &[u8]) -> Prepared {
    let t = Instant::now();
    let component = Component::new(engine, component).expect("compile the edge component");
    let compile = t.elapsed();
    let mut linker: Linker<RequestState> = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker).expect("link WASI");
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker).expect("link wasi:http");
    kv_host::add_to_linker(&mut linker, kv_view).expect("link wasi:keyvalue");
    let pre = ProxyPre::new(
        linker
            .instantiate_pre(&component)
            .expect("the edge component links against WASI, wasi:http and wasi:keyvalue"),
    )
    .expect("the edge component exports wasi:http/incoming-handler");
    Prepared { pre, compile }
}

/// A running server.
pub struct EdgeServer {
    pub addr: SocketAddr,
    pub db: Arc<KvDb>,
    pub env: Arc<Mutex<Vec<(String, String)>>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Shared {
    pre: ProxyPre<RequestState>,
    db: Arc<KvDb>,
    env: Arc<Mutex<Vec<(String, String)>>>,
}

impl EdgeServer {
    /// Serve `component` on a free loopback port with `env` as its environment.
    pub fn start(component: &[u8], db: Arc<KvDb>, env: Vec<(String, String)>) -> EdgeServer {
        let engine = engine();
        let prepared = prepare(&engine, component);
        let env = Arc::new(Mutex::new(env));
        let shared = Arc::new(Shared {
            pre: prepared.pre,
            db: Arc::clone(&db),
            env: Arc::clone(&env),
        });
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("edge-runner".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("a tokio runtime");
                rt.block_on(serve(shared, addr_tx, stop_rx));
            })
            .expect("spawn the runner thread");
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the runner listens");
        EdgeServer {
            addr,
            db,
            env,
            shutdown: Some(stop_tx),
            thread: Some(thread),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Set (or replace) one environment variable for the next requests.
    pub fn set_env(&self, key: &str, value: &str) {
        let mut env = self.env.lock().expect("env lock");
        env.retain(|(k, _)| k != key);
        env.push((key.to_string(), value.to_string()));
    }
}

impl Drop for EdgeServer {
    fn drop(&mut self) {
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve(
    shared: Arc<Shared>,
    addr_tx: std::sync::mpsc::Sender<SocketAddr>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let _ = addr_tx.send(listener.local_addr().expect("local address"));
    loop {
        let (client, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                Err(_) => continue,
            },
            _ = &mut stop => return,
        };
        let shared = Arc::clone(&shared);
        tokio::task::spawn(async move {
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(
                    TokioIo::new(client),
                    hyper::service::service_fn(move |req| {
                        let shared = Arc::clone(&shared);
                        async move { handle(shared, req).await }
                    }),
                )
                .await;
        });
    }
}

/// A fresh store for one request: its environment and the shared database.
pub fn request_store(
    pre: &ProxyPre<RequestState>,
    db: &Arc<KvDb>,
    env: &[(String, String)],
) -> Store<RequestState> {
    Store::new(
        pre.engine(),
        RequestState {
            table: ResourceTable::new(),
            wasi: WasiCtx::builder().envs(env).inherit_stderr().build(),
            http: WasiHttpCtx::new(),
            db: Arc::clone(db),
        },
    )
}

async fn handle(
    shared: Arc<Shared>,
    req: hyper::Request<hyper::body::Incoming>,
) -> wasmtime::Result<hyper::Response<HyperOutgoingBody>> {
    let env = shared.env.lock().map(|e| e.clone()).unwrap_or_default();
    let mut store = request_store(&shared.pre, &shared.db, &env);
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let req = store
        .data_mut()
        .http()
        .new_incoming_request(Scheme::Http, req)?;
    let out = store.data_mut().http().new_response_outparam(sender)?;
    let pre = shared.pre.clone();
    let task = tokio::task::spawn(async move {
        let proxy = pre.instantiate_async(&mut store).await?;
        proxy
            .wasi_http_incoming_handler()
            .call_handle(store, req, out)
            .await
    });
    match receiver.await {
        Ok(Ok(resp)) => Ok(resp),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => {
            let e = match task.await {
                Ok(Ok(())) => wasmtime::format_err!("the component never set a response"),
                Ok(Err(e)) => e,
                Err(e) => e.into(),
            };
            Err(e)
        }
    }
}
