//! Reading an operation's input text: JSON Lines (one object per line,
//! blank lines skipped) or one JSON array of objects, each item parsed on
//! its own so an error names the item and the field path.
//!
//! Input is strict: a field no operation reads is refused, naming it and
//! the nearest known field ("did you mean `confidence`?") or the object it
//! belongs in (`user` beside `scope`); a line holding more than one JSON
//! value is refused, never half-read. Errors speak JSON, not Rust
//! ("expected a whole number, 0 or more, found an object").

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

pub use crate::item::invalid;
use crate::types::{Error, FieldError};

/// How a batch was written, which decides how an item is named: by its
/// line (`index` is the 0-based line number, blank lines counted) or by
/// its position in the array (`index` is the 0-based position).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Lines,
    Array,
}

impl Form {
    /// "line 3" / "item 3": how a transport names item `index` to a person.
    pub fn label(self, index: u32) -> String {
        match self {
            Form::Lines => format!("line {}", index + 1),
            Form::Array => format!("item {}", index + 1),
        }
    }
}

/// One item of a batch: where it is and its JSON text.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    pub index: u32,
    pub text: &'a str,
}

/// The items of a batch: a JSON array when the text starts with `[`, JSON
/// Lines otherwise.
pub fn items(input: &str) -> Result<(Form, Vec<Item<'_>>), Error> {
    if input.trim_start().starts_with('[') {
        let values: Vec<&RawValue> = serde_json::from_str(input).map_err(|e| {
            Error::InvalidInput(FieldError {
                index: None,
                field: String::new(),
                message: format!("not a JSON array of objects: {}", json_syntax(&e, true)),
            })
        })?;
        let items = values
            .into_iter()
            .enumerate()
            .map(|(i, v)| Item {
                index: i as u32,
                text: v.get(),
            })
            .collect();
        return Ok((Form::Array, items));
    }
    let items = input
        .split('\n')
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| Item {
            index: i as u32,
            text: line.strip_suffix('\r').unwrap_or(line),
        })
        .collect();
    Ok((Form::Lines, items))
}

/// Parse one item as a `T`, naming the field of the first error in the
/// user's terms. The item must be exactly one JSON value.
pub fn parse<T: DeserializeOwned>(item: Item<'_>, form: Form) -> Result<T, Error> {
    parse_with::<T>(item, form, &[])
}

/// `parse`, where `also` names fields another part of the same object
/// reads (an import line's head beside its candidate), so a misspelling
/// of one of them is suggested too.
pub fn parse_with<T: DeserializeOwned>(
    item: Item<'_>,
    form: Form,
    also: &[&'static str],
) -> Result<T, Error> {
    let de = &mut serde_json::Deserializer::from_str(item.text);
    let value = serde_path_to_error::deserialize(&mut *de)
        .map_err(|e| data_error(item, form, e.path().to_string(), e.inner(), also))?;
    de.end()
        .map_err(|e| invalid(Some(item.index), "", json_syntax(&e, form == Form::Array)))?;
    Ok(value)
}

/// A serde_json error while reading an item: a syntax error (with its
/// column inside one line) or a data error about a field.
fn data_error(
    item: Item<'_>,
    form: Form,
    path: String,
    inner: &serde_json::Error,
    also: &[&'static str],
) -> Error {
    if inner.is_syntax() || inner.is_eof() {
        return invalid(
            Some(item.index),
            "",
            json_syntax(inner, form == Form::Array),
        );
    }
    let text = inner.to_string();
    // serde_json appends "at line 1 column N"; a data error names its field.
    let text = text
        .rfind(" at line ")
        .map_or(text.as_str(), |i| &text[..i]);
    let (field, message) = explain(field_of(&path), text, also);
    invalid(Some(item.index), field, message)
}

/// A JSON syntax error in words: what is wrong and where (the column in a
/// line of JSON Lines; line and column inside an array or a body).
pub(crate) fn json_syntax(e: &serde_json::Error, multiline: bool) -> String {
    let text = e.to_string();
    let what = text
        .rfind(" at line ")
        .map_or(text.as_str(), |i| &text[..i]);
    let where_ = if multiline {
        format!("line {}, column {}", e.line(), e.column())
    } else {
        format!("column {}", e.column())
    };
    if what == "trailing characters" {
        // An array item or a one-object input is the whole text: the
        // advice differs from a line's.
        let advice = if multiline {
            "this input takes one JSON object"
        } else {
            "write one JSON object per line"
        };
        return format!("more than one JSON value (the next one starts at {where_}): {advice}");
    }
    let plain = match what {
        "expected ident" => {
            "expected `true`, `false` or `null` (text needs double quotes)".to_string()
        }
        "expected value" => {
            "expected a JSON value (an object, array, string, number, true, false or null)"
                .to_string()
        }
        "key must be a string" => "an object key must be a string in double quotes".to_string(),
        "trailing comma" => "a comma before a closing bracket".to_string(),
        w if w.starts_with("EOF while parsing") => {
            "the JSON ends early (an object, array or string is not closed)".to_string()
        }
        w if w.starts_with("control character") => {
            "a raw control character inside a string (escape it, e.g. \\n)".to_string()
        }
        w => w.to_string(),
    };
    format!("not valid JSON at {where_}: {plain}")
}

/// The field an error is about and its message in JSON terms.
fn explain(path: String, text: &str, also: &[&'static str]) -> (String, String) {
    if let Some(rest) = text.strip_prefix("missing field `") {
        let name = rest.split('`').next().unwrap_or_default();
        return (join(&path, name), "required, but missing".to_string());
    }
    if let Some(rest) = text.strip_prefix("unknown field `") {
        let (name, mut known) = split_named(rest);
        known.extend(also.iter().map(|s| s.to_string()));
        // The path ends at the unknown field itself; what it is checked
        // against is the object holding it.
        let parent = match path.strip_suffix(name.as_str()) {
            Some(p) => p.strip_suffix('.').unwrap_or(p).to_string(),
            None => path,
        };
        let message = unknown_field(&parent, &name, &known);
        return (join(&parent, &name), message);
    }
    if let Some(rest) = text.strip_prefix("unknown variant `") {
        let (name, known) = split_named(rest);
        let message = match nearest(&name, &known) {
            Some(n) => format!("unknown value \"{name}\" — did you mean \"{n}\"?"),
            None => format!(
                "unknown value \"{name}\"; expected one of {}",
                quoted(&known)
            ),
        };
        return (path, message);
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = text.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.split_once(", expected ") {
                return (
                    path,
                    format!(
                        "expected {}, found {}",
                        expected_words(expected),
                        found_words(found)
                    ),
                );
            }
        }
    }
    if let Some(rest) = text.strip_prefix("invalid length ") {
        if let Some((n, expected)) = rest.split_once(", expected ") {
            return (path, format!("expected {expected}, found {n} items"));
        }
    }
    (path, text.to_string())
}

/// "name`, expected one of `a`, `b`" → ("name", ["a", "b"]).
fn split_named(rest: &str) -> (String, Vec<String>) {
    let (name, tail) = rest.split_once('`').unwrap_or((rest, ""));
    let known = tail
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    (name.to_string(), known)
}

/// An unknown field, named with where it belongs when it is a field of
/// an object beside it (`user` beside `scope`), or the nearest known one.
fn unknown_field(path: &str, name: &str, known: &[String]) -> String {
    for (container, fields) in nested() {
        if !known.iter().any(|k| k == container) {
            continue;
        }
        let inside = join(path, container);
        if fields.contains(&name) {
            return format!("unknown field here — it belongs inside `{inside}`: `{inside}.{name}`");
        }
        if let Some(f) = name
            .strip_prefix(container)
            .and_then(|r| r.strip_prefix('_'))
            .filter(|f| fields.contains(f))
        {
            return format!("unknown field — did you mean `{inside}.{f}`?");
        }
    }
    match nearest(name, known) {
        Some(n) => format!("unknown field — did you mean `{}`?", join(path, &n)),
        None if known.is_empty() => "unknown field: this object takes no fields".to_string(),
        None => format!("unknown field; the fields here are {}", backticked(known)),
    }
}

/// The objects that sit beside other fields, with their own fields (read
/// off their serde types, so this list never drifts from them).
fn nested() -> [(&'static str, &'static [&'static str]); 2] {
    [
        ("scope", fields_of::<crate::wire::Scope>()),
        ("source", fields_of::<crate::wire::Source>()),
    ]
}

/// The known name closest to `name`: within a small edit distance, or one
/// of the `_`-separated parts of `name` (`top_k` → `k`).
fn nearest(name: &str, known: &[String]) -> Option<String> {
    let lower = name.to_lowercase();
    let limit = (lower.chars().count() / 3).clamp(1, 3);
    let best = known
        .iter()
        .map(|k| (edit_distance(&lower, k), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.clone());
    best.or_else(|| {
        known
            .iter()
            .find(|k| lower.split(['_', '-']).any(|part| part == k.as_str()))
            .cloned()
    })
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// What serde expected, in JSON words.
fn expected_words(expected: &str) -> String {
    let words = match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number, 0 or more",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a string" | "a borrowed string" | "a string or null" => "a string",
        "a sequence" => "an array",
        "a map" => "a JSON object",
        "a boolean" => "true or false",
        e if e.starts_with("struct ") => "a JSON object",
        e if e.starts_with("enum ") || e.starts_with("variant ") => "one of the listed values",
        e => e,
    };
    words.to_string()
}

/// What the input held, in JSON words.
fn found_words(found: &str) -> String {
    let strip = |s: &str, p: &str| s.strip_prefix(p).map(|r| r.trim_matches('`').to_string());
    match found {
        "map" => "an object".to_string(),
        "sequence" => "an array".to_string(),
        "null" | "unit" => "null".to_string(),
        f => strip(f, "integer ")
            .or_else(|| strip(f, "floating point "))
            .map(|n| format!("the number {n}"))
            .or_else(|| strip(f, "boolean "))
            .or_else(|| f.strip_prefix("string ").map(|s| format!("the string {s}")))
            .unwrap_or_else(|| f.to_string()),
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn backticked(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// serde_path_to_error's path of the root ("." or "" — "?" when the
/// position is unknown, e.g. a key that is not a string) is no field.
fn field_of(path: &str) -> String {
    match path {
        "." | "" | "?" => String::new(),
        p => p.to_string(),
    }
}

/// The fields a struct reads, by their JSON names, as its `Deserialize`
/// declares them (serde hands them to `deserialize_struct`).
pub fn fields_of<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(FieldProbe(&mut fields));
    fields
}

/// A deserializer that only records the field names it is asked for.
struct FieldProbe<'a>(&'a mut &'static [&'static str]);

impl<'de> serde::Deserializer<'de> for FieldProbe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("field probe"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(serde::de::Error::custom("field probe"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_numbers_and_arrays_their_positions() {
        let (form, lines) = items("{\"a\":1}\n\n  \n{\"a\":2}\r\n").unwrap();
        assert_eq!(form, Form::Lines);
        assert_eq!(
            lines.iter().map(|i| (i.index, i.text)).collect::<Vec<_>>(),
            vec![(0, "{\"a\":1}"), (3, "{\"a\":2}")]
        );
        let (form, array) = items(" [ {\"a\":1}, {\"b\": [2]} ]").unwrap();
        assert_eq!(form, Form::Array);
        assert_eq!(array[1].text, "{\"b\": [2]}");
        assert_eq!(Form::Array.label(1), "item 2");
        assert!(items("[1,").is_err());
    }

    /// The field and message of the `invalid-input` error `text` gives as
    /// a candidate line.
    fn refusal<T: DeserializeOwned + std::fmt::Debug>(text: &str, form: Form) -> (String, String) {
        match parse::<T>(Item { index: 2, text }, form) {
            Err(Error::InvalidInput(e)) => {
                assert_eq!(e.index, Some(2), "the item is named");
                (e.field, e.message)
            }
            other => panic!("invalid input expected for {text}: {other:?}"),
        }
    }

    fn candidate(text: &str) -> (String, String) {
        refusal::<crate::wire::CandidateIn>(text, Form::Lines)
    }

    #[test]
    fn an_error_names_the_field_in_json_terms() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct QueryIn {
            k: u32,
        }
        let r = refusal::<QueryIn>;
        assert_eq!(
            r("{\"k\":-1}", Form::Lines),
            (
                "k".into(),
                "expected a whole number, 0 or more, found the number -1".into()
            )
        );
        assert_eq!(
            r("{\"k\":{}}", Form::Lines),
            (
                "k".into(),
                "expected a whole number, 0 or more, found an object".into()
            )
        );
        assert_eq!(
            r("null", Form::Array),
            ("".into(), "expected a JSON object, found null".into())
        );
        assert_eq!(
            r("{}", Form::Lines),
            ("k".into(), "required, but missing".into())
        );
        let (field, message) = r("{\"k\": tru}", Form::Lines);
        assert_eq!(field, "");
        assert!(
            message.starts_with("not valid JSON at column 10: expected `true`"),
            "{message}"
        );
        for (_, message) in [r("{\"k\":1", Form::Lines), r("{k:1}", Form::Lines)] {
            assert!(
                !message.contains("EOF") && !message.contains("ident"),
                "{message}"
            );
        }
    }

    #[test]
    fn unknown_and_misplaced_fields_are_refused_with_the_nearest_known_one() {
        let scope = r#""scope":{"tenant":"acme"},"source":{"kind":"user"}"#;
        assert_eq!(
            candidate(&format!(r#"{{"text":"x",{scope},"confidance":0.1}}"#)),
            (
                "confidance".into(),
                "unknown field — did you mean `confidence`?".into()
            )
        );
        assert_eq!(
            candidate(&format!(r#"{{"text":"x",{scope},"user":"u42"}}"#)),
            (
                "user".into(),
                "unknown field here — it belongs inside `scope`: `scope.user`".into()
            )
        );
        assert_eq!(
            candidate(r#"{"text":"x","scope":{"tenant":"acme"},"source_kind":"user"}"#),
            (
                "source_kind".into(),
                "unknown field — did you mean `source.kind`?".into()
            )
        );
        assert_eq!(
            candidate(
                r#"{"text":"x","scope":{"tenant":"acme","usr":"u"},"source":{"kind":"user"}}"#
            ),
            (
                "scope.usr".into(),
                "unknown field — did you mean `scope.user`?".into()
            )
        );
        let (field, message) = candidate(&format!(r#"{{"text":"x",{scope},"zzz":1}}"#));
        assert_eq!(field, "zzz");
        assert!(
            message.contains("`text`") && message.contains("`kind_hint`"),
            "{message}"
        );
        let (field, message) =
            candidate(r#"{"text":"x","scope":{"tenant":"acme"},"source":{"kind":"usr"}}"#);
        assert_eq!(field, "source.kind");
        assert_eq!(message, "unknown value \"usr\" — did you mean \"user\"?");
        let (field, message) = refusal::<crate::wire::QueryIn>(
            r#"{"query":"q","scope":{"tenant":"acme"},"top_k":3}"#,
            Form::Lines,
        );
        assert_eq!(
            (field.as_str(), message.as_str()),
            ("top_k", "unknown field — did you mean `k`?")
        );
        let (field, message) = refusal::<crate::wire::ListIn>(
            r#"{"scope":{"tenant":"acme"},"status":["pending"]}"#,
            Form::Lines,
        );
        assert_eq!(
            (field.as_str(), message.as_str()),
            ("status", "unknown field — did you mean `statuses`?")
        );
    }

    #[test]
    fn a_line_with_two_values_is_refused_not_half_read() {
        let one =
            r#"{"text":"I like jasmine tea","scope":{"tenant":"acme"},"source":{"kind":"user"}}"#;
        for text in [
            format!("{one}{one}"),
            format!("{one} {one}"),
            format!("{one} garbage"),
        ] {
            let (field, message) = candidate(&text);
            assert_eq!(field, "");
            assert!(message.starts_with("more than one JSON value"), "{message}");
        }
        assert!(parse::<crate::wire::CandidateIn>(
            Item {
                index: 0,
                text: one
            },
            Form::Lines
        )
        .is_ok());
        let Err(Error::InvalidInput(e)) = items(&format!("[{one}] [{one}]")) else {
            panic!("two arrays are refused")
        };
        assert!(
            e.message.contains("more than one JSON value"),
            "{}",
            e.message
        );
    }

    #[test]
    fn the_nearest_name_is_close_or_a_part_of_it() {
        let known: Vec<String> = ["id", "text", "confidence", "k"].map(String::from).to_vec();
        assert_eq!(nearest("Confidence", &known).as_deref(), Some("confidence"));
        assert_eq!(nearest("max_k", &known).as_deref(), Some("k"));
        assert_eq!(nearest("colour", &known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(fields_of::<crate::wire::Source>(), &["kind", "ref"]);
    }
}
