//! Credentials given as a key and a value, in any syntax: environment
//! (`X_TOKEN=…`), YAML (`signing_key: …`), JSON (`"client_secret": "…"`),
//! INI, code (`setProperty("X_TOKEN", "…")`, `os.environ["X"] = "…"`,
//! `String doToken = "…"`), CLI flags (`--password …`, `--user name:pass`)
//! and HTTP headers (`X-Api-Key: …`). One pass finds keys that name a
//! secret and reads the value after the syntax's separator; the value is
//! then judged by its shape (placeholders and code are not secrets).

use super::finding::{finding, Family, Finding};
use super::placeholder::why_not_secret;
use super::scan::{b, run};
use super::shape::{credential_like, looks_random, random_by_alphabet};
use crate::core::config::WritePolicy;

/// A key naming a secret and the value after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub key: String,
    pub value: String,
    /// The value's byte range (without quotes).
    pub start: usize,
    pub end: usize,
    pub quoted: bool,
    /// How strongly the key names a secret.
    pub strength: KeyStrength,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStrength {
    /// "password", "api_key", "X_TOKEN": any credential-like value.
    Strong,
    /// "auth", "session", "private": only a random-looking value.
    Weak,
}

fn key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// The words of a key, lower-cased: split on `_ . -` and on lower→upper
/// case changes ("doToken" → do, token; "X-Api-Key" → x, api, key).
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if matches!(c, '_' | '.' | '-') {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// How a key names a secret, if it does. A key ending in a word that
/// names something else ("…_id", "…Url", "…_ttl", "…_file") is a setting
/// about a secret, not one.
pub fn key_strength(key: &str) -> Option<KeyStrength> {
    let cues = &crate::core::config::CUES;
    // Most keys name no secret: look for a stem's letters before splitting.
    let contains = |stem: &&str| {
        key.as_bytes()
            .windows(stem.len())
            .any(|w| w.eq_ignore_ascii_case(stem.as_bytes()))
    };
    if !cues
        .secret_key_strong
        .iter()
        .chain(cues.secret_key_weak)
        .any(contains)
    {
        return None;
    }
    let words = key_words(key);
    let last = words.last()?;
    // A word naming a setting anywhere after the secret's word
    // ("authTokenTtlSeconds", "password_hash_algo") makes the key a
    // setting about the secret, not the secret.
    let stem = |x: &String| {
        cues.secret_key_strong
            .iter()
            .chain(cues.secret_key_weak)
            .any(|w| x == w || (w.len() >= 5 && x.ends_with(*w)))
    };
    let after_stem = words.iter().position(stem).map_or(words.len(), |p| p + 1);
    if words[after_stem..]
        .iter()
        .chain(std::iter::once(last))
        .any(|w| cues.secret_key_settings.contains(&w.as_str()))
        || words
            .iter()
            .any(|w| cues.non_secret_key_words.contains(&w.as_str()))
    {
        return None;
    }
    // "dbpassword", "accesstoken": a word ending in a stem counts;
    // "tokenizer", "bypass" do not.
    let names = |w: &&str| {
        words
            .iter()
            .any(|x| x == w || (w.len() >= 5 && x.ends_with(*w)))
    };
    if cues.secret_key_strong.iter().any(names) {
        return Some(KeyStrength::Strong);
    }
    // "STRIPE_KEY", "signing_key": a qualified key; a bare "key" is weak.
    if last == "key" && words.len() > 1 {
        return Some(KeyStrength::Strong);
    }
    cues.secret_key_weak
        .iter()
        .any(|w| words.iter().any(|x| x == w))
        .then_some(KeyStrength::Weak)
}

/// The key a value at byte `at` is assigned to (`key = "…"`, `key: …`,
/// `"key": "…"`), if any.
pub fn key_before(text: &str, at: usize) -> Option<&str> {
    let head = text.get(..at)?;
    let head = head.trim_end_matches(['"', '\'', ' ', '\t']);
    let head = head.strip_suffix(['=', ':'])?;
    let head = head.trim_end_matches(['"', '\'', ' ', '\t']);
    let start = head
        .bytes()
        .rposition(|c| !key_char(c))
        .map_or(0, |p| p + 1);
    let key = head.get(start..)?;
    (!key.is_empty()).then_some(key)
}

/// A key that says its value is not secret: a public or lookup key
/// ("public_key", "cache_key") or an identifier ("Invoice ID", "order_no").
pub fn names_a_non_secret(key: &str) -> bool {
    let cues = &crate::core::config::CUES;
    let words = key_words(key);
    words
        .iter()
        .any(|w| cues.non_secret_key_words.contains(&w.as_str()))
        || words
            .last()
            .is_some_and(|w| matches!(w.as_str(), "id" | "ids" | "no" | "number" | "ref"))
}

/// Every key naming a secret with the value after it, in one pass.
pub fn pairs(text: &str) -> Vec<Pair> {
    pairs_where(text, key_strength)
}

/// Every `value` key with the value after it (its meaning is in a sibling
/// key, see `position`).
pub fn value_pairs(text: &str) -> Vec<Pair> {
    pairs_where(text, |k| {
        k.eq_ignore_ascii_case("value").then_some(KeyStrength::Weak)
    })
}

/// Every key `strength_of` accepts with the value after it, in one pass.
fn pairs_where(text: &str, strength_of: fn(&str) -> Option<KeyStrength>) -> Vec<Pair> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !b(text, i).is_some_and(key_char) || (i > 0 && b(text, i - 1).is_some_and(key_char)) {
            i += 1;
            continue;
        }
        let ke = run(text, i, key_char);
        let raw = &text[i..ke];
        let key = raw.trim_start_matches('-').trim_end_matches(['.', '-']);
        let cli = raw.starts_with('-');
        let key_end = i + raw.trim_end_matches(['.', '-']).len();
        // The syntax first (cheap, and most words have no value after
        // them), then the key's words.
        if let Some((start, end, quoted)) = value_after_key(text, i, key_end, cli) {
            if let Some(strength) = strength_of(key) {
                out.push(Pair {
                    key: key.to_string(),
                    value: text[start..end].to_string(),
                    start,
                    end,
                    quoted,
                    strength,
                });
            } else if cli && matches!(key, "u" | "user" | "proxy-user" | "U") {
                // curl's `--user name:password`: the part after the colon,
                // quoted or not ("kevin:'pRf7…'"). The colon delimits a
                // literal as quotes do: a letters-only password counts.
                // (The value's run drops a trailing colon: "kevin:'…'".)
                let user = text.get(start..end + 1).unwrap_or(&text[start..end]);
                if let Some(colon) = user.find(':') {
                    let (mut s, mut e) = (start + colon + 1, end.max(start + colon + 1));
                    if s == e {
                        if let Some(q @ (b'"' | b'\'')) = b(text, s) {
                            let close = text.get(s + 1..).and_then(|r| {
                                r.find(|c: char| c as u32 == u32::from(q) || c == '\n')
                            });
                            if let Some(len) = close.filter(|&l| b(text, s + 1 + l) == Some(q)) {
                                (s, e) = (s + 1, s + 1 + len);
                            }
                        }
                    }
                    out.push(Pair {
                        key: key.to_string(),
                        value: text[s..e].to_string(),
                        start: s,
                        end: e,
                        quoted: true,
                        strength: KeyStrength::Strong,
                    });
                }
            }
        }
        i = ke.max(i + 1);
    }
    out
}

/// The value after a key ending at `ke`: past a closing quote or bracket
/// (`"X_TOKEN", "…"`, `["X"] = "…"`), one separator (`=`, `:`, `:=`, `=>`,
/// a comma between call arguments, whitespace after a CLI flag) and an
/// opening quote. A quoted value runs to its closing quote on the line.
fn value_after_key(text: &str, ks: usize, ke: usize, cli: bool) -> Option<(usize, usize, bool)> {
    let opened = ks > 0 && matches!(b(text, ks - 1), Some(b'"' | b'\''));
    let mut j = ke;
    if opened && b(text, j) == b(text, ks - 1) {
        j += 1;
    }
    if b(text, j) == Some(b']') {
        j += 1;
    }
    let spaces = |j: usize| run(text, j, |c| c == b' ' || c == b'\t');
    let after_space = spaces(j);
    let rest = text.get(after_space..)?;
    let sep = [":=", "=>", "=", ":"]
        .into_iter()
        .find(|s| rest.starts_with(s))
        .filter(|_| !rest.starts_with("://") && !rest.starts_with("=="));
    j = match sep {
        Some(s) => spaces(after_space + s.len()),
        None if opened && rest.starts_with(',') => spaces(after_space + 1),
        None if cli && after_space > j => after_space,
        None => return None,
    };
    match b(text, j) {
        Some(q @ (b'"' | b'\'' | b'`')) => {
            let s = j + 1;
            let len = text
                .get(s..)?
                .find(|c: char| c as u32 == q as u32 || c == '\n')?;
            // A command in backticks ("`vault read …`") runs to get the
            // secret; it is not one.
            if q == b'`' && text.get(s..s + len)?.contains(' ') {
                return None;
            }
            (len > 0 && b(text, s + len) == Some(q)).then_some((s, s + len, true))
        }
        // A bracketed placeholder ("[PASSWORD]", "<token>", "{key}") as a whole.
        Some(o @ (b'[' | b'<' | b'{')) => {
            let close = match o {
                b'[' => ']',
                b'<' => '>',
                _ => '}',
            };
            let len = text.get(j..)?.find([close, '\n'])?;
            (b(text, j + len) == Some(close as u8)).then_some((j, j + len + 1, false))
        }
        _ => {
            let e = run(text, j, |c| {
                c.is_ascii_graphic()
                    && !matches!(c, b',' | b';' | b'"' | b'\'' | b']' | b'}' | b'>' | b'&')
            });
            let mut e = e;
            while e > j
                && matches!(b(text, e - 1), Some(b'.' | b')' | b':'))
                && !text[j..e].contains('(')
            {
                e -= 1;
            }
            (e > j).then_some((j, e, false))
        }
    }
}

/// A value that is itself a secret's name ("ACCESS_TOKEN", "CLIENT_SECRET",
/// the key repeated) names where the secret goes, quoted or not.
pub fn names_a_secret(key: &str, v: &str) -> bool {
    let normal = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let shouted = !v.is_empty() && v.bytes().all(|c| c.is_ascii_uppercase() || c == b'_');
    (!key.is_empty() && normal(v) == normal(key)) || (shouted && key_strength(v).is_some())
}

/// Is a pair's value a secret? Placeholders, references and code are not;
/// a strong key takes any credential-like value (a quoted passphrase of a
/// few words too); a weak key only a random-looking one.
pub fn is_secret_value(p: &Pair, wp: &WritePolicy) -> bool {
    let v = p.value.trim();
    if v.len() < 4 || why_not_secret(v).is_some() || v.contains("://") {
        return false;
    }
    // An unquoted identifier without digits ("DB_PASSWORD", "authToken")
    // names a variable.
    let identifier = v.bytes().all(|c| c.is_ascii_alphabetic() || c == b'_')
        && (v.contains('_') || v.bytes().skip(1).any(|c| c.is_ascii_uppercase()));
    if identifier && !p.quoted {
        return false;
    }
    if names_a_secret(&p.key, v) {
        return false;
    }
    // A key that is only a qualified "key" ("schemaKey", "STRIPE_KEY") and
    // a value built of words and small numbers ("DOC_Vector_5_32") names a
    // thing; a key's value is random.
    if qualified_key_only(&p.key) && word_built(v) {
        return false;
    }
    let words = v.split_whitespace().count();
    match p.strength {
        KeyStrength::Strong if words > 1 => p.quoted && words <= 6 && v.len() <= 64,
        KeyStrength::Strong => credential_like(v),
        KeyStrength::Weak => {
            words == 1 && v.len() >= 16 && (looks_random(v, wp) || random_by_alphabet(v, wp))
        }
    }
}

/// A key that names a secret only by ending in "key" after a qualifier
/// (no secret stem such as "token" or "secret" among its words).
fn qualified_key_only(key: &str) -> bool {
    let cues = &crate::core::config::CUES;
    let words = key_words(key);
    words.len() > 1
        && words.last().is_some_and(|w| w == "key")
        && !words.iter().any(|x| {
            cues.secret_key_strong
                .iter()
                .any(|w| x == w || (w.len() >= 5 && x.ends_with(*w)))
        })
}

/// A value made of two or more parts (split on `_ - .` and lower→upper
/// case changes), each a word (letters with a vowel) or a number of at most
/// four digits: "DOC_Vector_5_32", "orders-by-day". Keys
/// and tokens mix letters and digits inside their parts.
fn word_built(v: &str) -> bool {
    let parts: Vec<String> = key_words(v);
    parts.len() >= 2
        && parts.iter().all(|p| {
            (p.bytes().all(|c| c.is_ascii_digit()) && p.len() <= 4)
                || (p.len() >= 2
                    && p.bytes().all(|c| c.is_ascii_alphabetic())
                    && p.bytes().any(|c| b"aeiouy".contains(&c)))
        })
}

/// Secrets given as key/value pairs.
pub fn key_values(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    for p in pairs(text) {
        if is_secret_value(&p, wp) {
            out.push(finding(
                Family::SecretAssignment,
                "secret in a key/value pair",
                format!("{}=…", p.key),
                p.start,
                p.end,
            ));
        }
    }
}

/// A secret-named key given a placeholder value ("API_KEY=your_api_key_here",
/// "password: [PASSWORD]"): what the value gate can say when such a line
/// holds nothing worth keeping. Returns "KEY=…: <why>".
pub fn placeholder_credential(text: &str) -> Option<String> {
    pairs(text)
        .into_iter()
        .find_map(|p| why_not_secret(&p.value).map(|why| format!("{}: {why}", p.key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        key_values(text, &WritePolicy::default(), &mut out);
        out.iter()
            .map(|f| text[f.start..f.end].to_string())
            .collect()
    }

    #[test]
    fn keys_by_their_words() {
        assert_eq!(key_words("doToken"), vec!["do", "token"]);
        assert_eq!(key_words("X-Api-Key"), vec!["x", "api", "key"]);
        assert_eq!(key_strength("BUNDLE__COMToken"), Some(KeyStrength::Strong));
        assert_eq!(key_strength("STRIPE_KEY"), Some(KeyStrength::Strong));
        assert_eq!(key_strength("auth"), Some(KeyStrength::Weak));
        for k in [
            "credentialsId",
            "UserSecretsId",
            "apiUrl",
            "token_ttl",
            "password_file",
            "keyboard",
            "monkey",
            "public_key",
            "sort_key",
            "next_page_token",
            "max_tokens",
            "tokenizer",
            "secretKeyRef",
        ] {
            assert_eq!(key_strength(k), None, "{k}");
        }
    }

    #[test]
    fn every_syntax() {
        let v = "q8Lr2Vx7Nw4Kp1Zt";
        for text in [
            format!("ORDER_TOKEN={v}"),
            format!("export ORDER_TOKEN=\"{v}\""),
            format!("signing_key: {v}"),
            format!("{{\"client_secret\": \"{v}\"}}"),
            format!("[db]\npassword = {v}"),
            format!("System.setProperty(\"PAYMENTS_TOKEN\", \"{v}\");"),
            format!("os.environ[\"ORDER_SECRET\"] = \"{v}\""),
            format!("String doToken = \"{v}\";"),
            format!("mysql --password {v} orders"),
            format!("mysql --password={v} orders"),
            format!("curl --user deploy:{v} https://ci"),
            format!("curl -u deploy:{v} https://ci"),
            format!("X-Api-Key: {v}"),
            format!("$config['api_key'] => '{v}'"),
            format!("?access_token={v}&page=2"),
        ] {
            assert_eq!(found(&text), vec![v.to_string()], "{text}");
        }
    }

    #[test]
    fn a_password_built_of_words_is_still_a_password() {
        // Only a qualified "key" reads a word-built value as a name.
        assert_eq!(
            found("db_password = 'Summer_Harbor_2024'"),
            vec!["Summer_Harbor_2024"]
        );
        assert_eq!(
            found("STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
            vec!["sk_live_4eC39HqLyjWDarjtT1zdp7dc"]
        );
        assert!(word_built("DOC_Vector_5_32") && word_built("orders-by-day"));
        assert!(!word_built("q8Lr2Vx7Nw4Kp1Zt") && !word_built("sk_live_4eC39HqLyjWDarjtT1zdp7dc"));
    }

    #[test]
    fn quoted_values_with_spaces() {
        assert_eq!(
            found("vault passphrase = \"blue harbor 70 kite\""),
            vec!["blue harbor 70 kite"]
        );
        assert!(found(
            "description = \"the password must be rotated every ninety days by the owner\""
        )
        .is_empty());
    }

    #[test]
    fn placeholders_references_and_code_are_not_secrets() {
        for text in [
            "API_KEY=your_api_key_here",
            "export GITHUB_TOKEN=<token>",
            "password: [PASSWORD]",
            "DB_PASSWORD=${DB_PASSWORD}",
            "secret_key = get_secret_key()",
            "TOKEN=$(vault read -field=token secret/ci)",
            "password = DB_PASSWORD",
            "token = self.settings.auth_token",
            "api_key: \"xxxxxxxxxxxxxxxx\"",
            "PuttyPassword=0",
            "credentialsId: 'ff083f76-7804-4ef1-80e4-fe975bb9141b'",
            "auth: kerberos",
            "session = 3600",
            "password_min_length = 12",
            "publicKey: AAAAB3NzaC1yc2EAAAADAQABAAABAQC7",
            "next_page_token: CiAKGjBpNDd2Nmp1dDAwMDA",
            "withCredentials: true",
            "credentials: 'include'",
            "secret: db-creds",
            "signature: John Smith",
            "tokenizer: bert-base-uncased",
            "authTokenTtlSeconds = 3600",
            "password_hash = 'argon2id'",
            "schemaKey = 'DOC_Vector_5_32'",
            "SESSION_TOKEN_MAX_AGE_DAYS=30",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }

    #[test]
    fn weak_keys_need_random_values() {
        assert!(found("auth: Qx7vT2mPz9Lk4Rw8Bn3C").len() == 1);
        assert!(found("auth: oauth2").is_empty());
    }
}
