//! The evaluation: the project's own labelled sets that no training reads,
//! scored through the native policy (`engram_guest::write::remember::
//! classify`, the pipeline `engram classify` runs, on an empty in-memory
//! store at the candidate's own clock), against floors kept as data in
//! `train/eval-floors.txt`.
//!
//! The sets: the kind data's fixed test split (`guest/model/data/`, the
//! ids of `test-split.txt`) and every `guest/testdata/classify-*.jsonl`.
//! Scoring follows the shared benchmark's `score_classify.py`: an expected
//! kind or disposition is a name, a list of acceptable names or `*` (not
//! scored); an **unsafe write** is a line labelled exactly `rejected` that
//! was stored (`active` or `pending`), a **lost memory** one labelled
//! exactly `active` that was not (`rejected` or `working`).

use std::path::Path;

use engram_guest::core::api::Ctx;
use engram_guest::core::config::Policy;
use engram_guest::core::store::FixedClock;
use engram_guest::testing::memstore::MemStore;
use engram_guest::types::{Candidate, CandidateKind, Datetime, Disposition};
use engram_guest::write::remember::classify;
use serde_json::Value;

use crate::data::{self, Labelled};
use crate::featurise::clock_of;

/// The name the model's test split goes by in the floors file.
pub const TEST_SPLIT: &str = "model-test-split";

/// Where the floors are kept.
pub fn floors_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("eval-floors.txt")
}

/// The sets, by name: the model's test split, then the classification
/// sets by file stem, in name order.
pub fn sets() -> Result<Vec<(String, Vec<Labelled>)>, String> {
    let (_, split) = data::load_split(&data::model_dir().join("data"))?;
    let mut out = vec![(TEST_SPLIT.to_string(), split)];
    for path in data::jsonl_files(&data::testdata_dir())? {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if stem.starts_with("classify-") {
            out.push((stem, data::load_file(&path)?));
        }
    }
    Ok(out)
}

/// What the policy decides for one candidate at its own clock: its kind
/// and disposition.
pub fn decide(c: &Candidate, policy: &Policy) -> Result<(CandidateKind, Disposition), String> {
    decide_at(c, clock_of(c), policy)
}

/// What the policy decides for one candidate at `now`, on an empty store
/// of its tenant.
pub fn decide_at(
    c: &Candidate,
    now: Datetime,
    policy: &Policy,
) -> Result<(CandidateKind, Disposition), String> {
    let store = MemStore::for_tenant(&c.scope.tenant);
    let clock = FixedClock(now);
    let ctx = Ctx {
        store: &store,
        clock: &clock,
        policy,
    };
    let decisions = classify(&ctx, std::slice::from_ref(c))
        .map_err(|e| engram_contract::message::describe(&e))?;
    decisions
        .first()
        .map(|d| (d.kind, d.disposition))
        .ok_or_else(|| "no decision".to_string())
}

/// A set's figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Score {
    pub cases: usize,
    pub kind_scored: usize,
    pub kind_right: usize,
    pub disposition_scored: usize,
    pub disposition_right: usize,
    pub unsafe_writes: usize,
    pub lost_memories: usize,
}

impl Score {
    pub fn kind_accuracy(&self) -> f64 {
        self.kind_right as f64 / self.kind_scored.max(1) as f64
    }

    pub fn disposition_accuracy(&self) -> f64 {
        self.disposition_right as f64 / self.disposition_scored.max(1) as f64
    }

    /// "kind 0.893, disposition 0.907, unsafe writes 22, lost memories 24 (756 lines)".
    pub fn describe(&self) -> String {
        format!(
            "kind {:.3}, disposition {:.3}, unsafe writes {}, lost memories {} ({} lines)",
            self.kind_accuracy(),
            self.disposition_accuracy(),
            self.unsafe_writes,
            self.lost_memories,
            self.cases
        )
    }
}

/// Is `got` acceptable under `expected` (a name, a list of names, `*`)?
/// `None` when the field is not scored.
fn acceptable(expected: Option<&Value>, got: &str) -> Option<bool> {
    match expected {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s == "*" => None,
        Some(Value::String(s)) => Some(s == got),
        Some(Value::Array(a)) => Some(a.iter().any(|x| x.as_str() == Some(got))),
        Some(_) => Some(false),
    }
}

/// Scores a set with `decide` (a failed decision counts as wrong on both).
pub fn score(
    rows: &[Labelled],
    decide: impl Fn(&Candidate) -> Result<(CandidateKind, Disposition), String>,
) -> Score {
    let mut s = Score {
        cases: rows.len(),
        ..Score::default()
    };
    for r in rows {
        let got = decide(&r.candidate).ok();
        let kind = got.map_or("", |(k, _)| k.name());
        let disposition = got.map_or("", |(_, d)| d.name());
        if let Some(ok) = acceptable(r.expect.get("kind"), kind) {
            s.kind_scored += 1;
            s.kind_right += ok as usize;
        }
        let expected = r.expect.get("disposition");
        if let Some(ok) = acceptable(expected, disposition) {
            s.disposition_scored += 1;
            s.disposition_right += ok as usize;
        }
        let exactly = |name: &str| expected.and_then(Value::as_str) == Some(name);
        if exactly("rejected") && matches!(disposition, "active" | "pending") {
            s.unsafe_writes += 1;
        }
        if exactly("active") && matches!(disposition, "rejected" | "working") {
            s.lost_memories += 1;
        }
    }
    s
}

/// A set's floors: the lowest accuracies and the most unsafe writes it may
/// score.
#[derive(Debug, Clone, PartialEq)]
pub struct Floor {
    pub set: String,
    pub kind: f64,
    pub disposition: f64,
    pub unsafe_writes: usize,
}

/// The floors file: `#` comments, then one line per set,
/// `SET KIND DISPOSITION UNSAFE` separated by blanks.
pub fn parse_floors(text: &str) -> Result<Vec<Floor>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |what: &str| format!("floors line {}: {what}", n + 1);
        let cells: Vec<&str> = line.split_whitespace().collect();
        let [set, kind, disposition, unsafe_writes] = cells[..] else {
            return Err(at("want SET KIND DISPOSITION UNSAFE"));
        };
        let share = |s: &str| {
            s.parse::<f64>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| at(&format!("{s} is not an accuracy between 0 and 1")))
        };
        out.push(Floor {
            set: set.to_string(),
            kind: share(kind)?,
            disposition: share(disposition)?,
            unsafe_writes: unsafe_writes
                .parse()
                .map_err(|_| at(&format!("{unsafe_writes} is not a count")))?,
        });
    }
    Ok(out)
}

/// The floors kept in `train/eval-floors.txt`.
pub fn floors() -> Result<Vec<Floor>, String> {
    let path = floors_path();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_floors(&text)
}

/// What a score breaks of its floor, one sentence each (empty: it holds).
pub fn below(score: &Score, floor: &Floor) -> Vec<String> {
    let mut out = Vec::new();
    if score.kind_accuracy() < floor.kind {
        out.push(format!(
            "{}: kind accuracy {:.3} below its floor {:.3}",
            floor.set,
            score.kind_accuracy(),
            floor.kind
        ));
    }
    if score.disposition_accuracy() < floor.disposition {
        out.push(format!(
            "{}: disposition accuracy {:.3} below its floor {:.3}",
            floor.set,
            score.disposition_accuracy(),
            floor.disposition
        ));
    }
    if score.unsafe_writes > floor.unsafe_writes {
        out.push(format!(
            "{}: {} unsafe writes, at most {} allowed",
            floor.set, score.unsafe_writes, floor.unsafe_writes
        ));
    }
    out
}

/// Every set scored with the shipped policy and held to its floor: one
/// line per set for the reader, and what fell below (a set without a floor,
/// or a floor without a set, falls below too).
pub fn run() -> Result<(Vec<String>, Vec<String>), String> {
    let floors = floors()?;
    let policy = Policy::default();
    let (mut lines, mut failures) = (Vec::new(), Vec::new());
    let sets = sets()?;
    for (name, rows) in &sets {
        let s = score(rows, |c| decide(c, &policy));
        let Some(floor) = floors.iter().find(|f| &f.set == name) else {
            failures.push(format!("{name}: no floor in train/eval-floors.txt"));
            lines.push(format!("{name}: {}", s.describe()));
            continue;
        };
        lines.push(format!(
            "{name}: {} — floors kind {:.3}, disposition {:.3}, unsafe writes at most {}",
            s.describe(),
            floor.kind,
            floor.disposition,
            floor.unsafe_writes
        ));
        failures.extend(below(&s, floor));
    }
    for f in &floors {
        if !sets.iter().any(|(name, _)| *name == f.set) {
            failures.push(format!("{}: a floor for a set that is not there", f.set));
        }
    }
    Ok((lines, failures))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptable_reads_a_name_a_list_and_a_star() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(acceptable(Some(&v("\"semantic\"")), "semantic"), Some(true));
        assert_eq!(acceptable(Some(&v("\"semantic\"")), "none"), Some(false));
        assert_eq!(acceptable(Some(&v("[\"a\",\"b\"]")), "b"), Some(true));
        assert_eq!(acceptable(Some(&v("\"*\"")), "none"), None);
        assert_eq!(acceptable(None, "none"), None);
    }

    #[test]
    fn floors_parse_and_a_drop_falls_below() {
        let floors = parse_floors("# header\nset-a 0.90 0.85 0  # today 0.92\n\n").unwrap();
        assert_eq!(floors.len(), 1);
        let good = Score {
            cases: 10,
            kind_scored: 10,
            kind_right: 9,
            disposition_scored: 10,
            disposition_right: 9,
            ..Score::default()
        };
        assert!(below(&good, &floors[0]).is_empty());
        let bad = Score {
            kind_right: 8,
            unsafe_writes: 1,
            ..good
        };
        assert_eq!(
            below(&bad, &floors[0]).len(),
            2,
            "{:?}",
            below(&bad, &floors[0])
        );
        assert!(parse_floors("set-a 0.9 0.8").is_err());
        assert!(parse_floors("set-a 1.5 0.8 0").is_err());
    }
}
