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
use serde::Deserialize;
use serde_json::{json, Value};

use super::serve::auth::Authed;
use super::serve::codec::{parse_batch, parse_value, read_body, respond};
use super::serve::error::ApiError;
use super::serve::ServeState;
use crate::bindings as w;

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

/// One verdict on a pending revision.
#[derive(Debug, Deserialize)]
struct ReviewIn {
    id: String,
    revision: u32,
    verdict: VerdictIn,
    #[serde(default)]
    reference: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum VerdictIn {
    Approve,
    Reject,
}

fn verdict_name(v: w::Verdict) -> &'static str {
    match v {
        w::Verdict::Approve => "approve",
        w::Verdict::Reject => "reject",
    }
}

fn ref_json(r: &w::MemoryRef) -> Value {
    json!({"id": r.id, "revision": r.revision})
}

fn outcome_json(o: &w::ReviewOutcome) -> Value {
    json!({
        "reviewed": ref_json(&o.reviewed),
        "verdict": verdict_name(o.verdict),
        "approved_as": o.approved_as.as_ref().map(ref_json),
        "superseded": o.superseded.iter().map(ref_json).collect::<Vec<_>>(),
        "reason": o.reason,
    })
}

/// `POST /inspector/review`: a JSON array of `{"id", "revision", "verdict":
/// "approve"|"reject", "reference"}` → one outcome each, in one transaction.
/// The policy reads the memories through the key's principal, so an id of
/// another tenant is simply not found.
async fn review(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let text = read_body(body, &headers, st.limits()).await?;
    let batch = parse_batch(&text, &headers, st.limits())?;
    let mut labels = Vec::new();
    let mut items = Vec::new();
    for item in batch.items {
        let r: ReviewIn = parse_value(item.value, &item.label)?;
        labels.push(item.label);
        items.push(w::ReviewItem {
            id: r.id,
            revision: r.revision,
            verdict: match r.verdict {
                VerdictIn::Approve => w::Verdict::Approve,
                VerdictIn::Reject => w::Verdict::Reject,
            },
            reference: r.reference,
        });
    }
    if items.is_empty() {
        return Ok(respond(Vec::new(), batch.ndjson));
    }
    let principal = authed.principal.clone();
    let outcomes = st
        .with_engram_tx(move |e| {
            e.review(principal, items)
                .map_err(|x| named_item(x, &labels))
        })
        .await?;
    Ok(respond(
        outcomes.iter().map(outcome_json).collect(),
        batch.ndjson,
    ))
}

/// A policy error about one item, named as the request names it.
fn named_item(e: crate::Error, labels: &[String]) -> ApiError {
    if let crate::Error::Policy(w::Error::InvalidInput(fe)) = &e {
        if let Some(label) = fe.index.and_then(|i| labels.get(i as usize)) {
            return ApiError::bad_request(format!("{label}: field `{}`: {}", fe.field, fe.message));
        }
    }
    ApiError::from(e)
}
