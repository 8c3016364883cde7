//! Reading an operation's input text: JSON Lines (one object per line,
//! blank lines skipped) or one JSON array of objects, each item parsed on
//! its own so an error names the item and the field path.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

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
                message: format!("not a JSON array of objects: {e}"),
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

/// Parse one item as a `T`, naming the field of the first error.
pub fn parse<T: DeserializeOwned>(item: Item<'_>, form: Form) -> Result<T, Error> {
    let de = &mut serde_json::Deserializer::from_str(item.text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner();
        let text = inner.to_string();
        // serde_json appends "at line 1 column N": inside one line the
        // column helps; inside an array element it would mislead.
        let text = match (text.rfind(" at line "), form) {
            (Some(i), Form::Lines) => format!("{} (column {})", &text[..i], inner.column()),
            (Some(i), Form::Array) => text[..i].to_string(),
            (None, _) => text,
        };
        invalid(
            Some(item.index),
            missing(field_of(&path), &text),
            plain_type_names(&text),
        )
    })
}

/// A missing field is named by its own path ("scope.tenant"), not by the
/// object that lacks it.
fn missing(path: String, message: &str) -> String {
    let name = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    match name {
        Some(name) if path.is_empty() => name.to_string(),
        Some(name) => format!("{path}.{name}"),
        None => path,
    }
}

/// serde_path_to_error's path of the root ("." or "" — "?" when the
/// position is unknown, e.g. a key that is not a string) is no field.
fn field_of(path: &str) -> String {
    match path {
        "." | "" | "?" => String::new(),
        p => p.to_string(),
    }
}

/// An `invalid-input` error.
pub fn invalid(index: Option<u32>, field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::InvalidInput(FieldError {
        index,
        field: field.into(),
        message: message.into(),
    })
}

/// serde names the Rust type it expected ("expected struct QueryIn"); the
/// user wrote JSON, so say "a JSON object" instead.
fn plain_type_names(text: &str) -> String {
    let Some(at) = text.find("struct ") else {
        return text.to_string();
    };
    let rest = &text[at + "struct ".len()..];
    let name_end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    format!("{}a JSON object{}", &text[..at], &rest[name_end..])
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

    #[test]
    fn an_error_names_the_field_without_rust_type_names() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct QueryIn {
            k: u32,
        }
        let item = Item {
            index: 4,
            text: "{\"k\":-1}",
        };
        let Error::InvalidInput(e) = parse::<QueryIn>(item, Form::Lines).unwrap_err() else {
            panic!("invalid input expected")
        };
        assert_eq!((e.index, e.field.as_str()), (Some(4), "k"));
        assert_eq!(
            e.message,
            "invalid value: integer `-1`, expected u32 (column 7)"
        );
        let Error::InvalidInput(e) = parse::<QueryIn>(
            Item {
                index: 0,
                text: "null",
            },
            Form::Array,
        )
        .unwrap_err() else {
            panic!("invalid input expected")
        };
        assert_eq!(e.field, "");
        assert_eq!(e.message, "invalid type: null, expected a JSON object");
        let Error::InvalidInput(e) = parse::<QueryIn>(
            Item {
                index: 2,
                text: "{}",
            },
            Form::Lines,
        )
        .unwrap_err() else {
            panic!("invalid input expected")
        };
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("k", "missing field `k` (column 2)")
        );
    }
}
