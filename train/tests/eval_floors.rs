//! The evaluation floors: the project's own labelled sets that no training
//! reads (the kind data's fixed test split, `guest/testdata/classify-*`)
//! scored through the native policy, each held to its floors in
//! `train/eval-floors.txt`. Every set's figures are printed (run with
//! `--nocapture`, or read them in a failure) so a drop is visible before
//! it reaches a floor.

use engram_train::eval::{self, TEST_SPLIT};

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
