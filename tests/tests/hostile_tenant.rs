//! The hostile-tenant suite (issue 25): two tenants with two users each,
//! on SQLite and on PostgreSQL. One principal calls every CLI command, HTTP
//! endpoint and MCP tool with the ids, keys, texts and sources of another
//! (another user of its tenant, or another tenant) — and nothing of the
//! victim is read, changed, erased, blocked or revealed: no answer carries
//! a victim's words, an id outside the caller's scope gets exactly the
//! answer an absent id gets, the victim's erasures neither block nor are
//! mentioned to the caller, and a dump of every victim row is
//! byte-identical before and after. Afterwards each victim still
//! remembers what the attacker forgot. Each principal also records an
//! execution record under one shared operation id: no other principal can
//! read, change or learn anything of it by that id.
//!
//! A new command, endpoint or tool is one entry in `CLI`, `HTTP` or `MCP`.

use std::cell::RefCell;

use engram_tests::deployment::{add_key, Deployment, Http, Mcp};
use serde_json::{json, Value};

const NOW: &str = "2026-08-01T10:00:00+08:00";
const ABSENT: &str = "m-00000000deadbeef";

/// A principal: a tenant, and a user unless it acts for the whole tenant.
#[derive(Clone, Copy, Debug)]
struct Who {
    tenant: &'static str,
    user: Option<&'static str>,
}

const PRINCIPALS: [Who; 4] = [
    Who {
        tenant: "acme",
        user: Some("u1"),
    },
    Who {
        tenant: "acme",
        user: Some("u2"),
    },
    Who {
        tenant: "globex",
        user: Some("u1"),
    },
    Who {
        tenant: "globex",
        user: Some("u2"),
    },
];

impl Who {
    fn tag(&self) -> String {
        format!("{}{}", self.tenant, self.user.unwrap_or("all")).to_uppercase()
    }
    fn scope(&self) -> Value {
        json!({"tenant": self.tenant, "user": self.user})
    }
    fn flags(&self) -> Vec<&'static str> {
        let mut f = vec!["--tenant", self.tenant];
        if let Some(u) = self.user {
            f.extend(["--user", u]);
        }
        f
    }
    /// Does a principal `self` cover content of `other`?
    fn covers(&self, other: &Who) -> bool {
        self.tenant == other.tenant && (self.user.is_none() || self.user == other.user)
    }
}

/// What the attacker knows of a victim, and the words it must never see.
struct Victim {
    who: Who,
    fact_id: String,
    episode_id: String,
    external_id: String,
    subject: String,
    predicate: &'static str,
    source: String,
    /// Words in the victim's text that no attack ever sends.
    hidden: String,
    /// Words of the victim's memories the attacker sends as its own.
    known: String,
    /// Content the victim erased (a tombstone of theirs exists)…
    erased: String,
    /// …and the source it came from (an `origin` tombstone of theirs).
    erased_source: String,
    /// The idempotency key of the victim's operation `op_vault` (every
    /// principal records one under that id, its result and detail carrying
    /// the hidden words).
    op_key: String,
}

/// The operation id every principal records (so an attacker asks for its
/// victim's by name).
const OPERATION: &str = "op_vault";

fn plant(d: &Deployment, who: Who) -> Victim {
    let tag = who.tag();
    let v = Victim {
        who,
        fact_id: String::new(),
        episode_id: String::new(),
        external_id: format!("ext-{tag}"),
        subject: format!("vault:{tag}"),
        predicate: "code_word",
        source: format!("evt-{tag}"),
        hidden: format!("HIDDEN{tag}Q7"),
        known: format!("KNOWN{tag}Z4"),
        erased: format!("ERASED{tag}X9"),
        erased_source: format!("old-{tag}"),
        op_key: format!("vault-rotation-{tag}"),
    };
    let run = |cmd: &str, input: String| -> String {
        let mut args = vec![cmd];
        args.extend(who.flags());
        d.cli(&args, &input)
            .unwrap_or_else(|e| panic!("plant {cmd} for {who:?}: {e}"))
    };
    let fact = json!({"text": format!("From now on the vault code word is {} near {}", v.hidden, v.known),
        "scope": who.scope(), "source": {"kind": "user", "ref": v.source},
        "kind_hint": "semantic", "subject": v.subject, "predicate": v.predicate,
        "object": format!("{} near {}", v.hidden, v.known)});
    let old = json!({"text": format!("From now on the old locker note is {}", v.erased),
        "scope": who.scope(), "source": {"kind": "user", "ref": v.erased_source},
        "kind_hint": "semantic", "subject": erased_subject(&v), "predicate": "note",
        "object": v.erased.clone()});
    let working = json!({"text": format!("这次先别动 {} 那台机器", v.known),
        "scope": who.scope(), "source": {"kind": "user", "ref": format!("w-{tag}")}});
    let decided: Vec<Value> = run(
        "remember",
        [fact, old, working].map(|c| c.to_string()).join("\n"),
    )
    .lines()
    .map(|l| serde_json::from_str(l).expect("decision"))
    .collect();
    assert_eq!(decided[0]["disposition"], "active", "{:?}", decided[0]);
    assert_eq!(decided[1]["disposition"], "active", "{:?}", decided[1]);
    assert_eq!(decided[2]["disposition"], "working", "{:?}", decided[2]);
    let episode = json!({"external_id": v.external_id, "kind": "episodic",
        "text": format!("On 2026-07-30 the team shipped {} with {}", v.known, v.hidden),
        "scope": who.scope(), "source": {"kind": "user", "ref": v.source},
        "occurred_at": "2026-07-30T09:00:00Z"});
    let imported: Value =
        serde_json::from_str(run("import", episode.to_string()).trim()).expect("receipt");
    let forgot = run(
        "forget",
        json!({"scope": who.scope(), "text": v.erased}).to_string(),
    );
    assert!(forgot.contains("\"deleted\":[\"m-"), "{forgot}");
    let op = |status: &str| {
        json!({"operation_id": OPERATION, "scope": who.scope(), "tool": "rotate_vault",
            "status": status, "idempotency_key": v.op_key,
            "result_ref": format!("artifact://vault/{}", v.hidden),
            "detail": format!("rotated the code word {}", v.hidden)})
    };
    let mut args = vec!["operations", "record"];
    args.extend(who.flags());
    let recorded = d
        .cli(
            &args,
            &format!("{}\n{}\n", op("submitted"), op("succeeded")),
        )
        .unwrap_or_else(|e| panic!("plant an operation for {who:?}: {e}"));
    assert!(recorded.contains("\"revision\":2"), "{recorded}");
    Victim {
        fact_id: decided[0]["memory_id"].as_str().expect("id").into(),
        episode_id: imported["id"].as_str().expect("id").into(),
        ..v
    }
}

/// The attacker and every way it reaches the deployment.
struct Attacker<'a> {
    who: Who,
    d: &'a Deployment,
    http: &'a Http,
    key: String,
    mcp: RefCell<Mcp>,
    /// Every answer it got (checked for victims' words at the end too).
    seen: RefCell<Vec<String>>,
}

impl Attacker<'_> {
    fn saw(&self, s: &str) {
        self.seen.borrow_mut().push(s.to_string());
    }

    /// `engram CMD` as the attacker: stdout, or the error message.
    fn cli(&self, cmd: &[&str], input: &str) -> Result<String, String> {
        let mut args = cmd.to_vec();
        args.extend(self.who.flags());
        let r = self.d.cli(&args, input);
        self.saw(match &r {
            Ok(s) | Err(s) => s,
        });
        r
    }

    fn http(&self, method: &str, path: &str, body: Option<Value>) -> (u16, String) {
        let r = self.http.call(method, path, &self.key, body.as_ref());
        self.saw(&r.1);
        r
    }

    fn mcp(&self, tool: &str, args: Value) -> (bool, String) {
        let r = self.mcp.borrow_mut().tool(tool, args);
        self.saw(&r.1);
        r
    }

    fn own_scope(&self) -> Value {
        self.who.scope()
    }
}

/// The same question about the victim's id and about an id nobody has
/// must get the same answer (the id itself aside).
fn same_as_absent(ask: impl Fn(&str) -> String, victim_id: &str) {
    let a = ask(victim_id).replace(victim_id, "<id>");
    let b = ask(ABSENT).replace(ABSENT, "<id>");
    assert_eq!(a, b, "an id outside the scope is answered as an absent one");
}

/// Decisions on candidates carrying a victim's erased content: the
/// victim's tombstone neither blocks the attacker nor is mentioned.
fn not_blocked(answer: &str) {
    assert!(
        !answer.contains("tombstone") && !answer.contains("erased"),
        "another principal's erasure shows: {answer}"
    );
}

fn denied_or_rejected(r: Result<String, String>) {
    match r {
        Err(e) => assert!(e.contains("permission denied"), "{e}"),
        Ok(out) => assert!(
            out.contains("\"rejected\"") && out.contains("scope"),
            "{out}"
        ),
    }
}

fn candidate(scope: Value, text: &str, r: &str) -> Value {
    json!({"text": text, "scope": scope, "source": {"kind": "user", "ref": r}})
}

/// The victim's erased content, under the victim's erased key, from the
/// source it came from, as the attacker's own: were the victim's
/// tombstones applied, each would block it.
fn erased_candidate(a: &Attacker, v: &Victim) -> Value {
    json!({"text": format!("From now on my locker note is {}", v.erased), "scope": a.own_scope(),
           "source": {"kind": "user", "ref": v.erased_source}, "kind_hint": "semantic",
           "subject": erased_subject(v), "predicate": "note", "object": v.erased})
}

/// The key of the memory the victim erased.
fn erased_subject(v: &Victim) -> String {
    format!("locker:{}", v.who.tag())
}

type Attack = (&'static str, fn(&Attacker, &Victim));

/// Every CLI command that reads or writes memory, with the victim's
/// material.
const CLI: &[Attack] = &[
    ("classify in the victim's scope", |a, v| {
        denied_or_rejected(a.cli(
            &["classify"],
            &candidate(v.who.scope(), &v.known, "x").to_string(),
        ));
    }),
    ("classify the victim's erased content", |a, v| {
        not_blocked(
            &a.cli(&["classify"], &erased_candidate(a, v).to_string())
                .expect("classify"),
        );
    }),
    ("remember in the victim's scope", |a, v| {
        denied_or_rejected(a.cli(
            &["remember"],
            &candidate(v.who.scope(), &v.known, "x").to_string(),
        ));
    }),
    ("remember the victim's erased content and words", |a, v| {
        let out = a
            .cli(&["remember"], &erased_candidate(a, v).to_string())
            .expect("remember");
        not_blocked(&out);
        assert!(out.contains("\"active\""), "{out}");
    }),
    ("import into the victim's scope", |a, v| {
        let r = json!({"external_id": v.external_id, "kind": "episodic", "text": v.known,
            "scope": v.who.scope(), "source": {"kind": "user", "ref": v.source}});
        let e = a
            .cli(&["import"], &r.to_string())
            .expect_err("another scope");
        assert!(e.contains("permission denied"), "{e}");
    }),
    ("import under the victim's external id", |a, v| {
        let r = json!({"external_id": v.external_id, "kind": "episodic",
            "text": format!("my own note about {}", v.known), "scope": a.own_scope(),
            "source": {"kind": "user", "ref": "cli-import"}, "occurred_at": "2026-07-31T09:00:00Z"});
        let out = a.cli(&["import"], &r.to_string()).expect("import");
        assert!(!out.contains(&v.episode_id), "{out}");
    }),
    ("recall in the victim's scope", |a, v| {
        let q = json!({"query": v.known, "scope": v.who.scope()});
        assert!(a
            .cli(&["recall"], &q.to_string())
            .expect_err("denied")
            .contains("permission denied"));
    }),
    ("recall the victim's words", |a, v| {
        let q = json!({"query": format!("{} {} vault code word", v.known, v.subject), "scope": a.own_scope(), "k": 50});
        let out = a.cli(&["recall"], &q.to_string()).expect("recall");
        assert!(
            !out.contains(&v.fact_id) && !out.contains(&v.episode_id),
            "{out}"
        );
    }),
    ("pack in the victim's scope", |a, v| {
        let p = json!({"budget": 400, "scope": v.who.scope(), "query": v.known});
        assert!(a
            .cli(&["pack"], &p.to_string())
            .expect_err("denied")
            .contains("permission denied"));
    }),
    ("pack the victim's words", |a, v| {
        let p = json!({"budget": 800, "scope": a.own_scope(), "query": format!("{} vault code word", v.known)});
        a.cli(&["pack"], &p.to_string()).expect("pack");
    }),
    ("forget the victim's ids", |a, v| {
        for id in [&v.fact_id, &v.episode_id] {
            same_as_absent(
                |x| {
                    a.cli(&["forget"], &json!({"memory_id": x}).to_string())
                        .expect_err("not found")
                },
                id,
            );
        }
    }),
    ("forget the victim's key", |a, v| {
        let own = json!({"scope": a.own_scope(), "subject": v.subject, "predicate": v.predicate});
        let out = a.cli(&["forget"], &own.to_string()).expect("forget");
        assert!(
            !out.contains(&v.fact_id) && !out.contains(&v.episode_id),
            "{out}"
        );
        let theirs =
            json!({"scope": v.who.scope(), "subject": v.subject, "predicate": v.predicate});
        assert!(a
            .cli(&["forget"], &theirs.to_string())
            .expect_err("denied")
            .contains("permission denied"));
    }),
    ("forget the victim's words", |a, v| {
        let own = json!({"scope": a.own_scope(), "text": v.known});
        let out = a.cli(&["forget"], &own.to_string()).expect("forget");
        assert!(
            !out.contains(&v.fact_id) && !out.contains(&v.episode_id),
            "{out}"
        );
        for text in [&v.known, &v.erased] {
            let theirs = json!({"scope": v.who.scope(), "text": text});
            assert!(a
                .cli(&["forget"], &theirs.to_string())
                .expect_err("denied")
                .contains("permission denied"));
        }
    }),
    ("forget the victim's source", |a, v| {
        let own = json!({"scope": a.own_scope(), "source_ref": v.source});
        let out = a.cli(&["forget"], &own.to_string()).expect("forget");
        assert!(
            !out.contains(&v.fact_id) && !out.contains(&v.episode_id),
            "{out}"
        );
        let theirs = json!({"scope": v.who.scope(), "source_ref": v.source});
        assert!(a
            .cli(&["forget"], &theirs.to_string())
            .expect_err("denied")
            .contains("permission denied"));
    }),
    ("sweep its own scope", |a, _| {
        a.cli(&["sweep"], "").expect("sweep");
    }),
    ("history of the victim's ids", |a, v| {
        for id in [&v.fact_id, &v.episode_id] {
            same_as_absent(
                |x| a.cli(&["history", "--id", x], "").unwrap_or_else(|e| e),
                id,
            );
        }
    }),
    ("review the victim's ids", |a, v| {
        for id in [&v.fact_id, &v.episode_id] {
            for verdict in ["approve", "reject"] {
                same_as_absent(
                    |x| {
                        let line = json!({"id": x, "revision": 1, "verdict": verdict});
                        a.cli(&["review"], &line.to_string()).unwrap_or_else(|e| e)
                    },
                    id,
                );
            }
        }
    }),
    ("list its own scope", |a, v| {
        let out = a.cli(&["list"], "").expect("list");
        assert!(
            !out.contains(&v.fact_id) && !out.contains(&v.episode_id),
            "{out}"
        );
    }),
    ("operations record and get in the victim's scope", |a, v| {
        let record = json!({"operation_id": OPERATION, "scope": v.who.scope(),
            "tool": "rotate_vault", "status": "failed", "idempotency_key": v.op_key});
        let lookup = json!({"operation_id": OPERATION, "scope": v.who.scope()});
        for (cmd, line) in [("record", record), ("get", lookup)] {
            let e = a
                .cli(&["operations", cmd], &line.to_string())
                .expect_err("another scope");
            assert!(e.contains("permission denied"), "{cmd}: {e}");
        }
    }),
    (
        "operations get and record the victim's operation id as its own",
        |a, v| {
            let lookup = json!({"operation_id": OPERATION, "scope": a.own_scope()});
            let out = a
                .cli(&["operations", "get"], &lookup.to_string())
                .expect("get");
            assert!(!out.contains(&v.op_key), "{out}");
            // Its own operation of that id (or a new one): answered or refused
            // about its own record, never the victim's.
            let record = json!({"operation_id": OPERATION, "scope": a.own_scope(),
            "tool": "rotate_vault", "status": "unknown",
            "idempotency_key": format!("vault-rotation-{}", a.who.tag())});
            let out = a
                .cli(&["operations", "record"], &record.to_string())
                .unwrap_or_else(|e| e);
            assert!(!out.contains(&v.who.tag()), "{out}");
        },
    ),
];

fn post_one(a: &Attacker, path: &str, item: Value) -> (u16, String) {
    a.http("POST", path, Some(json!([item])))
}

/// Every endpoint of `engram serve`, with the victim's material.
const HTTP: &[Attack] = &[
    (
        "POST /v1/classify and /v1/remember in the victim's scope",
        |a, v| {
            for path in ["/v1/classify", "/v1/remember"] {
                let (status, body) = post_one(a, path, candidate(v.who.scope(), &v.known, "x"));
                assert_eq!(status, 403, "{path}: {body}");
            }
        },
    ),
    (
        "POST /v1/classify and /v1/remember the victim's erased content",
        |a, v| {
            for path in ["/v1/classify", "/v1/remember"] {
                let (status, body) = post_one(a, path, erased_candidate(a, v));
                assert_eq!(status, 200, "{path}: {body}");
                not_blocked(&body);
            }
        },
    ),
    (
        "POST /v1/import into the victim's scope and under its external id",
        |a, v| {
            let theirs = json!({"external_id": v.external_id, "kind": "episodic", "text": v.known,
            "scope": v.who.scope(), "source": {"kind": "user", "ref": v.source}});
            assert_eq!(post_one(a, "/v1/import", theirs).0, 403);
            let own = json!({"external_id": v.external_id, "kind": "episodic", "text": format!("mine: {}", v.erased),
            "scope": a.own_scope(), "source": {"kind": "user", "ref": "http-import"}, "occurred_at": "2026-07-31T09:00:00Z"});
            let (status, body) = post_one(a, "/v1/import", own);
            assert_eq!(status, 200, "{body}");
            assert!(!body.contains(&v.episode_id), "{body}");
        },
    ),
    ("POST /v1/recall and /v1/pack", |a, v| {
        let q = json!({"query": v.known, "scope": v.who.scope()});
        assert_eq!(post_one(a, "/v1/recall", q).0, 403);
        let q = json!({"query": format!("{} vault code word", v.known), "scope": a.own_scope(), "k": 50});
        let (status, body) = post_one(a, "/v1/recall", q);
        assert_eq!(status, 200, "{body}");
        assert!(
            !body.contains(&v.fact_id) && !body.contains(&v.episode_id),
            "{body}"
        );
        let p = json!({"budget": 400, "scope": v.who.scope(), "query": v.known});
        assert_eq!(a.http("POST", "/v1/pack", Some(p)).0, 403);
        let p = json!({"budget": 800, "scope": a.own_scope(), "query": v.known});
        assert_eq!(a.http("POST", "/v1/pack", Some(p)).0, 200);
    }),
    (
        "POST /v1/forget with the victim's ids, key, words and source",
        |a, v| {
            for id in [&v.fact_id, &v.episode_id] {
                same_as_absent(
                    |x| {
                        let (status, body) = post_one(a, "/v1/forget", json!({"memory_id": x}));
                        format!("{status} {body}")
                    },
                    id,
                );
            }
            for sel in [
                json!({"scope": v.who.scope(), "subject": v.subject, "predicate": v.predicate}),
                json!({"scope": v.who.scope(), "text": v.known}),
                json!({"scope": v.who.scope(), "source_ref": v.source}),
            ] {
                assert_eq!(post_one(a, "/v1/forget", sel).0, 403);
            }
            for sel in [
                json!({"scope": a.own_scope(), "subject": v.subject, "predicate": v.predicate}),
                json!({"scope": a.own_scope(), "text": v.known}),
                json!({"scope": a.own_scope(), "source_ref": v.source}),
            ] {
                let (status, body) = post_one(a, "/v1/forget", sel);
                assert_eq!(status, 200, "{body}");
                assert!(
                    !body.contains(&v.fact_id) && !body.contains(&v.episode_id),
                    "{body}"
                );
            }
        },
    ),
    ("POST /v1/sweep of the victim's scope", |a, v| {
        assert_eq!(
            a.http("POST", "/v1/sweep", Some(json!({"scope": v.who.scope()})))
                .0,
            403
        );
        assert_eq!(a.http("POST", "/v1/sweep", Some(json!({}))).0, 200);
    }),
    ("GET /v1/memories of the victim's scope", |a, v| {
        let mut q = format!("/v1/memories?tenant={}", v.who.tenant);
        if let Some(u) = v.who.user {
            q.push_str(&format!("&user={u}"));
        }
        assert_eq!(a.http("GET", &q, None).0, 403, "{q}");
        let (status, body) = a.http("GET", "/v1/memories", None);
        assert_eq!(status, 200);
        assert!(!body.contains(&v.fact_id), "{body}");
    }),
    (
        "GET /v1/memories/{id}/history of the victim's ids",
        |a, v| {
            for id in [&v.fact_id, &v.episode_id] {
                same_as_absent(
                    |x| {
                        let (status, body) =
                            a.http("GET", &format!("/v1/memories/{x}/history"), None);
                        format!("{status} {body}")
                    },
                    id,
                );
            }
        },
    ),
    (
        "POST /v1/review and /inspector/review of the victim's ids",
        |a, v| {
            for (id, path) in [&v.fact_id, &v.episode_id]
                .into_iter()
                .flat_map(|id| ["/v1/review", "/inspector/review"].map(|p| (id, p)))
            {
                same_as_absent(
                    |x| {
                        let (status, body) = post_one(
                            a,
                            path,
                            json!({"id": x, "revision": 1, "verdict": "reject"}),
                        );
                        format!("{status} {body}")
                    },
                    id,
                );
            }
        },
    ),
    (
        "POST /v1/operations/record and /v1/operations/get with the victim's operation",
        |a, v| {
            let record = json!({"operation_id": OPERATION, "scope": v.who.scope(),
                "tool": "rotate_vault", "status": "failed", "idempotency_key": v.op_key});
            assert_eq!(post_one(a, "/v1/operations/record", record).0, 403);
            let theirs = json!({"operation_id": OPERATION, "scope": v.who.scope()});
            assert_eq!(post_one(a, "/v1/operations/get", theirs).0, 403);
            let own = json!({"operation_id": OPERATION, "scope": a.own_scope()});
            let (status, body) = post_one(a, "/v1/operations/get", own);
            assert_eq!(status, 200, "{body}");
            assert!(!body.contains(&v.op_key), "{body}");
        },
    ),
    ("GET /v1/info, /healthz, /inspector/whoami", |a, _| {
        for path in ["/v1/info", "/healthz", "/inspector/whoami"] {
            assert_eq!(a.http("GET", path, None).0, 200, "{path}");
        }
    }),
];

/// Every tool of `engram mcp` (its scope is the server's principal: the
/// victim can only be named by ids and words).
const MCP: &[Attack] = &[
    ("remember the victim's erased content", |a, v| {
        let (err, out) = a.mcp(
            "remember",
            json!({"text": format!("From now on my locker note is {}", v.erased),
            "source": {"kind": "user", "ref": v.erased_source}, "kind_hint": "semantic", "subject": v.subject,
            "predicate": v.predicate, "object": v.erased}),
        );
        assert!(!err, "{out}");
        not_blocked(&out);
    }),
    ("recall and pack_context with the victim's words", |a, v| {
        let (_, out) = a.mcp(
            "recall",
            json!({"query": format!("{} vault code word", v.known), "k": 50}),
        );
        assert!(
            !out.contains(&v.fact_id) && !out.contains(&v.episode_id),
            "{out}"
        );
        a.mcp("pack_context", json!({"budget": 800, "query": v.known}));
    }),
    ("forget with the victim's ids", |a, v| {
        for id in [&v.fact_id, &v.episode_id] {
            same_as_absent(|x| a.mcp("forget", json!({"memory_id": x})).1, id);
        }
    }),
    ("forget with the victim's key, words and source", |a, v| {
        for args in [
            json!({"subject": v.subject, "predicate": v.predicate}),
            json!({"text": v.known}),
            json!({"source_ref": v.source}),
        ] {
            let (_, out) = a.mcp("forget", args);
            assert!(
                !out.contains(&v.fact_id) && !out.contains(&v.episode_id),
                "{out}"
            );
        }
    }),
    ("review_memories of the victim's ids", |a, v| {
        for id in [&v.fact_id, &v.episode_id] {
            same_as_absent(
                |x| {
                    let items = json!({"items": [{"id": x, "revision": 1, "verdict": "approve"}]});
                    a.mcp("review_memories", items).1
                },
                id,
            );
        }
    }),
    (
        "get_operation and record_operation with the victim's operation id",
        |a, v| {
            let (_, out) = a.mcp("get_operation", json!({"operation_id": OPERATION}));
            assert!(!out.contains(&v.op_key), "{out}");
            let (_, out) = a.mcp(
                "record_operation",
                json!({"operation_id": OPERATION, "tool": "rotate_vault", "status": "unknown",
                    "idempotency_key": format!("vault-rotation-{}", a.who.tag())}),
            );
            assert!(!out.contains(&v.who.tag()), "{out}");
        },
    ),
    (
        "list_memories and memory_history of the victim's ids",
        |a, v| {
            let (_, out) = a.mcp("list_memories", json!({}));
            assert!(!out.contains(&v.fact_id), "{out}");
            for id in [&v.fact_id, &v.episode_id] {
                same_as_absent(|x| a.mcp("memory_history", json!({"id": x})).1, id);
            }
        },
    ),
];

fn run_suite(d: Deployment) {
    let victims: Vec<Victim> = PRINCIPALS.iter().map(|w| plant(&d, *w)).collect();
    let dump_of = |v: &Victim| d.dump(v.who.tenant, v.who.user);
    for v in &victims {
        assert!(
            dump_of(v).contains(&v.hidden),
            "{}: the victim's rows are dumped",
            d.kind()
        );
    }
    let keys = format!(
        "{}.keys",
        engram_tests::temp_db(&format!("hostile-{}-keys", d.kind()))
    );
    let _ = std::fs::remove_file(&keys);
    // A user-pinned attacker (its victims: the other user of its tenant and
    // the other tenant's users) and a tenant-wide one (the other tenant's).
    let attackers = [
        Who {
            tenant: "acme",
            user: Some("u1"),
        },
        Who {
            tenant: "acme",
            user: None,
        },
    ];
    let keyed: Vec<(Who, String)> = attackers
        .iter()
        .map(|w| (*w, add_key(&d, &keys, w.tenant, w.user)))
        .collect();
    let http = Http::start(&d, &keys);
    let mut calls = 0;
    for (who, key) in keyed {
        let targets: Vec<&Victim> = victims.iter().filter(|v| !who.covers(&v.who)).collect();
        let before: Vec<String> = targets.iter().map(|v| dump_of(v)).collect();
        let a = Attacker {
            who,
            d: &d,
            http: &http,
            key,
            mcp: RefCell::new(Mcp::start(&d, who.tenant, who.user)),
            seen: RefCell::new(Vec::new()),
        };
        for v in &targets {
            for (surface, table) in [("cli", CLI), ("http", HTTP), ("mcp", MCP)] {
                for (name, attack) in table {
                    eprintln!("{}: {who:?} → {:?}: {surface}: {name}", d.kind(), v.who);
                    attack(&a, v);
                    calls += 1;
                }
            }
        }
        for v in &targets {
            for answer in a.seen.borrow().iter() {
                assert!(
                    !answer.contains(&v.hidden),
                    "{who:?} read {:?}'s words: {answer}",
                    v.who
                );
            }
        }
        for (v, b) in targets.iter().zip(&before) {
            let after = dump_of(v);
            assert!(
                after == *b,
                "{}: {who:?} changed {:?}'s rows:\nbefore:\n{b}\nafter:\n{after}",
                d.kind(),
                v.who
            );
        }
    }
    drop(http);
    let entries = CLI.len() + HTTP.len() + MCP.len();
    assert_eq!(calls, 5 * entries, "every entry ran against every victim");
    // Nothing the attackers forgot blocks a victim: each remembers its own
    // words again, from a tool.
    for v in &victims {
        let mut args = vec!["remember"];
        args.extend(v.who.flags());
        let c = json!({"text": format!("From now on the vault spare word is {}", v.known),
            "scope": v.who.scope(), "source": {"kind": "tool", "ref": "after"},
            "kind_hint": "semantic", "subject": format!("spare:{}", v.who.tag()),
            "predicate": "word", "object": v.known});
        let out = d.cli(&args, &c.to_string()).expect("remember");
        assert!(!out.contains("\"rejected\""), "{:?} blocked: {out}", v.who);
        not_blocked(&out);
    }
}

#[test]
fn no_principal_reaches_another_on_sqlite() {
    run_suite(Deployment::sqlite(
        "hostile-tenant",
        env!("CARGO_BIN_EXE_engram-cli"),
        NOW,
    ));
}

#[test]
fn no_principal_reaches_another_on_postgres() {
    run_suite(Deployment::postgres(
        "hostile",
        env!("CARGO_BIN_EXE_engram-cli"),
        NOW,
    ));
}
