//! Request bodies as `engram serve` reads them (host/src/app/serve/codec.rs),
//! with the same contract helpers (`engram_contract::route`): a JSON array
//! of objects, or JSON Lines when `Content-Type` says
//! `application/x-ndjson`, each item named "item N" or "line N", its scope
//! read before anything runs; the body and batch limits checked first.

use engram_contract::item;
use engram_contract::route::{self, Routed};
use engram_contract::Form;

use crate::api::{PolicyError, Request};
use crate::config::Config;
use crate::error::{from_policy, ApiError};

/// A batch: its text (what the contract reads), form and routed items.
pub struct Batch<'a> {
    pub text: &'a str,
    pub form: Form,
    pub items: Vec<Routed<'a>>,
}

pub fn is_ndjson(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.contains("application/x-ndjson") || v.contains("application/jsonl"))
}

/// The whole body as text, refused past the size limit (named).
pub fn body_text(config: &Config, req: &Request) -> Result<String, ApiError> {
    let max = config.max_body_bytes;
    let declared = req
        .header("content-length")
        .and_then(|v| v.trim().parse::<usize>().ok());
    if let Some(len) = declared.filter(|l| *l > max) {
        return Err(ApiError::new(
            413,
            format!("request body: {len} bytes is over the limit of {max} bytes (ENGRAM_MAX_BODY_BYTES)"),
        ));
    }
    if req.body.len() > max {
        return Err(ApiError::new(
            413,
            format!("request body: over the limit of {max} bytes (ENGRAM_MAX_BODY_BYTES)"),
        ));
    }
    String::from_utf8(req.body.clone()).map_err(|e| {
        ApiError::bad_request(format!(
            "request body: invalid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A batch body for operation `op`; its item count is checked against
/// the limit, and every item is read as the operation reads it (a bad
/// item is refused, naming it and its field, before anything runs).
pub fn read_batch<'a>(
    op: &str,
    config: &Config,
    req: &Request,
    text: &'a str,
) -> Result<Batch<'a>, ApiError> {
    if !is_ndjson(req.header("content-type")) && !text.trim_start().starts_with('[') {
        return Err(ApiError::bad_request(
            "request body: expected a JSON array of objects (or JSON Lines with `Content-Type: application/x-ndjson`)",
        ));
    }
    let (form, items) = route::batch(text).map_err(|e| named(e, |_| None))?;
    if items.len() > config.max_items {
        return Err(ApiError::new(
            413,
            format!(
                "batch: {} items is over the limit of {} items per request (ENGRAM_MAX_ITEMS)",
                items.len(),
                config.max_items
            ),
        ));
    }
    engram_contract::ops::check(op, text).map_err(|e| named(e, |i| Some(form.label(i))))?;
    Ok(Batch { text, form, items })
}

/// A failure of the policy call; one about an item (a bad field, an item
/// not found) is named by `label(index)` ("item 3", "line 3", "pack
/// request"), an input error about no item as the request body's, as serve
/// names them (host/src/app/serve/codec.rs). The status stays the error's.
pub fn named(e: PolicyError, label: impl Fn(u32) -> Option<String>) -> ApiError {
    let labelled =
        item::about_item(&e).and_then(|(i, text)| Some(format!("{}: {text}", label(i)?)));
    let message = match &e {
        _ if labelled.is_some() => labelled,
        PolicyError::InvalidInput(f) => Some(format!("request body: {}", item::field_text(f))),
        _ => None,
    };
    let mut api = from_policy(e);
    if let Some(message) = message {
        api.message = message;
    }
    api
}
