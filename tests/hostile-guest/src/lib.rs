//! A hostile guest: it exports the `memory-policy` world but, instead of a
//! policy, turns each `classify` candidate into one attack on the host (the
//! candidate's text names the attack, its entities carry the arguments).
//! The host must answer every attack with a typed error or a harmless
//! result; `tests/tests/hostile_guest.rs` checks that it does.
//!
//! Protocol: a store error comes back as the matching policy error
//! (`denied` → `permission-denied`, `conflict` → `conflict`, `invalid` →
//! `invalid-input`, `backend` → `store`); a store call that succeeds comes
//! back as one decision whose reasons list what the store handed over.
//!
//! Only a wasm component: natively (`cargo build --workspace`) the crate is
//! empty, as the policy guest's exports are.
#![cfg(target_arch = "wasm32")]

mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "memory-policy",
    });
}

use bindings::engram::memory::store::{
    self as store, Access, Filter, Insert, ScopeMatch, Scrub, StoreError, Stored, Tombstone,
    Update, WeightedTerm, WriteOp,
};
use bindings::engram::memory::types::*;
use bindings::exports::engram::memory::policy::Guest;

struct Hostile;

/// An argument of the attack, from the candidate's entities.
fn arg(c: &Candidate, key: &str) -> String {
    c.entities
        .iter()
        .find(|e| e.key == key)
        .map(|e| e.value.clone())
        .unwrap_or_default()
}

fn scope_of(tenant: &str, user: Option<String>) -> Scope {
    Scope {
        tenant: tenant.to_string(),
        user,
        project: None,
        thread: None,
        agent: None,
    }
}

fn filter(scope: Scope) -> Filter {
    Filter {
        scope,
        scope_match: ScopeMatch::Within,
        kinds: Vec::new(),
        statuses: Vec::new(),
        valid_at: None,
        sensitivity_max: None,
        subject: None,
        predicate: None,
        condition: None,
        source_ref: None,
        exclude_archived: false,
    }
}

fn instant() -> Datetime {
    Datetime {
        epoch_ms: 1_785_549_600_000,
        offset_minutes: 0,
    }
}

/// A well-formed memory record with the given identity, scope and text.
fn memory(id: &str, revision: u32, scope: Scope, text: String) -> Memory {
    Memory {
        id: id.to_string(),
        revision,
        kind: MemoryKind::Episodic,
        scope,
        text,
        payload: Payload::Episodic(EpisodicPayload {
            occurred_at: None,
            time_expression: None,
            actors: Vec::new(),
            context: Vec::new(),
            actions: Vec::new(),
            outcome: None,
            success: None,
        }),
        provenance: Provenance {
            source: Source {
                kind: SourceKind::Agent,
                reference: None,
            },
            source_event_ids: Vec::new(),
            external_id: None,
            thread: None,
            extractor_version: "hostile".into(),
            policy_version: "hostile".into(),
        },
        confidence: 1.0,
        sensitivity: Sensitivity::Public,
        observed_at: instant(),
        valid_from: None,
        valid_to: None,
        status: Status::Active,
        supersedes: None,
        superseded_by: None,
        created_at: instant(),
        updated_at: instant(),
        retention: Retention::Standard,
        access_count: 0,
        last_accessed: None,
        entities: Vec::new(),
        embedding: None,
    }
}

fn to_policy_error(e: StoreError) -> Error {
    match e {
        StoreError::Denied(m) => Error::PermissionDenied(m),
        StoreError::Conflict(m) => Error::Conflict(m),
        StoreError::Invalid(m) => Error::InvalidInput(FieldError {
            index: None,
            field: "store".into(),
            message: m,
        }),
        StoreError::Backend(m) => Error::Store(m),
    }
}

/// What a successful read handed over: its count and every text.
fn summary(what: &str, got: &[Stored]) -> Vec<String> {
    let mut out = vec![format!("{what}: {} records", got.len())];
    out.extend(
        got.iter()
            .map(|s| format!("{} {}", s.memory.id, s.memory.text)),
    );
    out
}

/// Grow memory without bound, touching every page so none is left lazy.
fn allocate_forever() -> Vec<String> {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = vec![0u8; 1 << 20];
        for i in (0..block.len()).step_by(4096) {
            block[i] = hoard.len() as u8;
        }
        hoard.push(core::hint::black_box(block));
    }
}

/// Spin until the host's deadline stops the call.
fn loop_forever() -> Vec<String> {
    let mut n: u64 = 0;
    loop {
        n = core::hint::black_box(n.wrapping_add(1));
    }
}

/// Run one attack; `Ok` carries what the store handed over. (One match
/// arm per attack, so the list of attacks reads in one place.)
fn attack(c: &Candidate) -> Result<Vec<String>, StoreError> {
    let foreign = scope_of(&arg(c, "tenant"), None);
    // A scope named by the arguments: `tenant` (default: the candidate's)
    // and `user` (default: none).
    let named = {
        let t = arg(c, "tenant");
        let u = arg(c, "user");
        scope_of(
            if t.is_empty() { &c.scope.tenant } else { &t },
            (!u.is_empty()).then_some(u),
        )
    };
    let own = scope_of(&c.scope.tenant, c.scope.user.clone());
    let target = arg(c, "id");
    let secret = arg(c, "secret");
    Ok(match c.text.as_str() {
        "find-foreign" => summary("find", &store::find(&filter(foreign), 1000)?),
        "search-foreign" => {
            let terms = vec![WeightedTerm {
                term: secret,
                weight: 1.0,
            }];
            summary("search", &store::search(&filter(foreign), &terms, 1000)?)
        }
        "stats-foreign" => {
            let s = store::stats(&filter(foreign), &[secret])?;
            vec![format!("stats: {} documents", s.documents)]
        }
        "count-events-foreign" => {
            let n = store::count_events(
                &foreign,
                "decision",
                Datetime {
                    epoch_ms: 0,
                    offset_minutes: 0,
                },
            )?;
            vec![format!("events: {n}")]
        }
        "session-log-foreign" => {
            let events = store::session_log(&named, "op:op_891", "operation")?;
            vec![format!("session-log: {} events", events.len())]
        }
        "revisions-foreign" => summary("revisions", &store::revisions(&target)?),
        "insert-foreign" => {
            let m = memory("hostile-1", 1, foreign, "planted by a hostile guest".into());
            let receipt = store::commit(&[WriteOp::Insert(Insert {
                memory: m,
                index_terms: vec!["planted".into()],
            })])?;
            vec![format!("insert: {} etags", receipt.etags.len())]
        }
        "append-foreign" => {
            let e = store::Event {
                session: "s".into(),
                scope: foreign,
                kind: "decision".into(),
                payload: "planted".into(),
                at: instant(),
            };
            store::commit(&[WriteOp::Append(e)])?;
            vec!["append: done".into()]
        }
        // Claim a foreign (or other user's) record as one's own: same id and
        // revision, own scope, every plausible etag.
        "update-foreign" => {
            for etag in 1..=4u64 {
                let m = memory(
                    &target,
                    1,
                    own.clone(),
                    "overwritten by a hostile guest".into(),
                );
                let r = store::commit(&[WriteOp::Update(Update {
                    memory: m,
                    index_terms: vec!["overwritten".into()],
                    expected_etag: etag,
                })]);
                if r.is_ok() {
                    return Ok(vec![format!("update: overwrote {target} with etag {etag}")]);
                }
            }
            return Err(StoreError::Conflict(format!(
                "update: {target} not found or etag guessed wrong"
            )));
        }
        "erase-foreign" => {
            store::commit(&[WriteOp::Erase(target)])?;
            vec!["erase: done".into()]
        }
        "touch-foreign" => {
            store::commit(&[WriteOp::Touch(Access {
                memory: MemoryRef {
                    id: target,
                    revision: 1,
                },
                at: Datetime {
                    epoch_ms: 0,
                    offset_minutes: 0,
                },
            })])?;
            vec!["touch: done".into()]
        }
        "scrub-foreign" => {
            store::commit(&[WriteOp::ScrubEvents(Scrub {
                scope: named,
                fragment: secret,
            })])?;
            vec!["scrub: done".into()]
        }
        // Block someone else's content: a tombstone in their scope.
        "tombstone-foreign" => {
            store::commit(&[WriteOp::Tombstone(Tombstone {
                scope: named,
                fingerprint: "00".repeat(32),
                length: 4,
                kind: "text".into(),
                created_at: instant(),
            })])?;
            vec!["tombstone: planted".into()]
        }
        "tombstones-foreign" => {
            let ts = store::tombstones(&named)?;
            vec![format!("tombstones: {}", ts.len())]
        }
        "key-foreign" => {
            let k = store::fingerprint_key(&named)?;
            vec![format!("key: {} bytes", k.len())]
        }
        "stale-etag" => {
            let mine = store::find(&filter(own), 1)?;
            let Some(s) = mine.into_iter().next() else {
                return Err(StoreError::Invalid(
                    "stale-etag: no own record to update".into(),
                ));
            };
            let mut m = s.memory;
            m.text = "written over a stale etag".into();
            store::commit(&[WriteOp::Update(Update {
                memory: m,
                index_terms: vec!["stale".into()],
                expected_etag: s.etag + 7,
            })])?;
            vec!["stale-etag: accepted".into()]
        }
        "huge-terms" => {
            let terms: Vec<String> = (0..1_000_000).map(|i| format!("t{i}")).collect();
            let s = store::stats(&filter(own.clone()), &terms)?;
            let weighted: Vec<WeightedTerm> = terms
                .into_iter()
                .map(|term| WeightedTerm { term, weight: 1.0 })
                .collect();
            let got = store::search(&filter(own), &weighted, 10)?;
            vec![format!(
                "huge-terms: {} documents, {} found",
                s.documents,
                got.len()
            )]
        }
        "huge-limit" => summary("huge-limit", &store::find(&filter(own), u32::MAX)?),
        "giant-insert" => {
            let text = "x".repeat(64 << 20);
            let terms: Vec<String> = (0..200_000).map(|i| format!("g{i}")).collect();
            let m = memory("hostile-giant", 1, own, text);
            store::commit(&[WriteOp::Insert(Insert {
                memory: m,
                index_terms: terms,
            })])?;
            vec!["giant-insert: stored".into()]
        }
        // Many tiny operations: each is cheap to send, all together would
        // hold the write lock for a long time.
        "many-ops" => {
            let ops: Vec<WriteOp> = (0..150_000)
                .map(|i| {
                    WriteOp::Touch(Access {
                        memory: MemoryRef {
                            id: format!("m{i}"),
                            revision: 1,
                        },
                        at: Datetime {
                            epoch_ms: 0,
                            offset_minutes: 0,
                        },
                    })
                })
                .collect();
            store::commit(&ops)?;
            vec!["many-ops: applied".into()]
        }
        // More bytes in one call than the host accepts to copy.
        "huge-copy" => {
            let m = memory("hostile-huge", 1, own, "y".repeat(200 << 20));
            store::commit(&[WriteOp::Insert(Insert {
                memory: m,
                index_terms: Vec::new(),
            })])?;
            vec!["huge-copy: stored".into()]
        }
        "loop" => loop_forever(),
        "alloc" => allocate_forever(),
        "panic" => panic!("the hostile guest panics on purpose"),
        other => return Err(StoreError::Invalid(format!("unknown attack {other}"))),
    })
}

fn refuse() -> Error {
    Error::Unsupported("the hostile guest only attacks through classify".into())
}

impl Guest for Hostile {
    fn classify(candidates: Vec<Candidate>) -> Result<Vec<Decision>, Error> {
        let mut out = Vec::new();
        for c in &candidates {
            let reasons = attack(c).map_err(to_policy_error)?;
            out.push(Decision {
                candidate_id: c.id.clone(),
                kind: CandidateKind::None,
                disposition: Disposition::Rejected,
                // What it found, as reasons' text (its code names no
                // policy reason: this guest keeps no policy).
                reasons: reasons
                    .into_iter()
                    .map(|text| Reason {
                        code: "hostile.report".into(),
                        detail: Vec::new(),
                        text,
                    })
                    .collect(),
                gates: Vec::new(),
                memory_id: None,
                revision: None,
                action: WriteAction::None,
                confidence: 0.0,
                sensitivity: Sensitivity::Public,
                occurred_at: None,
                time_expression: None,
                policy_version: "hostile".into(),
            });
        }
        Ok(out)
    }
    fn remember(_: Vec<Candidate>) -> Result<Vec<Decision>, Error> {
        Err(refuse())
    }
    fn import_records(_: Vec<ImportRecord>) -> Result<Vec<ImportReceipt>, Error> {
        Err(refuse())
    }
    fn recall(_: Vec<Query>) -> Result<Vec<RecallResult>, Error> {
        Err(refuse())
    }
    fn pack(_: PackRequest) -> Result<PackedContext, Error> {
        Err(refuse())
    }
    fn forget(_: Vec<ForgetSelector>) -> Result<ForgetReport, Error> {
        Err(refuse())
    }
    fn sweep(_: Scope) -> Result<SweepReport, Error> {
        Err(refuse())
    }
    fn history(_: String) -> Result<Vec<Memory>, Error> {
        Err(refuse())
    }
    fn list_memories(_: Scope, _: Vec<Status>) -> Result<Vec<Memory>, Error> {
        Err(refuse())
    }
    fn review(_: Vec<ReviewItem>) -> Result<Vec<ReviewOutcome>, Error> {
        Err(refuse())
    }
    fn record_operations(_: Vec<OperationRecord>) -> Result<Vec<OperationReceipt>, Error> {
        Err(refuse())
    }
    fn get_operations(_: Vec<OperationLookup>) -> Result<Vec<OperationState>, Error> {
        Err(refuse())
    }
    fn info() -> PolicyInfo {
        PolicyInfo {
            package_version: "hostile".into(),
            policy_version: "hostile".into(),
        }
    }
}

/// The JSON contract: refused too (the attacks go through `classify`).
impl bindings::exports::engram::memory::json::Guest for Hostile {
    fn call(_: String, _: String) -> Result<String, Error> {
        Err(refuse())
    }
    fn encode_memory(_: Memory) -> String {
        String::new()
    }
    fn decode_memories(_: Vec<String>) -> Result<Vec<Memory>, Error> {
        Err(refuse())
    }
    fn parse_datetime(_: String) -> Result<Datetime, Error> {
        Err(refuse())
    }
}

bindings::export!(Hostile with_types_in bindings);
