//! The character reader every expression parser works on: the folded text
//! as characters with their byte offsets, the moment it was said, and the
//! scanning primitives (literals, words, digits, Chinese and Arabic numbers,
//! token starts, a recurrence marker before an expression).

use super::words::SPACES;
use crate::core::time::local_day;
use crate::types::Datetime;

/// A resolved moment before conversion to a `Datetime`.
#[derive(Debug, Clone, Copy)]
pub(super) enum When {
    /// A local day, with an optional minute of the day.
    Day(i64, Option<i64>),
    /// An exact instant with its own offset.
    Instant(i64, i32),
    /// The week starting on this local Monday.
    Week(i64),
    Month(i64, u32),
    Year(i64),
}

pub(super) struct Parser {
    pub(super) c: Vec<char>,
    /// Byte offset of each char, plus the end.
    pub(super) off: Vec<usize>,
    pub(super) observed: Datetime,
    pub(super) today: i64,
}

impl Parser {
    pub(super) fn new(folded: &str, observed: Datetime) -> Self {
        let mut c = Vec::new();
        let mut off = Vec::new();
        for (i, ch) in folded.char_indices() {
            c.push(ch);
            off.push(i);
        }
        off.push(folded.len());
        Parser {
            c,
            off,
            observed,
            today: local_day(observed),
        }
    }

    pub(super) fn ch(&self, i: usize) -> Option<char> {
        self.c.get(i).copied()
    }

    /// An ASCII letter or digit may only start a match at a word start.
    pub(super) fn token_start(&self, i: usize) -> bool {
        match (self.ch(i), i.checked_sub(1).and_then(|j| self.ch(j))) {
            (Some(c), Some(p)) if c.is_ascii_alphanumeric() => !p.is_ascii_alphanumeric(),
            (Some(_), _) => true,
            (None, _) => false,
        }
    }

    pub(super) fn recurring_before(&self, i: usize) -> bool {
        let mut j = i;
        while j > 0 && self.ch(j - 1).is_some_and(|c| SPACES.contains(&c)) {
            j -= 1;
        }
        let p1 = j.checked_sub(1).and_then(|k| self.ch(k));
        let p2 = j.checked_sub(2).and_then(|k| self.ch(k));
        if p1 == Some('每') || (p2 == Some('每') && p1.is_some_and(|c| "年月周天日个".contains(c)))
        {
            return true;
        }
        let before: String = self.c[..j].iter().collect();
        ["every", "each"].iter().any(|w| {
            before.ends_with(w)
                && before[..before.len() - w.len()]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_ascii_alphabetic())
        })
    }

    pub(super) fn ws(&self, mut i: usize) -> usize {
        while self.ch(i).is_some_and(|c| SPACES.contains(&c)) {
            i += 1;
        }
        i
    }

    /// Match `s` at `i`; the end index.
    pub(super) fn lit(&self, i: usize, s: &str) -> Option<usize> {
        let mut j = i;
        for sc in s.chars() {
            if self.ch(j)? != sc {
                return None;
            }
            j += 1;
        }
        Some(j)
    }

    /// Match an English word (or phrase) at `i`, ending at a word boundary.
    pub(super) fn word(&self, i: usize, s: &str) -> Option<usize> {
        let j = self.lit(i, s)?;
        if self.ch(j).is_some_and(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        Some(j)
    }

    /// ASCII digits, between `min` and `max` of them, not followed by another.
    pub(super) fn digits(&self, i: usize, min: usize, max: usize) -> Option<(u32, usize)> {
        let mut j = i;
        let mut v: u32 = 0;
        while let Some(d) = self.ch(j).and_then(|c| c.to_digit(10)) {
            if j - i >= max {
                return None;
            }
            v = v.saturating_mul(10).saturating_add(d);
            j += 1;
        }
        (j - i >= min).then_some((v, j))
    }

    /// A small Chinese numeral (零 … 九十九, 两).
    pub(super) fn cn_num(&self, i: usize) -> Option<(u32, usize)> {
        let digit = |c: char| -> Option<u32> {
            Some(match c {
                '零' | '〇' => 0,
                '一' => 1,
                '二' | '两' => 2,
                '三' => 3,
                '四' => 4,
                '五' => 5,
                '六' => 6,
                '七' => 7,
                '八' => 8,
                '九' => 9,
                _ => return None,
            })
        };
        let mut j = i;
        let tens;
        let mut ones = 0;
        let first = self.ch(j)?;
        if first == '十' {
            tens = 1;
            j += 1;
        } else {
            let d = digit(first)?;
            j += 1;
            if self.ch(j) == Some('十') {
                tens = d;
                j += 1;
            } else {
                return Some((d, j));
            }
        }
        if let Some(d) = self.ch(j).and_then(digit) {
            ones = d;
            j += 1;
        }
        Some((tens * 10 + ones, j))
    }

    pub(super) fn num(&self, i: usize) -> Option<(u32, usize)> {
        self.digits(i, 1, 4).or_else(|| self.cn_num(i))
    }
}
