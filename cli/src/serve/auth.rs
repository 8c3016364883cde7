//! The inspector's own routes behind the API's authentication: a handler
//! that takes an [`Authed`] argument runs only for a known key within its
//! rate (`engram_api::authenticate`, the same answers as every `/v1/`
//! route).

use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts};

use super::error::Refusal;
use super::state::ServeState;

/// An authenticated request: the principal its key maps to.
#[derive(Debug, Clone)]
pub struct Authed {
    pub principal: engram_api::Principal,
}

impl FromRequestParts<ServeState> for Authed {
    type Rejection = Refusal;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &ServeState,
    ) -> Result<Self, Self::Rejection> {
        let header = parts
            .headers
            .get(header::AUTHORIZATION)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let authed = engram_api::authenticate(&state.keys(), header.as_deref())?;
        state.admit(&authed.key_hash)?;
        Ok(Authed {
            principal: authed.principal,
        })
    }
}
