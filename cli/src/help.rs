//! What each command's `--help` adds below its flags: the shape of its
//! input — the fields of one JSON line, generated from the contract's JSON
//! Schema (`engram_contract::schema::document`), so they are named exactly
//! as the contract reads them — and examples. Every example runs as
//! written: `tests/tests/help.rs` runs each one against a temporary
//! database and checks what it prints.

use serde_json::Value;

/// One command's help: the contract operation its input is (if any), what
/// one input is called, and its examples (shell lines; `#` lines say what
/// the next ones do).
struct Page {
    /// The command's path below `engram` (`operations record`).
    path: &'static str,
    /// The contract operation whose input the command reads from stdin.
    operation: Option<&'static str>,
    /// What one input item is, in words ("candidate").
    item: &'static str,
    examples: &'static str,
}

/// The examples of every command. A command's examples start from an
/// empty directory, so each first makes what it needs.
const PAGES: &[Page] = &[
    Page {
        path: "classify",
        operation: Some("classify"),
        item: "candidate",
        examples: r#"# a password is rejected by the sensitivity gate, whatever the source
echo '{"text":"my database password is Tr0ub4dor&3","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"user"}}' | engram classify --db memory.db"#,
    },
    Page {
        path: "remember",
        operation: Some("remember"),
        item: "candidate",
        examples: r#"# a preference the user states: stored active, for user u42 in every thread
echo '{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}' | engram remember --db memory.db
# a fact from a system of record, with its key given
echo '{"text":"payment-service uses PostgreSQL 16","scope":{"tenant":"acme"},"source":{"kind":"system","ref":"cmdb:payment-service#rev-91"},"subject":"payment-service","predicate":"database","object":"PostgreSQL 16"}' | engram remember --db memory.db"#,
    },
    Page {
        path: "import",
        operation: Some("import"),
        item: "record",
        examples: r#"echo '{"external_id":"crm-7","kind":"semantic","text":"acme settles invoices in EUR","scope":{"tenant":"acme"},"source":{"kind":"system","ref":"crm:acme"},"subject":"acme","predicate":"invoice_currency","object":"EUR"}' | engram import --db memory.db"#,
    },
    Page {
        path: "recall",
        operation: Some("recall"),
        item: "query",
        examples: concat!(
            "# remember a preference in one thread, recall it from another\n",
            r#"echo '{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}' | engram remember --db memory.db"#,
            "\n",
            r#"echo '{"id":"q1","query":"怎么称呼我？","scope":{"tenant":"acme","user":"u42","thread":"t2"},"k":5}' | engram recall --db memory.db"#
        ),
    },
    Page {
        path: "pack",
        operation: Some("pack"),
        item: "pack request",
        examples: concat!(
            r#"echo '{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}' | engram remember --db memory.db"#,
            "\n",
            r#"echo '{"scope":{"tenant":"acme","user":"u42"},"budget":300,"system":"You are a helpful assistant.","query":"怎么称呼我？","messages":[{"role":"user","text":"帮我写封邮件"}]}' | engram pack --db memory.db"#
        ),
    },
    Page {
        path: "forget",
        operation: Some("forget"),
        item: "selector",
        examples: concat!(
            r#"echo '{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}' | engram remember --db memory.db"#,
            "\n# erase everything derived from source event evt-1001\n",
            r#"echo '{"scope":{"tenant":"acme","user":"u42"},"source_ref":"evt-1001"}' | engram forget --db memory.db"#
        ),
    },
    Page {
        path: "sweep",
        operation: None,
        item: "",
        examples: concat!(
            r#"echo '{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}' | engram remember --db memory.db"#,
            "\nengram sweep --db memory.db --tenant acme"
        ),
    },
    Page {
        path: "review",
        operation: Some("review"),
        item: "verdict",
        examples: concat!(
            "# a preference inferred from behaviour is kept pending…\n",
            r#"echo '{"text":"The user prefers dark mode in the dashboard","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"behavior","ref":"evt-ui-88"},"kind_hint":"semantic","subject":"user:u42","predicate":"ui_theme","object":"dark"}' | engram remember --db memory.db"#,
            "\n# …until a reviewer approves it (its id is in the decision and in `engram list --status pending`)\n",
            r#"echo '{"id":"m-14641a59ee80f144","revision":1,"verdict":"approve","reference":"reviewer:alice"}' | engram review --db memory.db"#
        ),
    },
    Page {
        path: "operations record",
        operation: Some("record-operations"),
        item: "execution record",
        examples: r#"echo '{"operation_id":"op_891","scope":{"tenant":"acme","user":"u42"},"tool":"issue_refund","status":"submitted","idempotency_key":"refund-891"}' | engram operations record --db memory.db"#,
    },
    Page {
        path: "operations get",
        operation: Some("get-operations"),
        item: "lookup",
        examples: concat!(
            r#"echo '{"operation_id":"op_891","scope":{"tenant":"acme","user":"u42"},"tool":"issue_refund","status":"succeeded","result_ref":"refund://r-1"}' | engram operations record --db memory.db"#,
            "\n",
            r#"echo '{"operation_id":"op_891","scope":{"tenant":"acme","user":"u42"}}' | engram operations get --db memory.db"#
        ),
    },
    Page {
        path: "history",
        operation: None,
        item: "",
        examples: concat!(
            r#"echo '{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}' | engram remember --db memory.db"#,
            "\n# the id is the decision's memory_id\n",
            "engram history --db memory.db --id m-a88c3380bf745cdb"
        ),
    },
    Page {
        path: "list",
        operation: None,
        item: "",
        examples: concat!(
            r#"echo '{"id":"c1","text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42","thread":"t1"},"source":{"kind":"user","ref":"evt-1001"}}' | engram remember --db memory.db"#,
            "\nengram list --db memory.db --tenant acme --user u42 --status active"
        ),
    },
    Page {
        path: "info",
        operation: None,
        item: "",
        examples: "engram info",
    },
    Page {
        path: "demo",
        operation: None,
        item: "",
        examples: "engram demo",
    },
    Page {
        path: "serve",
        operation: None,
        item: "",
        examples: "# make a key (printed once; only its hash is kept), then serve\nengram keys add --keys keys.jsonl --tenant acme --user u42 --label laptop\nengram serve --db memory.db --keys keys.jsonl --listen 127.0.0.1:8077",
    },
    Page {
        path: "mcp",
        operation: None,
        item: "",
        examples: "# an MCP client starts it with these arguments (stdin/stdout carry the protocol)\nengram mcp --db memory.db --tenant acme --user u42",
    },
    Page {
        path: "keys add",
        operation: None,
        item: "",
        examples: "engram keys add --keys keys.jsonl --tenant acme --user u42 --label laptop",
    },
    Page {
        path: "keys list",
        operation: None,
        item: "",
        examples: "engram keys add --keys keys.jsonl --tenant acme --label ci-bot\nengram keys list --keys keys.jsonl",
    },
    Page {
        path: "keys revoke",
        operation: None,
        item: "",
        examples: "engram keys add --keys keys.jsonl --tenant acme --label ci-bot\nengram keys revoke --keys keys.jsonl ci-bot",
    },
    Page {
        path: "vacuum",
        operation: None,
        item: "",
        examples: "engram vacuum --db postgres://engram@localhost:5432/engram",
    },
];

/// `command` (the clap tree of `engram`) with each command's input shape
/// and examples below its flags.
pub fn attach(command: clap::Command) -> clap::Command {
    let doc = engram_contract::schema::document();
    attach_under(command, "", &doc)
}

fn attach_under(mut command: clap::Command, prefix: &str, doc: &Value) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix} {name}")
        };
        command = command.mut_subcommand(&name, |sub| {
            let sub = attach_under(sub, &path, doc);
            match PAGES.iter().find(|p| p.path == path) {
                Some(page) => {
                    let mut long = String::new();
                    if let Some(op) = page.operation {
                        long.push_str(&input_section(doc, op, page.item));
                        long.push('\n');
                    }
                    long.push_str("Examples:\n");
                    long.push_str(&indent(page.examples));
                    let mut short = format!("Examples:\n{}", indent(page.examples));
                    if page.operation.is_some() {
                        short.push_str("\n(--help lists the fields of its input.)\n");
                    }
                    sub.after_help(short).after_long_help(long)
                }
                None => sub,
            }
        });
    }
    command
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

/// One field of an input, by its path in the JSON (`scope.tenant`).
struct Field {
    path: String,
    required: bool,
    about: String,
}

/// "Input:" and the fields of one input item of `operation`.
fn input_section(doc: &Value, operation: &str, item: &str) -> String {
    let op = &doc["operations"][operation];
    let schema = resolve(doc, &op["input"]["item"]);
    let form = match op["input"]["shape"].as_str() {
        Some("object") => format!("one JSON object on stdin, a {item}:"),
        _ => {
            format!("JSON Lines on stdin, one {item} per line (a JSON array of them is read too):")
        }
    };
    let mut fields = Vec::new();
    collect(doc, schema, "", true, &mut fields);
    fields.sort_by_key(|f| !f.required);
    let width = fields
        .iter()
        .map(|f| f.path.len())
        .filter(|&n| n <= 24)
        .max()
        .unwrap_or(0)
        + 2;
    let mut out = format!("Input: {form}\n");
    for (heading, required) in [("Required fields", true), ("Optional fields", false)] {
        let group: Vec<&Field> = fields.iter().filter(|f| f.required == required).collect();
        if group.is_empty() {
            continue;
        }
        out.push_str(&format!("  {heading}:\n"));
        for f in group {
            out.push_str(&field_line(f, width));
        }
    }
    out
}

/// `    path    about`, the about wrapped under itself.
fn field_line(f: &Field, width: usize) -> String {
    const MAX: usize = 100;
    let lead = 4;
    let column = lead + width;
    let mut out = format!("{}{}", " ".repeat(lead), f.path);
    let mut col = lead + f.path.len();
    if f.path.len() + 2 > width {
        out.push('\n');
        out.push_str(&" ".repeat(column));
    } else {
        out.push_str(&" ".repeat(column - col));
    }
    col = column;
    for word in f.about.split_whitespace() {
        let n = word.chars().count();
        if col > column && col + 1 + n > MAX {
            out.push('\n');
            out.push_str(&" ".repeat(column));
            col = column;
        } else if col > column {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += n;
    }
    out.push('\n');
    out
}

/// The schema a `$ref` points at, and the non-null branch of a nullable
/// `anyOf`.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        return match doc.pointer(r.trim_start_matches('#')) {
            Some(target) => resolve(doc, target),
            None => schema,
        };
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let non_null: Vec<&Value> = branches
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if let [one] = non_null.as_slice() {
            return resolve(doc, one);
        }
    }
    schema
}

/// The fields of object `schema`, nested objects by their dotted path and
/// lists of objects as `name[].field`.
fn collect(doc: &Value, schema: &Value, prefix: &str, required: bool, out: &mut Vec<Field>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let needed: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, prop) in props {
        let path = format!("{prefix}{name}");
        let is_required = required && needed.contains(&name.as_str());
        let target = resolve(doc, prop);
        if target.get("properties").is_some() {
            collect(doc, target, &format!("{path}."), is_required, out);
            continue;
        }
        if let Some(items) = target.get("items") {
            let item = resolve(doc, items);
            if item.get("properties").is_some() {
                out.push(Field {
                    path: path.clone(),
                    required: is_required,
                    about: about(prop, target, doc),
                });
                collect(doc, item, &format!("{path}[]."), false, out);
                continue;
            }
        }
        out.push(Field {
            path,
            required: is_required,
            about: about(prop, target, doc),
        });
    }
}

/// A field's description, with the values an enumeration takes and the
/// shape of a time, a list or a map.
fn about(prop: &Value, target: &Value, doc: &Value) -> String {
    let text = prop
        .get("description")
        .or_else(|| target.get("description"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut parts = vec![text];
    let (list, of) = match target.get("items") {
        Some(items) => (true, resolve(doc, items)),
        None => (false, target),
    };
    let values = enum_values(of);
    if !values.is_empty() {
        let lead = if list { "A list of" } else { "One of" };
        parts.push(format!("{lead}: {}.", values.join(", ")));
    } else if of.get("format").and_then(Value::as_str) == Some("date-time") {
        parts.push("(RFC 3339 time)".into());
    } else if target.get("additionalProperties").is_some() {
        parts.push(r#"(an object of strings: {"name": "value"})"#.into());
    } else if parts[0].is_empty() {
        let kind = match of.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect::<Vec<_>>()
                .join(" or "),
            _ => String::new(),
        };
        if !kind.is_empty() {
            parts.push(if list {
                format!("A list of {kind}s.")
            } else {
                format!("A {kind}.")
            });
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join(" ")
}

/// The values of a string enumeration (`enum`, or `oneOf` of `const`s and
/// `enum`s).
fn enum_values(schema: &Value) -> Vec<String> {
    let mut values = Vec::new();
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        values.extend(e.iter().filter_map(Value::as_str).map(str::to_string));
    }
    if let Some(branches) = schema.get("oneOf").and_then(Value::as_array) {
        for b in branches {
            if let Some(c) = b.get("const").and_then(Value::as_str) {
                values.push(c.to_string());
            }
            values.extend(enum_values(b));
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_candidate_fields_come_from_the_contract() {
        let doc = engram_contract::schema::document();
        let text = input_section(&doc, "remember", "candidate");
        let required = text
            .split("Optional fields:")
            .next()
            .expect("a required part");
        for f in ["text", "scope.tenant", "source.kind"] {
            assert!(
                required.lines().any(|l| l.trim_start().starts_with(f)),
                "{f} is required:\n{text}"
            );
        }
        for f in [
            "scope.user",
            "scope.thread",
            "source.ref",
            "kind_hint",
            "confidence",
        ] {
            assert!(
                text.lines().any(|l| l.trim_start().starts_with(f)),
                "{f} is listed:\n{text}"
            );
        }
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("One of: user, system, document, tool, behavior, agent."),
            "{text}"
        );
    }

    #[test]
    fn every_input_command_has_a_page_and_every_page_a_command() {
        let command = <crate::cli::Cli as clap::CommandFactory>::command();
        for page in PAGES {
            let mut c = &command;
            for part in page.path.split(' ') {
                c = c
                    .find_subcommand(part)
                    .unwrap_or_else(|| panic!("no command {}", page.path));
            }
            assert!(c.get_after_long_help().is_some(), "{}", page.path);
        }
    }
}
