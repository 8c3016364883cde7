//! The fingerprint secret of the edge: what tombstone keys are derived
//! from (`engram_contract::owner::derive_key`, as every host derives them).
//!
//! The secret is never in the bucket: the deployment gives it in the
//! environment (`ENGRAM_FINGERPRINT_SECRET`, hex, at least 16 bytes). The
//! bucket records only its id (`engram_contract::owner::key_id`) at the
//! first use, by compare-and-swap, so an instance with a different secret
//! refuses instead of silently recognising no erased content. Without a
//! secret, nothing that needs a fingerprint runs (remember and forget
//! fail with `backend`): guessing a key would let erased content back.

use crate::bindings::exports::engram::memory::store::StoreError;
use crate::kv::Kv;
use crate::layout::Layout;

/// The environment variable the secret is read from.
pub const SECRET_VAR: &str = "ENGRAM_FINGERPRINT_SECRET";

/// How often the key id is read again while other instances record theirs.
const ATTEMPTS: usize = 8;

/// The secret as configured: its bytes, or why there is none.
pub type Configured = Result<Vec<u8>, String>;

/// The secret from the variable's value (`None`: unset).
pub fn from_env(value: Option<&str>) -> Configured {
    let Some(text) = value else {
        return Err(format!(
            "no fingerprint secret: set {SECRET_VAR} to a secret of at least 16 bytes in hex (the same on every instance of this bucket; docs/edge.md), or erasure could not be enforced"
        ));
    };
    let bytes = hex::decode(text.trim())
        .map_err(|e| format!("{SECRET_VAR} holds the secret in hex: {e}"))?;
    if bytes.len() < 16 {
        return Err(format!(
            "{SECRET_VAR} needs at least 16 bytes, this one has {}",
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// The secret, checked against the key id the bucket recorded (recorded
/// now when the bucket has none).
pub fn checked<K: Kv>(kv: &K, configured: &Configured) -> Result<Vec<u8>, StoreError> {
    let secret = configured.clone().map_err(StoreError::Backend)?;
    let id = engram_contract::owner::key_id(&secret);
    let key = Layout::fingerprint_key_id();
    let backend = |e: String| StoreError::Backend(format!("key-value store: {e}"));
    for _ in 0..ATTEMPTS {
        let (current, cas) = kv.cas_read(key).map_err(backend)?;
        match current {
            Some(recorded) if recorded == id.as_bytes() => return Ok(secret),
            Some(recorded) => {
                return Err(StoreError::Backend(format!(
                    "{SECRET_VAR} (key id {id}) is not the secret this bucket's tombstones were made with (key id {}): restore that secret (docs/edge.md)",
                    String::from_utf8_lossy(&recorded)
                )))
            }
            None => {
                if kv.cas_swap(cas, id.clone().into_bytes()).map_err(backend)? {
                    return Ok(secret);
                }
            }
        }
    }
    Err(StoreError::Backend(format!(
        "key-value store: {key} kept changing while the fingerprint key id was recorded"
    )))
}
