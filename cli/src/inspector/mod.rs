//! The memory inspector: the web page `engram serve` answers at `/` (seed
//! 001's memory panel). A user or an operator sees what the agent remembers,
//! searches it with the ranking explained, reads a memory's history,
//! corrects it (a new revision that supersedes the old one, never an
//! in-place edit; the form says what saving will do), forgets it (after a
//! confirmation naming what will be erased), reviews pending inferences and
//! previews a packed context.
//!
//! The page is static HTML, CSS and one ES module embedded in the binary (no
//! build step). It calls the public API (`/v1/…`) with the caller's key, so
//! it sees exactly what that key may see. Two routes live here, behind the
//! same authentication: `GET /inspector/whoami` (the key's principal, so the
//! page knows its scope, which the public API lacks) and
//! `POST /inspector/review`, the same handler as `POST /v1/review`.

use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::serve::auth::Authed;
use crate::serve::state::ServeState;

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
        // The page's own path for the API's review (kept for its callers).
        .route("/inspector/review", post(crate::serve::routes::review))
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
