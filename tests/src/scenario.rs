//! The acceptance-scenario runner: JSON files in `tests/scenarios/`, each a
//! sequence of `engram` CLI invocations on a fresh SQLite database with
//! expectations on their JSON Lines output. The format is documented in
//! `tests/scenarios/README.md`; this module depends only on `std` and
//! `serde_json` so that it can also be compiled on its own (a throwaway
//! crate that `#[path]`-includes this file) and run against any `engram`
//! binary.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The clock of a scenario's first step when it does not name one.
pub const DEFAULT_NOW: &str = "2026-09-01T10:00:00+08:00";

/// How long one step may run before it is killed and reported.
const STEP_TIMEOUT: Duration = Duration::from_secs(180);

/// How much of an actual value an error message shows.
const CLIP: usize = 600;

/// One scenario file. A file that does not parse still loads: `error` then
/// says which file and field is wrong, and `run` reports it.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: PathBuf,
    pub name: String,
    pub seed: String,
    pub quote: String,
    pub lang: String,
    pub note: Option<String>,
    pub steps: Vec<Step>,
    /// Set when the file could not be read or parsed.
    pub error: Option<String>,
}

/// One invocation of the CLI.
#[derive(Debug, Clone)]
pub struct Step {
    /// The command words after `engram`, e.g. `["operations", "record"]`.
    pub run: Vec<String>,
    pub args: Vec<String>,
    pub now: Option<String>,
    pub stdin: Option<Stdin>,
    pub exit: i32,
    pub stderr_contains: Option<String>,
    pub save: Vec<(String, String)>,
    pub expect: Vec<Expect>,
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Stdin {
    /// One JSON value per line.
    Lines(Vec<Value>),
    /// A single JSON object on one line (`pack`).
    One(Value),
}

/// How an operator applies to the list a `*` path yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Of {
    All,
    Any,
    None,
}

#[derive(Debug, Clone)]
pub enum Op {
    Eq(Value),
    Ne(Value),
    In(Vec<Value>),
    Contains(String),
    Lacks(String),
    /// Comparisons hold a number, or a `${name}` string that must
    /// substitute to a number.
    Gt(Value),
    Gte(Value),
    Lt(Value),
    Lte(Value),
    Len(usize),
    LenGte(usize),
    LenLte(usize),
    Exists(bool),
    Order(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct Expect {
    pub path: String,
    pub op: Op,
    /// `None` when not given (the default, `all`, for `*` paths).
    pub of: Option<Of>,
}

const OPERATORS: &[&str] = &[
    "eq", "ne", "in", "contains", "lacks", "gt", "gte", "lt", "lte", "len", "len_gte", "len_lte",
    "exists", "order",
];

// ---------------------------------------------------------------- loading

/// Every `*.json` file in `dir`, sorted by file name. A file that does not
/// parse is returned with `error` set. Panics if `dir` cannot be read.
pub fn load_dir(dir: &Path) -> Vec<Scenario> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read scenario directory {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    files.iter().map(|f| load_file(f)).collect()
}

/// One scenario file; a parse error is kept in `error`.
pub fn load_file(file: &Path) -> Scenario {
    let text = std::fs::read_to_string(file);
    let parsed = match text {
        Ok(t) => parse(file, &t),
        Err(e) => Err(format!("{}: cannot read: {e}", file.display())),
    };
    parsed.unwrap_or_else(|error| Scenario {
        file: file.to_path_buf(),
        name: file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        seed: String::new(),
        quote: String::new(),
        lang: String::new(),
        note: None,
        steps: Vec::new(),
        error: Some(error),
    })
}

/// Parse the text of scenario file `file`. Errors name the file and field.
pub fn parse(file: &Path, text: &str) -> Result<Scenario, String> {
    let f = file.display().to_string();
    let root: Value =
        serde_json::from_str(text).map_err(|e| format!("{f}: not valid JSON: {e}"))?;
    let obj = root
        .as_object()
        .ok_or_else(|| format!("{f}: the top level must be an object"))?;
    for key in obj.keys() {
        if !["name", "seed", "quote", "lang", "steps", "note"].contains(&key.as_str()) {
            return Err(format!("{f}: unknown top-level key `{key}`"));
        }
    }
    let name = req_str(obj, "name", &f, "")?;
    let seed = req_str(obj, "seed", &f, "")?;
    if seed.len() != 3 || !seed.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{f}: field `seed` must be three digits, e.g. \"001\""
        ));
    }
    if let Some(stem) = file.file_name().map(|s| s.to_string_lossy().into_owned()) {
        if !stem.starts_with(&format!("{seed}-")) {
            return Err(format!(
                "{f}: field `seed` is \"{seed}\" but the file name does not start with \"{seed}-\""
            ));
        }
    }
    let quote = req_str(obj, "quote", &f, "")?;
    let lang = req_str(obj, "lang", &f, "")?;
    if !["zh", "en", "mixed"].contains(&lang.as_str()) {
        return Err(format!(
            "{f}: field `lang` must be \"zh\", \"en\" or \"mixed\""
        ));
    }
    let note = opt_str(obj, "note", &f, "")?;
    let steps_v = obj
        .get("steps")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{f}: field `steps` must be a non-empty array"))?;
    if steps_v.is_empty() {
        return Err(format!("{f}: field `steps` must be a non-empty array"));
    }
    let mut steps = Vec::new();
    for (i, s) in steps_v.iter().enumerate() {
        steps.push(parse_step(s, &f, i)?);
    }
    Ok(Scenario {
        file: file.to_path_buf(),
        name,
        seed,
        quote,
        lang,
        note,
        steps,
        error: None,
    })
}

fn req_str(obj: &Map<String, Value>, key: &str, f: &str, at: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        _ => Err(format!("{f}: field `{at}{key}` must be a non-empty string")),
    }
}

fn opt_str(
    obj: &Map<String, Value>,
    key: &str,
    f: &str,
    at: &str,
) -> Result<Option<String>, String> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{f}: field `{at}{key}` must be a string")),
    }
}

fn parse_step(v: &Value, f: &str, i: usize) -> Result<Step, String> {
    let at = format!("steps.{i}.");
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{f}: field `steps.{i}` must be an object"))?;
    for key in obj.keys() {
        if ![
            "run",
            "now",
            "stdin",
            "args",
            "exit",
            "stderr_contains",
            "save",
            "expect",
            "note",
        ]
        .contains(&key.as_str())
        {
            return Err(format!("{f}: unknown key `{at}{key}`"));
        }
    }
    let run: Vec<String> = req_str(obj, "run", f, &at)?
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let now = opt_str(obj, "now", f, &at)?;
    let stdin = match obj.get("stdin") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) => Some(Stdin::Lines(a.clone())),
        Some(o @ Value::Object(_)) => Some(Stdin::One(o.clone())),
        Some(_) => {
            return Err(format!(
                "{f}: field `{at}stdin` must be a list of JSON values or one JSON object"
            ))
        }
    };
    let args = match obj.get("args") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{f}: field `{at}args` must be a list of strings"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(format!("{f}: field `{at}args` must be a list of strings")),
    };
    let exit = match obj.get("exit") {
        None => 0,
        Some(x) => x
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| format!("{f}: field `{at}exit` must be an integer"))?,
    };
    let stderr_contains = opt_str(obj, "stderr_contains", f, &at)?;
    let save = match obj.get("save") {
        None => Vec::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|p| (k.clone(), p.to_string()))
                    .ok_or_else(|| format!("{f}: field `{at}save.{k}` must be a path string"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(format!(
                "{f}: field `{at}save` must be an object of name → path"
            ))
        }
    };
    let expect = match obj.get("expect") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(j, e)| parse_expect(e, &format!("{f}: field `{at}expect.{j}")))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(format!("{f}: field `{at}expect` must be a list")),
    };
    let note = opt_str(obj, "note", f, &at)?;
    Ok(Step {
        run,
        args,
        now,
        stdin,
        exit,
        stderr_contains,
        save,
        expect,
        note,
    })
}

/// Parse one expectation; `at` is the prefix of error messages
/// ("FILE: field `steps.0.expect.1").
pub fn parse_expect(v: &Value, at: &str) -> Result<Expect, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{at}` must be an object"))?;
    let path = match obj.get("path") {
        Some(Value::String(p)) if !p.is_empty() => p.clone(),
        _ => return Err(format!("{at}.path` must be a non-empty string")),
    };
    let mut op: Option<Op> = None;
    let mut of = None;
    for (k, val) in obj {
        match k.as_str() {
            "path" => {}
            "of" => {
                of = Some(match val.as_str() {
                    Some("all") => Of::All,
                    Some("any") => Of::Any,
                    Some("none") => Of::None,
                    _ => return Err(format!("{at}.of` must be \"all\", \"any\" or \"none\"")),
                })
            }
            name if OPERATORS.contains(&name) => {
                if op.is_some() {
                    return Err(format!("{at}` has more than one operator"));
                }
                op = Some(parse_op(name, val, at)?);
            }
            other => return Err(format!("{at}.{other}`: unknown operator or key")),
        }
    }
    let op = op.ok_or_else(|| {
        format!(
            "{at}` needs exactly one operator (one of {})",
            OPERATORS.join(", ")
        )
    })?;
    if let Some(o) = of {
        if !path.split('.').any(|s| s == "*") {
            return Err(format!("{at}.of` is only meaningful on a path with `*`"));
        }
        if matches!(
            op,
            Op::Len(_) | Op::LenGte(_) | Op::LenLte(_) | Op::Exists(_) | Op::Order(_)
        ) {
            return Err(format!(
                "{at}.of` does not apply to len/len_gte/len_lte/exists/order (got {o:?})"
            ));
        }
    }
    Ok(Expect { path, op, of })
}

fn parse_op(name: &str, val: &Value, at: &str) -> Result<Op, String> {
    let num = || match val {
        Value::Number(_) => Ok(val.clone()),
        Value::String(s) if s.contains("${") => Ok(val.clone()),
        _ => Err(format!(
            "{at}.{name}` must be a number or a `${{name}}` string"
        )),
    };
    let count = || {
        val.as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| format!("{at}.{name}` must be a non-negative integer"))
    };
    let string = || {
        val.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("{at}.{name}` must be a string"))
    };
    Ok(match name {
        "eq" => Op::Eq(val.clone()),
        "ne" => Op::Ne(val.clone()),
        "in" => Op::In(
            val.as_array()
                .cloned()
                .ok_or_else(|| format!("{at}.in` must be a list of allowed values"))?,
        ),
        "contains" => Op::Contains(string()?),
        "lacks" => Op::Lacks(string()?),
        "gt" => Op::Gt(num()?),
        "gte" => Op::Gte(num()?),
        "lt" => Op::Lt(num()?),
        "lte" => Op::Lte(num()?),
        "len" => Op::Len(count()?),
        "len_gte" => Op::LenGte(count()?),
        "len_lte" => Op::LenLte(count()?),
        "exists" => Op::Exists(
            val.as_bool()
                .ok_or_else(|| format!("{at}.exists` must be true or false"))?,
        ),
        "order" => {
            let list = val
                .as_array()
                .filter(|a| a.len() >= 2)
                .ok_or_else(|| format!("{at}.order` must be a list of at least two strings"))?;
            Op::Order(
                list.iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("{at}.order` must be a list of strings"))
                    })
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => unreachable!("operator list"),
    })
}

// ---------------------------------------------------------------- paths

/// What a path resolves to: one value (`null` when it does not resolve) or,
/// once a `*` was crossed, a list (`None` when the part before the first
/// `*` did not resolve to an array or object).
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    One(Value),
    Many(Option<Vec<Value>>),
}

impl Resolved {
    /// The value an operator without `of` sees: the value itself, the list,
    /// or `null` when the path does not resolve.
    pub fn as_value(&self) -> Value {
        match self {
            Resolved::One(v) => v.clone(),
            Resolved::Many(Some(l)) => Value::Array(l.clone()),
            Resolved::Many(None) => Value::Null,
        }
    }
}

fn step_into(v: &Value, seg: &str) -> Value {
    match v {
        Value::Array(a) => seg
            .parse::<usize>()
            .ok()
            .and_then(|i| a.get(i).cloned())
            .unwrap_or(Value::Null),
        Value::Object(m) => m.get(seg).cloned().unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

fn children(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(a) => Some(a.clone()),
        Value::Object(m) => Some(m.values().cloned().collect()),
        _ => None,
    }
}

/// Resolve a dot-separated path: numeric segments index arrays, other
/// segments are object keys, `*` maps over an array's elements (or an
/// object's values). After a `*`, each later segment applies to every
/// element (an element where it does not resolve becomes `null`) and a
/// later `*` flattens (an element that is neither array nor object adds
/// nothing).
pub fn resolve(root: &Value, path: &str) -> Resolved {
    let mut cur = Resolved::One(root.clone());
    for seg in path.split('.') {
        cur = match cur {
            Resolved::One(v) => {
                if seg == "*" {
                    Resolved::Many(children(&v))
                } else {
                    Resolved::One(step_into(&v, seg))
                }
            }
            Resolved::Many(None) => Resolved::Many(None),
            Resolved::Many(Some(list)) => {
                if seg == "*" {
                    Resolved::Many(Some(list.iter().filter_map(children).flatten().collect()))
                } else {
                    Resolved::Many(Some(list.iter().map(|v| step_into(v, seg)).collect()))
                }
            }
        };
    }
    cur
}

// ---------------------------------------------------------------- checks

/// JSON equality where numbers compare as numbers (1 == 1.0).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => p == q,
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| json_eq(p, q)))
        }
        _ => a == b,
    }
}

/// Whether one value passes an element-wise operator.
fn passes(op: &Op, v: &Value) -> bool {
    match op {
        Op::Eq(x) => json_eq(v, x),
        Op::Ne(x) => !json_eq(v, x),
        Op::In(xs) => xs.iter().any(|x| json_eq(v, x)),
        Op::Contains(s) => v.as_str().is_some_and(|t| t.contains(s.as_str())),
        Op::Lacks(s) => !v.as_str().is_some_and(|t| t.contains(s.as_str())),
        Op::Gt(n) => cmp(v, n).is_some_and(|(x, n)| x > n),
        Op::Gte(n) => cmp(v, n).is_some_and(|(x, n)| x >= n),
        Op::Lt(n) => cmp(v, n).is_some_and(|(x, n)| x < n),
        Op::Lte(n) => cmp(v, n).is_some_and(|(x, n)| x <= n),
        Op::Len(_) | Op::LenGte(_) | Op::LenLte(_) | Op::Exists(_) | Op::Order(_) => {
            unreachable!("list operators are not element-wise")
        }
    }
}

/// Both sides of a comparison as numbers (`None` when either is not one).
fn cmp(v: &Value, n: &Value) -> Option<(f64, f64)> {
    Some((v.as_f64()?, n.as_f64()?))
}

/// The `order` operator: every fragment occurs in some element, and the
/// first elements containing them come strictly in the given order.
fn check_order(v: &Value, frags: &[String]) -> Result<(), String> {
    let list = v
        .as_array()
        .ok_or_else(|| "order needs an array of strings".to_string())?;
    let mut texts = Vec::with_capacity(list.len());
    for x in list {
        texts.push(
            x.as_str()
                .ok_or_else(|| "order needs an array of strings".to_string())?,
        );
    }
    let mut last: Option<(usize, &String)> = None;
    for frag in frags {
        let idx = texts
            .iter()
            .position(|t| t.contains(frag.as_str()))
            .ok_or_else(|| format!("no element contains {frag:?}"))?;
        if let Some((prev, prev_frag)) = last {
            if idx <= prev {
                return Err(format!(
                    "{frag:?} first occurs at index {idx}, not after {prev_frag:?} (index {prev})"
                ));
            }
        }
        last = Some((idx, frag));
    }
    Ok(())
}

/// Check one expectation against a step's output (the array of its lines'
/// values). `Err` explains the failure.
pub fn check(e: &Expect, output: &Value) -> Result<(), String> {
    let r = resolve(output, &e.path);
    let starred = matches!(r, Resolved::Many(_));
    match &e.op {
        Op::Exists(want) => {
            let is = !r.as_value().is_null();
            if is == *want {
                Ok(())
            } else if *want {
                Err("the path does not resolve".into())
            } else {
                Err("the path resolves".into())
            }
        }
        Op::Len(n) | Op::LenGte(n) | Op::LenLte(n) => {
            let v = r.as_value();
            let len = v
                .as_array()
                .map(Vec::len)
                .ok_or_else(|| "not an array".to_string())?;
            let ok = match e.op {
                Op::Len(_) => len == *n,
                Op::LenGte(_) => len >= *n,
                _ => len <= *n,
            };
            if ok {
                Ok(())
            } else {
                Err(format!("length is {len}"))
            }
        }
        Op::Order(frags) => check_order(&r.as_value(), frags),
        op => {
            if !starred {
                return if passes(op, &r.as_value()) {
                    Ok(())
                } else {
                    Err("does not pass".into())
                };
            }
            let Resolved::Many(Some(list)) = r else {
                return Err("the path does not resolve (nothing before its `*` is a list)".into());
            };
            match e.of.unwrap_or(Of::All) {
                Of::All => match list.iter().position(|v| !passes(op, v)) {
                    None => Ok(()),
                    Some(i) => Err(format!("element {i} does not pass")),
                },
                Of::Any => {
                    if list.iter().any(|v| passes(op, v)) {
                        Ok(())
                    } else if list.is_empty() {
                        Err("the list is empty".into())
                    } else {
                        Err("no element passes".into())
                    }
                }
                Of::None => match list.iter().position(|v| passes(op, v)) {
                    None => Ok(()),
                    Some(i) => Err(format!("element {i} passes")),
                },
            }
        }
    }
}

/// A one-line rendering of an expectation for error messages.
pub fn describe(e: &Expect) -> String {
    let (name, val) = match &e.op {
        Op::Eq(v) => ("eq", v.clone()),
        Op::Ne(v) => ("ne", v.clone()),
        Op::In(v) => ("in", Value::Array(v.clone())),
        Op::Contains(s) => ("contains", Value::String(s.clone())),
        Op::Lacks(s) => ("lacks", Value::String(s.clone())),
        Op::Gt(n) => ("gt", n.clone()),
        Op::Gte(n) => ("gte", n.clone()),
        Op::Lt(n) => ("lt", n.clone()),
        Op::Lte(n) => ("lte", n.clone()),
        Op::Len(n) => ("len", Value::from(*n)),
        Op::LenGte(n) => ("len_gte", Value::from(*n)),
        Op::LenLte(n) => ("len_lte", Value::from(*n)),
        Op::Exists(b) => ("exists", Value::Bool(*b)),
        Op::Order(v) => (
            "order",
            Value::Array(v.iter().cloned().map(Value::String).collect()),
        ),
    };
    let of = match e.of {
        Some(Of::All) => ", of all",
        Some(Of::Any) => ", of any",
        Some(Of::None) => ", of none",
        None => "",
    };
    format!("`{}` {name} {}{of}", e.path, val)
}

/// `s` cut to about `max` characters (on a character boundary).
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let head: String = s.chars().take(max).collect();
        format!("{head}… ({} chars)", s.chars().count())
    }
}

// ---------------------------------------------------------------- substitution

/// Replace every `${name}` in `s` with the saved value (a string as is,
/// anything else as its JSON text). An unknown name is an error.
pub fn substitute_str(s: &str, vars: &BTreeMap<String, Value>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unterminated `${{` in {s:?}"))?;
        let name = &after[..end];
        let v = vars
            .get(name)
            .ok_or_else(|| format!("`${{{name}}}` was not saved by an earlier step"))?;
        match v {
            Value::String(t) => out.push_str(t),
            other => out.push_str(&other.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Substitute inside every string of a JSON value. A string that is exactly
/// `${name}` becomes the saved value itself (so numbers stay numbers).
pub fn substitute(v: &Value, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) => {
            if let Some(name) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
                if !name.contains('}') && !name.contains("${") {
                    return vars
                        .get(name)
                        .cloned()
                        .ok_or_else(|| format!("`${{{name}}}` was not saved by an earlier step"));
                }
            }
            Value::String(substitute_str(s, vars)?)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| substitute(x, vars))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, x) in m {
                out.insert(k.clone(), substitute(x, vars)?);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

fn substitute_expect(e: &Expect, vars: &BTreeMap<String, Value>) -> Result<Expect, String> {
    let s = |x: &String| substitute_str(x, vars);
    let op = match &e.op {
        Op::Eq(v) => Op::Eq(substitute(v, vars)?),
        Op::Ne(v) => Op::Ne(substitute(v, vars)?),
        Op::In(v) => Op::In(
            v.iter()
                .map(|x| substitute(x, vars))
                .collect::<Result<_, _>>()?,
        ),
        Op::Contains(x) => Op::Contains(s(x)?),
        Op::Lacks(x) => Op::Lacks(s(x)?),
        Op::Order(v) => Op::Order(v.iter().map(s).collect::<Result<_, _>>()?),
        Op::Gt(v) => Op::Gt(substitute(v, vars)?),
        Op::Gte(v) => Op::Gte(substitute(v, vars)?),
        Op::Lt(v) => Op::Lt(substitute(v, vars)?),
        Op::Lte(v) => Op::Lte(substitute(v, vars)?),
        other => other.clone(),
    };
    Ok(Expect {
        path: substitute_str(&e.path, vars)?,
        op,
        of: e.of,
    })
}

// ---------------------------------------------------------------- running

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let p = std::env::temp_dir().join(format!(
            "engram-scenario-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p)?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one invocation produced.
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

fn invoke(bin: &Path, argv: &[String], stdin: &str) -> Result<Outcome, String> {
    let mut cmd = Command::new(bin);
    cmd.args(argv)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if std::env::var_os("ENGRAM_CACHE_DIR").is_none() {
        cmd.env(
            "ENGRAM_CACHE_DIR",
            std::env::temp_dir().join("engram-tests-cache"),
        );
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let mut child_in = child.stdin.take().expect("piped stdin");
    let input = stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = child_in.write_all(&input);
    });
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let r_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let r_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if started.elapsed() > STEP_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {}s", STEP_TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for the process: {e}")),
        }
    };
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&r_out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&r_err.join().unwrap_or_default()).into_owned();
    Ok(Outcome {
        code: status.code(),
        stdout,
        stderr,
    })
}

/// The step's stdout as the array of its lines' JSON values (blank lines
/// skipped).
pub fn parse_output(stdout: &str) -> Result<Value, String> {
    let mut lines = Vec::new();
    for (i, line) in stdout.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| {
            format!(
                "stdout line {} is not JSON ({e}): {}",
                i + 1,
                clip(line, 200)
            )
        })?;
        lines.push(v);
    }
    Ok(Value::Array(lines))
}

/// Run one scenario against the `engram` binary at `engram_bin`, on a fresh
/// database in a temporary directory. The error names the scenario file,
/// the step, the expectation and the actual value.
pub fn run(scenario: &Scenario, engram_bin: &Path) -> Result<(), String> {
    let file = scenario.file.display().to_string();
    if let Some(e) = &scenario.error {
        return Err(e.clone());
    }
    let dir =
        TempDir::new().map_err(|e| format!("{file}: cannot make a temporary directory: {e}"))?;
    let db = dir.0.join("engram.db").display().to_string();
    let mut vars: BTreeMap<String, Value> = BTreeMap::new();
    let mut now = DEFAULT_NOW.to_string();
    for (i, step) in scenario.steps.iter().enumerate() {
        let at = format!("{file}: step {i} ({})", step.run.join(" "));
        if let Some(n) = &step.now {
            now = n.clone();
        }
        let args: Vec<String> = step
            .args
            .iter()
            .map(|a| substitute_str(a, &vars))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{at}: args: {e}"))?;
        let stdin = match &step.stdin {
            None => String::new(),
            Some(Stdin::One(v)) => {
                let v = substitute(v, &vars).map_err(|e| format!("{at}: stdin: {e}"))?;
                format!("{v}\n")
            }
            Some(Stdin::Lines(vs)) => {
                let mut s = String::new();
                for v in vs {
                    let v = substitute(v, &vars).map_err(|e| format!("{at}: stdin: {e}"))?;
                    s.push_str(&v.to_string());
                    s.push('\n');
                }
                s
            }
        };
        let mut argv: Vec<String> = step.run.clone();
        argv.extend([
            "--db".to_string(),
            db.clone(),
            "--now".to_string(),
            now.clone(),
        ]);
        argv.extend(args);
        let outcome = invoke(engram_bin, &argv, &stdin).map_err(|e| format!("{at}: {e}"))?;
        let stderr_hint = || {
            if outcome.stderr.trim().is_empty() {
                String::new()
            } else {
                format!("; stderr: {}", clip(outcome.stderr.trim(), CLIP))
            }
        };
        match outcome.code {
            Some(c) if c == step.exit => {}
            Some(c) => {
                return Err(format!(
                    "{at}: exit status {c}, expected {}{}",
                    step.exit,
                    stderr_hint()
                ))
            }
            None => return Err(format!("{at}: killed by a signal{}", stderr_hint())),
        }
        if let Some(want) = &step.stderr_contains {
            let want = substitute_str(want, &vars).map_err(|e| format!("{at}: {e}"))?;
            if !outcome.stderr.contains(&want) {
                return Err(format!(
                    "{at}: stderr does not contain {want:?}; stderr: {}",
                    clip(outcome.stderr.trim(), CLIP)
                ));
            }
        }
        let needs_output = !step.expect.is_empty() || !step.save.is_empty();
        let output = match parse_output(&outcome.stdout) {
            Ok(v) => v,
            Err(e) if needs_output => return Err(format!("{at}: {e}{}", stderr_hint())),
            Err(_) => Value::Array(Vec::new()),
        };
        for (j, e) in step.expect.iter().enumerate() {
            let e =
                substitute_expect(e, &vars).map_err(|err| format!("{at}: expect {j}: {err}"))?;
            if let Err(why) = check(&e, &output) {
                let actual = resolve(&output, &e.path).as_value();
                return Err(format!(
                    "{at}: expect {j} {}: {why}; actual: {}",
                    describe(&e),
                    clip(&actual.to_string(), CLIP)
                ));
            }
        }
        for (name, path) in &step.save {
            let v = resolve(&output, path).as_value();
            if v.is_null() {
                return Err(format!(
                    "{at}: save `{name}`: path `{path}` does not resolve; output: {}",
                    clip(&output.to_string(), CLIP)
                ));
            }
            vars.insert(name.clone(), v);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- tests

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ex(v: Value) -> Expect {
        parse_expect(&v, "test: field `e").expect("valid expectation")
    }

    fn ok(v: Value, out: &Value) -> bool {
        check(&ex(v), out).is_ok()
    }

    fn out() -> Value {
        json!([
            {"id": "q1", "nothing_relevant": false, "results": [
                {"memory_id": "m-1", "kind": "semantic", "text": "以后请叫我林工", "score": 1.5, "status": "active"},
                {"memory_id": "m-2", "kind": "episodic", "text": "2026-08-31 迁移失败", "score": 0.5, "status": "superseded"}
            ]},
            {"id": "q2", "results": []}
        ])
    }

    #[test]
    fn paths_index_arrays_and_objects() {
        let o = out();
        assert_eq!(resolve(&o, "0.id"), Resolved::One(json!("q1")));
        assert_eq!(
            resolve(&o, "0.results.1.kind"),
            Resolved::One(json!("episodic"))
        );
        assert_eq!(resolve(&o, "0.results.7.kind"), Resolved::One(Value::Null));
        assert_eq!(resolve(&o, "3.id"), Resolved::One(Value::Null));
        assert_eq!(resolve(&o, "0.id.x"), Resolved::One(Value::Null));
        assert_eq!(
            resolve(&o, "0.results.*.kind"),
            Resolved::Many(Some(vec![json!("semantic"), json!("episodic")]))
        );
        assert_eq!(
            resolve(&o, "1.results.*.kind"),
            Resolved::Many(Some(vec![]))
        );
        assert_eq!(resolve(&o, "5.results.*.kind"), Resolved::Many(None));
        // `*` over an object's values, and a nested `*` flattens.
        let v = json!([{"a": {"x": [1, 2], "y": [3]}}]);
        assert_eq!(
            resolve(&v, "0.a.*.*"),
            Resolved::Many(Some(vec![json!(1), json!(2), json!(3)]))
        );
        assert_eq!(resolve(&o, "*.id").as_value(), json!(["q1", "q2"]));
    }

    #[test]
    fn eq_and_ne_compare_json_numbers_as_numbers() {
        let o = json!([{"n": 2, "f": 1.5, "s": "x", "o": {"a": [1, 2.0]}}]);
        assert!(ok(json!({"path": "0.n", "eq": 2.0}), &o));
        assert!(!ok(json!({"path": "0.n", "eq": 3}), &o));
        assert!(!ok(json!({"path": "0.n", "eq": "2"}), &o));
        assert!(ok(json!({"path": "0.o", "eq": {"a": [1.0, 2]}}), &o));
        assert!(ok(json!({"path": "0.s", "ne": "y"}), &o));
        assert!(!ok(json!({"path": "0.s", "ne": "x"}), &o));
        assert!(ok(json!({"path": "0.missing", "eq": null}), &o));
    }

    #[test]
    fn in_contains_lacks() {
        let o = out();
        assert!(ok(
            json!({"path": "0.results.0.kind", "in": ["semantic", "working"]}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.0.kind", "in": ["episodic"]}),
            &o
        ));
        assert!(ok(
            json!({"path": "0.results.0.text", "contains": "林工"}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.0.text", "contains": "王工"}),
            &o
        ));
        assert!(ok(json!({"path": "0.results.0.text", "lacks": "王工"}), &o));
        assert!(!ok(
            json!({"path": "0.results.0.text", "lacks": "林工"}),
            &o
        ));
        // A non-string fails `contains` and passes `lacks`.
        assert!(!ok(
            json!({"path": "0.results.0.score", "contains": "1"}),
            &o
        ));
        assert!(ok(json!({"path": "0.results.0.score", "lacks": "1"}), &o));
        assert!(ok(json!({"path": "0.nope", "lacks": "1"}), &o));
    }

    #[test]
    fn comparisons_need_numbers() {
        let o = out();
        assert!(ok(json!({"path": "0.results.0.score", "gt": 1}), &o));
        assert!(!ok(json!({"path": "0.results.0.score", "gt": 1.5}), &o));
        assert!(ok(json!({"path": "0.results.0.score", "gte": 1.5}), &o));
        assert!(!ok(json!({"path": "0.results.0.score", "gte": 1.6}), &o));
        assert!(ok(json!({"path": "0.results.1.score", "lt": 0.6}), &o));
        assert!(!ok(json!({"path": "0.results.1.score", "lt": 0.5}), &o));
        assert!(ok(json!({"path": "0.results.1.score", "lte": 0.5}), &o));
        assert!(!ok(json!({"path": "0.results.1.score", "lte": 0.4}), &o));
        assert!(!ok(json!({"path": "0.results.1.text", "lte": 10}), &o));
        assert!(!ok(json!({"path": "0.missing", "gte": 0}), &o));
        // A `${name}` operand compares with a saved number.
        let mut vars = BTreeMap::new();
        vars.insert("c".to_string(), json!(1.5));
        let e = substitute_expect(
            &ex(json!({"path": "0.results.0.score", "lte": "${c}"})),
            &vars,
        )
        .unwrap();
        assert!(check(&e, &o).is_ok());
        let e = substitute_expect(
            &ex(json!({"path": "0.results.0.score", "lt": "${c}"})),
            &vars,
        )
        .unwrap();
        assert!(check(&e, &o).is_err());
        vars.insert("s".to_string(), json!("x"));
        let e = substitute_expect(
            &ex(json!({"path": "0.results.0.score", "lte": "${s}"})),
            &vars,
        )
        .unwrap();
        assert!(check(&e, &o).is_err());
    }

    #[test]
    fn lengths_and_exists() {
        let o = out();
        assert!(ok(json!({"path": "0.results", "len": 2}), &o));
        assert!(!ok(json!({"path": "0.results", "len": 1}), &o));
        assert!(ok(json!({"path": "1.results", "len": 0}), &o));
        assert!(ok(json!({"path": "0.results.*.kind", "len_gte": 2}), &o));
        assert!(!ok(json!({"path": "0.results", "len_gte": 3}), &o));
        assert!(ok(json!({"path": "0.results", "len_lte": 2}), &o));
        assert!(!ok(json!({"path": "0.results", "len_lte": 1}), &o));
        assert!(!ok(json!({"path": "0.id", "len": 2}), &o));
        assert!(!ok(json!({"path": "9.results", "len": 0}), &o));
        assert!(ok(
            json!({"path": "0.nothing_relevant", "exists": true}),
            &o
        ));
        assert!(!ok(
            json!({"path": "1.nothing_relevant", "exists": true}),
            &o
        ));
        assert!(ok(
            json!({"path": "1.nothing_relevant", "exists": false}),
            &o
        ));
        assert!(!ok(json!({"path": "0.id", "exists": false}), &o));
        assert!(ok(json!({"path": "1.results.*.kind", "exists": true}), &o));
        assert!(ok(json!({"path": "4.results.*.kind", "exists": false}), &o));
    }

    #[test]
    fn star_all_any_none() {
        let o = out();
        // all (the default)
        assert!(ok(
            json!({"path": "0.results.*.memory_id", "contains": "m-"}),
            &o
        ));
        assert!(ok(
            json!({"path": "0.results.*.memory_id", "contains": "m-", "of": "all"}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.*.kind", "eq": "semantic"}),
            &o
        ));
        // any
        assert!(ok(
            json!({"path": "0.results.*.kind", "eq": "episodic", "of": "any"}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.*.kind", "eq": "procedural", "of": "any"}),
            &o
        ));
        assert!(!ok(
            json!({"path": "1.results.*.kind", "eq": "semantic", "of": "any"}),
            &o
        ));
        // none
        assert!(ok(
            json!({"path": "0.results.*.kind", "eq": "procedural", "of": "none"}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.*.status", "eq": "superseded", "of": "none"}),
            &o
        ));
        assert!(ok(
            json!({"path": "0.results.*.score", "gt": 2, "of": "none"}),
            &o
        ));
        assert!(ok(
            json!({"path": "0.results.*.kind", "in": ["semantic", "episodic"]}),
            &o
        ));
        // an empty list: all and none pass, any fails
        assert!(ok(json!({"path": "1.results.*.text", "lacks": "x"}), &o));
        assert!(ok(
            json!({"path": "1.results.*.text", "contains": "x", "of": "none"}),
            &o
        ));
        // a path that does not resolve before its `*` fails every mode
        assert!(!ok(json!({"path": "7.results.*.text", "lacks": "x"}), &o));
        assert!(!ok(
            json!({"path": "7.results.*.text", "contains": "x", "of": "none"}),
            &o
        ));
    }

    #[test]
    fn order_checks_first_occurrences() {
        let o = out();
        assert!(ok(
            json!({"path": "0.results.*.text", "order": ["林工", "迁移"]}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.*.text", "order": ["迁移", "林工"]}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.*.text", "order": ["林工", "王工"]}),
            &o
        ));
        // two fragments first found in one element are not "above" each other
        assert!(!ok(
            json!({"path": "0.results.*.text", "order": ["以后", "林工"]}),
            &o
        ));
        assert!(!ok(
            json!({"path": "0.results.*.score", "order": ["1", "0"]}),
            &o
        ));
        assert!(!ok(json!({"path": "0.id", "order": ["q", "1"]}), &o));
    }

    #[test]
    fn malformed_expectations_are_errors() {
        let bad = |v: Value| parse_expect(&v, "f: field `e").unwrap_err();
        assert!(bad(json!({"path": "0.x", "equals": 1})).contains("unknown operator"));
        assert!(bad(json!({"path": "0.x"})).contains("exactly one operator"));
        assert!(bad(json!({"path": "0.x", "eq": 1, "ne": 2})).contains("more than one"));
        assert!(bad(json!({"path": "0.x", "eq": 1, "of": "any"})).contains("`*`"));
        assert!(bad(json!({"path": "0.*", "len": 1, "of": "any"})).contains("does not apply"));
        assert!(bad(json!({"path": "0.*", "eq": 1, "of": "some"})).contains("of"));
        assert!(bad(json!({"path": "0.x", "gt": "1"})).contains("number"));
        assert!(bad(json!({"path": "0.x", "order": ["a"]})).contains("order"));
        assert!(bad(json!({"eq": 1})).contains("path"));
    }

    #[test]
    fn malformed_scenarios_name_file_and_field() {
        let f = Path::new("/x/001-demo.json");
        let good = json!({"name": "n", "seed": "001", "quote": "q", "lang": "zh",
            "steps": [{"run": "recall", "stdin": [{"query": "x"}],
                       "expect": [{"path": "0.results", "len": 0}]}]});
        assert!(parse(f, &good.to_string()).is_ok());
        let mut typo = good.clone();
        typo["stepz"] = json!([]);
        let e = parse(f, &typo.to_string()).unwrap_err();
        assert!(e.contains("/x/001-demo.json") && e.contains("stepz"), "{e}");
        let mut bad_op = good.clone();
        bad_op["steps"][0]["expect"][0] = json!({"path": "0.results", "lenn": 0});
        let e = parse(f, &bad_op.to_string()).unwrap_err();
        assert!(e.contains("steps.0.expect.0") && e.contains("lenn"), "{e}");
        let mut bad_step = good.clone();
        bad_step["steps"][0]["stdn"] = json!([]);
        let e = parse(f, &bad_step.to_string()).unwrap_err();
        assert!(e.contains("steps.0.stdn"), "{e}");
        let e = parse(Path::new("/x/002-demo.json"), &good.to_string()).unwrap_err();
        assert!(e.contains("seed"), "{e}");
        let mut no_quote = good.clone();
        no_quote.as_object_mut().unwrap().remove("quote");
        assert!(parse(f, &no_quote.to_string())
            .unwrap_err()
            .contains("quote"));
        assert!(parse(f, "{").unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn substitution_in_strings_args_and_values() {
        let mut vars = BTreeMap::new();
        vars.insert("mid".to_string(), json!("m-42"));
        vars.insert("rev".to_string(), json!(2));
        assert_eq!(substitute_str("--id=${mid}", &vars).unwrap(), "--id=m-42");
        assert_eq!(substitute_str("${mid}#${rev}", &vars).unwrap(), "m-42#2");
        assert!(substitute_str("${nope}", &vars)
            .unwrap_err()
            .contains("nope"));
        assert!(substitute_str("${mid", &vars).is_err());
        let v = json!({"memory_id": "${mid}", "n": "${rev}", "list": ["a ${mid} b"], "k": 1});
        assert_eq!(
            substitute(&v, &vars).unwrap(),
            json!({"memory_id": "m-42", "n": 2, "list": ["a m-42 b"], "k": 1})
        );
        let e = ex(json!({"path": "0.results.*.memory_id", "eq": "${mid}", "of": "any"}));
        let e = substitute_expect(&e, &vars).unwrap();
        let o = json!([{"results": [{"memory_id": "m-1"}, {"memory_id": "m-42"}]}]);
        assert!(check(&e, &o).is_ok());
    }

    #[test]
    fn output_is_json_lines() {
        assert_eq!(
            parse_output("{\"a\":1}\n\n[2]\n").unwrap(),
            json!([{"a": 1}, [2]])
        );
        assert!(parse_output("{\"a\":1}\nnot json\n")
            .unwrap_err()
            .contains("line 2"));
    }

    /// The whole runner against a stand-in for `engram`: a shell script
    /// that prints its arguments and echoes its stdin.
    #[cfg(unix)]
    #[test]
    fn runs_steps_saves_and_substitutes_with_a_stand_in_binary() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new().unwrap();
        let bin = dir.0.join("fake-engram");
        std::fs::write(
            &bin,
            "#!/bin/sh\n\
             if [ \"$1\" = fail ]; then echo 'line 1: field `status`: refused' >&2; exit 3; fi\n\
             printf '{\"argv\":\"%s\"}\\n' \"$*\"\n\
             cat\n",
        )
        .unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.0.join("000-stand-in.json");
        let scenario = json!({
            "name": "stand-in", "seed": "000", "quote": "q", "lang": "en",
            "steps": [
                {"run": "remember", "now": "2026-09-02T00:00:00Z",
                 "stdin": [{"memory_id": "m-7", "n": 3}],
                 "save": {"mid": "1.memory_id", "n": "1.n"},
                 "expect": [{"path": "0.argv", "contains": "remember --db "},
                            {"path": "0.argv", "contains": "--now 2026-09-02T00:00:00Z"}]},
                {"run": "operations get", "args": ["--id", "${mid}"],
                 "stdin": {"id": "${mid}", "n": "${n}"},
                 "expect": [{"path": "0.argv", "contains": "operations get --db"},
                            {"path": "0.argv", "contains": "--now 2026-09-02T00:00:00Z --id m-7"},
                            {"path": "1.id", "eq": "${mid}"},
                            {"path": "1.n", "eq": 3}]},
                {"run": "fail", "exit": 3, "stderr_contains": "field `status`"}
            ]
        });
        std::fs::write(&file, scenario.to_string()).unwrap();
        let s = load_file(&file);
        assert!(s.error.is_none(), "{:?}", s.error);
        run(&s, &bin).expect("the stand-in scenario passes");

        // A failing expectation names the file, the step and the actual value.
        let mut failing = scenario.clone();
        failing["steps"][1]["expect"][3] = json!({"path": "1.n", "eq": 4});
        std::fs::write(&file, failing.to_string()).unwrap();
        let err = run(&load_file(&file), &bin).unwrap_err();
        assert!(
            err.contains("000-stand-in.json") && err.contains("step 1"),
            "{err}"
        );
        assert!(
            err.contains("`1.n` eq 4") && err.contains("actual: 3"),
            "{err}"
        );

        // A wrong exit status is reported with the stderr.
        let mut wrong_exit = scenario.clone();
        wrong_exit["steps"][2]["exit"] = json!(0);
        std::fs::write(&file, wrong_exit.to_string()).unwrap();
        let err = run(&load_file(&file), &bin).unwrap_err();
        assert!(
            err.contains("step 2") && err.contains("exit status 3"),
            "{err}"
        );

        // A name not saved before is an error, not an empty string.
        let mut unsaved = scenario.clone();
        unsaved["steps"][1]["args"] = json!(["--id", "${other}"]);
        std::fs::write(&file, unsaved.to_string()).unwrap();
        let err = run(&load_file(&file), &bin).unwrap_err();
        assert!(err.contains("other"), "{err}");

        // A malformed file loads with its error and fails when run.
        std::fs::write(&file, "{\"name\":1}").unwrap();
        let s = load_file(&file);
        assert!(s.error.as_deref().unwrap().contains("name"));
        assert!(run(&s, &bin).is_err());
    }
}
