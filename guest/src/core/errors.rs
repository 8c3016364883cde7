//! Constructors for the WIT `error` variant, so call sites read as intent.

use crate::types::{Error, FieldError};
use crate::wit_store::StoreError;

/// `invalid-input` for item `index` of a batch, at a dotted field path.
pub fn invalid(index: Option<usize>, field: &str, message: impl Into<String>) -> Error {
    Error::InvalidInput(FieldError {
        index: index.map(|i| i as u32),
        field: field.to_string(),
        message: message.into(),
    })
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Denied(m) => Error::PermissionDenied(m),
            StoreError::Conflict(m) => Error::Conflict(m),
            StoreError::Invalid(m) => Error::Store(format!("invalid store request: {m}")),
            StoreError::Backend(m) => Error::Store(m),
        }
    }
}
