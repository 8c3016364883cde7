//! The composition, with `wac-graph`: the store adapter supplies the
//! policy's `types`, `store` and `clock`; the policy's JSON contract and
//! the store's session go to the HTTP handler, whose
//! `wasi:http/incoming-handler` is the composition's only export. What is
//! left unsatisfied (wasi:keyvalue, wasi:http types, the WASI CLI and IO
//! interfaces Rust's std links) becomes the composition's imports, merged
//! by name. Shared by `build.rs` (which writes `engram-edge.wasm`) and the
//! library (tests check the wiring).

use wac_graph::types::Package;
use wac_graph::{CompositionGraph, EncodeOptions, NodeId, PackageId};

/// The item of `package` whose name starts with `prefix` among its
/// exports (`exported`) or imports; versions are the builds', not this
/// file's.
fn item_named(
    graph: &CompositionGraph,
    package: PackageId,
    prefix: &str,
    exported: bool,
) -> Result<String, String> {
    let world = &graph.types()[graph[package].ty()];
    let (names, verb) = if exported {
        (&world.exports, "exports")
    } else {
        (&world.imports, "imports")
    };
    names
        .keys()
        .find(|name| name.starts_with(prefix))
        .cloned()
        .ok_or_else(|| format!("{} {verb} nothing named {prefix}…", graph[package].name()))
}

fn export_named(
    graph: &CompositionGraph,
    package: PackageId,
    prefix: &str,
) -> Result<String, String> {
    item_named(graph, package, prefix, true)
}

fn import_named(
    graph: &CompositionGraph,
    package: PackageId,
    prefix: &str,
) -> Result<String, String> {
    item_named(graph, package, prefix, false)
}

/// Wire export `prefix` of instance `from` (of `package`) into the same-named
/// import of instance `to` (of `target`).
fn wire(
    graph: &mut CompositionGraph,
    (from, package): (NodeId, PackageId),
    (to, target): (NodeId, PackageId),
    prefix: &str,
) -> Result<(), String> {
    let export = export_named(graph, package, prefix)?;
    let import = import_named(graph, target, prefix)?;
    let item = graph
        .alias_instance_export(from, &export)
        .map_err(|e| format!("{export}: {e}"))?;
    graph
        .set_instantiation_argument(to, &import, item)
        .map_err(|e| format!("{import} ← {export}: {e:#}"))
}

fn register(graph: &mut CompositionGraph, name: &str, bytes: &[u8]) -> Result<PackageId, String> {
    let pkg = Package::from_bytes(name, None, bytes.to_vec(), graph.types_mut())
        .map_err(|e| format!("{name}: {e:#}"))?;
    graph
        .register_package(pkg)
        .map_err(|e| format!("{name}: {e:#}"))
}

/// Export instance `from`'s `wasi:http/incoming-handler` and encode.
fn export_handler(
    mut graph: CompositionGraph,
    (from, package): (NodeId, PackageId),
) -> Result<Vec<u8>, String> {
    let handler = export_named(&graph, package, "wasi:http/incoming-handler@")?;
    let item = graph
        .alias_instance_export(from, &handler)
        .map_err(|e| format!("{handler}: {e}"))?;
    graph
        .export(item, &handler)
        .map_err(|e| format!("exporting {handler}: {e}"))?;
    graph
        .encode(EncodeOptions::default())
        .map_err(|e| format!("encoding the composition: {e:#}"))
}

/// Compose the three components into the edge component.
pub fn compose(policy: &[u8], kv_store: &[u8], http: &[u8]) -> Result<Vec<u8>, String> {
    let mut graph = CompositionGraph::new();
    let kv_pkg = register(&mut graph, "engram:edge-kv-store", kv_store)?;
    let policy_pkg = register(&mut graph, "engram:memory-policy", policy)?;
    let http_pkg = register(&mut graph, "engram:edge-http", http)?;

    let kv = (graph.instantiate(kv_pkg), kv_pkg);
    let policy = (graph.instantiate(policy_pkg), policy_pkg);
    let http = (graph.instantiate(http_pkg), http_pkg);
    for name in [
        "engram:memory/types@",
        "engram:memory/store@",
        "engram:memory/clock@",
    ] {
        wire(&mut graph, kv, policy, name)?;
    }
    wire(&mut graph, kv, http, "engram:memory/types@")?;
    // The session names its principal with the store's type: the handler
    // imports `store` for that type alone.
    wire(&mut graph, kv, http, "engram:memory/store@")?;
    wire(&mut graph, kv, http, "engram:edge/session@")?;
    wire(&mut graph, policy, http, "engram:memory/json@")?;
    export_handler(graph, http)
}

/// The edge component with its `wasi:keyvalue` draft2 imports served by
/// the draft bridge (`edge/kv-draft-bridge`), for `wasmtime serve -S
/// keyvalue`, which provides only the first draft.
pub fn bridge_keyvalue(edge: &[u8], bridge: &[u8]) -> Result<Vec<u8>, String> {
    let mut graph = CompositionGraph::new();
    let bridge_pkg = register(&mut graph, "engram:edge-kv-draft-bridge", bridge)?;
    let edge_pkg = register(&mut graph, "engram:edge", edge)?;
    let bridge = (graph.instantiate(bridge_pkg), bridge_pkg);
    let edge = (graph.instantiate(edge_pkg), edge_pkg);
    for name in [
        "wasi:keyvalue/store@0.2.0-draft2",
        "wasi:keyvalue/atomics@0.2.0-draft2",
        "wasi:keyvalue/batch@0.2.0-draft2",
    ] {
        wire(&mut graph, bridge, edge, name)?;
    }
    export_handler(graph, edge)
}

/// The names a component imports (`exports` false) or exports.
fn world_names(component: &[u8], exports: bool) -> Result<Vec<String>, String> {
    let mut graph = CompositionGraph::new();
    let pkg = Package::from_bytes("engram:edge", None, component.to_vec(), graph.types_mut())
        .map_err(|e| format!("{e:#}"))?;
    let world = &graph.types()[pkg.ty()];
    let names = if exports {
        &world.exports
    } else {
        &world.imports
    };
    Ok(names.keys().cloned().collect())
}

/// The composition's imports (names as the runtime sees them).
pub fn imports_of(component: &[u8]) -> Result<Vec<String>, String> {
    world_names(component, false)
}

/// The composition's exports.
pub fn exports_of(component: &[u8]) -> Result<Vec<String>, String> {
    world_names(component, true)
}
