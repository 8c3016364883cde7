//! API keys: `engram keys add|list|revoke` and the key file `engram
//! serve` reads.
//!
//! The file is JSON Lines, one key per line:
//! `{"sha256":"…","tenant":"acme","user":null,"project":null,"label":"laptop","created_at":"…"}`
//! (`label` is optional: files written before labels load as they are).
//! Only the SHA-256 of a key is stored. A key is 32 bytes from the
//! operating system's CSPRNG, so a fast hash is enough: there is nothing to
//! guess that a slow password hash would protect. A key's id is the first
//! 12 hex digits of that hash: stable, shown by `keys list`, and enough to
//! name it for `keys revoke` when it has no label.
//!
//! Changes are atomic: `add` appends one line in one write, `revoke`
//! writes the remaining lines to a temporary file beside the key file and
//! renames it over; both hold an exclusive lock on `<file>.lock` so two
//! changes never lose each other's. A running `engram serve` notices a
//! changed file within a second (`serve::watch_keys`).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::failure::Failure;
use engram_host::bindings as w;

/// Every key starts with this, so a leaked one is recognisable.
const KEY_PREFIX: &str = "ek_";
/// Hex digits of the key's hash that make its id.
const ID_LEN: usize = 12;

#[derive(Subcommand, Debug)]
pub enum KeysCmd {
    /// Make a new API key for --tenant (optionally --user/--project): the
    /// key is printed on stdout, and only its hash is stored in --keys FILE.
    ///
    /// The key is shown this once: keep it (a lost key cannot be recovered,
    /// only revoked and replaced). Its line in the key file holds the hash,
    /// the principal, the label and the time it was made. A running `engram
    /// serve` on the same file accepts it within a second.
    Add(AddArgs),
    /// List the keys of --keys FILE: one JSON line per key with its id,
    /// label, principal and creation time (never a secret).
    List(FileArgs),
    /// Revoke a key by its label or id: its line is removed from the file
    /// (atomically), and a running `engram serve` refuses it (401) within a
    /// second.
    Revoke(RevokeArgs),
}

#[derive(Args, Debug)]
pub struct FileArgs {
    /// The key file (JSON Lines, mode 0600; `engram serve --keys` reads it).
    #[arg(long, value_name = "FILE")]
    pub keys: PathBuf,
}

#[derive(Args, Debug)]
pub struct AddArgs {
    /// The key file (JSON Lines, mode 0600; created on first use).
    #[arg(long, value_name = "FILE")]
    pub keys: PathBuf,
    /// The tenant the key acts for: it can never reach another's memory.
    #[arg(long)]
    pub tenant: String,
    /// Narrow the key to this user of the tenant.
    #[arg(long)]
    pub user: Option<String>,
    /// Narrow the key to this project of the tenant.
    #[arg(long)]
    pub project: Option<String>,
    /// A name for the key, unique in the file (e.g. `laptop`, `ci-bot`):
    /// how `keys list` shows it and `keys revoke` names it.
    #[arg(long)]
    pub label: Option<String>,
}

#[derive(Args, Debug)]
pub struct RevokeArgs {
    /// The key file.
    #[arg(long, value_name = "FILE")]
    pub keys: PathBuf,
    /// The key's label, or its id as `keys list` shows it.
    #[arg(value_name = "LABEL_OR_ID")]
    pub key: String,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
}

impl KeyLine {
    fn id(&self) -> String {
        self.sha256
            .chars()
            .take(ID_LEN)
            .collect::<String>()
            .to_ascii_lowercase()
    }
}

/// The hex SHA-256 of a key as presented.
pub fn key_hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// `engram keys …`.
pub fn run(cmd: &KeysCmd, out: &mut dyn Write) -> Result<(), Failure> {
    let write = |out: &mut dyn Write, text: &str| {
        out.write_all(text.as_bytes())
            .map_err(|e| Failure::input(format!("writing stdout: {e}")))
    };
    match cmd {
        KeysCmd::Add(args) => {
            let key = add_labelled(
                &args.keys,
                &args.tenant,
                args.user.clone(),
                args.project.clone(),
                args.label.as_deref(),
            )?;
            write(out, &format!("{key}\n"))
        }
        KeysCmd::List(args) => {
            let mut text = String::new();
            for (_, l) in read_lines(&args.keys)? {
                let v = serde_json::json!({
                    "id": l.id(),
                    "label": l.label,
                    "tenant": l.tenant,
                    "user": l.user,
                    "project": l.project,
                    "created_at": l.created_at,
                });
                text.push_str(&v.to_string());
                text.push('\n');
            }
            write(out, &text)
        }
        KeysCmd::Revoke(args) => {
            let gone = revoke(&args.keys, &args.key)?;
            let v = serde_json::json!({
                "revoked": gone.id(),
                "label": gone.label,
                "tenant": gone.tenant,
                "user": gone.user,
                "project": gone.project,
            });
            write(out, &format!("{v}\n"))
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
    add_labelled(file, tenant, user, project, None)
}

/// `add`, with a label unique in the file.
pub fn add_labelled(
    file: &Path,
    tenant: &str,
    user: Option<String>,
    project: Option<String>,
    label: Option<&str>,
) -> Result<String, Failure> {
    if tenant.is_empty() {
        return Err(Failure::input("keys add: --tenant must not be empty"));
    }
    if let Some(l) = label {
        if l.trim().is_empty() {
            return Err(Failure::input("keys add: --label must not be empty"));
        }
    }
    let _lock = FileLock::take(file)?;
    if let Some(l) = label {
        if file.exists() {
            if let Some((_, taken)) = read_lines(file)?
                .into_iter()
                .find(|(_, k)| k.label.as_deref() == Some(l))
            {
                return Err(Failure::input(format!(
                    "keys add: the label '{l}' is taken by key {} in {}; choose another or revoke that key first",
                    taken.id(),
                    file.display()
                )));
            }
        }
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
        label: label.map(str::to_string),
        created_at: Some(chrono::Utc::now().to_rfc3339()),
    };
    let mut text = serde_json::to_string(&line).map_err(|e| Failure::input(e.to_string()))?;
    text.push('\n');
    let mut f = open_for_append(file)
        .map_err(|e| Failure::input(format!("keys file {}: {e}", file.display())))?;
    // One write of one line, appended.
    f.write_all(text.as_bytes())
        .map_err(|e| Failure::input(format!("keys file {}: {e}", file.display())))?;
    Ok(key)
}

/// Remove the key `which` (a label or an id) from `file`: the other lines
/// are written, as they were, to a temporary file beside it, which is then
/// renamed over it (a reader sees the old file or the new, never half).
fn revoke(file: &Path, which: &str) -> Result<KeyLine, Failure> {
    let _lock = FileLock::take(file)?;
    let lines = read_lines(file)?;
    let wanted = which.to_ascii_lowercase();
    let by_label: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (_, k))| k.label.as_deref() == Some(which))
        .map(|(i, _)| i)
        .collect();
    let matching = if by_label.is_empty() {
        lines
            .iter()
            .enumerate()
            .filter(|(_, (_, k))| {
                wanted.len() >= 6 && k.sha256.to_ascii_lowercase().starts_with(&wanted)
            })
            .map(|(i, _)| i)
            .collect()
    } else {
        by_label
    };
    let index = match matching.as_slice() {
        [i] => *i,
        [] => {
            return Err(Failure::input(format!(
                "keys revoke: no key labelled or with id '{which}' in {} (`engram keys list --keys {}` shows them)",
                file.display(),
                file.display()
            )))
        }
        many => {
            let ids: Vec<String> = many.iter().map(|&i| lines[i].1.id()).collect();
            return Err(Failure::input(format!(
                "keys revoke: '{which}' names {} keys ({}); revoke one by its id",
                many.len(),
                ids.join(", ")
            )));
        }
    };
    let mut text = String::new();
    for (i, (raw, _)) in lines.iter().enumerate() {
        if i != index {
            text.push_str(raw);
            text.push('\n');
        }
    }
    replace(file, &text)?;
    Ok(lines[index].1.clone())
}

/// Write `text` to a temporary file beside `file`, fsync it, and rename it
/// over `file`.
fn replace(file: &Path, text: &str) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::input(format!("keys file {}: {e}", file.display()));
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "keys".into());
    let tmp = file.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut o = std::fs::OpenOptions::new();
        o.create(true).write(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        let mut f = o.open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, file)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    // The rename is durable once the directory is synced.
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// An exclusive lock on `<file>.lock`, held while the key file changes.
struct FileLock(#[allow(dead_code)] std::fs::File);

impl FileLock {
    fn take(file: &Path) -> Result<FileLock, Failure> {
        let mut name = file.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Failure::input(format!("keys file lock {}: {e}", path.display())))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            // SAFETY: flock(2) on a descriptor this File owns; released when it closes.
            let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
            if r != 0 {
                return Err(Failure::input(format!(
                    "keys file lock {}: {}",
                    path.display(),
                    std::io::Error::last_os_error()
                )));
            }
        }
        Ok(FileLock(f))
    }
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

/// Every key line of `file` with its text; a bad line is reported with
/// its number.
fn read_lines(file: &Path) -> Result<Vec<(String, KeyLine)>, Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        Failure::input(format!(
            "keys file {}: {e} (make one with `engram keys add --keys FILE --tenant T`)",
            file.display()
        ))
    })?;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let l: KeyLine = serde_json::from_str(raw).map_err(|e| {
            Failure::input(format!(
                "keys file {} line {}: not a key line ({e})",
                file.display(),
                i + 1
            ))
        })?;
        if l.tenant.is_empty()
            || l.sha256.len() != 64
            || !l.sha256.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(Failure::input(format!(
                "keys file {} line {}: a key needs a 64-hex-digit `sha256` and a non-empty `tenant`",
                file.display(),
                i + 1
            )));
        }
        out.push((raw.to_string(), l));
    }
    Ok(out)
}

/// The keys `engram serve` accepts: key hash → principal.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    by_hash: HashMap<String, w::Principal>,
}

impl KeyRing {
    /// Read a key file; a bad line is reported with its number.
    pub fn load(file: &Path) -> Result<Self, Failure> {
        let mut by_hash = HashMap::new();
        for (_, l) in read_lines(file)? {
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
