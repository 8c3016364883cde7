//! The sensitive-personal-data head: does the text state a person's health
//! (a condition, symptom, diagnosis, medication or dose, allergy,
//! disability, pregnancy) or their pay or debts (salary, bonus, income,
//! loans, arrears) — in ordinary words, in Chinese or English?
//!
//! A keyword list cannot follow "一碰芒果嘴就肿" or "my take-home is about
//! 4k": this head learns it from labelled lines (`expect.sensitive` in
//! `guest/model/data/`, with look-alikes such as "I take the bus", a
//! pharmacy's opening hours or a public salary band as negatives). It reads
//! the kind model's features through a smaller table, so it costs one more
//! pass over the same ids and a few kilobytes of weights. What it finds is
//! a personal-data finding like the detectors' (the sensitivity gate asks
//! for an explicit ask to remember); its top features are the finding's
//! hint, so the gate's reason says why. The checksummed-identifier and
//! keyword detectors stay as they are: this head adds to them.

use super::blob::Weights;
use super::features::Features;
use super::score::{pushes, rank};
use crate::write::detect::secrets::{Family, Finding};

/// The head's classes, in weight order.
pub const CLASSES: [&str; 3] = ["none", "health", "finance"];

/// The shipped weights (`guest/model/sensitive.bin`, built by `engram-train`).
pub use super::heads::SENSITIVE as WEIGHTS;

/// How far (in logits) a sensitive class must lead `none` to count: above
/// zero, so that a near tie stays with the text's ordinary reading.
/// (Chosen by cross-validation on the training part, `engram-train kind
/// --head sensitive --sweep`: recall 0.66 of the sensitive lines at 0.9 %
/// of ordinary lines flagged; 1.0 gave 0.72 at 1.4 %, and flagged ordinary
/// deployment facts through a shared bucket.)
pub const MARGIN: f64 = 1.5;

/// The head's finding for these features, if any: the class's family and
/// label, and the features behind it as the hint.
pub fn detect_with(w: &Weights, f: &Features, margin: f64) -> Option<Finding> {
    let r = rank(w, f, 3);
    let lead = r.scores[r.best] - r.scores[0];
    if r.best == 0 || lead < margin {
        return None;
    }
    let (family, label) = match CLASSES.get(r.best) {
        Some(&"health") => (Family::Health, "health condition, medication or allergy"),
        _ => (Family::PayOrDebt, "salary, pay or debt"),
    };
    // The lead over `none`, feature by feature (the runner-up may be the
    // other sensitive class).
    let top = pushes(w, f, r.best, 0, 3);
    let hint = top
        .iter()
        .map(|(name, d)| format!("{name} {d:+.1}"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(Finding {
        family,
        label,
        hint: format!("learned, margin {lead:.1}: {hint}"),
        // A statement, not a value: nothing to mask or redact.
        start: 0,
        end: 0,
    })
}

/// The shipped head's finding.
pub fn detect(f: &Features) -> Option<Finding> {
    detect_with(&super::heads::heads().1, f, MARGIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_weights_have_three_classes_and_share_the_kind_features() {
        assert_eq!(WEIGHTS.classes(), CLASSES.len());
        assert!(WEIGHTS.buckets() <= crate::write::model::WEIGHTS.buckets());
    }
}
