//! The HTTP API (SPEC §4.1), a transport of the component's JSON contract:
//! each endpoint checks every scope of the request against the key's
//! principal before anything runs (403, nothing written), hands the body
//! to the component as it arrived, for that principal, and answers what
//! the component printed.

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use engram_contract::route::{self, ListQuery};
use engram_contract::wire;
use serde_json::{json, Value};

use super::auth::Authed;
use super::codec::{named, parse_batch, read_body, respond, respond_one, wants_ndjson, Batch};
use super::error::ApiError;
use super::state::ServeState;
use engram_host::bindings as w;

/// The API's routes (the inspector's are in `crate::inspector`).
pub fn api() -> Router<ServeState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/v1/info", get(info))
        .route("/v1/classify", post(classify))
        .route("/v1/remember", post(remember))
        .route("/v1/import", post(import))
        .route("/v1/recall", post(recall))
        .route("/v1/forget", post(forget))
        .route("/v1/pack", post(pack))
        .route("/v1/sweep", post(sweep))
        .route("/v1/review", post(review))
        .route("/v1/operations/record", post(record_operations))
        .route("/v1/operations/get", post(get_operations))
        .route("/v1/memories", get(list))
        .route("/v1/memories/{id}/history", get(history))
}

async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

async fn info(State(st): State<ServeState>, _authed: Authed) -> Result<Json<Value>, ApiError> {
    let v = st.with_engram(|e| Ok(crate::info::describe(e)?)).await?;
    Ok(Json(v))
}

/// Refuse the request if any item's scope is outside the key's principal.
/// A memory id is bounded to the principal by the store itself; an item
/// whose scope cannot be read is refused by the component, naming why.
fn check_scopes(authed: &Authed, batch: &Batch) -> Result<(), ApiError> {
    for item in &batch.items {
        if let Some(scope) = &item.scope {
            authed.check(scope, &batch.form.label(item.index))?;
        }
    }
    Ok(())
}

/// A batch operation of the contract (one output line per item) on the
/// request's body, for the key's principal.
pub async fn run_batch(
    st: ServeState,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
    op: &'static str,
) -> Result<Response, ApiError> {
    let text = read_body(body, &headers, st.limits()).await?;
    let batch = parse_batch(op, &text, &headers, st.limits())?;
    check_scopes(&authed, &batch)?;
    let (form, ndjson, empty) = (batch.form, batch.ndjson, batch.items.is_empty());
    if empty {
        return Ok(respond("", ndjson));
    }
    let p = authed.principal.clone();
    let call = move |e: &mut engram_host::Engram| {
        e.call_json(p, op, &text)
            .map_err(|x| named(x, |i| Some(form.label(i))))
    };
    let writes = engram_contract::ops::operation(op).is_some_and(|o| o.writes);
    let lines = if writes {
        st.with_engram_tx(call).await?
    } else {
        st.with_engram(call).await?
    };
    Ok(respond(&lines, ndjson))
}

async fn classify(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "classify").await
}

async fn remember(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "remember").await
}

async fn import(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "import").await
}

async fn recall(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "recall").await
}

/// Forget: one report per selector, all in one transaction.
async fn forget(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let text = read_body(body, &headers, st.limits()).await?;
    let batch = parse_batch("forget", &text, &headers, st.limits())?;
    check_scopes(&authed, &batch)?;
    let form = batch.form;
    let selectors: Vec<(String, String)> = batch
        .items
        .iter()
        .map(|i| (form.label(i.index), route::rejoin(form, [i.text])))
        .collect();
    let ndjson = batch.ndjson;
    let p = authed.principal.clone();
    let reports = st
        .with_engram_tx(move |e| {
            let mut reports = String::new();
            for (label, selector) in selectors {
                let r = e.call_json(p.clone(), "forget", &selector).map_err(|err| {
                    match err.about_item() {
                        // The call held this one selector: its item 0.
                        Some(_) => named(err, |_| Some(label.clone())),
                        None => with_label(ApiError::from(err), &label),
                    }
                })?;
                reports.push_str(&r);
            }
            Ok(reports)
        })
        .await?;
    Ok(respond(&reports, ndjson))
}

/// `POST /v1/review` (also the inspector's `POST /inspector/review`): a
/// batch of `{"id", "revision", "verdict": "approve"|"reject",
/// "reference"?}` → one outcome each, in one transaction. No scope to
/// check: the policy reads the memories through the key's principal, so an
/// id of another principal is simply not found (404).
pub(crate) async fn review(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "review").await
}

/// `POST /v1/operations/record`: execution records (`{"operation_id",
/// "scope", "tool", "status", …}`) → one receipt each, in one transaction;
/// a scope outside the key's principal is a 403 before anything runs.
async fn record_operations(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "record-operations").await
}

/// `POST /v1/operations/get`: lookups (`{"operation_id", "scope"}`) → the
/// state of each operation, exactly by id (`"found": false` when none is
/// visible from the scope).
async fn get_operations(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    run_batch(st, authed, headers, body, "get-operations").await
}

fn with_label(mut e: ApiError, label: &str) -> ApiError {
    e.message = format!("{label}: {}", e.message);
    e
}

async fn pack(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let text = read_body(body, &headers, st.limits()).await?;
    engram_contract::ops::check("pack", &text).map_err(|e| {
        named(engram_host::Error::Policy(e), |_| {
            Some("pack request".into())
        })
    })?;
    if let Some(scope) = route::object_scope(&text) {
        authed.check(&scope, "pack request")?;
    }
    let p = authed.principal.clone();
    let packed = st
        .with_engram(move |e| {
            e.call_json(p, "pack", &text)
                .map_err(|x| named(x, |_| Some("pack request".into())))
        })
        .await?;
    Ok(respond_one(&packed))
}

/// The sweep body: `{"scope":{…}}`, a bare scope, or nothing (the key's
/// own scope); the scope it names.
fn sweep_request(text: &str, authed: &Authed) -> (String, Option<w::Scope>) {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() || compact == "{}" {
        let own = authed.own_scope();
        let request = json!({ "scope": wire::Scope::from(own.clone()) }).to_string();
        return (request, Some(own));
    }
    (text.to_string(), route::object_scope(text))
}

async fn sweep(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let text = read_body(body, &headers, st.limits()).await?;
    let (request, scope) = sweep_request(&text, &authed);
    engram_contract::ops::check("sweep", &request).map_err(|e| {
        named(engram_host::Error::Policy(e), |_| {
            Some("sweep request".into())
        })
    })?;
    if let Some(scope) = &scope {
        authed.check(scope, "sweep request")?;
    }
    let p = authed.principal.clone();
    let report = st
        .with_engram_tx(move |e| {
            e.call_json(p, "sweep", &request)
                .map_err(|x| named(x, |_| Some("sweep request".into())))
        })
        .await?;
    Ok(respond_one(&report))
}

/// `GET /v1/memories?tenant=&user=&project=&thread=&agent=&status=`;
/// an absent tenant, user or project is the key's own.
async fn list(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let query = ListQuery::read(authed.own_scope(), params).map_err(ApiError::bad_request)?;
    authed.check(&query.scope, "query")?;
    let p = authed.principal.clone();
    let request = query.input();
    let memories = st
        .with_engram(move |e| Ok(e.call_json(p, "list", &request)?))
        .await?;
    Ok(respond(&memories, wants_ndjson(&headers)))
}

async fn history(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let p = authed.principal.clone();
    let request = json!({ "id": id }).to_string();
    let revisions = st
        .with_engram(move |e| Ok(e.call_json(p, "history", &request)?))
        .await?;
    if revisions.is_empty() {
        return Err(ApiError::not_found(format!(
            "no memory with id '{id}' in this key's scope"
        )));
    }
    Ok(respond(&revisions, wants_ndjson(&headers)))
}
