//! Measuring a head on labelled examples: accuracy and confusion, and the
//! folds of cross-validation (by a hash of the example's id, so a fold is
//! the same on every run).

use engram_guest::core::model::fnv1a;
use engram_guest::write::model::{blob, rank, Features, Ranked};

use crate::recipe::{train, Example, Params};

/// Accuracy of a weight file on examples, and its confusion matrix
/// (`[expected][predicted]`, in class order).
pub fn evaluate(bytes: &[u8], examples: &[Example]) -> (f64, Vec<Vec<usize>>) {
    let Ok(w) = blob::Weights::parse(bytes) else {
        return (0.0, Vec::new());
    };
    let c = w.classes();
    let mut m = vec![vec![0usize; c]; c];
    let mut ok = 0;
    for e in examples {
        let f = Features::from_ids(e.ids.clone(), e.text);
        let got = rank(&w, &f, 0).best;
        if let Some(cell) = m.get_mut(e.label).and_then(|row| row.get_mut(got)) {
            *cell += 1;
        }
        ok += (got == e.label) as usize;
    }
    (ok as f64 / examples.len().max(1) as f64, m)
}

/// The fold of an example id among `folds` (stable, stratified by chance
/// only).
pub fn fold_of(id: &str, folds: u64) -> u64 {
    fnv1a(id.as_bytes()) % folds.max(1)
}

/// `folds`-fold cross-validation: accuracy and the summed confusion matrix.
pub fn cv(ex: &[Example], p: &Params, folds: u64) -> (f64, Vec<Vec<usize>>) {
    let c = p.classes;
    let mut total = vec![vec![0usize; c]; c];
    for k in 0..folds {
        let (test, fit): (Vec<Example>, Vec<Example>) =
            ex.iter().cloned().partition(|e| fold_of(&e.id, folds) == k);
        let (_, m) = evaluate(&train(&fit, p), &test);
        for (t, r) in total.iter_mut().zip(&m) {
            for (a, b) in t.iter_mut().zip(r) {
                *a += b;
            }
        }
    }
    let ok: usize = (0..c).map(|i| total[i][i]).sum();
    let all: usize = total.iter().flatten().sum();
    (ok as f64 / all.max(1) as f64, total)
}

/// Every example ranked by the head trained on the other four of five folds.
pub fn cv_ranks(ex: &[Example], p: &Params) -> Vec<(Example, Ranked)> {
    let mut out = Vec::new();
    for k in 0..5 {
        let (held, fit): (Vec<Example>, Vec<Example>) =
            ex.iter().cloned().partition(|e| fold_of(&e.id, 5) == k);
        let bytes = train(&fit, p);
        let Ok(w) = blob::Weights::parse(&bytes) else {
            continue;
        };
        for e in held {
            let f = Features::from_ids(e.ids.clone(), e.text);
            let r = rank(&w, &f, 0);
            out.push((e, r));
        }
    }
    out
}
