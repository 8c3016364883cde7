//! The operations of SPEC §4, one table entry each: its name, whether it
//! writes, the shapes of its input and output, and how it runs — read the
//! input (`crate::input`), map it to the data model (`crate::wire`), call
//! the policy, print the output as JSON Lines.
//!
//! Adding an operation: its input and output types in `wire`, its policy
//! function in `Policy` (the guest implements it by calling the policy
//! module), and one entry in `OPERATIONS`. Every transport (CLI, HTTP,
//! MCP, npm, Python) reaches it by name through the component's `json`
//! export; the JSON Schema and the generated TypeScript, Python and MCP
//! types follow from the entry.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::input::{self, invalid, Form, Item};
use crate::types::*;
use crate::wire::{
    self, CandidateIn, DecisionOut, ForgetIn, ForgetOut, HistoryIn, ImportHead, ImportIn, InfoOut,
    ListIn, MemoryJson, OperationLookupIn, OperationReceiptOut, OperationRecordIn,
    OperationStateOut, PackIn, PackedOut, QueryIn, RecallOut, ReceiptOut, ReviewIn, ReviewOut,
    SweepIn, SweepOut,
};

/// The policy's typed functions (`wit/policy.wit`), which the operations
/// call. The guest implements it over its store and clock.
pub trait Policy {
    fn classify(&self, candidates: &[Candidate]) -> Result<Vec<Decision>, Error>;
    fn remember(&self, candidates: &[Candidate]) -> Result<Vec<Decision>, Error>;
    fn import_records(&self, records: &[ImportRecord]) -> Result<Vec<ImportReceipt>, Error>;
    fn recall(&self, queries: &[Query]) -> Result<Vec<RecallResult>, Error>;
    fn pack(&self, request: &PackRequest) -> Result<PackedContext, Error>;
    fn forget(&self, selectors: &[ForgetSelector]) -> Result<ForgetReport, Error>;
    fn sweep(&self, scope: &Scope) -> Result<SweepReport, Error>;
    fn history(&self, id: &str) -> Result<Vec<Memory>, Error>;
    fn list_memories(&self, scope: &Scope, statuses: &[Status]) -> Result<Vec<Memory>, Error>;
    fn review(&self, items: &[ReviewItem]) -> Result<Vec<ReviewOutcome>, Error>;
    fn record_operations(
        &self,
        records: &[OperationRecord],
    ) -> Result<Vec<OperationReceipt>, Error>;
    fn get_operations(&self, lookups: &[OperationLookup]) -> Result<Vec<OperationState>, Error>;
    fn info(&self) -> PolicyInfo;
}

/// What an operation reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A batch: JSON Lines (one object per line) or a JSON array of objects.
    Batch,
    /// One JSON object.
    Object,
}

/// What an operation prints: always JSON Lines, each line one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// One line per input item, in input order.
    Each,
    /// Exactly one line.
    One,
    /// Any number of lines (a list).
    Many,
}

/// One operation of the contract.
pub struct Operation {
    /// Its name: the CLI's subcommand, the HTTP route's last segment.
    pub name: &'static str,
    /// What it does, in one sentence.
    pub summary: &'static str,
    /// It writes to the store: a host runs it under the store's write
    /// lock, in one transaction.
    pub writes: bool,
    pub input: Input,
    pub output: Output,
    run: fn(&dyn Policy, &str) -> Result<String, Error>,
    /// The JSON Schema of its input item.
    #[cfg(feature = "schema")]
    pub input_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    /// The JSON Schema of its output line.
    #[cfg(feature = "schema")]
    pub output_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
}

macro_rules! operations {
    ($($name:literal ($summary:literal) writes: $writes:literal,
       input: $input:ident $in_ty:ty, output: $output:ident $out_ty:ty,
       run: $run:expr;)*) => {
        /// Every operation, in the order SPEC §4 lists them.
        pub const OPERATIONS: &[Operation] = &[$(Operation {
            name: $name,
            summary: $summary,
            writes: $writes,
            input: Input::$input,
            output: Output::$output,
            run: $run,
            #[cfg(feature = "schema")]
            input_schema: |g| g.subschema_for::<$in_ty>(),
            #[cfg(feature = "schema")]
            output_schema: |g| g.subschema_for::<$out_ty>(),
        }),*];
    };
}

operations! {
    "classify" ("Classify and gate candidates; nothing is stored (dry run).")
        writes: false, input: Batch CandidateIn, output: Each DecisionOut,
        run: |p, s| each::<CandidateIn, _, _, DecisionOut>(s, |c| p.classify(c));
    "remember" ("Classify, gate, resolve and store candidates per disposition, in one atomic commit.")
        writes: true, input: Batch CandidateIn, output: Each DecisionOut,
        run: |p, s| each::<CandidateIn, _, _, DecisionOut>(s, |c| p.remember(c));
    "import" ("Bulk-load already-decided records (migration); secret gating and tombstones still apply.")
        writes: true, input: Batch ImportLine, output: Each ReceiptOut,
        run: |p, s| each_with::<_, _, ReceiptOut>(s, import_record, |r| p.import_records(r));
    "recall" ("Rank the memories of a scope for each query, each result with its features and admission record.")
        writes: false, input: Batch QueryIn, output: Each RecallOut,
        run: |p, s| each::<QueryIn, _, _, RecallOut>(s, |q| p.recall(q));
    "pack" ("Assemble the next turn's context under a token budget, with its manifest.")
        writes: false, input: Object PackIn, output: One PackedOut,
        run: |p, s| one::<PackedOut>(p.pack(&object::<PackIn>(s)?.into())?);
    "forget" ("Erase memories by id, key, text fragment or source event, leaving tombstones; one report for all selectors.")
        writes: true, input: Batch ForgetIn, output: One ForgetOut,
        run: |p, s| {
            let (at, selectors) = read(s, forget_selector)?;
            one::<ForgetOut>(p.forget(&selectors).map_err(|e| at_item(e, &at))?)
        };
    "sweep" ("Apply expiry and archival rules in a scope.")
        writes: true, input: Object SweepIn, output: One SweepOut,
        run: |p, s| one::<SweepOut>(p.sweep(&sweep_scope(s)?)?);
    "history" ("Every revision of one memory, oldest first.")
        writes: false, input: Object HistoryIn, output: Many MemoryJson,
        run: |p, s| memories(p.history(&object::<HistoryIn>(s)?.id)?);
    "list" ("The memories of a scope (latest revisions), optionally only some statuses.")
        writes: false, input: Object ListIn, output: Many MemoryJson,
        run: |p, s| {
            let l = object::<ListIn>(s)?;
            memories(p.list_memories(&l.scope.into(), &l.statuses)?)
        };
    "review" ("Approve or reject pending memories, in one atomic commit.")
        writes: true, input: Batch ReviewIn, output: Each ReviewOut,
        run: |p, s| each::<ReviewIn, _, _, ReviewOut>(s, |r| p.review(r));
    "record-operations" ("Record what tool side effects did, by operation id (created, updated or duplicate; a final status never changes), in one atomic commit.")
        writes: true, input: Batch OperationRecordIn, output: Each OperationReceiptOut,
        run: |p, s| each::<OperationRecordIn, _, _, OperationReceiptOut>(s, |r| p.record_operations(r));
    "get-operations" ("Look operations up by id, exactly: each one's latest record, revision and history of statuses.")
        writes: false, input: Batch OperationLookupIn, output: Each OperationStateOut,
        run: |p, s| each::<OperationLookupIn, _, _, OperationStateOut>(s, |l| p.get_operations(l));
    "info" ("The versions of the package and of the policy configuration.")
        writes: false, input: Object wire::InfoIn, output: One InfoOut,
        run: |p, s| {
            if !s.trim().is_empty() {
                object::<wire::InfoIn>(s)?;
            }
            one::<InfoOut>(p.info())
        };
}

/// The operation called `name`.
pub fn operation(name: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|o| o.name == name)
}

/// Run operation `name` on `input` (SPEC §4's JSON) and return its output
/// as JSON Lines. An input error is `invalid-input` naming the item (its
/// 0-based line in JSON Lines, its position in an array; 0 for an object)
/// and the field path.
pub fn call(policy: &dyn Policy, name: &str, input: &str) -> Result<String, Error> {
    match operation(name) {
        Some(op) => (op.run)(policy, input),
        None => Err(Error::Unsupported(format!(
            "no operation '{name}' (one of: {})",
            OPERATIONS
                .iter()
                .map(|o| o.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Read operation `name`'s input as the operation would, without running
/// it: the same refusal (`invalid-input` naming the item and field) a call
/// would give, for a transport to give before it routes or writes
/// anything. The one reading of every input is the operation's own.
pub fn check(name: &str, input: &str) -> Result<(), Error> {
    match call(&ReadOnly, name, input) {
        Err(Error::Unsupported(m)) if m == READ_ONLY => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Ok(()),
    }
}

const READ_ONLY: &str = "input read; nothing run";

/// A policy that refuses every call once its input has been read (`check`).
struct ReadOnly;

impl Policy for ReadOnly {
    fn classify(&self, _: &[Candidate]) -> Result<Vec<Decision>, Error> {
        Err(read_only())
    }
    fn remember(&self, _: &[Candidate]) -> Result<Vec<Decision>, Error> {
        Err(read_only())
    }
    fn import_records(&self, _: &[ImportRecord]) -> Result<Vec<ImportReceipt>, Error> {
        Err(read_only())
    }
    fn recall(&self, _: &[Query]) -> Result<Vec<RecallResult>, Error> {
        Err(read_only())
    }
    fn pack(&self, _: &PackRequest) -> Result<PackedContext, Error> {
        Err(read_only())
    }
    fn forget(&self, _: &[ForgetSelector]) -> Result<ForgetReport, Error> {
        Err(read_only())
    }
    fn sweep(&self, _: &Scope) -> Result<SweepReport, Error> {
        Err(read_only())
    }
    fn history(&self, _: &str) -> Result<Vec<Memory>, Error> {
        Err(read_only())
    }
    fn list_memories(&self, _: &Scope, _: &[Status]) -> Result<Vec<Memory>, Error> {
        Err(read_only())
    }
    fn review(&self, _: &[ReviewItem]) -> Result<Vec<ReviewOutcome>, Error> {
        Err(read_only())
    }
    fn record_operations(&self, _: &[OperationRecord]) -> Result<Vec<OperationReceipt>, Error> {
        Err(read_only())
    }
    fn get_operations(&self, _: &[OperationLookup]) -> Result<Vec<OperationState>, Error> {
        Err(read_only())
    }
    fn info(&self) -> PolicyInfo {
        PolicyInfo {
            package_version: String::new(),
            policy_version: String::new(),
        }
    }
}

fn read_only() -> Error {
    Error::Unsupported(READ_ONLY.to_string())
}

/// An import line: one JSON object whose head fields (`ImportHead`) are
/// read apart from the candidate's, so each part stays strict about the
/// fields it does not know. Each part is read from text, as every other
/// input is (one parser per type in the component, not two).
fn import_record(item: Item<'_>, form: Form) -> Result<ImportRecord, Error> {
    let mut fields: serde_json::Map<String, serde_json::Value> = input::parse(item, form)?;
    let head_fields = input::fields_of::<ImportHead>();
    let head: serde_json::Map<String, serde_json::Value> = head_fields
        .iter()
        .filter_map(|f| fields.remove_entry(*f))
        .collect();
    let part = |map: serde_json::Map<String, serde_json::Value>| {
        serde_json::to_string(&map).map_err(|e| invalid(Some(item.index), "", e.to_string()))
    };
    let (head_text, candidate_text) = (part(head)?, part(fields)?);
    let at = |text| Item {
        index: item.index,
        text,
    };
    let head: ImportHead = input::parse(at(&head_text), form)?;
    let candidate: CandidateIn = input::parse_with(at(&candidate_text), form, head_fields)?;
    Ok(ImportIn { head, candidate }.into())
}

fn forget_selector(item: Item<'_>, form: Form) -> Result<ForgetSelector, Error> {
    let f: ForgetIn = input::parse(item, form)?;
    f.selector()
        .map_err(|(field, message)| invalid(Some(item.index), field, message))
}

/// A sweep's scope: `{"scope": {…}}`, or a bare scope.
fn sweep_scope(s: &str) -> Result<Scope, Error> {
    let item = whole(s);
    let wrapped = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(item.text)
        .is_ok_and(|m| m.contains_key("scope"));
    Ok(if wrapped {
        input::parse::<SweepIn>(item, Form::Array)?.scope.into()
    } else {
        input::parse::<wire::Scope>(item, Form::Array)?.into()
    })
}

/// The whole input as one item.
fn whole(s: &str) -> Item<'_> {
    Item {
        index: 0,
        text: s.trim(),
    }
}

/// A one-object input, which may span lines (positions are given as line
/// and column).
fn object<T: DeserializeOwned>(s: &str) -> Result<T, Error> {
    input::parse(whole(s), Form::Array)
}

/// Every item of a batch read with `reader`, with where each item was.
fn read<W>(
    s: &str,
    reader: fn(Item<'_>, Form) -> Result<W, Error>,
) -> Result<(Vec<u32>, Vec<W>), Error> {
    let (form, items) = input::items(s)?;
    let mut at = Vec::with_capacity(items.len());
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        values.push(reader(item, form)?);
        at.push(item.index);
    }
    Ok((at, values))
}

fn via<I: DeserializeOwned, W: From<I>>(item: Item<'_>, form: Form) -> Result<W, Error> {
    input::parse::<I>(item, form).map(W::from)
}

/// A policy error about item `i` of a call, pointed at where that item
/// was in the input.
fn at_item(e: Error, at: &[u32]) -> Error {
    crate::item::repoint(e, |i| at.get(i as usize).copied())
}

/// One output line per item of the batch.
fn each<I, W, R, O>(
    s: &str,
    call: impl FnOnce(&[W]) -> Result<Vec<R>, Error>,
) -> Result<String, Error>
where
    I: DeserializeOwned,
    W: From<I>,
    O: Serialize + From<R>,
{
    each_with::<W, R, O>(s, via::<I, W>, call)
}

fn each_with<W, R, O>(
    s: &str,
    reader: fn(Item<'_>, Form) -> Result<W, Error>,
    call: impl FnOnce(&[W]) -> Result<Vec<R>, Error>,
) -> Result<String, Error>
where
    O: Serialize + From<R>,
{
    let (at, items) = read(s, reader)?;
    if items.is_empty() {
        return Ok(String::new());
    }
    let out = call(&items).map_err(|e| at_item(e, &at))?;
    lines(out.into_iter().map(O::from))
}

fn one<O: Serialize>(value: impl Into<O>) -> Result<String, Error> {
    lines(std::iter::once(value.into()))
}

fn memories(list: Vec<Memory>) -> Result<String, Error> {
    lines(list.into_iter().map(MemoryJson::printed))
}

/// JSON Lines: each value on a line of its own.
fn lines<O: Serialize>(values: impl Iterator<Item = O>) -> Result<String, Error> {
    let mut out = Vec::new();
    for v in values {
        serde_json::to_writer(&mut out, &v)
            .map_err(|e| Error::Unsupported(format!("printing the output: {e}")))?;
        out.push(b'\n');
    }
    // serde_json writes UTF-8.
    String::from_utf8(out).map_err(|e| Error::Unsupported(format!("printing the output: {e}")))
}

/// The JSON Schema name of an import line, which is an import head plus a
/// candidate (read in two passes).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[allow(dead_code)]
struct ImportLine {
    #[cfg_attr(feature = "schema", serde(flatten))]
    head: ImportHead,
    #[cfg_attr(feature = "schema", serde(flatten))]
    candidate: CandidateIn,
}
