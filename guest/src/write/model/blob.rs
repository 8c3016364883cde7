//! The weight file of a head: a fixed little-endian layout read in place.
//!
//! ```text
//! 0..4    magic "EGM1"
//! 4..8    buckets (u32, a power of two)
//! 8       classes (u8, 2..=MAX_CLASSES)
//! 9       flags: bit 0 = text n-grams averaged (× 1/√n)
//! 10..12  zero
//! 12..16  scale (f32 bits): one integer weight unit in logits
//! 16..    bias (i8 × classes), then weights (i8 × classes) bucket by bucket
//! ```
//!
//! Every head reads the same hashed features. A head may have fewer buckets
//! than the features were hashed into: its bucket is the feature's id masked
//! to its table (the low bits of the same hash), so a small head shares the
//! features of a large one.
//!
//! The header is checked at compile time ([`Weights::from_static`]), so a
//! malformed file fails the build rather than a call.

/// The kind head's file, compiled into the component.
const EMBEDDED: &[u8] = include_bytes!("../../../model/weights.bin");
/// Header length.
pub const HEADER: usize = 16;
pub const MAGIC: &[u8; 4] = b"EGM1";
/// The most classes a head may have.
pub const MAX_CLASSES: usize = 8;

const fn u32_at(b: &[u8], at: usize) -> u32 {
    (b[at] as u32) | (b[at + 1] as u32) << 8 | (b[at + 2] as u32) << 16 | (b[at + 3] as u32) << 24
}

/// Checks a weight file's header and length; `Err` names what is wrong.
pub const fn check(b: &[u8]) -> Result<(), &'static str> {
    if b.len() < HEADER {
        return Err("shorter than the header");
    }
    if b[0] != MAGIC[0] || b[1] != MAGIC[1] || b[2] != MAGIC[2] || b[3] != MAGIC[3] {
        return Err("bad magic");
    }
    let buckets = u32_at(b, 4) as usize;
    let classes = b[8] as usize;
    if classes < 2 || classes > MAX_CLASSES {
        return Err("class count out of range");
    }
    if !buckets.is_power_of_two() {
        return Err("bucket count is not a power of two");
    }
    if b.len() != HEADER + classes * (buckets + 1) {
        return Err("length does not match the header");
    }
    Ok(())
}

/// A view of a weight file.
#[derive(Debug, Clone, Copy)]
pub struct Weights<'a> {
    bytes: &'a [u8],
}

impl<'a> Weights<'a> {
    /// The kind head's file (checked at build time).
    pub const fn embedded() -> Weights<'static> {
        Weights::from_static(EMBEDDED)
    }

    /// A file compiled into the component (`include_bytes!`), checked when
    /// the `static` holding it is built: a malformed file fails the build.
    pub const fn from_static(bytes: &'static [u8]) -> Weights<'static> {
        assert!(
            check(bytes).is_ok(),
            "a compiled-in weight file is malformed"
        );
        Weights { bytes }
    }

    /// A view of other bytes, checked.
    pub fn parse(bytes: &'a [u8]) -> Result<Weights<'a>, &'static str> {
        check(bytes)?;
        Ok(Weights { bytes })
    }

    pub fn buckets(&self) -> u32 {
        u32_at(self.bytes, 4)
    }

    pub fn classes(&self) -> usize {
        self.bytes[8] as usize
    }

    /// Are text n-gram weights averaged (× 1/√n) rather than summed?
    pub fn averages_text(&self) -> bool {
        self.bytes[9] & 1 == 1
    }

    /// One integer weight unit, in logits.
    pub fn scale(&self) -> f64 {
        let b = self.bytes;
        f32::from_bits(u32::from_le_bytes([b[12], b[13], b[14], b[15]])) as f64
    }

    pub fn bias(&self, class: usize) -> i32 {
        if class >= self.classes() {
            return 0;
        }
        self.bytes
            .get(HEADER + class)
            .map_or(0, |&b| b as i8 as i32)
    }

    /// The weight of a hashed feature for a class (its id masked to this
    /// table; 0 for a class outside it).
    pub fn weight(&self, id: u32, class: usize) -> i32 {
        let classes = self.classes();
        if class >= classes {
            return 0;
        }
        let id = id & (self.buckets() - 1);
        let at = HEADER + classes + (id as usize) * classes + class;
        self.bytes.get(at).map_or(0, |&b| b as i8 as i32)
    }
}

/// Writes a weight file: `bias` has one entry per class, `weights` one row
/// of as many per bucket.
pub fn encode<R: AsRef<[i8]>>(
    buckets: u32,
    average_text: bool,
    scale: f32,
    bias: &[i8],
    weights: &[R],
) -> Vec<u8> {
    let classes = bias.len();
    let mut out = Vec::with_capacity(HEADER + classes * (weights.len() + 1));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&buckets.to_le_bytes());
    out.extend_from_slice(&[classes as u8, average_text as u8, 0, 0]);
    out.extend_from_slice(&scale.to_bits().to_le_bytes());
    out.extend(bias.iter().map(|&b| b as u8));
    for row in weights {
        out.extend(row.as_ref().iter().map(|&b| b as u8));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_and_parse_round_trip() {
        let rows = [[1i8, -2, 3, -4, 5]; 8];
        let bytes = encode(8, true, 0.25, &[0, 1, 2, 3, -4], &rows);
        let w = Weights::parse(&bytes).unwrap();
        assert_eq!(w.buckets(), 8);
        assert_eq!(w.classes(), 5);
        assert_eq!(w.scale(), 0.25);
        assert!(w.averages_text());
        assert_eq!(w.bias(4), -4);
        assert_eq!(w.weight(7, 3), -4);
        assert_eq!(w.weight(7, 5), 0, "no such class");
    }

    #[test]
    fn a_smaller_table_reads_the_low_bits_of_a_larger_ones_id() {
        let mut rows = vec![[0i8; 2]; 4];
        rows[3] = [7, -7];
        let bytes = encode(4, false, 1.0, &[0, 0], &rows);
        let w = Weights::parse(&bytes).unwrap();
        assert_eq!(w.classes(), 2);
        // Ids hashed into 16 buckets land in bucket id % 4 of this table.
        assert_eq!(w.weight(3, 0), 7);
        assert_eq!(w.weight(15, 1), -7);
        assert_eq!(w.weight(13, 0), 0);
    }

    #[test]
    fn malformed_files_are_refused() {
        assert!(check(b"EGM1").is_err());
        let mut bytes = encode(8, false, 1.0, &[0; 5], &[[0i8; 5]; 8]);
        bytes.pop();
        assert_eq!(check(&bytes), Err("length does not match the header"));
        bytes.push(0);
        bytes[0] = b'X';
        assert_eq!(check(&bytes), Err("bad magic"));
        let one = encode(8, false, 1.0, &[0; 1], &[[0i8; 1]; 8]);
        assert_eq!(check(&one), Err("class count out of range"));
    }
}
