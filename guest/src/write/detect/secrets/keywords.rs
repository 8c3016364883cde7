//! Keyword-anchored values ("密码是 …", "API key is …") and
//! account/password pairs: where a value starts after its keyword, and
//! what it must look like.

use super::finding::Finding;
use super::finding::{finding, Family};
use super::keyvalue;
use super::scan::b;
use super::scan::is_alnum;
use super::scan::keyword_hits;
use super::scan::run;
use super::shape::credential_like;
use super::shape::has_digit;
use super::shape::has_symbol;
use super::shape::placeholder;
use super::shape::token_like;
use crate::core::config::WritePolicy;

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
pub(super) fn keyword_values(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
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
                Family::Password,
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
pub(super) fn credential_pairs(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
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
                Family::CredentialPair,
                "account and password pair",
                format!("after '{}'", text.get(h.start..h.end).unwrap_or(h.cue)),
                s2,
                e2,
            ));
        }
    }
}
