//! The JSON contract as a component of its own: `engram_contract::call`
//! over the imported `policy`. Built only to measure what the contract
//! costs as a separate component composed with `wac`, against the `json`
//! export inside the policy component (docs/benchmarks.md). Only a wasm
//! component: natively the crate is empty.
#![cfg(target_arch = "wasm32")]

mod bindings {
    wit_bindgen::generate!({
        path: ["../../wit", "wit"],
        world: "engram:json-adapter/json-adapter",
        with: {
            "engram:memory/types@0.1.0": engram_contract::types,
            "engram:memory/policy@0.1.0": generate,
            "engram:memory/json@0.1.0": generate,
        },
    });
}

use bindings::engram::memory::policy;
use bindings::exports::engram::memory::json::Guest;
use engram_contract::types::*;

/// The imported policy, as the contract calls it.
struct Imported;

impl engram_contract::Policy for Imported {
    fn classify(&self, c: &[Candidate]) -> Result<Vec<Decision>, Error> {
        policy::classify(c)
    }
    fn remember(&self, c: &[Candidate]) -> Result<Vec<Decision>, Error> {
        policy::remember(c)
    }
    fn import_records(&self, r: &[ImportRecord]) -> Result<Vec<ImportReceipt>, Error> {
        policy::import_records(r)
    }
    fn recall(&self, q: &[Query]) -> Result<Vec<RecallResult>, Error> {
        policy::recall(q)
    }
    fn pack(&self, r: &PackRequest) -> Result<PackedContext, Error> {
        policy::pack(r)
    }
    fn forget(&self, s: &[ForgetSelector]) -> Result<ForgetReport, Error> {
        policy::forget(s)
    }
    fn sweep(&self, s: &Scope) -> Result<SweepReport, Error> {
        policy::sweep(s)
    }
    fn history(&self, id: &str) -> Result<Vec<Memory>, Error> {
        policy::history(id)
    }
    fn list_memories(&self, s: &Scope, st: &[Status]) -> Result<Vec<Memory>, Error> {
        policy::list_memories(s, st)
    }
    fn review(&self, items: &[ReviewItem]) -> Result<Vec<ReviewOutcome>, Error> {
        policy::review(items)
    }
    fn record_operations(&self, r: &[OperationRecord]) -> Result<Vec<OperationReceipt>, Error> {
        policy::record_operations(r)
    }
    fn get_operations(&self, l: &[OperationLookup]) -> Result<Vec<OperationState>, Error> {
        policy::get_operations(l)
    }
    fn info(&self) -> PolicyInfo {
        policy::info()
    }
}

struct Adapter;

impl Guest for Adapter {
    fn call(operation: String, input: String) -> Result<String, Error> {
        engram_contract::call(&Imported, &operation, &input)
    }
    fn encode_memory(memory: Memory) -> String {
        engram_contract::body::encode(&memory)
    }
    fn decode_memories(bodies: Vec<String>) -> Result<Vec<Memory>, Error> {
        engram_contract::body::decode_all(&bodies)
    }
    fn parse_datetime(text: String) -> Result<Datetime, Error> {
        engram_contract::time::parse_instant(&text)
    }
}

bindings::export!(Adapter with_types_in bindings);
