//! `engram mcp`: a Model Context Protocol server on stdin/stdout (rmcp),
//! bound to one principal (`--tenant`, optional `--user`/`--project`), and
//! a transport of the component's JSON contract.
//!
//! Each tool is one contract operation (`TOOLS`). Its input schema is the
//! operation's input schema from the contract (`engram_contract::schema`)
//! with the principal's part of the scope taken out: the server puts the
//! principal's tenant, user and project into every call's `scope` (the
//! model cannot name another; it may narrow to a thread or an agent). A
//! tool over a batch without scopes (`review_memories`) takes its items as
//! a list, `items`: the store reads them through the principal. The
//! arguments go to the component as the operation's JSON input, and the
//! answer comes back as structured content.
//!
//! The caller of a tool is the model, so `remember` without a `source` is
//! `{"kind":"agent"}` (an unverified inference, held pending), never the
//! user; the tool's description and its schema's `source` say what each
//! source kind means for trust, in the words of `wit/types.wit`.

use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

use crate::failure::Failure;
use crate::flags::Flags;
use engram_host::bindings as w;
use engram_host::{Engram, Error};

/// One tool: a contract operation, and what the server fills in.
struct ToolSpec {
    name: &'static str,
    operation: &'static str,
    description: &'static str,
    /// Arguments the server supplies when the model leaves them out.
    defaults: &'static [(&'static str, &'static str)],
    shape: Shape,
}

/// How a tool's arguments make the operation's input.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// The arguments are one input item, in the principal's scope.
    Scoped,
    /// The arguments are `{"items": [item, …]}`, each an input item with no
    /// scope of its own, all applied together or none.
    Items(&'static str),
}

/// The tools, one per operation they expose.
const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "remember",
        operation: "remember",
        description: "Offer something worth remembering about the user, the project or the conversation. The memory policy decides whether to store it (active), hold it for review (pending), keep it only for this task (working) or reject it (e.g. secrets, chit-chat), and why; facts about the same subject and attribute supersede older ones. Returns the decision with its reasons, gates and memory_id.",
        defaults: &[("source", r#"{"kind":"agent"}"#)],
        shape: Shape::Scoped,
    },
    ToolSpec {
        name: "recall",
        operation: "recall",
        description: "Find the memories relevant to a question or task, ranked, each with its explanation: the score, the features behind it (similarity, scope, freshness, authority, type fit, entity, risk) and the admission check (why it was admitted; `explain` defaults to true). Only memories of this server's principal are searched.",
        defaults: &[("explain", "true")],
        shape: Shape::Scoped,
    },
    ToolSpec {
        name: "pack_context",
        operation: "pack",
        description: "Build the context for the next model call within a token budget: the system prompt, the relevant memories recalled for the query, and the recent messages, trimmed and compressed to fit. Returns the packed text, its token count, its sections and what was dropped and why.",
        defaults: &[],
        shape: Shape::Scoped,
    },
    ToolSpec {
        name: "forget",
        operation: "forget",
        description: "Forget memories, for good: one memory by memory_id; a fact by subject and predicate; every memory containing a text fragment; or everything derived from a source_ref. Later re-derivations of the same content (from its sources, documents, tools, imports or quoted text) are rejected (tombstones); the user may still state it again explicitly. Returns what was deleted and cascaded.",
        defaults: &[],
        shape: Shape::Scoped,
    },
    ToolSpec {
        name: "list_memories",
        operation: "list",
        description: "List the stored memories of this server's principal with their status (active, pending, superseded, …), optionally only some statuses, a thread or an agent. Returns {\"items\": [memory, …]}.",
        defaults: &[],
        shape: Shape::Scoped,
    },
    ToolSpec {
        name: "memory_history",
        operation: "history",
        description: "Show every revision of one memory (`id`), oldest first: how it was created, superseded or retracted, with provenance. Returns {\"items\": [revision, …]}.",
        defaults: &[],
        shape: Shape::Scoped,
    },
    ToolSpec {
        name: "review_memories",
        operation: "review",
        description: "Approve or reject memories that wait for review (status pending: inferences from behaviour or by an agent, personal data kept for consent), only as the user decides: approve makes one active, as a new revision with the user's verification as its source; reject retracts it, so it is never recalled. Find them with list_memories and statuses [\"pending\"]. Returns {\"items\": [outcome, …]}, one per verdict: reviewed, verdict, approved_as, superseded, reason.",
        defaults: &[],
        shape: Shape::Items("One verdict per pending memory; all are applied together or none is."),
    },
    ToolSpec {
        name: "record_operation",
        operation: "record-operations",
        description: "Record what a tool's side effect did, keyed by its operation_id (e.g. a refund, a deployment, an email): `status` submitted before or while it runs, then succeeded or failed once known, or unknown when the outcome was lost (a timeout). Give the tool, the idempotency_key it was called with, and result_ref/result_digest/detail when known. Returns {action, operation_id, revision, status}: created (first record), updated (a new status) or duplicate (the same record again: nothing changed; status says where the operation stands). A final status (succeeded, failed), the tool and the idempotency key never change: such a record is refused. Execution records are not memories: recall never returns them; look them up with get_operation.",
        defaults: &[],
        shape: Shape::Scoped,
    },
    ToolSpec {
        name: "get_operation",
        operation: "get-operations",
        description: "Look up a tool side effect by its operation_id, exactly (never by similarity): whether it was submitted, succeeded, failed or is unknown, with its idempotency_key, result_ref, result_digest, revision and the history of its statuses; {\"found\": false} when this principal has no record of it. Check this before retrying a side effect: an unknown outcome is verified against the real system by its idempotency key, not retried blindly.",
        defaults: &[],
        shape: Shape::Scoped,
    },
];

/// Whether operation `op`'s input has a `scope`, read once from the
/// contract's schema (generating it on every tool call would be wasted).
fn takes_scope(op: &str) -> bool {
    static WITH_SCOPE: OnceLock<Vec<&'static str>> = OnceLock::new();
    WITH_SCOPE
        .get_or_init(|| {
            TOOLS
                .iter()
                .map(|t| t.operation)
                .filter(|op| {
                    engram_contract::schema::input_schema(op)
                        .is_some_and(|s| s["properties"].get("scope").is_some())
                })
                .collect()
        })
        .contains(&op)
}

/// The scope fields the principal owns.
const PRINCIPAL_FIELDS: [&str; 3] = ["tenant", "user", "project"];

/// A tool's input schema: the operation's, with `scope` narrowed to what
/// the model may choose and every server default made optional.
fn input_schema(spec: &ToolSpec) -> JsonObject {
    let mut schema = engram_contract::schema::input_schema(spec.operation).unwrap_or_default();
    if let Shape::Items(description) = spec.shape {
        schema = json!({
            "type": "object",
            "properties": {"items": {
                "type": "array", "items": schema, "minItems": 1, "description": description,
            }},
            "required": ["items"],
        });
    }
    if let Some(props) = schema["properties"].as_object_mut() {
        if let Some(scope) = props.get_mut("scope") {
            narrow_scope(scope);
        }
    }
    if let Some(required) = schema["required"].as_array_mut() {
        required.retain(|r| {
            let r = r.as_str().unwrap_or_default();
            r != "scope" && !spec.defaults.iter().any(|(k, _)| *k == r)
        });
    }
    if let Some(props) = schema["properties"].as_object_mut() {
        for (key, value) in spec.defaults {
            if let (Some(p), Ok(v)) = (props.get_mut(*key), serde_json::from_str::<Value>(value)) {
                p["default"] = v;
            }
        }
    }
    if let Some(text) = source_trust(spec, &schema) {
        schema["properties"]["source"]["description"] = json!(text);
    }
    match schema {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// What a tool's `source` means for trust, when it takes one: its default
/// and each source kind with the description the contract's schema gives it
/// (the doc comments of `source-kind` in `wit/types.wit`, the one place
/// that text is written).
fn source_trust(spec: &ToolSpec, schema: &Value) -> Option<String> {
    let kinds = schema["properties"]["source"]["properties"]["kind"]["oneOf"].as_array()?;
    let kinds: Vec<String> = kinds
        .iter()
        .filter_map(|k| {
            let name = k["const"].as_str()?;
            let text = k["description"].as_str().unwrap_or_default();
            Some(format!("`{name}`: {}", one_line(text)))
        })
        .collect();
    let default = spec
        .defaults
        .iter()
        .find(|(k, _)| *k == "source")
        .map(|(_, v)| {
            format!(
                " Without `source` the call counts as {v}: yours, not the user's. Give \
                 {{\"kind\": \"user\"}} only for the user's own words, and `tool` or \
                 `document` for what a tool returned or a document says."
            )
        })
        .unwrap_or_default();
    Some(format!(
        "Who said or produced it, which decides how far it is trusted.{default} \
         Source kinds: {}.",
        kinds.join(". ")
    ))
}

/// A description on one line (doc comments wrap).
fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('.')
        .to_string()
}

/// A tool as the server lists it: its description (with what `source`
/// means for trust, when it takes one) and its input schema.
fn tool(spec: &ToolSpec) -> Tool {
    let schema = input_schema(spec);
    let description = match source_trust(spec, &Value::Object(schema.clone())) {
        Some(trust) => format!("{} About `source`: {trust}", spec.description),
        None => spec.description.to_string(),
    };
    Tool::new(spec.name, description, schema)
}

/// Remove the principal's fields from a scope schema (possibly nullable:
/// `anyOf`/`oneOf` alternatives are narrowed too).
fn narrow_scope(scope: &mut Value) {
    if let Some(props) = scope["properties"].as_object_mut() {
        for f in PRINCIPAL_FIELDS {
            props.remove(f);
        }
        scope["required"] = json!([]);
        scope["description"] =
            json!("Narrow to a thread or an agent; the tenant, user and project are this server's principal.");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = scope[key].as_array_mut() {
            alts.iter_mut().for_each(narrow_scope);
        }
    }
}

/// The server: one `Engram` for the one principal it was started for.
#[derive(Clone)]
pub struct EngramMcp {
    engram: Arc<Mutex<Engram>>,
    principal: w::Principal,
}

impl EngramMcp {
    pub fn new(engram: Engram, principal: w::Principal) -> Self {
        EngramMcp {
            engram: Arc::new(Mutex::new(engram)),
            principal,
        }
    }

    /// The operation's input: the model's arguments, the server's defaults
    /// where they are missing, and the principal's scope; or the list of
    /// items.
    fn input(&self, spec: &ToolSpec, mut args: JsonObject) -> Result<Value, String> {
        if let Shape::Items(_) = spec.shape {
            return match args.remove("items") {
                Some(Value::Array(items)) if !items.is_empty() => Ok(Value::Array(items)),
                Some(Value::Array(_)) => Err("items: give at least one".to_string()),
                _ => Err("items: expected a list of items".to_string()),
            };
        }
        let mut input: Map<String, Value> = args;
        for (key, value) in spec.defaults {
            if !input.contains_key(*key) {
                input.insert(
                    key.to_string(),
                    serde_json::from_str(value).unwrap_or(Value::Null),
                );
            }
        }
        // An operation that reads no scope (memory_history: an id, bounded
        // by the principal in the store) is given none: input is strict.
        if !takes_scope(spec.operation) {
            return Ok(Value::Object(input));
        }
        let mut scope = match input.remove("scope") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let p = &self.principal;
        scope.insert("tenant".into(), json!(p.tenant));
        scope.insert("user".into(), json!(p.user));
        scope.insert("project".into(), json!(p.project));
        input.insert("scope".into(), Value::Object(scope));
        Ok(Value::Object(input))
    }

    /// Run the operation with the engine off the async threads.
    async fn run(
        &self,
        spec: &'static ToolSpec,
        input: Value,
    ) -> Result<CallToolResult, ErrorData> {
        let engram = Arc::clone(&self.engram);
        let principal = self.principal.clone();
        let r = tokio::task::spawn_blocking(move || {
            let mut e = engram
                .lock()
                .map_err(|_| "an earlier call failed mid-way; restart the server".to_string())?;
            answer(spec, &mut e, principal, &input.to_string())
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the call's worker stopped: {e}"), None))?;
        Ok(match r {
            Ok(v) => CallToolResult::structured(v),
            Err(m) => CallToolResult::error(vec![ContentBlock::text(m)]),
        })
    }
}

/// A policy error the model can read: an error about an item names it
/// as the arguments do (`items[0]: field `verdict`: …`; a scoped tool's one
/// item is its arguments).
fn message(spec: &ToolSpec, e: Error) -> String {
    match (e.about_item(), spec.shape) {
        (Some((i, text)), Shape::Items(_)) => format!("items[{i}]: {text}"),
        (Some((_, text)), Shape::Scoped) => text,
        (None, _) => e.to_string(),
    }
}

/// Call the operation; its JSON Lines as one object (a list is wrapped as
/// `{"items": […]}`, since structured content must be an object).
fn answer(
    spec: &ToolSpec,
    e: &mut Engram,
    principal: w::Principal,
    input: &str,
) -> Result<Value, String> {
    let message = |e| message(spec, e);
    let writes = engram_contract::ops::operation(spec.operation).is_some_and(|o| o.writes);
    if writes {
        e.begin_batch().map_err(message)?;
    }
    let r = e.call_json(principal, spec.operation, input);
    if writes {
        e.finish_batch(r.is_ok()).map_err(message)?;
    }
    let lines = r.map_err(message)?;
    let values: Vec<Value> = lines
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("the component printed invalid JSON: {e}"))?;
    // One item in, one value out; a list of items answers a list.
    let one = match engram_contract::ops::operation(spec.operation).map(|o| o.output) {
        Some(engram_contract::ops::Output::One) => true,
        Some(engram_contract::ops::Output::Each) => spec.shape == Shape::Scoped,
        _ => false,
    };
    if one {
        return values
            .into_iter()
            .next()
            .ok_or_else(|| "the policy returned no result".to_string());
    }
    if spec.operation == "history" && values.is_empty() {
        let id = serde_json::from_str::<Value>(input).unwrap_or_default()["id"].clone();
        return Err(format!("no memory with id {id}"));
    }
    Ok(json!({ "items": values }))
}

impl ServerHandler for EngramMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("engram", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Engram is this agent's long-term memory and its policy: call remember with \
                 anything worth keeping (it decides what is stored), recall before answering \
                 questions that depend on the past, pack_context to build a budgeted prompt, \
                 forget when the user asks to erase something, review_memories when the user \
                 confirms or refuses a memory that waits for review; record_operation for what \
                 a tool's side effect did, by its operation id, and get_operation to look it \
                 up exactly before retrying one.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            TOOLS.iter().map(tool).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        TOOLS.iter().find(|t| t.name == name).map(tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(spec) = TOOLS.iter().find(|t| t.name == request.name) else {
            return Err(ErrorData::invalid_params(
                format!("no tool '{}'", request.name),
                None,
            ));
        };
        let input = match self.input(spec, request.arguments.unwrap_or_default()) {
            Ok(input) => input,
            Err(m) => return Ok(CallToolResult::error(vec![ContentBlock::text(m)]).into()),
        };
        Ok(self.run(spec, input).await?.into())
    }
}

/// `engram mcp`.
pub fn run(flags: &Flags) -> Result<(), Failure> {
    let tenant = flags.tenant.clone().ok_or_else(|| {
        Failure::input("mcp: --tenant is required (the principal every tool acts for)")
    })?;
    let principal = w::Principal {
        tenant,
        user: flags.user.clone(),
        project: flags.project.clone(),
    };
    let engram = flags.open(&flags.db)?;
    if flags.options()?.sqlite.read_only {
        eprintln!(
            "engram mcp: {} is read-only: reads work; writes are refused and usage counts not recorded",
            flags.db
        );
    }
    let server = EngramMcp::new(engram, principal);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::input(format!("mcp: starting the async runtime: {e}")))?;
    rt.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Failure::input(format!("mcp: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Failure::input(format!("mcp: {e}")))?;
        Ok(())
    })
}
