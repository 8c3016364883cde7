//! The evaluation floors: the project's own labelled sets that no training
//! reads (the kind data's fixed test split, `guest/testdata/classify-*`)
//! scored through the native policy, each held to its floors in
//! `train/eval-floors.txt`. Every set's figures are printed (run with
//! `--nocapture`, or read them in a failure) so a drop is visible before
//! it reaches a floor.

use engram_guest::write::model::blob::{Weights, HEADER};
use engram_guest::write::model::{heads, with_heads};
use engram_train::data::model_dir;
use engram_train::eval::{self, TEST_SPLIT};
use engram_train::heads::SENSITIVE;

#[test]
fn every_evaluation_set_scores_at_or_above_its_floors() {
    let sets = eval::sets().expect("the evaluation sets load");
    assert!(
        sets.iter()
            .any(|(name, rows)| name == TEST_SPLIT && rows.len() >= 750),
        "the model's test split is scored"
    );
    assert!(sets.len() >= 6, "{} sets", sets.len());
    let (lines, failures) = eval::run().expect("the floors and sets load");
    for l in &lines {
        println!("{l}");
    }
    assert_eq!(lines.len(), sets.len(), "one line per set");
    assert!(
        failures.is_empty(),
        "below the floors (train/eval-floors.txt):\n{}\n\nall sets:\n{}",
        failures.join("\n"),
        lines.join("\n")
    );
}

/// The floors can fail: with the sensitive-data head silenced (its `none`
/// bias at the maximum, so it finds nothing), health and pay statements it
/// catches today are stored, and the unsafe-write floors say so.
#[test]
fn a_silenced_sensitive_head_falls_below_the_floors() {
    let (kind, _) = heads();
    let mut silenced = std::fs::read(model_dir().join(SENSITIVE.file)).expect("sensitive.bin");
    silenced[HEADER] = 127;
    let silenced: &'static [u8] = Box::leak(silenced.into_boxed_slice());
    let silenced = Weights::parse(silenced).expect("still a weight file");
    let (_, failures) = with_heads(kind, silenced, || eval::run().expect("the sets load"));
    assert!(
        failures.iter().any(|f| f.contains("unsafe writes")),
        "silencing the sensitive-data head broke no floor: {failures:?}"
    );
}
