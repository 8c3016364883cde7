//! Credentials found by where they stand, whatever their vendor: the
//! position says "this is a secret" where the value's shape cannot.
//!
//! - An XML element named for a secret: `<password>…</password>`,
//!   `<apiKey>…</apiKey>`, `<ClientSecret>…</ClientSecret>`.
//! - A `value` field whose sibling names the secret: `<add key="ApiKey"
//!   value="…"/>`, `{"name": "STRIPE_SECRET", "value": "…"}`, YAML
//!   `- name: SIGNING_KEY` / `value: …`, `<setting name="Token"><value>…`.
//! - Every data field of a Kubernetes `Secret` manifest (`data:` holds
//!   base64, `stringData:` plain values): the kind says they are secret,
//!   whatever the field is called.
//!
//! The value is then judged as `keyvalue` judges a pair (placeholders,
//! references and variable names are not secrets).

use super::finding::{finding, Family, Finding};
use super::keyvalue::{is_secret_value, key_strength, KeyStrength, Pair};
use super::scan::{b, run};
use crate::core::config::WritePolicy;

/// Keys whose value names the sibling `value` field's meaning.
const NAMING_KEYS: &[&str] = &[
    "name",
    "key",
    "id",
    "variable",
    "param",
    "parameter",
    "setting",
];

/// Credentials by position in `text`.
pub fn credentials(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    xml_elements(text, wp, out);
    sibling_values(text, wp, out);
    kubernetes_secret(text, wp, out);
}

fn push(out: &mut Vec<Finding>, key: &str, start: usize, end: usize) {
    out.push(finding(
        Family::SecretAssignment,
        "secret in a credential position",
        format!("{key}=…"),
        start,
        end,
    ));
}

fn judged(key: &str, value: &str, start: usize, strength: KeyStrength, wp: &WritePolicy) -> bool {
    let p = Pair {
        key: key.to_string(),
        value: value.to_string(),
        start,
        end: start + value.len(),
        quoted: true,
        strength,
    };
    is_secret_value(&p, wp)
}

/// `<name>value</name>` with a secret-naming element (or, for `<value>`,
/// a secret-naming `name`/`key` attribute just before it).
fn xml_elements(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    let mut from = 0;
    while let Some(i) = text.get(from..).and_then(|r| r.find('<')).map(|i| from + i) {
        from = i + 1;
        let name_end = run(text, i + 1, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')
        });
        if name_end == i + 1 || b(text, name_end) != Some(b'>') {
            continue;
        }
        let name = &text[i + 1..name_end];
        let vs = name_end + 1;
        let close = format!("</{name}>");
        let Some(len) = text.get(vs..).and_then(|r| r.find(&close)) else {
            continue;
        };
        let value = &text[vs..vs + len];
        if value.contains(['<', '\n']) {
            continue;
        }
        let local = name.rsplit(':').next().unwrap_or(name);
        let key = if local.eq_ignore_ascii_case("value") {
            named_sibling(text, i)
        } else {
            Some(local.to_string())
        };
        let Some(key) = key else { continue };
        if let Some(strength) = key_strength(&key) {
            if judged(&key, value.trim(), vs, strength, wp) {
                let lead = value.len() - value.trim_start().len();
                push(out, &key, vs + lead, vs + lead + value.trim().len());
            }
        }
    }
}

/// The secret-naming value of a `name=`/`key=` sibling shortly before
/// byte `at`, within the same element or object.
fn named_sibling(text: &str, at: usize) -> Option<String> {
    let mut from = at.saturating_sub(160);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = text.get(from..at)?;
    // The nearest naming key wins: search backwards.
    let lower = before.to_ascii_lowercase();
    let mut best: Option<(usize, String)> = None;
    for k in NAMING_KEYS {
        for (j, _) in lower.match_indices(k) {
            let prev = j
                .checked_sub(1)
                .and_then(|p| lower.as_bytes().get(p))
                .copied();
            if prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                continue;
            }
            let rest = &before[j + k.len()..];
            let rest = rest.trim_start_matches(['"', '\'']);
            let rest = rest.trim_start();
            let Some(rest) = rest.strip_prefix(['=', ':']) else {
                continue;
            };
            let rest = rest.trim_start().trim_start_matches(['"', '\'']);
            let v: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                .collect();
            if !v.is_empty() && best.as_ref().is_none_or(|(b, _)| j > *b) {
                best = Some((j, v));
            }
        }
    }
    best.map(|(_, v)| v)
}

/// `value="…"`, `"value": "…"`, `value: …` whose sibling names a secret.
fn sibling_values(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    for p in super::keyvalue::value_pairs(text) {
        if !p.key.eq_ignore_ascii_case("value") {
            continue;
        }
        let Some(key) = named_sibling(text, p.start) else {
            continue;
        };
        if let Some(strength) = key_strength(&key) {
            if judged(&key, p.value.trim(), p.start, strength, wp) {
                push(out, &key, p.start, p.end);
            }
        }
    }
}

/// The data fields of a Kubernetes Secret manifest.
fn kubernetes_secret(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    let is_secret = text.lines().any(|l| {
        let l = l.trim();
        l.strip_prefix("kind:")
            .is_some_and(|k| k.trim() == "Secret")
    });
    if !is_secret {
        return;
    }
    let mut at = 0;
    let mut data_indent: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start().len();
        let t = body.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(d) = data_indent {
            if indent <= d {
                data_indent = None;
            } else if let Some((k, v)) = t.split_once(':') {
                let v = v.trim().trim_matches(['"', '\'']);
                let vs = start + body.find(v).unwrap_or(0);
                if !v.is_empty() && judged(k.trim(), v, vs, KeyStrength::Strong, wp) {
                    push(out, k.trim(), vs, vs + v.len());
                }
                continue;
            }
        }
        if matches!(t, "data:" | "stringData:") {
            data_indent = Some(indent);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        credentials(text, &WritePolicy::default(), &mut out);
        out.iter()
            .map(|f| text[f.start..f.end].to_string())
            .collect()
    }

    #[test]
    fn credentials_by_position() {
        let hex = "7c91b17a434a541766bd1e75e2b66784";
        for (text, want) in [
            (format!("<add key=\"ReportingApiKey\" value=\"{hex}\" />"), hex),
            (format!("<apiToken>{hex}</apiToken>"), hex),
            ("<password>letmein42</password>".to_string(), "letmein42"),
            (
                format!("<setting name=\"ServiceToken\"><value>{hex}</value></setting>"),
                hex,
            ),
            (
                format!("[{{\"name\": \"STRIPE_SECRET\", \"value\": \"{hex}\"}}]"),
                hex,
            ),
            (
                format!("env:\n- name: SIGNING_KEY\n  value: {hex}\n- name: TZ\n  value: UTC"),
                hex,
            ),
            (
                "apiVersion: v1\nkind: Secret\ndata:\n  admin-user: YWRtaW4=\n  admin-pass: U3VtbWVyMjAyNQ==\n".to_string(),
                "U3VtbWVyMjAyNQ==",
            ),
        ] {
            let got = found(&text);
            assert!(got.iter().any(|g| g == want), "{text}: {got:?}");
        }
    }

    #[test]
    fn positions_without_secrets() {
        for text in [
            "<add key=\"Theme\" value=\"dark\" />",
            "<add key=\"ApiKey\" value=\"API_KEY\" />",
            "env:\n- name: LOG_LEVEL\n  value: debug",
            "<password></password>",
            "<password>${DB_PASSWORD}</password>",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  app.mode: production",
            "kind: Secret\nstringData:\n  password: ${DB_PASSWORD}",
            "<tokenizer>bert-base-uncased</tokenizer>",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }
}
