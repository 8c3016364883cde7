//! Values that stand where a secret would go but are not one: placeholders
//! ("xxxx", "EXAMPLE", "your_api_key_here", "[PASSWORD]", "<token>",
//! "changeme"), references to where the secret lives ("${VAR}", "$(cmd)",
//! "%VAR%", "os.environ[…]"), and code ("get_secret_key()",
//! "self.settings.auth_token"). Judged by the value's shape, with a short
//! vocabulary of placeholder words in the policy.

/// Quote characters stripped around a value.
fn unquote(v: &str) -> &str {
    v.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '“' | '”' | '‘' | '’' | '「' | '」'))
}

/// Why `v` is not a secret, if it is a placeholder or a reference; `None`
/// when it may be one.
pub fn why_not_secret(v: &str) -> Option<&'static str> {
    let v = unquote(v.trim());
    let first = v.chars().next()?;
    if v.chars().all(|c| c == first)
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '•' | '#' | '.' | '…' | '-' | '_'))
    {
        return Some("a mask or repeated character");
    }
    if masked_run(v) {
        return Some("masked with x or *");
    }
    let body = v.split(['_', '-']).max_by_key(|seg| seg.len()).unwrap_or(v);
    if sequential(v) || sequential(body) {
        return Some("a run of consecutive characters");
    }
    if periodic(body) {
        return Some("a repeated pattern");
    }
    let bracketed = [('<', '>'), ('[', ']'), ('{', '}'), ('(', ')')]
        .iter()
        .any(|&(o, c)| v.starts_with(o) && v.ends_with(c));
    if bracketed || v.starts_with(['<', '[', '{']) || v.ends_with("...") || v.ends_with('…') {
        return Some("a bracketed or elided placeholder");
    }
    // A template anywhere in the value ("Bearer ${TOKEN}", "pw-{{ env }}").
    if reference(v) || ["${", "{{", "<%", "$("].iter().any(|t| v.contains(t)) {
        return Some("a reference to where the secret is kept");
    }
    if code(v) {
        return Some("code, not a value");
    }
    let lower = v.to_ascii_lowercase();
    let words = crate::core::config::CUES.secret_placeholders;
    if words.contains(&lower.as_str())
        || crate::core::config::CUES
            .placeholder_parts
            .iter()
            .any(|p| lower.contains(p))
    {
        return Some("a placeholder word");
    }
    None
}

/// Four or more x or * in a row ("sk-xxxxxxxx", "AKIA****"): masked.
fn masked_run(v: &str) -> bool {
    let mut run = 0;
    let mut last = '\0';
    for c in v.chars() {
        if matches!(c, 'x' | 'X' | '*' | '•') && (c == last || run == 0) {
            run += 1;
        } else if matches!(c, 'x' | 'X' | '*' | '•') {
            run = 1;
        } else {
            run = 0;
        }
        last = c;
        if run >= 4 {
            return true;
        }
    }
    false
}

/// Mostly consecutive characters ("abcdefghijklmnop", "0123456789abcdef",
/// "ABCDEF…XYZ0123…"): an alphabet written out, not a random value.
fn sequential(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 12 {
        return false;
    }
    let steps = b
        .windows(2)
        .filter(|w| w[1] == w[0].wrapping_add(1))
        .count();
    steps * 20 >= (b.len() - 1) * 17
}

/// A short block repeated to fill the value ("1234567890abcdef1234567890abcdef",
/// "abc123abc123abc123"): a filler, not a random value.
fn periodic(v: &str) -> bool {
    let b = v.as_bytes();
    let n = b.len();
    n >= 12
        && (1..=n / 2)
            .take(16)
            .any(|p| b.iter().enumerate().skip(p).all(|(i, &c)| c == b[i - p]))
}

/// A variable, template or command substitution: "${DB_PASS}", "$TOKEN",
/// "$(vault read …)", "%API_KEY%", "{{ secret }}", "process.env.X",
/// "os.environ['X']", "env(\"X\")".
fn reference(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    v.starts_with("${")
        || v.starts_with("$(")
        || v.starts_with("{{")
        || v.starts_with("%(")
        || v.starts_with("#{")
        || v.starts_with('`')
        || (v.starts_with('$') && ident(&v[1..]))
        || (v.len() > 2 && v.starts_with('%') && v.ends_with('%') && ident(&v[1..v.len() - 1]))
        || [
            "process.env",
            "os.environ",
            "os.getenv",
            "getenv(",
            "env(",
            "env[",
            "secrets.",
        ]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// Code: a call ("get_secret_key()", "Vault.read(\"x\")") or a dotted
/// member path of identifiers ("self.settings.auth_token", "config.token").
fn code(v: &str) -> bool {
    let ident_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let head_end = v
        .bytes()
        .position(|c| !(ident_char(c) || c == b'.'))
        .unwrap_or(v.len());
    let head = &v[..head_end];
    // A call or a subscript ("request.headers['apikey']").
    let called = v[head_end..].starts_with(['(', '['])
        && head
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_');
    let member_path = head_end == v.len()
        && head.contains('.')
        && head.split('.').all(|seg| {
            seg.len() >= 2
                && seg
                    .bytes()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                && seg.bytes().all(ident_char)
                && !seg.bytes().any(|c| c.is_ascii_digit())
        });
    called || member_path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::detect::secrets::placeholder_credential;

    #[test]
    fn placeholders_by_shape() {
        for v in [
            "xxxx",
            "XXXXXXXXXXXXXXXX",
            "sk-xxxxxxxxxxxxxxxxxxxxxxxx",
            "********",
            "00000000000000000000000000000000",
            "<token>",
            "[PASSWORD]",
            "{api_key}",
            "\"<your key>\"",
            "abc...",
        ] {
            assert!(why_not_secret(v).is_some(), "{v}");
        }
    }

    #[test]
    fn placeholders_by_word() {
        for v in [
            "your_api_key_here",
            "insert_key_here",
            "changeme",
            "EXAMPLEKEYEXAMPLEKEY",
            "AKIAIOSFODNN7EXAMPLE",
            "dummy-token-value",
            "replace-me",
        ] {
            assert!(why_not_secret(v).is_some(), "{v}");
        }
    }

    #[test]
    fn references_and_code() {
        for v in [
            "${DB_PASSWORD}",
            "$DB_PASSWORD",
            "$(vault read -field=token secret/ci)",
            "%API_KEY%",
            "{{ .Values.token }}",
            "process.env.STRIPE_KEY",
            "os.environ['TOKEN']",
            "get_secret_key()",
            "Vault.read(\"ci/token\")",
            "request.headers['apikey']",
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "0123456789abcdef",
            "self.settings.auth_token",
        ] {
            assert!(why_not_secret(v).is_some(), "{v}");
        }
    }

    #[test]
    fn real_values_are_not_placeholders() {
        for v in [
            "h7Kp!2wQz9Lm",
            "xoxb-2048-4096-abcdefABCDEF12",
            "AAAAAAAAAAAAAAAAAAAAAAg6ryeK9b6mc7H00iNkoKi6",
            "FLWSECK_TEST-2b003a206274",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            "blue harbor 70",
            "a1.b2.c3",
        ] {
            assert!(why_not_secret(v).is_none(), "{v}: {:?}", why_not_secret(v));
        }
    }

    #[test]
    fn placeholder_credentials_are_named() {
        let why = placeholder_credential("API_KEY=your_api_key_here").unwrap_or_default();
        assert!(why.starts_with("API_KEY: a placeholder"), "{why}");
        assert!(placeholder_credential("API_KEY=Qx7vT2mPz9Lk4Rw8Bn3C").is_none());
    }
}
