//! The training recipe every head shares, byte for byte reproducible:
//! single-threaded, examples in file order then a fixed-seed shuffle per
//! epoch, AdaGrad on the softmax loss in f64 with a fixed order of
//! operations and an `exp` built from + − × ÷ only (no platform libm), then
//! quantisation to i8 with one scale into the weight-file layout the
//! component reads (`engram_guest::write::model::blob`).

use engram_guest::write::model::blob;

/// Training settings (chosen by cross-validation on the training part).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// The head's table size (a power of two, at most
    /// [`crate::heads::FEATURE_BUCKETS`]: a smaller table reads the low
    /// bits of the shared feature ids).
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

/// One labelled example, as features.
#[derive(Debug, Clone)]
pub struct Example {
    /// Its id (for an injection segment, its document's group): what
    /// cross-validation folds by.
    pub id: String,
    /// The data file it came from.
    pub file: String,
    /// Feature ids: `text` text n-grams first, then structural features.
    pub ids: Vec<u32>,
    pub text: usize,
    pub label: usize,
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

/// Trains and returns the weight file. Labels must be below `p.classes`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_exp_is_accurate() {
        for x in [-30.0, -2.5, -0.1, 0.0, 0.7, 3.0, 20.0] {
            let (got, want) = (exp(x), f64::exp(x));
            assert!(
                ((got - want) / want).abs() < 1e-12,
                "exp({x}) = {got}, want {want}"
            );
        }
    }
}
