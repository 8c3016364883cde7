//! Host-side bindings generated from the WIT package (`../wit`): the
//! `store` and `clock` the host implements and the `policy` and `json` it
//! calls. The data model's types are `engram_contract`'s, documented there
//! and in `wit/types.wit`.

// What bindgen generates beside the WIT's own docs (the world's
// instantiation helpers, per-interface modules) carries no doc comments;
// `wit/*.wit` documents every interface and function.
#![allow(missing_docs)]

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
