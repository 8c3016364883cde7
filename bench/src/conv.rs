//! Conversions between the host's store-interface types (wasmtime bindgen)
//! and the guest's (wit-bindgen), so the native side of the wasm/native
//! ratio runs the policy on exactly the store answers the component gets.
//! The data model's types (`engram:memory/types`) are one set of Rust types
//! for both (`engram_contract::types`): they pass unchanged.

use engram_guest::wit_store as gs;
use engram_host::bindings as h;

/// A by-value conversion between the two bindings' types.
pub trait Cv<T> {
    fn cv(self) -> T;
}

macro_rules! same {
    ($($t:ty),*) => { $(impl Cv<$t> for $t { fn cv(self) -> $t { self } })* };
}
same!(String, bool, u8, u32, u64, i32, i64, f32, f64);
same!(
    h::Datetime,
    h::Scope,
    h::Memory,
    h::MemoryKind,
    h::Status,
    h::Sensitivity
);
same!(h::Query, h::Candidate, h::Disposition, h::CandidateKind);

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
rec!(h::Event => gs::Event { session, scope, kind, payload, at });

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
