//! What the API calls: the policy's JSON contract for a principal,
//! supplied by the adapter — natively `engram-host`'s `Engram::call_json`,
//! in the edge component the `engram:memory/json` import. Both run the
//! same code path above it ([`crate::Api::handle`]).

use serde_json::{Map, Value};

use crate::auth::Principal;
use crate::error::CallError;

/// The policy behind the API.
pub trait Policy {
    /// Run contract operation `operation` (`engram_contract::OPERATIONS`)
    /// on `input` (JSON Lines or a JSON array, as the request sent it) for
    /// `principal`: the operation's output lines.
    fn call(
        &mut self,
        principal: &Principal,
        operation: &str,
        input: &str,
    ) -> Result<String, CallError>;

    /// The body of `GET /v1/info`: by default the policy's own `info`
    /// object ([`policy_info`]); a host adds what it knows of itself.
    fn info(&mut self, principal: &Principal) -> Result<Map<String, Value>, CallError> {
        policy_info(self, principal)
    }

    /// Make every call until [`Policy::finish`] one transaction. By
    /// default nothing: each call commits on its own (a key-value store
    /// has no transaction spanning calls).
    fn begin(&mut self) -> Result<(), CallError> {
        Ok(())
    }

    /// Commit (`commit`) or roll back everything since [`Policy::begin`].
    fn finish(&mut self, commit: bool) -> Result<(), CallError> {
        let _ = commit;
        Ok(())
    }
}

/// The policy's `info` operation as one JSON object.
pub fn policy_info<P: Policy + ?Sized>(
    policy: &mut P,
    principal: &Principal,
) -> Result<Map<String, Value>, CallError> {
    let out = policy.call(principal, "info", "{}")?;
    let line = out.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match serde_json::from_str(line) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(CallError::Host(format!(
            "the policy answered something other than one JSON object: {line:.200}"
        ))),
    }
}
