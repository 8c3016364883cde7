//! How many predictions a retrain changes: the kind and sensitive-data heads
//! trained on the training data plus `guest/model/probe/retrain-probe.jsonl`
//! (as `guest/tests/retrain_stability.rs` does) against the shipped heads,
//! on labelled candidate sets (the classification sets' format).
//!
//! ```text
//! cargo run --release -p engram-guest --example retrain_check -- SET.jsonl [SET.jsonl …]
//! ```
//!
//! Prints, per set: lines, kind or disposition changed, and accuracy
//! against the labels with each pair of heads.

use std::path::PathBuf;

use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::FixedClock;
use engram_guest::testing::memstore::MemStore;
use engram_guest::types::{CandidateKind, Disposition};
use engram_guest::write::model::blob::Weights;
use engram_guest::write::model::train::{self, data};

fn decide(rows: &[data::Labelled]) -> Vec<(CandidateKind, Disposition)> {
    let policy = Policy::default();
    rows.iter()
        .map(|r| {
            let store = MemStore::for_tenant(&r.candidate.scope.tenant);
            let clock = FixedClock(train::clock_of(&r.candidate));
            let ctx = Ctx {
                store: &store,
                clock: &clock,
                policy: &policy,
            };
            let d =
                engram_guest::write::remember::classify(&ctx, std::slice::from_ref(&r.candidate))
                    .expect("classify")
                    .remove(0);
            (d.kind, d.disposition)
        })
        .collect()
}

fn main() {
    let model = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("model");
    let (kind, sensitive) = train::retrain_with(
        &model.join("data"),
        &[&model.join("probe/retrain-probe.jsonl")],
    )
    .expect("retrain");
    let kind: &'static [u8] = Box::leak(kind.into_boxed_slice());
    let sensitive: &'static [u8] = Box::leak(sensitive.into_boxed_slice());
    for path in std::env::args().skip(1) {
        let rows = match data::load_file(std::path::Path::new(&path)) {
            Ok(rows) => rows,
            Err(e) => {
                eprintln!("{path}: skipped ({e})");
                continue;
            }
        };
        let shipped = decide(&rows);
        let again = engram_guest::write::model::with_heads(
            Weights::parse(kind).expect("kind weights"),
            Weights::parse(sensitive).expect("sensitive weights"),
            || decide(&rows),
        );
        let changed = shipped.iter().zip(&again).filter(|(a, b)| a != b).count();
        let right = |v: &[(CandidateKind, Disposition)]| {
            rows.iter()
                .zip(v)
                .filter(|(r, (k, _))| r.kind.is_none_or(|want| want == *k))
                .count()
        };
        println!(
            "{path}: {} lines, {changed} decisions changed by the retrain; kind right {} (shipped) vs {} (retrained)",
            rows.len(),
            right(&shipped),
            right(&again)
        );
    }
}
