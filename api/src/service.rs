//! One request through the API: its route, its key, the key's rate, its
//! body within the limits, every scope it names inside the key's principal
//! (403 before anything runs, nothing written), then the policy call(s)
//! for that principal — writes in one transaction where the policy can
//! hold one — and the answer.

use std::time::Duration;

use engram_contract::route::{self, ListQuery};
use serde_json::{json, Value};

use crate::auth::{authenticate, KeyRing, Principal};
use crate::body::{body_text, read_batch, respond, respond_one, Batch};
use crate::error::{named, ApiError};
use crate::http::{query_pairs, Request, Response};
use crate::limits::Limits;
use crate::policy::Policy;
use crate::routes::{resolve, Endpoint};

/// The API over one set of keys and limits.
#[derive(Debug, Clone, Copy)]
pub struct Api<'a> {
    /// The keys in force.
    pub keys: &'a KeyRing,
    /// The limits in force (with the rate limiter's state, if any).
    pub limits: &'a Limits,
}

/// A label for the one object of a pack or sweep request.
const PACK: &str = "pack request";
const SWEEP: &str = "sweep request";

impl Api<'_> {
    /// Answer `req` with `policy`. `now` is the adapter's monotonic time
    /// (only the rate limiter reads it).
    pub fn handle(&self, policy: &mut dyn Policy, req: &Request, now: Duration) -> Response {
        let mut r = match self.route(policy, req, now) {
            Ok(r) => r,
            Err(e) => e.response(),
        };
        if req.method == "HEAD" {
            r.body.clear();
        }
        r
    }

    fn route(
        &self,
        policy: &mut dyn Policy,
        req: &Request,
        now: Duration,
    ) -> Result<Response, ApiError> {
        let matched = resolve(&req.method, &req.path)?;
        let endpoint = matched.route.endpoint;
        // The health check needs no key.
        if endpoint == Endpoint::Health {
            return Ok(healthy());
        }
        let authed = authenticate(self.keys, req.header("authorization"))?;
        if let Some(rate) = &self.limits.rate {
            rate.admit(&authed.key_hash, now)?;
        }
        let p = &authed.principal;
        let ndjson = req.wants_ndjson();
        match endpoint {
            Endpoint::Health => Ok(healthy()),
            Endpoint::Info => {
                let info = policy.info(p)?;
                Ok(Response::json(Value::Object(info).to_string()))
            }
            Endpoint::Batch(op) => {
                let text = body_text(self.limits, req)?;
                let batch = read_batch(op, self.limits, req, &text)?;
                check_items(p, &batch)?;
                if batch.items.is_empty() {
                    return Ok(respond("", ndjson));
                }
                let form = batch.form;
                let writes = engram_contract::ops::operation(op).is_some_and(|o| o.writes);
                let out = transaction(policy, writes, |policy| {
                    policy
                        .call(p, op, batch.text)
                        .map_err(|e| named(e, |i| Some(form.label(i))))
                })?;
                Ok(respond(&out, ndjson))
            }
            Endpoint::Forget => {
                let text = body_text(self.limits, req)?;
                let batch = read_batch("forget", self.limits, req, &text)?;
                check_items(p, &batch)?;
                let reports = transaction(policy, true, |policy| forget(policy, p, &batch))?;
                Ok(respond(&reports, ndjson))
            }
            Endpoint::Pack => {
                let text = body_text(self.limits, req)?;
                engram_contract::ops::check("pack", &text)
                    .map_err(|e| named(e.into(), |_| Some(PACK.into())))?;
                if let Some(scope) = route::object_scope(&text) {
                    p.check(&scope, PACK)?;
                }
                let out = policy
                    .call(p, "pack", &text)
                    .map_err(|e| named(e, |_| Some(PACK.into())))?;
                Ok(respond_one(&out))
            }
            Endpoint::Sweep => {
                let text = body_text(self.limits, req)?;
                let (input, scope) = sweep_request(&text, p);
                engram_contract::ops::check("sweep", &input)
                    .map_err(|e| named(e.into(), |_| Some(SWEEP.into())))?;
                if let Some(scope) = &scope {
                    p.check(scope, SWEEP)?;
                }
                let out = transaction(policy, true, |policy| {
                    policy
                        .call(p, "sweep", &input)
                        .map_err(|e| named(e, |_| Some(SWEEP.into())))
                })?;
                Ok(respond_one(&out))
            }
            Endpoint::List => {
                let query = ListQuery::read(p.own_scope(), query_pairs(&req.query))
                    .map_err(ApiError::bad_request)?;
                p.check(&query.scope, "query")?;
                let out = policy.call(p, "list", &query.input())?;
                Ok(respond(&out, ndjson))
            }
            Endpoint::History => {
                let id = matched.id;
                let out = policy.call(p, "history", &json!({ "id": id }).to_string())?;
                if out.trim().is_empty() {
                    return Err(ApiError::new(
                        404,
                        format!("no memory with id '{id}' in this key's scope"),
                    ));
                }
                Ok(respond(&out, ndjson))
            }
        }
    }
}

/// `GET /healthz`'s answer.
fn healthy() -> Response {
    Response::json(json!({"status": "ok"}).to_string())
}

/// Refuse the request if any item's scope is outside the key's principal.
/// A memory id is bounded to the principal by the store itself; an item
/// whose scope cannot be read is refused by the contract, naming why.
fn check_items(p: &Principal, batch: &Batch) -> Result<(), ApiError> {
    for item in &batch.items {
        if let Some(scope) = &item.scope {
            p.check(scope, &batch.form.label(item.index))?;
        }
    }
    Ok(())
}

/// `f` in one transaction when it `writes`: committed if it returns `Ok`,
/// else rolled back.
fn transaction<R>(
    policy: &mut dyn Policy,
    writes: bool,
    f: impl FnOnce(&mut dyn Policy) -> Result<R, ApiError>,
) -> Result<R, ApiError> {
    if !writes {
        return f(policy);
    }
    policy.begin()?;
    let r = f(policy);
    policy.finish(r.is_ok())?;
    r
}

/// One report per selector, each selector its own call (a selector's
/// error names its item, and stops the batch).
fn forget(policy: &mut dyn Policy, p: &Principal, batch: &Batch) -> Result<String, ApiError> {
    let mut reports = String::new();
    for item in &batch.items {
        let label = batch.form.label(item.index);
        let selector = route::rejoin(batch.form, [item.text]);
        let out = policy.call(p, "forget", &selector).map_err(|e| {
            // The call held this one selector: its item 0.
            let about_item = match &e {
                crate::error::CallError::Policy(pe) => {
                    engram_contract::item::about_item(pe).is_some()
                }
                _ => false,
            };
            if about_item {
                named(e, |_| Some(label.clone()))
            } else {
                ApiError::from(e).labelled(&label)
            }
        })?;
        reports.push_str(&out);
    }
    Ok(reports)
}

/// The sweep body: `{"scope":{…}}`, a bare scope, or nothing (the key's
/// own scope); the scope it names.
fn sweep_request(text: &str, p: &Principal) -> (String, Option<engram_contract::types::Scope>) {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() || compact == "{}" {
        let own = p.own_scope();
        let input = json!({ "scope": engram_contract::wire::Scope::from(own.clone()) });
        return (input.to_string(), Some(own));
    }
    (text.to_string(), route::object_scope(text))
}
