//! Token counting close to real BPE tokenizers for Chinese and English.

/// Estimated tokens of a text.
pub fn count(text: &str) -> u32 {
    let mut n = 0.0f64;
    for c in text.chars() {
        n += if crate::text::is_cjk(c) {
            1.0
        } else if c.is_whitespace() {
            0.0
        } else {
            0.25
        };
    }
    n.ceil() as u32
}
