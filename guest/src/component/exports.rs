//! The exported functions: each builds a context over the imports and calls
//! the plain-Rust operation.

use crate::bindings::exports::engram::memory::policy::Guest;
use crate::component::host_store::{HostClock, HostStore};
use crate::core::api::Ctx;
use crate::core::config::Policy;
use crate::types::*;

struct Component;

fn with_ctx<T>(f: impl FnOnce(&Ctx) -> T) -> T {
    let policy = Policy::default();
    f(&Ctx {
        store: &HostStore,
        clock: &HostClock,
        policy: &policy,
    })
}

impl Guest for Component {
    fn classify(candidates: Vec<Candidate>) -> Result<Vec<Decision>, Error> {
        with_ctx(|c| crate::write::remember::classify(c, &candidates))
    }
    fn remember(candidates: Vec<Candidate>) -> Result<Vec<Decision>, Error> {
        with_ctx(|c| crate::write::remember::remember(c, &candidates))
    }
    fn import_records(records: Vec<ImportRecord>) -> Result<Vec<ImportReceipt>, Error> {
        with_ctx(|c| crate::write::remember::import_records(c, &records))
    }
    fn recall(queries: Vec<Query>) -> Result<Vec<RecallResult>, Error> {
        with_ctx(|c| crate::read::recall::recall(c, &queries))
    }
    fn pack(request: PackRequest) -> Result<PackedContext, Error> {
        with_ctx(|c| crate::context::pack::pack(c, &request))
    }
    fn forget(selectors: Vec<ForgetSelector>) -> Result<ForgetReport, Error> {
        with_ctx(|c| crate::lifecycle::forget::forget(c, &selectors))
    }
    fn sweep(scope: Scope) -> Result<SweepReport, Error> {
        with_ctx(|c| crate::lifecycle::sweep::sweep(c, &scope))
    }
    fn history(id: String) -> Result<Vec<Memory>, Error> {
        with_ctx(|c| crate::lifecycle::sweep::history(c, &id))
    }
    fn list_memories(scope: Scope, statuses: Vec<Status>) -> Result<Vec<Memory>, Error> {
        with_ctx(|c| crate::lifecycle::sweep::list_memories(c, &scope, &statuses))
    }
    fn review(items: Vec<ReviewItem>) -> Result<Vec<ReviewOutcome>, Error> {
        with_ctx(|c| crate::lifecycle::review::review(c, &items))
    }
    fn info() -> PolicyInfo {
        PolicyInfo {
            package_version: env!("CARGO_PKG_VERSION").to_string(),
            policy_version: crate::core::config::POLICY_VERSION.to_string(),
        }
    }
}

crate::bindings::export!(Component with_types_in crate::bindings);
