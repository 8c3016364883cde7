//! Errors about one item of a call. The policy names the item an error is
//! about by its 0-based index in the call: `invalid-input` carries it as
//! its `index`; `not-found`, whose WIT payload is only text, starts that
//! text with `item N: ` (`not_found`). The contract points the index from
//! the call back to the input (`ops`); a transport names the item as its
//! input does ("line 3", "item 3", "items[2]") with `about_item`.

use std::fmt::Display;

use crate::types::{Error, FieldError};

/// An `invalid-input` error about item `index` (0-based) and `field`.
pub fn invalid(index: Option<u32>, field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::InvalidInput(FieldError {
        index,
        field: field.into(),
        message: message.into(),
    })
}

const PREFIX: &str = "item ";

/// A `not-found` error about item `index` of a call.
pub fn not_found(index: usize, message: impl Display) -> Error {
    Error::NotFound(format!("{PREFIX}{index}: {message}"))
}

/// The item of a call an error is about (its 0-based index) and the
/// error's text without it: the field and message of `invalid-input`,
/// `not found: …` for `not-found`. `None` for an error about no item.
pub fn about_item(e: &Error) -> Option<(u32, String)> {
    match e {
        Error::InvalidInput(f) => f.index.map(|i| (i, field_text(f))),
        Error::NotFound(m) => {
            let (i, rest) = split(m)?;
            Some((i, format!("not found: {rest}")))
        }
        _ => None,
    }
}

/// "field `scope.tenant`: …", or only the message when no field is named.
pub fn field_text(f: &FieldError) -> String {
    if f.field.is_empty() {
        f.message.clone()
    } else {
        format!("field `{}`: {}", f.field, f.message)
    }
}

/// The same error about item `to(index)` instead; when `to` knows no such
/// item, about no item.
pub fn repoint(e: Error, to: impl Fn(u32) -> Option<u32>) -> Error {
    match e {
        Error::InvalidInput(mut f) => {
            f.index = f.index.and_then(to);
            Error::InvalidInput(f)
        }
        Error::NotFound(m) => match split(&m) {
            Some((i, rest)) => match to(i) {
                Some(j) => not_found(j as usize, rest),
                None => Error::NotFound(rest.to_string()),
            },
            None => Error::NotFound(m),
        },
        other => other,
    }
}

/// "item 3: rest" → (3, "rest").
fn split(m: &str) -> Option<(u32, &str)> {
    let (n, rest) = m.strip_prefix(PREFIX)?.split_once(": ")?;
    Some((n.parse().ok()?, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_about_an_item_is_repointed_and_named_without_its_index() {
        let e = repoint(not_found(1, "no revision 7 of memory 'm-1'"), |i| {
            Some(i + 4)
        });
        assert_eq!(
            about_item(&e),
            Some((5, "not found: no revision 7 of memory 'm-1'".into()))
        );
        let e = repoint(invalid(Some(0), "verdict", "unknown variant"), |_| None);
        assert_eq!(about_item(&e), None, "an item the input does not have");
        let e = repoint(not_found(2, "gone"), |_| None);
        assert!(matches!(&e, Error::NotFound(m) if m == "gone"), "{e:?}");
        assert_eq!(
            about_item(&invalid(Some(3), "", "not JSON")),
            Some((3, "not JSON".into()))
        );
        // A not-found error about no item (history, forget) stays as it is.
        let plain = Error::NotFound("item list is empty".into());
        assert_eq!(about_item(&plain), None);
        assert!(matches!(repoint(plain, Some), Error::NotFound(m) if m == "item list is empty"));
    }
}
