//! `engram-api`'s answers as axum responses, and every error answer that
//! is not JSON already (axum's own 405 on the inspector's routes, an
//! extractor's rejection) made `{"error": "…", "status": N}`.

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use engram_api::ApiError;

/// An `engram-api` answer as axum's.
pub fn to_response(r: engram_api::Response) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut out = (status, [(header::CONTENT_TYPE, r.content_type)], r.body).into_response();
    if let Some(s) = r.retry_after {
        if let Ok(v) = HeaderValue::from_str(&s.to_string()) {
            out.headers_mut().insert(header::RETRY_AFTER, v);
        }
    }
    out
}

/// A refusal of the inspector's own routes (`Authed`), answered as the API
/// answers it.
#[derive(Debug)]
pub struct Refusal(pub ApiError);

impl From<ApiError> for Refusal {
    fn from(e: ApiError) -> Self {
        Refusal(e)
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        to_response(self.0.response())
    }
}

/// Turn every error answer that is not JSON already into `{"error": "…",
/// "status": N}`, keeping its status and headers (`Allow` on a 405), with
/// the API's own wording for a 404 and a 405.
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
        StatusCode::NOT_FOUND => engram_api::no_such_endpoint(method.as_str(), &path).message,
        StatusCode::METHOD_NOT_ALLOWED => engram_api::not_allowed(method.as_str(), &path).message,
        _ if !text.is_empty() => text,
        _ => status
            .canonical_reason()
            .unwrap_or("request failed")
            .to_string(),
    };
    let body = ApiError::new(status.as_u16(), message).response().body;
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(body))
}
