//! Request bodies as `engram serve` reads them (host/src/app/serve/codec.rs):
//! a JSON array of objects, or JSON Lines when `Content-Type` says
//! `application/x-ndjson`; each item named "item N" or "line N" in errors;
//! the body and batch limits checked first.

use serde_json::Value;

use crate::api::{PolicyError, Request};
use crate::auth::Scope;
use crate::config::Config;
use crate::error::{from_policy, ApiError};

/// How the items of a request are named in errors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Form<'a> {
    /// JSON Lines: "line N" (the policy's index is the 0-based line).
    Lines,
    /// A JSON array: "item N" (the index is the 0-based position).
    Array,
    /// One object named so ("pack request"): field errors only.
    Named(&'a str),
    /// One item of a batch handled alone: every error gets its name.
    Prefixed(&'a str),
}

pub struct Item {
    pub label: String,
    pub value: Value,
}

pub struct Batch {
    /// The body as sent (what the policy's contract reads).
    pub text: String,
    pub form: Form<'static>,
    pub items: Vec<Item>,
}

fn is_ndjson(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.contains("application/x-ndjson") || v.contains("application/jsonl"))
}

/// The whole body as text, refused past the size limit (named).
pub fn body_text(config: &Config, req: &Request) -> Result<String, ApiError> {
    let max = config.max_body_bytes;
    let declared = req
        .header("content-length")
        .and_then(|v| v.trim().parse::<usize>().ok());
    let len = declared.unwrap_or(0).max(req.body.len());
    if len > max {
        return Err(ApiError::new(
            413,
            format!("request body: {len} bytes is over the limit of {max} bytes (ENGRAM_MAX_BODY_BYTES)"),
        ));
    }
    String::from_utf8(req.body.clone()).map_err(|e| {
        ApiError::bad_request(format!(
            "request body: invalid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn check_items(config: &Config, n: usize) -> Result<(), ApiError> {
    if n > config.max_items {
        return Err(ApiError::new(
            413,
            format!(
                "batch: {n} items is over the limit of {} items per request (ENGRAM_MAX_ITEMS)",
                config.max_items
            ),
        ));
    }
    Ok(())
}

/// A batch body, every item parsed as JSON and counted.
pub fn read_batch(config: &Config, req: &Request) -> Result<Batch, ApiError> {
    let text = body_text(config, req)?;
    let mut items = Vec::new();
    if is_ndjson(req.header("content-type")) {
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
            check_items(config, items.len())?;
        }
        return Ok(Batch {
            text,
            form: Form::Lines,
            items,
        });
    }
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| ApiError::bad_request(format!("request body: {e}")))?;
    let Value::Array(values) = value else {
        return Err(ApiError::bad_request(
            "request body: expected a JSON array of objects (or JSON Lines with `Content-Type: application/x-ndjson`)",
        ));
    };
    check_items(config, values.len())?;
    items = values
        .into_iter()
        .enumerate()
        .map(|(i, value)| Item {
            label: format!("item {}", i + 1),
            value,
        })
        .collect();
    Ok(Batch {
        text,
        form: Form::Array,
        items,
    })
}

/// The scope an item acts in, when it names one readably (a malformed one
/// is left to the policy, which names the field).
pub fn scope_of(item: &Value) -> Option<Scope> {
    serde_json::from_value(item.get("scope")?.clone()).ok()
}

/// A scope the request must name correctly (sweep).
pub fn parse_scope(v: &Value, what: &str) -> Result<Scope, ApiError> {
    serde_json::from_value(v.clone()).map_err(|e| ApiError::bad_request(format!("{what}: {e}")))
}

/// A policy error named as serve names it: a field error by its item's
/// label, anything else as the policy says it.
pub fn labelled(e: PolicyError, form: Option<Form>) -> ApiError {
    let label = |i: u32| match form {
        Some(Form::Lines) => Some(format!("line {}", i + 1)),
        Some(Form::Array) => Some(format!("item {}", i + 1)),
        Some(Form::Named(l)) | Some(Form::Prefixed(l)) => Some(l.to_string()),
        None => None,
    };
    if let PolicyError::InvalidInput {
        index: Some(i),
        field,
        message,
    } = &e
    {
        if let Some(label) = label(*i) {
            return ApiError::bad_request(if field.is_empty() {
                format!("{label}: {message}")
            } else {
                format!("{label}: field `{field}`: {message}")
            });
        }
    }
    let mut out = from_policy(e);
    if let Some(Form::Prefixed(l)) = form {
        out.message = format!("{l}: {}", out.message);
    }
    out
}
