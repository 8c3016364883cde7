//! Conversions between the host's WIT types (wasmtime bindgen) and the
//! guest's (wit-bindgen), so the native side of the wasm/native ratio runs
//! the policy on exactly the inputs and store answers the component gets.
//! Both are generated from the same WIT, so the shapes match field for field.

use crate::bindings as h;
use engram_guest::types as g;
use engram_guest::wit_store as gs;

/// A by-value conversion between the two bindings' types.
pub trait Cv<T> {
    fn cv(self) -> T;
}

macro_rules! same {
    ($($t:ty),*) => { $(impl Cv<$t> for $t { fn cv(self) -> $t { self } })* };
}
same!(String, bool, u8, u32, u64, i32, i64, f32, f64);

impl<A: Cv<B>, B> Cv<Vec<B>> for Vec<A> {
    fn cv(self) -> Vec<B> {
        self.into_iter().map(Cv::cv).collect()
    }
}

impl<A: Cv<B>, B> Cv<Option<B>> for Option<A> {
    fn cv(self) -> Option<B> {
        self.map(Cv::cv)
    }
}

macro_rules! rec {
    ($from:ident :: $ty:ident => $to:ident :: $ty2:ident { $($f:ident),* $(,)? }) => {
        impl Cv<$to::$ty2> for $from::$ty {
            fn cv(self) -> $to::$ty2 {
                $to::$ty2 { $($f: self.$f.cv()),* }
            }
        }
    };
}

macro_rules! enm {
    ($from:ident :: $ty:ident => $to:ident :: $ty2:ident { $($v:ident),* $(,)? }) => {
        impl Cv<$to::$ty2> for $from::$ty {
            fn cv(self) -> $to::$ty2 {
                match self { $($from::$ty::$v => $to::$ty2::$v),* }
            }
        }
    };
}

macro_rules! both_ways {
    (rec $ty:ident { $($f:ident),* $(,)? }) => {
        rec!(h::$ty => g::$ty { $($f),* });
        rec!(g::$ty => h::$ty { $($f),* });
    };
    (enm $ty:ident { $($v:ident),* $(,)? }) => {
        enm!(h::$ty => g::$ty { $($v),* });
        enm!(g::$ty => h::$ty { $($v),* });
    };
}

both_ways!(rec Datetime { epoch_ms, offset_minutes });
both_ways!(rec Scope { tenant, user, project, thread, agent });
both_ways!(rec Entry { key, value });
both_ways!(rec Source { kind, reference });
both_ways!(rec MemoryRef { id, revision });
both_ways!(rec SemanticPayload { subject, predicate, object, condition });
both_ways!(rec EpisodicPayload { occurred_at, time_expression, actors, context, actions, outcome, success });
both_ways!(rec ProcedureStep { id, action, required, side_effect });
both_ways!(rec ProceduralPayload { goal, preconditions, steps, guards, recovery, authority });
both_ways!(rec Provenance { source, source_event_ids, external_id, extractor_version, policy_version });
both_ways!(rec Memory {
    id, revision, kind, scope, text, payload, provenance, confidence, sensitivity, observed_at,
    valid_from, valid_to, status, supersedes, superseded_by, created_at, updated_at, retention,
    access_count, last_accessed, entities, embedding
});
both_ways!(rec Candidate {
    id, text, scope, source, observed_at, confidence, kind_hint, subject, predicate, object,
    condition, occurred_at, valid_from, valid_to, entities, embedding
});
both_ways!(rec Query {
    id, text, scope, k, as_of, kinds, entities, embedding, sensitivity_ceiling, explain_rejected
});
both_ways!(rec ImportRecord { external_id, kind, candidate });
both_ways!(rec Message { reference, role, text, priority });
both_ways!(rec Snippet { reference, text });
both_ways!(rec RecallOptions { k, as_of, kinds });
both_ways!(rec PackRequest { budget, scope, query, system, state, messages, knowledge, artifacts, recall });

both_ways!(enm MemoryKind { Semantic, Episodic, Procedural });
both_ways!(enm CandidateKind { Semantic, Episodic, Procedural, Working, None });
both_ways!(enm SourceKind { User, System, Document, Tool, Behavior, Agent });
both_ways!(enm Sensitivity { Public, Internal, Personal, Sensitive });
both_ways!(enm Status { Pending, Active, Superseded, Retracted, Expired, Conflicted, Archived });
both_ways!(enm Retention { Ephemeral, Standard, Durable, Audit });
both_ways!(enm Role { System, User, Assistant, Tool });
both_ways!(enm Disposition { Active, Pending, Working, Rejected });

impl Cv<g::Payload> for h::Payload {
    fn cv(self) -> g::Payload {
        match self {
            h::Payload::Semantic(p) => g::Payload::Semantic(p.cv()),
            h::Payload::Episodic(p) => g::Payload::Episodic(p.cv()),
            h::Payload::Procedural(p) => g::Payload::Procedural(p.cv()),
        }
    }
}
impl Cv<h::Payload> for g::Payload {
    fn cv(self) -> h::Payload {
        match self {
            g::Payload::Semantic(p) => h::Payload::Semantic(p.cv()),
            g::Payload::Episodic(p) => h::Payload::Episodic(p.cv()),
            g::Payload::Procedural(p) => h::Payload::Procedural(p.cv()),
        }
    }
}

// The store interface (only the directions the read-only adapter needs).
rec!(gs::Filter => h::Filter {
    scope, scope_match, kinds, statuses, valid_at, sensitivity_max, subject, predicate,
    condition, source_ref, exclude_archived
});
enm!(gs::ScopeMatch => h::ScopeMatch { Exact, Visible, Within });
rec!(gs::WeightedTerm => h::WeightedTerm { term, weight });
rec!(h::Stored => gs::Stored { memory, etag, length, frequencies });
rec!(h::TermStats => gs::TermStats { documents, average_length, frequencies });
rec!(h::Tombstone => gs::Tombstone { scope, fingerprint, length, kind, created_at });
rec!(h::Principal => gs::Principal { tenant, user, project });

impl Cv<gs::StoreError> for h::StoreError {
    fn cv(self) -> gs::StoreError {
        match self {
            h::StoreError::Denied(m) => gs::StoreError::Denied(m),
            h::StoreError::Conflict(m) => gs::StoreError::Conflict(m),
            h::StoreError::Invalid(m) => gs::StoreError::Invalid(m),
            h::StoreError::Backend(m) => gs::StoreError::Backend(m),
        }
    }
}
