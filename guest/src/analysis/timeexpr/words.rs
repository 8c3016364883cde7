//! The words time expressions are read with: spaces, English month, weekday
//! and number words, and the festivals with fixed dates.

pub(super) const SPACES: [char; 3] = [' ', '\t', '\u{3000}'];

pub(super) const EN_MONTHS: [(&str, u32); 24] = [
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

pub(super) const EN_WEEKDAYS: [(&str, u32); 14] = [
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

/// Units of a duration as English words ("3 hours ago", "for the next 2
/// weeks"), longest form first, with the unit `shift` takes.
pub(super) const EN_UNITS: [(&str, &str); 14] = [
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

/// Units of a duration in Chinese ("三天前", "接下来一小时"), with the unit
/// `shift` takes.
pub(super) const CN_UNITS: [(&str, &str); 10] = [
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

pub(super) const EN_NUMBERS: [(&str, u32); 16] = [
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
pub(super) const FESTIVALS: [(&str, u32, u32); 11] = [
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
