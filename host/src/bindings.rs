//! Host-side bindings generated from the WIT package (`../wit`).

wasmtime::component::bindgen!({
    path: "../wit",
    world: "memory-policy",
    additional_derives: [PartialEq],
});

pub use engram::memory::store::{
    Event, Filter, Insert, Principal, Receipt, ScopeMatch, Scrub, StoreError, Stored, TermStats,
    Tombstone, Update, WeightedTerm, WriteOp,
};
pub use engram::memory::types::*;
