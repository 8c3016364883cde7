//! A finding: what a detector found (a secret or personal data, its
//! byte range and a hint safe to print), and what is done with findings
//! (redacted, masked, deduplicated).

use crate::types::Sensitivity;

/// A secret or a piece of personal data found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Machine name, e.g. "aws-access-key", "password", "payment-card".
    pub family: &'static str,
    /// Human-readable name, e.g. "AWS access key".
    pub label: &'static str,
    /// Safe to print: a format prefix ("AKIA…") or a key name, never the value.
    pub hint: String,
    /// The sensitive value's byte range in the text.
    pub start: usize,
    pub end: usize,
}

impl Finding {
    /// How sensitive a memory holding this personal data is.
    pub fn sensitivity(&self) -> Sensitivity {
        match self.family {
            "phone-number" | "email-address" => Sensitivity::Personal,
            _ => Sensitivity::Sensitive,
        }
    }

    /// Does this personal data need an explicit ask to be written? (E-mail
    /// addresses do not; they only raise the memory's sensitivity.)
    pub fn gated(&self) -> bool {
        self.family != "email-address"
    }

    /// "AWS access key (AKIA…)" for a reason.
    pub fn describe(&self) -> String {
        if self.hint.is_empty() {
            self.label.to_string()
        } else {
            format!("{} ({})", self.label, self.hint)
        }
    }
}

/// `text` with the given findings replaced by `[REDACTED:family]`.
pub fn redact(text: &str, findings: &[Finding]) -> String {
    let mut spans: Vec<&Finding> = findings.iter().collect();
    spans.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in spans {
        if f.start < at || f.end > text.len() {
            continue;
        }
        let (Some(before), true) = (text.get(at..f.start), text.is_char_boundary(f.end)) else {
            continue;
        };
        out.push_str(before);
        out.push_str("[REDACTED:");
        out.push_str(f.family);
        out.push(']');
        at = f.end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    out
}

/// `text` with the findings blanked by spaces, keeping its byte layout (so
/// the classifier never reads a secret's characters as cues).
pub fn mask(text: &str, findings: &[Finding]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for f in findings {
        if f.start <= f.end
            && f.end <= text.len()
            && text.is_char_boundary(f.start)
            && text.is_char_boundary(f.end)
        {
            for b in &mut bytes[f.start..f.end] {
                *b = b' ';
            }
        }
    }
    // Whole characters were replaced by ASCII, so this cannot fail; fall
    // back to the original rather than panic.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// Keep the first of overlapping findings (sorted by position).
pub(super) fn dedup(mut v: Vec<Finding>) -> Vec<Finding> {
    v.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut out: Vec<Finding> = Vec::new();
    for f in v {
        if out.iter().any(|g| f.start < g.end && g.start < f.end) {
            continue;
        }
        out.push(f);
    }
    out
}

pub(super) fn finding(
    family: &'static str,
    label: &'static str,
    hint: String,
    start: usize,
    end: usize,
) -> Finding {
    Finding {
        family,
        label,
        hint,
        start,
        end,
    }
}
