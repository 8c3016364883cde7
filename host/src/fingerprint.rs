//! The fingerprint secret: what tombstone keys are derived from.
//!
//! A tombstone is an HMAC-SHA-256 of erased content under a key of its
//! owner (tenant, user, project). The keys are derived here, in the host,
//! from one deployment secret that is never stored in the database: a key
//! file beside a SQLite file (`<db>.key`, created 0600 on first use), or a
//! file the operator supplies (`--fingerprint-key`, needed for PostgreSQL,
//! the same file on every host of one store). The guest is handed only the
//! keys of owners its principal can see (`ScopedStore::fingerprint_key`).
//!
//! The store records the key's id (an HMAC of a constant under the secret),
//! so a host whose key file is missing or different refuses instead of
//! silently recognising nothing: erased content could otherwise come back.
//! See docs/durability.md for what to do when the key is lost.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::bindings::{Scope, StoreError};

/// Bytes of a new secret.
pub const SECRET_BYTES: usize = 32;

/// The deployment secret.
#[derive(Clone, PartialEq, Eq)]
pub struct FingerprintSecret {
    bytes: Vec<u8>,
}

impl std::fmt::Debug for FingerprintSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FingerprintSecret(key id {})", self.key_id())
    }
}

impl FingerprintSecret {
    /// A new secret from the operating system's CSPRNG.
    pub fn random() -> Result<Self, StoreError> {
        let mut bytes = vec![0u8; SECRET_BYTES];
        getrandom::fill(&mut bytes).map_err(|e| {
            StoreError::Backend(format!(
                "no randomness from the OS for a fingerprint key: {e}"
            ))
        })?;
        Ok(FingerprintSecret { bytes })
    }

    /// A secret from its bytes (at least 16).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() < 16 {
            return Err(format!(
                "a fingerprint key needs at least 16 bytes, this one has {}",
                bytes.len()
            ));
        }
        Ok(FingerprintSecret {
            bytes: bytes.to_vec(),
        })
    }

    /// A key file's text: the secret in hex (whitespace around it ignored).
    pub fn from_hex(text: &str) -> Result<Self, String> {
        let bytes = hex::decode(text.trim())
            .map_err(|e| format!("a fingerprint key file holds the key in hex: {e}"))?;
        Self::from_bytes(&bytes)
    }

    /// What a key file holds.
    pub fn to_file_text(&self) -> String {
        format!("{}\n", hex::encode(&self.bytes))
    }

    /// The key's id as the store records it: the first 16 hex digits of an
    /// HMAC of a constant under the secret (nothing to learn the key from).
    pub fn key_id(&self) -> String {
        engram_contract::owner::key_id(&self.bytes)
    }

    /// The fingerprint key of content owned by `owner`, derived as every
    /// host derives it (`engram_contract::owner::derive_key`).
    pub fn derive(&self, owner: &Scope) -> [u8; 32] {
        engram_contract::owner::derive_key(&self.bytes, owner)
    }
}

/// Where a store's secret comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// A key file, created (0600) on first use when the store has no
    /// tombstones yet.
    File(PathBuf),
    /// A random secret for this process only (`:memory:` stores).
    Ephemeral,
    /// None configured: why, and what to pass (PostgreSQL without a key).
    Unset(String),
}

impl KeySource {
    /// The default beside a SQLite file: `<db>.key`.
    pub fn beside(db: &Path) -> KeySource {
        let mut name = db.as_os_str().to_os_string();
        name.push(".key");
        KeySource::File(PathBuf::from(name))
    }
}

/// A store's secret, loaded once and checked against the key id the store
/// recorded.
#[derive(Debug, Clone)]
pub struct KeyHolder {
    source: KeySource,
    loaded: Option<FingerprintSecret>,
}

impl KeyHolder {
    /// A holder that loads the secret from `source` on first use.
    pub fn new(source: KeySource) -> Self {
        KeyHolder {
            source,
            loaded: None,
        }
    }

    /// Where the secret comes from.
    pub fn source(&self) -> &KeySource {
        &self.source
    }

    /// The secret, loaded (or created, when the store has recorded no key
    /// yet) and checked against `recorded`, the key id in the store.
    pub fn resolve(&mut self, recorded: Option<&str>) -> Result<FingerprintSecret, StoreError> {
        let secret = match &self.loaded {
            Some(s) => s.clone(),
            None => {
                let s = self.load(recorded)?;
                self.loaded = Some(s.clone());
                s
            }
        };
        if let Some(r) = recorded {
            if secret.key_id() != r {
                return Err(StoreError::Backend(format!(
                    "the fingerprint key {} (key id {}) is not the key this store's tombstones were made with (key id {r}): restore that key file (docs/durability.md)",
                    self.describe(),
                    secret.key_id()
                )));
            }
        }
        Ok(secret)
    }

    fn describe(&self) -> String {
        match &self.source {
            KeySource::File(p) => p.display().to_string(),
            KeySource::Ephemeral => "of this process".into(),
            KeySource::Unset(_) => "(none)".into(),
        }
    }

    fn load(&self, recorded: Option<&str>) -> Result<FingerprintSecret, StoreError> {
        match &self.source {
            KeySource::Ephemeral => FingerprintSecret::random(),
            KeySource::Unset(why) => Err(StoreError::Backend(why.clone())),
            KeySource::File(path) => match std::fs::read_to_string(path) {
                Ok(text) => FingerprintSecret::from_hex(&text).map_err(|e| {
                    StoreError::Backend(format!("fingerprint key {}: {e}", path.display()))
                }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => match recorded {
                    Some(id) => Err(StoreError::Backend(format!(
                        "the fingerprint key file {} is missing, but this store's tombstones were made with a key (key id {id}): restore it from a backup; without it erased content is no longer recognised (docs/durability.md)",
                        path.display()
                    ))),
                    None => create(path),
                },
                Err(e) => Err(StoreError::Backend(format!(
                    "fingerprint key {}: {e}",
                    path.display()
                ))),
            },
        }
    }
}

/// Write a new secret to `path`, readable by its owner only. Another
/// process creating it at the same moment wins: its key is read instead.
fn create(path: &Path) -> Result<FingerprintSecret, StoreError> {
    let secret = FingerprintSecret::random()?;
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let err = |e: std::io::Error| {
        StoreError::Backend(format!(
            "creating the fingerprint key {}: {e}",
            path.display()
        ))
    };
    match o.open(path) {
        Ok(mut f) => {
            f.write_all(secret.to_file_text().as_bytes())
                .and_then(|()| f.sync_all())
                .map_err(err)?;
            Ok(secret)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let text = std::fs::read_to_string(path).map_err(err)?;
            FingerprintSecret::from_hex(&text).map_err(|e| {
                StoreError::Backend(format!("fingerprint key {}: {e}", path.display()))
            })
        }
        Err(e) => Err(err(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(tenant: &str, user: Option<&str>, project: Option<&str>) -> Scope {
        Scope {
            tenant: tenant.into(),
            user: user.map(Into::into),
            project: project.map(Into::into),
            thread: None,
            agent: None,
        }
    }

    /// The derivation every host implements, pinned: the npm and Python
    /// packages check the same vector.
    #[test]
    fn derivation_matches_the_shared_vector() {
        let s = FingerprintSecret::from_bytes(&[7u8; 32]).unwrap();
        assert_eq!(
            hex::encode(s.derive(&owner("acme", Some("u1"), None))),
            DERIVED_ACME_U1
        );
        assert_eq!(s.key_id(), KEY_ID_SEVENS);
        // Every dimension counts, and none differs from empty.
        let all = [
            owner("acme", None, None),
            owner("acme", Some(""), None),
            owner("acme", Some("u1"), None),
            owner("acme", None, Some("u1")),
            owner("acme", Some("u1"), Some("p")),
            owner("acmeu1", None, None),
        ];
        let keys: std::collections::BTreeSet<[u8; 32]> = all.iter().map(|o| s.derive(o)).collect();
        assert_eq!(keys.len(), all.len());
    }

    const DERIVED_ACME_U1: &str =
        "4958d2df704e1c5e8666fb063731fbeb24fd1c84c18b0f71c862ebf90c58425c";
    const KEY_ID_SEVENS: &str = "5dd6206ea8859025";

    #[test]
    fn a_key_file_is_created_once_0600_and_a_missing_one_is_refused_once_recorded() {
        let dir = std::env::temp_dir().join(format!("engram-fp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.db.key");
        let _ = std::fs::remove_file(&path);
        let mut h = KeyHolder::new(KeySource::File(path.clone()));
        let first = h.resolve(None).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = KeyHolder::new(KeySource::File(path.clone()))
            .resolve(Some(&first.key_id()))
            .unwrap();
        assert_eq!(first, again, "the file is read, not replaced");
        std::fs::remove_file(&path).unwrap();
        let e = KeyHolder::new(KeySource::File(path.clone()))
            .resolve(Some(&first.key_id()))
            .unwrap_err();
        assert!(
            matches!(&e, StoreError::Backend(m) if m.contains("missing") && m.contains(&first.key_id())),
            "{e:?}"
        );
        assert!(!path.exists(), "a missing key is not silently replaced");
        // Another key is refused as well.
        std::fs::write(&path, FingerprintSecret::random().unwrap().to_file_text()).unwrap();
        let e = KeyHolder::new(KeySource::File(path.clone()))
            .resolve(Some(&first.key_id()))
            .unwrap_err();
        assert!(
            matches!(&e, StoreError::Backend(m) if m.contains("is not the key")),
            "{e:?}"
        );
    }
}
