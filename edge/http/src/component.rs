//! The wasm glue: `wasi:http/incoming-handler` over `engram_api::Api`, with
//! the policy's `json.call` (inside the key's session of the store) as its
//! `Policy`.

use std::time::Duration;

use engram_api::{policy_info, Api, ApiError, CallError, Policy, Principal, Request, Response};
use serde_json::{json, Map, Value};
use wasip2::http::types::{
    Fields, IncomingBody, IncomingRequest, Method, OutgoingBody, OutgoingResponse, ResponseOutparam,
};
use wasip2::io::streams::StreamError;

use crate::config::Config;

mod bindings {
    wit_bindgen::generate!({
        path: ["../../wit", "../wit"],
        world: "engram:edge/http-handler",
        with: { "engram:memory/types@0.1.0": engram_contract::types },
        generate_all,
    });
}

use bindings::engram::edge::session;
use bindings::engram::memory::json as contract;
use bindings::engram::memory::store;

/// The composed policy: each call opens the store's session for the key's
/// principal (the policy cannot widen it) and closes it after.
struct Composed;

impl Policy for Composed {
    fn call(&mut self, p: &Principal, operation: &str, input: &str) -> Result<String, CallError> {
        session::open(&store::Principal {
            tenant: p.tenant.clone(),
            user: p.user.clone(),
            project: p.project.clone(),
        })
        .map_err(CallError::Host)?;
        let out = contract::call(operation, input).map_err(CallError::Policy);
        session::close();
        out
    }

    fn info(&mut self, p: &Principal) -> Result<Map<String, Value>, CallError> {
        let mut info = policy_info(self, p)?;
        info.insert("host".into(), json!("engram-edge (wasi:http)"));
        Ok(info)
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

/// The body, read up to one byte past `max` (the API names the limit).
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
        let mut req = Request::new(&method_name(&request.method()), &target);
        req.headers = request
            .headers()
            .entries()
            .into_iter()
            .map(|(n, v)| (n, String::from_utf8_lossy(&v).into_owned()))
            .collect();
        req.body = match read_body(&request, config.limits.max_body_bytes) {
            Ok(b) => b,
            Err(e) => return send(response_out, ApiError::bad_request(e).response()),
        };
        let api = Api {
            keys: &config.keys,
            limits: &config.limits,
        };
        // No rate limit here (`Config`): the time is never read.
        send(
            response_out,
            api.handle(&mut Composed, &req, Duration::ZERO),
        );
    }
}

wasip2::http::proxy::export!(Handler with_types_in wasip2);
