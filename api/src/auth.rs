//! Who is asking: `Authorization: Bearer KEY` → the principal the key maps
//! to in a [`KeyRing`] (only each key's SHA-256 is kept: `engram serve`
//! reads the hashes from its key file, the edge from `ENGRAM_KEYS`), and
//! the check that a scope a request names lies inside that principal (403
//! naming the dimension, worded as the store words it).

use std::collections::HashMap;

use engram_contract::reach::{self, Reach};
use engram_contract::types::Scope;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// Who a key acts for. `None` in `user` or `project`: any value.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Principal {
    /// The tenant: a key never reaches another's memory.
    pub tenant: String,
    /// The user the key is narrowed to, if any.
    #[serde(default)]
    pub user: Option<String>,
    /// The project the key is narrowed to, if any.
    #[serde(default)]
    pub project: Option<String>,
}

impl Principal {
    /// The widest scope the key may act on: its own principal.
    pub fn own_scope(&self) -> Scope {
        Scope {
            tenant: self.tenant.clone(),
            user: self.user.clone(),
            project: self.project.clone(),
            thread: None,
            agent: None,
        }
    }

    /// 403 unless `scope` lies inside this principal; `what` says which
    /// part of the request carried the scope ("item 2", "query").
    pub fn check(&self, scope: &Scope, what: &str) -> Result<(), ApiError> {
        let held = Reach {
            tenant: &self.tenant,
            user: self.user.as_deref(),
            project: self.project.as_deref(),
        };
        match reach::denial(held, scope.into(), reach::STORE_HANDLE) {
            None => Ok(()),
            Some(why) => Err(ApiError::new(
                403,
                format!("{what}: permission denied: {why}"),
            )),
        }
    }
}

/// One line of a key file (`engram keys add`): the key's hash and
/// principal; other fields (label, creation time) are the file's own.
#[derive(Deserialize)]
struct KeyLine {
    sha256: String,
    #[serde(flatten)]
    principal: Principal,
}

/// Key hashes and the principals they map to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyRing {
    by_hash: HashMap<String, Principal>,
}

impl KeyRing {
    /// The lines of a key file (JSON Lines; blank lines skipped); a bad
    /// line is named by `source` and its number.
    pub fn parse(text: &str, source: &str) -> Result<KeyRing, String> {
        let mut ring = KeyRing::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let k: KeyLine =
                serde_json::from_str(line).map_err(|e| format!("{source} line {}: {e}", i + 1))?;
            ring.insert(&k.sha256, k.principal);
        }
        Ok(ring)
    }

    /// Add a key by its hex SHA-256 (a second line with the same hash
    /// replaces the first).
    pub fn insert(&mut self, sha256: &str, principal: Principal) {
        self.by_hash.insert(sha256.to_ascii_lowercase(), principal);
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// No key at all (every request is refused).
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }

    /// The principal of the key with this hash.
    pub fn principal_by_hash(&self, hash: &str) -> Option<&Principal> {
        self.by_hash.get(hash)
    }
}

/// The hex SHA-256 of a key as presented.
pub fn key_hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// An authenticated request: its key's principal and hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authed {
    /// Who the key acts for.
    pub principal: Principal,
    /// The key's hash (never the key): the rate limiter's bucket.
    pub key_hash: String,
}

/// The principal of the `Authorization` header's key, or 401 saying what
/// is wrong.
pub fn authenticate(keys: &KeyRing, header: Option<&str>) -> Result<Authed, ApiError> {
    let unauthorized = |m: &str| ApiError::new(401, m);
    let text = header.ok_or_else(|| unauthorized("missing `Authorization: Bearer KEY` header"))?;
    let key = text
        .strip_prefix("Bearer ")
        .or_else(|| text.strip_prefix("bearer "))
        .map(str::trim)
        .ok_or_else(|| unauthorized("the Authorization header must be `Bearer KEY`"))?;
    let key_hash = key_hash(key);
    let principal = keys
        .principal_by_hash(&key_hash)
        .cloned()
        .ok_or_else(|| unauthorized("unknown API key"))?;
    Ok(Authed {
        principal,
        key_hash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring() -> KeyRing {
        let text = format!(
            "{{\"sha256\":\"{}\",\"tenant\":\"acme\",\"user\":\"u42\",\"label\":\"laptop\"}}\n\n",
            key_hash("ek_u42").to_uppercase()
        );
        KeyRing::parse(&text, "ENGRAM_KEYS").expect("a key file")
    }

    #[test]
    fn a_key_maps_to_its_principal_and_nothing_else_passes() {
        let keys = ring();
        assert_eq!(keys.len(), 1);
        let a = authenticate(&keys, Some("Bearer  ek_u42 ")).expect("known");
        assert_eq!(a.principal.user.as_deref(), Some("u42"));
        assert_eq!(a.key_hash, key_hash("ek_u42"));
        for (header, says) in [
            (None, "missing `Authorization: Bearer KEY` header"),
            (
                Some("Basic abc"),
                "the Authorization header must be `Bearer KEY`",
            ),
            (Some("bearer ek_other"), "unknown API key"),
        ] {
            assert_eq!(
                authenticate(&keys, header).unwrap_err(),
                ApiError::new(401, says)
            );
        }
        let bad = KeyRing::parse("{\"tenant\":\"acme\"}", "ENGRAM_KEYS").unwrap_err();
        assert!(
            bad.starts_with("ENGRAM_KEYS line 1: missing field `sha256`"),
            "{bad}"
        );
    }

    #[test]
    fn a_scope_outside_the_principal_is_refused_naming_the_dimension() {
        let p = ring()
            .principal_by_hash(&key_hash("ek_u42"))
            .cloned()
            .unwrap();
        let mut scope = p.own_scope();
        scope.project = Some("p".into());
        assert_eq!(p.check(&scope, "item 1"), Ok(()));
        scope.user = Some("u7".into());
        assert_eq!(
            p.check(&scope, "item 2").unwrap_err(),
            ApiError::new(
                403,
                "item 2: permission denied: user 'u7' is outside this store handle's user 'u42'"
            )
        );
    }
}
