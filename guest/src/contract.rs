//! The JSON contract's operations (`engram_contract::ops`) over this
//! policy: one `Policy` implementation that names, once, which module
//! answers each typed function. The component's `policy` and `json`
//! exports both go through it; natively it runs the contract against the
//! in-memory store in tests.

use engram_contract::Policy;

use crate::core::api::Ctx;
use crate::types::*;

/// The policy's functions in one context.
pub struct Operations<'a>(pub &'a Ctx<'a>);

impl Policy for Operations<'_> {
    fn classify(&self, candidates: &[Candidate]) -> Result<Vec<Decision>, Error> {
        crate::write::remember::classify(self.0, candidates)
    }
    fn remember(&self, candidates: &[Candidate]) -> Result<Vec<Decision>, Error> {
        crate::write::remember::remember(self.0, candidates)
    }
    fn import_records(&self, records: &[ImportRecord]) -> Result<Vec<ImportReceipt>, Error> {
        crate::write::remember::import_records(self.0, records)
    }
    fn recall(&self, queries: &[Query]) -> Result<Vec<RecallResult>, Error> {
        crate::read::recall::recall(self.0, queries)
    }
    fn pack(&self, request: &PackRequest) -> Result<PackedContext, Error> {
        crate::context::pack::pack(self.0, request)
    }
    fn forget(&self, selectors: &[ForgetSelector]) -> Result<ForgetReport, Error> {
        crate::lifecycle::forget::forget(self.0, selectors)
    }
    fn sweep(&self, scope: &Scope) -> Result<SweepReport, Error> {
        crate::lifecycle::sweep::sweep(self.0, scope)
    }
    fn history(&self, id: &str) -> Result<Vec<Memory>, Error> {
        crate::lifecycle::sweep::history(self.0, id)
    }
    fn list_memories(&self, scope: &Scope, statuses: &[Status]) -> Result<Vec<Memory>, Error> {
        crate::lifecycle::sweep::list_memories(self.0, scope, statuses)
    }
    fn review(&self, items: &[ReviewItem]) -> Result<Vec<ReviewOutcome>, Error> {
        crate::lifecycle::review::review(self.0, items)
    }
    fn record_operations(
        &self,
        records: &[OperationRecord],
    ) -> Result<Vec<OperationReceipt>, Error> {
        crate::lifecycle::operations::record(self.0, records)
    }
    fn get_operations(&self, lookups: &[OperationLookup]) -> Result<Vec<OperationState>, Error> {
        crate::lifecycle::operations::get(self.0, lookups)
    }
    fn info(&self) -> PolicyInfo {
        PolicyInfo {
            package_version: env!("CARGO_PKG_VERSION").to_string(),
            policy_version: crate::core::config::POLICY_VERSION.to_string(),
        }
    }
}
