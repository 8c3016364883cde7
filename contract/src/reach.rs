//! A principal's reach over scopes, and the one wording of a denial: the
//! policy's permission gate, the Rust host's scoped store, `engram serve`,
//! and the edge component's handler and store adapter all refuse a scope
//! outside the caller with this text, so every surface says it alike.

use crate::types::Scope;

/// The dimensions a principal holds or a scope asks for, borrowed from
/// whichever generated type carries them. `None` in a principal: any value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach<'a> {
    pub tenant: &'a str,
    pub user: Option<&'a str>,
    pub project: Option<&'a str>,
}

impl<'a> From<&'a Scope> for Reach<'a> {
    fn from(s: &'a Scope) -> Self {
        Reach {
            tenant: &s.tenant,
            user: s.user.as_deref(),
            project: s.project.as_deref(),
        }
    }
}

/// Why `asked` lies outside `held`: the first dimension that differs, with
/// both values; `None` when `held` covers it. `holder` names who holds the
/// reach in the message ("this principal", "this store handle").
pub fn denial(held: Reach<'_>, asked: Reach<'_>, holder: &str) -> Option<String> {
    if held.tenant != asked.tenant {
        return Some(format!(
            "tenant '{}' is outside {holder}'s tenant '{}'",
            asked.tenant, held.tenant
        ));
    }
    for (dimension, allowed, asked) in [
        ("user", held.user, asked.user),
        ("project", held.project, asked.project),
    ] {
        if let Some(allowed) = allowed {
            if asked != Some(allowed) {
                let asked = match asked {
                    Some(v) => format!("{dimension} '{v}'"),
                    None => format!("a scope without a {dimension}"),
                };
                return Some(format!(
                    "{asked} is outside {holder}'s {dimension} '{allowed}'"
                ));
            }
        }
    }
    None
}

/// The holder a store names in its denials (`StoreError::Denied`).
pub const STORE_HANDLE: &str = "this store handle";

#[cfg(test)]
mod tests {
    use super::*;

    fn r<'a>(tenant: &'a str, user: Option<&'a str>, project: Option<&'a str>) -> Reach<'a> {
        Reach {
            tenant,
            user,
            project,
        }
    }

    #[test]
    fn names_the_first_dimension_outside_with_both_values() {
        let held = r("acme", Some("u1"), None);
        assert_eq!(denial(held, r("acme", Some("u1"), Some("p")), "me"), None);
        assert_eq!(
            denial(held, r("globex", Some("u2"), None), STORE_HANDLE).as_deref(),
            Some("tenant 'globex' is outside this store handle's tenant 'acme'")
        );
        assert_eq!(
            denial(held, r("acme", Some("u2"), None), "this principal").as_deref(),
            Some("user 'u2' is outside this principal's user 'u1'")
        );
        assert_eq!(
            denial(held, r("acme", None, None), STORE_HANDLE).as_deref(),
            Some("a scope without a user is outside this store handle's user 'u1'")
        );
        assert_eq!(
            denial(
                r("acme", None, Some("p1")),
                r("acme", Some("u"), Some("p2")),
                "x"
            )
            .as_deref(),
            Some("project 'p2' is outside x's project 'p1'")
        );
    }
}
