//! Who is asking: `Authorization: Bearer KEY` → the principal the key maps
//! to in the key ring (`ENGRAM_KEYS`: the lines of an `engram keys add`
//! key file, which hold only each key's SHA-256). The same answers as
//! `engram serve` (host/src/app/serve/auth.rs).

use engram_contract::reach::{self, Reach};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::error::ApiError;

/// Who a key acts for. `None` in `user` or `project`: any value.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Principal {
    pub tenant: String,
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub project: Option<String>,
}

pub use engram_contract::types::Scope;

/// A scope as the contract's JSON spells it.
pub fn scope_json(scope: &Scope) -> Value {
    serde_json::to_value(engram_contract::wire::Scope::from(scope.clone())).unwrap_or(Value::Null)
}

/// The widest scope a key may act on: its own principal.
pub fn own_scope(p: &Principal) -> Scope {
    Scope {
        tenant: p.tenant.clone(),
        user: p.user.clone(),
        project: p.project.clone(),
        thread: None,
        agent: None,
    }
}

impl Principal {
    /// 403 unless `scope` lies inside this principal; `what` names the
    /// part of the request that carried it ("item 2", "query").
    pub fn check(&self, scope: &Scope, what: &str) -> Result<(), ApiError> {
        match self.denial(scope) {
            None => Ok(()),
            Some(why) => Err(ApiError::new(
                403,
                format!("{what}: permission denied: {why}"),
            )),
        }
    }

    /// The first dimension of `scope` outside this principal, with both
    /// values, as the store words it (`engram_contract::reach`).
    pub fn denial(&self, scope: &Scope) -> Option<String> {
        let held = Reach {
            tenant: &self.tenant,
            user: self.user.as_deref(),
            project: self.project.as_deref(),
        };
        reach::denial(held, scope.into(), reach::STORE_HANDLE)
    }
}

/// One line of a key file.
#[derive(Debug, Clone, Deserialize)]
struct KeyLine {
    sha256: String,
    #[serde(flatten)]
    principal: Principal,
}

/// Key hashes and the principals they map to.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    keys: Vec<(String, Principal)>,
}

impl KeyRing {
    /// The key file's lines; a bad line is named.
    pub fn parse(text: &str) -> Result<KeyRing, String> {
        let mut keys = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let k: KeyLine = serde_json::from_str(line)
                .map_err(|e| format!("ENGRAM_KEYS line {}: {e}", i + 1))?;
            keys.push((k.sha256.to_ascii_lowercase(), k.principal));
        }
        Ok(KeyRing { keys })
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn principal_by_hash(&self, hash: &str) -> Option<&Principal> {
        self.keys.iter().find(|(h, _)| h == hash).map(|(_, p)| p)
    }
}

/// The hex SHA-256 of a key as presented.
pub fn key_hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// The principal of the request's key, or 401 saying what is wrong.
pub fn authenticate(config: &Config, header: Option<&str>) -> Result<Principal, ApiError> {
    let text =
        header.ok_or_else(|| ApiError::new(401, "missing `Authorization: Bearer KEY` header"))?;
    let key = text
        .strip_prefix("Bearer ")
        .or_else(|| text.strip_prefix("bearer "))
        .map(str::trim)
        .ok_or_else(|| ApiError::new(401, "the Authorization header must be `Bearer KEY`"))?;
    config
        .keys
        .principal_by_hash(&key_hash(key))
        .cloned()
        .ok_or_else(|| ApiError::new(401, "unknown API key"))
}
