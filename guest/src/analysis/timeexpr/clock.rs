//! Clock times after a date (" 04:18", "T22:00:00Z", "下午3点", "at 3pm"),
//! with an explicit zone making the moment an exact instant.

use super::reader::{Parser, When};
use crate::core::time::MS_PER_DAY;

impl Parser {
    /// A clock time after a date: " 04:18", "T22:00:00Z", "下午3点", "at 3pm".
    /// Returns (minute of day, end, explicit offset minutes).
    pub(super) fn clock(&self, i: usize) -> Option<(i64, usize, Option<i32>)> {
        let mut j = self.ws(i);
        if self.ch(j) == Some('t') && self.ch(j + 1).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        let mut pm = None;
        for (w, after_noon) in [
            ("凌晨", false),
            ("早上", false),
            ("早晨", false),
            ("上午", false),
            ("中午", true),
            ("下午", true),
            ("傍晚", true),
            ("晚上", true),
            ("夜里", true),
            ("夜间", true),
        ] {
            if let Some(e) = self.lit(j, w) {
                pm = Some(after_noon);
                j = self.ws(e);
                break;
            }
        }
        if let Some(e) = self.word(j, "at") {
            j = self.ws(e);
        }
        let (h, e) = self.num(j)?;
        let mut j = e;
        let mut minute = 0;
        let mut zone = None;
        if self.ch(j) == Some(':') {
            let (mm, e) = self.digits(j + 1, 2, 2)?;
            minute = mm;
            j = e;
            if self.ch(j) == Some(':') {
                if let Some((_, e)) = self.digits(j + 1, 2, 2) {
                    j = e;
                    if self.ch(j) == Some('.') {
                        if let Some((_, e)) = self.digits(j + 1, 1, 9) {
                            j = e;
                        }
                    }
                }
            }
            if self.ch(j) == Some('z') && !self.ch(j + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
                zone = Some(0);
                j += 1;
            } else if let Some(sign) = self.ch(j).filter(|c| *c == '+' || *c == '-') {
                if let Some((oh, e)) = self.digits(j + 1, 2, 2) {
                    let (om, e2) = if self.ch(e) == Some(':') {
                        self.digits(e + 1, 2, 2).unwrap_or((0, e))
                    } else {
                        self.digits(e, 2, 2).unwrap_or((0, e))
                    };
                    let total = (oh * 60 + om) as i32;
                    if oh <= 14 {
                        zone = Some(if sign == '-' { -total } else { total });
                        j = e2;
                    }
                }
            }
        } else if let Some(e) = self.lit(j, "点").or_else(|| self.lit(j, "時")) {
            j = e;
            if let Some(e) = self.lit(j, "半") {
                minute = 30;
                j = e;
            } else if let Some((mm, e)) = self.num(j) {
                if let Some(e2) = self.lit(e, "分") {
                    minute = mm;
                    j = e2;
                }
            }
        } else {
            let k = self.ws(j);
            if let Some(e) = self.word(k, "am").or_else(|| self.word(k, "a.m.")) {
                pm = Some(false);
                j = e;
            } else if let Some(e) = self.word(k, "pm").or_else(|| self.word(k, "p.m.")) {
                pm = Some(true);
                j = e;
            } else {
                return None;
            }
        }
        if h > 24 || minute > 59 {
            return None;
        }
        let mut h = h as i64;
        if pm == Some(true) && h < 12 {
            h += 12;
        }
        if pm == Some(false) && h == 12 {
            h = 0;
        }
        Some((h * 60 + minute as i64, j, zone))
    }

    /// A day, followed by an optional clock time.
    pub(super) fn day_with_clock(&self, day: i64, end: usize) -> (usize, When) {
        match self.clock(end) {
            Some((minute, e, Some(zone))) => {
                let ms = day * MS_PER_DAY + minute * 60_000 - zone as i64 * 60_000;
                (e, When::Instant(ms, zone))
            }
            Some((minute, e, None)) => (e, When::Day(day, Some(minute))),
            None => (end, When::Day(day, None)),
        }
    }
}
