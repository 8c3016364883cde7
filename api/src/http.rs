//! A request and its answer as plain values: what an adapter reads off its
//! transport (`wasi:http`, hyper through axum) and what it writes back.

/// `Content-Type` of a JSON body.
pub const JSON: &str = "application/json";
/// `Content-Type` of a JSON Lines body.
pub const NDJSON: &str = "application/x-ndjson";

/// An HTTP request as the API reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The method, upper case (`GET`, `POST`).
    pub method: String,
    /// The path as sent (still percent-encoded), without the query.
    pub path: String,
    /// The query after `?`, as sent; empty when there is none.
    pub query: String,
    /// The headers; names compare without regard to case.
    pub headers: Vec<(String, String)>,
    /// The body as read (an adapter may stop one byte past the body limit).
    pub body: Vec<u8>,
}

impl Request {
    /// A request for `target` (`/path?query`).
    pub fn new(method: &str, target: &str) -> Self {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Request {
            method: method.to_string(),
            path: path.to_string(),
            query: query.to_string(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// The same request with one more header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// The same request with this body.
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The first value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Is the body JSON Lines (`Content-Type`)?
    pub fn sends_ndjson(&self) -> bool {
        is_ndjson(self.header("content-type"))
    }

    /// Does the client want JSON Lines back (`Accept` or `Content-Type`)?
    pub fn wants_ndjson(&self) -> bool {
        is_ndjson(self.header("accept")) || self.sends_ndjson()
    }
}

/// Does a `Content-Type` or `Accept` value name JSON Lines?
fn is_ndjson(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.contains(NDJSON) || v.contains("application/jsonl"))
}

/// An answer: status, content type, body, and `Retry-After` when limited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// `Content-Type`: [`JSON`] or [`NDJSON`].
    pub content_type: &'static str,
    /// The body.
    pub body: String,
    /// Seconds until a rate-limited key may try again (`Retry-After`).
    pub retry_after: Option<u64>,
}

impl Response {
    /// A 200 answer with a JSON body.
    pub fn json(body: String) -> Self {
        Response {
            status: 200,
            content_type: JSON,
            body,
            retry_after: None,
        }
    }

    /// A 200 answer with a JSON Lines body.
    pub fn ndjson(body: String) -> Self {
        Response {
            content_type: NDJSON,
            ..Response::json(body)
        }
    }
}

/// `%XX` decoded (and `+` as a space in a query, as form encoding has it);
/// bytes that are not UTF-8 become U+FFFD.
pub fn percent_decode(s: &str, plus_is_space: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let hex = |b: u8| (b as char).to_digit(16);
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if plus_is_space && bytes[i] == b'+' {
            b' '
        } else {
            bytes[i]
        });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The `(name, value)` pairs of a query, decoded.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(name, true), percent_decode(value, true))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_and_pluses_decode() {
        assert_eq!(percent_decode("t%207%2F8", false), "t 7/8");
        assert_eq!(percent_decode("a+b%", true), "a b%");
        assert_eq!(percent_decode("%e6%9e%97", false), "林");
        assert_eq!(percent_decode("%zz%4", false), "%zz%4");
        assert_eq!(
            query_pairs("status=active,pending&&thread=t+7&flag"),
            vec![
                ("status".into(), "active,pending".into()),
                ("thread".into(), "t 7".into()),
                ("flag".into(), String::new())
            ]
        );
    }

    #[test]
    fn headers_are_found_whatever_their_case() {
        let r = Request::new("POST", "/v1/recall?x=1")
            .with_header("Content-Type", "application/x-ndjson; charset=utf-8");
        assert_eq!((r.path.as_str(), r.query.as_str()), ("/v1/recall", "x=1"));
        assert!(r.sends_ndjson() && r.wants_ndjson());
        assert!(!Request::new("GET", "/").wants_ndjson());
    }
}
