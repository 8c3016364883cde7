//! A retrain must not flip a scenario (issue 31): the kind and
//! sensitive-data heads trained on the training data plus a few new lines
//! (`guest/model/probe/`) give every candidate of the end-to-end scenarios
//! (`tests/scenarios/*.json`, their `remember` and `classify` steps) the
//! same kind and disposition as the shipped heads. Scenario behaviour rests
//! on structure; the learned heads decide only what structure leaves open.

use std::path::PathBuf;

use engram_contract::wire::CandidateIn;
use engram_guest::core::config::Policy;
use engram_guest::types::{Candidate, CandidateKind, Datetime, Disposition};
use engram_guest::write::model::blob::Weights;
use engram_guest::write::model::with_heads;
use engram_train::data::{model_dir, repository};
use engram_train::eval::decide_at;
use engram_train::heads::retrain_with;

fn scenarios_dir() -> PathBuf {
    repository().join("tests/scenarios")
}

/// Every candidate line of the scenarios' `remember` and `classify` steps,
/// with the step's clock.
fn scenario_candidates() -> Vec<(String, Candidate, Datetime)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .expect("tests/scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("scenario");
        let v: serde_json::Value = serde_json::from_str(&text).expect("scenario JSON");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut now = "2026-09-01T10:00:00+08:00".to_string();
        for step in v["steps"].as_array().into_iter().flatten() {
            if let Some(n) = step["now"].as_str() {
                now = n.to_string();
            }
            let run = step["run"].as_str().unwrap_or("");
            if run != "remember" && run != "classify" {
                continue;
            }
            let clock = engram_contract::time::parse(&now).expect("now");
            for line in step["stdin"].as_array().into_iter().flatten() {
                // `${…}` placeholders come from earlier steps' outputs.
                if line.to_string().contains("${") {
                    continue;
                }
                let c: CandidateIn =
                    serde_json::from_value(line.clone()).expect("a candidate line");
                out.push((name.clone(), c.into(), clock));
            }
        }
    }
    out
}

fn decisions(cands: &[(String, Candidate, Datetime)]) -> Vec<(CandidateKind, Disposition)> {
    let policy = Policy::default();
    cands
        .iter()
        .map(|(_, c, now)| decide_at(c, *now, &policy).expect("classify"))
        .collect()
}

#[test]
fn a_retrain_on_a_few_more_lines_flips_no_scenario() {
    let cands = scenario_candidates();
    assert!(cands.len() >= 100, "{} candidates", cands.len());
    let shipped = decisions(&cands);
    let model = model_dir();
    let (kind, sensitive) = retrain_with(
        &model.join("data"),
        &[&model.join("probe/retrain-probe.jsonl")],
    )
    .expect("retrain");
    assert_ne!(
        kind,
        std::fs::read(model.join("weights.bin")).unwrap(),
        "the probe lines changed nothing: the check would not test a retrain"
    );
    let kind: &'static [u8] = Box::leak(kind.into_boxed_slice());
    let sensitive: &'static [u8] = Box::leak(sensitive.into_boxed_slice());
    let again = with_heads(
        Weights::parse(kind).expect("kind weights"),
        Weights::parse(sensitive).expect("sensitive weights"),
        || decisions(&cands),
    );
    let flipped: Vec<String> = cands
        .iter()
        .zip(shipped.iter().zip(&again))
        .filter(|(_, (a, b))| a != b)
        .map(|((file, c, _), (a, b))| {
            format!(
                "{file}: {}/{} → {}/{}: {}",
                a.0.name(),
                a.1.name(),
                b.0.name(),
                b.1.name(),
                c.text
            )
        })
        .collect();
    assert!(
        flipped.is_empty(),
        "a retrain flips {} scenario decisions:\n{}",
        flipped.len(),
        flipped.join("\n")
    );
}
