//! Engram's HTTP API (SPEC §4.1, docs/serve.md), written once and
//! sans-I/O: it reads a plain [`Request`] and answers a plain
//! [`Response`], and calls the policy through the [`Policy`] trait the
//! adapter supplies. `engram serve` (axum and tokio, the policy through
//! `engram-host`) and the edge component's `wasi:http` handler (the
//! policy through the `engram:memory/json` import) are both thin adapters
//! over [`Api::handle`]; every route, status, limit and error text is
//! here.
//!
//! | module | what it holds |
//! | --- | --- |
//! | `http` | [`Request`], [`Response`], content types, percent-decoding |
//! | `routes` | the route table ([`ROUTES`]): method and path → [`Endpoint`]; 404 and 405 |
//! | `auth` | API keys ([`KeyRing`]: hashes → [`Principal`]), `Authorization: Bearer` → principal, the scope check (403) |
//! | `limits` | body and batch limits (413), named by the adapter's [`Settings`] |
//! | `rate` | requests per key and second ([`RateLimiter`], 429), the time given by the adapter |
//! | `body` | a batch read as the contract reads it; the policy's lines as a JSON array or JSON Lines |
//! | `error` | [`ApiError`] and the one mapping of the policy's errors to statuses and texts |
//! | `policy` | the [`Policy`] trait an adapter implements |
//! | `service` | [`Api::handle`]: one request through all of the above |
//!
//! ```
//! use std::time::Duration;
//! use engram_api::{key_hash, Api, CallError, KeyRing, Limits, Policy, Principal, Request, FLAGS};
//!
//! /// A policy that answers every call with one line.
//! struct Echo;
//! impl Policy for Echo {
//!     fn call(&mut self, p: &Principal, op: &str, _input: &str) -> Result<String, CallError> {
//!         Ok(format!("{{\"op\":\"{op}\",\"tenant\":\"{}\"}}\n", p.tenant))
//!     }
//! }
//!
//! let mut keys = KeyRing::default();
//! keys.insert(&key_hash("ek_secret"), Principal { tenant: "acme".into(), user: None, project: None });
//! let limits = Limits::new(FLAGS);
//! let api = Api { keys: &keys, limits: &limits };
//! let req = Request::new("POST", "/v1/recall")
//!     .with_header("Authorization", "Bearer ek_secret")
//!     .with_body(r#"[{"query":"q","scope":{"tenant":"acme"}}]"#);
//! let r = api.handle(&mut Echo, &req, Duration::ZERO);
//! assert_eq!((r.status, r.body.as_str()), (200, r#"[{"op":"recall","tenant":"acme"}]"#));
//! let other = Request::new("POST", "/v1/recall")
//!     .with_header("Authorization", "Bearer ek_secret")
//!     .with_body(r#"[{"query":"q","scope":{"tenant":"globex"}}]"#);
//! assert_eq!(api.handle(&mut Echo, &other, Duration::ZERO).status, 403);
//! ```

#![deny(missing_docs)]

mod auth;
mod body;
mod error;
mod http;
mod limits;
mod policy;
mod rate;
mod routes;
mod service;

pub use auth::{authenticate, key_hash, Authed, KeyRing, Principal};
pub use body::{body_text, read_batch, respond, respond_one, Batch};
pub use error::{named, status_of, ApiError, CallError};
pub use http::{percent_decode, query_pairs, Request, Response, JSON, NDJSON};
pub use limits::{Limits, Settings, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ITEMS, ENVIRONMENT, FLAGS};
pub use policy::{policy_info, Policy};
pub use rate::RateLimiter;
pub use routes::{no_such_endpoint, not_allowed, resolve, Endpoint, Matched, Route, ROUTES};
pub use service::Api;

#[cfg(test)]
mod tests;
