//! The memory inspector: the web page `engram serve` answers at `/`.
//! (Owned by the inspector work; `serve` only merges `routes()`.)

use axum::response::Html;
use axum::routing::get;
use axum::Router;

use super::serve::ServeState;

const INDEX: &str = include_str!("assets/index.html");

/// The inspector's routes, merged into the server's router.
pub fn routes() -> Router<ServeState> {
    Router::new().route("/", get(|| async { Html(INDEX) }))
}
