//! Scope by structure: a request bounded to a time or to the object at
//! hand is task state; a standing rule with a time word and a dated report
//! are not.

use super::*;
use crate::testing::candidate::candidate;
use crate::types::{Scope, SourceKind};

/// 2026-09-02T10:00+08:00, a Wednesday.
const OBSERVED: Datetime = Datetime {
    epoch_ms: 20_698 * crate::core::time::MS_PER_DAY + 2 * 3_600_000,
    offset_minutes: 480,
};

fn cand(text: &str) -> Candidate {
    let scope = Scope {
        tenant: "t".into(),
        user: Some("u1".into()),
        project: None,
        thread: None,
        agent: None,
    };
    candidate(text, SourceKind::User, scope, OBSERVED)
}

/// The rules' kind and the final kind.
fn kinds(text: &str) -> (CandidateKind, CandidateKind) {
    let (c, p) = (cand(text), Policy::default());
    (
        rule_kind(&c, OBSERVED, &p).0,
        classify(&c, OBSERVED, &p).kind,
    )
}

const WORKING: &[&str] = &[
    "Only for today, answer me in English.",
    "For the next hour, keep your replies short, I'm on my phone.",
    "In the slides we're doing now, use the blue theme.",
    "Temporarily switch the logs to debug, and remind me tonight to switch them back.",
    "Ship this release without the export button first; the feature can come later.",
    "Until Friday, route the alerts to my personal phone.",
    "Tonight, skip the integration tests when you build.",
    "Use metric units in these charts.",
    "This week, put the budget review ahead of the hiring notes.",
    "Keep the font at 14pt in the current document.",
    "For the next two days, don't book anything before 10am.",
    "Just for this afternoon, mute the release channel.",
    "今天只用中文回答我。",
    "接下来一小时回复都简短一点，我在开车。",
    "这份PPT里标题都用黑体。",
    "这周先别给我推送周报提醒。",
    "周五之前先别合并任何分支。",
    "到周五为止，日报发给小林。",
    "这个版本先不做导出功能，以后再加。",
    "暂时把日志级别调成 debug，今晚提醒我改回来。",
    "当前这个文档里，代码示例用 Python。",
    "眼下这个需求先按简化版做。",
    "今晚的构建跳过集成测试。",
    "明天的汇报材料里别放成本数据。",
    "这两天回复我用英文。",
    "目前这个表格里金额保留两位小数。",
    "我们现在做的这几页幻灯片用蓝色主题。",
    "接下来半小时别给我发通知。",
    "For the coming two weeks, send the invoices to Dana instead of me.",
];

/// Standing rules with a time word, and preferences without one.
const STANDING: &[&str] = &[
    "From now on, answer me in English.",
    "Every Monday, send me the sprint summary.",
    "I always want dates written as YYYY-MM-DD.",
    "Going forward, use the blue theme for all my decks.",
    "Please keep replies short from now on.",
    "Every Friday at 5pm I want a list of the open bugs.",
    "以后都用中文回答我。",
    "每周一提醒我交周报。",
    "从今天起，代码示例一律用 TypeScript。",
    "以后所有的 PPT 标题都用黑体。",
    "每天晚上十点以后别给我发通知。",
    "我喜欢回复简短一点。",
    "Use these settings for every new project.",
    "以后这个仓库都用 tab 缩进。",
    "做月报前先把本月的发票导出来，按客户汇总。",
];

/// Definitions and standing facts about a named object.
const FACTS: &[&str] = &[
    "这个项目是用 Rust 写的。",
    "This repository is the entry point of the billing service.",
];

/// Dated reports of what happened.
const EPISODES: &[&str] = &[
    "Today I deployed v2 to production and it went fine.",
    "Yesterday the build failed because of a missing env var.",
    "Last night the backup job finished in 12 minutes.",
    "今天上午我把 v2 部署到了生产环境。",
    "这周三数据库主从切换了一次，耗时 40 秒。",
    "今晚八点的发布已经完成了。",
    "昨天的构建因为缺少环境变量失败了。",
];

#[test]
fn bounded_requests_are_task_state_and_standing_rules_are_not() {
    let mut bad = Vec::new();
    for t in WORKING {
        let (r, k) = kinds(t);
        if k != CandidateKind::Working {
            bad.push(format!("W  rule={r:?} final={k:?}  {t}"));
        }
    }
    for t in STANDING {
        let (r, k) = kinds(t);
        if k == CandidateKind::Working {
            bad.push(format!("S  rule={r:?} final={k:?}  {t}"));
        }
    }
    for t in FACTS {
        let (r, k) = kinds(t);
        if k == CandidateKind::Working {
            bad.push(format!("F  rule={r:?} final={k:?}  {t}"));
        }
    }
    for t in EPISODES {
        let (r, k) = kinds(t);
        if k != CandidateKind::Episodic {
            bad.push(format!("E  rule={r:?} final={k:?}  {t}"));
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}
