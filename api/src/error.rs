//! A request's failure as a status and a body `{"error": "…", "status": N}`,
//! and the one mapping of the policy's errors (the contract's `error`
//! variant) to statuses and texts.

use engram_contract::item;
use engram_contract::message::describe;
use engram_contract::types::Error;
use serde_json::json;

use crate::http::Response;

/// Why a policy call failed, as the adapter reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The policy's own error (the contract's `error` variant; the store's
    /// refusal of a scope outside the principal reaches it typed, as
    /// `permission-denied`).
    Policy(Error),
    /// The store is busy for now (SQLite's lock held past its timeout):
    /// 503, worth trying again.
    Busy(String),
    /// The host failed around the call (the runtime trapped, the store
    /// could not be opened): 500.
    Host(String),
}

impl From<Error> for CallError {
    fn from(e: Error) -> Self {
        CallError::Policy(e)
    }
}

/// A failure answered as `{"error": message, "status": status}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// One line for a person: what failed, naming the item and field.
    pub message: String,
    /// Seconds until a rate-limited key may try again (`Retry-After`).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// A failure with this status.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    /// 400: the request is malformed.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, message)
    }

    /// 500: the host failed.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, message)
    }

    /// The same failure, its message led by `label` ("item 2: …").
    pub fn labelled(mut self, label: &str) -> Self {
        self.message = format!("{label}: {}", self.message);
        self
    }

    /// The answer: status, JSON body, `Retry-After`.
    pub fn response(&self) -> Response {
        Response {
            status: self.status,
            retry_after: self.retry_after,
            ..Response::json(json!({"error": self.message, "status": self.status}).to_string())
        }
    }
}

/// The status of a policy error.
pub fn status_of(e: &Error) -> u16 {
    match e {
        Error::InvalidInput(_) | Error::Unsupported(_) => 400,
        Error::PermissionDenied(_) => 403,
        Error::NotFound(_) => 404,
        Error::Conflict(_) => 409,
        Error::LimitExceeded(_) => 413,
        Error::Store(_) => 500,
    }
}

impl From<CallError> for ApiError {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Policy(e) => ApiError::new(status_of(&e), describe(&e)),
            CallError::Busy(m) => ApiError::new(503, m),
            CallError::Host(m) => ApiError::internal(m),
        }
    }
}

/// A failed call with its item named as the request names it: an error
/// about an item (a bad field, an item not found) by `label(index)` ("item
/// 3", "line 3", "pack request"), an input error about no item as the
/// request body's. The status stays the error's.
pub fn named(e: CallError, label: impl Fn(u32) -> Option<String>) -> ApiError {
    let message = match &e {
        CallError::Policy(p) => match item::about_item(p) {
            Some((i, text)) => label(i).map(|l| format!("{l}: {text}")),
            None => None,
        }
        .or_else(|| match p {
            Error::InvalidInput(f) => Some(format!("request body: {}", item::field_text(f))),
            _ => None,
        }),
        _ => None,
    };
    let mut api = ApiError::from(e);
    if let Some(message) = message {
        api.message = message;
    }
    api
}

#[cfg(test)]
mod tests {
    use super::*;
    use engram_contract::types::FieldError;

    fn field(index: Option<u32>) -> CallError {
        CallError::Policy(Error::InvalidInput(FieldError {
            index,
            field: "source".into(),
            message: "required, but missing".into(),
        }))
    }

    #[test]
    fn every_policy_error_has_one_status_and_text() {
        for (e, status, text) in [
            (
                field(Some(1)),
                400,
                "item 2: field `source`: required, but missing",
            ),
            (Error::Unsupported("x".into()).into(), 400, "unsupported: x"),
            (
                Error::PermissionDenied("u".into()).into(),
                403,
                "permission denied: u",
            ),
            (Error::NotFound("m".into()).into(), 404, "not found: m"),
            (Error::Conflict("lost".into()).into(), 409, "conflict: lost"),
            (
                Error::LimitExceeded("b".into()).into(),
                413,
                "limit exceeded: b",
            ),
            (Error::Store("disk".into()).into(), 500, "store: disk"),
            (
                CallError::Busy("database is locked".into()),
                503,
                "database is locked",
            ),
            (CallError::Host("trap".into()), 500, "trap"),
        ] {
            assert_eq!(ApiError::from(e), ApiError::new(status, text));
        }
    }

    #[test]
    fn an_item_is_named_as_the_request_names_it() {
        let line = |i: u32| Some(format!("line {}", i + 1));
        assert_eq!(
            named(field(Some(2)), line).message,
            "line 3: field `source`: required, but missing"
        );
        assert_eq!(
            named(field(None), line).message,
            "request body: field `source`: required, but missing"
        );
        let missing = CallError::Policy(item::not_found(0, "no pending revision"));
        let e = named(missing, line);
        assert_eq!(
            (e.status, e.message.as_str()),
            (404, "line 1: not found: no pending revision")
        );
        let e = named(Error::Conflict("lost".into()).into(), line);
        assert_eq!(e.message, "conflict: lost");
        let r = ApiError::new(429, "slow down").response();
        assert_eq!(r.body, r#"{"error":"slow down","status":429}"#);
    }
}
