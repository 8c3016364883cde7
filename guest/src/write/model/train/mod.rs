//! Training the kind model, byte for byte reproducible: single-threaded,
//! examples in file order then a fixed-seed shuffle per epoch, f64 with a
//! fixed order of operations and an `exp` built from + − × ÷ only (no
//! platform libm), then quantisation to i8 with one scale.
//!
//! `cargo run --release -p engram-guest --features train --example train_model`
//! rebuilds `guest/model/weights.bin`; the test `model_weights` checks that
//! the shipped file equals a fresh run.

use std::path::Path;

use super::{blob, kind_index, Features, KINDS};
use crate::core::config::Policy;
use crate::types::{Candidate, CandidateKind, Datetime};

pub mod data;

/// Training settings (chosen by cross-validation on the training part).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub buckets: u32,
    pub epochs: usize,
    /// AdaGrad step size.
    pub rate: f64,
    /// L2 penalty per update.
    pub l2: f64,
    /// 0 = every example counts once; 1 = classes weighted to equal mass.
    pub balance: f64,
    /// Likewise across data files (0 = by size; 1 = equal mass per file).
    pub file_balance: f64,
    /// Average the text n-grams' weights (× 1/√n) instead of summing them.
    pub average_text: bool,
    pub seed: u64,
}

pub const PARAMS: Params = Params {
    buckets: 1 << 14,
    epochs: 15,
    rate: 0.1,
    l2: 1e-4,
    balance: 0.5,
    file_balance: 0.0,
    average_text: false,
    seed: 24,
};

/// One labelled candidate, as features.
#[derive(Debug, Clone)]
pub struct Example {
    pub id: String,
    /// The data file it came from.
    pub file: String,
    /// Feature ids: `text` text n-grams first, then structural features.
    pub ids: Vec<u32>,
    pub text: usize,
    pub label: usize,
}

/// The features of labelled candidates. A line whose kind is not scored
/// ("*") trains as `none` when it is rejected (an injection or a raw dump
/// with a secret: the pipeline keeps nothing of it) and is skipped otherwise.
pub fn examples(rows: &[data::Labelled], buckets: u32, policy: &Policy) -> Vec<Example> {
    rows.iter()
        .filter_map(|r| {
            let kind = r.kind.or(r.rejected.then_some(CandidateKind::None))?;
            let f = features_of(&r.candidate, buckets, policy);
            Some(Example {
                id: r.id.clone(),
                file: r.file.clone(),
                ids: f.ids().to_vec(),
                text: f.text_count(),
                label: kind_index(kind),
            })
        })
        .collect()
}

/// The clock a labelled candidate is classified at: its own `observed_at`
/// (the epoch when it has none).
pub fn clock_of(c: &Candidate) -> Datetime {
    c.observed_at.unwrap_or(Datetime {
        epoch_ms: 0,
        offset_minutes: 0,
    })
}

/// The features the classifier would compute for a candidate.
pub fn features_of(c: &Candidate, buckets: u32, policy: &Policy) -> Features {
    crate::write::classify::model_features(c, clock_of(c), policy, buckets)
}

/// `e^x` from + − × ÷: range reduction by ln 2 and a Taylor polynomial.
pub fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    const LN2_HI: f64 = 0.693_147_180_369_123_8;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    let k = (x / std::f64::consts::LN_2).round();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = 1.0;
    for n in (1..=13).rev() {
        p = 1.0 + p * r / n as f64;
    }
    // 2^k by building the exponent bits (k is within the normal range).
    let bits = ((k as i64 + 1023) as u64) << 52;
    p * f64::from_bits(bits)
}

/// A 64-bit LCG (Knuth's MMIX constants): the shuffle's only randomness.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }
}

/// Trains and returns the weight file of the kind model (five classes).
pub fn train(examples: &[Example], p: &Params) -> Vec<u8> {
    train_head(examples, p, 5)
}

/// Trains a head of `classes` outputs and returns its weight file. Two or
/// more classes: a softmax over them, `label` the class index. One: a
/// single logit (binary logistic regression), `label` 1 for a positive and
/// 0 for a negative. Both share the features, the shuffle, the balancing
/// and the quantisation.
pub fn train_head(examples: &[Example], p: &Params, classes: usize) -> Vec<u8> {
    let k_out = classes.max(1);
    // Labels to balance over: a binary head has two.
    let labels = k_out.max(2);
    let n = p.buckets as usize;
    let mut w = vec![vec![0f64; k_out]; n];
    let mut g2 = vec![vec![1e-8f64; k_out]; n];
    let mut b = vec![0f64; k_out];
    let mut gb2 = vec![1e-8f64; k_out];
    let mut counts = vec![0usize; labels];
    for e in examples {
        counts[e.label.min(labels - 1)] += 1;
    }
    let total = examples.len().max(1) as f64;
    let class_weight: Vec<f64> = counts
        .iter()
        .map(|&c| {
            let even = total / (labels as f64 * c.max(1) as f64);
            1.0 + p.balance * (even - 1.0)
        })
        .collect();
    let mut per_file: std::collections::BTreeMap<&str, usize> = Default::default();
    for e in examples {
        *per_file.entry(e.file.as_str()).or_default() += 1;
    }
    let files = per_file.len().max(1) as f64;
    let weight: Vec<f64> = examples
        .iter()
        .map(|e| {
            let even = total / (files * per_file[e.file.as_str()] as f64);
            class_weight[e.label.min(labels - 1)] * (1.0 + p.file_balance * (even - 1.0))
        })
        .collect();
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = Lcg(p.seed);
    let mut z = vec![0f64; k_out];
    let mut prob = vec![0f64; k_out];
    for _ in 0..p.epochs {
        for i in (1..order.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &i in &order {
            let e = &examples[i];
            // Text n-grams count 1/√n each (as in `model::scores`).
            let factor = if p.average_text {
                1.0 / (e.text.max(1) as f64).sqrt()
            } else {
                1.0
            };
            z.copy_from_slice(&b);
            for (n, &id) in e.ids.iter().enumerate() {
                let row = &w[id as usize];
                let x = if n < e.text { factor } else { 1.0 };
                for k in 0..k_out {
                    z[k] += row[k] * x;
                }
            }
            if k_out == 1 {
                // σ(z), from the same deterministic exp.
                prob[0] = if z[0] >= 0.0 {
                    1.0 / (1.0 + exp(-z[0]))
                } else {
                    let t = exp(z[0]);
                    t / (1.0 + t)
                };
            } else {
                let max = z.iter().copied().fold(f64::MIN, f64::max);
                let mut sum = 0.0;
                for k in 0..k_out {
                    prob[k] = exp(z[k] - max);
                    sum += prob[k];
                }
                for x in prob.iter_mut() {
                    *x /= sum;
                }
            }
            let cw = weight[i];
            for k in 0..k_out {
                let y = if k_out == 1 {
                    (e.label == 1) as u8 as f64
                } else if k == e.label {
                    1.0
                } else {
                    0.0
                };
                let g = cw * (prob[k] - y);
                gb2[k] += g * g;
                b[k] -= p.rate * g / gb2[k].sqrt();
                for (n, &id) in e.ids.iter().enumerate() {
                    let id = id as usize;
                    let x = if n < e.text { factor } else { 1.0 };
                    let gk = g * x + p.l2 * w[id][k];
                    g2[id][k] += gk * gk;
                    w[id][k] -= p.rate * gk / g2[id][k].sqrt();
                }
            }
        }
    }
    quantise(p.buckets, p.average_text, &b, &w)
}

/// Rounds the weights to i8 with one scale (the largest magnitude ↦ 127).
fn quantise(buckets: u32, average_text: bool, b: &[f64], w: &[Vec<f64>]) -> Vec<u8> {
    let mut max = b.iter().fold(0f64, |m, x| m.max(x.abs()));
    for row in w {
        for x in row {
            max = max.max(x.abs());
        }
    }
    let scale = (max / 127.0).max(1e-9) as f32;
    let s = scale as f64;
    let q = |x: f64| (x / s).round().clamp(-127.0, 127.0) as i8;
    let bias: Vec<i8> = b.iter().map(|&x| q(x)).collect();
    let rows: Vec<Vec<i8>> = w
        .iter()
        .map(|r| r.iter().map(|&x| q(x)).collect())
        .collect();
    let refs: Vec<&[i8]> = rows.iter().map(Vec::as_slice).collect();
    blob::encode_rows(buckets, average_text, scale, &bias, &refs)
}

/// Accuracy of a weight file on examples, and its confusion matrix
/// (`[expected][predicted]`, in `KINDS` order).
pub fn evaluate(bytes: &[u8], examples: &[Example]) -> (f64, [[usize; 5]; 5]) {
    let w = match blob::Weights::parse(bytes) {
        Ok(w) => w,
        Err(_) => return (0.0, [[0; 5]; 5]),
    };
    let mut m = [[0usize; 5]; 5];
    let mut ok = 0;
    for e in examples {
        let f = Features::from_ids(e.ids.clone(), e.text);
        let got = kind_index(super::decide_with(&w, &f, 0).kind);
        m[e.label][got] += 1;
        ok += (got == e.label) as usize;
    }
    (ok as f64 / examples.len().max(1) as f64, m)
}

/// Splits examples into `folds` by a hash of the id (stable, stratified by
/// chance only), for cross-validation.
pub fn fold_of(id: &str, folds: u64) -> u64 {
    crate::core::model::fnv1a(id.as_bytes()) % folds
}

/// The kind names in weight order.
pub fn kind_names() -> [&'static str; 5] {
    KINDS.map(crate::core::model::candidate_kind_name)
}

/// Loads the data folder, drops the test split, trains with [`PARAMS`].
pub fn train_shipped(dir: &Path) -> Result<Vec<u8>, String> {
    let (rows, _) = data::load_split(dir)?;
    let policy = Policy::default();
    let ex = examples(&rows, PARAMS.buckets, &policy);
    Ok(train(&ex, &PARAMS))
}

/// A kind's index, for callers outside.
pub fn label_of(k: CandidateKind) -> usize {
    kind_index(k)
}
