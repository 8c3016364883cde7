//! Detection of secrets and credentials (never written, whatever the source)
//! and of sensitive personal data (written only with an explicit ask).
//!
//! Secrets are found by several independent detectors, not one pattern:
//! well-known token formats (cloud keys, API tokens, JWTs, private key
//! blocks, bearer headers), connection URLs with a password, `KEY=value`
//! assignments and environment dumps, keyword-anchored values ("密码是 …",
//! "API key is …"), account/password pairs, and a Shannon-entropy check for
//! random-looking tokens. Personal data: national ID numbers (with the
//! GB 11643 checksum), payment card numbers (Luhn), phone numbers, passport
//! numbers, health conditions, e-mail addresses.
//!
//! Findings carry byte ranges of the sensitive value in the original text,
//! so it can be redacted, and a `hint` that is safe to print (a format
//! prefix or a key name, never the value).

mod checksums;
mod finding;
mod keyvalue;
mod personal;
mod placeholder;
mod position;
mod scan;
mod shape;

pub use finding::{mask, redact, Finding};
pub use keyvalue::placeholder_credential;
pub use personal::find_personal_with;

use crate::analysis::cues::fold;
use crate::core::config::{Policy, WritePolicy};
use finding::{dedup, finding};
use scan::{alnum, alnum_dash, b, b64url, ident, is_alnum, keyword_hits, run, upper_digit};
use shape::{
    credential_like, entropy, has_digit, has_symbol, looks_random, placeholder, provider_prefixed,
    random_by_alphabet, token_like,
};

/// Secrets and credentials in `text`, under the default policy.
pub fn find_secrets(text: &str) -> Vec<Finding> {
    find_secrets_with(text, &Policy::default().write)
}

/// Sensitive personal data in `text`, under the default policy.
pub fn find_personal(text: &str) -> Vec<Finding> {
    find_personal_with(text, &Policy::default().write)
}

/// `text` with every secret and gated personal value replaced by
/// `[REDACTED:family]`.
pub fn redact_all(text: &str) -> String {
    let mut all = find_secrets(text);
    all.extend(find_personal(text));
    redact(text, &all)
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

struct Prefix {
    prefix: &'static str,
    family: &'static str,
    label: &'static str,
    min: usize,
    max: usize,
    /// Characters allowed after the prefix.
    charset: fn(u8) -> bool,
}

const fn pfx(
    prefix: &'static str,
    family: &'static str,
    label: &'static str,
    min: usize,
    max: usize,
    charset: fn(u8) -> bool,
) -> Prefix {
    Prefix {
        prefix,
        family,
        label,
        min,
        max,
        charset,
    }
}

/// Well-known token formats: (prefix, family, label, min and max length
/// after the prefix, allowed characters).
#[rustfmt::skip]
const PREFIXES: &[Prefix] = &[
    pfx("AKIA", "aws-access-key", "AWS access key", 16, 16, upper_digit),
    pfx("ASIA", "aws-access-key", "AWS temporary access key", 16, 16, upper_digit),
    pfx("LTAI", "aliyun-access-key", "Alibaba Cloud AccessKey", 12, 30, alnum),
    pfx("AKID", "tencent-secret-id", "Tencent Cloud SecretId", 28, 40, alnum),
    pfx("sk-", "api-key", "API secret key", 20, 200, alnum_dash),
    pfx("sk_live_", "stripe-key", "Stripe secret key", 16, 200, alnum),
    pfx("sk_test_", "stripe-key", "Stripe secret key", 16, 200, alnum),
    pfx("rk_live_", "stripe-key", "Stripe restricted key", 16, 200, alnum),
    pfx("ghp_", "github-token", "GitHub token", 30, 60, alnum),
    pfx("gho_", "github-token", "GitHub OAuth token", 30, 60, alnum),
    pfx("ghu_", "github-token", "GitHub token", 30, 60, alnum),
    pfx("ghs_", "github-token", "GitHub token", 30, 60, alnum),
    pfx("ghr_", "github-token", "GitHub refresh token", 30, 80, alnum),
    pfx("github_pat_", "github-token", "GitHub fine-grained token", 20, 120, alnum_dash),
    pfx("glpat-", "gitlab-token", "GitLab token", 20, 60, alnum_dash),
    pfx("npm_", "npm-token", "npm token", 30, 60, alnum),
    pfx("xoxb-", "slack-token", "Slack token", 10, 200, alnum_dash),
    pfx("xoxp-", "slack-token", "Slack token", 10, 200, alnum_dash),
    pfx("xoxa-", "slack-token", "Slack token", 10, 200, alnum_dash),
    pfx("xoxr-", "slack-token", "Slack token", 10, 200, alnum_dash),
    pfx("AIza", "google-api-key", "Google API key", 35, 35, alnum_dash),
    pfx("hf_", "huggingface-token", "Hugging Face token", 30, 60, alnum),
    pfx("pypi-", "pypi-token", "PyPI token", 50, 300, alnum_dash),
];

/// Tokens of well-known formats, found by their prefix and length.
fn prefixed_tokens(text: &str, out: &mut Vec<Finding>) {
    for p in PREFIXES {
        for (i, _) in text.match_indices(p.prefix) {
            if i > 0 && (is_alnum(b(text, i - 1)) || b(text, i - 1) == Some(b'_')) {
                continue;
            }
            let start = i + p.prefix.len();
            let end = run(text, start, p.charset);
            let n = end - start;
            if n < p.min || n > p.max || is_alnum(b(text, end)) {
                continue;
            }
            // Random tokens mix letters and digits; "sk-learn-tutorial" does not.
            let tail = text.get(start..end).unwrap_or("");
            if !tail.bytes().any(|c| c.is_ascii_digit()) || placeholder(tail) {
                continue;
            }
            out.push(finding(p.family, p.label, format!("{}…", p.prefix), i, end));
        }
    }
}

/// JSON Web Tokens: three base64url parts, the first an encoded `{"`.
fn jwts(text: &str, out: &mut Vec<Finding>) {
    for (i, _) in text.match_indices("eyJ") {
        if i > 0 && is_alnum(b(text, i - 1)) {
            continue;
        }
        let e1 = run(text, i, b64url);
        if e1 - i < 10 || b(text, e1) != Some(b'.') {
            continue;
        }
        let e2 = run(text, e1 + 1, b64url);
        if e2 - e1 - 1 < 10 || b(text, e2) != Some(b'.') {
            continue;
        }
        let e3 = run(text, e2 + 1, b64url);
        if e3 - e2 - 1 < 8 {
            continue;
        }
        out.push(finding("jwt", "JSON Web Token", "eyJ…".into(), i, e3));
    }
}

/// PEM/OpenSSH/PGP private key blocks.
fn private_keys(text: &str, out: &mut Vec<Finding>) {
    for (i, _) in text.match_indices("-----BEGIN") {
        let Some(rest) = text.get(i..) else { continue };
        let Some(header_end) = rest.get(10..).and_then(|r| r.find("-----")) else {
            continue;
        };
        let header = rest.get(..10 + header_end).unwrap_or("");
        if !header.contains("PRIVATE KEY") {
            continue;
        }
        // A template with no key in it ("-----BEGIN … -----END", a "..."
        // or "<paste your key here>" body) holds nothing secret.
        let body_start = 10 + header_end + 5;
        let body = rest
            .get(body_start..)
            .map(|r| r.split("-----END").next().unwrap_or(r))
            .unwrap_or("");
        let key_chars = body
            .bytes()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/'))
            .count();
        if key_chars < 4 || placeholder(body.trim()) {
            continue;
        }
        let end = match rest.find("-----END") {
            Some(e) => rest
                .get(e + 8..)
                .and_then(|r| r.find("-----"))
                .map(|x| i + e + 8 + x + 5)
                .unwrap_or(text.len()),
            None => text.len(),
        };
        out.push(finding(
            "private-key",
            "private key block",
            "-----BEGIN … PRIVATE KEY-----".into(),
            i,
            end,
        ));
    }
    for marker in ["PuTTY-User-Key-File", "PRIVATE KEY BLOCK"] {
        if let Some(i) = text.find(marker) {
            out.push(finding(
                "private-key",
                "private key block",
                marker.into(),
                i,
                text.len(),
            ));
        }
    }
}

/// `Authorization: Bearer …` / `Basic …` credentials.
fn auth_headers(text: &str, folded: &str, out: &mut Vec<Finding>) {
    for (kw, label, min) in [
        ("bearer ", "bearer token", 16),
        ("basic ", "basic-auth credentials", 8),
    ] {
        for (i, _) in folded.match_indices(kw) {
            if i > 0 && is_alnum(b(folded, i - 1)) {
                continue;
            }
            if kw == "basic "
                && !folded
                    .get(..i)
                    .unwrap_or("")
                    .trim_end()
                    .ends_with("authorization:")
            {
                continue;
            }
            let s = run(text, i + kw.len(), |c| c == b' ');
            let e = run(text, s, |c| b64url(c) || c == b'.' || c == b'~');
            let tok = text.get(s..e).unwrap_or("");
            if e - s >= min && tok.bytes().any(|c| c.is_ascii_digit()) {
                out.push(finding(
                    "bearer-token",
                    label,
                    format!("{}…", kw.trim()),
                    s,
                    e,
                ));
            }
        }
    }
}

/// `scheme://user:password@host` — any scheme (databases, queues, HTTP).
fn url_credentials(text: &str, out: &mut Vec<Finding>) {
    for (i, _) in text.match_indices("://") {
        let scheme_start = {
            let mut s = i;
            while s > 0
                && b(text, s - 1).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || c == b'+' || c == b'.' || c == b'-' || c == b':'
                })
            {
                s -= 1;
            }
            s
        };
        if scheme_start == i {
            continue;
        }
        let u = i + 3;
        let end = run(text, u, |c| {
            !c.is_ascii_whitespace()
                && !matches!(c, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>')
        });
        let Some(auth) = text.get(u..end) else {
            continue;
        };
        let Some(at) = auth.rfind('@') else { continue };
        let userinfo = &auth[..at];
        let Some(colon) = userinfo.find(':') else {
            continue;
        };
        let pw = &userinfo[colon + 1..];
        if pw.is_empty() || placeholder(pw) {
            continue;
        }
        let scheme = text.get(scheme_start..i).unwrap_or("");
        let pw_start = u + colon + 1;
        out.push(finding(
            "connection-string-password",
            "connection string with a password",
            format!("{scheme}://…:…@"),
            pw_start,
            pw_start + pw.len(),
        ));
    }
}

/// Webhook URLs whose path carries the secret ("hooks.slack.com/services/
/// T…/B…/<secret>", "discord.com/api/webhooks/<id>/<secret>"): a URL whose
/// host or path names a hook, with a long random path segment after that.
fn webhook_urls(text: &str, out: &mut Vec<Finding>) {
    for (i, _) in text.match_indices("://") {
        let end = run(text, i + 3, |c| {
            c.is_ascii_graphic() && !matches!(c, b'"' | b'\'' | b'<' | b'>' | b')' | b']')
        });
        let url = text.get(i + 3..end).unwrap_or("");
        let lower = url.to_ascii_lowercase();
        let Some(hook) = lower.find("hook") else {
            continue;
        };
        let mut at = i + 3;
        for seg in url.split(['/', '?', '&', '=']) {
            let after_hook = at > i + 3 + hook;
            let (letters, digits) = (
                seg.bytes().filter(u8::is_ascii_alphabetic).count(),
                seg.bytes().filter(u8::is_ascii_digit).count(),
            );
            if after_hook && seg.len() >= 16 && letters >= 4 && digits >= 2 && entropy(seg) >= 3.5 {
                out.push(finding(
                    "webhook-url",
                    "webhook URL with a secret path",
                    format!("{}/…", url.split('/').next().unwrap_or("")),
                    at,
                    end,
                ));
                break;
            }
            at += seg.len() + 1;
        }
    }
}

/// Environment dumps: many `KEY=value` pairs, whose random-looking values
/// are taken as secrets whatever the key (named keys are `keyvalue`'s).
fn environment_dumps(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    let mut pairs: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (i, _) in text.match_indices('=') {
        if b(text, i + 1) == Some(b'=')
            || (i > 0 && matches!(b(text, i - 1), Some(b'=' | b'!' | b'<' | b'>')))
        {
            continue;
        }
        let mut ks = i;
        while ks > 0 && b(text, ks - 1).is_some_and(ident) {
            ks -= 1;
        }
        if ks == i || !b(text, ks).is_some_and(|c| c.is_ascii_alphabetic() || c == b'_') {
            continue;
        }
        let mut vs = i + 1;
        if matches!(b(text, vs), Some(b'"' | b'\'')) {
            vs += 1;
        }
        let ve = run(text, vs, |c| {
            !c.is_ascii_whitespace()
                && !matches!(c, b'"' | b'\'' | b',' | b';' | b']' | b')' | b'}' | b'&')
                && c < 0x80
        });
        if ve > vs {
            pairs.push((ks, i, vs, ve));
        }
    }
    let dump = pairs.len() >= wp.env_dump_min_pairs;
    for (ks, ke, vs, ve) in pairs {
        let key = text.get(ks..ke).unwrap_or("");
        let value = text.get(vs..ve).unwrap_or("");
        if dump && value.len() >= 12 && looks_random(value, wp) {
            out.push(finding(
                "environment-dump",
                "secret-looking value in an environment dump",
                format!("{key}=…"),
                vs,
                ve,
            ));
        }
    }
}

/// Where a keyword's value starts: skip a continued key ("_hash"), up to a
/// few filler words ("for the admin account", "in use"), a separator ("是",
/// "is", ":", "=") and quotes. Returns (value start, value end, strict):
/// `strict` when the separator is loose ("is", whitespace) and the value
/// must look like a credential.
fn value_after(text: &str, mut i: usize, wp: &WritePolicy) -> Option<(usize, usize, bool)> {
    i = run(text, i, |c| {
        c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
    });
    let mut limit = text.len().min(i + wp.keyword_window_chars * 4);
    while !text.is_char_boundary(limit) {
        limit -= 1;
    }
    let key_end = i;
    let mut fillers = 0;
    let mut strict = true;
    let mut separated = false;
    loop {
        let rest = text.get(i..limit)?;
        let trimmed = rest.trim_start_matches([' ', '\t', '\u{3000}']);
        i += rest.len() - trimmed.len();
        let mut chars = trimmed.chars();
        let c = chars.next()?;
        // Separators.
        let sep = [
            (":=", false),
            ("=>", false),
            ("->", false),
            ("=", false),
            ("：", false),
            (":", false),
            ("是", true),
            ("为", true),
            ("is ", true),
            ("was ", true),
            ("to ", true),
            ("are ", true),
        ]
        .into_iter()
        .find(|(s, _)| {
            trimmed
                .as_bytes()
                .get(..s.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(s.as_bytes()))
        });
        if let Some((s, loose)) = sep {
            i += s.len();
            strict = loose;
            separated = true;
            continue;
        }
        if matches!(c, '"' | '\'' | '`' | '“' | '‘' | '「') {
            i += c.len_utf8();
            continue;
        }
        // A candidate value: a run of non-space ASCII. A `|` separates
        // fields of a record or cells of a table ("Password reset|CONTENT:").
        let e = run(text, i, |x| {
            x.is_ascii_graphic()
                && !matches!(
                    x,
                    b'"' | b'\'' | b'`' | b',' | b';' | b')' | b']' | b'}' | b'>' | b'|'
                )
        });
        let e = {
            // Trailing sentence punctuation is not part of a value.
            let mut e = e;
            while e > i && matches!(b(text, e - 1), Some(b'.' | b'!' | b'?' | b':' | b';')) {
                e -= 1;
            }
            e
        };
        // An attribute name before its quoted value (`value="…"`): a filler
        // word, and the `=` its separator.
        if e > i + 1 && b(text, e - 1) == Some(b'=') && matches!(b(text, e), Some(b'"' | b'\'')) {
            fillers += 1;
            i = e - 1;
            continue;
        }
        if e > i {
            let v = text.get(i..e)?;
            let plain = v.bytes().all(|x| x.is_ascii_alphabetic());
            let ok = !placeholder(v)
                && v.len() >= 4
                && if strict || !separated {
                    credential_like(v)
                } else {
                    !plain || v.len() >= 10 || v.bytes().any(|x| x.is_ascii_uppercase())
                };
            // Without a separator, only a credential right after the
            // keyword and a space ("token.AccessTokenProvider" is a path).
            let spaced = i > key_end;
            if ok && (separated || (fillers == 0 && spaced && credential_like(v))) {
                return Some((i, e, strict));
            }
            // A word right after the keyword naming a setting of the
            // secret ("the token TTL is 3600") says the value is that
            // setting, not the secret.
            const SETTINGS: &[&str] = &[
                "ttl",
                "timeout",
                "expiry",
                "expires",
                "expiration",
                "lifetime",
                "length",
                "size",
                "duration",
                "interval",
                "rotation",
                "policy",
                "format",
                "bits",
                "age",
                "limit",
            ];
            if plain && fillers == 0 && SETTINGS.contains(&v.to_ascii_lowercase().as_str()) {
                return None;
            }
            // A filler word: keep looking for a (new) separator.
            if plain && v.len() <= 12 && fillers < 4 {
                fillers += 1;
                separated = false;
                i = e;
                continue;
            }
            return None;
        }
        // Short CJK filler ("一直", "在用").
        if crate::analysis::text::is_cjk(c) && fillers < 4 {
            fillers += 1;
            i += c.len_utf8();
            continue;
        }
        return None;
    }
}

/// Keyword-anchored values: "密码是 …", "password: …", "API key is …".
fn keyword_values(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    for h in keyword_hits(folded, wp.cues.secret_keywords) {
        // Inside a command substitution ("$(vault read -field=token …)")
        // the keyword is an argument of the command that fetches the secret.
        let line_start = text
            .get(..h.start)
            .and_then(|t| t.rfind('\n'))
            .map_or(0, |p| p + 1);
        let before = text.get(line_start..h.start).unwrap_or("");
        if before
            .rfind("$(")
            .is_some_and(|o| !before[o..].contains(')'))
        {
            continue;
        }
        // Inside an identifier, the whole key decides ("token_type",
        // "password_file" name settings, not secrets).
        let key_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
        let mut ks = h.start;
        while ks > 0 && b(text, ks - 1).is_some_and(key_char) {
            ks -= 1;
        }
        let ke = run(text, h.end, key_char);
        if (ks, ke) != (h.start, h.end)
            && h.cue.is_ascii()
            && keyvalue::key_strength(text.get(ks..ke).unwrap_or("")).is_none()
        {
            continue;
        }
        let Some((s, e, _)) = value_after(text, h.end, wp) else {
            continue;
        };
        let value = text.get(s..e).unwrap_or("");
        if keyvalue::names_a_secret(text.get(ks..ke).unwrap_or(""), value) {
            continue;
        }
        // A bare "key" is a common word ("the key to success is …"): only a
        // token-like value counts after it.
        if h.cue == "key" && !token_like(text.get(s..e).unwrap_or(""), wp) {
            continue;
        }
        {
            out.push(finding(
                "password",
                label_of(h.cue),
                format!("after '{}'", text.get(h.start..h.end).unwrap_or(h.cue)),
                s,
                e,
            ));
        }
    }
}

fn label_of(keyword: &str) -> &'static str {
    match keyword {
        "password" | "passwd" | "pwd" | "passphrase" | "密码" | "口令" | "pin" => "password",
        "token" | "auth token" | "令牌" => "access token",
        "验证码" | "授权码" => "one-time code",
        "private key" | "private_key" | "私钥" => "private key",
        _ => "API key or secret",
    }
}

/// Account/password pairs: "账号 svc_ledger / R4t!u8Pq2z", "login: admin:P@ss1".
fn credential_pairs(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    for h in keyword_hits(folded, wp.cues.account_keywords) {
        let mut i = h.end;
        let skip = |i: usize| run(text, i, |c| c == b' ' || c == b'\t');
        i = skip(i);
        for sep in ["：", ":", "是", "为", "=", "is "] {
            if text.get(i..).is_some_and(|r| {
                r.as_bytes()
                    .get(..sep.len())
                    .is_some_and(|h| h.eq_ignore_ascii_case(sep.as_bytes()))
            }) {
                i = skip(i + sep.len());
                break;
            }
        }
        let e1 = run(text, i, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'@' | b'-')
        });
        if e1 - i < 2 || !is_alnum(b(text, i)) {
            continue;
        }
        let j = skip(e1);
        let Some(sep) = b(text, j).filter(|c| matches!(c, b'/' | b':' | b'|')) else {
            continue;
        };
        let _ = sep;
        let s2 = skip(j + 1);
        let e2 = run(text, s2, |c| {
            c.is_ascii_graphic() && !matches!(c, b',' | b';' | b'"' | b'\'' | b')' | b']')
        });
        let e2 = if matches!(b(text, e2.wrapping_sub(1)), Some(b'.')) && e2 > s2 {
            e2 - 1
        } else {
            e2
        };
        let v = text.get(s2..e2).unwrap_or("");
        if v.len() >= 6
            && !v.starts_with('/')
            && !placeholder(v)
            && (has_symbol(v) || (has_digit(v) && v.bytes().any(|c| c.is_ascii_alphabetic())))
        {
            out.push(finding(
                "credential-pair",
                "account and password pair",
                format!("after '{}'", text.get(h.start..h.end).unwrap_or(h.cue)),
                s2,
                e2,
            ));
        }
    }
}

/// Password-like strings anywhere: 8–64 characters mixing upper case,
/// lower case, digits and a symbol ("Jk!9x2Lq7"), which identifiers,
/// versions and words do not.
fn password_like(text: &str, out: &mut Vec<Finding>) {
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
                "password-like",
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
fn high_entropy(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
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
                Some(p) => ("prefixed-token", "provider token", format!("{p}…")),
                None => (
                    "high-entropy-token",
                    "random-looking secret token",
                    format!("{} chars", v.len()),
                ),
            };
            out.push(finding(family, label, hint, i, e));
        }
        i = e.max(i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn families(text: &str) -> Vec<&'static str> {
        find_secrets(text).into_iter().map(|f| f.family).collect()
    }

    fn secret_value(text: &str) -> String {
        let f = find_secrets(text);
        assert!(!f.is_empty(), "no secret in {text:?}");
        text[f[0].start..f[0].end].to_string()
    }

    #[test]
    fn cloud_keys() {
        assert_eq!(
            families("key AKIA2E0A8F3B244C9986 in prod"),
            vec!["aws-access-key"]
        );
        // The documentation's example key is a placeholder.
        assert!(families("key AKIAIOSFODNN7EXAMPLE in prod").is_empty());
        assert!(families("阿里云 AccessKey ID 是 LTAI5tQ9xZ2mKp7Wv3Rn8Lc")
            .contains(&"aliyun-access-key"));
        assert!(families("AKIA is a prefix").is_empty());
        // An alphabet written out is a placeholder, whatever its prefix.
        assert!(families("use ghp_1234567890abcdefghijABCDEFGHIJ123456 for CI").is_empty());
    }

    #[test]
    fn api_tokens() {
        assert_eq!(
            families("export OPENAI=sk-proj-4fG7hK2mN9pQ1rS5tU8v")[0],
            "api-key"
        );
        assert_eq!(
            families("use ghp_8Zq2Lm7Rt4Kx9Vb1Nc6Hd3Jf5Gs0Pw2Ay7Tq for CI"),
            vec!["github-token"]
        );
        assert_eq!(
            families("token in use: npm_8ZqT4mK2xL9pV7wR3nB6cY1hJ0sF5dA2eG9u"),
            vec!["npm-token"]
        );
        assert_eq!(
            families("slack xoxb-2048-4096-abcdefABCDEF12 ok"),
            vec!["slack-token"]
        );
        assert!(families("pip install sk-learn-tutorial-package-for-beginners").is_empty());
    }

    #[test]
    fn jwts_and_bearer_headers() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert!(
            families(&format!("token={jwt}")).contains(&"jwt")
                || families(&format!("token={jwt}")).contains(&"secret-assignment")
        );
        assert_eq!(families(&format!("got {jwt} back")), vec!["jwt"]);
        assert_eq!(
            families("curl -H 'Authorization: Bearer abcDEF123456ghiJKL789' https://x"),
            vec!["bearer-token"]
        );
        assert_eq!(
            families("Authorization: Basic dXNlcjpwYXNzd29yZA1="),
            vec!["bearer-token"]
        );
    }

    #[test]
    fn private_key_blocks() {
        let t =
            "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nthanks";
        let f = find_secrets(t);
        assert_eq!(f[0].family, "private-key");
        assert!(t[f[0].end..].starts_with("\nthanks"));
        assert!(families("-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----").is_empty());
    }

    #[test]
    fn connection_strings() {
        assert_eq!(
            secret_value("DSN postgres://app:s3cr3t!@db.internal:5432/orders"),
            "s3cr3t!"
        );
        assert_eq!(
            secret_value("amqp://guest:Gu3st-Pw@mq-prod-03:5672"),
            "Gu3st-Pw"
        );
        assert_eq!(secret_value("redis://:hunter22@cache:6379/0"), "hunter22");
        assert!(families("see https://example.com/docs and postgres://db/orders").is_empty());
        assert!(families("mysql://root:${DB_PASSWORD}@db").is_empty());
    }

    #[test]
    fn assignments_and_dumps() {
        assert_eq!(
            secret_value("\"Env\": [\"MYSQL_PASSWORD=h7Kp!2wQz9Lm\", \"TZ=Asia/Shanghai\"]"),
            "h7Kp!2wQz9Lm"
        );
        assert_eq!(
            families("STRIPE_KEY=rk_9f8e7d6c5b4a and DEBUG=1"),
            vec!["secret-assignment"]
        );
        let dump = "HOME=/root PATH=/usr/bin SIGNING=Qx7vT2mPz9Lk4Rw8Bn3C TZ=UTC";
        assert!(families(dump).contains(&"environment-dump"));
        assert!(families("TZ=Asia/Shanghai LANG=en_US.UTF-8").is_empty());
        assert!(families("DB_PASSWORD=******** (masked)").is_empty());
    }

    #[test]
    fn keyword_anchored_values() {
        assert_eq!(
            secret_value("Datadog API key is 4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e — keep it handy"),
            "4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e"
        );
        assert_eq!(
            secret_value("我的邮箱密码是 Abc12345，别告诉别人"),
            "Abc12345"
        );
        assert_eq!(secret_value("密码：h7Kp!2wQz9Lm"), "h7Kp!2wQz9Lm");
        assert_eq!(secret_value("my password is hunter2."), "hunter2");
        assert_eq!(
            secret_value("the password for the admin account is Tr0ub4dor&3"),
            "Tr0ub4dor&3"
        );
        assert_eq!(
            secret_value("Secret 是 Vb4Hj8Ks2Nq6Tx1Zr9Mw3Pd7Ly5Fc0。"),
            "Vb4Hj8Ks2Nq6Tx1Zr9Mw3Pd7Ly5Fc0"
        );
        for t in [
            "Reset your password via the portal",
            "the password policy requires 12 characters",
            "token expired, please log in again",
            "密码策略要求至少 12 位",
            "passwords are rotated monthly",
            "the tokenizer splits words",
        ] {
            assert!(
                families(t).is_empty(),
                "{t:?} flagged: {:?}",
                find_secrets(t)
            );
        }
    }

    #[test]
    fn password_like_strings() {
        assert_eq!(
            families("Jenkins admin login is admin / Jk!9x2Lq7, change it"),
            vec!["credential-pair"]
        );
        assert_eq!(
            families("the wifi is Corp#Guest2026 downstairs"),
            vec!["password-like"]
        );
        for t in [
            "C++17 and Node.js 20",
            "v2.3.1-RC1",
            "Q3-2026 plan",
            "user@example.com",
            "Hello World 2026!",
        ] {
            assert!(
                families(t).is_empty(),
                "{t:?} flagged: {:?}",
                find_secrets(t)
            );
        }
    }

    #[test]
    fn provider_prefixed_families() {
        // Known prefixes and unknown ones judged by the body's shape.
        for (text, value) in [
            (
                "slack xoxb-1204-88213-Qw7rTz9LmK2p",
                "xoxb-1204-88213-Qw7rTz9LmK2p",
            ),
            (
                "ci uses ghp_9Zq2Lm7Rt4Kx8Vb1Nc6Hd3Jf5Gs0Pw2Ay7Te",
                "ghp_9Zq2Lm7Rt4Kx8Vb1Nc6Hd3Jf5Gs0Pw2Ay7Te",
            ),
            ("glpat-Xb8Rq2mT7vLz4Kp9Wn3C", "glpat-Xb8Rq2mT7vLz4Kp9Wn3C"),
            (
                "stripe sk_live_7Hq2Lm9Rt4Kx8Vb1Nc6Hd3Jf",
                "sk_live_7Hq2Lm9Rt4Kx8Vb1Nc6Hd3Jf",
            ),
            (
                "npm_4Tz8Qm2Lr7Vx9Kp3Wn6Bc1Hd5Jf0Gs2Ay7Te",
                "npm_4Tz8Qm2Lr7Vx9Kp3Wn6Bc1Hd5Jf0Gs2Ay7Te",
            ),
            ("AKIA7Q2L9R4T8X1V6B3N in prod", "AKIA7Q2L9R4T8X1V6B3N"),
            // Unknown providers: a lettered prefix and a random body (hex too).
            (
                "do token dop_v1_4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e9b0d3a6c",
                "dop_v1_4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e9b0d3a6c",
            ),
            (
                "shop 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",
                "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",
            ),
            (
                "vendor acmeio_k3v9q2m7x4t8z1w6r5p0n2b7c4d9",
                "acmeio_k3v9q2m7x4t8z1w6r5p0n2b7c4d9",
            ),
        ] {
            assert_eq!(secret_value(text), value, "{text}");
        }
    }

    #[test]
    fn sendgrid_style_dotted_keys_and_random_tokens() {
        assert!(!find_secrets(
            "SG.Xq7Lm2Rt9Kz4Vb8Nc1Hd6J.Pw3Ay7Te0Gs5Jf2Qm8Lr4Vx9Kp1Wn6Bc3Hd7Jf2Gs5Ay"
        )
        .is_empty());
        // A 64-character single-case random string is a key; a hex digest is not.
        let base36 = "k3v9q2m7x4t8z1w6r5p0n2b7c4d9f8g1h6j3l5s0a2e7u4y9i1o6k3v9q2m7x4t8";
        assert_eq!(
            families(&format!("backup printed {base36}")),
            vec!["high-entropy-token"]
        );
        let hex = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
        assert!(families(&format!("sha256 {hex}")).is_empty());
        assert!(!families(&format!("signing_key: {hex}")).is_empty());
    }

    #[test]
    fn a_setting_word_only_right_after_the_keyword() {
        let uuid = "285e9f36-1138-5f71-f0cf-f58ae0df2ece";
        assert_eq!(
            secret_value(&format!(
                "New heroku API key after today's rotation: {uuid}"
            )),
            uuid
        );
    }

    #[test]
    fn tokens_without_a_vendor_prefix_in_credential_positions() {
        let uuid = "3f2a9c1b-7e4d-4a6f-8b0c-2d4e6f8a0b1c";
        for (text, value) in [
            (format!("//registry.npmjs.org/:_authToken={uuid}"), uuid),
            (format!("<add key=\"ApiKey\" value=\"{uuid}\" />"), uuid),
            (
                "kind: Secret\ndata:\n  password: aHVudGVyMng=".to_string(),
                "aHVudGVyMng=",
            ),
        ] {
            assert_eq!(secret_value(&text), value, "{text}");
        }
    }

    #[test]
    fn webhook_urls_with_secret_paths() {
        assert_eq!(
            secret_value("alerts: https://hooks.slack.com/services/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"),
            "q8Lr2Vx7Nw4Kp1Zt9Mc3Hd5J"
        );
        let d = "https://discord.com/api/webhooks/123456789012345678/Xb8Rq2mT7vLz4Kp9Wn3C-Qa1Sd5Fg";
        assert!(
            families(d).contains(&"webhook-url"),
            "{:?}",
            find_secrets(d)
        );
        assert!(families("see https://docs.example.com/webhooks/getting-started").is_empty());
    }

    #[test]
    fn keyword_key_needs_a_token() {
        assert_eq!(
            secret_value("The payment encryption key for staging is PAYSECK_TEST-7c1e9a3b5d20"),
            "PAYSECK_TEST-7c1e9a3b5d20"
        );
        for t in [
            "The key to success is Python3 daily",
            "the key is 42",
            "Key West is warm",
        ] {
            assert!(families(t).is_empty(), "{t:?}: {:?}", find_secrets(t));
        }
    }

    #[test]
    fn look_alikes_are_not_secrets() {
        for t in [
            "API_KEY=your_api_key_here",
            "export GITHUB_TOKEN=<token>",
            "password: [PASSWORD]",
            "secret_key = get_secret_key()",
            "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx",
            "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
            "clientId = \"3f2a9c1b-7e4d-4a6f-8b0c-2d4e6f8a0b1c\"",
            "\"integrity\": \"sha512-Qx7vT2mPz9Lk4Rw8Bn3CyH6Jd1Fs5Gt0Hm2Kp7Lq9Wr3Vz8Xc4Nb6Ma1\"",
            "resolved \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz#3f2a9c1b7e4d\"",
            "invoice INV-2026-000481 paid",
            "order id 7f3a9c2e-1b4d-4e6f-a8b0-c2d4e6f8a0b1",
            "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
            "max_tokens: 4096",
            "token_type: Bearer",
            "the password reset link expires in 24h",
            "keyboard layout: us",
            // Real formats filled with sequences or repeats, empty key
            // blocks, a secret's name where its value goes.
            "xoxb-1234567890-1234567890-abcdefghijklmnopqrstuvwx",
            "api_key = \"1234567890abcdef1234567890abcdef\"",
            "AKIA1234567890ABCDEF",
            "-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
            "curl \"https://api.example.com/v1/me?access_token=ACCESS_TOKEN\"",
            "client_secret: \"CLIENT_SECRET\"",
            // A random value its key calls public; a command in backticks.
            "public_key = \"9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit\"",
            "-e SUMO_ACCESS_KEY=`etcdctl get /sumologic_secret`",
            "TOKEN=$(vault read -field=token secret/ci)",
            "Invoice ID: in_0KVnBvo2ZNzxqgUA4dPhPB3i",
            "Set the token TTL to 3600 seconds",
        ] {
            assert!(families(t).is_empty(), "{t:?}: {:?}", find_secrets(t));
        }
    }

    #[test]
    fn credential_pairs_and_entropy() {
        assert_eq!(
            secret_value("生产 MQ 账号 svc_ledger / R4t!u8Pq2z，主机 mq-prod-03"),
            "R4t!u8Pq2z"
        );
        assert!(
            families("random blob Qx7vT2mPz9Lk4Rw8Bn3CyH6 here").contains(&"high-entropy-token")
        );
        for t in [
            "customerDedupeService2024Q3Report is a job",
            "commit 3f2a9c1b7e4d5a6f8b0c2d4e6f8a0b1c2d3e4f5a merged",
            "CrashLoopBackOff on ledger-core",
            "user u-qiao / ok",
            "uuid 123e4567-e89b-12d3-a456-426614174000",
        ] {
            assert!(
                families(t).is_empty(),
                "{t:?} flagged: {:?}",
                find_secrets(t)
            );
        }
    }

    #[test]
    fn entropy_is_bits_per_char() {
        assert_eq!(entropy("aaaa"), 0.0);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
    }

    #[test]
    fn redaction_and_masking_keep_text_valid() {
        let t = "密码是 Abc12345，手机 13812345678";
        let mut f = find_secrets(t);
        f.extend(find_personal(t));
        let r = redact(t, &f);
        assert!(!r.contains("Abc12345") && !r.contains("13812345678"), "{r}");
        assert!(r.contains("[REDACTED:password]"));
        let m = mask(t, &f);
        assert_eq!(m.len(), t.len());
        assert!(!m.contains("Abc12345"));
    }

    #[test]
    fn never_panics_on_odd_text() {
        for t in [
            "",
            "=",
            "==",
            "a=",
            "://",
            "@",
            "密码",
            "密码是",
            "eyJ.",
            "-----BEGIN",
            "AKIA",
            "账号 a /",
            "𠀀=𠀀",
            "x@.",
            "+",
            "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0",
        ] {
            let _ = find_secrets(t);
            let _ = find_personal(t);
            let _ = redact_all(t);
        }
    }
}
