//! API keys: `engram keys add` and the key file `engram serve` reads.
//!
//! The file is JSON Lines, one key per line:
//! `{"sha256":"…","tenant":"acme","user":null,"project":null,"created_at":"…"}`.
//! Only the SHA-256 of a key is stored. A key is 32 bytes from the
//! operating system's CSPRNG, so a fast hash is enough: there is nothing to
//! guess that a slow password hash would protect.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::app::failure::Failure;
use crate::app::flags::Flags;
use crate::bindings as w;

/// Every key starts with this, so a leaked one is recognisable.
const KEY_PREFIX: &str = "ek_";

#[derive(Subcommand, Debug)]
pub enum KeysCmd {
    /// Make a new API key for --tenant (optionally --user/--project): the
    /// key is printed on stdout, and only its hash is stored in --keys FILE.
    Add(KeysArgs),
}

#[derive(Args, Debug)]
pub struct KeysArgs {
    /// The key file (JSON Lines; created on first use).
    #[arg(long)]
    pub keys: std::path::PathBuf,
}

/// One line of the key file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct KeyLine {
    sha256: String,
    tenant: String,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
}

/// The hex SHA-256 of a key as presented.
pub fn key_hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// `engram keys …`.
pub fn run(flags: &Flags, cmd: &KeysCmd, out: &mut dyn Write) -> Result<(), Failure> {
    match cmd {
        KeysCmd::Add(args) => {
            let tenant = flags
                .tenant
                .clone()
                .ok_or_else(|| Failure::input("keys add: --tenant is required"))?;
            let key = add(
                &args.keys,
                &tenant,
                flags.user.clone(),
                flags.project.clone(),
            )?;
            writeln!(out, "{key}").map_err(|e| Failure::input(format!("writing stdout: {e}")))
        }
    }
}

/// Make a key for the principal, append its hash to `file`, return the key.
pub fn add(
    file: &Path,
    tenant: &str,
    user: Option<String>,
    project: Option<String>,
) -> Result<String, Failure> {
    if tenant.is_empty() {
        return Err(Failure::input("keys add: --tenant must not be empty"));
    }
    let mut random = [0u8; 32];
    getrandom::fill(&mut random)
        .map_err(|e| Failure::input(format!("keys add: no randomness from the OS: {e}")))?;
    let key = format!("{KEY_PREFIX}{}", hex::encode(random));
    let line = KeyLine {
        sha256: key_hash(&key),
        tenant: tenant.to_string(),
        user,
        project,
        created_at: Some(chrono::Utc::now().to_rfc3339()),
    };
    let mut text = serde_json::to_string(&line).map_err(|e| Failure::input(e.to_string()))?;
    text.push('\n');
    let mut f = open_for_append(file)
        .map_err(|e| Failure::input(format!("keys file {}: {e}", file.display())))?;
    // One write of one line, appended: concurrent `keys add` never interleave.
    f.write_all(text.as_bytes())
        .map_err(|e| Failure::input(format!("keys file {}: {e}", file.display())))?;
    Ok(key)
}

/// Append-only, readable by its owner only (it maps hashes to tenants).
fn open_for_append(file: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(file)
}

/// The keys `engram serve` accepts: key hash → principal.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    by_hash: HashMap<String, w::Principal>,
}

impl KeyRing {
    /// Read a key file; a bad line is reported with its number.
    pub fn load(file: &Path) -> Result<Self, Failure> {
        let text = std::fs::read_to_string(file).map_err(|e| {
            Failure::input(format!(
                "keys file {}: {e} (make one with `engram keys add --keys FILE --tenant T`)",
                file.display()
            ))
        })?;
        let mut by_hash = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let l: KeyLine = serde_json::from_str(raw).map_err(|e| {
                Failure::input(format!("keys file {} line {}: {e}", file.display(), i + 1))
            })?;
            if l.tenant.is_empty() || l.sha256.len() != 64 {
                return Err(Failure::input(format!(
                    "keys file {} line {}: a key needs a 64-hex-digit `sha256` and a non-empty `tenant`",
                    file.display(),
                    i + 1
                )));
            }
            by_hash.insert(
                l.sha256.to_ascii_lowercase(),
                w::Principal {
                    tenant: l.tenant,
                    user: l.user,
                    project: l.project,
                },
            );
        }
        Ok(KeyRing { by_hash })
    }

    /// The principal of a presented key, by the key's [`key_hash`], if it
    /// is one of ours (the caller keeps the hash for the rate limiter).
    pub fn principal_by_hash(&self, hash: &str) -> Option<&w::Principal> {
        self.by_hash.get(hash)
    }

    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}
