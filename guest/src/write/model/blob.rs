//! The weight file: a fixed little-endian layout read in place.
//!
//! ```text
//! 0..4    magic "EGM1"
//! 4..8    buckets (u32, a power of two)
//! 8       classes (u8, = 5)
//! 9       flags: bit 0 = text n-grams averaged (× 1/√n)
//! 10..12  zero
//! 12..16  scale (f32 bits): one integer weight unit in logits
//! 16..    bias (i8 × classes), then weights (i8 × classes) bucket by bucket
//! ```
//!
//! The header is checked at compile time, so a malformed file fails the
//! build rather than a call.

/// The file compiled into the component.
const EMBEDDED: &[u8] = include_bytes!("../../../model/weights.bin");
/// Header length.
pub const HEADER: usize = 16;
pub const MAGIC: &[u8; 4] = b"EGM1";

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
    if classes != 5 {
        return Err("not five classes");
    }
    if !buckets.is_power_of_two() {
        return Err("bucket count is not a power of two");
    }
    if b.len() != HEADER + classes * (buckets + 1) {
        return Err("length does not match the header");
    }
    Ok(())
}

const _: () = assert!(
    check(EMBEDDED).is_ok(),
    "guest/model/weights.bin is malformed"
);

/// A view of a weight file.
#[derive(Debug, Clone, Copy)]
pub struct Weights<'a> {
    bytes: &'a [u8],
}

impl<'a> Weights<'a> {
    /// The file compiled into the component (checked at build time).
    pub const fn embedded() -> Weights<'static> {
        Weights { bytes: EMBEDDED }
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
        self.bytes
            .get(HEADER + class)
            .map_or(0, |&b| b as i8 as i32)
    }

    /// The weight of a hashed feature for a class (0 outside the table).
    pub fn weight(&self, id: u32, class: usize) -> i32 {
        let classes = self.classes();
        let at = HEADER + classes + (id as usize) * classes + class;
        self.bytes.get(at).map_or(0, |&b| b as i8 as i32)
    }
}

/// Writes a weight file.
pub fn encode(
    buckets: u32,
    average_text: bool,
    scale: f32,
    bias: &[i8; 5],
    weights: &[[i8; 5]],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 5 * (weights.len() + 1));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&buckets.to_le_bytes());
    out.extend_from_slice(&[5, average_text as u8, 0, 0]);
    out.extend_from_slice(&scale.to_bits().to_le_bytes());
    out.extend(bias.iter().map(|&b| b as u8));
    for row in weights {
        out.extend(row.iter().map(|&b| b as u8));
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
        assert_eq!(w.scale(), 0.25);
        assert!(w.averages_text());
        assert_eq!(w.bias(4), -4);
        assert_eq!(w.weight(7, 3), -4);
        assert_eq!(w.weight(99, 0), 0, "outside the table");
    }

    #[test]
    fn malformed_files_are_refused() {
        assert!(check(b"EGM1").is_err());
        let mut bytes = encode(8, false, 1.0, &[0; 5], &[[0; 5]; 8]);
        bytes.pop();
        assert_eq!(check(&bytes), Err("length does not match the header"));
        bytes.push(0);
        bytes[0] = b'X';
        assert_eq!(check(&bytes), Err("bad magic"));
    }
}
