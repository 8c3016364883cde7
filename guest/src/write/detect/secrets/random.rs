//! The shape checks, run after the named detectors: password-like strings
//! and random-looking tokens (Shannon entropy), with what makes such a
//! token no secret (a URL's part, an e-mail's local part, a labelled
//! digest).

use super::finding::Finding;
use super::finding::{finding, Family};
use super::keyvalue;
use super::scan::b;
use super::scan::run;
use super::shape::looks_random;
use super::shape::placeholder;
use super::shape::provider_prefixed;
use super::shape::random_by_alphabet;
use crate::core::config::WritePolicy;

/// Password-like strings anywhere: 8–64 characters mixing upper case,
/// lower case, digits and a symbol ("Jk!9x2Lq7"), which identifiers,
/// versions and words do not.
pub(super) fn password_like(text: &str, out: &mut Vec<Finding>) {
    let strong = |c: u8| {
        matches!(
            c,
            b'!' | b'#' | b'$' | b'%' | b'^' | b'&' | b'*' | b'+' | b'=' | b'?' | b'~' | b'@'
        )
    };
    // `=` ends a token ("KEY=value" is two).
    let tok =
        |c: u8| c.is_ascii_alphanumeric() || (strong(c) && c != b'=') || c == b'_' || c == b'-';
    let mut i = 0;
    while i < text.len() {
        if !b(text, i).is_some_and(tok)
            || (i > 0 && b(text, i - 1).is_some_and(|c| c == b'/' || c == b'.'))
        {
            i += 1;
            continue;
        }
        let e = run(text, i, tok);
        // Trailing sentence punctuation is not part of it.
        let mut end = e;
        while end > i && matches!(b(text, end - 1), Some(b'!' | b'?')) {
            end -= 1;
        }
        let v = text.get(i..end).unwrap_or("");
        let bytes = v.as_bytes();
        let classes = [
            bytes.iter().any(u8::is_ascii_uppercase),
            bytes.iter().any(u8::is_ascii_lowercase),
            bytes.iter().any(u8::is_ascii_digit),
            bytes.iter().any(|c| strong(*c)),
        ];
        let next_is_path = matches!(b(text, e), Some(b'/' | b'.'))
            && b(text, e + 1).is_some_and(|c| c.is_ascii_alphanumeric());
        if (8..=64).contains(&v.len())
            && classes.iter().all(|x| *x)
            && !next_is_path
            && !placeholder(v)
        {
            out.push(finding(
                Family::PasswordLike,
                "password-like string",
                format!("{} chars", v.len()),
                i,
                end,
            ));
        }
        i = e.max(i + 1);
    }
}

/// Byte spans of URLs (scheme to the next space or quote): their path and
/// query parts are tracking ids and file names, judged by the URL
/// detectors (credentials, webhooks, secret-named query keys), not by shape.
fn url_spans(text: &str) -> Vec<(usize, usize)> {
    text.match_indices("://")
        .map(|(i, _)| {
            let end = run(text, i + 3, |c| {
                c.is_ascii_graphic() && !matches!(c, b'"' | b'\'' | b'<' | b'>')
            });
            (i, end)
        })
        .collect()
}

/// A random-looking token `v` at `i..e` that is still no secret.
fn not_a_secret_token(
    text: &str,
    v: &str,
    i: usize,
    e: usize,
    urls: &[(usize, usize)],
    wp: &WritePolicy,
) -> bool {
    let digest = v.split(['-', '_', ':']).next().is_some_and(|p| {
        wp.cues
            .digest_prefixes
            .contains(&p.to_ascii_lowercase().as_str())
    });
    v.starts_with('/')
        || v.contains("//")
        || digest
        || inside(urls, i)
        || email_part(text, v, e)
        || labelled_digest(text, i, wp)
        || keyvalue::key_before(text, i).is_some_and(keyvalue::names_a_non_secret)
        || placeholder(v)
}

fn inside(spans: &[(usize, usize)], at: usize) -> bool {
    spans.iter().any(|&(s, e)| s <= at && at < e)
}

/// The local part of an e-mail address or a Message-ID ("CAF7q…@mail.gmail.com").
fn email_part(text: &str, v: &str, e: usize) -> bool {
    v.contains('@') && b(text, e) == Some(b'.')
}

/// A token labelled as a digest or a public key by the word before it:
/// "h1:FEBL…=", "sha512-…", "ssh-ed25519 AAAA…".
fn labelled_digest(text: &str, start: usize, wp: &WritePolicy) -> bool {
    let Some(sep) = start.checked_sub(1).and_then(|j| b(text, j)) else {
        return false;
    };
    let mut ws = start - 1;
    while ws > 0
        && b(text, ws - 1).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    {
        ws -= 1;
    }
    let word = text.get(ws..start - 1).unwrap_or("").to_ascii_lowercase();
    let head = word.split(['-', '_']).next().unwrap_or("");
    match sep {
        b':' | b'-' | b'=' => wp.cues.digest_prefixes.contains(&head),
        b' ' => wp.cues.public_key_types.contains(&head),
        _ => false,
    }
}

/// Random-looking tokens anywhere (the entropy check).
pub(super) fn high_entropy(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    // `=` ends a token ("KEY=value" is two); base64 padding is dropped.
    let tok = |c: u8| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'+' | b'/'
                    | b'_'
                    | b'-'
                    | b'!'
                    | b'@'
                    | b'#'
                    | b'$'
                    | b'%'
                    | b'^'
                    | b'&'
                    | b'*'
                    | b'~'
            )
    };
    let urls = url_spans(text);
    let mut i = 0;
    while i < text.len() {
        if !b(text, i).is_some_and(tok) {
            i += 1;
            continue;
        }
        let e = run(text, i, tok);
        let v = text.get(i..e).unwrap_or("");
        // Shape first (cheap); then what makes a random-looking token no
        // secret: a path, a digest named by its algorithm ("sha512-…",
        // "h1:…"), a placeholder, a URL's part, an e-mail's local part.
        let prefixed = provider_prefixed(v, wp);
        let random = prefixed.is_some()
            || (v.len() >= wp.entropy_min_len
                && (looks_random(v, wp) || random_by_alphabet(v, wp)));
        if random && !not_a_secret_token(text, v, i, e, &urls, wp) {
            let (family, label, hint) = match prefixed {
                Some(p) => (Family::PrefixedToken, "provider token", format!("{p}…")),
                None => (
                    Family::HighEntropyToken,
                    "random-looking secret token",
                    format!("{} chars", v.len()),
                ),
            };
            out.push(finding(family, label, hint, i, e));
        }
        i = e.max(i + 1);
    }
}
