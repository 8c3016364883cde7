//! The component model layer (wasm32 only): the exported interfaces
//! (`exports`: `policy` and `json`) and the imported store and clock (`host_store`).

mod exports;
mod host_store;
