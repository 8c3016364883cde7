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

/// Trains and returns the weight file.
pub fn train(examples: &[Example], p: &Params) -> Vec<u8> {
    let n = p.buckets as usize;
    let mut w = vec![[0f64; 5]; n];
    let mut g2 = vec![[1e-8f64; 5]; n];
    let mut b = [0f64; 5];
    let mut gb2 = [1e-8f64; 5];
    let mut counts = [0usize; 5];
    for e in examples {
        counts[e.label] += 1;
    }
    let total = examples.len().max(1) as f64;
    let class_weight: Vec<f64> = counts
        .iter()
        .map(|&c| {
            let even = total / (5.0 * c.max(1) as f64);
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
            class_weight[e.label] * (1.0 + p.file_balance * (even - 1.0))
        })
        .collect();
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = Lcg(p.seed);
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
            let mut z = b;
            for (n, &id) in e.ids.iter().enumerate() {
                let row = &w[id as usize];
                let x = if n < e.text { factor } else { 1.0 };
                for k in 0..5 {
                    z[k] += row[k] * x;
                }
            }
            let max = z.iter().copied().fold(f64::MIN, f64::max);
            let mut prob = [0f64; 5];
            let mut sum = 0.0;
            for k in 0..5 {
                prob[k] = exp(z[k] - max);
                sum += prob[k];
            }
            let cw = weight[i];
            for k in 0..5 {
                let y = if k == e.label { 1.0 } else { 0.0 };
                let g = cw * (prob[k] / sum - y);
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
fn quantise(buckets: u32, average_text: bool, b: &[f64; 5], w: &[[f64; 5]]) -> Vec<u8> {
    let mut max = b.iter().fold(0f64, |m, x| m.max(x.abs()));
    for row in w {
        for x in row {
            max = max.max(x.abs());
        }
    }
    let scale = (max / 127.0).max(1e-9) as f32;
    let s = scale as f64;
    let q = |x: f64| (x / s).round().clamp(-127.0, 127.0) as i8;
    let bias = [q(b[0]), q(b[1]), q(b[2]), q(b[3]), q(b[4])];
    let rows: Vec<[i8; 5]> = w
        .iter()
        .map(|r| [q(r[0]), q(r[1]), q(r[2]), q(r[3]), q(r[4])])
        .collect();
    blob::encode(buckets, average_text, scale, &bias, &rows)
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
