//! Environment dumps: several `KEY=value` lines together, where a secret
//! key's value is a credential.

use super::finding::Finding;
use super::finding::{finding, Family};
use super::scan::b;
use super::scan::ident;
use super::scan::run;
use super::shape::looks_random;
use crate::core::config::WritePolicy;

/// Environment dumps: many `KEY=value` pairs, whose random-looking values
/// are taken as secrets whatever the key (named keys are `keyvalue`'s).
pub(super) fn environment_dumps(text: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
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
                Family::EnvironmentDump,
                "secret-looking value in an environment dump",
                format!("{key}=…"),
                vs,
                ve,
            ));
        }
    }
}
