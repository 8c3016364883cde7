//! The wasm glue: `wasi:http/incoming-handler` over `api::handle`, the
//! policy's `json.call` and the store's `session` as the `Engine`.

use wasip2::http::types::{
    Fields, IncomingBody, IncomingRequest, Method, OutgoingBody, OutgoingResponse, ResponseOutparam,
};
use wasip2::io::streams::StreamError;

use crate::api::{handle, Engine, PolicyError, Request, Response};
use crate::auth::Principal;
use crate::bindings::engram::edge::session;
use crate::bindings::engram::memory::json;
use crate::config::Config;
use crate::error::ApiError;

struct Policy;

impl Engine for Policy {
    fn open(&self, p: &Principal) -> Result<(), String> {
        session::open(&crate::bindings::engram::memory::store::Principal {
            tenant: p.tenant.clone(),
            user: p.user.clone(),
            project: p.project.clone(),
        })
    }

    fn close(&self) {
        session::close();
    }

    fn call(&self, operation: &str, input: &str) -> Result<String, PolicyError> {
        json::call(operation, input)
    }
}

fn method_name(m: &Method) -> String {
    match m {
        Method::Get => "GET".into(),
        Method::Head => "HEAD".into(),
        Method::Post => "POST".into(),
        Method::Put => "PUT".into(),
        Method::Delete => "DELETE".into(),
        Method::Connect => "CONNECT".into(),
        Method::Options => "OPTIONS".into(),
        Method::Trace => "TRACE".into(),
        Method::Patch => "PATCH".into(),
        Method::Other(s) => s.clone(),
    }
}

/// The body, read up to one byte past `max` (the handler names the limit).
fn read_body(req: &IncomingRequest, max: usize) -> Result<Vec<u8>, String> {
    let body = req
        .consume()
        .map_err(|_| "the request body was already read")?;
    let stream = body
        .stream()
        .map_err(|_| "the request body has no stream")?;
    let mut out = Vec::new();
    loop {
        match stream.blocking_read(64 * 1024) {
            Ok(chunk) => {
                out.extend_from_slice(&chunk);
                if out.len() > max {
                    break;
                }
            }
            Err(StreamError::Closed) => break,
            Err(StreamError::LastOperationFailed(e)) => {
                return Err(format!("reading the request body: {}", e.to_debug_string()))
            }
        }
    }
    drop(stream);
    let _ = IncomingBody::finish(body);
    Ok(out)
}

fn send(out: ResponseOutparam, r: Response) {
    let mut headers = vec![(
        "content-type".to_string(),
        r.content_type.as_bytes().to_vec(),
    )];
    if let Some(s) = r.retry_after {
        headers.push(("retry-after".to_string(), s.to_string().into_bytes()));
    }
    let fields = Fields::from_list(&headers).unwrap_or_else(|_| Fields::new());
    let resp = OutgoingResponse::new(fields);
    let _ = resp.set_status_code(r.status);
    let Ok(body) = resp.body() else {
        return;
    };
    ResponseOutparam::set(out, Ok(resp));
    if let Ok(stream) = body.write() {
        for chunk in r.body.as_bytes().chunks(4096) {
            if stream.blocking_write_and_flush(chunk).is_err() {
                break;
            }
        }
        drop(stream);
    }
    let _ = OutgoingBody::finish(body, None);
}

struct Handler;

impl wasip2::exports::http::incoming_handler::Guest for Handler {
    fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
        // Read afresh (std caches the environment; a long-lived instance
        // must see changes between requests).
        let env = wasip2::cli::environment::get_environment();
        let var = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let config = match Config::from_vars(var) {
            Ok(c) => c,
            Err(e) => return send(response_out, ApiError::internal(e).response()),
        };
        let target = request.path_with_query().unwrap_or_else(|| "/".into());
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_string(), q.to_string()),
            None => (target.clone(), String::new()),
        };
        let headers = request
            .headers()
            .entries()
            .into_iter()
            .map(|(n, v)| {
                (
                    n.to_ascii_lowercase(),
                    String::from_utf8_lossy(&v).into_owned(),
                )
            })
            .collect();
        let body = match read_body(&request, config.max_body_bytes) {
            Ok(b) => b,
            Err(e) => return send(response_out, ApiError::bad_request(e).response()),
        };
        let req = Request {
            method: method_name(&request.method()),
            path,
            query,
            headers,
            body,
        };
        send(response_out, handle(&config, &Policy, &req));
    }
}

wasip2::http::proxy::export!(Handler with_types_in wasip2);
