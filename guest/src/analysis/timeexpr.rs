//! Resolution of time expressions ("昨天", "上周三", "last Wednesday", "two
//! days ago", "2026-03-31 04:18", "1 月") against the moment they were said,
//! in the speaker's UTC offset: "yesterday" is the day before the speaker's
//! local date, not the day before in UTC.
//!
//! Conventions (documented because the words are ambiguous):
//! - `上周三` is Wednesday of the previous calendar week (weeks start on
//!   Monday); `本周三`/`这周三` of this week; `下周三` of the next.
//! - `last Wednesday` is the most recent Wednesday strictly before the day it
//!   was said; `next Wednesday` the first one strictly after.
//! - A date without a year ("4 月 2 日", "Nov 2") and a bare month ("1 月")
//!   are taken as the latest such date not more than a week after the
//!   observation: episodes lie in the past.
//! - Day-level expressions resolve to the local midnight that starts the day
//!   (with the clock time when one is given); week, month and year
//!   expressions to their first day; "N hours ago" to the exact instant.

use crate::analysis::cues::fold;
use crate::core::time::{civil_from_days, days_from_civil, local_day, weekday, MS_PER_DAY};
use crate::types::Datetime;

/// How precise a resolved time is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    Instant,
    Day,
    Week,
    Month,
    Year,
}

/// A resolved time expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub at: Datetime,
    /// The words it was resolved from, as written.
    pub expression: String,
    pub precision: Precision,
    /// Byte range of the expression in the text.
    pub start: usize,
    pub end: usize,
    /// Relative to when it was said ("昨天"), not a calendar date.
    pub relative: bool,
    /// Preceded by a recurrence marker ("每周三", "every Monday"): a
    /// schedule, not one moment.
    pub recurring: bool,
}

impl Resolved {
    /// Before the local day it was said in.
    pub fn is_past(&self, observed: Datetime) -> bool {
        local_day(self.at) < local_day(observed)
            || (self.precision == Precision::Instant && self.at.epoch_ms < observed.epoch_ms)
    }

    /// After the local day it was said in (a plan, not an episode).
    pub fn is_future(&self, observed: Datetime) -> bool {
        local_day(self.at) > local_day(observed)
    }
}

/// The first non-recurring time expression in `text`, resolved.
pub fn resolve(text: &str, observed: Datetime) -> Option<Resolved> {
    find_all(text, observed).into_iter().find(|r| !r.recurring)
}

/// Every time expression in `text`, in order, resolved.
pub fn find_all(text: &str, observed: Datetime) -> Vec<Resolved> {
    let folded = fold(text);
    let p = Parser::new(&folded, observed);
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.c.len() {
        if !p.token_start(i) {
            i += 1;
            continue;
        }
        match p.at(i) {
            Some((end, when, relative)) if end > i => {
                let (start_b, end_b) = (p.off[i], p.off[end]);
                let (at, precision) = p.to_datetime(when);
                out.push(Resolved {
                    at,
                    expression: text.get(start_b..end_b).unwrap_or("").trim().to_string(),
                    precision,
                    start: start_b,
                    end: end_b,
                    relative,
                    recurring: p.recurring_before(i),
                });
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// A resolved moment before conversion to a `Datetime`.
#[derive(Debug, Clone, Copy)]
enum When {
    /// A local day, with an optional minute of the day.
    Day(i64, Option<i64>),
    /// An exact instant with its own offset.
    Instant(i64, i32),
    /// The week starting on this local Monday.
    Week(i64),
    Month(i64, u32),
    Year(i64),
}

struct Parser {
    c: Vec<char>,
    /// Byte offset of each char, plus the end.
    off: Vec<usize>,
    observed: Datetime,
    today: i64,
}

const SPACES: [char; 3] = [' ', '\t', '\u{3000}'];

const EN_MONTHS: [(&str, u32); 24] = [
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sept", 9),
    ("sep", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];

const EN_WEEKDAYS: [(&str, u32); 14] = [
    ("monday", 0),
    ("tuesday", 1),
    ("wednesday", 2),
    ("thursday", 3),
    ("friday", 4),
    ("saturday", 5),
    ("sunday", 6),
    ("mon", 0),
    ("tue", 1),
    ("wed", 2),
    ("thu", 3),
    ("fri", 4),
    ("sat", 5),
    ("sun", 6),
];

const EN_NUMBERS: [(&str, u32); 16] = [
    ("a couple of", 2),
    ("couple of", 2),
    ("a few", 3),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("an", 1),
];

/// Festivals on a fixed calendar day: (name, month, day).
const FESTIVALS: [(&str, u32, u32); 11] = [
    ("双十一", 11, 11),
    ("双十二", 12, 12),
    ("元旦", 1, 1),
    ("国庆", 10, 1),
    ("圣诞", 12, 25),
    ("情人节", 2, 14),
    ("christmas eve", 12, 24),
    ("christmas", 12, 25),
    ("new year's day", 1, 1),
    ("valentine's day", 2, 14),
    ("halloween", 10, 31),
];

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

fn valid_date(y: i64, m: u32, d: u32) -> bool {
    (1900..=2200).contains(&y) && (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

impl Parser {
    fn new(folded: &str, observed: Datetime) -> Self {
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

    fn ch(&self, i: usize) -> Option<char> {
        self.c.get(i).copied()
    }

    /// An ASCII letter or digit may only start a match at a word start.
    fn token_start(&self, i: usize) -> bool {
        match (self.ch(i), i.checked_sub(1).and_then(|j| self.ch(j))) {
            (Some(c), Some(p)) if c.is_ascii_alphanumeric() => !p.is_ascii_alphanumeric(),
            (Some(_), _) => true,
            (None, _) => false,
        }
    }

    fn recurring_before(&self, i: usize) -> bool {
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

    fn ws(&self, mut i: usize) -> usize {
        while self.ch(i).is_some_and(|c| SPACES.contains(&c)) {
            i += 1;
        }
        i
    }

    /// Match `s` at `i`; the end index.
    fn lit(&self, i: usize, s: &str) -> Option<usize> {
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
    fn word(&self, i: usize, s: &str) -> Option<usize> {
        let j = self.lit(i, s)?;
        if self.ch(j).is_some_and(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        Some(j)
    }

    /// ASCII digits, between `min` and `max` of them, not followed by another.
    fn digits(&self, i: usize, min: usize, max: usize) -> Option<(u32, usize)> {
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
    fn cn_num(&self, i: usize) -> Option<(u32, usize)> {
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

    fn num(&self, i: usize) -> Option<(u32, usize)> {
        self.digits(i, 1, 4).or_else(|| self.cn_num(i))
    }

    fn day_of(y: i64, m: u32, d: u32) -> i64 {
        days_from_civil(y, m, d)
    }

    /// The latest (y, m, d) not more than a week after today, year unknown.
    fn closest_past_day(&self, m: u32, d: u32) -> Option<i64> {
        let (y, _, _) = civil_from_days(self.today);
        [y + 1, y, y - 1, y - 2]
            .into_iter()
            .filter(|&yy| valid_date(yy, m, d))
            .map(|yy| Self::day_of(yy, m, d))
            .find(|&day| day <= self.today + 7)
    }

    fn closest_past_month(&self, m: u32) -> (i64, u32) {
        let (y, om, _) = civil_from_days(self.today);
        if m <= om {
            (y, m)
        } else {
            (y - 1, m)
        }
    }

    /// A clock time after a date: " 04:18", "T22:00:00Z", "下午3点", "at 3pm".
    /// Returns (minute of day, end, explicit offset minutes).
    fn clock(&self, i: usize) -> Option<(i64, usize, Option<i32>)> {
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
    fn day_with_clock(&self, day: i64, end: usize) -> (usize, When) {
        match self.clock(end) {
            Some((minute, e, Some(zone))) => {
                let ms = day * MS_PER_DAY + minute * 60_000 - zone as i64 * 60_000;
                (e, When::Instant(ms, zone))
            }
            Some((minute, e, None)) => (e, When::Day(day, Some(minute))),
            None => (end, When::Day(day, None)),
        }
    }

    /// Try every expression at `i`: (end, moment, relative).
    fn at(&self, i: usize) -> Option<(usize, When, bool)> {
        if let Some((e, w)) = self.iso(i) {
            return Some((e, w, false));
        }
        if let Some((e, w)) = self.cn_calendar(i) {
            return Some((e, w, false));
        }
        if let Some((e, w)) = self.cn_relative(i) {
            return Some((e, w, true));
        }
        if let Some((e, w)) = self.en_relative(i) {
            return Some((e, w, true));
        }
        if let Some((e, w)) = self.en_calendar(i) {
            return Some((e, w, false));
        }
        None
    }

    /// 2026-03-31, 2026/3/31, 2026.03.31, with an optional time and zone.
    fn iso(&self, i: usize) -> Option<(usize, When)> {
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
    fn cn_calendar(&self, i: usize) -> Option<(usize, When)> {
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
    fn month_day(&self, i: usize) -> Option<(u32, Option<u32>, usize)> {
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

    fn cn_relative(&self, i: usize) -> Option<(usize, When)> {
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
        let units: [(&str, &str); 10] = [
            ("天", "d"),
            ("日", "d"),
            ("周", "w"),
            ("星期", "w"),
            ("礼拜", "w"),
            ("月", "m"),
            ("年", "y"),
            ("小时", "h"),
            ("钟头", "h"),
            ("分钟", "min"),
        ];
        let (unit, e) = units
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
    fn cn_week_month(&self, i: usize) -> Option<(usize, When)> {
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

    fn shift_days(&self, n: i64) -> When {
        When::Day(self.today + n, None)
    }

    fn shift_months(&self, n: i64) -> When {
        let (y, m, d) = civil_from_days(self.today);
        let total = y * 12 + (m as i64 - 1) + n;
        let (yy, mm) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
        let dd = d.min(days_in_month(yy, mm)).max(1);
        When::Day(Self::day_of(yy, mm, dd), None)
    }

    fn shift(&self, unit: &str, n: i64) -> Option<When> {
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

    fn en_relative(&self, i: usize) -> Option<(usize, When)> {
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
            let units = [
                ("minutes", "min"),
                ("minute", "min"),
                ("mins", "min"),
                ("hours", "h"),
                ("hour", "h"),
                ("hrs", "h"),
                ("days", "d"),
                ("day", "d"),
                ("weeks", "w"),
                ("week", "w"),
                ("months", "m"),
                ("month", "m"),
                ("years", "y"),
                ("year", "y"),
            ];
            if let Some((unit, e)) = units
                .iter()
                .find_map(|(w, u)| self.word(j, w).map(|e| (*u, e)))
            {
                let k = self.ws(e);
                if let Some(e) = self.word(k, "ago").or_else(|| self.word(k, "earlier")) {
                    return Some((e, self.shift(unit, -(n as i64))?));
                }
            }
        }
        // last / next / this past + weekday | week | month | year.
        let (dir, e) = [("this past", -1), ("last", -1), ("past", -1), ("next", 1)]
            .into_iter()
            .find_map(|(w, d)| self.word(i, w).map(|e| (d, e)))?;
        let j = self.ws(e);
        if let Some((wd, e)) = EN_WEEKDAYS
            .iter()
            .find_map(|(w, d)| self.word(j, w).map(|e| (*d as i64, e)))
        {
            let today_wd = weekday(self.today) as i64;
            let day = if dir < 0 {
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

    fn en_month(&self, i: usize) -> Option<(u32, usize)> {
        EN_MONTHS.iter().find_map(|(w, m)| {
            let e = self.word(i, w)?;
            let e = if self.ch(e) == Some('.') { e + 1 } else { e };
            Some((*m, e))
        })
    }

    /// An English day of the month: "2", "2nd", "21st".
    fn en_day(&self, i: usize) -> Option<(u32, usize)> {
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
    fn en_year(&self, i: usize) -> Option<(i64, usize)> {
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
    fn en_calendar(&self, i: usize) -> Option<(usize, When)> {
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

    fn to_datetime(&self, w: When) -> (Datetime, Precision) {
        let off = self.observed.offset_minutes;
        let day_ms = |day: i64| day * MS_PER_DAY - off as i64 * 60_000;
        match w {
            When::Day(day, None) => (
                Datetime {
                    epoch_ms: day_ms(day),
                    offset_minutes: off,
                },
                Precision::Day,
            ),
            When::Day(day, Some(min)) => (
                Datetime {
                    epoch_ms: day_ms(day) + min * 60_000,
                    offset_minutes: off,
                },
                Precision::Instant,
            ),
            When::Instant(ms, o) => (
                Datetime {
                    epoch_ms: ms,
                    offset_minutes: o,
                },
                Precision::Instant,
            ),
            When::Week(monday) => (
                Datetime {
                    epoch_ms: day_ms(monday),
                    offset_minutes: off,
                },
                Precision::Week,
            ),
            When::Month(y, m) => (
                Datetime {
                    epoch_ms: day_ms(Self::day_of(y, m, 1)),
                    offset_minutes: off,
                },
                Precision::Month,
            ),
            When::Year(y) => (
                Datetime {
                    epoch_ms: day_ms(Self::day_of(y, 1, 1)),
                    offset_minutes: off,
                },
                Precision::Year,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::time::rfc3339;

    /// An instant given as local wall-clock time in an offset.
    fn at(y: i64, m: u32, d: u32, h: i64, mi: i64, off: i32) -> Datetime {
        Datetime {
            epoch_ms: days_from_civil(y, m, d) * MS_PER_DAY + (h * 60 + mi - off as i64) * 60_000,
            offset_minutes: off,
        }
    }

    fn r(text: &str, obs: Datetime) -> (String, String) {
        let x = resolve(text, obs).unwrap_or_else(|| panic!("nothing resolved in {text:?}"));
        (rfc3339(x.at), x.expression)
    }

    #[test]
    fn chinese_relative_days() {
        // 2026-09-02 is a Wednesday.
        let obs = at(2026, 9, 2, 10, 0, 480);
        assert_eq!(
            r("用户昨天拒绝了短信通知", obs).0,
            "2026-09-01T00:00:00+08:00"
        );
        assert_eq!(
            r("前天给李总订的航班取消了", obs).0,
            "2026-08-31T00:00:00+08:00"
        );
        assert_eq!(r("大前天", obs).0, "2026-08-30T00:00:00+08:00");
        let (t, e) = r("上周三的发布失败了", obs);
        assert_eq!(t, "2026-08-26T00:00:00+08:00");
        assert_eq!(e, "上周三");
        assert_eq!(
            r("上周二给 VIP 客户的 refund batch", obs).0,
            "2026-08-25T00:00:00+08:00"
        );
        assert_eq!(r("这周一上线", obs).0, "2026-08-31T00:00:00+08:00");
        assert_eq!(r("上周日", obs).0, "2026-08-30T00:00:00+08:00");
        assert_eq!(r("三天前", obs).0, "2026-08-30T00:00:00+08:00");
        assert_eq!(r("两周前", obs).0, "2026-08-19T00:00:00+08:00");
        assert_eq!(r("2 个月前", obs).0, "2026-07-02T00:00:00+08:00");
        assert_eq!(r("昨天下午3点半", obs).0, "2026-09-01T15:30:00+08:00");
        assert_eq!(r("上个月", obs).0, "2026-08-01T00:00:00+08:00");
        assert_eq!(r("去年", obs).0, "2025-01-01T00:00:00+08:00");
        assert_eq!(r("去年 3 月 5 日", obs).0, "2025-03-05T00:00:00+08:00");
    }

    #[test]
    fn english_relative_days() {
        // 2026-09-04 is a Friday.
        let obs = at(2026, 9, 4, 9, 0, -240);
        assert_eq!(
            r("Yesterday the deploy failed", obs).0,
            "2026-09-03T00:00:00-04:00"
        );
        let (t, e) = r("last Wednesday we rolled back", obs);
        assert_eq!(t, "2026-09-02T00:00:00-04:00");
        assert_eq!(e, "last Wednesday");
        assert_eq!(r("last Friday", obs).0, "2026-08-28T00:00:00-04:00");
        let (t, e) = r("Two weeks ago our first switch", obs);
        assert_eq!(t, "2026-08-21T00:00:00-04:00");
        assert_eq!(e, "Two weeks ago");
        assert_eq!(r("two days ago", obs).0, "2026-09-02T00:00:00-04:00");
        assert_eq!(r("3 hours ago", obs).0, "2026-09-04T06:00:00-04:00");
        assert_eq!(r("a week ago", obs).0, "2026-08-28T00:00:00-04:00");
        assert_eq!(r("last month", obs).0, "2026-08-01T00:00:00-04:00");
        assert_eq!(
            r("finished last weekend", obs).0,
            "2026-08-29T00:00:00-04:00"
        );
        assert_eq!(
            r("during the September launch", obs).0,
            "2026-09-01T00:00:00-04:00"
        );
        assert_eq!(
            r("the day before yesterday", obs).0,
            "2026-09-02T00:00:00-04:00"
        );
    }

    #[test]
    fn the_same_instant_is_a_different_yesterday_in_another_offset() {
        // 2026-08-01T01:00+08:00 == 2026-07-31T17:00Z == 2026-07-31T10:00-07:00.
        let shanghai = at(2026, 8, 1, 1, 0, 480);
        let la = at(2026, 7, 31, 10, 0, -420);
        assert_eq!(shanghai.epoch_ms, la.epoch_ms);
        assert_eq!(r("昨天", shanghai).0, "2026-07-31T00:00:00+08:00");
        assert_eq!(r("yesterday", la).0, "2026-07-30T00:00:00-07:00");
        let utc = Datetime {
            epoch_ms: shanghai.epoch_ms,
            offset_minutes: 0,
        };
        assert_eq!(r("yesterday", utc).0, "2026-07-30T00:00:00Z");
        // A weekday across the date line: Saturday in Shanghai, Friday in LA.
        assert_eq!(weekday(local_day(shanghai)), 5);
        assert_eq!(weekday(local_day(la)), 4);
        assert_eq!(r("上周三", shanghai).0, "2026-07-22T00:00:00+08:00");
        assert_eq!(r("last Wednesday", la).0, "2026-07-29T00:00:00-07:00");
    }

    #[test]
    fn calendar_dates() {
        let obs = at(2026, 4, 8, 12, 0, 0);
        assert_eq!(
            r("Build log 2026-04-08: failed", obs).0,
            "2026-04-08T00:00:00Z"
        );
        let x = resolve("job (2026-01-27T22:00Z) processed", obs).unwrap();
        assert_eq!(rfc3339(x.at), "2026-01-27T22:00:00Z");
        assert_eq!(x.precision, Precision::Instant);
        let obs8 = at(2026, 4, 8, 12, 0, 480);
        assert_eq!(
            r("2025-10-21 04:18 对账任务超时", obs8).0,
            "2025-10-21T04:18:00+08:00"
        );
        assert_eq!(r("2026年2月3日创建", obs8).0, "2026-02-03T00:00:00+08:00");
        assert_eq!(r("已于 4 月 2 日补发", obs8).0, "2026-04-02T00:00:00+08:00");
        // A month-day after the observation is last year's.
        assert_eq!(r("12 月 28 日", obs8).0, "2025-12-28T00:00:00+08:00");
        let x = resolve("在 1 月的续约谈判里", obs8).unwrap();
        assert_eq!(x.precision, Precision::Month);
        assert_eq!(rfc3339(x.at), "2026-01-01T00:00:00+08:00");
        assert_eq!(
            r("on Nov 2, 2025 the hotel cancelled", obs).0,
            "2025-11-02T00:00:00Z"
        );
        assert_eq!(
            r("on 2 March the hotel cancelled", obs).0,
            "2026-03-02T00:00:00Z"
        );
        assert_eq!(
            r("2026-03-31T09:00:00+08:00", obs).0,
            "2026-03-31T09:00:00+08:00"
        );
        assert_eq!(
            r("去年双十一客服排班不够", obs8).0,
            "2025-11-11T00:00:00+08:00"
        );
        assert_eq!(
            r("over Christmas the pager went off", obs).0,
            "2025-12-25T00:00:00Z"
        );
    }

    #[test]
    fn non_dates_are_left_alone() {
        let obs = at(2026, 4, 8, 12, 0, 0);
        for t in [
            "Always write dates as YYYY-MM-DD",
            "TiDB 7.5 and 1,284 people",
            "3 个月的合同",
            "we may ship it",
            "the 25th of nothing",
            "version 2026.1",
            "晚到 2 小时",
            "过去一个月",
        ] {
            assert!(resolve(t, obs).is_none(), "{t:?} resolved");
        }
        // Recurring expressions are found but never resolved as one moment.
        let all = find_all("每年 3 月 1 日调价，每周三 22:00 变更", obs);
        assert!(!all.is_empty());
        assert!(all.iter().all(|x| x.recurring));
        assert!(resolve("every Monday at 9", obs).is_none());
    }

    #[test]
    fn never_panics_on_odd_text() {
        let obs = at(2026, 4, 8, 12, 0, 0);
        for t in [
            "",
            "年",
            "9999-99-99",
            "2026-02-30",
            "上",
            "十十十月",
            "前",
            "last",
            "3 月 99 日",
            "𠀀昨天𠀀",
        ] {
            let _ = find_all(t, obs);
        }
        assert!(resolve("2026-02-30", obs).is_none());
    }
}
