//! Request bodies in, responses out. A batch body is a JSON array of the
//! CLI's objects, or JSON Lines (`application/x-ndjson`); it is handed to
//! the component as it arrived (the contract reads it, `engram_contract`),
//! and its JSON Lines answer goes back as a JSON array or as JSON Lines.

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use engram_contract::route::{self, Routed};
use engram_contract::Form;

use super::error::ApiError;
use super::limits::Limits;
use engram_host::bindings as w;
use engram_host::Error;

const NDJSON: &str = "application/x-ndjson";

/// A request's batch: its text, how it was written and its items.
pub struct Batch<'a> {
    pub text: &'a str,
    pub form: Form,
    pub items: Vec<Routed<'a>>,
    /// Answer in JSON Lines (asked for by `Content-Type` or `Accept`).
    pub ndjson: bool,
}

fn is_ndjson(headers: &HeaderMap, name: header::HeaderName) -> bool {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.contains(NDJSON) || v.contains("application/jsonl"))
        .unwrap_or(false)
}

/// Does the client want JSON Lines back?
pub fn wants_ndjson(headers: &HeaderMap) -> bool {
    is_ndjson(headers, header::ACCEPT) || is_ndjson(headers, header::CONTENT_TYPE)
}

/// The whole body as text, refused past the size limit (named).
pub async fn read_body(
    body: Body,
    headers: &HeaderMap,
    limits: &Limits,
) -> Result<String, ApiError> {
    let max = limits.args.max_body_bytes;
    if let Some(len) = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
    {
        limits.check_body(len)?;
    }
    let bytes = axum::body::to_bytes(body, max).await.map_err(|_| {
        ApiError::too_large(format!(
            "request body: over the limit of {max} bytes (--max-body-bytes)"
        ))
    })?;
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        ApiError::bad_request(format!(
            "request body: invalid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A batch for operation `op`: a JSON array, or JSON Lines when the body
/// says so; its item count is checked against the limit, and every item
/// is read as the operation reads it (a bad item is refused, naming it
/// and its field, before anything runs).
pub fn parse_batch<'a>(
    op: &str,
    text: &'a str,
    headers: &HeaderMap,
    limits: &Limits,
) -> Result<Batch<'a>, ApiError> {
    let ndjson_in = is_ndjson(headers, header::CONTENT_TYPE);
    if !ndjson_in && !text.trim_start().starts_with('[') {
        return Err(ApiError::bad_request(
            "request body: expected a JSON array of objects (or JSON Lines with `Content-Type: application/x-ndjson`)",
        ));
    }
    let (form, items) = route::batch(text).map_err(|e| named(Error::Policy(e), |_| None))?;
    limits.check_items(items.len())?;
    engram_contract::ops::check(op, text)
        .map_err(|e| named(Error::Policy(e), |i| Some(form.label(i))))?;
    Ok(Batch {
        text,
        form,
        items,
        ndjson: wants_ndjson(headers),
    })
}

/// A failure of the policy call; one about an item (a bad field, an item
/// not found) is named by `label(index)` ("item 3", "line 3", "pack
/// request") as the CLI names its line, an input error about no item as
/// the request body's. The status stays the error's (400, or 404 for an
/// item not found).
pub fn named(e: Error, label: impl Fn(u32) -> Option<String>) -> ApiError {
    let labelled = e
        .about_item()
        .and_then(|(i, text)| Some(format!("{}: {text}", label(i)?)));
    let message = match &e {
        _ if labelled.is_some() => labelled,
        Error::Policy(w::Error::InvalidInput(fe)) => Some(format!(
            "request body: {}",
            engram_contract::item::field_text(fe)
        )),
        _ => None,
    };
    let mut api = ApiError::from(e);
    if let Some(message) = message {
        api.message = message;
    }
    api
}

/// JSON Lines from the component, as a JSON array or as JSON Lines.
pub fn respond(lines: &str, ndjson: bool) -> Response {
    if ndjson {
        (
            StatusCode::OK,
            [(header::CONTENT_TYPE, NDJSON)],
            lines.to_string(),
        )
            .into_response()
    } else {
        json_response(route::rejoin(Form::Array, lines.lines()))
    }
}

/// One JSON object (the component's single output line).
pub fn respond_one(lines: &str) -> Response {
    json_response(lines.trim_end().to_string())
}

fn json_response(text: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        text,
    )
        .into_response()
}
