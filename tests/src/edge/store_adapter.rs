//! The edge store adapter (`edge/kv-store`, the built component) as a
//! `Backend`, so the store conformance suite runs on it exactly as on
//! SQLite and PostgreSQL. Each call instantiates the component on the
//! shared key-value file, opens its session for the call's principal and
//! calls the exported `store` function with the host's own types
//! (wasmtime checks them structurally against the component's).

use std::sync::Arc;

use engram_host::backend::Backend;
use engram_host::bindings as w;
use engram_host::fingerprint::FingerprintSecret;
use wasmtime::component::{
    Component, ComponentNamedList, InstancePre, Lift, Linker, Lower, ResourceTable,
};
use wasmtime::{Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::kv_host::{self, KvDb, KvView};

pub struct Ctx {
    table: ResourceTable,
    wasi: WasiCtx,
    db: Arc<KvDb>,
}

impl WasiView for Ctx {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

fn kv_view(c: &mut Ctx) -> KvView<'_> {
    KvView {
        table: &mut c.table,
        db: &c.db,
    }
}

/// The kv-store component on one key-value database.
pub struct KvComponentStore {
    pre: InstancePre<Ctx>,
    db: Arc<KvDb>,
    reads: u64,
    /// The fingerprint secret the component is given (`None`: unset).
    secret: Option<String>,
}

fn tenant_principal(tenant: &str) -> w::Principal {
    w::Principal {
        tenant: tenant.into(),
        user: None,
        project: None,
    }
}

impl KvComponentStore {
    pub fn new(engine: &Engine, component: &[u8], db: Arc<KvDb>) -> Self {
        let component = Component::new(engine, component).expect("compile the kv-store component");
        let mut linker: Linker<Ctx> = Linker::new(engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).expect("link WASI");
        kv_host::add_to_linker(&mut linker, kv_view).expect("link wasi:keyvalue");
        let pre = linker
            .instantiate_pre(&component)
            .expect("the kv-store component links");
        KvComponentStore {
            pre,
            db,
            reads: 0,
            secret: Some(super::FINGERPRINT_SECRET.into()),
        }
    }

    /// The same store given another fingerprint secret, or none.
    pub fn with_secret(mut self, secret: Option<&str>) -> Self {
        self.secret = secret.map(str::to_string);
        self
    }

    /// The component's own `fingerprint-key` for `principal`.
    pub fn fingerprint_key(
        &mut self,
        principal: &w::Principal,
        scope: &w::Scope,
    ) -> Result<Vec<u8>, w::StoreError> {
        self.store_call(principal, "fingerprint-key", (scope.clone(),))
    }

    /// Call `interface.name` for `principal` on a fresh instance.
    fn call<P, R>(&mut self, principal: &w::Principal, interface: &str, name: &str, params: P) -> R
    where
        P: ComponentNamedList + Lower + Send + Sync,
        R: ComponentNamedList + Lift + Send + Sync,
    {
        let mut store = Store::new(
            self.pre.engine(),
            Ctx {
                table: ResourceTable::new(),
                wasi: {
                    let mut b = WasiCtx::builder();
                    if let Some(s) = &self.secret {
                        b.env(super::SECRET_VAR, s);
                    }
                    b.build()
                },
                db: Arc::clone(&self.db),
            },
        );
        let instance = self.pre.instantiate(&mut store).expect("instantiate");
        let func = |store: &mut Store<Ctx>, iface: &str, f: &str| {
            let i = instance
                .get_export_index(&mut *store, None, iface)
                .unwrap_or_else(|| panic!("no export {iface}"));
            instance
                .get_export_index(&mut *store, Some(&i), f)
                .unwrap_or_else(|| panic!("no export {iface}.{f}"))
        };
        let session = "engram:edge/session@0.1.0";
        let open = func(&mut store, session, "open");
        let open = instance
            .get_typed_func::<(w::Principal,), (Result<(), String>,)>(&mut store, &open)
            .expect("session.open has the expected type");
        let (opened,) = open
            .call(&mut store, (principal.clone(),))
            .expect("session.open");
        opened.expect("the store opens");
        let f = func(&mut store, interface, name);
        let typed = instance
            .get_typed_func::<P, R>(&mut store, &f)
            .unwrap_or_else(|e| panic!("{interface}.{name} has another type: {e}"));
        typed.call(&mut store, params).expect("the call")
    }

    fn store_call<P, T>(
        &mut self,
        principal: &w::Principal,
        name: &str,
        params: P,
    ) -> Result<T, w::StoreError>
    where
        P: ComponentNamedList + Lower + Send + Sync,
        (Result<T, w::StoreError>,): ComponentNamedList + Lift + Send + Sync,
    {
        let (r,): (Result<T, w::StoreError>,) =
            self.call(principal, "engram:memory/store@0.1.0", name, params);
        r
    }
}

impl Backend for KvComponentStore {
    fn find(&mut self, filter: &w::Filter, limit: u32) -> Result<Vec<w::Stored>, w::StoreError> {
        let p = tenant_principal(&filter.scope.tenant);
        let out: Vec<w::Stored> = self.store_call(&p, "find", (filter.clone(), limit))?;
        self.reads += out.len() as u64;
        Ok(out)
    }

    fn revisions(
        &mut self,
        principal: &w::Principal,
        id: &str,
    ) -> Result<Vec<w::Stored>, w::StoreError> {
        let out: Vec<w::Stored> = self.store_call(principal, "revisions", (id.to_string(),))?;
        self.reads += out.len() as u64;
        Ok(out)
    }

    fn stats(
        &mut self,
        filter: &w::Filter,
        terms: &[String],
    ) -> Result<w::TermStats, w::StoreError> {
        let p = tenant_principal(&filter.scope.tenant);
        self.store_call(&p, "stats", (filter.clone(), terms.to_vec()))
    }

    fn search(
        &mut self,
        filter: &w::Filter,
        terms: &[w::WeightedTerm],
        limit: u32,
    ) -> Result<Vec<w::Stored>, w::StoreError> {
        let p = tenant_principal(&filter.scope.tenant);
        let out: Vec<w::Stored> =
            self.store_call(&p, "search", (filter.clone(), terms.to_vec(), limit))?;
        self.reads += out.len() as u64;
        Ok(out)
    }

    fn commit(
        &mut self,
        principal: &w::Principal,
        ops: &[w::WriteOp],
    ) -> Result<w::Receipt, w::StoreError> {
        self.store_call(principal, "commit", (ops.to_vec(),))
    }

    fn tombstones(&mut self, scope: &w::Scope) -> Result<Vec<w::Tombstone>, w::StoreError> {
        self.store_call(
            &tenant_principal(&scope.tenant),
            "tombstones",
            (scope.clone(),),
        )
    }

    /// The secret the component is given; the component checks it against
    /// the bucket's key id on every `fingerprint-key` (its native tests
    /// and `the_kv_store_adapter_derives_the_hosts_keys`).
    fn fingerprint_secret(&mut self) -> Result<FingerprintSecret, w::StoreError> {
        FingerprintSecret::from_hex(super::FINGERPRINT_SECRET).map_err(w::StoreError::Backend)
    }

    fn count_events(
        &mut self,
        scope: &w::Scope,
        kind: &str,
        since: w::Datetime,
    ) -> Result<u64, w::StoreError> {
        let p = tenant_principal(&scope.tenant);
        self.store_call(&p, "count-events", (scope.clone(), kind.to_string(), since))
    }

    fn session_log(
        &mut self,
        scope: &w::Scope,
        session: &str,
        kind: &str,
    ) -> Result<Vec<w::Event>, w::StoreError> {
        let p = tenant_principal(&scope.tenant);
        self.store_call(
            &p,
            "session-log",
            (scope.clone(), session.to_string(), kind.to_string()),
        )
    }

    fn records_read(&self) -> u64 {
        self.reads
    }

    /// The operator's question "whose is this id" (ids are unique per
    /// tenant only): read from the key names (record keys name them:
    /// `engram/{tenant}/mem/{id}/{revision}`), sorted.
    fn tenants_of(&mut self, id: &str) -> Result<Vec<String>, w::StoreError> {
        let needle = format!("/mem/{}/", escape(id));
        let tenants: std::collections::BTreeSet<String> = self
            .db
            .entries("default")
            .into_iter()
            .filter(|(k, v)| k.contains(&needle) && !v.ends_with(b",\"gone\":true}"))
            .filter_map(|(k, _)| {
                let rest = k.strip_prefix("engram/")?;
                let tenant = &rest[..rest.find('/')?];
                Some(unescape(tenant))
            })
            .collect();
        Ok(tenants.into_iter().collect())
    }
}

fn escape(s: &str) -> String {
    s.replace('%', "%25").replace('/', "%2F")
}

fn unescape(s: &str) -> String {
    s.replace("%2F", "/").replace("%25", "%")
}
