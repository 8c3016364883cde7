//! The labelled data: candidate lines (SPEC §4) with labels beside them, in
//! JSON Lines files — the kind and sensitive-data heads' training data
//! (`guest/model/data/*.jsonl`, `expect: {kind, disposition, sensitive}`),
//! the classification sets (`guest/testdata/classify-*.jsonl`, the same
//! format), the injection documents (`guest/model/injection/data/`, their
//! own labels, read by `injection`) — and the kind data's fixed test split.
//!
//! A line's candidate is read by the contract's own candidate type
//! (`engram_contract::wire::CandidateIn`), as `engram classify` reads it,
//! once the annotation keys ([`ANNOTATIONS`]) are set aside: any other key
//! is an error, so a misspelt field cannot pass silently.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use engram_contract::wire::CandidateIn;
use engram_guest::types::{Candidate, CandidateKind};
use serde_json::Value;

/// The repository's `guest/model/` (data, split and weight files).
pub fn model_dir() -> PathBuf {
    repository().join("guest/model")
}

/// The repository's `guest/testdata/` (the classification sets).
pub fn testdata_dir() -> PathBuf {
    repository().join("guest/testdata")
}

/// The repository this crate is built in (the folder above `train/`).
pub fn repository() -> PathBuf {
    let train = Path::new(env!("CARGO_MANIFEST_DIR"));
    train.parent().unwrap_or(train).to_path_buf()
}

/// The keys of a labelled line that are not the candidate's: the expected
/// decision and how it was labelled (`expect`, `label_source`, `note`), and
/// an injection document's label, instruction, payload, group and origin.
pub const ANNOTATIONS: [&str; 10] = [
    "expect",
    "label_source",
    "note",
    "label",
    "needle",
    "payload",
    "group",
    "lang",
    "origin",
    "family",
];

/// A labelled candidate.
#[derive(Debug, Clone)]
pub struct Labelled {
    pub id: String,
    /// The file it came from (its stem).
    pub file: String,
    pub candidate: Candidate,
    /// The kind it trains as; `None` when not scored ("*"). A list of
    /// acceptable kinds trains as its first.
    pub kind: Option<CandidateKind>,
    /// Is the expected disposition exactly `rejected`?
    pub rejected: bool,
    /// The whole `expect` object (the evaluation reads lists of acceptable
    /// answers from it; a head may have labels of its own there).
    pub expect: Value,
}

/// Every labelled line of the folder's `*.jsonl` files, files in name order.
pub fn load(dir: &Path) -> Result<Vec<Labelled>, String> {
    let mut out = Vec::new();
    for path in jsonl_files(dir)? {
        out.extend(load_file(&path)?);
    }
    Ok(out)
}

/// The folder's `*.jsonl` files, in name order.
pub fn jsonl_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// One line of a JSON Lines data file: its value and where it is
/// ("<path> line N"), for errors that name the line.
pub struct Line {
    pub at: String,
    pub value: Value,
}

/// A JSON Lines data file's stem (the `file` its rows are counted by) and
/// its non-blank lines, parsed.
pub fn json_lines(path: &Path) -> Result<(String, Vec<Line>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{} line {}", path.display(), n + 1);
        let value = serde_json::from_str(line).map_err(|e| format!("{at}: {e}"))?;
        lines.push(Line { at, value });
    }
    Ok((file, lines))
}

/// The labelled lines of one file.
pub fn load_file(path: &Path) -> Result<Vec<Labelled>, String> {
    let (file, lines) = json_lines(path)?;
    let mut out = Vec::with_capacity(lines.len());
    for Line { at, value: v } in lines {
        let candidate = candidate(&v).map_err(|e| format!("{at}: {e}"))?;
        let id = candidate
            .id
            .clone()
            .ok_or_else(|| format!("{at}: missing id"))?;
        let kind = match v.pointer("/expect/kind") {
            Some(Value::String(s)) if s == "*" => None,
            Some(Value::String(s)) => {
                Some(CandidateKind::from_name(s).ok_or_else(|| format!("{at}: expect.kind {s}"))?)
            }
            Some(Value::Array(a)) => a
                .first()
                .and_then(Value::as_str)
                .and_then(CandidateKind::from_name),
            _ => return Err(format!("{at}: missing expect.kind")),
        };
        let rejected = v.pointer("/expect/disposition").and_then(Value::as_str) == Some("rejected");
        out.push(Labelled {
            id,
            file: file.clone(),
            candidate,
            kind,
            rejected,
            expect: v.get("expect").cloned().unwrap_or(Value::Null),
        });
    }
    Ok(out)
}

/// The ids of the untouched test split (`test-split.txt`, `#` comments).
pub fn test_ids(dir: &Path) -> Result<BTreeSet<String>, String> {
    let path = dir.join("test-split.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

/// (training lines, test-split lines).
pub fn load_split(dir: &Path) -> Result<(Vec<Labelled>, Vec<Labelled>), String> {
    let test = test_ids(dir)?;
    let (t, r): (Vec<_>, Vec<_>) = load(dir)?.into_iter().partition(|l| test.contains(&l.id));
    Ok((r, t))
}

/// The candidate of a labelled line: the line without its annotation keys,
/// read as `engram classify` reads a candidate line.
pub fn candidate(v: &Value) -> Result<Candidate, String> {
    let mut object = v.as_object().cloned().ok_or("not a JSON object")?;
    for key in ANNOTATIONS {
        object.remove(key);
    }
    serde_json::from_value::<CandidateIn>(Value::Object(object))
        .map(Candidate::from)
        .map_err(|e| e.to_string())
}
