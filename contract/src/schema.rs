//! The contract's JSON Schema (`document`), made from the operation table
//! and the `wire` types, and what is generated from it: TypeScript types
//! (`typescript`), Python typed dicts (`python`) and an operation's
//! self-contained input schema (`input_schema`, for MCP tool schemas).
//! The generated files are checked in; `tests/generated.rs` fails when one
//! is out of date (`ENGRAM_BLESS=1` rewrites them).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use schemars::generate::{Contract, SchemaSettings};
use schemars::SchemaGenerator;
use serde_json::{json, Map, Value};

use crate::ops::{Input, Output, OPERATIONS};

// The identifier spelling the contract's build uses for the WIT names.
#[path = "../build/names.rs"]
mod names;
use names::camel;

const INPUT: &str = "/$defs/input";
const OUTPUT: &str = "/$defs/output";

fn generator(path: &str, contract: Contract) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = path.to_string().into();
            s.contract = contract;
        })
        .into_generator()
}

/// The JSON Schema of every operation: its input item and output line,
/// with the types they use under `$defs.input` (as read: optional fields
/// may be absent) and `$defs.output` (as printed).
pub fn document() -> Value {
    let mut inputs = generator(INPUT, Contract::Deserialize);
    let mut outputs = generator(OUTPUT, Contract::Serialize);
    let mut operations = Map::new();
    for op in OPERATIONS {
        let item = (op.input_schema)(&mut inputs);
        let line = (op.output_schema)(&mut outputs);
        let input = match op.input {
            Input::Batch => "batch",
            Input::Object => "object",
        };
        let output = match op.output {
            Output::Each => "each",
            Output::One => "one",
            Output::Many => "many",
        };
        operations.insert(
            op.name.to_string(),
            json!({
                "summary": op.summary,
                "writes": op.writes,
                "input": {"shape": input, "item": item},
                "output": {"shape": output, "line": line},
            }),
        );
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Engram JSON contract (SPEC §4)",
        "description": "Every operation of the component's `json` export and the `engram` CLI. A batch input is JSON Lines or a JSON array of `item`s; an object input is one `item`. Output is JSON Lines of `line`s: one per item (each), exactly one (one) or any number (many).",
        "operations": operations,
        "$defs": {
            "input": inputs.take_definitions(true),
            "output": outputs.take_definitions(true),
        },
    })
}

/// The definitions of the document by section, and the name each has in
/// generated code: an output type whose name is taken by a different input
/// type gets `Out` appended.
struct Defs {
    defs: BTreeMap<(&'static str, String), Value>,
    names: BTreeMap<(&'static str, String), String>,
}

impl Defs {
    fn of(doc: &Value) -> Defs {
        let mut defs = BTreeMap::new();
        for section in ["input", "output"] {
            if let Some(m) = doc["$defs"][section].as_object() {
                for (name, schema) in m {
                    defs.insert((section, name.clone()), schema.clone());
                }
            }
        }
        let mut names = BTreeMap::new();
        for (section, name) in defs.keys() {
            let generated = if *section == "output"
                && defs
                    .get(&("input", name.clone()))
                    .is_some_and(|i| *i != defs[&("output", name.clone())])
            {
                format!("{name}Out")
            } else {
                name.clone()
            };
            names.insert((*section, name.clone()), generated);
        }
        Defs { defs, names }
    }

    /// The generated name a `$ref` points at.
    fn target(&self, reference: &str) -> String {
        let rest = reference.trim_start_matches("#/$defs/");
        let (section, name) = rest.split_once('/').unwrap_or(("input", rest));
        let section = if section == "output" {
            "output"
        } else {
            "input"
        };
        self.names
            .get(&(section, name.to_string()))
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    /// Each generated name once, with its schema (an output type equal to
    /// the input type of its name is the same type).
    fn unique(&self) -> Vec<(String, &Value)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (key, schema) in &self.defs {
            let name = self.names[key].clone();
            if seen.insert(name.clone()) {
                out.push((name, schema));
            }
        }
        out
    }
}

fn description(schema: &Value) -> Option<&str> {
    schema.get("description").and_then(Value::as_str)
}

fn required(schema: &Value) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

fn alternatives(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)
}

// ---------------------------------------------------------------- TypeScript

fn ts(schema: &Value, defs: &Defs) -> String {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        return defs.target(r);
    }
    if let Some(c) = schema.get("const") {
        return c.to_string();
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    if let Some(alts) = alternatives(schema) {
        return alts
            .iter()
            .map(|a| ts(a, defs))
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match &schema["type"] {
        Value::Array(types) => types
            .iter()
            .map(|t| {
                let mut s = schema.clone();
                s["type"] = t.clone();
                ts(&s, defs)
            })
            .collect::<Vec<_>>()
            .join(" | "),
        Value::String(t) => match t.as_str() {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => format!("Array<{}>", ts(&schema["items"], defs)),
            "object" => match (properties(schema), schema.get("additionalProperties")) {
                (Some(_), _) => ts_object(schema, defs, ""),
                (None, Some(v)) if v.is_object() => format!("Record<string, {}>", ts(v, defs)),
                _ => "Record<string, unknown>".into(),
            },
            _ => "unknown".into(),
        },
        _ => "unknown".into(),
    }
}

fn ts_object(schema: &Value, defs: &Defs, indent: &str) -> String {
    let req = required(schema);
    let mut out = String::from("{\n");
    for (name, p) in properties(schema).into_iter().flatten() {
        if let Some(d) = description(p) {
            let _ = writeln!(out, "{indent}  /** {} */", d.replace('\n', " "));
        }
        let opt = if req.contains(name.as_str()) { "" } else { "?" };
        let _ = writeln!(out, "{indent}  {name}{opt}: {};", ts(p, defs));
    }
    out.push_str(indent);
    out.push('}');
    out
}

/// TypeScript declarations of every input and output type, and of the
/// operations (`Operations`: each one's input item and output line).
pub fn typescript() -> String {
    let doc = document();
    let defs = Defs::of(&doc);
    let mut out = String::from(
        "// Generated from the contract's JSON Schema (contract/schema/engram-contract.schema.json)\n\
         // by `cargo test -p engram-contract --features schema` (ENGRAM_BLESS=1 rewrites it).\n\
         // Do not edit. Inputs are what the methods take (SPEC §4), outputs what they return.\n\n",
    );
    for (name, schema) in defs.unique() {
        if let Some(d) = description(schema) {
            let _ = writeln!(out, "/** {} */", d.replace('\n', " "));
        }
        if properties(schema).is_some() {
            let _ = writeln!(
                out,
                "export interface {name} {}\n",
                ts_object(schema, &defs, "")
            );
        } else {
            let _ = writeln!(out, "export type {name} = {};\n", ts(schema, &defs));
        }
    }
    out.push_str("/** Every operation: what one input item and one output line are. */\nexport interface Operations {\n");
    for (name, op) in doc["operations"].as_object().into_iter().flatten() {
        let _ = writeln!(
            out,
            "  {}: {{ input: {}; output: {} }};",
            json!(name),
            ts(&op["input"]["item"], &defs),
            ts(&op["output"]["line"], &defs)
        );
    }
    out.push_str("}\n");
    out
}

// ---------------------------------------------------------------- Python

struct Py<'a> {
    defs: &'a Defs,
    /// Typed dicts for inline objects (untagged variants), by name.
    inline: Vec<(String, Value)>,
}

impl Py<'_> {
    fn expr(&mut self, schema: &Value, context: &str) -> String {
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            return format!("\"{}\"", self.defs.target(r));
        }
        if let Some(c) = schema.get("const") {
            return format!("Literal[{c}]");
        }
        if let Some(e) = schema.get("enum").and_then(Value::as_array) {
            let values: Vec<String> = e.iter().map(Value::to_string).collect();
            return format!("Literal[{}]", values.join(", "));
        }
        if let Some(alts) = alternatives(schema) {
            let mut parts = Vec::new();
            for (i, a) in alts.iter().enumerate() {
                parts.push(self.expr(a, &format!("{context}{}", i + 1)));
            }
            return format!("Union[{}]", parts.join(", "));
        }
        match &schema["type"] {
            Value::Array(types) => {
                let mut parts = Vec::new();
                for t in types {
                    let mut s = schema.clone();
                    s["type"] = t.clone();
                    parts.push(self.expr(&s, context));
                }
                format!("Union[{}]", parts.join(", "))
            }
            Value::String(t) => match t.as_str() {
                "string" => "str".into(),
                "integer" => "int".into(),
                "number" => "float".into(),
                "boolean" => "bool".into(),
                "null" => "None".into(),
                "array" => format!("List[{}]", self.expr(&schema["items"], context)),
                "object" => match (properties(schema), schema.get("additionalProperties")) {
                    (Some(_), _) => {
                        let name = format!("{context}Variant");
                        self.inline.push((name.clone(), schema.clone()));
                        format!("\"{name}\"")
                    }
                    (None, Some(v)) if v.is_object() => {
                        format!("Dict[str, {}]", self.expr(v, context))
                    }
                    _ => "Dict[str, Any]".into(),
                },
                _ => "Any".into(),
            },
            _ => "Any".into(),
        }
    }

    /// A typed dict: required keys in a base class, the others optional.
    fn class(&mut self, name: &str, schema: &Value, out: &mut String) {
        let req = required(schema);
        let props = properties(schema).cloned().unwrap_or_default();
        if props.keys().any(|k| PYTHON_KEYWORDS.contains(&k.as_str())) {
            // A key that is a Python keyword (`pass`) needs the functional form.
            let fields: Vec<String> = props
                .iter()
                .map(|(k, p)| format!("{k:?}: {}", self.expr(p, &format!("{name}{}", camel(k)))))
                .collect();
            let total = if req.len() == props.len() {
                ""
            } else {
                ", total=False"
            };
            let _ = write!(
                out,
                "{name} = TypedDict({name:?}, {{{}}}{total})\n{}\n\n",
                fields.join(", "),
                description(schema)
                    .map(|d| format!("\"\"\"{}\"\"\"\n", d.replace('\n', " ")))
                    .unwrap_or_default()
            );
            return;
        }
        let mut required_fields = Vec::new();
        let mut optional_fields = Vec::new();
        for (field, p) in properties(schema).into_iter().flatten() {
            let line = format!(
                "    {field}: {}{}\n",
                self.expr(p, &format!("{name}{}", camel(field))),
                description(p)
                    .map(|d| format!("\n    \"\"\"{}\"\"\"", d.replace('\n', " ")))
                    .unwrap_or_default()
            );
            if req.contains(field.as_str()) {
                required_fields.push(line);
            } else {
                optional_fields.push(line);
            }
        }
        let doc = description(schema)
            .map(|d| format!("    \"\"\"{}\"\"\"\n\n", d.replace('\n', " ")))
            .unwrap_or_default();
        match (required_fields.is_empty(), optional_fields.is_empty()) {
            (false, false) => {
                let _ = write!(
                    out,
                    "class _{name}Required(TypedDict):\n{}\n\nclass {name}(_{name}Required, total=False):\n{doc}{}\n\n",
                    required_fields.concat(),
                    optional_fields.concat()
                );
            }
            (false, true) => {
                let _ = write!(
                    out,
                    "class {name}(TypedDict):\n{doc}{}\n\n",
                    required_fields.concat()
                );
            }
            (true, false) => {
                let _ = write!(
                    out,
                    "class {name}(TypedDict, total=False):\n{doc}{}\n\n",
                    optional_fields.concat()
                );
            }
            (true, true) => {
                let _ = write!(out, "class {name}(TypedDict):\n{doc}    pass\n\n\n");
            }
        }
    }
}

/// Python's keywords, which a class body cannot name.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Python typed dicts (and type aliases) of every input and output type.
pub fn python() -> String {
    let doc = document();
    let defs = Defs::of(&doc);
    let mut py = Py {
        defs: &defs,
        inline: Vec::new(),
    };
    let mut classes = String::new();
    let mut aliases = String::new();
    for (name, schema) in defs.unique() {
        if properties(schema).is_some() {
            py.class(&name, schema, &mut classes);
        } else {
            let expr = py.expr(schema, &name);
            let _ = writeln!(aliases, "{name} = {expr}");
            if let Some(d) = description(schema) {
                let _ = writeln!(aliases, "\"\"\"{}\"\"\"\n", d.replace('\n', " "));
            }
        }
    }
    while let Some((name, schema)) = py.inline.pop() {
        py.class(&name, &schema, &mut classes);
    }
    format!(
        "\"\"\"The JSON contract's types (SPEC §4) as typed dicts: inputs are what the\n\
         methods take, outputs what they return.\n\n\
         Generated from the contract's JSON Schema (contract/schema/engram-contract.schema.json)\n\
         by `cargo test -p engram-contract --features schema` (ENGRAM_BLESS=1 rewrites it).\n\
         Do not edit.\n\"\"\"\n\n\
         from __future__ import annotations\n\n\
         from typing import Any, Dict, List, Literal, Tuple, TypedDict, Union\n\n\n\
         {classes}{aliases}{}",
        crate::constants::python()
    )
}

// ---------------------------------------------------------------- MCP

/// The input item schema of operation `name`, self-contained (every `$ref`
/// replaced by its definition), or `None` for an unknown operation.
pub fn input_schema(name: &str) -> Option<Value> {
    let doc = document();
    let item = doc["operations"][name]["input"]["item"].clone();
    if item.is_null() {
        return None;
    }
    Some(inline_refs(&item, &doc))
}

fn inline_refs(schema: &Value, doc: &Value) -> Value {
    match schema {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                let target = doc
                    .pointer(r.trim_start_matches('#'))
                    .cloned()
                    .unwrap_or(Value::Null);
                let mut resolved = inline_refs(&target, doc);
                // Keep the referring schema's own description, if any.
                if let (Some(d), Some(o)) = (m.get("description"), resolved.as_object_mut()) {
                    o.insert("description".into(), d.clone());
                }
                return resolved;
            }
            Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), inline_refs(v, doc)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| inline_refs(v, doc)).collect()),
        other => other.clone(),
    }
}
