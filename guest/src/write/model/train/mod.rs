//! Training the model's heads, byte for byte reproducible: single-threaded,
//! examples in file order then a fixed-seed shuffle per epoch, f64 with a
//! fixed order of operations and an `exp` built from + − × ÷ only (no
//! platform libm), then quantisation to i8 with one scale.
//!
//! A [`Head`] names its classes, its weight file, its settings and how a
//! labelled line maps to a class; every head trains on the same features
//! ([`examples`]) with the same recipe ([`train`]). [`HEADS`] lists the
//! shipped ones.
//!
//! `cargo run --release -p engram-guest --example train_model`
//! rebuilds every head's weight file in `guest/model/`; the test
//! `model_weights` checks that each shipped file equals a fresh run.

use std::path::Path;

use super::{blob, kind_index, Features};
use crate::core::config::Policy;
use crate::types::{Candidate, CandidateKind, Datetime};

pub mod data;
pub mod injection;

/// Training settings (chosen by cross-validation on the training part).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// The head's table size (a power of two, at most [`FEATURE_BUCKETS`]:
    /// a smaller table reads the low bits of the shared feature ids).
    pub buckets: u32,
    /// How many classes the head scores.
    pub classes: usize,
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

/// The table the shared features are hashed into (the kind head's).
pub const FEATURE_BUCKETS: u32 = 1 << 14;

/// The kind head's settings.
pub const PARAMS: Params = Params {
    buckets: FEATURE_BUCKETS,
    classes: 5,
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

/// A trained head: its classes, weight file, settings and labels.
#[derive(Debug, Clone, Copy)]
pub struct Head {
    /// Its name on the command line (`train_model -- --head NAME`).
    pub name: &'static str,
    /// Its weight file in `guest/model/`.
    pub file: &'static str,
    /// Class names, in weight order.
    pub classes: &'static [&'static str],
    pub params: Params,
    /// The class of a labelled line; `None` leaves the line out.
    pub label: fn(&data::Labelled) -> Option<usize>,
}

/// The kind head: a line whose kind is not scored ("*") trains as `none`
/// when it is rejected (an injection or a raw dump with a secret: the
/// pipeline keeps nothing of it) and is left out otherwise.
pub const KIND: Head = Head {
    name: "kind",
    file: "weights.bin",
    classes: &["semantic", "episodic", "procedural", "working", "none"],
    params: PARAMS,
    label: kind_label,
};

fn kind_label(r: &data::Labelled) -> Option<usize> {
    r.kind
        .or(r.rejected.then_some(CandidateKind::None))
        .map(kind_index)
}

/// The sensitive-data head (`model::sensitive`): the class of a labelled
/// line is its `expect.sensitive` ("health" or "finance"); a line without
/// one is `none`.
pub const SENSITIVE: Head = Head {
    name: "sensitive",
    file: "sensitive.bin",
    classes: &super::sensitive::CLASSES,
    params: Params {
        buckets: FEATURE_BUCKETS,
        classes: 3,
        epochs: 15,
        rate: 0.1,
        l2: 1e-3,
        balance: 1.0,
        file_balance: 0.0,
        average_text: false,
        seed: 24,
    },
    label: sensitive_label,
};

fn sensitive_label(r: &data::Labelled) -> Option<usize> {
    let named = r.expect.get("sensitive").and_then(|v| v.as_str());
    let classes = &super::sensitive::CLASSES;
    Some(match named {
        None => 0,
        Some(s) => classes.iter().position(|c| *c == s)?,
    })
}

/// The shipped heads.
pub const HEADS: &[Head] = &[KIND, SENSITIVE];

/// A head by name.
pub fn head(name: &str) -> Option<&'static Head> {
    HEADS.iter().find(|h| h.name == name)
}

/// The features of labelled candidates, labelled for the kind head.
pub fn examples(rows: &[data::Labelled], buckets: u32, policy: &Policy) -> Vec<Example> {
    examples_for(rows, buckets, policy, KIND.label)
}

/// The features of labelled candidates, labelled by `label` (lines it
/// gives no class are left out).
pub fn examples_for(
    rows: &[data::Labelled],
    buckets: u32,
    policy: &Policy,
    label: fn(&data::Labelled) -> Option<usize>,
) -> Vec<Example> {
    rows.iter()
        .filter_map(|r| {
            let label = label(r)?;
            let f = features_of(&r.candidate, buckets, policy);
            Some(Example {
                id: r.id.clone(),
                file: r.file.clone(),
                ids: f.ids().to_vec(),
                text: f.text_count(),
                label,
            })
        })
        .collect()
}

/// The same examples relabelled for another head (features computed once).
pub fn relabel(
    rows: &[data::Labelled],
    examples: &[Example],
    label: fn(&data::Labelled) -> Option<usize>,
) -> Vec<Example> {
    let by_id: std::collections::BTreeMap<&str, &data::Labelled> =
        rows.iter().map(|r| (r.id.as_str(), r)).collect();
    examples
        .iter()
        .filter_map(|e| {
            let label = label(by_id.get(e.id.as_str())?)?;
            Some(Example { label, ..e.clone() })
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
    let (n, c) = (p.buckets as usize, p.classes);
    let mask = p.buckets - 1;
    let mut w = vec![0f64; n * c];
    let mut g2 = vec![1e-8f64; n * c];
    let mut b = vec![0f64; c];
    let mut gb2 = vec![1e-8f64; c];
    let mut counts = vec![0usize; c];
    for e in examples {
        counts[e.label] += 1;
    }
    let total = examples.len().max(1) as f64;
    let class_weight: Vec<f64> = counts
        .iter()
        .map(|&k| {
            let even = total / (c as f64 * k.max(1) as f64);
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
    let mut z = vec![0f64; c];
    let mut prob = vec![0f64; c];
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
                let row = ((id & mask) as usize) * c;
                let x = if n < e.text { factor } else { 1.0 };
                for k in 0..c {
                    z[k] += w[row + k] * x;
                }
            }
            let max = z.iter().copied().fold(f64::MIN, f64::max);
            let mut sum = 0.0;
            for k in 0..c {
                prob[k] = exp(z[k] - max);
                sum += prob[k];
            }
            let cw = weight[i];
            for k in 0..c {
                let y = if k == e.label { 1.0 } else { 0.0 };
                let g = cw * (prob[k] / sum - y);
                gb2[k] += g * g;
                b[k] -= p.rate * g / gb2[k].sqrt();
                for (n, &id) in e.ids.iter().enumerate() {
                    let at = ((id & mask) as usize) * c + k;
                    let x = if n < e.text { factor } else { 1.0 };
                    let gk = g * x + p.l2 * w[at];
                    g2[at] += gk * gk;
                    w[at] -= p.rate * gk / g2[at].sqrt();
                }
            }
        }
    }
    quantise(p.buckets, p.average_text, &b, &w)
}

/// Rounds the weights to i8 with one scale (the largest magnitude ↦ 127).
fn quantise(buckets: u32, average_text: bool, b: &[f64], w: &[f64]) -> Vec<u8> {
    let max = b.iter().chain(w).fold(0f64, |m, x| m.max(x.abs()));
    let scale = (max / 127.0).max(1e-9) as f32;
    let s = scale as f64;
    let q = |x: &f64| (x / s).round().clamp(-127.0, 127.0) as i8;
    let bias: Vec<i8> = b.iter().map(q).collect();
    let rows: Vec<Vec<i8>> = w
        .chunks(b.len())
        .map(|r| r.iter().map(q).collect())
        .collect();
    blob::encode(buckets, average_text, scale, &bias, &rows)
}

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
        let got = super::rank(&w, &f, 0).best;
        if let Some(row) = m.get_mut(e.label) {
            row[got] += 1;
        }
        ok += (got == e.label) as usize;
    }
    (ok as f64 / examples.len().max(1) as f64, m)
}

/// Splits examples into `folds` by a hash of the id (stable, stratified by
/// chance only), for cross-validation.
pub fn fold_of(id: &str, folds: u64) -> u64 {
    crate::core::model::fnv1a(id.as_bytes()) % folds
}

/// Loads the data folder, drops the test split, trains the kind head.
pub fn train_shipped(dir: &Path) -> Result<Vec<u8>, String> {
    train_head(dir, &KIND)
}

/// Loads the data folder, drops the test split, trains `head`.
pub fn train_head(dir: &Path, head: &Head) -> Result<Vec<u8>, String> {
    let (rows, _) = data::load_split(dir)?;
    let policy = Policy::default();
    let ex = examples_for(&rows, FEATURE_BUCKETS, &policy, head.label);
    Ok(train(&ex, &head.params))
}

/// The kind and sensitive-data heads trained on the data folder (test
/// split left out) plus the labelled lines of `extra` files: what a retrain
/// with a few more lines would ship (`guest/tests/retrain_stability.rs`,
/// the `retrain_check` example).
pub fn retrain_with(dir: &Path, extra: &[&Path]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let (mut rows, _) = data::load_split(dir)?;
    for f in extra {
        rows.extend(data::load_file(f)?);
    }
    let policy = Policy::default();
    let mut heads = HEADS.iter().map(|h| {
        let ex = examples_for(&rows, FEATURE_BUCKETS, &policy, h.label);
        train(&ex, &h.params)
    });
    match (heads.next(), heads.next()) {
        (Some(kind), Some(sensitive)) => Ok((kind, sensitive)),
        _ => Err("the kind and sensitive heads".into()),
    }
}

/// A kind's index, for callers outside.
pub fn label_of(k: CandidateKind) -> usize {
    kind_index(k)
}
