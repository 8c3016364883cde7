//! The training data: labelled candidate lines (`guest/model/data/*.jsonl`,
//! the classification sets' format) and the fixed test split.

use std::path::Path;

use serde_json::Value;

use crate::core::time::parse_rfc3339;
use crate::types::*;

/// A labelled candidate.
#[derive(Debug, Clone)]
pub struct Labelled {
    pub id: String,
    /// The file it came from (its stem).
    pub file: String,
    pub candidate: Candidate,
    /// The expected kind; `None` when not scored ("*").
    pub kind: Option<CandidateKind>,
    /// Is the expected disposition exactly `rejected`?
    pub rejected: bool,
    /// The whole `expect` object, for heads with labels of their own.
    pub expect: Value,
}

fn kind_named(s: &str) -> Option<CandidateKind> {
    Some(match s {
        "semantic" => CandidateKind::Semantic,
        "episodic" => CandidateKind::Episodic,
        "procedural" => CandidateKind::Procedural,
        "working" => CandidateKind::Working,
        "none" => CandidateKind::None,
        _ => return None,
    })
}

/// Every labelled line of the folder's `*.jsonl` files, files in name order.
pub fn load(dir: &Path) -> Result<Vec<Labelled>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        out.extend(load_file(&path)?);
    }
    Ok(out)
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
    let mut out = Vec::new();
    {
        let (file, lines) = json_lines(path)?;
        for Line { at, value: v } in lines {
            let at = || at.as_str();
            let c = candidate(&v).map_err(|e| format!("{}: {e}", at()))?;
            let id =
                c.id.clone()
                    .ok_or_else(|| format!("{}: missing id", at()))?;
            // A list of acceptable kinds trains on the first; "*" is not scored.
            let k = v.get("expect").and_then(|e| e.get("kind"));
            let kind = match k {
                Some(Value::String(s)) if s == "*" => None,
                Some(Value::String(s)) => {
                    Some(kind_named(s).ok_or_else(|| format!("{}: expect.kind {s}", at()))?)
                }
                Some(Value::Array(a)) => a.first().and_then(Value::as_str).and_then(kind_named),
                _ => return Err(format!("{}: missing expect.kind", at())),
            };
            let rejected =
                v.pointer("/expect/disposition").and_then(Value::as_str) == Some("rejected");
            out.push(Labelled {
                id,
                file: file.clone(),
                candidate: c,
                kind,
                rejected,
                expect: v.get("expect").cloned().unwrap_or(Value::Null),
            });
        }
    }
    Ok(out)
}

/// The ids of the untouched test split (`test-split.txt`, `#` comments).
pub fn test_ids(dir: &Path) -> Result<std::collections::BTreeSet<String>, String> {
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

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A candidate from its JSON line (SPEC §4 field names).
pub fn candidate(v: &Value) -> Result<Candidate, String> {
    let scope = v.get("scope").ok_or("missing scope")?;
    let source = v.get("source").ok_or("missing source")?;
    let kind = match source.get("kind").and_then(Value::as_str) {
        Some("user") => SourceKind::User,
        Some("system") => SourceKind::System,
        Some("document") => SourceKind::Document,
        Some("tool") => SourceKind::Tool,
        Some("behavior") => SourceKind::Behavior,
        Some("agent") => SourceKind::Agent,
        other => return Err(format!("source.kind: {other:?}")),
    };
    let time = |k: &str| -> Result<Option<Datetime>, String> {
        match s(v, k) {
            Some(t) => parse_rfc3339(&t)
                .map(Some)
                .ok_or(format!("{k}: not RFC 3339: {t}")),
            None => Ok(None),
        }
    };
    Ok(Candidate {
        id: s(v, "id"),
        text: s(v, "text").ok_or("missing text")?,
        scope: Scope {
            tenant: s(scope, "tenant").ok_or("missing scope.tenant")?,
            user: s(scope, "user"),
            project: s(scope, "project"),
            thread: s(scope, "thread"),
            agent: s(scope, "agent"),
        },
        source: Source {
            kind,
            reference: s(source, "ref"),
        },
        observed_at: time("observed_at")?,
        confidence: v.get("confidence").and_then(Value::as_f64),
        kind_hint: match s(v, "kind_hint").as_deref() {
            Some("semantic") => Some(CandidateKind::Semantic),
            Some("episodic") => Some(CandidateKind::Episodic),
            Some("procedural") => Some(CandidateKind::Procedural),
            Some("working") => Some(CandidateKind::Working),
            Some("none") => Some(CandidateKind::None),
            None => None,
            Some(o) => return Err(format!("kind_hint: {o}")),
        },
        subject: s(v, "subject"),
        predicate: s(v, "predicate"),
        object: s(v, "object"),
        condition: s(v, "condition"),
        occurred_at: time("occurred_at")?,
        valid_from: time("valid_from")?,
        valid_to: time("valid_to")?,
        entities: entries(v.get("entities")),
        embedding: v.get("embedding").and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_f64)
                .map(|x| x as f32)
                .collect()
        }),
    })
}

/// A JSON object's members as entries (non-string values as their JSON text).
pub fn entries(v: Option<&Value>) -> Vec<Entry> {
    v.and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, x)| Entry {
                    key: k.clone(),
                    value: x
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| x.to_string()),
                })
                .collect()
        })
        .unwrap_or_default()
}
