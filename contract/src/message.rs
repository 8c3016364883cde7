//! How an error of the policy is worded for a person: one line, the same
//! on every surface (the CLI's stderr, `engram serve`'s and the edge
//! handler's `{"error": …}` bodies). An error about an item names it as
//! the call counts it, from 1 ("item 3: …"); a transport that knows how its
//! input names the item ("line 3") uses `item::about_item` instead.

use crate::item::field_text;
use crate::types::Error;

/// The error as one line: `invalid-input` as its field and message (with
/// the item, counted from 1, when it names one), the others as
/// `"<kind>: <message>"`.
pub fn describe(e: &Error) -> String {
    match e {
        Error::InvalidInput(f) => match f.index {
            Some(i) => format!("item {}: {}", u64::from(i) + 1, field_text(f)),
            None => field_text(f),
        },
        Error::Unsupported(m) => format!("unsupported: {m}"),
        Error::NotFound(m) => format!("not found: {m}"),
        Error::PermissionDenied(m) => format!("permission denied: {m}"),
        Error::Conflict(m) => format!("conflict: {m}"),
        Error::Store(m) => format!("store: {m}"),
        Error::LimitExceeded(m) => format!("limit exceeded: {m}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::FieldError;

    #[test]
    fn an_item_is_counted_from_one_and_every_kind_is_named() {
        let f = |index| {
            Error::InvalidInput(FieldError {
                index,
                field: "source".into(),
                message: "required, but missing".into(),
            })
        };
        assert_eq!(
            describe(&f(Some(0))),
            "item 1: field `source`: required, but missing"
        );
        assert_eq!(describe(&f(None)), "field `source`: required, but missing");
        assert_eq!(
            describe(&Error::PermissionDenied("user 'u7'".into())),
            "permission denied: user 'u7'"
        );
        assert_eq!(describe(&Error::Store("disk".into())), "store: disk");
        assert_eq!(
            describe(&Error::LimitExceeded("budget".into())),
            "limit exceeded: budget"
        );
    }
}
