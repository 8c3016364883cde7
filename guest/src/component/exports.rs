//! The exported interfaces: `policy` (typed) and `json` (the contract of
//! SPEC §4 on JSON text). Each call builds a context over the imports and
//! runs the operation through `crate::contract::Operations`.

use engram_contract::Policy as _;

use crate::bindings::exports::engram::memory::{json, policy};
use crate::component::host_store::{HostClock, HostStore};
use crate::contract::Operations;
use crate::core::api::Ctx;
use crate::core::config::Policy;
use crate::types::*;

struct Component;

fn with_ops<T>(f: impl FnOnce(&Operations) -> T) -> T {
    let policy = Policy::default();
    let ctx = Ctx {
        store: &HostStore,
        clock: &HostClock,
        policy: &policy,
    };
    f(&Operations(&ctx))
}

impl policy::Guest for Component {
    fn classify(candidates: Vec<Candidate>) -> Result<Vec<Decision>, Error> {
        with_ops(|p| p.classify(&candidates))
    }
    fn remember(candidates: Vec<Candidate>) -> Result<Vec<Decision>, Error> {
        with_ops(|p| p.remember(&candidates))
    }
    fn import_records(records: Vec<ImportRecord>) -> Result<Vec<ImportReceipt>, Error> {
        with_ops(|p| p.import_records(&records))
    }
    fn recall(queries: Vec<Query>) -> Result<Vec<RecallResult>, Error> {
        with_ops(|p| p.recall(&queries))
    }
    fn pack(request: PackRequest) -> Result<PackedContext, Error> {
        with_ops(|p| p.pack(&request))
    }
    fn forget(selectors: Vec<ForgetSelector>) -> Result<ForgetReport, Error> {
        with_ops(|p| p.forget(&selectors))
    }
    fn sweep(scope: Scope) -> Result<SweepReport, Error> {
        with_ops(|p| p.sweep(&scope))
    }
    fn history(id: String) -> Result<Vec<Memory>, Error> {
        with_ops(|p| p.history(&id))
    }
    fn list_memories(scope: Scope, statuses: Vec<Status>) -> Result<Vec<Memory>, Error> {
        with_ops(|p| p.list_memories(&scope, &statuses))
    }
    fn review(items: Vec<ReviewItem>) -> Result<Vec<ReviewOutcome>, Error> {
        with_ops(|p| p.review(&items))
    }
    fn record_operations(records: Vec<OperationRecord>) -> Result<Vec<OperationReceipt>, Error> {
        with_ops(|p| p.record_operations(&records))
    }
    fn get_operations(lookups: Vec<OperationLookup>) -> Result<Vec<OperationState>, Error> {
        with_ops(|p| p.get_operations(&lookups))
    }
    fn info() -> PolicyInfo {
        with_ops(|p| p.info())
    }
}

impl json::Guest for Component {
    fn call(operation: String, input: String) -> Result<String, Error> {
        with_ops(|p| engram_contract::call(p, &operation, &input))
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

crate::bindings::export!(Component with_types_in crate::bindings);
