//! The memory inspector: the web page `engram serve` answers at `/` (seed
//! 001's memory panel). A user or an operator sees what the agent remembers,
//! searches it with the ranking explained, reads a memory's history,
//! corrects it (a new revision, never an in-place edit), forgets it, reviews
//! pending inferences and previews a packed context.
//!
//! The page is static HTML, CSS and one ES module embedded in the binary (no
//! build step). It calls the public API (`/v1/…`) with the caller's key, so
//! it sees exactly what that key may see. Two routes the public API lacks
//! live here, behind the same authentication: `GET /inspector/whoami` (the
//! key's principal, so the page knows its scope) and `POST /inspector/review`
//! (approve or reject pending memories, the policy's `review`).

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::serve::auth::Authed;
use super::serve::error::ApiError;
use super::serve::routes::run_batch;
use super::serve::ServeState;

const INDEX: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The inspector's routes, merged into the server's router.
pub fn routes() -> Router<ServeState> {
    Router::new()
        .route("/", get(|| async { Html(INDEX) }))
        .route(
            "/inspector/assets/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/inspector/assets/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/inspector/whoami", get(whoami))
        .route("/inspector/review", post(review))
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// The principal of the caller's key: the widest scope the page may show.
async fn whoami(authed: Authed) -> Json<Value> {
    let p = &authed.principal;
    Json(json!({"tenant": p.tenant, "user": p.user, "project": p.project}))
}

/// `POST /inspector/review`: a JSON array of `{"id", "revision", "verdict":
/// "approve"|"reject", "reference"}` → one outcome each, in one transaction
/// (the contract's `review`). The policy reads the memories through the
/// key's principal, so an id of another tenant is simply not found.
async fn review(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "review").await
}
