//! Tests of time expressions: relative days in Chinese and English, offsets,
//! calendar dates, non-dates and odd text.

use super::*;
use crate::core::time::{days_from_civil, local_day, rfc3339, weekday, MS_PER_DAY};

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

/// The end of the first stretch ahead in `text`, and its words.
fn bound(text: &str, obs: Datetime) -> Option<(String, String)> {
    find_all(text, obs)
        .into_iter()
        .find(|x| x.bound)
        .map(|x| (rfc3339(x.at), x.expression))
}

#[test]
fn stretches_ahead_are_bounds_not_moments() {
    // 2026-09-02 10:00 +08:00 is a Wednesday.
    let obs = at(2026, 9, 2, 10, 0, 480);
    let end = |t: &str| bound(t, obs).map(|b| b.0);
    assert_eq!(
        end("接下来一小时别打扰我"),
        Some("2026-09-02T11:00:00+08:00".into())
    );
    assert_eq!(
        end("接下来半小时别发通知"),
        Some("2026-09-02T10:30:00+08:00".into())
    );
    assert_eq!(
        end("未来两天先用英文"),
        Some("2026-09-04T00:00:00+08:00".into())
    );
    assert_eq!(
        end("这两天回复我用英文"),
        Some("2026-09-04T00:00:00+08:00".into())
    );
    assert_eq!(
        end("周五之前先别合并"),
        Some("2026-09-04T00:00:00+08:00".into())
    );
    assert_eq!(
        end("到周五为止，日报发给小林"),
        Some("2026-09-04T00:00:00+08:00".into())
    );
    assert_eq!(
        end("今晚之前把报告发我"),
        Some("2026-09-02T00:00:00+08:00".into())
    );
    assert_eq!(
        end("For the next hour, keep it short"),
        Some("2026-09-02T11:00:00+08:00".into())
    );
    assert_eq!(
        end("for the coming two weeks"),
        Some("2026-09-16T00:00:00+08:00".into())
    );
    assert_eq!(
        end("Until Friday, route alerts to me"),
        Some("2026-09-04T00:00:00+08:00".into())
    );
    assert_eq!(
        bound("hold it till tomorrow", obs).map(|b| b.1),
        Some("till tomorrow".into())
    );
    // Past moments are no bounds, and a bound is no moment to resolve.
    for t in [
        "三天前部署的",
        "昨天之前的版本",
        "two days ago",
        "上周三的发布失败了",
    ] {
        assert_eq!(bound(t, obs), None, "{t}");
    }
    assert_eq!(resolve("接下来一小时别打扰我", obs), None);
    // "this week" is the week said in, like 这周.
    assert_eq!(
        r("this week we shipped v2", obs).0,
        "2026-08-31T00:00:00+08:00"
    );
}
