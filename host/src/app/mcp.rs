//! `engram mcp`: a Model Context Protocol server on stdin/stdout (rmcp),
//! bound to one principal (`--tenant`, optional `--user`/`--project`).
//!
//! Each tool builds the CLI's input object from its arguments, with the
//! scope's tenant, user and project taken from the principal (the model
//! cannot name another), reads it with `wire` like the CLI reads a line,
//! and answers the CLI's output object as structured content.

use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::failure::Failure;
use super::flags::Flags;
use crate::bindings as w;
use crate::{wire, Engram};

/// The server: one `Engram` for the one principal it was started for.
#[derive(Clone)]
pub struct EngramMcp {
    engram: Arc<Mutex<Engram>>,
    principal: w::Principal,
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RememberArgs {
    /// What to remember, in the user's or agent's words (one fact, event or procedure).
    pub text: String,
    /// Who said or produced it: user (default), system, document, tool, behavior or agent.
    #[serde(default)]
    pub source_kind: Option<String>,
    /// An id of the event or message it came from, so it can be forgotten with its source later.
    #[serde(default)]
    pub source_ref: Option<String>,
    /// Conversation thread it belongs to.
    #[serde(default)]
    pub thread: Option<String>,
    /// Agent it belongs to.
    #[serde(default)]
    pub agent: Option<String>,
    /// RFC 3339 time it was observed (default: now).
    #[serde(default)]
    pub observed_at: Option<String>,
    /// How sure the source is, 0..1.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// semantic (a lasting fact or preference), episodic (something that happened), procedural (how to do something), working (only for this task) or none.
    #[serde(default)]
    pub kind_hint: Option<String>,
    /// For a fact: who or what it is about, e.g. "user:u42".
    #[serde(default)]
    pub subject: Option<String>,
    /// For a fact: the attribute, e.g. "preferred_name".
    #[serde(default)]
    pub predicate: Option<String>,
    /// For a fact: the value, e.g. "Lin".
    #[serde(default)]
    pub object: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RecallArgs {
    /// The question or task to find memories for.
    pub query: String,
    /// How many memories at most (default: the policy's).
    #[serde(default)]
    pub k: Option<u32>,
    /// Only memories of this thread.
    #[serde(default)]
    pub thread: Option<String>,
    /// Only memories of this agent.
    #[serde(default)]
    pub agent: Option<String>,
    /// Only these kinds: semantic, episodic, procedural.
    #[serde(default)]
    pub kinds: Option<Vec<String>>,
    /// RFC 3339 instant to recall as of (default: now).
    #[serde(default)]
    pub as_of: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct MessageArg {
    /// system, user, assistant or tool.
    pub role: String,
    pub text: String,
    /// 0..100: higher is kept first when the budget is tight.
    #[serde(default)]
    pub priority: Option<u8>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PackArgs {
    /// Token budget of the packed context.
    pub budget: u32,
    /// The current task or question; memories are recalled for it.
    pub query: String,
    /// The system prompt to keep at the top.
    #[serde(default)]
    pub system: Option<String>,
    /// Recent conversation messages, oldest first.
    #[serde(default)]
    pub messages: Option<Vec<MessageArg>>,
    /// Thread whose memories to use.
    #[serde(default)]
    pub thread: Option<String>,
    /// Agent whose memories to use.
    #[serde(default)]
    pub agent: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ForgetArgs {
    /// Forget this memory (an id from remember, recall or list_memories).
    #[serde(default)]
    pub memory_id: Option<String>,
    /// With predicate: forget the fact about this subject.
    #[serde(default)]
    pub subject: Option<String>,
    /// With subject: forget the fact with this attribute.
    #[serde(default)]
    pub predicate: Option<String>,
    /// Erase this text fragment wherever it appears.
    #[serde(default)]
    pub text: Option<String>,
    /// Forget everything derived from this source event or session.
    #[serde(default)]
    pub source_ref: Option<String>,
    /// Limit a subject/text/source_ref selector to this thread.
    #[serde(default)]
    pub thread: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListArgs {
    /// Only these statuses: pending, active, superseded, retracted, expired, conflicted, archived.
    #[serde(default)]
    pub status: Option<Vec<String>>,
    /// Only memories of this thread.
    #[serde(default)]
    pub thread: Option<String>,
    /// Only memories of this agent.
    #[serde(default)]
    pub agent: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct HistoryArgs {
    /// The memory whose revisions to show.
    pub memory_id: String,
}

/// Insert `key: value` when the value is present.
fn put<T: serde::Serialize>(m: &mut Map<String, Value>, key: &str, value: &Option<T>) {
    if let Some(v) = value {
        m.insert(key.to_string(), json!(v));
    }
}

/// Read a CLI input object with `wire`, naming the field of an error.
fn read<T: DeserializeOwned>(v: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let text = super::cli::plain_type_names(&e.inner().to_string());
        if path == "." || path.is_empty() {
            text
        } else {
            format!("field `{path}`: {text}")
        }
    })
}

/// A tool's answer: the JSON result, or an error the model can read.
fn answer(r: Result<Value, String>) -> Result<CallToolResult, ErrorData> {
    Ok(match r {
        Ok(v) => CallToolResult::structured(wrap(v)),
        Err(m) => CallToolResult::error(vec![ContentBlock::text(m)]),
    })
}

/// Structured content must be an object: an array is wrapped as `{"items": […]}`.
fn wrap(v: Value) -> Value {
    match v {
        Value::Object(_) => v,
        other => json!({ "items": other }),
    }
}

impl EngramMcp {
    pub fn new(engram: Engram, principal: w::Principal) -> Self {
        EngramMcp {
            engram: Arc::new(Mutex::new(engram)),
            principal,
            tool_router: Self::tool_router(),
        }
    }

    /// The principal's scope, narrowed to a thread or agent.
    fn scope(&self, thread: &Option<String>, agent: &Option<String>) -> Value {
        let mut m = Map::new();
        m.insert("tenant".into(), json!(self.principal.tenant));
        put(&mut m, "user", &self.principal.user);
        put(&mut m, "project", &self.principal.project);
        put(&mut m, "thread", thread);
        put(&mut m, "agent", agent);
        Value::Object(m)
    }

    /// Run `f` with the engine off the async threads.
    async fn call(
        &self,
        f: impl FnOnce(&mut Engram, w::Principal) -> Result<Value, String> + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let engram = Arc::clone(&self.engram);
        let principal = self.principal.clone();
        let r = tokio::task::spawn_blocking(move || {
            let mut e = engram
                .lock()
                .map_err(|_| "an earlier call failed mid-way; restart the server".to_string())?;
            f(&mut e, principal)
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the call's worker stopped: {e}"), None))?;
        answer(r)
    }
}

#[tool_router]
impl EngramMcp {
    #[tool(
        description = "Offer something worth remembering about the user, the project or the conversation. The memory policy decides whether to store it (active), hold it for review (pending), keep it only for this task (working) or reject it (e.g. secrets, chit-chat), and why; facts about the same subject and attribute supersede older ones. Returns the decision with its reasons, gates and memory_id."
    )]
    async fn remember(
        &self,
        Parameters(a): Parameters<RememberArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut c = Map::new();
        c.insert("text".into(), json!(a.text));
        c.insert("scope".into(), self.scope(&a.thread, &a.agent));
        let mut source = Map::new();
        source.insert(
            "kind".into(),
            json!(a.source_kind.as_deref().unwrap_or("user")),
        );
        put(&mut source, "ref", &a.source_ref);
        c.insert("source".into(), Value::Object(source));
        put(&mut c, "observed_at", &a.observed_at);
        put(&mut c, "confidence", &a.confidence);
        put(&mut c, "kind_hint", &a.kind_hint);
        put(&mut c, "subject", &a.subject);
        put(&mut c, "predicate", &a.predicate);
        put(&mut c, "object", &a.object);
        let candidate: Result<wire::CandidateIn, String> = read(Value::Object(c));
        self.call(move |e, p| {
            let d = e
                .remember(p, vec![candidate?.into()])
                .map_err(|x| x.to_string())?;
            d.first()
                .map(wire::decision_json)
                .ok_or_else(|| "the policy returned no decision".to_string())
        })
        .await
    }

    #[tool(
        description = "Find the memories relevant to a question or task, ranked, each with its explanation: the score, the features behind it (similarity, scope, freshness, authority, type fit, entity, risk) and the admission check (why it was admitted). Only memories of this server's principal are searched."
    )]
    async fn recall(
        &self,
        Parameters(a): Parameters<RecallArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut q = Map::new();
        q.insert("query".into(), json!(a.query));
        q.insert("scope".into(), self.scope(&a.thread, &a.agent));
        q.insert("explain".into(), json!(true));
        put(&mut q, "k", &a.k);
        put(&mut q, "kinds", &a.kinds);
        put(&mut q, "as_of", &a.as_of);
        let query: Result<wire::QueryIn, String> = read(Value::Object(q));
        self.call(move |e, p| {
            let r = e
                .recall(p, vec![query?.into()])
                .map_err(|x| x.to_string())?;
            r.first()
                .map(wire::recall_json)
                .ok_or_else(|| "the policy returned no result".to_string())
        })
        .await
    }

    #[tool(
        description = "Build the context for the next model call within a token budget: the system prompt, the relevant memories recalled for the query, and the recent messages, trimmed and compressed to fit. Returns the packed text, its token count, its sections and what was dropped and why."
    )]
    async fn pack_context(
        &self,
        Parameters(a): Parameters<PackArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut r = Map::new();
        r.insert("budget".into(), json!(a.budget));
        r.insert("query".into(), json!(a.query));
        r.insert("scope".into(), self.scope(&a.thread, &a.agent));
        put(&mut r, "system", &a.system);
        if let Some(messages) = &a.messages {
            let list: Vec<Value> = messages
                .iter()
                .map(|m| {
                    let mut o = Map::new();
                    o.insert("role".into(), json!(m.role));
                    o.insert("text".into(), json!(m.text));
                    put(&mut o, "priority", &m.priority);
                    Value::Object(o)
                })
                .collect();
            r.insert("messages".into(), Value::Array(list));
        }
        let req: Result<wire::PackIn, String> = read(Value::Object(r));
        self.call(move |e, p| {
            let packed = e.pack(p, req?.into()).map_err(|x| x.to_string())?;
            Ok(wire::packed_json(&packed))
        })
        .await
    }

    #[tool(
        description = "Forget memories, for good: one memory by memory_id; a fact by subject and predicate; every memory containing a text fragment; or everything derived from a source_ref. Later re-derivations of the same content (from its sources, documents, tools, imports or quoted text) are rejected (tombstones); the user may still state it again explicitly. Returns what was deleted and cascaded."
    )]
    async fn forget(
        &self,
        Parameters(a): Parameters<ForgetArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut f = Map::new();
        put(&mut f, "memory_id", &a.memory_id);
        if a.memory_id.is_none() {
            f.insert("scope".into(), self.scope(&a.thread, &None));
        }
        put(&mut f, "subject", &a.subject);
        put(&mut f, "predicate", &a.predicate);
        put(&mut f, "text", &a.text);
        put(&mut f, "source_ref", &a.source_ref);
        let selector = read::<wire::ForgetIn>(Value::Object(f)).and_then(|s| {
            s.selector()
                .map_err(|(field, m)| format!("field `{field}`: {m}"))
        });
        self.call(move |e, p| {
            let sel = selector?;
            e.begin_batch().map_err(|x| x.to_string())?;
            let r = e.forget(p, vec![sel]);
            e.finish_batch(r.is_ok()).map_err(|x| x.to_string())?;
            Ok(wire::forget_json(&r.map_err(|x| x.to_string())?))
        })
        .await
    }

    #[tool(
        description = "List the stored memories of this server's principal with their status (active, pending, superseded, …), optionally only some statuses, a thread or an agent. Returns {\"items\": [memory, …]}."
    )]
    async fn list_memories(
        &self,
        Parameters(a): Parameters<ListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let scope: Result<wire::Scope, String> = read(self.scope(&a.thread, &a.agent));
        let statuses: Result<Vec<wire::Status>, String> =
            read(json!(a.status.clone().unwrap_or_default()));
        self.call(move |e, p| {
            let st = statuses?.into_iter().map(Into::into).collect();
            let mems = e.list(p, scope?.into(), st).map_err(|x| x.to_string())?;
            Ok(Value::Array(mems.iter().map(wire::memory_json).collect()))
        })
        .await
    }

    #[tool(
        description = "Show every revision of one memory, oldest first: how it was created, superseded or retracted, with provenance. Returns {\"items\": [revision, …]}."
    )]
    async fn memory_history(
        &self,
        Parameters(a): Parameters<HistoryArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(move |e, p| {
            let revs = e.history(p, &a.memory_id).map_err(|x| x.to_string())?;
            if revs.is_empty() {
                return Err(format!("no memory with id '{}'", a.memory_id));
            }
            Ok(Value::Array(revs.iter().map(wire::memory_json).collect()))
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for EngramMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("engram", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Engram is this agent's long-term memory and its policy: call remember with \
                 anything worth keeping (it decides what is stored), recall before answering \
                 questions that depend on the past, pack_context to build a budgeted prompt, \
                 forget when the user asks to erase something.",
            )
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
