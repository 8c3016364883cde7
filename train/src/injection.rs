//! Training the learned injection detector (`engram_guest::write::model::
//! injection`): documents from `guest/model/injection/data/*.jsonl`, each an
//! `engram classify` candidate (SPEC §4) with `label` (1: carries an
//! injection), the injected instruction (`needle`) and the whole inserted
//! text (`payload`, which may hold code after the instruction), and a
//! `group` (the template or the document it was built from, kept together
//! in cross-validation).
//!
//! Each document is read as the pipeline reads it
//! (`engram_guest::write::classify::carried_text`) and cut into segments; a
//! segment overlapping the needle is a positive, one overlapping only the
//! rest of the payload is left out, every other segment is a negative. The
//! shared recipe (`recipe::train`, two classes) fits them, byte for byte
//! reproducibly.

use std::path::{Path, PathBuf};

use engram_guest::analysis::cues::fold;
use engram_guest::core::config::Policy;
use engram_guest::types::Candidate;
use engram_guest::write::classify::carried_text;
use engram_guest::write::model::{blob, injection};
use serde_json::Value;

use crate::data;
use crate::recipe::{self, Example, Params};

/// Training settings (chosen by grouped cross-validation on the data).
pub const PARAMS: Params = Params {
    buckets: 1 << 15,
    classes: injection::CLASSES.len(),
    epochs: 12,
    rate: 0.1,
    l2: 1e-5,
    balance: 0.5,
    file_balance: 0.0,
    average_text: false,
    seed: 8,
};

/// The head's weight file in `guest/model/`.
pub const FILE: &str = "injection.bin";

/// The documents' folder, `guest/model/injection/data/`.
pub fn data_dir() -> PathBuf {
    data::model_dir().join("injection").join("data")
}

/// A labelled document.
#[derive(Debug, Clone)]
pub struct Doc {
    pub id: String,
    pub file: String,
    pub group: String,
    pub candidate: Candidate,
    pub label: bool,
    pub needle: Option<String>,
    pub payload: Option<String>,
}

/// A segment's range, feature ids and label (`None`: left out).
pub type LabelledSegment = (injection::Span, Vec<u32>, Option<bool>);

/// A document's segments: range, features, and label (`None`: left out).
#[derive(Debug, Clone)]
pub struct Segmented {
    pub doc: usize,
    pub segments: Vec<LabelledSegment>,
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// Every document of the folder's `*.jsonl` files, files in name order.
pub fn load(dir: &Path) -> Result<Vec<Doc>, String> {
    let mut out = Vec::new();
    for path in data::jsonl_files(dir)? {
        let (file, lines) = data::json_lines(&path)?;
        for data::Line { at, value: v } in lines {
            let candidate = data::candidate(&v).map_err(|e| format!("{at}: {e}"))?;
            let label = match v.get("label").and_then(Value::as_u64) {
                Some(0) => false,
                Some(1) => true,
                _ => return Err(format!("{at}: label must be 0 or 1")),
            };
            out.push(Doc {
                id: candidate
                    .id
                    .clone()
                    .ok_or_else(|| format!("{at}: missing id"))?,
                file: file.clone(),
                group: s(&v, "group").ok_or_else(|| format!("{at}: missing group"))?,
                candidate,
                label,
                needle: s(&v, "needle"),
                payload: s(&v, "payload"),
            });
        }
    }
    Ok(out)
}

/// The byte range of `part` (folded) in `folded` (the unmasked fold: the
/// masked one has the same byte layout).
fn find(folded: &str, part: &str) -> Option<(usize, usize)> {
    let p = fold(part.trim());
    folded.find(&p).map(|i| (i, i + p.len()))
}

/// Cuts every document into labelled segments, as the pipeline reads it.
pub fn segment(docs: &[Doc], buckets: u32, policy: &Policy) -> Result<Vec<Segmented>, String> {
    let mut out = Vec::with_capacity(docs.len());
    for (k, d) in docs.iter().enumerate() {
        let Some((folded, spans, via)) = carried_text(&d.candidate, policy) else {
            return Err(format!("{}: no carried text (source kind?)", d.id));
        };
        let plain = fold(d.candidate.text.trim());
        let needle = match (&d.needle, d.label) {
            (Some(n), true) => Some(
                find(&plain, n).ok_or_else(|| format!("{}: needle not found in the text", d.id))?,
            ),
            (None, true) => return Err(format!("{}: a positive needs a needle", d.id)),
            _ => None,
        };
        let payload = d
            .payload
            .as_deref()
            .and_then(|p| find(&plain, p))
            .or(needle);
        let overlaps =
            |r: Option<(usize, usize)>, s: usize, e: usize| r.is_some_and(|(a, b)| s < b && a < e);
        let segments = injection::segment_features(&folded, &spans, via, buckets)
            .into_iter()
            .map(|((s, e), ids)| {
                let label = if overlaps(needle, s, e) {
                    Some(true)
                } else if overlaps(payload, s, e) {
                    None
                } else {
                    Some(false)
                };
                ((s, e), ids, label)
            })
            .collect();
        out.push(Segmented { doc: k, segments });
    }
    Ok(out)
}

/// The labelled segments as training examples, grouped for folds by the
/// document's group.
pub fn examples(docs: &[Doc], segs: &[Segmented]) -> Vec<Example> {
    let mut out = Vec::new();
    for sd in segs {
        let Some(d) = docs.get(sd.doc) else { continue };
        for (_, ids, label) in &sd.segments {
            let Some(label) = label else { continue };
            out.push(Example {
                id: d.group.clone(),
                file: d.file.clone(),
                ids: ids.clone(),
                text: ids.len(),
                label: *label as usize,
            });
        }
    }
    out
}

/// Each document's highest segment logit under a weight file.
pub fn doc_logits(bytes: &[u8], segs: &[Segmented]) -> Vec<f64> {
    let Some(w) = blob::Weights::parse(bytes)
        .ok()
        .filter(|w| w.classes() == injection::CLASSES.len())
    else {
        return vec![f64::NEG_INFINITY; segs.len()];
    };
    segs.iter()
        .map(|sd| {
            sd.segments
                .iter()
                .map(|(_, ids, _)| injection::logit(&w, ids))
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .collect()
}

/// Trains the head with `p` on these documents' segments.
pub fn train(docs: &[Doc], segs: &[Segmented], p: &Params) -> Vec<u8> {
    recipe::train(&examples(docs, segs), p)
}

/// Loads the data folder and trains with [`PARAMS`]: the shipped weights.
pub fn train_shipped(dir: &Path) -> Result<Vec<u8>, String> {
    let docs = load(dir)?;
    let segs = segment(&docs, PARAMS.buckets, &Policy::default())?;
    Ok(train(&docs, &segs, &PARAMS))
}
