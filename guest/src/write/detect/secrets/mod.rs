//! Detection of secrets and credentials (never written, whatever the source)
//! and of sensitive personal data (written only with an explicit ask).
//!
//! Secrets are found by several independent detectors, not one pattern:
//! well-known token formats (provider prefixes and suffixes of cloud keys
//! and API tokens, found in one pass; JWTs, private key blocks, bearer
//! headers), connection URLs with a password, `KEY=value` assignments and
//! environment dumps, keyword-anchored values ("密码是 …", "API key is …",
//! and a value named after it: "use … as the API key"), account/password
//! pairs, and a Shannon-entropy check for random-looking tokens. Personal data: national ID numbers (with the
//! GB 11643 checksum), payment card numbers (Luhn), phone numbers, passport
//! numbers, health conditions, e-mail addresses.
//!
//! Findings carry byte ranges of the sensitive value in the original text,
//! so it can be redacted, and a `hint` that is safe to print (a format
//! prefix or a key name, never the value).

mod checksums;
mod dumps;
mod finding;
mod keyvalue;
mod keywords;
mod personal;
mod placeholder;
mod position;
mod random;
mod scan;
mod shape;
mod tokens;
mod urls;

pub use finding::{mask, redact, Family, Finding};
pub use keyvalue::placeholder_credential;
pub use personal::find_personal_with;

use crate::analysis::cues::fold;
use crate::core::config::WritePolicy;
use dumps::environment_dumps;
use finding::dedup;
use keywords::{credential_pairs, keyword_values};
use random::{high_entropy, password_like};
use tokens::{jwts, prefixed_tokens, private_keys, suffixed_tokens};
use urls::{auth_headers, url_credentials, webhook_urls};

/// Secrets and credentials in `text`, under the default policy (tests).
#[cfg(test)]
pub fn find_secrets(text: &str) -> Vec<Finding> {
    find_secrets_with(text, &crate::core::config::Policy::default().write)
}

/// Sensitive personal data in `text`, under the default policy (tests).
#[cfg(test)]
pub fn find_personal(text: &str) -> Vec<Finding> {
    find_personal_with(text, &crate::core::config::Policy::default().write)
}

/// `text` with every secret and personal value the detectors find under
/// `wp` (the call's write policy) replaced by `[REDACTED:family]`: for
/// text that is not classified (an operation record's free-text fields).
/// A classified text is redacted with its classification's findings
/// (`redact`), so the call's policy decides both alike.
pub fn redact_with(text: &str, wp: &WritePolicy) -> String {
    let Detected {
        mut secrets,
        personal,
        ..
    } = detect(text, wp);
    secrets.extend(personal);
    redact(text, &secrets)
}

/// Secrets and credentials in `text`.
pub fn find_secrets_with(text: &str, wp: &WritePolicy) -> Vec<Finding> {
    secrets_in(text, &fold(text), wp)
}

/// What the detectors found in one text, and the text folded once for
/// all of them (`fold` keeps every character's byte length, so a finding's
/// range is the same in both, and `mask(&folded, …)` equals folding the
/// masked text).
pub struct Detected {
    pub secrets: Vec<Finding>,
    pub personal: Vec<Finding>,
    pub folded: String,
}

/// Secrets and sensitive personal data in `text`, folding it once.
pub fn detect(text: &str, wp: &WritePolicy) -> Detected {
    let folded = fold(text);
    Detected {
        secrets: secrets_in(text, &folded, wp),
        personal: personal::personal_in(text, &folded, wp),
        folded,
    }
}

fn secrets_in(text: &str, folded: &str, wp: &WritePolicy) -> Vec<Finding> {
    let mut out = Vec::new();
    prefixed_tokens(text, &mut out);
    suffixed_tokens(text, &mut out);
    jwts(text, &mut out);
    private_keys(text, &mut out);
    auth_headers(text, folded, &mut out);
    url_credentials(text, &mut out);
    webhook_urls(text, &mut out);
    keyvalue::key_values(text, wp, &mut out);
    position::credentials(text, wp, &mut out);
    environment_dumps(text, wp, &mut out);
    keyword_values(text, folded, wp, &mut out);
    credential_pairs(text, folded, wp, &mut out);
    // The shape checks last: they only add tokens no named detector found.
    let mut random = Vec::new();
    password_like(text, &mut random);
    high_entropy(text, wp, &mut random);
    let random: Vec<Finding> = random
        .into_iter()
        .filter(|r| !out.iter().any(|f| r.start < f.end && f.start < r.end))
        .collect();
    out.extend(random);
    dedup(out)
}

#[cfg(test)]
mod tests;
