//! Host-side bindings generated from the WIT package (`../wit`).

wasmtime::component::bindgen!({
    path: "../wit",
    world: "memory-policy",
    additional_derives: [PartialEq],
    // The data model's types are the contract crate's (the guest's too), so
    // a value crosses the boundary without a second Rust representation.
    with: { "engram:memory/types": engram_contract::wasmtime_types },
});

pub use engram::memory::store::{
    Access, Event, Filter, Insert, Principal, Receipt, ScopeMatch, Scrub, StoreError, Stored,
    TermStats, Tombstone, Update, WeightedTerm, WriteOp,
};
pub use engram_contract::types::*;
