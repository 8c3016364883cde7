//! Well-known token formats: provider prefixes (cloud keys, API tokens),
//! JWTs and private key blocks.

use super::finding::Finding;
use super::finding::{finding, Family};
use super::scan::alnum;
use super::scan::alnum_dash;
use super::scan::b;
use super::scan::b64url;
use super::scan::b64url_dot;
use super::scan::is_alnum;
use super::scan::lower_alnum;
use super::scan::lower_hex;
use super::scan::run;
use super::scan::upper_digit;
use super::scan::upper_digit_dash;
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
/// after the prefix, allowed characters). The provider prefixes and body
/// shapes were learned from gitleaks (`cmd/generate/config/rules/*.go`,
/// MIT licence, © Zachary Rice) and Yelp/detect-secrets
/// (`detect_secrets/plugins/*.py`, Apache-2.0): the prefixes and lengths
/// only, not their patterns. Prefixes are case-sensitive. A prefix that
/// `shape::provider_prefixed` already reaches by shape ("dop_v1_…",
/// "sntryu_…") needs no entry; one listed here is reached in any context
/// (a bare token, a two-letter or dotted prefix, a letters-only body).
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
    // Provider tokens whose prefix the shape check does not reach.
    pfx("xoxs-", Family::SlackToken, "Slack token", 10, 200, alnum_dash),
    pfx("xoxe-", Family::SlackToken, "Slack token", 10, 200, alnum_dash),
    pfx("xoxe.xoxp-", Family::SlackToken, "Slack token", 10, 200, alnum_dash),
    pfx("xapp-", Family::SlackToken, "Slack app token", 20, 200, alnum_dash),
    pfx("gldt-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("glft-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("glrt-", Family::GitlabToken, "GitLab token", 20, 200, alnum_dash),
    pfx("glsoat-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("glcbt-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("glimt-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("glptt-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("glagent-", Family::GitlabToken, "GitLab token", 40, 1024, alnum_dash),
    pfx("gloas-", Family::GitlabToken, "GitLab token", 40, 80, alnum_dash),
    pfx("glffct-", Family::GitlabToken, "GitLab token", 20, 60, alnum_dash),
    pfx("GR1348941", Family::GitlabToken, "GitLab runner registration token", 20, 60, alnum_dash),
    pfx("api_org_", Family::HuggingfaceToken, "Hugging Face token", 30, 60, alnum),
    pfx("SG.", Family::PrefixedToken, "SendGrid key", 60, 80, b64url_dot),
    pfx("xkeysib-", Family::PrefixedToken, "Brevo key", 60, 100, alnum_dash),
    pfx("EZAK", Family::PrefixedToken, "EasyPost key", 50, 60, alnum),
    pfx("EZTK", Family::PrefixedToken, "EasyPost key", 50, 60, alnum),
    pfx("FLWSECK-", Family::PrefixedToken, "Flutterwave key", 12, 60, alnum_dash),
    pfx("FLWSECK_TEST-", Family::PrefixedToken, "Flutterwave key", 12, 60, alnum_dash),
    pfx("NRAK-", Family::PrefixedToken, "New Relic key", 20, 40, alnum),
    pfx("NRII-", Family::PrefixedToken, "New Relic key", 20, 40, alnum_dash),
    pfx("NRJS-", Family::PrefixedToken, "New Relic key", 16, 40, alnum),
    pfx("pscale_tkn_", Family::PrefixedToken, "PlanetScale token", 30, 80, b64url_dot),
    pfx("pscale_oauth_", Family::PrefixedToken, "PlanetScale token", 30, 80, b64url_dot),
    pfx("pscale_pw_", Family::PrefixedToken, "PlanetScale password", 30, 80, b64url_dot),
    pfx("fio-u-", Family::PrefixedToken, "Frame.io token", 60, 80, b64url_dot),
    pfx("duffel_test_", Family::PrefixedToken, "Duffel token", 40, 50, b64url_dot),
    pfx("duffel_live_", Family::PrefixedToken, "Duffel token", 40, 50, b64url_dot),
    pfx("dnkey-", Family::PrefixedToken, "Defined Networking key", 70, 90, b64url_dot),
    pfx("tfp_", Family::PrefixedToken, "Typeform token", 50, 70, b64url_dot),
    pfx("dapi", Family::PrefixedToken, "Databricks token", 32, 40, alnum_dash),
    pfx("A3-", Family::PrefixedToken, "1Password secret key", 30, 40, upper_digit_dash),
    pfx("sq0csp-", Family::PrefixedToken, "Square OAuth secret", 40, 50, alnum_dash),
    pfx("sq0atp-", Family::PrefixedToken, "Square access token", 20, 30, alnum_dash),
    pfx("EAA", Family::PrefixedToken, "Meta access token", 30, 300, alnum),
    pfx("EAAA", Family::PrefixedToken, "Square access token", 22, 60, alnum_dash),
    pfx("pat", Family::PrefixedToken, "Airtable token", 70, 90, b64url_dot),
    pfx("access-sandbox-", Family::PrefixedToken, "Plaid access token", 36, 36, alnum_dash),
    pfx("access-development-", Family::PrefixedToken, "Plaid access token", 36, 36, alnum_dash),
    pfx("access-production-", Family::PrefixedToken, "Plaid access token", 36, 36, alnum_dash),
    pfx("v1.0-", Family::PrefixedToken, "Cloudflare origin CA key", 150, 180, alnum_dash),
    // Twilio's API key and account SIDs: two letters and 32 lower-case
    // letters or digits (hexadecimal), exactly.
    pfx("SK", Family::PrefixedToken, "Twilio key", 32, 32, lower_alnum),
    pfx("AC", Family::PrefixedToken, "Twilio account SID", 32, 32, lower_alnum),
];

/// The index of `PREFIXES` by a prefix's first byte (one pass over the
/// text finds every prefix), built on first use.
fn by_first_byte() -> &'static [Vec<u8>; 128] {
    static INDEX: std::sync::OnceLock<[Vec<u8>; 128]> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: [Vec<u8>; 128] = std::array::from_fn(|_| Vec::new());
        for (k, p) in PREFIXES.iter().enumerate() {
            if let Some(&c) = p.prefix.as_bytes().first() {
                index[usize::from(c & 0x7f)].push(k as u8);
            }
        }
        index
    })
}

/// A token body that is random, not words: it has a digit, or it is a
/// long run of letters alone whose case changes often ("hf_jCBaQng…"),
/// unlike an identifier's camel case ("hf_requiredCharacteristic…").
fn random_body(tail: &str) -> bool {
    let bytes = tail.as_bytes();
    if bytes.iter().any(u8::is_ascii_digit) {
        return true;
    }
    let case_runs = 1 + bytes
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() != w[1].is_ascii_uppercase())
        .count();
    bytes.iter().all(u8::is_ascii_alphabetic)
        && bytes.len() >= 30
        && bytes.len() * 2 <= case_runs * 5
}

/// Tokens of well-known formats, found by their prefix and length, in
/// one pass: at each word start, the prefixes beginning with its byte.
pub(super) fn prefixed_tokens(text: &str, out: &mut Vec<Finding>) {
    let index = by_first_byte();
    let bytes = text.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        if !c.is_ascii() || index[usize::from(c)].is_empty() {
            continue;
        }
        if i > 0 && (is_alnum(b(text, i - 1)) || b(text, i - 1) == Some(b'_')) {
            continue;
        }
        for &k in &index[usize::from(c)] {
            let p = &PREFIXES[usize::from(k)];
            if !bytes[i..].starts_with(p.prefix.as_bytes()) {
                continue;
            }
            let start = i + p.prefix.len();
            let mut end = run(text, start, p.charset);
            // A dotted token ends before a sentence's full stop.
            while end > start && b(text, end - 1) == Some(b'.') {
                end -= 1;
            }
            let n = end - start;
            if n < p.min || n > p.max || is_alnum(b(text, end)) {
                continue;
            }
            // Random tokens mix letters and digits; "sk-learn-tutorial" does not.
            let tail = text.get(start..end).unwrap_or("");
            if !random_body(tail) || placeholder(tail) {
                continue;
            }
            out.push(finding(p.family, p.label, format!("{}…", p.prefix), i, end));
        }
    }
}

/// Mailchimp API keys: 32 hexadecimal characters, `-us` and the data
/// centre's number ("…-us18"); the suffix says it is a key, not a digest.
pub(super) fn suffixed_tokens(text: &str, out: &mut Vec<Finding>) {
    for (i, _) in text.match_indices("-us") {
        let digits = run(text, i + 3, |c| c.is_ascii_digit());
        let n = digits - (i + 3);
        if !(1..=2).contains(&n) || is_alnum(b(text, digits)) || i < 32 {
            continue;
        }
        let start = i - 32;
        let body = text.get(start..i).unwrap_or("");
        let boundary = start == 0 || !is_alnum(b(text, start - 1));
        if boundary && body.bytes().all(lower_hex) && random_body(body) && !placeholder(body) {
            out.push(finding(
                Family::PrefixedToken,
                "Mailchimp API key",
                "…-us".into(),
                start,
                digits,
            ));
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
