//! What a transport reads of an input before it hands the input to the
//! component: how many items it has, how each is named, and the scope or
//! memory id each acts on — so the CLI can open one store handle per
//! tenant and `engram serve` can refuse a scope outside the caller's key
//! before anything runs. Lenient: an item it cannot read has no scope, and
//! the operation itself reports what is wrong with it.

use serde::Deserialize;

use crate::input::{self, Form};
use crate::types::{Error, Scope, Status};

/// One item of a batch, as a transport routes it.
#[derive(Debug, Clone)]
pub struct Routed<'a> {
    /// Where the item is (see `Form`).
    pub index: u32,
    /// The item's JSON text, to hand on as it is.
    pub text: &'a str,
    /// Its `scope`, when it has a readable one.
    pub scope: Option<Scope>,
    /// Its `memory_id`, when it has one (forget selectors).
    pub memory_id: Option<String>,
    /// Its `id`, when it is a string: the memory a review item acts on (a
    /// candidate's or a query's own label otherwise).
    pub id: Option<String>,
}

#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    scope: Option<crate::wire::Scope>,
    #[serde(default)]
    memory_id: Option<String>,
    // Any JSON: an `id` that is no string must not hide the scope.
    #[serde(default)]
    id: Option<serde_json::Value>,
}

/// The items of a batch (JSON Lines or a JSON array) with their scopes.
pub fn batch(input: &str) -> Result<(Form, Vec<Routed<'_>>), Error> {
    let (form, items) = input::items(input)?;
    let routed = items
        .into_iter()
        .map(|item| {
            let peek = serde_json::from_str::<Peek>(item.text).ok();
            let (scope, memory_id, id) = peek
                .map(|p| {
                    let id = p.id.and_then(|v| v.as_str().map(str::to_string));
                    (p.scope.map(Into::into), p.memory_id, id)
                })
                .unwrap_or((None, None, None));
            Routed {
                index: item.index,
                text: item.text,
                scope,
                memory_id,
                id,
            }
        })
        .collect();
    Ok((form, routed))
}

/// The scope of a one-object input (pack, list; a sweep's `{"scope"}` or
/// bare scope), when it has a readable one.
pub fn object_scope(input: &str) -> Option<Scope> {
    let text = input.trim();
    if let Ok(Peek { scope: Some(s), .. }) = serde_json::from_str::<Peek>(text) {
        return Some(s.into());
    }
    serde_json::from_str::<crate::wire::Scope>(text)
        .ok()
        .map(Into::into)
}

/// Items of a batch put back together as a batch of the same form, for a
/// call on some of them: JSON Lines (an item's text is one line), or a JSON
/// array (an element may span lines). Item `k` of the result is the `k`-th
/// text given.
pub fn rejoin<'a>(form: Form, items: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    match form {
        Form::Lines => {
            for text in items {
                out.push_str(text);
                out.push('\n');
            }
        }
        Form::Array => {
            out.push('[');
            for (i, text) in items.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(text);
            }
            out.push(']');
        }
    }
    out
}

/// The query of `GET /v1/memories` (`engram serve` and the edge handler):
/// `tenant`, `user`, `project`, `thread`, `agent` narrow the key's own
/// scope, `status` is a comma-separated list of statuses.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub scope: Scope,
    pub statuses: Vec<&'static str>,
}

impl ListQuery {
    /// Read percent-decoded `(name, value)` pairs over the key's own
    /// scope; an error names the parameter (a 400 for the transport).
    pub fn read(
        own: Scope,
        params: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, String> {
        let mut q = ListQuery {
            scope: own,
            statuses: Vec::new(),
        };
        for (name, value) in params {
            match name.as_str() {
                "tenant" => q.scope.tenant = value,
                "user" => q.scope.user = Some(value),
                "project" => q.scope.project = Some(value),
                "thread" => q.scope.thread = Some(value),
                "agent" => q.scope.agent = Some(value),
                "status" => {
                    for s in value.split(',').filter(|s| !s.is_empty()) {
                        let status = Status::from_name(s).ok_or_else(|| {
                            let names: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
                            format!("status: unknown status '{s}' ({})", names.join(", "))
                        })?;
                        q.statuses.push(status.name());
                    }
                }
                other => {
                    return Err(format!(
                        "unknown query parameter '{other}' (tenant, user, project, thread, agent, status)"
                    ))
                }
            }
        }
        Ok(q)
    }

    /// The `list` operation's input.
    pub fn input(&self) -> String {
        serde_json::json!({
            "scope": crate::wire::Scope::from(self.scope.clone()),
            "statuses": self.statuses,
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_routed_by_scope_and_rejoined_in_their_form() {
        let input = "{\"memory_id\":\"m-1\"}\n\n{\"scope\":{\"tenant\":\"acme\",\"user\":\"u1\"},\"text\":\"x\",\"id\":7}\nnot json\n{\"id\":\"m-2\",\"revision\":1}\n";
        let (form, items) = batch(input).unwrap();
        assert_eq!(form, Form::Lines);
        assert_eq!(
            items.iter().map(|i| i.index).collect::<Vec<_>>(),
            vec![0, 2, 3, 4]
        );
        assert_eq!(
            items[3].id.as_deref(),
            Some("m-2"),
            "a review item's memory"
        );
        assert_eq!(items[0].memory_id.as_deref(), Some("m-1"));
        let scope = items[1].scope.as_ref().unwrap();
        assert_eq!(
            (scope.tenant.as_str(), scope.user.as_deref()),
            ("acme", Some("u1"))
        );
        assert!(
            items[1].id.is_none(),
            "an id that is no string is no memory id"
        );
        assert!(items[2].scope.is_none() && items[2].memory_id.is_none());
        assert_eq!(
            rejoin(form, [items[0].text, items[2].text]),
            "{\"memory_id\":\"m-1\"}\nnot json\n"
        );

        let (form, items) = batch("[{\"scope\":\n {\"tenant\":\"a\"}}, {}]").unwrap();
        assert_eq!(form, Form::Array);
        assert_eq!(
            rejoin(form, items.iter().map(|i| i.text)),
            "[{\"scope\":\n {\"tenant\":\"a\"}},{}]"
        );
        assert_eq!(
            object_scope(" {\"scope\":{\"tenant\":\"t\"}} ")
                .unwrap()
                .tenant,
            "t"
        );
        assert_eq!(
            object_scope("{\"tenant\":\"bare\"}").unwrap().tenant,
            "bare"
        );
    }

    #[test]
    fn a_list_query_narrows_the_own_scope_and_names_a_bad_parameter() {
        let own = object_scope("{\"tenant\":\"acme\",\"user\":\"u1\"}").unwrap();
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        let q = ListQuery::read(
            own.clone(),
            [pair("project", "p"), pair("status", "active,,superseded")],
        )
        .unwrap();
        assert_eq!(
            (q.scope.user.as_deref(), q.scope.project.as_deref()),
            (Some("u1"), Some("p"))
        );
        assert_eq!(q.statuses, vec!["active", "superseded"]);
        assert_eq!(
            q.input(),
            "{\"scope\":{\"agent\":null,\"project\":\"p\",\"tenant\":\"acme\",\"thread\":null,\"user\":\"u1\"},\"statuses\":[\"active\",\"superseded\"]}"
        );
        let bad = ListQuery::read(own.clone(), [pair("status", "gone")]).unwrap_err();
        assert!(
            bad.starts_with("status: unknown status 'gone' (pending, active, "),
            "{bad}"
        );
        let bad = ListQuery::read(own, [pair("limit", "3")]).unwrap_err();
        assert!(bad.starts_with("unknown query parameter 'limit'"), "{bad}");
    }
}
