//! A request's failure as `{"error": "…", "status": N}`, with the statuses
//! and wording of `engram serve` (host/src/app/serve/error.rs).

use engram_contract::item;
use serde_json::json;

use crate::api::{PolicyError, Response};

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
    }
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, message)
    }

    pub fn response(&self) -> Response {
        Response::json(
            self.status,
            &json!({"error": self.message, "status": self.status}),
        )
    }
}

/// The policy's error as serve reports it (`describe_policy_error` and
/// `ApiError::from` in the host).
pub fn from_policy(e: PolicyError) -> ApiError {
    match e {
        PolicyError::InvalidInput(f) => ApiError::bad_request(match f.index {
            Some(i) => format!("item {i}: {}", item::field_text(&f)),
            None => item::field_text(&f),
        }),
        PolicyError::Unsupported(m) => ApiError::bad_request(format!("unsupported: {m}")),
        PolicyError::NotFound(m) => ApiError::new(404, format!("not found: {m}")),
        PolicyError::PermissionDenied(m) => ApiError::new(403, format!("permission denied: {m}")),
        PolicyError::Conflict(m) => ApiError::new(409, format!("conflict: {m}")),
        PolicyError::LimitExceeded(m) => ApiError::new(413, format!("limit exceeded: {m}")),
        PolicyError::Store(m) => {
            let status = if m.contains("denied:") { 403 } else { 500 };
            ApiError::new(status, format!("store: {m}"))
        }
    }
}
