//! A request's failure as an HTTP status and a JSON body
//! `{"error": "…", "status": N}`; the message is the one the CLI prints for
//! the same failure.

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::failure::Failure;
use engram_host::bindings as w;
use engram_host::Error;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Seconds until a rate-limited key may try again (`Retry-After`).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }
    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        let status = match &e {
            Error::Policy(w::Error::PermissionDenied(_)) => StatusCode::FORBIDDEN,
            Error::Policy(w::Error::InvalidInput(_)) | Error::Policy(w::Error::Unsupported(_)) => {
                StatusCode::BAD_REQUEST
            }
            Error::Policy(w::Error::NotFound(_)) => StatusCode::NOT_FOUND,
            Error::Policy(w::Error::Conflict(_)) => StatusCode::CONFLICT,
            Error::Policy(w::Error::LimitExceeded(_)) => StatusCode::PAYLOAD_TOO_LARGE,
            Error::Policy(w::Error::Store(m)) | Error::Store(m) if m.contains("denied:") => {
                StatusCode::FORBIDDEN
            }
            Error::Policy(w::Error::Store(m)) | Error::Store(m)
                if m.contains("database is locked") =>
            {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Error::Policy(w::Error::Store(_)) | Error::Store(_) | Error::Runtime(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<Failure> for ApiError {
    fn from(f: Failure) -> Self {
        let status = if f.code == 1 {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::INTERNAL_SERVER_ERROR
        };
        ApiError::new(status, f.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": self.message, "status": self.status.as_u16()});
        let mut r = (self.status, axum::Json(body)).into_response();
        if let Some(s) = self.retry_after {
            if let Ok(v) = HeaderValue::from_str(&s.to_string()) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        r
    }
}

/// Turn every error answer that is not JSON already (axum's own 404 for an
/// unknown path and 405 for a known path with another method, and its
/// extractor rejections) into `{"error": "…", "status": N}`, keeping its
/// status and headers (`Allow` on a 405).
pub async fn json_errors(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let r = next.run(req).await;
    let status = r.status();
    let is_json = r
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return r;
    }
    let (mut parts, body) = r.into_parts();
    let text = axum::body::to_bytes(body, 64 << 10)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = match status {
        StatusCode::NOT_FOUND => format!("no such endpoint: {method} {path} (docs/serve.md)"),
        StatusCode::METHOD_NOT_ALLOWED => {
            let allowed = parts
                .headers
                .get(header::ALLOW)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            if allowed.is_empty() {
                format!("{method} is not allowed on {path} (docs/serve.md)")
            } else {
                format!("{method} is not allowed on {path} (allowed: {allowed})")
            }
        }
        _ if !text.is_empty() => text,
        _ => status
            .canonical_reason()
            .unwrap_or("request failed")
            .to_string(),
    };
    let body = serde_json::to_vec(&json!({"error": message, "status": status.as_u16()}))
        .unwrap_or_default();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(body))
}
