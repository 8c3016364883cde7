//! Compiles the reason vocabulary (`contract/reasons.txt`, syntax in its
//! header) into `$OUT_DIR/reasons.rs`: the enum `ReasonCode` with its
//! code names, slots, templates and the templates' parts, which
//! `src/reason.rs` includes and renders. A malformed line fails the build
//! naming the line.

use std::fmt::Write as _;

/// One reason of the vocabulary.
pub struct Reason {
    pub code: String,
    pub template: String,
    pub reserved: bool,
}

/// A template's parts: literal text and slots (by name).
enum Part<'a> {
    Text(&'a str),
    Slot(&'a str),
}

fn parts(template: &str) -> Result<Vec<Part<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            out.push(Part::Text(&rest[..open]));
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("`{{` without `}}` in `{template}`"))?;
        let name = &after[..close];
        let valid = !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !valid {
            return Err(format!("slot `{{{name}}}` is not a snake_case name"));
        }
        out.push(Part::Slot(name));
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("`}}` without `{{` in `{template}`"));
    }
    if !rest.is_empty() {
        out.push(Part::Text(rest));
    }
    Ok(out)
}

fn valid_code(code: &str) -> bool {
    let words: Vec<&str> = code.split('.').collect();
    words.len() >= 2
        && words.iter().all(|w| {
            !w.is_empty()
                && !w.starts_with('-')
                && !w.ends_with('-')
                && !w.contains("--")
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
}

/// The reasons of `text`, in file order.
pub fn parse(text: &str) -> Result<Vec<Reason>, String> {
    let mut reasons: Vec<Reason> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |e: String| format!("contract/reasons.txt line {}: {e}", i + 1);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (reserved, line) = match line.strip_prefix("reserved ") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let (code, template) = line
            .split_once(" = ")
            .ok_or_else(|| at("expected `code = template`".into()))?;
        if !valid_code(code) {
            return Err(at(format!(
                "`{code}` is not a code: kebab-case words joined by dots, the first the stage"
            )));
        }
        if template.trim().is_empty() {
            return Err(at(format!("`{code}` has no template")));
        }
        parts(template).map_err(at)?;
        if reasons.iter().any(|r| r.code == code) {
            return Err(at(format!("`{code}` is listed twice")));
        }
        reasons.push(Reason {
            code: code.to_string(),
            template: template.to_string(),
            reserved,
        });
    }
    Ok(reasons)
}

/// `UpperCamelCase` of a code: `gate.value.task-state` → `GateValueTaskState`
/// (as the build spells a WIT name, `camel`).
fn variant(code: &str) -> String {
    super::names::camel(&code.replace('.', "-"))
}

/// The Rust source of `ReasonCode`.
pub fn generate(reasons: &[Reason]) -> String {
    let mut out = String::new();
    out.push_str(
        "/// A reason's code: one of the closed vocabulary in `contract/reasons.txt`\n\
         /// (generated from it by `contract/build/reasons.rs`).\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n\
         pub enum ReasonCode {\n",
    );
    for r in reasons {
        let _ = writeln!(
            out,
            "    /// `{}`: {}\n    {},",
            r.code,
            r.template.replace('{', "`{").replace('}', "}`"),
            variant(&r.code)
        );
    }
    out.push_str("}\n\nimpl ReasonCode {\n");
    out.push_str("    /// Every code, in the vocabulary's order.\n    pub const ALL: &'static [ReasonCode] = &[\n");
    for r in reasons {
        let _ = writeln!(out, "        ReasonCode::{},", variant(&r.code));
    }
    out.push_str("    ];\n\n");
    let mut arm = |doc: &str, sig: &str, value: &dyn Fn(&Reason) -> String, fallback: &str| {
        let _ = writeln!(out, "    /// {doc}\n    {sig} {{\n        match self {{");
        for r in reasons {
            let _ = writeln!(
                out,
                "            ReasonCode::{} => {},",
                variant(&r.code),
                value(r)
            );
        }
        let _ = writeln!(out, "        }}{fallback}\n    }}\n");
    };
    arm(
        "The code as the contract spells it (`gate.value.task-state`).",
        "pub const fn as_str(self) -> &'static str",
        &|r| format!("{:?}", r.code),
        "",
    );
    arm(
        "The sentence's template: its text with `{slot}` where a value goes.",
        "pub const fn template(self) -> &'static str",
        &|r| format!("{:?}", r.template),
        "",
    );
    arm(
        "The names of the template's slots, in the order they appear (a name once).",
        "pub const fn slots(self) -> &'static [&'static str]",
        &|r| {
            let mut names: Vec<&str> = Vec::new();
            for p in parts(&r.template).unwrap_or_default() {
                if let Part::Slot(n) = p {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
            format!("&{names:?}")
        },
        "",
    );
    arm(
        "Whether the code is reserved: listed, but emitted by no part of the policy yet.",
        "pub const fn reserved(self) -> bool",
        &|r| r.reserved.to_string(),
        "",
    );
    arm(
        "The template's parts: literal text and slots (by their index in `slots`).",
        "pub(crate) const fn parts(self) -> &'static [Part]",
        &|r| {
            let mut names: Vec<&str> = Vec::new();
            let mut items = Vec::new();
            for p in parts(&r.template).unwrap_or_default() {
                match p {
                    Part::Text(t) => items.push(format!("Part::Text({t:?})")),
                    Part::Slot(n) => {
                        let i = names.iter().position(|x| *x == n).unwrap_or_else(|| {
                            names.push(n);
                            names.len() - 1
                        });
                        items.push(format!("Part::Slot({i})"));
                    }
                }
            }
            format!("&[{}]", items.join(", "))
        },
        "",
    );
    out.push_str(
        "    /// The code named `code`, if the vocabulary has it.\n    pub fn parse(code: &str) -> Option<ReasonCode> {\n        ReasonCode::ALL.iter().copied().find(|c| c.as_str() == code)\n    }\n}\n",
    );
    out
}
