//! What a value looks like: a placeholder, a plain word, a credential,
//! random (by entropy and alternating character classes, or by its
//! alphabet), a provider-prefixed token.

use super::placeholder::why_not_secret;
use crate::core::config::WritePolicy;

/// A placeholder, a reference or code, not a secret (see `placeholder`).
pub(super) fn placeholder(v: &str) -> bool {
    why_not_secret(v).is_some() || v.trim().is_empty()
}

pub(super) fn has_digit(v: &str) -> bool {
    v.bytes().any(|c| c.is_ascii_digit())
}

pub(super) fn has_symbol(v: &str) -> bool {
    v.bytes()
        .any(|c| c.is_ascii_punctuation() && !matches!(c, b'-' | b'_' | b'.'))
}

/// Credential-like: not a plain word.
pub(super) fn credential_like(v: &str) -> bool {
    let upper = v.bytes().any(|c| c.is_ascii_uppercase());
    let lower = v.bytes().any(|c| c.is_ascii_lowercase());
    v.chars().count() >= 4
        && v.is_ascii()
        && (has_digit(v) || has_symbol(v) || (upper && lower && v.len() >= 8) || v.len() >= 16)
}

/// Shannon entropy in bits per character.
pub(super) fn entropy(v: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut n = 0u32;
    for c in v.bytes() {
        counts[c as usize] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|&&k| k > 0)
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

/// Random-looking: high entropy, and character classes alternate quickly
/// (identifiers like "customerDedupeService2024" have long runs).
pub(super) fn looks_random(v: &str, wp: &WritePolicy) -> bool {
    let class = |c: u8| -> u8 {
        if c.is_ascii_uppercase() {
            0
        } else if c.is_ascii_lowercase() {
            1
        } else if c.is_ascii_digit() {
            2
        } else {
            3
        }
    };
    let bytes = v.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    let mut runs = 1usize;
    let mut last = class(first);
    for &c in &bytes[1..] {
        let k = class(c);
        if k != last {
            runs += 1;
            last = k;
        }
    }
    let mean_run = bytes.len() as f64 / runs as f64;
    let classes = [0u8, 1, 2]
        .iter()
        .filter(|k| bytes.iter().any(|&c| class(c) == **k))
        .count();
    classes >= 3 && entropy(v) >= wp.entropy_min_bits && mean_run <= wp.entropy_max_mean_run
}

/// Random by its alphabet, for single-case tokens `looks_random` (which
/// wants upper, lower and digits) cannot judge: lower- or upper-case
/// letters with digits (base 36, as in "i33p2ubu7dx8…"), at least
/// `entropy_single_case_min_len` long, with `entropy_single_case_min_bits`.
/// Hex alone is never enough: hashes and revisions are hex.
pub(super) fn random_by_alphabet(v: &str, wp: &WritePolicy) -> bool {
    let bytes = v.as_bytes();
    let letters = bytes.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let digits = bytes.iter().filter(|c| c.is_ascii_digit()).count();
    let hex = bytes.iter().all(u8::is_ascii_hexdigit);
    let single_case =
        !bytes.iter().any(u8::is_ascii_uppercase) || !bytes.iter().any(u8::is_ascii_lowercase);
    single_case
        && !hex
        && letters + digits == bytes.len()
        && bytes.len() >= wp.entropy_single_case_min_len
        && letters >= 4
        && digits >= 4
        && entropy(v) >= wp.entropy_single_case_min_bits
}

/// A provider-prefixed token ("dop_v1_…", "sntryu_…", "shpat_…"): a short
/// lettered prefix, `_` or `-`, and a long random body, judged by the
/// body's alphabet (a hex body counts here: the prefix says it is a
/// credential, not a digest). Returns the prefix.
pub(super) fn provider_prefixed<'a>(v: &'a str, wp: &WritePolicy) -> Option<&'a str> {
    if v.len() < 22 || !v.contains(['_', '-']) {
        return None;
    }
    let body = v.split(['_', '-']).max_by_key(|seg| seg.len())?;
    let at = v.find(body)?;
    let prefix = v.get(..at)?;
    let head = prefix.trim_end_matches(['_', '-']);
    let lettered = head.len() >= 2
        && head.len() <= 16
        && head.bytes().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head.bytes().filter(u8::is_ascii_alphabetic).count() >= 2;
    let digest = head.split(['_', '-']).any(|p| {
        wp.cues
            .digest_prefixes
            .contains(&p.to_ascii_lowercase().as_str())
    });
    if !lettered || digest || at + body.len() != v.len() || body.len() < 20 {
        return None;
    }
    let hex = body.bytes().all(|c| c.is_ascii_hexdigit());
    let letters = body.bytes().filter(u8::is_ascii_alphabetic).count();
    let digits = body.bytes().filter(u8::is_ascii_digit).count();
    // The prefix already says "credential": a shorter body of any random
    // alphabet will do (hex from 32 characters).
    let random = if hex {
        letters > 0 && digits > 0 && body.len() >= 32 && entropy(body) >= 3.0
    } else {
        letters >= 3 && digits >= 3 && entropy(body) >= wp.entropy_min_bits
    };
    random.then_some(prefix)
}

/// A token, not a word: random by its alphabet, provider-prefixed, or at
/// least 12 characters mixing letters and digits.
pub(super) fn token_like(v: &str, wp: &WritePolicy) -> bool {
    looks_random(v, wp)
        || random_by_alphabet(v, wp)
        || provider_prefixed(v, wp).is_some()
        || (v.len() >= 12
            && has_digit(v)
            && v.bytes().filter(u8::is_ascii_alphabetic).count() >= 4
            && v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'))
}
