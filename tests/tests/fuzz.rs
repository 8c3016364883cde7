//! Fuzzing every export of the real component in wasmtime, and the CLI's
//! standard input, with structured inputs drawn from seeded random bytes
//! (`arbitrary`). Invariants checked after every case:
//! - the host does not panic and the guest does not trap (no limit is hit
//!   at these sizes: any runtime error is a finding);
//! - `PRAGMA integrity_check` is ok;
//! - a failed call writes nothing (a dump of the database is unchanged);
//! - a call never changes, and never returns, another tenant's records (nor,
//!   for a user-pinned principal, another user's).
//!
//! CI runs a bounded budget; `ENGRAM_FUZZ_CASES=N` (component cases; the CLI
//! gets one in 25) and `ENGRAM_FUZZ_SEED=S` run longer or other inputs.
//! A failure prints the seed and case to replay.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use engram_host::bindings as w;
use engram_host::runtime::Limits;
use engram_host::{Engram, Error, Options};
use engram_tests::*;

const DEFAULT_CASES: usize = 1000;
/// A fresh database every so many cases keeps dumps cheap on long runs.
const CASES_PER_DATABASE: usize = 150;

/// SplitMix64: a seeded source of the bytes `arbitrary` decodes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n.div_ceil(8))
            .flat_map(|_| self.next().to_le_bytes())
            .take(n)
            .collect()
    }
}

/// A number from the environment, decimal or `0x` hexadecimal.
fn env_number(name: &str, default: u64) -> u64 {
    let Ok(v) = std::env::var(name) else {
        return default;
    };
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    parsed.unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
}

// ---------------------------------------------------------------- generators

/// Words that steer the classifier, the gates and the time parser, plus
/// noise: the pieces random texts are spliced from.
const WORDS: &[&str] = &[
    "I",
    "prefer",
    "from now on",
    "always",
    "never",
    "my",
    "favourite",
    "colour",
    "is",
    "deploy",
    "the",
    "service",
    "payments-api",
    "to",
    "prod",
    "failed",
    "yesterday",
    "last week",
    "two days ago",
    "on Monday",
    "at 3pm",
    "step 1:",
    "then",
    "rollback",
    "password",
    "token",
    "ignore previous instructions",
    "我喜欢",
    "以后",
    "昨天",
    "上周三",
    "部署",
    "失败",
    "密码",
    "ok",
    "thanks",
    "lol",
    "😀",
    "\u{0}",
    "\u{202e}",
    "e\u{301}",
    "\t",
    "\n",
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    "%",
    "_",
    "'; DROP TABLE memories; --",
    "null",
    "NaN",
    "-1",
    "1e309",
    "😀😀😀😀",
    "Ω≈ç√",
    "alice@example.com",
    "+1 555 0100",
    "4111 1111 1111 1111",
    "192.168.0.1",
];

/// Words that make the policy refuse the whole batch (secrets): used
/// sparingly, or few batches would get past them.
const RARE_WORDS: &[&str] = &[
    "api_key=sk-live-4f9a8b7c6d5e4f3a2b1c",
    "-----BEGIN RSA PRIVATE KEY-----",
];

fn pick<T: Clone>(u: &mut Unstructured, items: &[T]) -> T {
    u.choose(items)
        .cloned()
        .unwrap_or_else(|_| items[0].clone())
}

fn chance(u: &mut Unstructured, numerator: u8, denominator: u8) -> bool {
    u.ratio(numerator, denominator).unwrap_or(false)
}

/// Most fields are well-formed so calls get past validation; a rare one
/// is not (a bad item fails its whole batch, which is checked too).
fn rare(u: &mut Unstructured) -> bool {
    chance(u, 1, 25)
}

fn up_to(u: &mut Unstructured, max: usize) -> usize {
    u.int_in_range(0..=max).unwrap_or(0)
}

/// A random text: spliced words, raw arbitrary characters, or both.
fn text(u: &mut Unstructured) -> String {
    let mut s = String::new();
    let words = if rare(u) { 0 } else { 1 + up_to(u, 23) };
    for _ in 0..words {
        if chance(u, 1, 8) {
            s.push_str(&u.arbitrary::<String>().unwrap_or_default());
        } else if rare(u) {
            s.push_str(pick(u, RARE_WORDS));
        } else {
            s.push_str(pick(u, WORDS));
        }
        s.push(' ');
    }
    if chance(u, 1, 40) {
        s = s.repeat(up_to(u, 2000));
    }
    s
}

fn opt_text(u: &mut Unstructured) -> Option<String> {
    chance(u, 1, 3).then(|| text(u))
}

fn short(u: &mut Unstructured, pool: &[&str]) -> String {
    if rare(u) {
        u.arbitrary::<String>().unwrap_or_default()
    } else {
        pick(u, pool).to_string()
    }
}

/// The principals the fuzzer acts as.
fn principals() -> Vec<w::Principal> {
    vec![
        principal("tenant-a"),
        principal("tenant-b"),
        w::Principal {
            tenant: "tenant-a".into(),
            user: Some("u1".into()),
            project: None,
        },
    ]
}

/// A scope, usually inside `p` and sometimes outside it.
fn scope_for(u: &mut Unstructured, p: &w::Principal) -> w::Scope {
    let tenant = if chance(u, 14, 15) {
        p.tenant.clone()
    } else {
        short(u, &["tenant-a", "tenant-b"])
    };
    let user = match &p.user {
        Some(pinned) if chance(u, 14, 15) => Some(pinned.clone()),
        _ => pick(u, &[None, Some("u1"), Some("u2")]).map(String::from),
    };
    w::Scope {
        tenant,
        user,
        project: pick(u, &[None, None, Some("p1")]).map(String::from),
        thread: pick(u, &[None, Some("t1"), Some("t2")]).map(String::from),
        agent: pick(u, &[None, Some("agent-x")]).map(String::from),
    }
}

fn datetime(u: &mut Unstructured) -> w::Datetime {
    let base = fixed_now().epoch_ms;
    let epoch_ms = match up_to(u, 5) {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => 0,
        _ => {
            base + u
                .int_in_range(-400_000_000_000i64..=400_000_000_000)
                .unwrap_or(0)
        }
    };
    let offset_minutes = pick(u, &[0, 480, -720, 840, i32::MAX, i32::MIN, 1]);
    w::Datetime {
        epoch_ms,
        offset_minutes,
    }
}

/// A source reference from a small pool (so forget-by-source hits), or
/// arbitrary text.
fn source_ref(u: &mut Unstructured) -> String {
    if rare(u) {
        u.arbitrary::<String>().unwrap_or_default()
    } else {
        format!("evt-{}", up_to(u, 40))
    }
}

fn opt_datetime(u: &mut Unstructured) -> Option<w::Datetime> {
    chance(u, 1, 4).then(|| datetime(u))
}

fn entries(u: &mut Unstructured) -> Vec<w::Entry> {
    (0..up_to(u, 4))
        .map(|_| w::Entry {
            key: short(u, &["service", "host", "person", "project"]),
            value: short(u, &["payments-api", "db-1", "alice", "涅槃", ""]),
        })
        .collect()
}

fn embedding(u: &mut Unstructured) -> Option<Vec<f32>> {
    if rare(u) {
        return Some(pick(u, &[Vec::new(), vec![f32::NAN, f32::INFINITY, 1.0]]));
    }
    chance(u, 1, 4).then(|| {
        (0..1 + up_to(u, 2047))
            .map(|i| (i % 7) as f32 - 3.0)
            .collect()
    })
}

fn candidate_for(u: &mut Unstructured, p: &w::Principal) -> w::Candidate {
    w::Candidate {
        id: opt_text(u),
        text: text(u),
        scope: scope_for(u, p),
        source: w::Source {
            kind: pick(
                u,
                &[
                    w::SourceKind::User,
                    w::SourceKind::System,
                    w::SourceKind::Document,
                    w::SourceKind::Tool,
                    w::SourceKind::Behavior,
                    w::SourceKind::Agent,
                ],
            ),
            reference: chance(u, 2, 3).then(|| source_ref(u)),
        },
        observed_at: opt_datetime(u),
        confidence: chance(u, 1, 4).then(|| {
            if rare(u) {
                pick(u, &[f64::NAN, f64::INFINITY, -1.0, 7.0])
            } else {
                pick(u, &[0.0, 0.3, 0.5, 0.9, 1.0])
            }
        }),
        kind_hint: chance(u, 1, 3).then(|| {
            pick(
                u,
                &[
                    w::CandidateKind::Semantic,
                    w::CandidateKind::Episodic,
                    w::CandidateKind::Procedural,
                    w::CandidateKind::Working,
                    w::CandidateKind::None,
                ],
            )
        }),
        subject: opt_text(u),
        predicate: opt_text(u),
        object: opt_text(u),
        condition: opt_text(u),
        occurred_at: opt_datetime(u),
        valid_from: chance(u, 1, 3).then(|| opt_datetime(u)).flatten(),
        valid_to: chance(u, 1, 3).then(|| opt_datetime(u)).flatten(),
        entities: entries(u),
        embedding: embedding(u),
    }
}

/// An import record's candidate: a semantic one usually carries its key.
fn record_candidate(u: &mut Unstructured, p: &w::Principal) -> w::Candidate {
    let mut c = candidate_for(u, p);
    if chance(u, 4, 5) {
        c.subject = Some(short(u, &["user:u1", "service:payments-api"]));
        c.predicate = Some(short(u, &["prefers", "owner", "deploy_window"]));
        c.object = Some(text(u));
    }
    c
}

fn kinds(u: &mut Unstructured) -> Vec<w::MemoryKind> {
    (0..up_to(u, 3))
        .map(|_| {
            pick(
                u,
                &[
                    w::MemoryKind::Semantic,
                    w::MemoryKind::Episodic,
                    w::MemoryKind::Procedural,
                ],
            )
        })
        .collect()
}

fn query_for(u: &mut Unstructured, p: &w::Principal) -> w::Query {
    w::Query {
        id: opt_text(u),
        text: text(u),
        scope: scope_for(u, p),
        k: pick(u, &[0, 1, 5, 1000, u32::MAX]),
        as_of: opt_datetime(u),
        kinds: kinds(u),
        entities: entries(u),
        embedding: embedding(u),
        sensitivity_ceiling: chance(u, 1, 3).then(|| {
            pick(
                u,
                &[
                    w::Sensitivity::Public,
                    w::Sensitivity::Internal,
                    w::Sensitivity::Personal,
                    w::Sensitivity::Sensitive,
                ],
            )
        }),
        explain_rejected: chance(u, 1, 2),
    }
}

fn snippets(u: &mut Unstructured) -> Vec<w::Snippet> {
    (0..up_to(u, 5))
        .map(|_| w::Snippet {
            reference: short(u, &["doc-1", "doc-2", ""]),
            text: text(u),
        })
        .collect()
}

fn pack_for(u: &mut Unstructured, p: &w::Principal) -> w::PackRequest {
    w::PackRequest {
        budget: if rare(u) {
            pick(u, &[0, 1])
        } else {
            pick(u, &[300, 4000, 8000, u32::MAX])
        },
        scope: scope_for(u, p),
        query: text(u),
        system: text(u),
        state: entries(u),
        messages: (0..up_to(u, 12))
            .map(|_| w::Message {
                reference: opt_text(u),
                role: pick(
                    u,
                    &[
                        w::Role::System,
                        w::Role::User,
                        w::Role::Assistant,
                        w::Role::Tool,
                    ],
                ),
                text: text(u),
                priority: chance(u, 1, 3).then(|| u.arbitrary().unwrap_or(0)),
            })
            .collect(),
        knowledge: snippets(u),
        artifacts: snippets(u),
        recall: w::RecallOptions {
            k: pick(u, &[0, 3, u32::MAX]),
            as_of: opt_datetime(u),
            kinds: kinds(u),
        },
    }
}

fn selector_for(u: &mut Unstructured, p: &w::Principal, ids: &[String]) -> w::ForgetSelector {
    match up_to(u, 3) {
        0 if !ids.is_empty() && chance(u, 3, 4) => w::ForgetSelector::MemoryId(pick(u, ids)),
        0 => w::ForgetSelector::MemoryId(short(u, &["m-unknown", "m-0000000000000000"])),
        1 => w::ForgetSelector::Key(w::KeySelector {
            scope: scope_for(u, p),
            subject: text(u),
            predicate: text(u),
            condition: opt_text(u),
        }),
        2 => w::ForgetSelector::Text(w::TextSelector {
            scope: scope_for(u, p),
            text: text(u),
        }),
        _ => w::ForgetSelector::SourceRef(w::SourceSelector {
            scope: scope_for(u, p),
            source_ref: source_ref(u),
        }),
    }
}

// ---------------------------------------------------------------- the harness

/// Text planted in each tenant (and in another user of tenant-a) before
/// fuzzing; no generator can produce it, so seeing it elsewhere is a leak.
const MARK_A_U1: &str = "alpha-marker-zq1 the launch code is in the blue folder";
const MARK_A_U2: &str = "alpha-marker-zq3 salary review for the second user";
const MARK_B: &str = "bravo-marker-zq2 tenant B roadmap for the next quarter";

fn plant_markers(e: &mut Engram) {
    for (tenant, user, text) in [
        ("tenant-a", "u1", MARK_A_U1),
        ("tenant-a", "u2", MARK_A_U2),
        ("tenant-b", "u1", MARK_B),
    ] {
        let mut r = episode(tenant, user, &format!("mark-{tenant}-{user}"), text);
        r.candidate.source.reference = Some("evt-marker".into());
        e.import(principal(tenant), vec![r])
            .expect("plant a marker");
    }
}

/// Rows a call by `p` must leave alone: other tenants' rows, and for a
/// user-pinned principal the other users' memories and postings.
fn foreign_rows(db: &str, p: &w::Principal) -> String {
    let mut rows = dump_where(db, &format!("tenant <> '{}'", p.tenant));
    if let Some(user) = &p.user {
        rows.push_str(&dump_where(
            db,
            &format!(
                "tenant = '{}' AND user IS NOT NULL AND user <> '{user}' AND rid IS NOT NULL",
                p.tenant
            ),
        ));
    }
    rows
}

/// Markers `p` must never be handed.
fn forbidden_for(p: &w::Principal) -> Vec<&'static str> {
    match (p.tenant.as_str(), p.user.as_deref()) {
        ("tenant-a", None) => vec![MARK_B],
        ("tenant-a", Some(_)) => vec![MARK_B, MARK_A_U2],
        _ => vec![MARK_A_U1, MARK_A_U2],
    }
}

/// One fuzz call's outcome: its printed output, or why it failed.
enum Outcome {
    Ok(String),
    Refused(String),
}

/// Memory ids in a printed output (to aim forget and history at real
/// records, other tenants' included).
fn harvest_ids(out: &str, ids: &mut Vec<String>) {
    for pattern in ["id: \"", "memory_id: Some(\""] {
        for part in out.split(pattern).skip(1) {
            if let Some(end) = part.find('"') {
                let id = &part[..end];
                if id.starts_with('m') && id.len() > 8 && !ids.iter().any(|k| k == id) {
                    ids.push(id.to_string());
                }
            }
        }
    }
    if ids.len() > 500 {
        ids.drain(..250);
    }
}

fn outcome<T: std::fmt::Debug>(r: Result<T, Error>, case: &str) -> Outcome {
    match r {
        Ok(v) => Outcome::Ok(format!("{v:?}")),
        Err(Error::Policy(e)) => Outcome::Refused(engram_host::describe_policy_error(&e)),
        Err(other) => panic!("{case}: the host failed rather than refusing: {other}"),
    }
}

/// Run one generated call as `p`; returns a label and the outcome.
fn run_case(
    e: &mut Engram,
    u: &mut Unstructured,
    p: &w::Principal,
    ids: &[String],
    case: &str,
) -> (&'static str, Outcome) {
    let n = 1 + up_to(u, 3);
    let pc = p.clone();
    match up_to(u, 9) {
        0 => {
            let c = (0..n).map(|_| candidate_for(u, p)).collect();
            ("classify", outcome(e.classify(pc, c), case))
        }
        1 | 2 => {
            let c = (0..n).map(|_| candidate_for(u, p)).collect();
            ("remember", outcome(e.remember(pc, c), case))
        }
        3 => {
            let r = (0..n)
                .map(|i| w::ImportRecord {
                    external_id: if chance(u, 1, 5) {
                        text(u)
                    } else {
                        format!("x-{i}")
                    },
                    kind: pick(
                        u,
                        &[
                            w::MemoryKind::Semantic,
                            w::MemoryKind::Episodic,
                            w::MemoryKind::Procedural,
                        ],
                    ),
                    candidate: record_candidate(u, p),
                })
                .collect();
            ("import", outcome(e.import(pc, r), case))
        }
        4 => {
            let q = (0..n).map(|_| query_for(u, p)).collect();
            ("recall", outcome(e.recall(pc, q), case))
        }
        5 => {
            let r = pack_for(u, p);
            ("pack", outcome(e.pack(pc, r), case))
        }
        6 => {
            let s = (0..n).map(|_| selector_for(u, p, ids)).collect();
            ("forget", outcome(e.forget(pc, s), case))
        }
        7 => {
            let s = scope_for(u, p);
            ("sweep", outcome(e.sweep(pc, s), case))
        }
        8 => {
            let id = if ids.is_empty() {
                text(u)
            } else {
                pick(u, ids)
            };
            ("history", outcome(e.history(pc, &id), case))
        }
        _ => {
            let s = scope_for(u, p);
            ("list", outcome(e.list(pc, s, Vec::new()), case))
        }
    }
}

fn open_fuzz_db(name: &str) -> (String, Engram) {
    let db = temp_db(name);
    let mut e = Engram::open(
        &db,
        Options {
            now: Some(fixed_now()),
            limits: Limits {
                timeout: Duration::from_secs(60),
                ..Limits::default()
            },
            ..Options::default()
        },
    )
    .expect("open the fuzz database");
    plant_markers(&mut e);
    (db, e)
}

/// Every stored memory row decodes: a row the store cannot read back
/// would break every later read of its scope.
fn assert_rows_read_back(db: &str, case: &str) {
    let conn = rusqlite::Connection::open(db).expect("open");
    let mut stmt = conn.prepare("SELECT body FROM memories").expect("select");
    let bodies = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .expect("bodies");
    for body in bodies {
        let body = body.expect("body");
        if let Err(e) = engram_contract::body::decode(&body) {
            panic!("{case}: a stored row does not read back ({e}): {body}");
        }
    }
}

/// Check every invariant around one call.
fn check_case(
    db: &str,
    p: &w::Principal,
    label: &str,
    out: &Outcome,
    before_all: &str,
    before_foreign: &str,
    case: &str,
) {
    assert_eq!(integrity(db), "ok", "{case} ({label}): integrity_check");
    if label == "classify" {
        assert!(
            dump(db) == before_all,
            "{case}: classify wrote to the database"
        );
    }
    match out {
        Outcome::Ok(printed) => {
            if matches!(label, "remember" | "import" | "forget" | "sweep") {
                assert_rows_read_back(db, case);
            }
            for mark in forbidden_for(p) {
                assert!(
                    !printed.contains(mark),
                    "{case} ({label}): {p:?} was handed {mark:?}"
                );
            }
            let after_foreign = foreign_rows(db, p);
            assert!(
                after_foreign == before_foreign,
                "{case} ({label}): a call by {p:?} changed rows outside it"
            );
        }
        Outcome::Refused(msg) => {
            assert!(
                dump(db) == before_all,
                "{case} ({label}): the call failed ({msg}) but wrote to the database"
            );
        }
    }
}

#[test]
fn every_export_survives_random_and_mutated_input() {
    let cases = env_number("ENGRAM_FUZZ_CASES", DEFAULT_CASES as u64) as usize;
    let seed = env_number("ENGRAM_FUZZ_SEED", 0x5EED_0012);
    let started = Instant::now();
    let mut rng = Rng(seed);
    let who = principals();
    let (mut db, mut e) = open_fuzz_db("fuzz-0");
    let mut ids: Vec<String> = Vec::new();
    let mut tally: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    let mut reasons: std::collections::HashMap<String, usize> = Default::default();
    for i in 0..cases {
        if i > 0 && i % CASES_PER_DATABASE == 0 {
            drop(e);
            (db, e) = open_fuzz_db(&format!("fuzz-{}", i / CASES_PER_DATABASE));
            ids.clear();
        }
        let bytes = rng.bytes(4096);
        let mut u = Unstructured::new(&bytes);
        let p = pick(&mut u, &who);
        let case = format!("seed {seed:#x} case {i}");
        let before_all = dump(&db);
        let before_foreign = foreign_rows(&db, &p);
        let (label, out) = run_case(&mut e, &mut u, &p, &ids, &case);
        check_case(&db, &p, label, &out, &before_all, &before_foreign, &case);
        let entry = tally.entry(label).or_default();
        match &out {
            Outcome::Ok(printed) => {
                entry.0 += 1;
                harvest_ids(printed, &mut ids);
            }
            Outcome::Refused(m) => {
                entry.1 += 1;
                // Group refusals by their wording, minus item numbers.
                let shape: String = format!("{label}: {m}")
                    .chars()
                    .filter(|c| !c.is_ascii_digit())
                    .take(70)
                    .collect();
                *reasons.entry(shape).or_insert(0usize) += 1;
            }
        }
    }
    let mut common: Vec<_> = reasons.into_iter().collect();
    common.sort_by_key(|c| std::cmp::Reverse(c.1));
    for (shape, n) in common.iter().take(20) {
        eprintln!("  refused {n:>5}×  {shape}");
    }
    eprintln!(
        "fuzz: {cases} cases (seed {seed:#x}) in {:.1} s; ok/refused per export: {tally:?}",
        started.elapsed().as_secs_f64()
    );
    // The generators must reach past validation, or the fuzzer tests nothing.
    for export in ["remember", "recall", "forget"] {
        let (ok, _) = tally.get(export).copied().unwrap_or_default();
        assert!(
            cases < 100 || ok > 0,
            "no {export} call got past validation: {tally:?}"
        );
    }
}

/// Sizes at the edges, once each: empty input, a 1 MB text, thousands of
/// items. Each call answers (or refuses) without a trap, and the store
/// stays sound. (Long because it is a table of ten inputs, one per line.)
#[test]
fn extreme_sizes_answer_or_refuse_without_a_trap() {
    let (db, mut e) = open_fuzz_db("fuzz-extreme");
    let a = principal("tenant-a");
    let megabyte = "remember the deploy window ".repeat(40_000);
    let many = |n: usize| -> Vec<w::Candidate> {
        (0..n)
            .map(|i| {
                candidate(
                    "tenant-a",
                    Some("u1"),
                    &format!("From now on I prefer build {i} on the staging cluster"),
                    w::SourceKind::User,
                )
            })
            .collect()
    };
    let mut big = candidate("tenant-a", Some("u1"), &megabyte, w::SourceKind::User);
    big.entities = (0..2000)
        .map(|i| w::Entry {
            key: format!("k{i}"),
            value: "v".into(),
        })
        .collect();
    let imports: Vec<w::ImportRecord> = (0..3000)
        .map(|i| {
            episode(
                "tenant-a",
                "u1",
                &format!("bulk-{i}"),
                &format!("bulk event {i}"),
            )
        })
        .collect();
    let mut huge_query = query("tenant-a", Some("u1"), &megabyte, u32::MAX);
    huge_query.embedding = Some(vec![0.5; 4096]);
    let pack = w::PackRequest {
        budget: u32::MAX,
        scope: scope("tenant-a", Some("u1")),
        query: megabyte.clone(),
        system: String::new(),
        state: Vec::new(),
        messages: (0..2000)
            .map(|i| w::Message {
                reference: None,
                role: w::Role::User,
                text: format!("message {i}"),
                priority: None,
            })
            .collect(),
        knowledge: Vec::new(),
        artifacts: Vec::new(),
        recall: w::RecallOptions {
            k: u32::MAX,
            as_of: None,
            kinds: Vec::new(),
        },
    };
    // 100, not thousands: forget by text reads every record sharing a term
    // with the fragment, per selector (2000 selectors over 3000 records took
    // 62 s; reported to the policy's owner).
    let texts: Vec<w::ForgetSelector> = (0..100)
        .map(|i| {
            w::ForgetSelector::Text(w::TextSelector {
                scope: scope("tenant-a", Some("u1")),
                text: format!("bulk event {i}"),
            })
        })
        .collect();
    let steps: Vec<(&str, Step)> = vec![
        (
            "empty remember",
            Box::new(|e| outcome(e.remember(principal("tenant-a"), vec![]), "empty")),
        ),
        (
            "empty recall",
            Box::new(|e| outcome(e.recall(principal("tenant-a"), vec![]), "empty")),
        ),
        (
            "empty forget",
            Box::new(|e| outcome(e.forget(principal("tenant-a"), vec![]), "empty")),
        ),
        (
            "1 MB candidate",
            Box::new(move |e| outcome(e.remember(principal("tenant-a"), vec![big]), "1 MB")),
        ),
        (
            "3000 candidates",
            Box::new(move |e| outcome(e.remember(principal("tenant-a"), many(3000)), "3000")),
        ),
        (
            "3000 imports",
            Box::new(move |e| outcome(e.import(principal("tenant-a"), imports), "3000")),
        ),
        (
            "1 MB query",
            Box::new(move |e| {
                outcome(
                    e.recall(principal("tenant-a"), vec![huge_query]),
                    "1 MB query",
                )
            }),
        ),
        (
            "2000-message pack",
            Box::new(move |e| outcome(e.pack(principal("tenant-a"), pack), "pack")),
        ),
        (
            "zero-budget pack",
            Box::new(|e| {
                let mut p = w::PackRequest {
                    budget: 0,
                    ..pack_template()
                };
                p.messages.truncate(1);
                outcome(e.pack(principal("tenant-a"), p), "budget 0")
            }),
        ),
        (
            "100 forget selectors",
            Box::new(move |e| outcome(e.forget(principal("tenant-a"), texts), "forget")),
        ),
    ];
    for (label, step) in steps {
        let (before, before_foreign) = (dump(&db), foreign_rows(&db, &a));
        let t = Instant::now();
        let out = step(&mut e);
        let verdict = match &out {
            Outcome::Ok(_) => "answered".to_string(),
            Outcome::Refused(m) => format!("refused: {}", m.chars().take(160).collect::<String>()),
        };
        eprintln!("{label}: {:.2} s, {verdict}", t.elapsed().as_secs_f64());
        check_case(&db, &a, label, &out, &before, &before_foreign, label);
    }
}

/// One call of `extreme_sizes_answer_or_refuse_without_a_trap`.
type Step = Box<dyn FnOnce(&mut Engram) -> Outcome>;

fn pack_template() -> w::PackRequest {
    w::PackRequest {
        budget: 100,
        scope: scope("tenant-a", Some("u1")),
        query: "deploy".into(),
        system: "You are a careful assistant.".into(),
        state: Vec::new(),
        messages: vec![w::Message {
            reference: None,
            role: w::Role::User,
            text: "what did we decide about the deploy window?".into(),
            priority: None,
        }],
        knowledge: Vec::new(),
        artifacts: Vec::new(),
        recall: w::RecallOptions {
            k: 5,
            as_of: None,
            kinds: Vec::new(),
        },
    }
}

// ---------------------------------------------------------------- the CLI

const COMMANDS: &[&str] = &["classify", "remember", "import", "recall", "pack", "forget"];

/// A valid line for each command, the seed of mutations.
fn valid_line(cmd: &str) -> &'static str {
    match cmd {
        "import" => {
            r#"{"external_id":"e1","kind":"episodic","text":"we shipped the billing fix","scope":{"tenant":"tenant-a","user":"u1"},"source":{"kind":"user","ref":"evt-9"}}"#
        }
        "recall" => r#"{"query":"billing fix","scope":{"tenant":"tenant-a","user":"u1"},"k":5}"#,
        "pack" => {
            r#"{"budget":200,"scope":{"tenant":"tenant-a","user":"u1"},"query":"billing","messages":[{"role":"user","text":"hi"}]}"#
        }
        "forget" => r#"{"scope":{"tenant":"tenant-a","user":"u1"},"text":"billing fix"}"#,
        _ => {
            r#"{"text":"From now on I prefer short answers","scope":{"tenant":"tenant-a","user":"u1"},"source":{"kind":"user"}}"#
        }
    }
}

/// Standard input for one CLI case: invalid UTF-8, deep nesting, a huge
/// line, mutated valid lines, or random bytes.
fn cli_input(u: &mut Unstructured, cmd: &str) -> Vec<u8> {
    let line = valid_line(cmd).as_bytes().to_vec();
    match up_to(u, 6) {
        0 => {
            let mut b = line.clone();
            let at = up_to(u, b.len() - 1);
            b.splice(at..at, [0xff, 0xfe, 0xc3, 0x28]);
            b
        }
        1 => {
            let depth = pick(u, &[200usize, 5_000, 200_000]);
            let inner = "[".repeat(depth) + &"]".repeat(depth);
            let field = pick(u, &["text", "scope", "entities", "messages"]);
            format!(r#"{{"{field}":{inner},"scope":{{"tenant":"tenant-a"}},"source":{{"kind":"user"}}}}"#)
                .into_bytes()
        }
        2 => {
            let s = String::from_utf8_lossy(&line)
                .replace("billing fix", &"billing fix ".repeat(90_000));
            s.replace("short answers", &"short answers ".repeat(75_000))
                .into_bytes()
        }
        3 => {
            // Byte-level mutations of a valid line.
            let mut b = line.clone();
            for _ in 0..1 + up_to(u, 6) {
                let at = up_to(u, b.len().saturating_sub(1));
                match up_to(u, 3) {
                    0 => b[at] = u.arbitrary().unwrap_or(b'"'),
                    1 => {
                        b.remove(at);
                    }
                    2 => b.truncate(at),
                    _ => b.insert(at, pick(u, &[b'{', b'"', b',', b'\\', b'\n', 0])),
                }
                if b.is_empty() {
                    break;
                }
            }
            b
        }
        4 => {
            // Many valid lines, one broken near the end.
            let mut b = Vec::new();
            let n = 1 + up_to(u, 3000);
            for i in 0..n {
                if i + 1 == n && chance(u, 1, 2) {
                    b.extend_from_slice(b"{\"text\": 17}\n");
                } else {
                    b.extend_from_slice(&line);
                    b.push(b'\n');
                }
            }
            b
        }
        _ => {
            let n = up_to(u, 512);
            u.bytes(n).unwrap_or_default().to_vec()
        }
    }
}

#[test]
fn the_cli_survives_hostile_standard_input() {
    let cases = (env_number("ENGRAM_FUZZ_CASES", DEFAULT_CASES as u64) as usize / 25).max(12);
    let seed = env_number("ENGRAM_FUZZ_SEED", 0x5EED_0012) ^ 0xC11;
    let mut rng = Rng(seed);
    let db = temp_db("fuzz-cli");
    let (mut ok, mut refused) = (0, 0);
    for i in 0..cases {
        let bytes = rng.bytes(2048);
        let mut u = Unstructured::new(&bytes);
        // Every command gets its turn, whatever the bytes say.
        let cmd = COMMANDS[i % COMMANDS.len()];
        let input = cli_input(&mut u, cmd);
        let case = format!("seed {seed:#x} CLI case {i} ({cmd}, {} bytes)", input.len());
        let before = if std::path::Path::new(&db).exists() {
            dump(&db)
        } else {
            String::new()
        };
        let mut child = engram_bin!()
            .args([cmd, "--db", &db, "--now", "2026-08-01T10:00:00+08:00"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start engram");
        let mut stdin = child.stdin.take().expect("stdin");
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let outcome = child.wait_with_output().expect("engram ends");
        feeder.join().expect("feeder");
        let stderr = String::from_utf8_lossy(&outcome.stderr);
        let code = outcome.status.code();
        assert!(
            matches!(code, Some(0..=3)),
            "{case}: ended by {:?}: {stderr}",
            outcome.status
        );
        assert!(!stderr.contains("panicked"), "{case}: {stderr}");
        if code == Some(0) {
            ok += 1;
        } else {
            refused += 1;
            assert!(
                stderr.starts_with("engram: ") && stderr.lines().count() <= 3,
                "{case}: unclear error: {stderr}"
            );
            assert!(
                !stderr.contains("Some("),
                "{case}: Rust debug output in the error: {stderr}"
            );
            if !before.is_empty() {
                assert!(dump(&db) == before, "{case}: failed but wrote ({stderr})");
            }
        }
        if std::path::Path::new(&db).exists() {
            assert_eq!(integrity(&db), "ok", "{case}");
        }
    }
    eprintln!("fuzz CLI: {cases} cases (seed {seed:#x}): {ok} ok, {refused} refused");
    assert!(
        refused > 0 && ok > 0,
        "the CLI inputs reach neither outcome"
    );
}
