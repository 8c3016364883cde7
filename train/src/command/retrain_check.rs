//! `engram-train retrain-check SET.jsonl…`: how many predictions a retrain
//! changes. The kind and sensitive-data heads trained on the training data
//! plus `guest/model/probe/retrain-probe.jsonl` (as the test
//! `retrain_stability` does) against the shipped heads, on labelled
//! candidate sets (the classification sets' format): per set, lines, kind
//! or disposition changed, and kind right with each pair of heads.

use std::path::PathBuf;

use engram_guest::core::config::Policy;
use engram_guest::types::{CandidateKind, Disposition};
use engram_guest::write::model::blob::Weights;
use engram_guest::write::model::with_heads;

use crate::data::{self, Labelled};
use crate::eval::decide;
use crate::heads::retrain_with;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Labelled candidate sets (JSON Lines, `expect.kind` per line).
    #[arg(required = true, value_name = "SET.jsonl")]
    sets: Vec<PathBuf>,
}

type Decided = Vec<Option<(CandidateKind, Disposition)>>;

fn decisions(rows: &[Labelled], policy: &Policy) -> Decided {
    rows.iter()
        .map(|r| decide(&r.candidate, policy).ok())
        .collect()
}

pub fn run(a: &Args) -> Result<(), String> {
    let model = data::model_dir();
    let (kind, sensitive) = retrain_with(
        &model.join("data"),
        &[&model.join("probe/retrain-probe.jsonl")],
    )?;
    // The swapped-in heads must outlive every call: this process's life.
    let kind: &'static [u8] = Box::leak(kind.into_boxed_slice());
    let sensitive: &'static [u8] = Box::leak(sensitive.into_boxed_slice());
    let kind = Weights::parse(kind).map_err(|e| format!("the retrained kind head: {e}"))?;
    let sensitive =
        Weights::parse(sensitive).map_err(|e| format!("the retrained sensitive head: {e}"))?;
    let policy = Policy::default();
    for path in &a.sets {
        let rows = match data::load_file(path) {
            Ok(rows) => rows,
            Err(e) => {
                eprintln!("{}: skipped ({e})", path.display());
                continue;
            }
        };
        let shipped = decisions(&rows, &policy);
        let again = with_heads(kind, sensitive, || decisions(&rows, &policy));
        let changed = shipped.iter().zip(&again).filter(|(a, b)| a != b).count();
        let right = |v: &Decided| {
            rows.iter()
                .zip(v)
                .filter(|(r, d)| {
                    let got = d.map(|(k, _)| k);
                    r.kind.is_none_or(|want| got == Some(want))
                })
                .count()
        };
        println!(
            "{}: {} lines, {changed} decisions changed by the retrain; kind right {} (shipped) vs {} (retrained)",
            path.display(),
            rows.len(),
            right(&shipped),
            right(&again)
        );
    }
    Ok(())
}
