//! Stretches of time from the moment said to a moment ahead, which bound
//! whatever is asked in them: "for the next hour", "the coming two days",
//! "until Friday", "接下来一小时", "未来两天", "这两天", "到周五", "今晚之前",
//! "周五前". The moment resolved is the end of the stretch; a stretch
//! that ends before the day it was said in is no bound (`三天前` is a
//! past moment, read by `relative`).

use super::reader::{Parser, When};
use super::words::{CN_UNITS, EN_NUMBERS, EN_UNITS, EN_WEEKDAYS};
use crate::core::time::weekday;

/// Units of a stretch, English and Chinese, with `Parser::shift`'s names.
impl Parser {
    /// A stretch ahead opened by its own words at `i` ("the next hour",
    /// "until Friday", "接下来一小时", "这两天", "到周五"): (end, the moment
    /// it ends).
    pub(super) fn bound_opened(&self, i: usize) -> Option<(usize, When)> {
        let (e, w) = self.en_bound(i).or_else(|| self.cn_bound(i))?;
        self.ahead(w).then_some((e, w))
    }

    /// A moment read at `i` that closes a stretch ahead ("今晚之前", "周五
    /// 前", "明天为止"), given the moment `at` read there (or, with none, a
    /// bare weekday): (end, the moment it ends). The moment is read once:
    /// `find_all` passes what `at` found.
    pub(super) fn bound_closed(
        &self,
        i: usize,
        read: Option<(usize, When)>,
    ) -> Option<(usize, When)> {
        let (e, w) = read.or_else(|| self.cn_weekday(i))?;
        let k = self.ws(e);
        let e = ["之前", "以前", "前", "为止"]
            .iter()
            .find_map(|s| self.lit(k, s))?;
        self.ahead(w).then_some((e, w))
    }

    /// Does `w` end on or after the day it was said in?
    fn ahead(&self, w: When) -> bool {
        match w {
            When::Day(d, _) => d >= self.today,
            When::Instant(ms, _) => ms >= self.observed.epoch_ms,
            When::Week(monday) => monday + 7 > self.today,
            When::Month(y, m) => {
                (y, m) >= {
                    let (ty, tm, _) = crate::core::time::civil_from_days(self.today);
                    (ty, tm)
                }
            }
            When::Year(y) => y >= crate::core::time::civil_from_days(self.today).0,
        }
    }

    /// The next `wd` (0 = Monday) on or after today.
    fn weekday_ahead(&self, wd: i64) -> When {
        let delta = (wd - weekday(self.today) as i64).rem_euclid(7);
        When::Day(self.today + delta, None)
    }

    /// "the next hour", "the coming 2 days", "until Friday", "till tonight".
    fn en_bound(&self, i: usize) -> Option<(usize, When)> {
        if !self.ch(i).is_some_and(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        if let Some(e) = ["the next", "the coming"]
            .iter()
            .find_map(|w| self.word(i, w))
        {
            let j = self.ws(e);
            let (n, j) = self
                .digits(j, 1, 3)
                .or_else(|| {
                    EN_NUMBERS
                        .iter()
                        .find_map(|(w, n)| self.word(j, w).map(|e| (*n, e)))
                })
                .map_or((1, j), |(n, e)| (n, self.ws(e)));
            let (unit, e) = EN_UNITS
                .iter()
                .find_map(|(w, u)| self.word(j, w).map(|e| (*u, e)))?;
            return Some((e, self.shift(unit, n as i64)?));
        }
        let e = ["until", "till", "through"]
            .iter()
            .find_map(|w| self.word(i, w))?;
        let j = self.ws(e);
        if let Some((wd, e)) = EN_WEEKDAYS
            .iter()
            .find_map(|(w, d)| self.word(j, w).map(|e| (*d as i64, e)))
        {
            return Some((e, self.weekday_ahead(wd)));
        }
        let (e, w, _) = self.at(j)?;
        Some((e, w))
    }

    /// "接下来一小时", "未来两天", "这两天", "到周五", "今晚之前", "周五前".
    fn cn_bound(&self, i: usize) -> Option<(usize, When)> {
        if let Some(e) = ["接下来的", "接下来", "未来"]
            .iter()
            .find_map(|w| self.lit(i, w))
        {
            let j = self.ws(e);
            let (n, j) = if let Some(e) = self.lit(j, "半") {
                (0, e)
            } else if let Some(e) = self.lit(j, "几") {
                (3, e)
            } else {
                self.num(j)?
            };
            let j = self.lit(j, "个").unwrap_or(j);
            let (unit, e) = CN_UNITS
                .iter()
                .find_map(|(w, u)| self.lit(j, w).map(|e| (*u, e)))?;
            let w = match (n, unit) {
                (0, "h") => self.shift("min", 30)?,
                (0, _) => return None,
                _ => self.shift(unit, n as i64)?,
            };
            return Some((e, w));
        }
        for (w, n) in [("这两天", 2), ("这几天", 3)] {
            if let Some(e) = self.lit(i, w) {
                return Some((e, self.shift_days(n)));
            }
        }
        // 到周五 / 直到明天 (为止).
        let e = self.lit(i, "直到").or_else(|| self.lit(i, "到"))?;
        let j = self.ws(e);
        let (e, w) = self.cn_weekday(j).or_else(|| {
            let (e, w, _) = self.at(j)?;
            Some((e, w))
        })?;
        Some((self.lit(e, "为止").unwrap_or(e), w))
    }

    /// A bare Chinese weekday ("周五", "星期五"), the next one.
    fn cn_weekday(&self, i: usize) -> Option<(usize, When)> {
        let j = ["周", "星期", "礼拜"].iter().find_map(|w| self.lit(i, w))?;
        let wd = match self.ch(j)? {
            '一' => 0,
            '二' => 1,
            '三' => 2,
            '四' => 3,
            '五' => 4,
            '六' => 5,
            '日' | '天' => 6,
            _ => return None,
        };
        Some((j + 1, self.weekday_ahead(wd)))
    }
}
