//! The HTTP API (SPEC §4.1) is `engram-api`'s: this module is its axum
//! adapter. A request becomes an `engram_api::Request` (its body read up
//! to one byte past the limit), and `engram_api::Api::handle` answers it on
//! tokio's blocking pool with an `Engram` of its own as its `Policy`
//! (`ServeState::handle`, `policy::Native`).

use std::pin::Pin;

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::response::Response;
use engram_api::ApiError;

use super::error::to_response;
use super::state::ServeState;

/// Every API route: `engram-api` routes, authenticates and answers.
pub async fn api(State(st): State<ServeState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = match read_up_to(body, st.limits().max_body_bytes).await {
        Ok(b) => b,
        Err(e) => return to_response(ApiError::bad_request(e).response()),
    };
    let request = engram_api::Request {
        method: parts.method.as_str().to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or("").to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
    };
    to_response(st.handle(request).await)
}

/// `POST /inspector/review`: the page's own path for `POST /v1/review`.
pub async fn inspector_review(st: State<ServeState>, mut req: Request) -> Response {
    *req.uri_mut() = axum::http::Uri::from_static("/v1/review");
    api(st, req).await
}

/// The body, read up to one byte past `max` (the API names the limit).
async fn read_up_to(mut body: Body, max: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(|e| format!("request body: reading it failed: {e}"))?;
        if let Ok(data) = frame.into_data() {
            out.extend_from_slice(&data);
            if out.len() > max {
                break;
            }
        }
    }
    Ok(out)
}
