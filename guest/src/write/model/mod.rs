//! The learned kind-and-value decision: a multinomial logistic regression
//! over hashed text n-grams and the classifier's structural signals.
//!
//! The rule scan in `classify` computes what it always did (cues, time
//! anchors, procedure and event scores, a rule kind); `features` turns that
//! and the text into hashed feature ids, and `decide` scores the five kinds
//! with integer weights compiled into the component (`weights.bin`, built by
//! `train` from `guest/model/data/`, see `guest/model/README.md`). The kind it
//! picks is what the gates consume: `none` is the value decision ("nothing
//! worth keeping"), `working` the stability one. Hard rules stay above it:
//! injections and untrusted instructions are decided before the model is
//! asked, and secrets and personal data are gated whatever it says.
//!
//! The weights are read in place from the embedded bytes: nothing is built
//! per call (every call runs in a fresh instance).
//!
//! The kind model is one *head*; other heads (`blob`: any class count,
//! fewer buckets) score the same features for other decisions, with
//! [`rank`] and [`pushes`], and train with the same recipe (`train::Head`).

pub mod blob;
pub mod features;
pub mod injection;
pub mod sensitive;
#[cfg(feature = "train")]
pub mod train;

use crate::types::CandidateKind;
pub use features::Features;

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

/// The shipped weights.
pub static WEIGHTS: blob::Weights<'static> = blob::Weights::embedded();

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

/// A head's scores, one per class (in logits), in a fixed array.
pub type Scores = [f64; blob::MAX_CLASSES];

/// Scores every class of a head, in logits: the bias, plus the text
/// n-grams' weights (averaged, × 1/√n, when the weight file says so), plus
/// the structural features' weights. Classes past the head's count are 0.
pub fn scores(w: &blob::Weights, f: &Features) -> Scores {
    let (text, rest) = f.ids().split_at(f.text_count());
    let classes = w.classes();
    let mut s = [0f64; blob::MAX_CLASSES];
    let scale = w.scale();
    let factor = text_factor(w, f);
    for (k, sk) in s.iter_mut().enumerate().take(classes) {
        let mut t = 0i32;
        let mut r = w.bias(k);
        for &id in text {
            t += w.weight(id, k);
        }
        for &id in rest {
            r += w.weight(id, k);
        }
        *sk = (t as f64 * factor + r as f64) * scale;
    }
    s
}

/// What a text n-gram's weight is multiplied by under these weights.
fn text_factor(w: &blob::Weights, f: &Features) -> f64 {
    if w.averages_text() {
        f.text_factor()
    } else {
        1.0
    }
}

/// The features that push most towards class `towards` over `against`,
/// strongest first, with their share in logit units.
pub fn pushes(
    w: &blob::Weights,
    f: &Features,
    towards: usize,
    against: usize,
    top_n: usize,
) -> Vec<(String, f64)> {
    let (scale, n_text, factor) = (w.scale(), f.text_count(), text_factor(w, f));
    let mut out: Vec<(usize, f64)> = f
        .ids()
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let d = (w.weight(id, towards) - w.weight(id, against)) as f64 * scale;
            (i, if i < n_text { d * factor } else { d })
        })
        .filter(|(_, d)| *d > 0.0)
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.into_iter()
        .take(top_n)
        .map(|(i, d)| (f.name(i), d))
        .collect()
}

/// A head's decision: the best class, its lead over the runner-up and the
/// features behind that lead.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub best: usize,
    pub second: usize,
    pub scores: Scores,
    pub margin: f64,
    pub top: Vec<(String, f64)>,
}

/// Ranks a head's classes for these features (ties go to the earlier class).
pub fn rank(w: &blob::Weights, f: &Features, top_n: usize) -> Ranked {
    let s = scores(w, f);
    let classes = w.classes();
    let best = argmax(&s[..classes]);
    let mut second = if best == 0 { 1 } else { 0 };
    for k in 0..classes {
        if k != best && s[k] > s[second] {
            second = k;
        }
    }
    Ranked {
        best,
        second,
        scores: s,
        margin: s[best] - s[second],
        top: pushes(w, f, best, second, top_n),
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

/// The kind and sensitive-data heads in use: the compiled-in files, or —
/// in native tests only (`testing`) — a pair a retraining check swapped in
/// with `with_heads`, so a test can ask what a retrained model would decide
/// on the same pipeline.
pub fn heads() -> (blob::Weights<'static>, blob::Weights<'static>) {
    #[cfg(any(test, feature = "testing"))]
    if let Some(h) = SWAPPED.with(|s| *s.borrow()) {
        return h;
    }
    (WEIGHTS, sensitive::WEIGHTS)
}

#[cfg(any(test, feature = "testing"))]
thread_local! {
    static SWAPPED: std::cell::RefCell<Option<(blob::Weights<'static>, blob::Weights<'static>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` with other kind and sensitive-data weights (native tests only).
#[cfg(any(test, feature = "testing"))]
pub fn with_heads<R>(
    kind: blob::Weights<'static>,
    sensitive: blob::Weights<'static>,
    f: impl FnOnce() -> R,
) -> R {
    let before = SWAPPED.with(|s| s.replace(Some((kind, sensitive))));
    let out = f();
    SWAPPED.with(|s| *s.borrow_mut() = before);
    out
}

/// The first index of the highest score (ties go to the earlier class).
fn argmax(s: &[f64]) -> usize {
    let mut best = 0;
    for k in 1..s.len() {
        if s[k] > s[best] {
            best = k;
        }
    }
    best
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

    #[test]
    fn argmax_prefers_the_earlier_kind_on_ties() {
        assert_eq!(argmax(&[3.0, 3.0, 1.0, 0.0, 3.0]), 0);
        assert_eq!(argmax(&[0.0, 1.0, 5.0, 5.0, 2.0]), 2);
    }
}
