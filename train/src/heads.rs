//! The heads trained on the labelled candidates of `guest/model/data/`: the
//! kind head (`weights.bin`) and the sensitive-data head (`sensitive.bin`).
//! A [`Head`] names its classes, its weight file, its settings and how a
//! labelled line maps to a class; every head trains on the same features
//! (`featurise`) with the same recipe (`recipe::train`).
//!
//! `engram-train kind` rebuilds every head's weight file in `guest/model/`;
//! the test `model_weights` checks that each shipped file equals a fresh run.

use std::path::Path;

use engram_guest::core::config::Policy;
use engram_guest::types::CandidateKind;
use engram_guest::write::model::{kind_index, sensitive, KINDS};

use crate::data::{self, Labelled};
use crate::featurise::{examples_for, Label};
use crate::recipe::{train, Params};

/// The table the shared features are hashed into (the kind head's).
pub const FEATURE_BUCKETS: u32 = 1 << 14;

/// A trained head: its classes, weight file, settings and labels.
#[derive(Debug, Clone, Copy)]
pub struct Head {
    /// Its name on the command line (`engram-train kind --head NAME`).
    pub name: &'static str,
    /// Its weight file in `guest/model/`.
    pub file: &'static str,
    /// Class names, in weight order.
    pub classes: &'static [&'static str],
    pub params: Params,
    /// The class of a labelled line; `None` leaves the line out.
    pub label: Label,
}

/// The kind head: a line whose kind is not scored ("*") trains as `none`
/// when it is rejected (an injection or a raw dump with a secret: the
/// pipeline keeps nothing of it) and is left out otherwise.
pub const KIND: Head = Head {
    name: "kind",
    file: "weights.bin",
    classes: &KIND_NAMES,
    params: Params {
        buckets: FEATURE_BUCKETS,
        classes: KINDS.len(),
        epochs: 15,
        rate: 0.1,
        l2: 1e-4,
        balance: 0.5,
        file_balance: 0.0,
        average_text: false,
        seed: 24,
    },
    label: kind_label,
};

/// The kind head's classes by name, in weight order.
const KIND_NAMES: [&str; KINDS.len()] = [
    KINDS[0].name(),
    KINDS[1].name(),
    KINDS[2].name(),
    KINDS[3].name(),
    KINDS[4].name(),
];

fn kind_label(r: &Labelled) -> Option<usize> {
    r.kind
        .or(r.rejected.then_some(CandidateKind::None))
        .map(kind_index)
}

/// The sensitive-data head (`engram_guest::write::model::sensitive`): the
/// class of a labelled line is its `expect.sensitive` ("health" or
/// "finance"); a line without one is `none`.
pub const SENSITIVE: Head = Head {
    name: "sensitive",
    file: "sensitive.bin",
    classes: &sensitive::CLASSES,
    params: Params {
        buckets: FEATURE_BUCKETS,
        classes: sensitive::CLASSES.len(),
        epochs: 15,
        rate: 0.1,
        l2: 1e-3,
        balance: 1.0,
        file_balance: 0.0,
        average_text: false,
        seed: 24,
    },
    label: sensitive_label,
};

fn sensitive_label(r: &Labelled) -> Option<usize> {
    let named = r.expect.get("sensitive").and_then(|v| v.as_str());
    Some(match named {
        None => 0,
        Some(s) => sensitive::CLASSES.iter().position(|c| *c == s)?,
    })
}

/// The shipped heads.
pub const HEADS: &[Head] = &[KIND, SENSITIVE];

/// A head by name.
pub fn head(name: &str) -> Option<&'static Head> {
    HEADS.iter().find(|h| h.name == name)
}

/// Loads the data folder, drops the test split, trains `head`: its shipped
/// weight file.
pub fn train_head(dir: &Path, head: &Head) -> Result<Vec<u8>, String> {
    let (rows, _) = data::load_split(dir)?;
    let ex = examples_for(&rows, FEATURE_BUCKETS, &Policy::default(), head.label);
    Ok(train(&ex, &head.params))
}

/// The kind and sensitive-data heads trained on the data folder (test
/// split left out) plus the labelled lines of `extra` files: what a retrain
/// with a few more lines would ship (the test `retrain_stability`,
/// `engram-train retrain-check`).
pub fn retrain_with(dir: &Path, extra: &[&Path]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let (mut rows, _) = data::load_split(dir)?;
    for f in extra {
        rows.extend(data::load_file(f)?);
    }
    let policy = Policy::default();
    let [kind, sensitive] = [KIND, SENSITIVE].map(|h| {
        let ex = examples_for(&rows, FEATURE_BUCKETS, &policy, h.label);
        train(&ex, &h.params)
    });
    Ok((kind, sensitive))
}
