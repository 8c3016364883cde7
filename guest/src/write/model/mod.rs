//! The learned kind-and-value decision: a multinomial logistic regression
//! over hashed text n-grams and the classifier's structural signals.
//!
//! The rule scan in `classify` computes what it always did (cues, time
//! anchors, procedure and event scores, a rule kind); `features` turns that
//! and the text into hashed feature ids, and `decide` scores the five kinds
//! with integer weights compiled into the component (`weights.bin`, built by
//! the `engram-train` crate, `train/`, from `guest/model/data/`: see
//! `guest/model/README.md`). The kind it picks is what the gates consume:
//! `none` is the value decision ("nothing worth keeping"), `working` the
//! stability one. Hard rules stay above it:
//! injections and untrusted instructions are decided before the model is
//! asked, and secrets and personal data are gated whatever it says.
//!
//! The weights are read in place from the embedded bytes: nothing is built
//! per call (every call runs in a fresh instance).
//!
//! The kind model is one *head*; other heads (`blob`: any class count,
//! fewer buckets) score the same features for other decisions, with
//! [`rank`] and [`pushes`], and train with the same recipe (`engram-train`'s
//! `heads::Head`). This crate holds inference only: nothing here trains.

pub mod blob;
pub mod features;
pub mod heads;
pub mod injection;
pub mod score;
pub mod sensitive;

use crate::types::CandidateKind;
pub use features::Features;
#[cfg(any(test, feature = "testing"))]
pub use heads::with_heads;
pub use heads::{heads, WEIGHTS};
pub use score::{pushes, rank, scores, Ranked, Scores};

/// The classes, in weight order.
pub const KINDS: [CandidateKind; 5] = [
    CandidateKind::Semantic,
    CandidateKind::Episodic,
    CandidateKind::Procedural,
    CandidateKind::Working,
    CandidateKind::None,
];

/// Index of a kind in [`KINDS`].
pub fn kind_index(k: CandidateKind) -> usize {
    KINDS.iter().position(|x| *x == k).unwrap_or(4)
}

/// What the model decided, with the features that decided it.
#[derive(Debug, Clone)]
pub struct Decision {
    pub kind: CandidateKind,
    /// Score of the chosen kind minus the runner-up, in logit units.
    pub margin: f64,
    /// The features that pushed most towards the chosen kind over the
    /// runner-up, strongest first, with their share in logit units.
    pub top: Vec<(String, f64)>,
}

impl Decision {
    /// "char '以后' +1.9, signal task-deixis +1.2, source tool +0.7".
    pub fn describe(&self) -> String {
        self.top
            .iter()
            .map(|(name, w)| format!("{name} {w:+.1}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The kind the weights pick for these features, and why.
pub fn decide_with(w: &blob::Weights, f: &Features, top_n: usize) -> Decision {
    let r = rank(w, f, top_n);
    Decision {
        kind: KINDS.get(r.best).copied().unwrap_or(CandidateKind::None),
        margin: r.margin,
        top: r.top,
    }
}

/// The shipped model's decision.
pub fn decide(f: &Features) -> Decision {
    decide_with(&heads().0, f, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_weights_have_a_valid_header() {
        assert_eq!(WEIGHTS.classes(), 5);
        assert!(WEIGHTS.buckets().is_power_of_two());
        assert!(WEIGHTS.scale() > 0.0);
    }
}
