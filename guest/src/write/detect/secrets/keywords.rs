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
use crate::analysis::cues::Hit;
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

/// Keyword-anchored values: "密码是 …", "password: …", "API key is …", and
/// values named by their keyword after them (`values_before_keywords`),
/// from one scan for the keywords.
pub(super) fn keyword_values(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    let hits = keyword_hits(folded, wp.cues.secret_keywords);
    values_after_keywords(text, &hits, wp, out);
    values_before_keywords(text, &hits, wp, out);
}

fn values_after_keywords(text: &str, hits: &[Hit], wp: &WritePolicy, out: &mut Vec<Finding>) {
    for h in hits {
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

/// Linking words between a value and the keyword after it: "use <value>
/// as the … key", "<value> is our … token", "<value> 作为 … 令牌".
const LINKS_BEFORE: &[&str] = &[" as", " is", " was", "作为", "当作", "用作", "做为", "是"];

/// Function words that may follow a secret's name ("… as the API key when
/// calling", "… is our token for staging"); any other word makes the
/// keyword a modifier of the next noun.
const FOLLOWERS: &[&str] = &[
    "when", "for", "from", "in", "on", "to", "and", "with", "of", "at", "until", "so", "because",
    "if", "now", "here", "please", "instead", "since", "that", "which", "then", "too", "by", "but",
    "or", "we", "you", "i", "they", "it", "going", "again", "today",
];

/// A value named by the keyword after it: "use <value> as the maxmind
/// license key", "<value> is our staging API token", "把 <value> 作为 API
/// key". From the keyword back over at most four qualifier words (ASCII
/// words or short CJK runs) to a linking word, and the value right before
/// it. Returns the value's range and the qualifiers that are ASCII words
/// (with the keyword they name the secret's key).
fn value_before(text: &str, kw_start: usize) -> Option<(usize, usize, Vec<&str>)> {
    let mut head = text.get(..kw_start)?;
    let mut qualifiers = Vec::new();
    let mut cjk = 0;
    for _ in 0..=4 {
        head = head.trim_end_matches([' ', '\t', '\u{3000}']);
        if let Some(link) = LINKS_BEFORE.iter().find(|l| {
            head.len() > l.len()
                && head
                    .get(head.len() - l.len()..)
                    .is_some_and(|t| t.eq_ignore_ascii_case(l))
        }) {
            let before = head.get(..head.len() - link.len())?;
            let before = before.trim_end_matches([' ', '\t', '"', '\'', '`', '\u{3000}']);
            let end = before.len();
            let start = before
                .bytes()
                .rposition(|c| {
                    !c.is_ascii_graphic()
                        || matches!(c, b'"' | b'\'' | b'`' | b'(' | b'[' | b'{' | b',')
                })
                .map_or(0, |p| p + 1);
            return (start < end).then_some((start, end, qualifiers));
        }
        let last = head.chars().next_back()?;
        if last.is_ascii_alphabetic() {
            let at = head
                .bytes()
                .rposition(|c| !c.is_ascii_alphabetic())
                .map_or(0, |p| p + 1);
            qualifiers.push(head.get(at..)?);
            head = head.get(..at)?;
        } else if crate::analysis::text::is_cjk(last) && cjk < 6 {
            let mut n = 0;
            while let Some(c) = head.chars().next_back() {
                if !crate::analysis::text::is_cjk(c)
                    || head.ends_with(['是', '作', '当', '用', '做'])
                    || n >= 6
                {
                    break;
                }
                head = head.get(..head.len() - c.len_utf8())?;
                n += 1;
            }
            cjk += n;
            if n == 0 {
                // A linking character ends the run: look for the link.
                continue;
            }
        } else {
            return None;
        }
    }
    None
}

/// Values named by the keyword after them ("use <value> as the nytimes
/// access token"): only a token-like value, and only when the key the
/// keyword and its qualifiers make names a secret ("as the public key",
/// "as the token endpoint" do not).
fn values_before_keywords(text: &str, hits: &[Hit], wp: &WritePolicy, out: &mut Vec<Finding>) {
    for h in hits {
        let Some((s, e, qualifiers)) = value_before(text, h.start) else {
            continue;
        };
        let value = text.get(s..e).unwrap_or("");
        // Token characters, with the odd `=`, `.` or `/` of some formats.
        let core: String = value
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .collect();
        if value.len() < 12
            || core.len() * 5 < value.len() * 4
            || value.starts_with(['/', '.', '~'])
            || !token_like(&core, wp)
            || placeholder(value)
            || value.contains("://")
        {
            continue;
        }
        // The keyword ends the name: a word after it that is not a function
        // word makes the keyword a modifier ("the token service pod",
        // "the token endpoint").
        let after = text.get(h.end..).unwrap_or("");
        let next = after
            .trim_start_matches(' ')
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let continues =
            after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if continues || !(next.is_empty() || FOLLOWERS.contains(&next.as_str())) {
            continue;
        }
        if h.cue.is_ascii() {
            let mut key: Vec<&str> = qualifiers.into_iter().rev().collect();
            key.push(text.get(h.start..h.end).unwrap_or(h.cue));
            if keyvalue::key_strength(&key.join("_")).is_none() {
                continue;
            }
        }
        out.push(finding(
            Family::Password,
            label_of(h.cue),
            format!("before '{}'", text.get(h.start..h.end).unwrap_or(h.cue)),
            s,
            e,
        ));
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
