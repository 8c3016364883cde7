//! The policy behind `engram-api` in `engram serve`: `Engram::call_json`
//! for the key's principal, `engram info`'s object for `GET /v1/info`, and
//! a store transaction around a request's writes.

use engram_api::{CallError, Policy, Principal};
use engram_host::bindings as w;
use engram_host::{Engram, Error};

/// The policy behind the API: `Engram::call_json` for the key's principal.
pub struct Native<'a> {
    pub engram: &'a mut Engram,
}

fn principal(p: &Principal) -> w::Principal {
    w::Principal {
        tenant: p.tenant.clone(),
        user: p.user.clone(),
        project: p.project.clone(),
    }
}

/// The host's error as the API reports it: the policy's own typed; SQLite's
/// lock held past its timeout as busy (503); anything else a host failure.
fn call_error(e: Error) -> CallError {
    let busy = |m: &str| m.contains("database is locked");
    match e {
        Error::Policy(w::Error::Store(m)) | Error::Store(m) if busy(&m) => {
            CallError::Busy(format!("store: {m}"))
        }
        Error::Policy(p) => CallError::Policy(p),
        other => CallError::Host(other.to_string()),
    }
}

impl Policy for Native<'_> {
    fn call(&mut self, p: &Principal, operation: &str, input: &str) -> Result<String, CallError> {
        self.engram
            .call_json(principal(p), operation, input)
            .map_err(call_error)
    }

    fn info(
        &mut self,
        _p: &Principal,
    ) -> Result<serde_json::Map<String, serde_json::Value>, CallError> {
        match crate::info::describe(self.engram) {
            Ok(serde_json::Value::Object(m)) => Ok(m),
            Ok(_) => Err(CallError::Host("info: not a JSON object".into())),
            Err(f) => Err(CallError::Host(f.message)),
        }
    }

    fn begin(&mut self) -> Result<(), CallError> {
        self.engram.begin_batch().map_err(call_error)
    }

    fn finish(&mut self, commit: bool) -> Result<(), CallError> {
        self.engram.finish_batch(commit).map_err(call_error)
    }
}
