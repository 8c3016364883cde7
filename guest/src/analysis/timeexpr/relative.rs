//! Expressions relative to when they were said: days (昨天, "yesterday",
//! "two days ago"), weeks and weekdays (上周三, "last Wednesday"), months
//! and years, and durations counted back from the observation.

use super::calendar::{days_in_month, valid_date};
use super::reader::{Parser, When};
use super::words::{CN_UNITS, EN_NUMBERS, EN_UNITS, EN_WEEKDAYS};
use crate::core::time::{civil_from_days, weekday};

impl Parser {
    pub(super) fn cn_relative(&self, i: usize) -> Option<(usize, When)> {
        for (w, delta) in [
            ("大前天", -3),
            ("大后天", 3),
            ("前天", -2),
            ("昨天", -1),
            ("昨日", -1),
            ("昨晚", -1),
            ("昨夜", -1),
            ("前晚", -2),
            ("今天", 0),
            ("今日", 0),
            ("今早", 0),
            ("今晨", 0),
            ("今晚", 0),
            ("明天", 1),
            ("明日", 1),
            ("后天", 2),
        ] {
            if let Some(e) = self.lit(i, w) {
                return Some(self.day_with_clock(self.today + delta, e));
            }
        }
        for w in ["刚才", "刚刚"] {
            if let Some(e) = self.lit(i, w) {
                return Some((
                    e,
                    When::Instant(self.observed.epoch_ms, self.observed.offset_minutes),
                ));
            }
        }
        if let Some(x) = self.cn_week_month(i) {
            return Some(x);
        }
        // N 天/周/个月/年/小时/分钟 前 (or 后).
        let (n, e) = match self.lit(i, "半") {
            Some(e) => (0, e),
            None => self.num(i)?,
        };
        let half = n == 0 && self.ch(i) == Some('半');
        let mut j = self.ws(e);
        if let Some(e) = self.lit(j, "个") {
            j = self.ws(e);
        }
        let (unit, e) = CN_UNITS
            .iter()
            .find_map(|(w, u)| self.lit(j, w).map(|e| (*u, e)))?;
        let k = self.ws(e);
        let (sign, e) = if let Some(e) = self
            .lit(k, "以前")
            .or_else(|| self.lit(k, "之前"))
            .or_else(|| self.lit(k, "前"))
        {
            (-1, e)
        } else if let Some(e) = self
            .lit(k, "以后")
            .or_else(|| self.lit(k, "之后"))
            .or_else(|| self.lit(k, "后"))
        {
            (1, e)
        } else {
            return None;
        };
        let w = if half {
            match unit {
                "m" => self.shift_days(15 * sign),
                "y" => self.shift_months(6 * sign),
                _ => return None,
            }
        } else {
            self.shift(unit, n as i64 * sign)?
        };
        Some((e, w))
    }

    /// 上周三, 这周五, 下周, 上个月, 上个月 5 号, 本月.
    pub(super) fn cn_week_month(&self, i: usize) -> Option<(usize, When)> {
        let prefixes: [(&str, i64); 6] = [
            ("上上", -2),
            ("下下", 2),
            ("上", -1),
            ("下", 1),
            ("本", 0),
            ("这", 0),
        ];
        let (k, e) = prefixes
            .iter()
            .find_map(|(w, k)| self.lit(i, w).map(|e| (*k, e)))?;
        let mut j = e;
        if let Some(e) = self.lit(j, "个") {
            j = e;
        }
        if let Some(e) = self
            .lit(j, "周")
            .or_else(|| self.lit(j, "星期"))
            .or_else(|| self.lit(j, "礼拜"))
        {
            let monday = self.today - weekday(self.today) as i64 + 7 * k;
            let wd = match self.ch(e) {
                Some('一' | '1') => Some(0),
                Some('二' | '2') => Some(1),
                Some('三' | '3') => Some(2),
                Some('四' | '4') => Some(3),
                Some('五' | '5') => Some(4),
                Some('六' | '6') => Some(5),
                Some('日' | '天' | '7') => Some(6),
                _ => None,
            };
            return Some(match wd {
                Some(d) => self.day_with_clock(monday + d, e + 1),
                None => (e, When::Week(monday)),
            });
        }
        if let Some(e) = self.lit(j, "月") {
            let (y, m, _) = civil_from_days(self.today);
            let total = y * 12 + (m as i64 - 1) + k;
            let (yy, mm) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
            let s = self.ws(e);
            if let Some((d, e2)) = self.num(s) {
                if let Some(e3) = self
                    .lit(self.ws(e2), "号")
                    .or_else(|| self.lit(self.ws(e2), "日"))
                {
                    if valid_date(yy, mm, d) {
                        return Some(self.day_with_clock(Self::day_of(yy, mm, d), e3));
                    }
                }
            }
            return Some((e, When::Month(yy, mm)));
        }
        None
    }

    pub(super) fn shift_days(&self, n: i64) -> When {
        When::Day(self.today + n, None)
    }

    pub(super) fn shift_months(&self, n: i64) -> When {
        let (y, m, d) = civil_from_days(self.today);
        let total = y * 12 + (m as i64 - 1) + n;
        let (yy, mm) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
        let dd = d.min(days_in_month(yy, mm)).max(1);
        When::Day(Self::day_of(yy, mm, dd), None)
    }

    pub(super) fn shift(&self, unit: &str, n: i64) -> Option<When> {
        Some(match unit {
            "d" => self.shift_days(n),
            "w" => self.shift_days(7 * n),
            "m" => self.shift_months(n),
            "y" => self.shift_months(12 * n),
            "h" => When::Instant(
                self.observed
                    .epoch_ms
                    .checked_add(n.checked_mul(3_600_000)?)?,
                self.observed.offset_minutes,
            ),
            "min" => When::Instant(
                self.observed.epoch_ms.checked_add(n.checked_mul(60_000)?)?,
                self.observed.offset_minutes,
            ),
            _ => return None,
        })
    }

    pub(super) fn en_relative(&self, i: usize) -> Option<(usize, When)> {
        if !self.ch(i).is_some_and(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        for (w, delta) in [
            ("the day before yesterday", -2),
            ("day before yesterday", -2),
            ("the day after tomorrow", 2),
            ("yesterday", -1),
            ("last night", -1),
            ("earlier today", 0),
            ("this morning", 0),
            ("this afternoon", 0),
            ("this evening", 0),
            ("tonight", 0),
            ("today", 0),
            ("tomorrow", 1),
        ] {
            if let Some(e) = self.word(i, w) {
                return Some(self.day_with_clock(self.today + delta, e));
            }
        }
        if let Some(e) = self.word(i, "just now") {
            return Some((
                e,
                When::Instant(self.observed.epoch_ms, self.observed.offset_minutes),
            ));
        }
        // N units ago.
        let number = self
            .digits(i, 1, 3)
            .or_else(|| {
                EN_NUMBERS
                    .iter()
                    .find_map(|(w, n)| self.word(i, w).map(|e| (*n, e)))
            })
            .or_else(|| self.word(i, "a").map(|e| (1, e)));
        if let Some((n, e)) = number {
            let j = self.ws(e);
            if let Some((unit, e)) = EN_UNITS
                .iter()
                .find_map(|(w, u)| self.word(j, w).map(|e| (*u, e)))
            {
                let k = self.ws(e);
                if let Some(e) = self.word(k, "ago").or_else(|| self.word(k, "earlier")) {
                    return Some((e, self.shift(unit, -(n as i64))?));
                }
            }
        }
        // last / next / this past / this + weekday | week | month | year.
        let (dir, e) = [
            ("this past", -1),
            ("last", -1),
            ("past", -1),
            ("next", 1),
            ("this", 0),
        ]
        .into_iter()
        .find_map(|(w, d)| self.word(i, w).map(|e| (d, e)))?;
        let j = self.ws(e);
        if let Some((wd, e)) = EN_WEEKDAYS
            .iter()
            .find_map(|(w, d)| self.word(j, w).map(|e| (*d as i64, e)))
        {
            let today_wd = weekday(self.today) as i64;
            let day = if dir == 0 {
                // "this Friday": the Friday of this week.
                self.today - today_wd + wd
            } else if dir < 0 {
                let mut delta = (today_wd - wd).rem_euclid(7);
                if delta == 0 {
                    delta = 7;
                }
                self.today - delta
            } else {
                let mut delta = (wd - today_wd).rem_euclid(7);
                if delta == 0 {
                    delta = 7;
                }
                self.today + delta
            };
            return Some(self.day_with_clock(day, e));
        }
        if let Some(e) = self.word(j, "week") {
            let monday = self.today - weekday(self.today) as i64 + 7 * dir;
            return Some((e, When::Week(monday)));
        }
        if let Some(e) = self.word(j, "weekend") {
            // The Saturday of the previous (or next) week.
            let saturday = self.today - weekday(self.today) as i64 + 7 * dir + 5;
            return Some(self.day_with_clock(saturday, e));
        }
        if let Some(e) = self.word(j, "month") {
            let (y, m, _) = civil_from_days(self.today);
            let total = y * 12 + (m as i64 - 1) + dir;
            return Some((
                e,
                When::Month(total.div_euclid(12), (total.rem_euclid(12) + 1) as u32),
            ));
        }
        if let Some(e) = self.word(j, "year") {
            let (y, _, _) = civil_from_days(self.today);
            return Some((e, When::Year(y + dir)));
        }
        None
    }
}
