//! Byte-level scanning shared by the detectors: bytes at a position,
//! runs of a character class, and keyword hits that respect word edges.

use crate::analysis::cues::Hit;

pub(super) fn b(text: &str, i: usize) -> Option<u8> {
    text.as_bytes().get(i).copied()
}

pub(super) fn is_alnum(c: Option<u8>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Extend from `i` while bytes satisfy `ok`; the end.
pub(super) fn run(text: &str, mut i: usize, ok: impl Fn(u8) -> bool) -> usize {
    while b(text, i).is_some_and(&ok) {
        i += 1;
    }
    i
}

pub(super) fn upper_digit(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}
pub(super) fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}
pub(super) fn alnum_dash(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

pub(super) fn upper_digit_dash(c: u8) -> bool {
    upper_digit(c) || c == b'-'
}
pub(super) fn lower_alnum(c: u8) -> bool {
    c.is_ascii_digit() || c.is_ascii_lowercase()
}
pub(super) fn lower_hex(c: u8) -> bool {
    c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
}
/// A token's characters with dots and padding: "SG.<id>.<secret>".
pub(super) fn b64url_dot(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'=' | b'.')
}

pub(super) fn b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'=' || c == b'+' || c == b'/'
}

pub(super) fn ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-'
}

/// Keyword hits where an ASCII keyword may sit inside an identifier
/// ("MYSQL_PASSWORD") but not inside a longer word ("passwords", "spin").
pub(super) fn keyword_hits(folded: &str, keywords: &'static [&'static str]) -> Vec<Hit> {
    crate::analysis::cues::occurrences(folded, keywords)
        .into_iter()
        .filter(|h| {
            let ascii = h.cue.is_ascii();
            let letter_before =
                h.start > 0 && b(folded, h.start - 1).is_some_and(|c| c.is_ascii_alphabetic());
            let letter_after = b(folded, h.end).is_some_and(|c| c.is_ascii_alphabetic());
            !(ascii && (letter_before || letter_after))
        })
        .collect()
}
