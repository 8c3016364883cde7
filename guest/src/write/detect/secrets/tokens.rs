//! Well-known token formats: provider prefixes (cloud keys, API tokens),
//! JWTs and private key blocks.

use super::finding::Finding;
use super::finding::{finding, Family};
use super::scan::alnum;
use super::scan::alnum_dash;
use super::scan::b;
use super::scan::b64url;
use super::scan::is_alnum;
use super::scan::run;
use super::scan::upper_digit;
use super::shape::placeholder;

struct Prefix {
    prefix: &'static str,
    family: Family,
    label: &'static str,
    min: usize,
    max: usize,
    /// Characters allowed after the prefix.
    charset: fn(u8) -> bool,
}

const fn pfx(
    prefix: &'static str,
    family: Family,
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
    pfx("AKIA", Family::AwsAccessKey, "AWS access key", 16, 16, upper_digit),
    pfx("ASIA", Family::AwsAccessKey, "AWS temporary access key", 16, 16, upper_digit),
    pfx("LTAI", Family::AliyunAccessKey, "Alibaba Cloud AccessKey", 12, 30, alnum),
    pfx("AKID", Family::TencentSecretId, "Tencent Cloud SecretId", 28, 40, alnum),
    pfx("sk-", Family::ApiKey, "API secret key", 20, 200, alnum_dash),
    pfx("sk_live_", Family::StripeKey, "Stripe secret key", 16, 200, alnum),
    pfx("sk_test_", Family::StripeKey, "Stripe secret key", 16, 200, alnum),
    pfx("rk_live_", Family::StripeKey, "Stripe restricted key", 16, 200, alnum),
    pfx("ghp_", Family::GithubToken, "GitHub token", 30, 60, alnum),
    pfx("gho_", Family::GithubToken, "GitHub OAuth token", 30, 60, alnum),
    pfx("ghu_", Family::GithubToken, "GitHub token", 30, 60, alnum),
    pfx("ghs_", Family::GithubToken, "GitHub token", 30, 60, alnum),
    pfx("ghr_", Family::GithubToken, "GitHub refresh token", 30, 80, alnum),
    pfx("github_pat_", Family::GithubToken, "GitHub fine-grained token", 20, 120, alnum_dash),
    pfx("glpat-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("npm_", Family::NpmToken, "npm token", 30, 60, alnum),
    pfx("xoxb-", Family::SlackToken, "Slack token", 10, 200, alnum_dash),
    pfx("xoxp-", Family::SlackToken, "Slack token", 10, 200, alnum_dash),
    pfx("xoxa-", Family::SlackToken, "Slack token", 10, 200, alnum_dash),
    pfx("xoxr-", Family::SlackToken, "Slack token", 10, 200, alnum_dash),
    pfx("AIza", Family::GoogleApiKey, "Google API key", 35, 35, alnum_dash),
    pfx("hf_", Family::HuggingfaceToken, "Hugging Face token", 30, 60, alnum),
    pfx("pypi-", Family::PypiToken, "PyPI token", 50, 300, alnum_dash),
];

/// Tokens of well-known formats, found by their prefix and length.
pub(super) fn prefixed_tokens(text: &str, out: &mut Vec<Finding>) {
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
pub(super) fn jwts(text: &str, out: &mut Vec<Finding>) {
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
        out.push(finding(Family::Jwt, "JSON Web Token", "eyJ…".into(), i, e3));
    }
}

/// PEM/OpenSSH/PGP private key blocks.
pub(super) fn private_keys(text: &str, out: &mut Vec<Finding>) {
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
            Family::PrivateKey,
            "private key block",
            "-----BEGIN … PRIVATE KEY-----".into(),
            i,
            end,
        ));
    }
    for marker in ["PuTTY-User-Key-File", "PRIVATE KEY BLOCK"] {
        if let Some(i) = text.find(marker) {
            out.push(finding(
                Family::PrivateKey,
                "private key block",
                marker.into(),
                i,
                text.len(),
            ));
        }
    }
}
