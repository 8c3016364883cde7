//! The benchmark's synthetic workload: deterministic (every item is a pure
//! function of the seed and its index, so chunking and sizes never change
//! what item *i* is), bilingual (English, Chinese and mixed text), with
//! entities, all three memory kinds and long revision chains.
//!
//! - **Import records** (the recall corpus, one scope `bench`/`u-0001`):
//!   50 % episodes (deploys, migrations, incidents, user events; a date in
//!   the two years before `now`; entities service/host/person), 35 % semantic
//!   facts (world facts about services from a system of record, and the
//!   user's preferences, some under a `work`/`friends` condition), 15 %
//!   procedures (runbooks). Semantic keys are drawn from a key space that
//!   grows as *i*/4, so later records restate earlier keys: supersessions,
//!   duplicates and conflicts, i.e. many revisions per key.
//!   45 % English, 40 % Chinese, 15 % mixed.
//! - **Candidates** (the remember throughput): raw text as an agent would
//!   hand it over, 20 % with structured hints; ~35 % semantic, 32 % episodic,
//!   10 % procedural, 8 % working (task state), 12 % chit-chat, 3 % secrets
//!   (rejected), spread over 64 users of tenant `bench-w`; sources mostly
//!   `user`, some `system`, `tool`, `document`, `agent`.
//! - **Queries**: questions about the same services, hosts, people and
//!   preferences ("why did … fail", "怎么回滚 …", "… 的 on-call 是谁"), 20 %
//!   with an entity filter, 10 % restricted to one kind, k = 10.
//! - **Pack requests**: a 2 000-token budget, a system prompt, task state,
//!   eight messages (one long tool log), three knowledge snippets, two
//!   artifacts and a recall of k = 20.

use engram_host::bindings as w;

/// `now` of every benchmark run: 2026-09-01T10:00:00+08:00.
pub const NOW: &str = "2026-09-01T10:00:00+08:00";
/// The tenant and user of the recall corpus.
pub const TENANT: &str = "bench";
pub const USER: &str = "u-0001";
/// The tenant the remember throughput writes to (64 users).
pub const WRITE_TENANT: &str = "bench-w";
pub const WRITE_USERS: u64 = 64;

const DAY_MS: i64 = 86_400_000;

/// SplitMix64: small, fast, and the same on every platform.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    /// The generator of item `index` of `stream` under `seed`.
    pub fn new(seed: u64, stream: u64, index: u64) -> Self {
        let mut r = Rng(seed
            ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
    pub fn pct(&mut self) -> u64 {
        self.below(100)
    }
    pub fn pick<'a, T: ?Sized>(&mut self, xs: &'a [&'a T]) -> &'a T {
        xs[self.below(xs.len() as u64) as usize]
    }
    /// Zipf-like: low indices are much more frequent (realistic term skew).
    pub fn skewed(&mut self, n: u64) -> u64 {
        let a = self.below(n);
        let b = self.below(n);
        let c = self.below(n);
        a.min(b).min(c)
    }
}

const STREAM_IMPORT: u64 = 1;
const STREAM_CANDIDATE: u64 = 2;
const STREAM_QUERY: u64 = 3;
const STREAM_PACK: u64 = 4;
const STREAM_REVISE: u64 = 5;

const SVC_A: &[&str] = &[
    "order",
    "payment",
    "billing",
    "search",
    "auth",
    "inventory",
    "shipping",
    "notification",
    "user",
    "report",
    "gateway",
    "ledger",
    "catalog",
    "pricing",
    "review",
    "chat",
    "media",
    "analytics",
    "fraud",
    "refund",
    "coupon",
    "checkout",
    "session",
    "profile",
    "wallet",
];
const SVC_B: &[&str] = &["service", "api", "worker", "gateway", "sync", "scheduler"];
const REGIONS: &[&str] = &["sh", "bj", "fra", "iad", "sgp", "gz"];
const PEOPLE_EN: &[&str] = &[
    "Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory",
    "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Xavier",
];
const PEOPLE_ZH: &[&str] = &[
    "林工",
    "王芳",
    "李雷",
    "韩梅梅",
    "张伟",
    "刘洋",
    "陈静",
    "杨帆",
    "赵磊",
    "黄敏",
    "周杰",
    "吴昊",
    "徐丽",
    "孙强",
    "马超",
    "朱琳",
    "胡军",
    "郭涛",
    "何静",
    "高峰",
];
const DBS: &[&str] = &[
    "PostgreSQL 15",
    "PostgreSQL 16",
    "MySQL 8.0",
    "TiDB",
    "MongoDB",
    "Redis",
    "ClickHouse",
    "Cassandra",
    "OceanBase",
    "SQLite",
];
const TEAMS: &[&str] = &[
    "platform",
    "payments",
    "growth",
    "infra",
    "data",
    "risk",
    "mobile",
    "search-relevance",
];
const CAUSES_EN: &[&str] = &[
    "a lock timeout on the accounts table",
    "the disk on the replica filled up",
    "a missing index made the backfill too slow",
    "the connection pool was exhausted",
    "a schema change conflicted with a long transaction",
    "the canary error rate exceeded 2%",
    "an expired TLS certificate",
    "the config centre pushed a stale value",
];
const CAUSES_ZH: &[&str] = &[
    "账户表锁等待超时",
    "从库磁盘写满",
    "缺少索引导致回填太慢",
    "连接池被耗尽",
    "表结构变更和长事务冲突",
    "灰度错误率超过 2%",
    "TLS 证书过期",
    "配置中心推送了旧配置",
];
const ENVS_EN: &[&str] = &[
    "production",
    "staging",
    "the canary pool",
    "the gray cluster",
];
const ENVS_ZH: &[&str] = &["生产环境", "预发环境", "灰度集群", "测试环境"];
const CHANNELS_EN: &[&str] = &[
    "email",
    "SMS",
    "Slack",
    "WeChat",
    "phone call",
    "push notification",
];
const CHANNELS_ZH: &[&str] = &["邮件", "短信", "企业微信", "钉钉", "电话", "站内信"];
const TZ: &[&str] = &[
    "Asia/Shanghai",
    "Europe/Berlin",
    "America/New_York",
    "Asia/Singapore",
    "UTC",
];
const NICKS: &[&str] = &[
    "林工", "老王", "Lin", "Dr. Chen", "小李", "Boss", "Jay", "阿峰",
];
const LANGS: &[&str] = &["Chinese", "English", "中文", "英文", "bilingual"];
const FORMATS: &[&str] = &[
    "Markdown tables",
    "bullet points",
    "a one-page PDF",
    "纯文本",
    "图表",
];

fn service(r: &mut Rng) -> String {
    let a = r.skewed(SVC_A.len() as u64) as usize;
    let b = r.below(SVC_B.len() as u64) as usize;
    format!("{}-{}", SVC_A[a], SVC_B[b])
}
fn host(r: &mut Rng) -> String {
    format!("db-{}.{}", r.skewed(40) + 1, r.pick(REGIONS))
}
fn person(r: &mut Rng) -> (String, bool) {
    if r.pct() < 50 {
        (r.pick(PEOPLE_EN).to_string(), false)
    } else {
        (r.pick(PEOPLE_ZH).to_string(), true)
    }
}
fn migration(r: &mut Rng) -> String {
    format!("V{}", r.below(120) + 1)
}
fn version(r: &mut Rng) -> String {
    format!("v{}.{}.{}", r.below(5) + 1, r.below(30), r.below(10))
}

fn dt(epoch_ms: i64) -> w::Datetime {
    w::Datetime {
        epoch_ms,
        offset_minutes: 480,
    }
}

pub fn now() -> w::Datetime {
    engram_host::clock::parse(NOW).expect("NOW is RFC 3339")
}

fn date_en(d: w::Datetime) -> String {
    engram_host::clock::to_rfc3339(d)[..10].to_string()
}
fn date_zh(d: w::Datetime) -> String {
    let s = date_en(d);
    format!(
        "{}年{}月{}日",
        &s[..4],
        s[5..7].trim_start_matches('0'),
        s[8..10].trim_start_matches('0')
    )
}

pub fn scope(tenant: &str, user: &str) -> w::Scope {
    w::Scope {
        tenant: tenant.into(),
        user: Some(user.into()),
        project: None,
        thread: None,
        agent: None,
    }
}

fn entries(pairs: &[(&str, &str)]) -> Vec<w::Entry> {
    pairs
        .iter()
        .map(|(k, v)| w::Entry {
            key: k.to_string(),
            value: v.to_string(),
        })
        .collect()
}

fn bare(text: String, scope: w::Scope, source: w::SourceKind, reference: String) -> w::Candidate {
    w::Candidate {
        id: None,
        text,
        scope,
        source: w::Source {
            kind: source,
            reference: Some(reference),
        },
        observed_at: None,
        confidence: None,
        kind_hint: None,
        subject: None,
        predicate: None,
        object: None,
        condition: None,
        occurred_at: None,
        valid_from: None,
        valid_to: None,
        entities: Vec::new(),
        embedding: None,
    }
}

/// Language of an item: 0 English, 1 Chinese, 2 mixed.
fn lang(r: &mut Rng) -> u8 {
    match r.pct() {
        0..=44 => 0,
        45..=84 => 1,
        _ => 2,
    }
}

/// An episode: (text, entities, occurred_at, success).
fn episode(r: &mut Rng, at: w::Datetime) -> (String, Vec<w::Entry>) {
    let svc = service(r);
    let h = host(r);
    let (p, _) = person(r);
    let l = lang(r);
    let ok = r.pct() < 55;
    let text = match (r.below(4), l) {
        (0, 0) => {
            let m = migration(r);
            if ok {
                format!("On {} the {m} migration of {svc} on {h} finished in {} minutes; {p} verified the row counts.", date_en(at), r.below(50) + 2)
            } else {
                format!("On {} the {m} migration of {svc} failed on {h}: {}. {p} rolled it back.", date_en(at), r.pick(CAUSES_EN))
            }
        }
        (0, 1) => {
            let m = migration(r);
            if ok {
                format!("{}，{svc} 在 {h} 上的 {m} 迁移用时 {} 分钟完成，{p} 核对了行数。", date_zh(at), r.below(50) + 2)
            } else {
                format!("{}，{svc} 在 {h} 上的 {m} 迁移失败，原因是{}，{p} 已回滚。", date_zh(at), r.pick(CAUSES_ZH))
            }
        }
        (1, 0) => format!(
            "{p} deployed {svc} {} to {} on {}; the rollout {}.",
            version(r),
            r.pick(ENVS_EN),
            date_en(at),
            if ok { "went smoothly" } else { "was aborted after errors spiked" }
        ),
        (1, 1) => format!(
            "{p} 在{}把 {svc} {} 发布到{}，结果{}。",
            date_zh(at),
            version(r),
            r.pick(ENVS_ZH),
            if ok { "一切正常" } else { "错误率飙升，已中止发布" }
        ),
        (2, 0) => format!(
            "Incident on {}: {svc} latency p99 hit {} ms because {}; {p} was on call.",
            date_en(at),
            r.below(4000) + 300,
            r.pick(CAUSES_EN)
        ),
        (2, 1) => format!(
            "{} 故障：{svc} 的 p99 延迟达到 {} 毫秒，原因是{}，当时 {p} 值班。",
            date_zh(at),
            r.below(4000) + 300,
            r.pick(CAUSES_ZH)
        ),
        (3, 0) => format!(
            "On {} the user declined {} notifications for {svc} and asked for a weekly digest instead.",
            date_en(at),
            r.pick(CHANNELS_EN)
        ),
        (3, 1) => format!(
            "用户在{}拒绝了 {svc} 的{}通知，希望改成每周汇总。",
            date_zh(at),
            r.pick(CHANNELS_ZH)
        ),
        (_, _) => format!(
            "{} {svc} 在 {h} 上 rollout {}，{p} 说 canary 的 error rate {}。",
            date_en(at),
            if ok { "成功" } else { "失败" },
            if ok { "很稳定" } else { "超过了阈值" }
        ),
    };
    let ents = entries(&[("service", &svc), ("host", &h), ("person", &p)]);
    (text, ents)
}

/// A semantic fact for key `k`: (text, subject, predicate, object, condition, source).
struct Fact {
    text: String,
    subject: String,
    predicate: String,
    object: String,
    condition: Option<String>,
    source: w::SourceKind,
    entities: Vec<w::Entry>,
}

fn fact(r: &mut Rng, key: u64, user: &str) -> Fact {
    let l = lang(r);
    if key.is_multiple_of(5) {
        // The user's preferences: few keys, so long revision chains.
        let pred = key / 5 % 7;
        let condition = (key / 35 % 3 == 1).then(|| "work".to_string());
        let (predicate, object, text) = match (pred, l) {
            (0, 0) => {
                let n = r.pick(NICKS);
                (
                    "preferred_name",
                    n.to_string(),
                    format!("From now on, call me {n}."),
                )
            }
            (0, _) => {
                let n = r.pick(NICKS);
                ("preferred_name", n.to_string(), format!("以后请叫我{n}。"))
            }
            (1, 0) => {
                let t = r.pick(TZ);
                ("timezone", t.to_string(), format!("My timezone is {t}."))
            }
            (1, _) => {
                let t = r.pick(TZ);
                ("timezone", t.to_string(), format!("我的时区是 {t}。"))
            }
            (2, 0) => {
                let c = r.pick(CHANNELS_EN);
                (
                    "notification_channel",
                    c.to_string(),
                    format!("Always notify me by {c}."),
                )
            }
            (2, _) => {
                let c = r.pick(CHANNELS_ZH);
                (
                    "notification_channel",
                    c.to_string(),
                    format!("以后通知我请用{c}。"),
                )
            }
            (3, _) => {
                let g = r.pick(LANGS);
                (
                    "language",
                    g.to_string(),
                    format!("Please always answer me in {g}."),
                )
            }
            (4, _) => {
                let f = r.pick(FORMATS);
                (
                    "report_format",
                    f.to_string(),
                    format!("以后周报请用{f}的格式。"),
                )
            }
            (5, _) => {
                let h = r.below(10) + 8;
                (
                    "meeting_time",
                    format!("{h}:00"),
                    format!("I prefer meetings after {h}:00."),
                )
            }
            _ => {
                let s = if r.pct() < 50 {
                    "small PRs"
                } else {
                    "一次性大改"
                };
                (
                    "code_review_style",
                    s.to_string(),
                    format!("代码评审我更喜欢 {s}。"),
                )
            }
        };
        let condition_text = match &condition {
            Some(c) => format!(" (at {c})"),
            None => String::new(),
        };
        return Fact {
            text: format!("{text}{condition_text}"),
            subject: format!("user:{user}"),
            predicate: predicate.to_string(),
            object,
            condition,
            source: w::SourceKind::User,
            entities: Vec::new(),
        };
    }
    // World facts about services, from a system of record.
    let svc = format!(
        "{}-{}",
        SVC_A[(key as usize / 7) % SVC_A.len()],
        SVC_B[(key as usize / 7 / SVC_A.len()) % SVC_B.len()]
    );
    let (predicate, object, text) = match (key % 7, l) {
        (0 | 1, 0) => {
            let d = r.pick(DBS);
            (
                "database",
                d.to_string(),
                format!("{svc} uses {d} as its primary database."),
            )
        }
        (0 | 1, _) => {
            let d = r.pick(DBS);
            (
                "database",
                d.to_string(),
                format!("{svc} 的主数据库是 {d}。"),
            )
        }
        (2, 0) => {
            let t = r.pick(TEAMS);
            (
                "owner_team",
                t.to_string(),
                format!("{svc} is owned by the {t} team."),
            )
        }
        (2, _) => {
            let t = r.pick(TEAMS);
            (
                "owner_team",
                t.to_string(),
                format!("{svc} 归 {t} 团队负责。"),
            )
        }
        (3, _) => {
            let (p, zh) = person(r);
            let text = if zh || l == 1 {
                format!("{svc} 的 on-call 负责人是 {p}。")
            } else {
                format!("The on-call engineer for {svc} is {p}.")
            };
            ("oncall", p, text)
        }
        (4, _) => {
            let g = r.pick(REGIONS);
            (
                "region",
                g.to_string(),
                format!(
                    "{svc} runs in region {g}; failover goes to {}.",
                    r.pick(REGIONS)
                ),
            )
        }
        (5, _) => {
            let d = ["Tuesday", "Wednesday", "Thursday", "周二", "周四"][r.below(5) as usize];
            (
                "deploy_window",
                d.to_string(),
                format!("{svc} may only be deployed on {d} between 10:00 and 16:00."),
            )
        }
        _ => {
            let s = format!("99.{}%", r.below(10) + 5 * (r.below(2)));
            (
                "sla",
                s.clone(),
                format!("{svc} 的 SLA 是 {s}，超出要赔付。"),
            )
        }
    };
    Fact {
        text,
        subject: svc.clone(),
        predicate: predicate.to_string(),
        object,
        condition: None,
        source: if r.pct() < 85 {
            w::SourceKind::System
        } else {
            w::SourceKind::Document
        },
        entities: entries(&[("service", &svc)]),
    }
}

fn procedure(r: &mut Rng) -> (String, Vec<w::Entry>) {
    let svc = service(r);
    let h = host(r);
    let (p, _) = person(r);
    let text = match lang(r) {
        0 => format!(
            "Before deploying {svc}, back up {h}, then run the {} migration, then check the health endpoint; if the canary error rate exceeds 2%, roll back and page {p}.",
            migration(r)
        ),
        1 => format!(
            "发布 {svc} 之前，先备份 {h}，再执行 {} 迁移，然后检查健康检查接口；如果灰度错误率超过 2%，立即回滚并通知 {p}。",
            migration(r)
        ),
        _ => format!(
            "处理 {svc} 退款：先查询订单状态，再 call the refund API，最后 notify {p}；金额超过 5000 元需要审批。"
        ),
    };
    (text, entries(&[("service", &svc), ("host", &h)]))
}

/// Import record `i` of the recall corpus (in scope `TENANT`/`USER`).
pub fn import_record(seed: u64, i: u64) -> w::ImportRecord {
    let mut r = Rng::new(seed, STREAM_IMPORT, i);
    let base = now().epoch_ms;
    // Observed times grow with i (later records restate earlier keys).
    let observed = dt(base - 730 * DAY_MS
        + (i as i64 % 100_000) * (730 * DAY_MS / 100_000)
        + r.below(3_600_000) as i64);
    let sc = scope(TENANT, USER);
    let reference = format!("imp-{i}");
    let roll = r.pct();
    let (kind, mut c) = if roll < 50 {
        let at = dt(observed.epoch_ms - r.below(3 * DAY_MS as u64) as i64);
        let (text, ents) = episode(&mut r, at);
        let mut c = bare(text, sc, w::SourceKind::User, reference);
        c.occurred_at = Some(at);
        c.entities = ents;
        (w::MemoryKind::Episodic, c)
    } else if roll < 85 {
        let key = r.below(i / 4 + 20);
        let f = fact(&mut r, key, USER);
        let mut c = bare(f.text, sc, f.source, reference);
        c.subject = Some(f.subject);
        c.predicate = Some(f.predicate);
        c.object = Some(f.object);
        c.condition = f.condition;
        c.entities = f.entities;
        (w::MemoryKind::Semantic, c)
    } else {
        let (text, ents) = procedure(&mut r);
        let mut c = bare(text, sc, w::SourceKind::User, reference);
        c.entities = ents;
        (w::MemoryKind::Procedural, c)
    };
    c.observed_at = Some(observed);
    w::ImportRecord {
        external_id: format!("B:{i}"),
        kind,
        candidate: c,
    }
}

/// Candidate `i` of the remember throughput (tenant `WRITE_TENANT`, 64 users).
pub fn candidate(seed: u64, i: u64) -> w::Candidate {
    let user = format!("w-{:02}", i % WRITE_USERS);
    candidate_in(seed, STREAM_CANDIDATE, i, scope(WRITE_TENANT, &user))
}

/// A preference restatement in the recall corpus's scope (revisions through
/// the remember path).
pub fn revision(seed: u64, i: u64) -> w::Candidate {
    let mut r = Rng::new(seed, STREAM_REVISE, i);
    let key = r.below(7) * 5;
    let f = fact(&mut r, key, USER);
    let mut c = bare(
        f.text,
        scope(TENANT, USER),
        w::SourceKind::User,
        format!("rev-{i}"),
    );
    if r.pct() < 50 {
        c.kind_hint = Some(w::CandidateKind::Semantic);
        c.subject = Some(f.subject);
        c.predicate = Some(f.predicate);
        c.object = Some(f.object);
        c.condition = f.condition;
    }
    c
}

fn candidate_in(seed: u64, stream: u64, i: u64, sc: w::Scope) -> w::Candidate {
    let mut r = Rng::new(seed, stream, i);
    let reference = format!("evt-{i}");
    let source = match r.pct() {
        0..=71 => w::SourceKind::User,
        72..=81 => w::SourceKind::System,
        82..=89 => w::SourceKind::Tool,
        90..=94 => w::SourceKind::Document,
        _ => w::SourceKind::Agent,
    };
    let hinted = r.pct() < 20;
    let roll = r.pct();
    let user = sc.user.clone().unwrap_or_default();
    let mut c;
    if roll < 35 {
        let key = r.below(400);
        let f = fact(&mut r, key, &user);
        c = bare(f.text, sc, source, reference);
        c.entities = f.entities;
        if hinted {
            c.kind_hint = Some(w::CandidateKind::Semantic);
            c.subject = Some(f.subject);
            c.predicate = Some(f.predicate);
            c.object = Some(f.object);
            c.condition = f.condition;
        }
    } else if roll < 67 {
        let at = dt(now().epoch_ms - r.below(30 * DAY_MS as u64) as i64);
        let (text, ents) = episode(&mut r, at);
        c = bare(text, sc, source, reference);
        c.entities = ents;
        if hinted {
            c.kind_hint = Some(w::CandidateKind::Episodic);
            c.occurred_at = Some(at);
        }
    } else if roll < 77 {
        let (text, ents) = procedure(&mut r);
        c = bare(text, sc, source, reference);
        c.entities = ents;
        if hinted {
            c.kind_hint = Some(w::CandidateKind::Procedural);
        }
    } else if roll < 85 {
        let svc = service(&mut r);
        let text = match lang(&mut r) {
            0 => format!("This time skip the integration tests for {svc}; we only need the hotfix out today."),
            1 => format!("这次先不要发布 {svc}，今天的会议之后再说。"),
            _ => format!("这次 release 先跳过 {svc} 的 smoke test。"),
        };
        c = bare(text, sc, source, reference);
    } else if roll < 97 {
        let text = [
            "thanks!",
            "ok, sounds good",
            "好的，收到",
            "哈哈哈",
            "got it 👍",
            "嗯嗯",
            "lol nice",
            "明白了，谢谢",
            "sure",
            "👌",
        ][r.below(10) as usize];
        c = bare(text.to_string(), sc, source, reference);
    } else {
        let svc = service(&mut r);
        let text = match r.below(3) {
            0 => format!("The db password for {svc} is Xk9#mQ2$vL7p, use it for the migration."),
            1 => format!("{svc} 的 API key 是 sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"),
            _ => format!(
                "connect with postgres://admin:S3cr3tPw@{}/prod",
                host(&mut r)
            ),
        };
        c = bare(text, sc, source, reference);
    }
    c.observed_at = Some(now());
    c
}

/// Query `i` against the recall corpus.
pub fn query(seed: u64, i: u64) -> w::Query {
    let mut r = Rng::new(seed, STREAM_QUERY, i);
    let svc = service(&mut r);
    let h = host(&mut r);
    let (p, _) = person(&mut r);
    let m = migration(&mut r);
    let text = match r.below(16) {
        0 => format!("Why did the {m} migration of {svc} fail?"),
        1 => format!("What database does {svc} use?"),
        2 => format!("How do I roll back {svc} after a bad deploy?"),
        3 => format!("Who is on call for {svc}?"),
        4 => format!("What happened on {h} last week?"),
        5 => format!("What did {p} deploy recently?"),
        6 => "How should you notify me, and what should you call me?".to_string(),
        7 => format!("{svc} 用的是什么数据库？"),
        8 => format!("上次 {svc} 发布为什么失败？"),
        9 => format!("怎么回滚 {svc}？"),
        10 => format!("{h} 上周发生了什么？"),
        11 => format!("{p} 最近部署了什么？"),
        12 => "我的时区是什么？以后怎么称呼我？".to_string(),
        13 => format!("{svc} 的 on-call 是谁？"),
        14 => format!("{svc} canary 失败后怎么处理？"),
        _ => format!("{svc} 的 p99 latency 为什么升高？"),
    };
    let entities = if r.pct() < 20 {
        entries(&[("service", &svc)])
    } else {
        Vec::new()
    };
    let kinds = match r.pct() {
        0..=3 => vec![w::MemoryKind::Episodic],
        4..=6 => vec![w::MemoryKind::Semantic],
        7..=9 => vec![w::MemoryKind::Procedural],
        _ => Vec::new(),
    };
    w::Query {
        id: Some(format!("q{i}")),
        text,
        scope: scope(TENANT, USER),
        k: 10,
        as_of: None,
        kinds,
        entities,
        embedding: None,
        sensitivity_ceiling: None,
        explain_rejected: false,
    }
}

/// A typical pack request against the recall corpus.
pub fn pack_request(seed: u64, i: u64) -> w::PackRequest {
    let mut r = Rng::new(seed, STREAM_PACK, i);
    let q = query(seed, i + 1_000_000);
    let svc = service(&mut r);
    let h = host(&mut r);
    let msg = |role: w::Role, text: String, priority: Option<u8>, reference: &str| w::Message {
        reference: Some(reference.to_string()),
        role,
        text,
        priority,
    };
    let mut log = String::new();
    for k in 0..40 {
        log.push_str(&format!(
            "2026-09-01T09:{:02}:{:02}+08:00 {svc} pod-{} WARN slow query on {h} took {} ms\n",
            k / 2,
            (k * 7) % 60,
            r.below(12),
            r.below(900) + 100
        ));
    }
    w::PackRequest {
        budget: 2000,
        scope: scope(TENANT, USER),
        query: q.text.clone(),
        system: "You are the on-call assistant for Acme's platform team. Follow the runbooks. Never run destructive commands without explicit approval. Answer in the user's language.".into(),
        state: entries(&[("task", &format!("investigate {svc} latency")), ("step", "3/5"), ("ticket", "INC-4711")]),
        messages: vec![
            msg(w::Role::User, format!("{} Please look into it, {svc} is slow since this morning.", q.text), Some(90), "m1"),
            msg(w::Role::Assistant, format!("I'll check the recent deploys and the database metrics for {svc}."), None, "m2"),
            msg(w::Role::Tool, log, None, "m3"),
            msg(w::Role::Assistant, format!("The slow queries all hit {h}. Checking the last migration."), None, "m4"),
            msg(w::Role::User, "上次类似的问题是怎么处理的？".into(), None, "m5"),
            msg(w::Role::Tool, format!("{{\"migrations\":[{{\"id\":\"V{}\",\"status\":\"applied\",\"host\":\"{h}\"}}]}}", r.below(120)), None, "m6"),
            msg(w::Role::Assistant, "A migration was applied an hour ago; comparing with past incidents.".into(), None, "m7"),
            msg(w::Role::User, "好的，先别回滚，给我一个方案。".into(), None, "m8"),
        ],
        knowledge: vec![
            w::Snippet { reference: "kb-1".into(), text: format!("{svc} runbook: scale out read replicas before touching indexes.") },
            w::Snippet { reference: "kb-2".into(), text: "慢查询排查：先看执行计划，再看锁等待，最后看连接池。".into() },
            w::Snippet { reference: "kb-3".into(), text: format!("{h} is a shared PostgreSQL primary; maintenance window Tue 02:00-04:00.") },
        ],
        artifacts: vec![
            w::Snippet { reference: "a-1".into(), text: format!("Grafana dashboard: {svc} p99 up 4x since 08:10.") },
            w::Snippet { reference: "a-2".into(), text: "EXPLAIN output: sequential scan on orders (12M rows).".into() },
        ],
        recall: w::RecallOptions { k: 20, as_of: None, kinds: Vec::new() },
    }
}
