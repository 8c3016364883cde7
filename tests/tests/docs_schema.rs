//! The documentation names the fields the code takes: docs/serve.md's MCP
//! table against the input schemas a running `engram mcp` lists, and
//! SPEC §4's table of every operation's fields (and every JSON key its
//! examples name) against the contract's generated JSON Schema
//! (`contract/schema/engram-contract.schema.json`, kept up to date by
//! `contract/tests/generated.rs`).
//!
//! A table's argument columns hold field names in backticks, a dotted name
//! for a field inside another (`scope.tenant`; through a list, `items.id`
//! is a field of each item). The check fails when a doc names a field the
//! schema does not have, names an optional field as required, omits a
//! required field (or a required field of a required object), or leaves
//! out a field the schema has.

use std::collections::{BTreeMap, BTreeSet};

use engram_tests::deployment::{Deployment, Mcp};
use serde_json::Value;

const NOW: &str = "2026-08-01T10:00:00+08:00";

fn read(path: &str) -> String {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/..").to_string() + "/" + path;
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("read {file}: {e}"))
}

// ---------------------------------------------------------------- documents

/// The rows of the first Markdown table in `text` whose header starts with
/// `first`, as header → cell.
fn table(text: &str, first: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = text.lines().map(str::trim);
    let header = lines
        .by_ref()
        .find(|l| cells(l).first().is_some_and(|c| c == first))
        .unwrap_or_else(|| panic!("no table with a `{first}` column"));
    let header = cells(header);
    lines
        .skip(1) // the | --- | line
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let row = cells(l);
            assert_eq!(row.len(), header.len(), "a row of the `{first}` table: {l}");
            header.iter().cloned().zip(row).collect()
        })
        .collect()
}

/// The cells of a table line (`\|` is a pipe inside a cell).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().expect("a cell").push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().expect("a cell").push(c),
        }
    }
    out.iter().map(|c| c.trim().to_string()).collect()
}

/// The spans in backticks of `text`.
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The field names of an argument cell: each span in backticks must be
/// one, so the format stays parseable.
fn fields(cell: &str, row: &str) -> Vec<String> {
    code_spans(cell)
        .into_iter()
        .inspect(|f| {
            let ok = !f.is_empty()
                && f.split('.').all(|seg| {
                    !seg.is_empty()
                        && seg
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                });
            assert!(
                ok,
                "{row}: `{f}` in an argument column is not a field name (a dotted name in backticks)"
            );
        })
        .collect()
}

// ---------------------------------------------------------------- schemas

/// A schema with its `$ref`s resolved against `root` (the contract's
/// document; the MCP schemas have none).
struct Schemas<'a> {
    root: &'a Value,
}

impl Schemas<'_> {
    fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => self
                .root
                .pointer(r.trim_start_matches('#'))
                .map(|s| self.resolve(s))
                .unwrap_or_else(|| panic!("a $ref to nothing: {r}")),
            None => schema,
        }
    }

    /// The object schemas a value may be: itself, its alternatives
    /// (`anyOf`/`oneOf`, e.g. nullable) and, for a list, its items'.
    fn objects<'s>(&'s self, schema: &'s Value) -> Vec<&'s Value> {
        let schema = self.resolve(schema);
        let mut out = Vec::new();
        if schema.get("properties").is_some() {
            out.push(schema);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for alt in schema
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.extend(self.objects(alt));
            }
        }
        if let Some(items) = schema.get("items") {
            out.extend(self.objects(items));
        }
        out
    }

    /// Whether `path` names a field of `schema`, and whether each step of
    /// it is required (`None`: no such field).
    fn lookup(&self, schema: &Value, path: &str) -> Option<bool> {
        let mut current = vec![schema];
        let mut required = true;
        for seg in path.split('.') {
            let mut next = Vec::new();
            let mut seg_required = false;
            for o in current.iter().flat_map(|s| self.objects(s)) {
                if let Some(p) = o["properties"].get(seg) {
                    next.push(p);
                    seg_required |= required_of(o).contains(seg);
                }
            }
            if next.is_empty() {
                return None;
            }
            required &= seg_required;
            current = next;
        }
        Some(required)
    }

    /// The top-level fields of `schema`, and the required ones.
    fn top(&self, schema: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
        let mut all = BTreeSet::new();
        let mut required = BTreeSet::new();
        for o in self.objects(schema) {
            all.extend(
                o["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.clone()),
            );
            required.extend(required_of(o).into_iter().map(str::to_string));
        }
        (all, required)
    }

    /// The required fields inside required field `field` (one level down).
    fn required_inside(&self, schema: &Value, field: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for o in self.objects(schema) {
            if let Some(p) = o["properties"].get(field) {
                for inner in self.objects(p) {
                    out.extend(
                        required_of(inner)
                            .into_iter()
                            .map(|r| format!("{field}.{r}")),
                    );
                }
            }
        }
        out
    }
}

fn required_of(schema: &Value) -> BTreeSet<&str> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// What is wrong with a row naming `required` and `optional` fields of an
/// input `schema`: one line per problem.
fn check_input(
    s: &Schemas,
    what: &str,
    schema: &Value,
    required: &[String],
    optional: &[String],
) -> Vec<String> {
    let mut problems = Vec::new();
    for f in required {
        match s.lookup(schema, f) {
            None => problems.push(format!("{what}: `{f}` is not a field of the schema")),
            Some(false) => {
                problems.push(format!("{what}: `{f}` is named required but is optional"))
            }
            Some(true) => {}
        }
    }
    for f in optional {
        match s.lookup(schema, f) {
            None => problems.push(format!("{what}: `{f}` is not a field of the schema")),
            Some(true) => problems.push(format!("{what}: `{f}` is named optional but is required")),
            Some(false) => {}
        }
    }
    let (all, top_required) = s.top(schema);
    let first = |fs: &[String]| -> BTreeSet<String> {
        fs.iter()
            .map(|f| f.split('.').next().unwrap_or_default().to_string())
            .collect()
    };
    let named_required = first(required);
    let named: BTreeSet<String> = named_required.union(&first(optional)).cloned().collect();
    for r in &top_required {
        if !named_required.contains(r) {
            problems.push(format!(
                "{what}: required field `{r}` is not named as required"
            ));
        }
        for inner in s.required_inside(schema, r) {
            if !required.contains(&inner) {
                problems.push(format!(
                    "{what}: required field `{inner}` is not named as required"
                ));
            }
        }
    }
    for f in all.difference(&named) {
        problems.push(format!("{what}: field `{f}` of the schema is left out"));
    }
    problems
}

// ---------------------------------------------------------------- MCP

#[test]
fn serve_md_names_the_arguments_of_every_mcp_tool() {
    let d = Deployment::sqlite("docs-schema-mcp", env!("CARGO_BIN_EXE_engram-cli"), NOW);
    let tools = Mcp::start(&d, "acme", Some("u1")).list_tools();
    let schemas: BTreeMap<String, Value> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().expect("a tool's name").to_string(),
                t["inputSchema"].clone(),
            )
        })
        .collect();
    assert!(schemas.len() >= 9, "the tools: {:?}", schemas.keys());

    let doc = read("docs/serve.md");
    let mcp = &doc[doc.find("## MCP").expect("docs/serve.md: an MCP section")..];
    let rows = table(mcp, "tool");
    let none = Value::Null;
    let s = Schemas { root: &none };
    let mut problems = Vec::new();
    let mut documented = BTreeSet::new();
    for row in &rows {
        let spans = code_spans(&row["tool"]);
        let [name] = spans.as_slice() else {
            panic!(
                "docs/serve.md: a tool cell is one name in backticks: {}",
                row["tool"]
            );
        };
        documented.insert(name.clone());
        let what = format!("docs/serve.md, MCP tool `{name}`");
        let Some(schema) = schemas.get(name) else {
            problems.push(format!("{what}: `engram mcp` has no such tool"));
            continue;
        };
        let required = fields(&row["required arguments"], &what);
        let optional = fields(&row["optional arguments"], &what);
        problems.extend(check_input(&s, &what, schema, &required, &optional));
    }
    for name in schemas.keys().filter(|n| !documented.contains(*n)) {
        problems.push(format!("docs/serve.md: tool `{name}` has no row"));
    }

    // The source kinds the doc explains are the schema's.
    let kinds: BTreeSet<String> = table(mcp, "`source.kind`")
        .iter()
        .filter_map(|r| code_spans(&r["`source.kind`"]).into_iter().next())
        .collect();
    let schema_kinds: BTreeSet<String> = schemas["remember"]["properties"]["source"]["properties"]
        ["kind"]["oneOf"]
        .as_array()
        .expect("remember's source.kind: one of the kinds")
        .iter()
        .filter_map(|k| k["const"].as_str().map(str::to_string))
        .collect();
    if kinds != schema_kinds {
        problems.push(format!(
            "docs/serve.md: the source kinds {kinds:?} are not the schema's {schema_kinds:?}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------- SPEC §4

/// SPEC §4 (up to §4.1).
fn spec_section_4() -> String {
    let spec = read("docs/SPEC.md");
    let start = spec.find("\n## 4. ").expect("SPEC: a §4");
    let end = spec[start..]
        .find("\n### 4.1")
        .map(|e| start + e)
        .expect("SPEC: a §4.1");
    spec[start..end].to_string()
}

fn contract_schema() -> Value {
    serde_json::from_str(&read("contract/schema/engram-contract.schema.json"))
        .expect("the contract's JSON Schema")
}

#[test]
fn spec_section_4_names_the_fields_of_every_operation() {
    let doc = contract_schema();
    let s = Schemas { root: &doc };
    let operations = doc["operations"].as_object().expect("operations");
    let section = spec_section_4();
    let mut problems = Vec::new();
    let mut documented = BTreeSet::new();
    for row in table(&section, "operation") {
        let spans = code_spans(&row["operation"]);
        let [name] = spans.as_slice() else {
            panic!(
                "SPEC §4: an operation cell is one name in backticks: {}",
                row["operation"]
            );
        };
        documented.insert(name.clone());
        let what = format!("SPEC §4, operation `{name}`");
        let Some(op) = operations.get(name) else {
            problems.push(format!("{what}: the contract has no such operation"));
            continue;
        };
        let required = fields(&row["required input fields"], &what);
        let optional = fields(&row["optional input fields"], &what);
        problems.extend(check_input(
            &s,
            &what,
            &op["input"]["item"],
            &required,
            &optional,
        ));

        // The output line: every field named exists, and none is left out.
        let line = &op["output"]["line"];
        let output = fields(&row["output line fields"], &what);
        for f in &output {
            if s.lookup(line, f).is_none() {
                problems.push(format!("{what}: output field `{f}` is not in the schema"));
            }
        }
        let named: BTreeSet<String> = output
            .iter()
            .map(|f| f.split('.').next().unwrap_or_default().to_string())
            .collect();
        for f in s.top(line).0.difference(&named) {
            problems.push(format!(
                "{what}: output field `{f}` of the schema is left out"
            ));
        }
    }
    for name in operations.keys().filter(|n| !documented.contains(*n)) {
        problems.push(format!("SPEC §4: operation `{name}` has no row"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The JSON keys `text` names: `"key":` anywhere, and each of a key list
/// such as `{"id","external_id"}`.
fn json_keys(text: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let quoted: Vec<(usize, usize)> = {
        let mut spans = Vec::new();
        let mut open = None;
        for (i, c) in text.char_indices() {
            if c == '"' {
                match open.take() {
                    None => open = Some(i),
                    Some(o) => spans.push((o, i)),
                }
            } else if c == '\n' {
                open = None;
            }
        }
        spans
    };
    let is_name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    for (o, c) in quoted {
        let word = &text[o + 1..c];
        if !is_name(word) {
            continue;
        }
        let after = text[c + 1..].trim_start();
        if after.starts_with(':') {
            keys.insert(word.to_string());
        }
    }
    // Key lists: `{"a","b",…}` with no colon inside.
    let mut rest = text;
    while let Some(open) = rest.find("{\"") {
        let tail = &rest[open + 1..];
        let Some(close) = tail.find('}') else { break };
        let inner = &tail[..close];
        let names: Vec<&str> = inner
            .split(',')
            .map(|p| p.trim().trim_matches('"'))
            .collect();
        if !inner.contains(':') && names.iter().all(|n| is_name(n)) {
            keys.extend(names.iter().map(|n| n.to_string()));
        }
        rest = tail;
    }
    keys
}

/// Every property name the contract's schema has, at any depth.
fn all_property_names(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(props) = m.get("properties").and_then(Value::as_object) {
                out.extend(props.keys().cloned());
            }
            m.values().for_each(|x| all_property_names(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| all_property_names(x, out)),
        _ => {}
    }
}

/// The fields whose value is a map of the caller's own keys (an object
/// without properties, e.g. `entities`).
fn map_fields(s: &Schemas, v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (name, p) in m
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let p = s.resolve(p);
                let types = p["type"]
                    .as_array()
                    .cloned()
                    .unwrap_or_else(|| vec![p["type"].clone()]);
                if types.contains(&Value::from("object")) && p.get("properties").is_none() {
                    out.insert(name.clone());
                }
            }
            m.values().for_each(|x| map_fields(s, x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| map_fields(s, x, out)),
        _ => {}
    }
}

/// `text` without the values of the map fields (`"entities":{…}`): their
/// keys are the caller's, not the contract's.
fn without_maps(text: &str, maps: &BTreeSet<String>) -> String {
    let mut out = text.to_string();
    for m in maps {
        let opener = format!("\"{m}\":{{");
        let mut from = 0;
        while let Some(at) = out[from..].find(&opener).map(|i| from + i) {
            let body = at + opener.len();
            let mut depth = 1;
            let mut end = out.len();
            for (i, c) in out[body..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = body + i;
                    break;
                }
            }
            out.replace_range(body..end, "");
            from = body;
        }
    }
    out
}

#[test]
fn spec_section_4_examples_name_only_fields_the_contract_has() {
    let doc = contract_schema();
    let mut known = BTreeSet::new();
    all_property_names(&doc, &mut known);
    let mut maps = BTreeSet::new();
    map_fields(&Schemas { root: &doc }, &doc, &mut maps);
    assert!(maps.contains("entities"), "{maps:?}");
    let keys = json_keys(&without_maps(&spec_section_4(), &maps));
    assert!(keys.len() > 40, "the examples' keys are read: {keys:?}");
    let unknown: Vec<&String> = keys.iter().filter(|k| !known.contains(*k)).collect();
    assert!(
        unknown.is_empty(),
        "SPEC §4's examples name fields the contract does not have: {unknown:?}"
    );
}

#[test]
fn the_checks_catch_a_stale_table() {
    // The MCP table as it was before issue 32: `source_kind`, a top-level
    // `thread`, `status` for `statuses` and `memory_id` for `id`.
    let schema: Value = serde_json::from_str(
        r#"{"type":"object","required":["text"],"properties":{
            "text":{"type":"string"},
            "source":{"type":"object","required":["kind"],"properties":{"kind":{"type":"string"},"ref":{"type":["string","null"]}}},
            "scope":{"type":"object","required":[],"properties":{"thread":{"type":"string"}}},
            "items":{"type":"array","items":{"type":"object","required":["id"],"properties":{"id":{"type":"string"},"note":{"type":"string"}}}}}}"#,
    )
    .expect("a schema");
    let none = Value::Null;
    let s = Schemas { root: &none };
    let v = |fs: &[&str]| fs.iter().map(|f| f.to_string()).collect::<Vec<_>>();
    let ok = check_input(
        &s,
        "t",
        &schema,
        &v(&[]),
        &v(&[
            "text",
            "source.kind",
            "source.ref",
            "scope.thread",
            "items.id",
            "items.note",
        ]),
    );
    assert!(
        ok.iter().any(|p| p.contains("`text` is named optional")),
        "{ok:?}"
    );
    let good = check_input(
        &s,
        "t",
        &schema,
        &v(&["text"]),
        &v(&[
            "source.kind",
            "source.ref",
            "scope.thread",
            "items.id",
            "items.note",
        ]),
    );
    assert!(good.is_empty(), "{good:?}");
    let stale = check_input(
        &s,
        "t",
        &schema,
        &v(&["text"]),
        &v(&["source_kind", "thread", "source"]),
    );
    for expected in [
        "`source_kind` is not a field",
        "`thread` is not a field",
        "field `scope` of the schema is left out",
        "field `items` of the schema is left out",
    ] {
        assert!(
            stale.iter().any(|p| p.contains(expected)),
            "{expected}: {stale:?}"
        );
    }
    let missing = check_input(&s, "t", &schema, &v(&[]), &v(&["source", "scope", "items"]));
    assert!(
        missing
            .iter()
            .any(|p| p.contains("required field `text` is not named")),
        "{missing:?}"
    );
    // A required object's required field must be named too.
    let object: Value = serde_json::from_str(
        r#"{"type":"object","required":["scope"],"properties":{"scope":{"type":"object","required":["tenant"],"properties":{"tenant":{"type":"string"},"user":{"type":"string"}}}}}"#,
    )
    .expect("a schema");
    let shallow = check_input(&s, "t", &object, &v(&["scope"]), &v(&["scope.user"]));
    assert!(
        shallow
            .iter()
            .any(|p| p.contains("`scope.tenant` is not named")),
        "{shallow:?}"
    );
    assert!(check_input(&s, "t", &object, &v(&["scope.tenant"]), &v(&["scope.user"])).is_empty());
    // Key names in examples, and key lists; a map's keys are the caller's.
    let maps = BTreeSet::from(["entities".to_string()]);
    let text = r#"`{"source_kind":"user","n":1,"entities":{"service":"x"}}` → `{"id","external_id"}` `["a","b"]`"#;
    let keys = json_keys(&without_maps(text, &maps));
    assert_eq!(
        keys,
        ["entities", "external_id", "id", "n", "source_kind"]
            .iter()
            .map(|k| k.to_string())
            .collect()
    );
}
