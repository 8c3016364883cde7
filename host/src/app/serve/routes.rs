//! The HTTP API (SPEC §4.1): each endpoint reads the CLI's input objects
//! with `wire`, checks every scope against the key's principal before
//! anything runs (403, nothing written), runs the policy for that
//! principal and answers the CLI's output objects.

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::auth::Authed;
use super::codec::{parse_batch, parse_object, parse_value, read_body, respond, wants_ndjson};
use super::error::ApiError;
use super::ServeState;
use crate::bindings as w;
use crate::{wire, Error};

/// The API's routes (the inspector's are in `app::inspector`).
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
        .route("/v1/memories", get(list))
        .route("/v1/memories/{id}/history", get(history))
}

async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

async fn info(State(st): State<ServeState>, _authed: Authed) -> Result<Json<Value>, ApiError> {
    let v = st
        .with_engram(|e| Ok(crate::app::cli::info_json(e)?))
        .await?;
    Ok(Json(v))
}

/// A policy error about item `index` of a call, named by the request's
/// label for that item ("item 3", "line 3") as the CLI names its line; the
/// status stays the error's (400, or 404 for an item not found).
fn at_item(e: Error, labels: &[String]) -> ApiError {
    let named = e
        .about_item()
        .and_then(|(i, text)| Some(format!("{}: {text}", labels.get(i)?)));
    let mut api = ApiError::from(e);
    if let Some(message) = named {
        api.message = message;
    }
    api
}

/// The policy answers one result per input, or the request fails.
fn one_each<R>(out: Vec<R>, inputs: usize) -> Result<Vec<R>, ApiError> {
    if out.len() != inputs {
        return Err(ApiError::internal(format!(
            "the policy returned {} results for {inputs} inputs",
            out.len()
        )));
    }
    Ok(out)
}

/// A request's items converted to the policy's types, each with its label
/// ("item 3", "line 3"), every scope they name already checked against the
/// key.
struct Checked<T> {
    items: Vec<T>,
    labels: Vec<String>,
    ndjson: bool,
}

/// Reads a batch body and converts each item with `convert`, which returns
/// the item and the scope it acts in; any scope outside the key's principal
/// refuses the whole request before anything runs.
async fn checked_batch<T>(
    st: &ServeState,
    authed: &Authed,
    headers: &HeaderMap,
    body: Body,
    convert: impl Fn(Value, &str) -> Result<(T, w::Scope), ApiError>,
) -> Result<Checked<T>, ApiError> {
    read_batch(st, headers, body, |value, label| {
        let (item, scope) = convert(value, label)?;
        authed.check(&scope, label)?;
        Ok(item)
    })
    .await
}

/// Reads a batch body and converts each item with `convert`.
async fn read_batch<T>(
    st: &ServeState,
    headers: &HeaderMap,
    body: Body,
    convert: impl Fn(Value, &str) -> Result<T, ApiError>,
) -> Result<Checked<T>, ApiError> {
    let text = read_body(body, headers, st.limits()).await?;
    let batch = parse_batch(&text, headers, st.limits())?;
    let mut checked = Checked {
        items: Vec::new(),
        labels: Vec::new(),
        ndjson: batch.ndjson,
    };
    for item in batch.items {
        checked.items.push(convert(item.value, &item.label)?);
        checked.labels.push(item.label);
    }
    Ok(checked)
}

async fn classify(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    decide(st, authed, headers, body, false).await
}

async fn remember(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    decide(st, authed, headers, body, true).await
}

/// classify (`store` false) or remember: candidates → decisions.
async fn decide(
    st: ServeState,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
    store: bool,
) -> Result<Response, ApiError> {
    let Checked {
        items: candidates,
        labels,
        ndjson,
    } = checked_batch(&st, &authed, &headers, body, |v, label| {
        let c: wire::CandidateIn = parse_value(v, label)?;
        let scope = c.scope.clone().into();
        Ok((w::Candidate::from(c), scope))
    })
    .await?;
    if candidates.is_empty() {
        return Ok(respond(Vec::new(), ndjson));
    }
    let p = authed.principal.clone();
    let n = candidates.len();
    let decisions = if store {
        st.with_engram_tx(move |e| e.remember(p, candidates).map_err(|x| at_item(x, &labels)))
            .await?
    } else {
        st.with_engram(move |e| e.classify(p, candidates).map_err(|x| at_item(x, &labels)))
            .await?
    };
    let decisions = one_each(decisions, n)?;
    Ok(respond(
        decisions.iter().map(wire::decision_json).collect(),
        ndjson,
    ))
}

async fn import(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Checked {
        items: records,
        labels,
        ndjson,
    } = checked_batch(&st, &authed, &headers, body, |v, label| {
        // Two passes over one object, as the CLI does, so errors keep their field path.
        let head: wire::ImportHead = parse_value(v.clone(), label)?;
        let candidate: wire::CandidateIn = parse_value(v, label)?;
        let scope = candidate.scope.clone().into();
        let record = wire::ImportIn {
            external_id: head.external_id,
            kind: head.kind,
            candidate,
        };
        Ok((w::ImportRecord::from(record), scope))
    })
    .await?;
    if records.is_empty() {
        return Ok(respond(Vec::new(), ndjson));
    }
    let p = authed.principal.clone();
    let n = records.len();
    let receipts = st
        .with_engram_tx(move |e| e.import(p, records).map_err(|x| at_item(x, &labels)))
        .await?;
    let receipts = one_each(receipts, n)?;
    Ok(respond(
        receipts
            .iter()
            .map(|r| json!({"id": r.memory_id, "external_id": r.external_id}))
            .collect(),
        ndjson,
    ))
}

async fn recall(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Checked {
        items: queries,
        labels,
        ndjson,
    } = checked_batch(&st, &authed, &headers, body, |v, label| {
        let q: wire::QueryIn = parse_value(v, label)?;
        let scope = q.scope.clone().into();
        Ok((w::Query::from(q), scope))
    })
    .await?;
    if queries.is_empty() {
        return Ok(respond(Vec::new(), ndjson));
    }
    let p = authed.principal.clone();
    let n = queries.len();
    let results = st
        .with_engram(move |e| e.recall(p, queries).map_err(|x| at_item(x, &labels)))
        .await?;
    let results = one_each(results, n)?;
    Ok(respond(
        results.iter().map(wire::recall_json).collect(),
        ndjson,
    ))
}

async fn forget(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let text = read_body(body, &headers, st.limits()).await?;
    let batch = parse_batch(&text, &headers, st.limits())?;
    let mut selectors = Vec::new();
    for item in batch.items {
        let f: wire::ForgetIn = parse_value(item.value, &item.label)?;
        let sel = f.selector().map_err(|(field, m)| {
            ApiError::bad_request(format!("{}: field `{field}`: {m}", item.label))
        })?;
        match &sel {
            // An id is bounded to the principal by the store itself.
            w::ForgetSelector::MemoryId(_) => {}
            w::ForgetSelector::Key(k) => authed.check(&k.scope, &item.label)?,
            w::ForgetSelector::Text(t) => authed.check(&t.scope, &item.label)?,
            w::ForgetSelector::SourceRef(r) => authed.check(&r.scope, &item.label)?,
        }
        selectors.push((item.label, sel));
    }
    let p = authed.principal.clone();
    let reports = st
        .with_engram_tx(move |e| {
            let mut reports = Vec::new();
            for (label, sel) in selectors {
                let r = e
                    .forget(p.clone(), vec![sel])
                    .map_err(|err| with_label(ApiError::from(err), &label))?;
                reports.push(wire::forget_json(&r));
            }
            Ok(reports)
        })
        .await?;
    Ok(respond(reports, batch.ndjson))
}

/// `POST /v1/review` (also the inspector's `POST /inspector/review`): a
/// batch of `{"id", "revision", "verdict": "approve"|"reject",
/// "reference"?}` → one outcome each, in one transaction. The policy reads
/// the memories through the key's principal, so an id of another principal
/// is simply not found (404).
pub(crate) async fn review(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    // No scope to check: the store reads only what the key's principal sees.
    let Checked {
        items,
        labels,
        ndjson,
    } = read_batch(&st, &headers, body, |v, label| {
        let r: wire::ReviewIn = parse_value(v, label)?;
        Ok(w::ReviewItem::from(r))
    })
    .await?;
    if items.is_empty() {
        return Ok(respond(Vec::new(), ndjson));
    }
    let p = authed.principal.clone();
    let n = items.len();
    let outcomes = st
        .with_engram_tx(move |e| e.review(p, items).map_err(|x| at_item(x, &labels)))
        .await?;
    let outcomes = one_each(outcomes, n)?;
    Ok(respond(
        outcomes.iter().map(wire::review_json).collect(),
        ndjson,
    ))
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
    let req: wire::PackIn = parse_object(&text, "pack request")?;
    authed.check(&req.scope.clone().into(), "pack request")?;
    let p = authed.principal.clone();
    let packed = st.with_engram(move |e| Ok(e.pack(p, req.into())?)).await?;
    Ok(Json(wire::packed_json(&packed)).into_response())
}

/// The sweep body: `{"scope":{…}}`, a bare scope, or nothing (the key's own scope).
fn sweep_scope(text: &str, authed: &Authed) -> Result<w::Scope, ApiError> {
    if text.trim().is_empty() {
        return Ok(authed.own_scope());
    }
    let v: Value = serde_json::from_str(text.trim())
        .map_err(|e| ApiError::bad_request(format!("sweep request: {e}")))?;
    match v {
        Value::Object(m) if m.is_empty() => Ok(authed.own_scope()),
        Value::Object(mut m) if m.contains_key("scope") => {
            let scope = m.remove("scope").unwrap_or(Value::Null);
            let s: wire::Scope = parse_value(scope, "sweep request: scope")?;
            Ok(s.into())
        }
        other => {
            let s: wire::Scope = parse_value(other, "sweep request")?;
            Ok(s.into())
        }
    }
}

async fn sweep(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let text = read_body(body, &headers, st.limits()).await?;
    let scope = sweep_scope(&text, &authed)?;
    authed.check(&scope, "sweep request")?;
    let p = authed.principal.clone();
    let report = st.with_engram_tx(move |e| Ok(e.sweep(p, scope)?)).await?;
    Ok(Json(wire::sweep_json(&report)).into_response())
}

/// `GET /v1/memories?tenant=&user=&project=&thread=&agent=&status=`;
/// an absent tenant, user or project is the key's own.
async fn list(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let mut scope = authed.own_scope();
    let mut statuses: Vec<w::Status> = Vec::new();
    for (name, value) in params {
        match name.as_str() {
            "tenant" => scope.tenant = value,
            "user" => scope.user = Some(value),
            "project" => scope.project = Some(value),
            "thread" => scope.thread = Some(value),
            "agent" => scope.agent = Some(value),
            "status" => {
                for s in value.split(',').filter(|s| !s.is_empty()) {
                    let st: wire::Status = serde_json::from_value(Value::String(s.to_string()))
                        .map_err(|_| ApiError::bad_request(format!("status: unknown status '{s}' (pending, active, superseded, retracted, expired, conflicted, archived)")))?;
                    statuses.push(st.into());
                }
            }
            other => {
                return Err(ApiError::bad_request(format!(
                "unknown query parameter '{other}' (tenant, user, project, thread, agent, status)"
            )))
            }
        }
    }
    authed.check(&scope, "query")?;
    let p = authed.principal.clone();
    let memories = st
        .with_engram(move |e| Ok(e.list(p, scope, statuses)?))
        .await?;
    Ok(respond(
        memories.iter().map(wire::memory_json).collect(),
        wants_ndjson(&headers),
    ))
}

async fn history(
    State(st): State<ServeState>,
    authed: Authed,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let p = authed.principal.clone();
    let lookup = id.clone();
    let revisions = st.with_engram(move |e| Ok(e.history(p, &lookup)?)).await?;
    if revisions.is_empty() {
        return Err(ApiError::not_found(format!(
            "no memory with id '{id}' in this key's scope"
        )));
    }
    Ok(respond(
        revisions.iter().map(wire::memory_json).collect(),
        wants_ndjson(&headers),
    ))
}
