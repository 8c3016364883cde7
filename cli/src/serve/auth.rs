//! Who is asking: `Authorization: Bearer KEY` → the key's principal.
//!
//! A handler that takes an [`Authed`] argument runs only for a known key
//! within its rate; everything it does must go through
//! [`ServeState::with_engram`](super::state::ServeState::with_engram) with
//! `authed.principal`, and any scope it takes from the request must pass
//! [`Authed::check`] first (403 naming the dimension, nothing run).

use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts};

use super::error::ApiError;
use super::keys::key_hash;
use super::state::ServeState;
use engram_host::backend::denial;
use engram_host::bindings as w;

/// An authenticated request: the principal its key maps to.
#[derive(Debug, Clone)]
pub struct Authed {
    pub principal: w::Principal,
    /// The key's hash (never the key): the rate limiter's bucket.
    pub key_hash: String,
}

impl Authed {
    /// 403 unless `scope` lies inside this key's principal; `what` says
    /// which part of the request carried the scope ("item 2", "query").
    pub fn check(&self, scope: &w::Scope, what: &str) -> Result<(), ApiError> {
        match denial(&self.principal, scope) {
            None => Ok(()),
            Some(why) => Err(ApiError::forbidden(format!(
                "{what}: permission denied: {why}"
            ))),
        }
    }

    /// The widest scope this key may act on: its own principal.
    pub fn own_scope(&self) -> w::Scope {
        w::Scope {
            tenant: self.principal.tenant.clone(),
            user: self.principal.user.clone(),
            project: self.principal.project.clone(),
            thread: None,
            agent: None,
        }
    }
}

impl FromRequestParts<ServeState> for Authed {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &ServeState,
    ) -> Result<Self, Self::Rejection> {
        let value = parts
            .headers
            .get(header::AUTHORIZATION)
            .ok_or_else(|| ApiError::unauthorized("missing `Authorization: Bearer KEY` header"))?;
        let text = value
            .to_str()
            .map_err(|_| ApiError::unauthorized("the Authorization header is not plain text"))?;
        let key = text
            .strip_prefix("Bearer ")
            .or_else(|| text.strip_prefix("bearer "))
            .map(str::trim)
            .ok_or_else(|| {
                ApiError::unauthorized("the Authorization header must be `Bearer KEY`")
            })?;
        let hash = key_hash(key);
        let principal = state
            .keys()
            .principal_by_hash(&hash)
            .cloned()
            .ok_or_else(|| ApiError::unauthorized("unknown API key"))?;
        state.limits().admit(&hash)?;
        Ok(Authed {
            principal,
            key_hash: hash,
        })
    }
}
