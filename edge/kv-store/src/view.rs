//! A consistent read of one tenant at one head version.
//!
//! Every value carries the version of the commit that wrote it. A view
//! reads the head (helping a half-applied commit finish first), then its
//! values; a value stamped after the head means a commit landed during
//! the read, and the whole read starts again (`Fail::Newer`), so callers
//! never see half of a commit.

use serde::de::DeserializeOwned;

use crate::bindings::exports::engram::memory::store::StoreError;
use crate::kv::Kv;
use crate::layout::Layout;
use crate::model::Head;

/// Why a read could not complete at its version.
#[derive(Debug)]
pub enum Fail {
    /// A newer commit landed meanwhile: read again.
    Newer,
    Store(StoreError),
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        Fail::Store(e)
    }
}

pub fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("key-value store: {e}"))
}

pub fn corrupt(key: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!(
        "key-value store: the value of {key} is not readable: {e}"
    ))
}

/// The commit version a stored value carries: values are written as
/// `{"v":N,…}`, so it is read from the prefix without parsing the rest.
pub fn stamp_of(bytes: &[u8]) -> Option<u64> {
    let rest = bytes.strip_prefix(b"{\"v\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// Is this value a deletion marker?
pub fn is_marker(bytes: &[u8]) -> bool {
    bytes.ends_with(b",\"gone\":true}")
}

pub fn decode<T: DeserializeOwned>(key: &str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| corrupt(key, e))
}

pub fn encode<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Backend(format!("encoding a value: {e}")))
}

/// A read of one tenant at version `head.v`.
pub struct View<'a, K: Kv> {
    pub kv: &'a K,
    pub layout: Layout,
    pub head: Head,
}

impl<'a, K: Kv> View<'a, K> {
    /// The values under `keys` (`None` when absent or deleted), each
    /// decoded, in order.
    pub fn load<T: DeserializeOwned>(&self, keys: &[String]) -> Result<Vec<Option<T>>, Fail> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let raw = self.kv.get_many(keys).map_err(backend)?;
        let mut out = Vec::with_capacity(keys.len());
        for (key, value) in keys.iter().zip(raw) {
            out.push(match value {
                None => None,
                Some(bytes) => {
                    let v = stamp_of(&bytes).ok_or_else(|| corrupt(key, "no version stamp"))?;
                    if v > self.head.v {
                        return Err(Fail::Newer);
                    }
                    if is_marker(&bytes) {
                        None
                    } else {
                        Some(decode(key, &bytes)?)
                    }
                }
            });
        }
        Ok(out)
    }

    /// One value, or its default when absent.
    pub fn one<T: DeserializeOwned + Default>(&self, key: &str) -> Result<T, Fail> {
        Ok(self
            .load(&[key.to_string()])?
            .pop()
            .flatten()
            .unwrap_or_default())
    }
}

/// The head of a tenant as last committed (absent: version 0).
pub fn read_head<K: Kv>(kv: &K, layout: &Layout) -> Result<Head, StoreError> {
    match kv.get(&layout.head()).map_err(backend)? {
        None => Ok(Head::default()),
        Some(bytes) => decode(&layout.head(), &bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_read_from_the_prefix() {
        assert_eq!(stamp_of(br#"{"v":42,"rows":[]}"#), Some(42));
        assert_eq!(stamp_of(br#"{"v":7,"gone":true}"#), Some(7));
        assert!(is_marker(br#"{"v":7,"gone":true}"#));
        assert!(!is_marker(br#"{"v":7,"rows":[]}"#));
        assert_eq!(stamp_of(br#"{"rows":[],"v":1}"#), None);
    }
}
