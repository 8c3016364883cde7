//! Absolute dates: ISO dates, Chinese calendar dates (年/月/日, 今年/去年…),
//! English ones ("Nov 2", "2 November 2025"), festivals with fixed dates, and the year a date without one is taken
//! in (the latest not more than a week ahead).

use super::reader::{Parser, When};
use super::words::{EN_MONTHS, FESTIVALS};
use crate::core::time::{civil_from_days, days_from_civil};

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

pub(super) fn valid_date(y: i64, m: u32, d: u32) -> bool {
    (1900..=2200).contains(&y) && (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

impl Parser {
    pub(super) fn day_of(y: i64, m: u32, d: u32) -> i64 {
        days_from_civil(y, m, d)
    }

    /// The latest (y, m, d) not more than a week after today, year unknown.
    pub(super) fn closest_past_day(&self, m: u32, d: u32) -> Option<i64> {
        let (y, _, _) = civil_from_days(self.today);
        [y + 1, y, y - 1, y - 2]
            .into_iter()
            .filter(|&yy| valid_date(yy, m, d))
            .map(|yy| Self::day_of(yy, m, d))
            .find(|&day| day <= self.today + 7)
    }

    pub(super) fn closest_past_month(&self, m: u32) -> (i64, u32) {
        let (y, om, _) = civil_from_days(self.today);
        if m <= om {
            (y, m)
        } else {
            (y - 1, m)
        }
    }

    /// 2026-03-31, 2026/3/31, 2026.03.31, with an optional time and zone.
    pub(super) fn iso(&self, i: usize) -> Option<(usize, When)> {
        let (y, e) = self.digits(i, 4, 4)?;
        let sep = self.ch(e).filter(|c| matches!(c, '-' | '/' | '.'))?;
        let (m, e) = self.digits(e + 1, 1, 2)?;
        if self.ch(e) != Some(sep) {
            return None;
        }
        let (d, e) = self.digits(e + 1, 1, 2)?;
        if !valid_date(y as i64, m, d) {
            return None;
        }
        let day = Self::day_of(y as i64, m, d);
        Some(self.day_with_clock(day, e))
    }

    /// 2026年3月31日, 今年/去年 3 月 5 日, 4 月 2 日, 1 月.
    pub(super) fn cn_calendar(&self, i: usize) -> Option<(usize, When)> {
        let (y, mut j) = if let Some((y, e)) = self.digits(i, 4, 4) {
            let e = self.lit(self.ws(e), "年")?;
            (Some(y as i64), self.ws(e))
        } else {
            let (today_y, _, _) = civil_from_days(self.today);
            let rel = [("今年", 0), ("去年", -1), ("前年", -2), ("明年", 1)]
                .into_iter()
                .find_map(|(w, dy)| self.lit(i, w).map(|e| (today_y + dy, e)));
            match rel {
                Some((yy, e)) => {
                    let k = self.ws(e);
                    if self.month_day(k).is_none() {
                        return Some((e, When::Year(yy)));
                    }
                    (Some(yy), k)
                }
                None => (None, i),
            }
        };
        let (m, d, e) = self.month_day(j)?;
        j = e;
        match (y, d) {
            (Some(y), Some(d)) => {
                if !valid_date(y, m, d) {
                    return None;
                }
                Some(self.day_with_clock(Self::day_of(y, m, d), j))
            }
            (Some(y), None) => Some((j, When::Month(y, m))),
            (None, Some(d)) => {
                let day = self.closest_past_day(m, d)?;
                Some(self.day_with_clock(day, j))
            }
            (None, None) => {
                let (yy, mm) = self.closest_past_month(m);
                Some((j, When::Month(yy, mm)))
            }
        }
    }

    /// "M月" with an optional "D日/号": (month, day, end).
    pub(super) fn month_day(&self, i: usize) -> Option<(u32, Option<u32>, usize)> {
        // Fixed-date festivals ("去年双十一", "Christmas").
        for (w, m, d) in FESTIVALS {
            let e = if w.is_ascii() {
                self.word(i, w)
            } else {
                self.lit(i, w)
            };
            if let Some(e) = e {
                return Some((m, Some(d), e));
            }
        }
        let (m, e) = self.num(i)?;
        if !(1..=12).contains(&m) {
            return None;
        }
        let e = self.lit(self.ws(e), "月")?;
        // "3 月份", "1 月底" are months; "3个月" never reaches here.
        let k = self.ws(e);
        if let Some((d, e2)) = self.num(k) {
            if let Some(e3) = self
                .lit(self.ws(e2), "日")
                .or_else(|| self.lit(self.ws(e2), "号"))
            {
                if (1..=31).contains(&d) {
                    return Some((m, Some(d), e3));
                }
            }
        }
        let e = self.lit(e, "份").unwrap_or(e);
        Some((m, None, e))
    }

    pub(super) fn en_month(&self, i: usize) -> Option<(u32, usize)> {
        EN_MONTHS.iter().find_map(|(w, m)| {
            let e = self.word(i, w)?;
            let e = if self.ch(e) == Some('.') { e + 1 } else { e };
            Some((*m, e))
        })
    }

    /// An English day of the month: "2", "2nd", "21st".
    pub(super) fn en_day(&self, i: usize) -> Option<(u32, usize)> {
        let (d, e) = self.digits(i, 1, 2)?;
        let e = ["st", "nd", "rd", "th"]
            .iter()
            .find_map(|s| self.word(e, s))
            .unwrap_or(e);
        if self.ch(e).is_some_and(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        (1..=31).contains(&d).then_some((d, e))
    }

    /// ", 2026" or " 2026" after a date.
    pub(super) fn en_year(&self, i: usize) -> Option<(i64, usize)> {
        let mut j = i;
        if self.ch(j) == Some(',') {
            j += 1;
        }
        j = self.ws(j);
        let (y, e) = self.digits(j, 4, 4)?;
        (1900..=2200).contains(&(y as i64)).then_some((y as i64, e))
    }

    /// "Nov 2", "November 2nd, 2025", "2 November 2025", "in March",
    /// "March 2026".
    pub(super) fn en_calendar(&self, i: usize) -> Option<(usize, When)> {
        let finish = |m: u32, d: u32, e: usize| -> Option<(usize, When)> {
            match self.en_year(e) {
                Some((y, e2)) if valid_date(y, m, d) => {
                    Some(self.day_with_clock(Self::day_of(y, m, d), e2))
                }
                Some(_) => None,
                None => Some(self.day_with_clock(self.closest_past_day(m, d)?, e)),
            }
        };
        if let Some((m, e)) = self.en_month(i) {
            let j = self.ws(e);
            if let Some((d, e2)) = self.en_day(j) {
                return finish(m, d, e2);
            }
            if let Some((y, e2)) = self.en_year(e) {
                return Some((e2, When::Month(y, m)));
            }
            return None;
        }
        let lead = ["during the", "during", "in", "since", "the"]
            .iter()
            .find_map(|w| self.word(i, w));
        if let Some(e) = lead {
            let (m, e) = self.en_month(self.ws(e))?;
            if let Some((y, e2)) = self.en_year(e) {
                return Some((e2, When::Month(y, m)));
            }
            let (y, m) = self.closest_past_month(m);
            return Some((e, When::Month(y, m)));
        }
        let (d, e) = self.en_day(i)?;
        let mut j = self.ws(e);
        if let Some(e) = self.word(j, "of") {
            j = self.ws(e);
        }
        let (m, e) = self.en_month(j)?;
        finish(m, d, e)
    }
}
