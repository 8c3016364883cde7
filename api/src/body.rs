//! Request bodies in, answers out. A batch is a JSON array of the
//! contract's objects, or JSON Lines when `Content-Type` says
//! `application/x-ndjson`; it goes to the policy as it arrived, after its
//! size, its item count and every item's reading have passed (a bad item
//! is refused naming it and its field, before anything runs). The
//! policy's JSON Lines go back as a JSON array, or as JSON Lines when the
//! client asks.

use engram_contract::route::{self, Routed};
use engram_contract::Form;

use crate::error::{named, ApiError};
use crate::http::{Request, Response};
use crate::limits::Limits;

/// A batch: its text (what the contract reads), form and routed items.
#[derive(Debug)]
pub struct Batch<'a> {
    /// The body, handed to the policy as it is.
    pub text: &'a str,
    /// A JSON array or JSON Lines: how its items are named.
    pub form: Form,
    /// Every item with the scope it names.
    pub items: Vec<Routed<'a>>,
}

/// The whole body as text, refused past the size limit (named).
pub fn body_text(limits: &Limits, req: &Request) -> Result<String, ApiError> {
    let declared = req
        .header("content-length")
        .and_then(|v| v.trim().parse::<usize>().ok());
    limits.check_body(declared, req.body.len())?;
    String::from_utf8(req.body.clone()).map_err(|e| {
        ApiError::bad_request(format!(
            "request body: invalid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A batch body for operation `op`; its item count is checked against the
/// limit, and every item is read as the operation reads it.
pub fn read_batch<'a>(
    op: &str,
    limits: &Limits,
    req: &Request,
    text: &'a str,
) -> Result<Batch<'a>, ApiError> {
    if !req.sends_ndjson() && !text.trim_start().starts_with('[') {
        return Err(ApiError::bad_request(
            "request body: expected a JSON array of objects (or JSON Lines with `Content-Type: application/x-ndjson`)",
        ));
    }
    let (form, items) = route::batch(text).map_err(|e| named(e.into(), |_| None))?;
    limits.check_items(items.len())?;
    engram_contract::ops::check(op, text).map_err(|e| named(e.into(), |i| Some(form.label(i))))?;
    Ok(Batch { text, form, items })
}

/// The policy's output lines: a JSON array, or JSON Lines.
pub fn respond(lines: &str, ndjson: bool) -> Response {
    if ndjson {
        Response::ndjson(lines.to_string())
    } else {
        Response::json(route::rejoin(Form::Array, lines.lines()))
    }
}

/// The policy's one output line (pack, sweep) as a JSON object.
pub fn respond_one(lines: &str) -> Response {
    Response::json(lines.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::FLAGS;

    #[test]
    fn a_body_is_read_within_its_limits_and_answered_in_its_form() {
        let mut limits = Limits::new(FLAGS);
        limits.max_items = 1;
        let req = Request::new("POST", "/v1/recall").with_body(vec![b'[', 0xff, b']']);
        assert_eq!(
            body_text(&limits, &req).unwrap_err().message,
            "request body: invalid UTF-8 at byte 1"
        );
        let req = Request::new("POST", "/v1/recall");
        let e = read_batch("recall", &limits, &req, "{}").unwrap_err();
        assert!(e.message.contains("expected a JSON array"), "{}", e.message);
        let e = read_batch("recall", &limits, &req, "[{},{}]").unwrap_err();
        assert_eq!(e.status, 413);
        let e = read_batch("recall", &limits, &req, "[{\"query\":1}]").unwrap_err();
        assert!(
            e.message.starts_with("item 1: field `query`"),
            "{}",
            e.message
        );
        let nd = req.with_header("content-type", "application/x-ndjson");
        let b = read_batch(
            "recall",
            &limits,
            &nd,
            "{\"query\":\"q\",\"scope\":{\"tenant\":\"a\"}}\n",
        )
        .expect("a line");
        assert_eq!((b.form, b.items.len()), (Form::Lines, 1));
        assert_eq!(
            respond("{\"a\":1}\n{\"b\":2}\n", false).body,
            "[{\"a\":1},{\"b\":2}]"
        );
        assert_eq!(respond("", false).body, "[]");
        let r = respond("{\"a\":1}\n", true);
        assert_eq!(
            (r.content_type, r.body.as_str()),
            (crate::http::NDJSON, "{\"a\":1}\n")
        );
        assert_eq!(respond_one("{\"a\":1}\n").body, "{\"a\":1}");
    }
}
