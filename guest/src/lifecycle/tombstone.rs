//! Tombstones: fingerprints of erased content, never the content itself.
//!
//! A fingerprint is the hex of `model::fnv1a` over the normalised text
//! (lowercased, trimmed). A text fragment is found in a later text by hashing
//! every window of the fragment's length (in characters) of the normalised
//! text, so a tombstoned password is caught wherever it reappears.
//!
//! A tombstone of length 0 is not a text fingerprint: it fingerprints an
//! erased source reference (an event or session whose derived memories were
//! deleted), so that the same source cannot be re-extracted.

use std::collections::{BTreeMap, BTreeSet};

use crate::core::model::fnv1a;
use crate::types::{Candidate, Datetime};
use crate::wit_store::Tombstone;

/// Lowercased and trimmed: the form every fingerprint is taken over.
pub fn normalise(text: &str) -> String {
    text.trim().to_lowercase()
}

fn hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a(bytes))
}

/// The fingerprint of a text (hex of FNV-1a over its normalised form).
pub fn fingerprint(text: &str) -> String {
    hex(normalise(text).as_bytes())
}

/// A tombstone for erased text; `None` when nothing is left after
/// normalisation.
pub fn for_text(text: &str, kind: &str, at: Datetime) -> Option<Tombstone> {
    let n = normalise(text);
    let length = n.chars().count();
    (length > 0).then(|| Tombstone {
        fingerprint: hex(n.as_bytes()),
        length: length.min(u32::MAX as usize) as u32,
        kind: kind.to_string(),
        created_at: at,
    })
}

fn source_fingerprint(reference: &str) -> String {
    hex(format!("source\u{0}{}", reference.trim()).as_bytes())
}

/// A tombstone for an erased source reference (length 0: never matched
/// against text).
pub fn for_source(reference: &str, at: Datetime) -> Tombstone {
    Tombstone {
        fingerprint: source_fingerprint(reference),
        length: 0,
        kind: "source".to_string(),
        created_at: at,
    }
}

/// The first tombstone whose fragment occurs in `text`, if any.
pub fn matches<'a>(text: &str, tombstones: &'a [Tombstone]) -> Option<&'a Tombstone> {
    let norm = normalise(text);
    // Byte offset of every char boundary, including the end.
    let bounds: Vec<usize> = norm
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(norm.len()))
        .collect();
    let chars = bounds.len() - 1;
    let mut by_length: BTreeMap<usize, Vec<&'a Tombstone>> = BTreeMap::new();
    for t in tombstones {
        let l = t.length as usize;
        if l > 0 && l <= chars {
            by_length.entry(l).or_default().push(t);
        }
    }
    for (l, ts) in by_length {
        let wanted: BTreeSet<&str> = ts.iter().map(|t| t.fingerprint.as_str()).collect();
        for i in 0..=(chars - l) {
            let h = hex(&norm.as_bytes()[bounds[i]..bounds[i + l]]);
            if wanted.contains(h.as_str()) {
                return ts.iter().copied().find(|t| t.fingerprint == h);
            }
        }
    }
    None
}

/// The tombstone of an erased source reference, if `reference` has one.
pub fn matches_source<'a>(reference: &str, tombstones: &'a [Tombstone]) -> Option<&'a Tombstone> {
    let f = source_fingerprint(reference);
    tombstones
        .iter()
        .find(|t| t.length == 0 && t.fingerprint == f)
}

/// Why a candidate may not be written because of a tombstone, if it may not:
/// its text (or explicit object) carries erased content, or it comes from an
/// erased source.
pub fn check(c: &Candidate, tombstones: &[Tombstone]) -> Option<String> {
    if tombstones.is_empty() {
        return None;
    }
    let hit = matches(&c.text, tombstones)
        .or_else(|| c.object.as_deref().and_then(|o| matches(o, tombstones)));
    if let Some(t) = hit {
        return Some(format!(
            "matches a tombstone of erased content ({}, fingerprint {})",
            t.kind, t.fingerprint
        ));
    }
    c.source
        .reference
        .as_deref()
        .and_then(|r| matches_source(r, tombstones))
        .map(|t| {
            format!(
                "comes from an erased source (fingerprint {})",
                t.fingerprint
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Datetime = Datetime {
        epoch_ms: 0,
        offset_minutes: 0,
    };

    #[test]
    fn fingerprint_is_of_the_normalised_text() {
        assert_eq!(fingerprint("  BlueFalcon77 "), fingerprint("bluefalcon77"));
        assert_ne!(fingerprint("bluefalcon77"), fingerprint("bluefalcon78"));
        assert_eq!(fingerprint("abc").len(), 16);
        assert!(for_text("   ", "text", T0).is_none());
    }

    #[test]
    fn a_fragment_is_found_in_any_window() {
        let ts = vec![for_text("BlueFalcon77", "text", T0).unwrap()];
        assert!(matches("the vpn note says bluefalcon77, keep it", &ts).is_some());
        assert!(matches("BLUEFALCON77", &ts).is_some());
        assert!(matches("bluefalcon7", &ts).is_none());
        assert!(matches("", &ts).is_none());
        // CJK windows count characters, not bytes.
        let cjk = vec![for_text("口令是蓝隼", "text", T0).unwrap()];
        assert!(matches("他说口令是蓝隼七七", &cjk).is_some());
        assert!(matches("口令是蓝", &cjk).is_none());
    }

    #[test]
    fn source_tombstones_never_match_text() {
        let ts = vec![for_source("evt-9", T0)];
        assert!(matches("evt-9", &ts).is_none());
        assert!(matches_source("evt-9", &ts).is_some());
        assert!(matches_source("evt-10", &ts).is_none());
    }
}
