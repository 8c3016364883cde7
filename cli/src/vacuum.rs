//! `engram vacuum`: the operator's erasure pass on a PostgreSQL store.
//!
//! Every erasing commit already runs a plain VACUUM of the tables it
//! touched, which removes the deleted rows from the heap and the indexes
//! but may leave their bytes in the freed space of a page until it is
//! reused. This command rewrites those tables into new files (VACUUM FULL)
//! and checkpoints, so no table file keeps them; it locks each table while
//! it is rewritten (docs/postgres.md). SQLite needs no such pass: it
//! zeroes erased content at every erasing commit (docs/durability.md).

use std::io::Write;

use serde_json::json;

use crate::failure::Failure;
use crate::flags::Flags;
use engram_host::postgres::{is_postgres_url, PgStore};

pub fn run(flags: &Flags, out: &mut dyn Write) -> Result<(), Failure> {
    if !is_postgres_url(&flags.db) {
        return Err(Failure::input(format!(
            "engram vacuum is for PostgreSQL stores (--db postgres://…); the SQLite store {} already zeroes erased content at every erasing commit",
            flags.db
        )));
    }
    let mut store =
        PgStore::open(&flags.db).map_err(|e| Failure::input(engram_host::store_msg(&e)))?;
    let t = std::time::Instant::now();
    let report = store
        .vacuum_full()
        .map_err(|e| Failure::input(engram_host::store_msg(&e)))?;
    let v = json!({
        "vacuumed": ["memories", "postings", "derived_from", "events", "tombstones"],
        "bytes_before": report.bytes_before,
        "bytes_after": report.bytes_after,
        "checkpointed": report.checkpointed,
        "seconds": (t.elapsed().as_secs_f64() * 100.0).round() / 100.0,
    });
    writeln!(out, "{v}").map_err(|e| Failure::input(format!("writing output: {e}")))
}
