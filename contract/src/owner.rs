//! Who owns erased content, and who may see it (SPEC §3.4, docs/durability.md):
//! the one rule the guest, every Rust store and the host's key handover
//! apply to tombstones and fingerprint keys.

use crate::types::Scope;

/// The owner of content in `scope`: its tenant, user and project (thread
/// and agent do not own anything).
pub fn owner_of(scope: &Scope) -> Scope {
    Scope {
        tenant: scope.tenant.clone(),
        user: scope.user.clone(),
        project: scope.project.clone(),
        thread: None,
        agent: None,
    }
}

/// May the principal `tenant`/`user`/`project` see content owned by
/// `owner`? The same tenant and, on every dimension the principal pins, the
/// owner's is unset (wider) or equal: never another user's or project's.
pub fn sees_owner(tenant: &str, user: Option<&str>, project: Option<&str>, owner: &Scope) -> bool {
    fn dim(p: Option<&str>, o: Option<&str>) -> bool {
        p.is_none() || o.is_none() || p == o
    }
    tenant == owner.tenant
        && dim(user, owner.user.as_deref())
        && dim(project, owner.project.as_deref())
}

/// The fingerprint key of content owned by `owner` (thread and agent are
/// ignored), derived from a deployment secret as every host derives it:
/// HMAC-SHA-256 keyed with the secret over `engram/fingerprint-key/v1` and
/// each of tenant, user and project as a 0 byte (none) or a 1 byte, its
/// UTF-8 length as 4 bytes big-endian and its UTF-8.
#[cfg(feature = "fingerprint")]
pub fn derive_key(secret: &[u8], owner: &Scope) -> [u8; 32] {
    use hmac::{KeyInit, Mac};
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret) else {
        unreachable!("HMAC accepts every key length")
    };
    mac.update(b"engram/fingerprint-key/v1");
    for field in [
        Some(&owner.tenant),
        owner.user.as_ref(),
        owner.project.as_ref(),
    ] {
        match field {
            None => mac.update(&[0]),
            Some(v) => {
                mac.update(&[1]);
                mac.update(&(v.len() as u32).to_be_bytes());
                mac.update(v.as_bytes());
            }
        }
    }
    mac.finalize().into_bytes().into()
}

/// The id a store records of the secret its tombstones were made with: the
/// first 16 hex digits of HMAC-SHA-256 keyed with the secret over
/// `engram/fingerprint-key-id/v1` (nothing to learn the secret from), so a
/// host with a different secret refuses instead of recognising nothing.
#[cfg(feature = "fingerprint")]
pub fn key_id(secret: &[u8]) -> String {
    use hmac::{KeyInit, Mac};
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret) else {
        unreachable!("HMAC accepts every key length")
    };
    mac.update(b"engram/fingerprint-key-id/v1");
    mac.finalize().into_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
