//! Credentials in URLs and headers: `Authorization` headers, connection
//! URLs with a password, and webhook URLs whose path is the secret.

use super::finding::Finding;
use super::finding::{finding, Family};
use super::scan::b;
use super::scan::b64url;
use super::scan::is_alnum;
use super::scan::run;
use super::shape::entropy;
use super::shape::placeholder;

/// `Authorization: Bearer …` / `Basic …` credentials.
pub(super) fn auth_headers(text: &str, folded: &str, out: &mut Vec<Finding>) {
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
                    Family::BearerToken,
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
pub(super) fn url_credentials(text: &str, out: &mut Vec<Finding>) {
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
            Family::ConnectionStringPassword,
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
pub(super) fn webhook_urls(text: &str, out: &mut Vec<Finding>) {
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
                    Family::WebhookUrl,
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
