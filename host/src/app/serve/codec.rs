//! Request bodies in, responses out: a JSON array or JSON Lines
//! (`application/x-ndjson`) of the CLI's objects, each read with
//! `host/src/wire.rs` like the CLI reads a line.

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;
use super::limits::Limits;

const NDJSON: &str = "application/x-ndjson";

/// One item of a batch and how to name it in an error.
pub struct Item {
    /// "item 3" (1-based) in a JSON array, "line 3" in JSON Lines.
    pub label: String,
    pub value: Value,
}

/// A parsed request body.
pub struct Batch {
    pub items: Vec<Item>,
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

/// A batch: a JSON array, or JSON Lines when the body says so.
pub fn parse_batch(text: &str, headers: &HeaderMap, limits: &Limits) -> Result<Batch, ApiError> {
    let ndjson_in = is_ndjson(headers, header::CONTENT_TYPE);
    let mut items = Vec::new();
    if ndjson_in {
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(raw)
                .map_err(|e| ApiError::bad_request(format!("line {}: {e}", i + 1)))?;
            items.push(Item {
                label: format!("line {}", i + 1),
                value,
            });
            limits.check_items(items.len())?;
        }
    } else {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ApiError::bad_request(format!("request body: {e}")))?;
        let Value::Array(values) = value else {
            return Err(ApiError::bad_request(
                "request body: expected a JSON array of objects (or JSON Lines with `Content-Type: application/x-ndjson`)",
            ));
        };
        limits.check_items(values.len())?;
        items = values
            .into_iter()
            .enumerate()
            .map(|(i, value)| Item {
                label: format!("item {}", i + 1),
                value,
            })
            .collect();
    }
    Ok(Batch {
        items,
        ndjson: wants_ndjson(headers),
    })
}

/// One object: the body as JSON.
pub fn parse_object<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, ApiError> {
    let value: Value = serde_json::from_str(text.trim())
        .map_err(|e| ApiError::bad_request(format!("{what}: {e}")))?;
    parse_value(value, what)
}

/// Read `value` as a `T`, naming the field of the first error as the CLI does.
pub fn parse_value<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let text = crate::app::cli::plain_type_names(&e.inner().to_string());
        if path == "." || path.is_empty() {
            ApiError::bad_request(format!("{what}: {text}"))
        } else {
            ApiError::bad_request(format!("{what}: field `{path}`: {text}"))
        }
    })
}

/// An array of objects: a JSON array, or JSON Lines.
pub fn respond(values: Vec<Value>, ndjson: bool) -> Response {
    if ndjson {
        let mut text = String::new();
        for v in &values {
            text.push_str(&v.to_string());
            text.push('\n');
        }
        (StatusCode::OK, [(header::CONTENT_TYPE, NDJSON)], text).into_response()
    } else {
        axum::Json(Value::Array(values)).into_response()
    }
}
