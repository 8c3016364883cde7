//! Labelled candidates as training examples: the features the classifier
//! computes for each (`engram_guest::write::classify::model_features`, the
//! same function `classify` calls), at the candidate's own clock.

use std::collections::BTreeMap;

use engram_guest::core::config::Policy;
use engram_guest::types::{Candidate, Datetime};
use engram_guest::write::classify::model_features;
use engram_guest::write::model::Features;

use crate::data::Labelled;
use crate::recipe::Example;

/// How a head labels a line: its class, or `None` to leave the line out.
pub type Label = fn(&Labelled) -> Option<usize>;

/// The clock a labelled candidate is classified at: its own `observed_at`
/// (the epoch when it has none).
pub fn clock_of(c: &Candidate) -> Datetime {
    c.observed_at.unwrap_or(Datetime {
        epoch_ms: 0,
        offset_minutes: 0,
    })
}

/// The features the classifier would compute for a candidate.
pub fn features_of(c: &Candidate, buckets: u32, policy: &Policy) -> Features {
    model_features(c, clock_of(c), policy, buckets)
}

/// The features of labelled candidates, labelled by `label` (lines it
/// gives no class are left out).
pub fn examples_for(
    rows: &[Labelled],
    buckets: u32,
    policy: &Policy,
    label: Label,
) -> Vec<Example> {
    rows.iter()
        .filter_map(|r| {
            let label = label(r)?;
            let f = features_of(&r.candidate, buckets, policy);
            Some(Example {
                id: r.id.clone(),
                file: r.file.clone(),
                ids: f.ids().to_vec(),
                text: f.text_count(),
                label,
            })
        })
        .collect()
}

/// The same examples relabelled for another head (features computed once).
pub fn relabel(rows: &[Labelled], examples: &[Example], label: Label) -> Vec<Example> {
    let by_id: BTreeMap<&str, &Labelled> = rows.iter().map(|r| (r.id.as_str(), r)).collect();
    examples
        .iter()
        .filter_map(|e| {
            let label = label(by_id.get(e.id.as_str())?)?;
            Some(Example { label, ..e.clone() })
        })
        .collect()
}
