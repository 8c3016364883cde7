//! `engram info`: which component this program runs (path, size, sha256),
//! its WIT package, imports and exports, and how long it took to load.
//! `GET /v1/info` (`serve::routes`) answers the same object.

use std::io::Write;

use engram_host::Engram;
use serde_json::{json, Value};

use crate::failure::Failure;
use crate::flags::Flags;

/// `engram info`: the object below, pretty-printed.
pub fn run(flags: &Flags, out: &mut dyn Write) -> Result<(), Failure> {
    let mut engram = flags.open(":memory:")?;
    let v = describe(&mut engram)?;
    let text = serde_json::to_string_pretty(&v).map_err(|e| Failure::input(e.to_string()))?;
    writeln!(out, "{text}").or_else(Failure::output)
}

/// What `engram info` prints (also `GET /v1/info`).
pub fn describe(engram: &mut Engram) -> Result<Value, Failure> {
    let policy = engram.info()?;
    let rt = engram.runtime();
    let i = &rt.info;
    let v = json!({
        "component": {"path": i.path, "bytes": i.bytes, "sha256": i.sha256},
        "wit_package": "engram:memory@0.1.0",
        "world": "memory-policy",
        "package_version": policy.package_version,
        "policy_version": policy.policy_version,
        "imports": i.imports,
        "exports": i.exports,
        "startup": {
            "compile_ms": rt.startup.compile.map(|d| d.as_secs_f64() * 1e3),
            "deserialize_ms": rt.startup.deserialize.map(|d| d.as_secs_f64() * 1e3),
        },
    });
    Ok(v)
}
