//! Resolution of a new memory against the stored revisions of its id (for
//! semantic memories: its key, scope + subject + predicate + condition):
//! create, duplicate (merge provenance), supplement, supersede, conflict,
//! park for review, store as history, or treat as a temporary exception.
//!
//! Authority depends on what the fact is about (`config::FactDomain`): the
//! user owns their preferences; a system of record owns world and business
//! facts. Currently valid beats expired; among equals the later statement
//! from the same kind of source wins; anything else is undecidable and both
//! sides are kept as `conflicted` (seed 000 §七.2, seed 002 §7.16).

use crate::core::config::{FactDomain, Lifecycle, Policy};
use crate::core::model::{semantic_key, source_label};
use crate::types::{Datetime, Memory, Payload, Reason, Status};
use crate::wit_store::Stored;
use engram_contract::reason::ReasonCode;

/// What to do with a new memory.
#[derive(Debug, Clone)]
pub enum Resolution {
    /// Nothing live with this key: store it as the next revision of its id.
    Create,
    /// The same content is stored: merge provenance (and any entities it
    /// lacks) into it. `corroborates` when the new source is independent
    /// evidence (not a copy along the same source chain).
    Duplicate { into: Stored, corroborates: bool },
    /// It becomes the next revision and these revisions become
    /// `superseded` by it. `confirms` when it states the same content (a more
    /// authoritative source confirming it).
    Supersede {
        replaced: Vec<Stored>,
        confirms: bool,
    },
    /// It contradicts these live revisions and neither wins: all are kept
    /// as `conflicted`.
    Conflict { with: Vec<Stored> },
    /// It is stored as the next revision, `pending` review, without touching
    /// the live ones (pending input, or outranked by what is live).
    Park,
    /// It describes the past: stored as the next revision, `expired`, with
    /// its validity closed at `valid_to`.
    Historical { valid_to: Option<Datetime> },
    /// A temporary exception to a standing preference: it does not supersede
    /// it and is kept only as task state.
    Exception { standing: Stored },
    /// It withdraws the value of its key: these live revisions become
    /// `retracted`.
    Retract { retracted: Vec<Stored> },
}

/// A resolution and why.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub resolution: Resolution,
    pub reason: Option<Reason>,
}

fn outcome(resolution: Resolution, reason: Option<Reason>) -> Outcome {
    Outcome { resolution, reason }
}

/// What a semantic memory is about, which decides whose word counts.
pub fn domain_of(m: &Memory, lc: &Lifecycle) -> FactDomain {
    let Payload::Semantic(p) = &m.payload else {
        return FactDomain::World;
    };
    let subject = p.subject.trim().to_lowercase();
    let predicate = p.predicate.trim().to_lowercase();
    let about_user = lc
        .user_subject_prefixes
        .iter()
        .any(|x| subject.starts_with(x))
        || lc.user_subjects.contains(&subject.as_str())
        || m.scope
            .user
            .as_ref()
            .is_some_and(|u| subject == u.trim().to_lowercase());
    let preference = predicate.contains("preference")
        || lc
            .preference_predicate_prefixes
            .iter()
            .any(|x| predicate.starts_with(x));
    if about_user || preference {
        FactDomain::Preference
    } else {
        FactDomain::World
    }
}

fn domain_name(d: FactDomain) -> &'static str {
    match d {
        FactDomain::Preference => "the user's own preference",
        FactDomain::World => "a world or business fact",
    }
}

/// When a revision's validity starts: `valid-from`, else when it was said.
pub fn effective_start(m: &Memory) -> Datetime {
    m.valid_from.unwrap_or(m.observed_at)
}

fn normalised(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Do two memories state the same thing?
pub fn same_content(a: &Memory, b: &Memory) -> bool {
    match (&a.payload, &b.payload) {
        (Payload::Semantic(x), Payload::Semantic(y)) => {
            normalised(&x.object) == normalised(&y.object)
        }
        _ => normalised(&a.text) == normalised(&b.text),
    }
}

/// Is this a retraction: an explicit empty object, or a configured marker?
pub fn is_retraction(m: &Memory, lc: &Lifecycle) -> bool {
    match &m.payload {
        Payload::Semantic(p) => {
            let o = p.object.trim().to_lowercase();
            o.is_empty() || lc.retraction_objects.contains(&o.as_str())
        }
        _ => false,
    }
}

/// Does a memory's text say its value changes ("instead", "改为",
/// `vocab/cues/change.txt`)?
fn changes(m: &Memory) -> bool {
    !crate::vocab::cues_in(
        &crate::analysis::cues::fold(&m.text),
        crate::core::config::CUES.change,
    )
    .is_empty()
}

/// The document or system a reference points into: the part before its
/// fragment or version (`doc:api-guide#p3` → `doc:api-guide`).
fn origin_of(r: &str) -> &str {
    r.split(['#', '@', '?']).next().unwrap_or(r).trim()
}

/// Do two memories come from the same origin (the same document or
/// system, whatever part or version of it)?
fn same_origin(a: &Memory, b: &Memory) -> bool {
    match (
        a.provenance.source.reference.as_deref(),
        b.provenance.source.reference.as_deref(),
    ) {
        (Some(x), Some(y)) => origin_of(x) == origin_of(y),
        _ => false,
    }
}

/// Is `new` independent evidence for `old`, or a copy along the same source
/// chain (same event, a summary of it, an agent's restatement)? Inferences
/// and unreferenced sources never count as independent, and neither does
/// the same words from a source of the same kind: a document's sentence
/// copied into another document (a mirror, a page quoting it) is one claim
/// under two references, not two claims (seed 002 §7.16: 重复内容不等于独立
/// 证据). Another document saying it in its own words, or another kind of
/// origin (the system of record, the user), is evidence.
pub fn independent(new: &Memory, old: &Memory, policy: &Policy) -> bool {
    if policy.source(new.provenance.source.kind).inferred {
        return false;
    }
    if new.provenance.source.kind == old.provenance.source.kind
        && normalised(&new.text) == normalised(&old.text)
    {
        return false;
    }
    let Some(r) = new.provenance.source.reference.as_deref() else {
        return false;
    };
    let op = &old.provenance;
    !(op.source_event_ids.iter().any(|e| e == r)
        || op.source.reference.as_deref() == Some(r)
        || old.id == r
        || op.external_id.as_deref() == Some(r)
        || new
            .provenance
            .source_event_ids
            .iter()
            .any(|e| op.source_event_ids.contains(e)))
}

fn rev_label(s: &Stored) -> String {
    format!("{}#{}", s.memory.id, s.memory.revision)
}

fn ended_by(m: &Memory, now: Datetime) -> bool {
    m.valid_to.is_some_and(|t| t.epoch_ms <= now.epoch_ms)
}

/// Resolve `new` against `revisions`, every known revision of its id (the
/// store's, overlaid with the uncommitted batch's).
pub fn resolve(new: &Memory, revisions: &[Stored], now: Datetime, policy: &Policy) -> Outcome {
    let lc = &policy.lifecycle;
    let by_rev = |mut v: Vec<Stored>| {
        v.sort_by_key(|s| std::cmp::Reverse(s.memory.revision));
        v
    };
    let live: Vec<Stored> = by_rev(
        revisions
            .iter()
            .filter(|s| matches!(s.memory.status, Status::Active | Status::Conflicted))
            .cloned()
            .collect(),
    );
    let pending: Vec<Stored> = by_rev(
        revisions
            .iter()
            .filter(|s| s.memory.status == Status::Pending)
            .cloned()
            .collect(),
    );

    // Pending input never touches live revisions.
    if new.status == Status::Pending {
        if let Some(d) = live
            .iter()
            .chain(&pending)
            .find(|s| same_content(new, &s.memory))
        {
            return outcome(
                Resolution::Duplicate {
                    into: d.clone(),
                    corroborates: false,
                },
                Some(Reason::new(
                    ReasonCode::ResolveSameContent,
                    &[&rev_label(d)],
                )),
            );
        }
        return outcome(Resolution::Park, None);
    }

    // Episodes and procedures are identified by their content.
    if semantic_key(new).is_none() {
        return match live.first() {
            Some(d) => outcome(
                Resolution::Duplicate {
                    into: d.clone(),
                    corroborates: independent(new, &d.memory, policy),
                },
                Some(Reason::new(
                    ReasonCode::ResolveSameContent,
                    &[&rev_label(d)],
                )),
            ),
            None => outcome(Resolution::Create, None),
        };
    }

    let domain = domain_of(new, lc);
    let auth = |m: &Memory| lc.authority(domain, m.provenance.source.kind);
    let a_new = auth(new);
    let who = |m: &Memory| source_label(m.provenance.source.kind);
    // Pending revisions this one overrules (never used, so simply replaced).
    let overruled = |extra: Vec<Stored>| -> Vec<Stored> {
        let mut v = extra;
        v.extend(pending.iter().filter(|p| auth(&p.memory) <= a_new).cloned());
        v
    };

    if is_retraction(new, lc) {
        if live.is_empty() {
            return outcome(
                Resolution::Retract {
                    retracted: Vec::new(),
                },
                Some(Reason::new(ReasonCode::ResolveNothingToRetract, &[])),
            );
        }
        let top = live.iter().map(|s| auth(&s.memory)).max().unwrap_or(0);
        if a_new >= top {
            return outcome(
                Resolution::Retract {
                    retracted: live.clone(),
                },
                Some(Reason::new(
                    ReasonCode::ResolveWithdraws,
                    &[
                        who(new),
                        &live.iter().map(rev_label).collect::<Vec<_>>().join(", "),
                    ],
                )),
            );
        }
        return outcome(
            Resolution::Park,
            Some(Reason::new(
                ReasonCode::ResolveRetractionOutranked,
                &[who(new), &rev_label(&live[0]), who(&live[0].memory)],
            )),
        );
    }

    if live.is_empty() {
        let replaced = overruled(Vec::new());
        if replaced.is_empty() {
            return outcome(Resolution::Create, None);
        }
        let confirms = replaced.iter().any(|p| same_content(new, &p.memory));
        let reason = Reason::new(
            if confirms {
                ReasonCode::ResolveConfirmsPending
            } else {
                ReasonCode::ResolveOverrulesPending
            },
            &[
                who(new),
                &replaced
                    .iter()
                    .map(rev_label)
                    .collect::<Vec<_>>()
                    .join(", "),
            ],
        );
        return outcome(Resolution::Supersede { replaced, confirms }, Some(reason));
    }

    // A statement whose validity is already over is history, not news.
    if ended_by(new, now) {
        return outcome(
            Resolution::Historical {
                valid_to: new.valid_to,
            },
            Some(Reason::new(ReasonCode::ResolveValidityEnded, &[])),
        );
    }

    if let Some(d) = live.iter().find(|s| same_content(new, &s.memory)) {
        let others: Vec<&Stored> = live
            .iter()
            .filter(|s| s.memory.revision != d.memory.revision)
            .collect();
        let top_other = others.iter().map(|s| auth(&s.memory)).max();
        let decisive = a_new > auth(&d.memory) && others.is_empty()
            || top_other.is_some_and(|t| a_new > t && a_new >= auth(&d.memory))
            || ended_by(&d.memory, now);
        if decisive {
            let reason = if others.is_empty() {
                Reason::new(
                    ReasonCode::ResolveConfirms,
                    &[who(new), &rev_label(d), who(&d.memory)],
                )
            } else {
                Reason::new(ReasonCode::ResolveSidesWith, &[who(new), &rev_label(d)])
            };
            return outcome(
                Resolution::Supersede {
                    replaced: overruled(live.clone()),
                    confirms: true,
                },
                Some(reason),
            );
        }
        return outcome(
            Resolution::Duplicate {
                into: d.clone(),
                corroborates: independent(new, &d.memory, policy),
            },
            Some(Reason::new(
                ReasonCode::ResolveSameContent,
                &[&rev_label(d)],
            )),
        );
    }

    // Currently valid beats expired.
    let valid: Vec<&Stored> = live.iter().filter(|s| !ended_by(&s.memory, now)).collect();
    if valid.is_empty() {
        return outcome(
            Resolution::Supersede {
                replaced: overruled(live.clone()),
                confirms: false,
            },
            Some(Reason::new(
                ReasonCode::ResolveNoLongerValid,
                &[&rev_label(&live[0])],
            )),
        );
    }
    let top = valid.iter().map(|s| auth(&s.memory)).max().unwrap_or(0);
    let head = valid
        .iter()
        .max_by_key(|s| (auth(&s.memory), s.memory.revision))
        .copied()
        .unwrap_or(&live[0]);

    // A bounded statement against a standing preference is an exception.
    if domain == FactDomain::Preference
        && new.valid_to.is_some()
        && valid.iter().all(|s| s.memory.valid_to.is_none())
        && a_new <= top
    {
        return outcome(
            Resolution::Exception {
                standing: head.clone(),
            },
            Some(Reason::new(
                ReasonCode::ResolveException,
                &[&rev_label(head)],
            )),
        );
    }

    if a_new > top {
        return outcome(
            Resolution::Supersede {
                replaced: overruled(live.clone()),
                confirms: false,
            },
            Some(Reason::new(
                ReasonCode::ResolveOutranks,
                &[
                    who(new),
                    who(&head.memory),
                    domain_name(domain),
                    &rev_label(head),
                ],
            )),
        );
    }
    if a_new < top {
        return outcome(
            Resolution::Park,
            Some(Reason::new(
                ReasonCode::ResolveOutranked,
                &[
                    &rev_label(head),
                    who(&head.memory),
                    who(new),
                    domain_name(domain),
                ],
            )),
        );
    }
    let same_kind = valid
        .iter()
        .all(|s| s.memory.provenance.source.kind == new.provenance.source.kind);
    if same_kind {
        let latest = valid
            .iter()
            .map(|s| effective_start(&s.memory).epoch_ms)
            .max()
            .unwrap_or(i64::MIN);
        // Two sources of one kind stating different values for the same
        // moment: for a world fact, undecidable — both kept as conflicted
        // (seed 002 §7.16: 无法裁定时保留冲突), unless they are one source
        // chain (a new version of the same document). A person's own later
        // word, or an explicit change ("instead", "改为"), decides.
        let simultaneous = effective_start(new).epoch_ms == latest
            && domain == FactDomain::World
            && !changes(new)
            && valid.iter().all(|s| !same_origin(new, &s.memory));
        if simultaneous {
            return outcome(
                Resolution::Conflict { with: live.clone() },
                Some(Reason::new(
                    ReasonCode::ResolveSimultaneous,
                    &[who(new), &rev_label(head)],
                )),
            );
        }
        if effective_start(new).epoch_ms >= latest {
            return outcome(
                Resolution::Supersede {
                    replaced: overruled(live.clone()),
                    confirms: false,
                },
                Some(Reason::new(
                    ReasonCode::ResolveLater,
                    &[who(new), &rev_label(head)],
                )),
            );
        }
        let closes = valid
            .iter()
            .map(|s| effective_start(&s.memory))
            .min_by_key(|d| d.epoch_ms);
        let valid_to = match (new.valid_to, closes) {
            (Some(a), Some(b)) => Some(if a.epoch_ms < b.epoch_ms { a } else { b }),
            (a, b) => a.or(b),
        };
        return outcome(
            Resolution::Historical { valid_to },
            Some(Reason::new(ReasonCode::ResolveOlder, &[&rev_label(head)])),
        );
    }
    outcome(
        Resolution::Conflict { with: live.clone() },
        Some(Reason::new(
            ReasonCode::ResolveEqualAuthority,
            &[who(new), who(&head.memory), domain_name(domain)],
        )),
    )
}

/// Which of two memories about the same fact should a reader believe?
/// `Less` when `a` wins. Currently valid beats expired, then a narrower
/// scope beats a broader one, then authority for the fact's domain, then
/// the later statement. Used where revisions of different scopes meet
/// (recall, packing), since the store keeps one live revision per scope.
pub fn prefer(a: &Memory, b: &Memory, at: Datetime, policy: &Policy) -> std::cmp::Ordering {
    let lc = &policy.lifecycle;
    let valid = |m: &Memory| crate::core::time::within(at, m.valid_from, m.valid_to);
    let domain = domain_of(a, lc);
    let auth = |m: &Memory| lc.authority(domain, m.provenance.source.kind);
    valid(b)
        .cmp(&valid(a))
        .then_with(|| {
            crate::core::model::scope_depth(&b.scope)
                .cmp(&crate::core::model::scope_depth(&a.scope))
        })
        .then_with(|| auth(b).cmp(&auth(a)))
        .then_with(|| {
            effective_start(b)
                .epoch_ms
                .cmp(&effective_start(a).epoch_ms)
        })
        .then_with(|| a.id.cmp(&b.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{MemoryKind, Retention, Scope, Source, SourceKind};

    fn dt(ms: i64) -> Datetime {
        Datetime {
            epoch_ms: ms,
            offset_minutes: 0,
        }
    }

    fn mem(subject: &str, predicate: &str, object: &str, source: SourceKind) -> Memory {
        let mut m = crate::testing::test_fixtures::memory(
            "m-1",
            MemoryKind::Semantic,
            &format!("{subject} {predicate} {object}"),
            Scope {
                tenant: "acme".into(),
                user: Some("u42".into()),
                project: None,
                thread: None,
                agent: None,
            },
            dt(1_000),
        );
        m.payload = crate::testing::test_fixtures::semantic(subject, predicate, object);
        m.provenance.source = Source {
            kind: source,
            reference: Some("evt-1".into()),
        };
        m.provenance.source_event_ids = vec!["evt-1".into()];
        m.provenance.extractor_version = String::new();
        m.provenance.policy_version = String::new();
        m.confidence = 0.9;
        m.retention = Retention::Durable;
        m
    }

    fn stored(m: Memory) -> Stored {
        Stored {
            memory: m,
            etag: 1,
            length: 3,
            frequencies: Vec::new(),
        }
    }

    #[test]
    fn authority_depends_on_what_the_fact_is_about() {
        let p = Policy::default();
        let lc = &p.lifecycle;
        let about_user = mem("user:u42", "preferred_name", "王工", SourceKind::User);
        let own_id = mem("u42", "timezone", "Asia/Shanghai", SourceKind::User);
        let team_pref = mem("team:sre", "preferred_language", "zh", SourceKind::User);
        let world = mem(
            "service:payment",
            "database",
            "PostgreSQL 16",
            SourceKind::User,
        );
        assert_eq!(domain_of(&about_user, lc), FactDomain::Preference);
        assert_eq!(domain_of(&own_id, lc), FactDomain::Preference);
        assert_eq!(domain_of(&team_pref, lc), FactDomain::Preference);
        assert_eq!(domain_of(&world, lc), FactDomain::World);
        // USER_STATED > CMDB > DOC > AGENT_INFERRED where the user owns it;
        // the system of record first for business facts.
        let rank = |d, k| lc.authority(d, k);
        use SourceKind::*;
        assert!(rank(FactDomain::Preference, User) > rank(FactDomain::Preference, System));
        assert!(rank(FactDomain::Preference, System) > rank(FactDomain::Preference, Document));
        assert!(rank(FactDomain::Preference, Document) > rank(FactDomain::Preference, Agent));
        for k in [User, Document, Tool, Behavior, Agent] {
            assert!(rank(FactDomain::World, System) > rank(FactDomain::World, k));
        }
    }

    #[test]
    fn the_user_outranks_the_system_on_their_preference_but_not_on_business_facts() {
        let p = Policy::default();
        let now = dt(10_000);
        let old = stored(mem(
            "user:u42",
            "preferred_name",
            "小王",
            SourceKind::System,
        ));
        let mut new = mem("user:u42", "preferred_name", "王工", SourceKind::User);
        new.observed_at = dt(2_000);
        let r = resolve(&new, std::slice::from_ref(&old), now, &p);
        assert!(matches!(
            r.resolution,
            Resolution::Supersede {
                confirms: false,
                ..
            }
        ));

        let old = stored(mem("order:991", "status", "unpaid", SourceKind::System));
        let new = mem("order:991", "status", "paid", SourceKind::User);
        let r = resolve(&new, std::slice::from_ref(&old), now, &p);
        assert!(matches!(r.resolution, Resolution::Park), "{r:?}");
        assert!(r.reason.is_some_and(|r| r.text.contains("outranked")));
    }

    #[test]
    fn currently_valid_beats_expired() {
        let p = Policy::default();
        let mut old = mem("service:a", "owner", "alice", SourceKind::System);
        old.valid_to = Some(dt(5_000));
        let new = mem("service:a", "owner", "bob", SourceKind::Agent);
        let r = resolve(&new, &[stored(old)], dt(10_000), &p);
        assert!(
            matches!(r.resolution, Resolution::Supersede { .. }),
            "{r:?}"
        );
    }

    #[test]
    fn independence_follows_the_source_chain() {
        let p = Policy::default();
        let old = mem("service:a", "owner", "alice", SourceKind::Document);
        let mut copy = mem("service:a", "owner", "alice", SourceKind::Tool);
        assert!(!independent(&copy, &old, &p), "same reference");
        copy.provenance.source.reference = Some("m-1".into());
        copy.provenance.source_event_ids = vec!["m-1".into()];
        assert!(
            !independent(&copy, &old, &p),
            "derived from the memory itself"
        );
        copy.provenance.source.reference = Some("runbook-2".into());
        copy.provenance.source_event_ids = vec!["runbook-2".into()];
        assert!(independent(&copy, &old, &p));
        let mut inferred = copy.clone();
        inferred.provenance.source.kind = SourceKind::Agent;
        assert!(
            !independent(&inferred, &old, &p),
            "inferences are not evidence"
        );
    }

    #[test]
    fn a_narrower_valid_memory_is_preferred_to_a_global_one() {
        let p = Policy::default();
        let at = dt(3_000);
        let mut global = mem("service:a", "owner", "alice", SourceKind::System);
        global.scope.user = None;
        let narrow = mem("service:a", "owner", "bob", SourceKind::User);
        assert_eq!(prefer(&narrow, &global, at, &p), std::cmp::Ordering::Less);
        let mut expired = narrow.clone();
        expired.valid_to = Some(dt(2_000));
        assert_eq!(
            prefer(&expired, &global, at, &p),
            std::cmp::Ordering::Greater
        );
    }
}
