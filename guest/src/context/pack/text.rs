//! Text as the packer handles it: line breaks normalised, caller-supplied
//! labels kept on one line, continuation lines and `#` lines indented so
//! only the packer's headings start a section, memory text quoted as a JSON
//! string, and the normal forms and term sets the dedup compares.

use std::collections::BTreeSet;

/// Line breaks normalised to `\n` (CR, CRLF, NEL and the Unicode line and
/// paragraph separators all end a line).
pub(super) fn normalise(s: &str) -> String {
    s.replace("\r\n", "\n")
        .replace(['\r', '\u{85}', '\u{2028}', '\u{2029}'], "\n")
}

/// A caller-supplied label part on one line, without brackets.
pub(super) fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '[' => '(',
            ']' => ')',
            c if c.is_control() || c.is_whitespace() => ' ',
            c => c,
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Continuation lines indented, so none of them can pass for a heading.
pub(super) fn indent(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.trim().is_empty() {
                out.push_str("  ");
            }
        }
        out.push_str(if line.trim().is_empty() && i > 0 {
            ""
        } else {
            line.trim_end()
        });
    }
    out
}

/// Lines that start with `#` indented, so the system policy's own headings
/// cannot pass for the packer's sections.
pub(super) fn guard_headings(s: &str) -> String {
    s.split('\n')
        .map(|l| {
            if l.starts_with('#') {
                format!("  {l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A text as a JSON string: quoted, every line break and control character
/// escaped, so it stays on one line and reads as data.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Lowercased letters and digits only: for containment and exact dedup.
pub(super) fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A set of a text's index terms.
pub(super) fn term_set(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for t in crate::analysis::text::terms(text) {
        set.insert(t);
    }
    set
}

/// Sort in place (heapsort: a few hundred bytes of code instead of another
/// instantiation of the standard sorts; the guest's size is a feature).
pub(super) fn heapsort(v: &mut [u128]) {
    fn sift(v: &mut [u128], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && v[child] < v[child + 1] {
                child += 1;
            }
            if v[root] >= v[child] {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}
