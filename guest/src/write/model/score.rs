//! How a head scores features: every class's logit (`scores`), the
//! features behind a lead (`pushes`), the best class and its margin
//! (`rank`). Shared by every head (kind, sensitive data).

use crate::write::model::blob;
use crate::write::model::features::Features;

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
    fn argmax_prefers_the_earlier_kind_on_ties() {
        assert_eq!(argmax(&[3.0, 3.0, 1.0, 0.0, 3.0]), 0);
        assert_eq!(argmax(&[0.0, 1.0, 5.0, 5.0, 2.0]), 2);
    }
}
