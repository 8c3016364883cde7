//! The route table: every endpoint's method and path, once. An adapter
//! hands every request to [`crate::Api::handle`], which finds the route
//! here; a path no route has is a 404 and a known path with another method
//! a 405 (a `GET` route answers `HEAD` too).

use crate::error::ApiError;
use crate::http::percent_decode;

/// What an endpoint does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `{"status": "ok"}`, without a key.
    Health,
    /// The component's and the host's description.
    Info,
    /// A batch operation of the contract (one output line per item),
    /// named as `engram_contract::OPERATIONS` names it.
    Batch(&'static str),
    /// Forget selectors: one report each, every selector its own call.
    Forget,
    /// One pack request.
    Pack,
    /// One sweep request (the key's own scope when the body is empty).
    Sweep,
    /// `GET /v1/memories?…`: the memories of a scope.
    List,
    /// `GET /v1/memories/{id}/history`: one memory's revisions.
    History,
}

/// One route: method, path pattern (`{id}` is one path segment) and what
/// it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The path, `{id}` standing for one segment.
    pub path: &'static str,
    /// What it does.
    pub endpoint: Endpoint,
}

const fn route(method: &'static str, path: &'static str, endpoint: Endpoint) -> Route {
    Route {
        method,
        path,
        endpoint,
    }
}

/// Every route of the API (SPEC §4.1, docs/serve.md).
pub const ROUTES: &[Route] = &[
    route("GET", "/healthz", Endpoint::Health),
    route("GET", "/v1/info", Endpoint::Info),
    route("POST", "/v1/classify", Endpoint::Batch("classify")),
    route("POST", "/v1/remember", Endpoint::Batch("remember")),
    route("POST", "/v1/import", Endpoint::Batch("import")),
    route("POST", "/v1/recall", Endpoint::Batch("recall")),
    route("POST", "/v1/review", Endpoint::Batch("review")),
    route(
        "POST",
        "/v1/operations/record",
        Endpoint::Batch("record-operations"),
    ),
    route(
        "POST",
        "/v1/operations/get",
        Endpoint::Batch("get-operations"),
    ),
    route("POST", "/v1/forget", Endpoint::Forget),
    route("POST", "/v1/pack", Endpoint::Pack),
    route("POST", "/v1/sweep", Endpoint::Sweep),
    route("GET", "/v1/memories", Endpoint::List),
    route("GET", "/v1/memories/{id}/history", Endpoint::History),
];

/// A request's route and the `{id}` of its path, percent-decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// The route.
    pub route: &'static Route,
    /// The path's `{id}` segment, decoded; empty when the route has none.
    pub id: String,
}

/// The `{id}` segment of `path` when it has the shape of `pattern`.
fn matches(pattern: &str, path: &str) -> Option<String> {
    let mut id = String::new();
    let (mut want, mut got) = (pattern.split('/'), path.split('/'));
    loop {
        match (want.next(), got.next()) {
            (None, None) => return Some(id),
            (Some("{id}"), Some(s)) if !s.is_empty() => id = percent_decode(s, false),
            (Some(w), Some(s)) if w == s => {}
            _ => return None,
        }
    }
}

/// The route of `method` on `path`: 404 when no route has the path, 405
/// when none has it with this method. `HEAD` is answered as `GET`.
pub fn resolve(method: &str, path: &str) -> Result<Matched, ApiError> {
    let mut known = false;
    for r in ROUTES {
        let Some(id) = matches(r.path, path) else {
            continue;
        };
        if r.method == method || (method == "HEAD" && r.method == "GET") {
            return Ok(Matched { route: r, id });
        }
        known = true;
    }
    Err(if known {
        not_allowed(method, path)
    } else {
        no_such_endpoint(method, path)
    })
}

/// 404: no route has `path` (also an adapter's answer for a path of its
/// own routes, e.g. `engram serve`'s inspector).
pub fn no_such_endpoint(method: &str, path: &str) -> ApiError {
    ApiError::new(
        404,
        format!("no such endpoint: {method} {path} (docs/serve.md)"),
    )
}

/// 405: `path` is known, but not with `method`.
pub fn not_allowed(method: &str, path: &str) -> ApiError {
    ApiError::new(
        405,
        format!("{method} is not allowed on {path} (docs/serve.md)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_is_found_by_its_method_and_path() {
        for r in ROUTES {
            let path = r.path.replace("{id}", "m-1");
            let m = resolve(r.method, &path).expect("a route");
            assert_eq!(m.route, r);
        }
        let m = resolve("HEAD", "/v1/memories/m%2F1%20a/history").unwrap();
        assert_eq!(
            (m.route.endpoint, m.id.as_str()),
            (Endpoint::History, "m/1 a")
        );
    }

    #[test]
    fn an_unknown_path_is_404_and_a_wrong_method_405() {
        let e = resolve("GET", "/v1/nope").unwrap_err();
        assert_eq!(
            (e.status, e.message.as_str()),
            (404, "no such endpoint: GET /v1/nope (docs/serve.md)")
        );
        assert_eq!(
            resolve("GET", "/v1/memories//history").unwrap_err().status,
            404
        );
        assert_eq!(resolve("GET", "/v1/remember/").unwrap_err().status, 404);
        let e = resolve("GET", "/v1/remember").unwrap_err();
        assert_eq!(
            (e.status, e.message.as_str()),
            (405, "GET is not allowed on /v1/remember (docs/serve.md)")
        );
        let e = resolve("POST", "/healthz").unwrap_err();
        assert_eq!(e.message, "POST is not allowed on /healthz (docs/serve.md)");
    }
}
